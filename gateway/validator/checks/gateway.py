"""The gateway's own workflow steps whose effect depends on more than their options
(rules/workflow.yaml):

* ``gateway breezing verify`` and ``finish`` run the project's own checks, seed 001's ladder
  (gateway.orchestration.verify): they are judged as the commands they would run in this
  project, step by step (``pytest``, ``npm test``, ``cargo test``...), each by the same
  catalogue; the two script steps the seed names (``./tests/validate-plugin.sh``,
  ``./scripts/ci/check-consistency.sh``) are the project's own checks, trusted as ``make``
  trusts the Makefile, unless the plan refuses them (a link out of the project). ``--dry-run``
  and ``finish --cleanup`` run nothing.
* ``gateway spec start|done`` move an issue through the tracker they are given (``--tracker``,
  else ``$GATEWAY_SPEC_TRACKER``, else none): ``none`` only records the step; ``gh`` changes
  the issue on GitHub and ``craft-kit`` runs the project's ``npx tsx`` commands: both need the
  human (GW717).

The options are judged as for any entry (safe_flags, positionals) first.
"""

import os
import shlex

from gateway.shell import argv as argvmod
from gateway.validator.checks._common import PHASE


def _generic(ctx, spec, words, label):
    """(args, verdict or None, path candidates): the entry's option and positional rules."""
    args = argvmod.parse(words, spec.value_flags, spec.long_options, spec.optional_flags)
    rule = f"catalogue:{label}"
    for opt in args.options:
        if spec.safe_flags is not None and opt.name not in spec.safe_flags and \
                not argvmod.abbreviates_only(opt.name, spec.options, spec.safe_flags):
            return args, ctx.ask(PHASE, "GW704", f"{label} {opt.name} is not among its safe "
                                 "options", rule=rule), []
    pos = args.positionals
    if spec.args == "none" and pos:
        return args, ctx.ask(PHASE, "GW712", f"{label} takes no arguments here (got "
                             f"{pos[0]!r})", rule=rule), []
    if spec.max_positionals is not None and len(pos) > spec.max_positionals:
        return args, ctx.ask(PHASE, "GW712", f"{label} takes at most {spec.max_positionals} "
                             "argument(s)", rule=rule), []
    cands = [o.value for o in args.options if o.value is not None
             and o.name in spec.value_flags and o.name not in spec.text_flags]
    return args, None, cands


def _value(args, *names):
    got = None
    for o in args.options:
        if o.name in names and o.value is not None:
            got = o.value
    return got


def verify(ctx, spec, words, cwd):
    label = spec.name
    args, verdict, cands = _generic(ctx, spec, words, label)
    if verdict is not None:
        return verdict, [], []
    if args.has("--dry-run") or args.has("--cleanup"):
        return None, cands, []
    where = _value(args, "--project")
    project = os.path.normpath(os.path.join(cwd, where)) if where else ctx.project

    def ladder():
        from gateway.orchestration import verify as ladder_mod
        from gateway.validator.segment import judge_argv

        try:
            planned = ladder_mod.plan(project, pkg_manager=_value(args, "--pkg-manager"),
                                      pytest=_value(args, "--pytest"), env=ctx.env)
        except ladder_mod.VerifyError as e:
            return ctx.ask(PHASE, "GW718", f"{label}: the project's checks cannot be planned "
                           f"({e})", rule=f"catalogue:{label}")
        for p in planned:
            if not p.applies:
                continue
            step = f"step {p.step.number} of seed 001's check ({p.step.trigger})"
            if p.refused:
                return ctx.ask(PHASE, "GW718", f"{label} would run {p.display}, {step}, and "
                               f"the plan refuses it: {p.refused}", rule=f"catalogue:{label}")
            if p.step.number in (1, 2):
                ctx.step(PHASE, "pass", "", f"{label}: {p.display} ({step}) is one of the "
                         "project's own checks the seed names, trusted like its Makefile")
                continue
            try:
                inner = shlex.split(p.display)
            except ValueError:
                inner = []
            if not inner:
                return ctx.ask(PHASE, "GW718", f"{label}: {step} cannot be judged",
                               rule=f"catalogue:{label}")
            ctx.step(PHASE, "info", "", f"{label} runs {p.display} ({step}): judging it")
            v = judge_argv(ctx, inner, project, p.display, (), 1)
            if v.decision is not _ALLOW():
                return ctx.ask(PHASE, "GW718", f"{label} runs {p.display} ({step}), which "
                               f"is not allowed: {v.code}: {v.message}",
                               rule=f"catalogue:{label}")
        return None

    return None, cands, [], ladder


def _ALLOW():
    from gateway.decision import ALLOW

    return ALLOW


TRACKERS = ("none", "gh", "craft-kit")


def spec_step(ctx, spec, words, cwd):
    label = spec.name
    args, verdict, cands = _generic(ctx, spec, words, label)
    if verdict is not None:
        return verdict, [], []
    tracker = _value(args, "--tracker") or (ctx.env.get("GATEWAY_SPEC_TRACKER") or "none")
    if tracker == "none":
        return None, cands, []
    if tracker not in TRACKERS:
        return ctx.ask(PHASE, "GW717", f"{label} --tracker {tracker!r}: not a tracker the "
                       f"gateway knows ({', '.join(TRACKERS)})", rule=f"catalogue:{label}"), \
            [], []
    if ctx.exposure:
        return None, cands, []    # what it reads is known: the tracker's own configuration
    what = {"gh": "changes the issue on GitHub (gh issue close)",
            "craft-kit": "runs the project's npx tsx .cc-craft-kit/commands/task/*.ts"}[tracker]
    return ctx.ask(PHASE, "GW717", f"{label} with the {tracker} tracker {what}",
                   rule=f"catalogue:{label}:{tracker}"), [], []
