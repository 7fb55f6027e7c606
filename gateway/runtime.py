"""Wiring for the entry points: load the policy and the user's settings, then judge.

The layer above the validator and the guards (docs/architecture.md): they do not import each
other, so the guards consult the validator through this module, which the callers hand them
(`evaluate_guards`, or `judge=runtime` to gateway.guards.engine's entry points).

Kept import-light: it is on the hook path. Every failure to load anything ends in ask.
"""

from gateway.decision import ASK, Verdict
from gateway.policy.errors import PolicyError


def get_policy(project_dir, env=None, use_cache=True):
    """The effective policy; raises PolicyError."""
    from gateway.policy.cache import load_policy

    def verify(merged):
        from gateway.validator.examples import check
        check(merged)

    return load_policy(project_dir, env, verify=verify, use_cache=use_cache)


def judge_bash(command, cwd, project, tool_name="Bash", raw_input=None, env=None,
               policy=None, settings=None, deny_only=False, exposure=False,
               mode=None) -> Verdict:
    """The verdict for one Bash command, with the user's settings rules applied.
    `deny_only`, `exposure` and `mode` (the payload's permission_mode): see
    gateway.validator.pipeline.validate."""
    from gateway import settings as settings_mod
    from gateway.validator.pipeline import validate

    if policy is None:
        try:
            policy = get_policy(project, env)
        except PolicyError as exc:
            first = exc.errors[0] if exc.errors else "unknown problem"
            more = f" (and {len(exc.errors) - 1} more)" if len(exc.errors) > 1 else ""
            return Verdict(ASK, "error", "GW901", "", f"rules cannot be loaded: {first}{more}",
                           command=command if isinstance(command, str) else "")
    if settings is None:
        settings = settings_mod.load(project, env)
    if settings.errors:
        return Verdict(ASK, "error", "GW903", "", f"settings unreadable: {settings.errors[0]}",
                       command=command if isinstance(command, str) else "")
    import os

    home = (env if env is not None else os.environ).get("HOME")
    return validate(command, cwd, project, policy, tool_name, settings, raw_input, deny_only,
                    exposure=exposure, mode=mode, home=home,
                    env=env if env is not None else os.environ)


def evaluate_guards(payload, env=None, **kw):
    """The PreToolUse guards' verdict for a payload (gateway.guards.engine.evaluate), with
    this module as the validator they consult (the policy, and Bash's verdict)."""
    import sys

    from gateway.guards.engine import evaluate

    return evaluate(payload, env, judge=sys.modules[__name__], **kw)
