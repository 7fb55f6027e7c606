"""Phase 6: containment. A script under the project root's own `scripts/` or
`.claude/hooks/` (lexically and after symlinks) may run. Nested directories of the same name
(vendor/scripts, node_modules/x/scripts) do not count.
"""

import os

from gateway.paths import is_within, resolve

PHASE = "6"


def contained_dir(ctx, path: str, cwd: str):
    """The containment directory `path` lies under, or None. Also the resolved path."""
    res = resolve(path, cwd, ctx.roots)
    if res.status != "inside":
        return None, res
    for d in ctx.policy.containment_dirs:
        lex_root = f"{ctx.roots.project}/{d}"
        real_root = f"{ctx.roots.project_real}/{d}"
        lex_ok = res.lex != lex_root and (is_within(res.lex, lex_root)
                                          or is_within(res.lex, real_root))
        real_ok = res.real != real_root and is_within(res.real, real_root)
        if lex_ok and real_ok:
            return d, res
    return None, res


_COMPLETIONS = (".js", ".mjs", ".cjs", ".json", ".node", ".ts")


def _runs_another_file(res) -> bool:
    """The interpreter would open another file than the one named: a directory (python's
    __main__.py, node's index.js or package.json main), or a name node completes (x ->
    x.js). A name that does not exist at all only makes the interpreter fail."""
    if os.path.isdir(res.real):
        return True
    if os.path.lexists(res.lex):
        return not os.path.isfile(res.real)
    return any(os.path.lexists(res.lex + ext) for ext in _COMPLETIONS)


def run(ctx, script: str, cwd: str, how: str):
    """Allow `script` if contained; otherwise an ask verdict (GW601 for an interpreter's
    script, GW602 for direct execution)."""
    d, res = contained_dir(ctx, script, cwd)
    if d is not None and _runs_another_file(res):
        # a directory (python runs its __main__.py, node its index.js or package.json's
        # main) or a name the interpreter completes (node x -> x.js): what runs is another
        # file, which may lead out
        code = "GW601" if how != "direct execution" else "GW602"
        return ctx.ask(PHASE, code, f"{script!r} is not a regular file in the project's "
                       f"{d}/ (a directory or a name the interpreter completes runs another "
                       "file); name the script file itself")
    if d is not None:
        from gateway.validator import state_model

        state_model.note_script(ctx, script, res.lex, res.real)
        ctx.contained = (script, res, d)  # trusted only as HEAD holds it: segment.trusted
        return ctx.allow(PHASE, "GW600", f"{how} runs {script!r}, inside the project's "
                         f"{d}/", rule=f"containment_dirs:{d}")
    if res.status == "outside":
        return ctx.ask("5", "GW501", f"{script!r} resolves outside the project ({res.lex})")
    if res.status == "symlink_out":
        return ctx.ask("5", "GW502", f"{script!r} leads outside the project through a symlink "
                       f"(to {res.real})")
    code = "GW601" if how != "direct execution" else "GW602"
    dirs = " or ".join(f"{d}/" for d in ctx.policy.containment_dirs)
    return ctx.ask(PHASE, code, f"{script!r} is not under the project's {dirs}")
