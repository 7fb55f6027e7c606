"""A project script that is a known tool's entry point (interpreters' `entry_scripts` in
rules/default.yaml): Django's manage.py is django-admin with the project's settings module
set, so `python manage.py check` is judged as `django-admin check` (the catalogue entry:
its subcommands and options, what each one writes). The script itself is project code: it
is trusted only as the repository's HEAD commit holds it (gateway.validator.trusted_code,
GW782), like a contained script and like the build wrappers (./mvnw, ./gradlew).
"""

import os

from gateway.decision import ALLOW
from gateway.paths import resolve

PHASE = "6"


def judge(ctx, tool, script, args, cwd, text, depth, judge_argv):
    """The verdict for INTERP SCRIPT ARGS where SCRIPT's base name is `tool`'s entry
    point: asks unless SCRIPT is a regular file of the project as HEAD holds it; then the
    line is judged as `tool ARGS`."""
    res = resolve(script, cwd, ctx.roots)
    if res.status == "outside":
        return ctx.ask("5", "GW501", f"{script!r} resolves outside the project ({res.lex})")
    if res.status == "symlink_out":
        return ctx.ask("5", "GW502", f"{script!r} leads outside the project through a "
                       f"symlink (to {res.real})")
    if res.status != "inside" or not os.path.isfile(res.real) or os.path.islink(res.lex):
        return ctx.ask(PHASE, "GW601", f"{script!r} is not a regular file of the project "
                       f"(the entry point of {tool} is judged as {tool} only as the "
                       "project's own file)", rule=f"entry_scripts:{tool}")
    from gateway.validator import state_model, trusted_code

    # a part of the same line that writes the script makes this part ask (GW781)
    state_model.note_script(ctx, script, res.lex, res.real)
    why = trusted_code.unseen(res.real, ctx.roots.project_real)
    if why is not None:
        return ctx.ask(PHASE, trusted_code.CODE, f"{script!r} is the project's entry point of "
                       f"{tool}, but {why}: it is not code a human has seen (it runs as "
                       f"{tool} only as the repository's HEAD commit holds it). Read it, then "
                       "approve it; commit it if it is meant to be the project's",
                       rule=f"trusted_code:{os.path.basename(script)}")
    ctx.step(PHASE, "pass", "", f"{script!r} is the HEAD commit's entry point of {tool}: "
             f"judging the line as {tool}")
    verdict = judge_argv(ctx, [tool] + list(args), cwd, text, (), depth + 1)
    if verdict.decision is not ALLOW:
        return verdict
    return ctx.allow(verdict.phase, verdict.code, f"{script} is the project's {tool} (as the "
                     f"HEAD commit holds it): {verdict.message}", rule=verdict.rule)
