"""The PermissionRequest hook: allow what the validator allows, deny what it denies, and
print nothing (the dialog stays) for everything else, including every error.

Output per the measured contract (reference/claude-code-hooks.md §5): only
`hookSpecificOutput.decision.behavior` counts; there is no "ask".
"""

import os

from gateway import _fastjson as json
from gateway.decision import ALLOW, ASK, DENY, Verdict
from gateway.hooks import payload as pl

EVENT = "PermissionRequest"
MATCHER = "Bash"  # the tools `gateway install` registers this hook for


def decide(raw: bytes, env) -> tuple:
    """(verdict, payload or None) for raw stdin bytes. Never raises."""
    try:
        payload = pl.read(raw)
        tool_name = payload.get("tool_name")
        if tool_name is not None and not isinstance(tool_name, str):
            raise pl.PayloadError("tool_name is not a string")
        if tool_name != "Bash":
            return (Verdict(ASK, "1", "GW103", "", f"tool_name is {tool_name!r}; only Bash "
                            "commands are judged here"), payload)
        command = pl.tool_input(payload).get("command")
        if not isinstance(command, str):
            raise pl.PayloadError("tool_input.command is missing or not a string")
        cwd = pl.text_field(payload, "cwd", None)
        if cwd is None or not cwd.startswith("/"):
            # the Bash tool's shell keeps its own directory across calls; without it, relative
            # paths (and `.`) cannot be placed
            raise pl.PayloadError("cwd is missing or not an absolute path")
        from gateway import paths, runtime

        if not paths.usable(cwd):
            raise pl.PayloadError("cwd is not a usable path (NUL or an unpaired surrogate)")
        if not os.path.isdir(cwd):
            # relative paths would be placed in a directory that is not there (the shell's
            # real directory is somewhere else): nothing can be proven inside
            raise pl.PayloadError(f"cwd {cwd!r} is not an existing directory")
        mode = pl.text_field(payload, "permission_mode", None)

        project = paths.project_dir(cwd, env)
        verdict = runtime.judge_bash(command, cwd, project, tool_name,
                                     raw_input=raw.decode("utf-8"), env=env, mode=mode)
        if verdict.decision is ALLOW:
            verdict = agree(verdict, payload, env)
        return verdict, payload
    except pl.PayloadError as exc:
        return Verdict(ASK, "input", "GW904", "", str(exc)), None
    except Exception as exc:  # never allow on an error
        return Verdict(ASK, "error", "GW902", "", f"{type(exc).__name__}: {exc}"), None


def agree(verdict, payload, env):
    """The validator's allow, unless the PreToolUse guards, on the same payload, deny or ask
    (one judgement for both hooks): a dialog PreToolUse asked for is never closed by this
    hook's allow (a role whose ownership does not cover what the command may write, a file
    that runs later, a file the client treats as sensitive...). Their deny is this hook's
    deny, their ask no decision (the dialog stays)."""
    from gateway.runtime import evaluate_guards

    pre = dict(payload, hook_event_name="PreToolUse")
    guard = evaluate_guards(pre, env)
    if guard.decision is DENY:
        return Verdict(DENY, guard.phase, guard.code, guard.rule, guard.message,
                       trace=verdict.trace + guard.trace, command=verdict.command)
    if guard.decision is ASK and guard.code != "GW800":
        return Verdict(ASK, guard.phase, guard.code, guard.rule, "PreToolUse asks for it: "
                       + guard.message, trace=verdict.trace + guard.trace,
                       command=verdict.command)
    return verdict


def render(verdict) -> str:
    """The stdout text for a verdict ("" for no decision)."""
    if verdict.decision is ALLOW:
        out = {"hookSpecificOutput": {"hookEventName": EVENT, "decision": {"behavior": "allow"}}}
    elif verdict.decision is DENY:
        out = {"hookSpecificOutput": {"hookEventName": EVENT, "decision": {
            "behavior": "deny", "message": f"gateway {verdict.code}: {verdict.message}"}}}
    else:
        return ""
    return json.dumps(out, ensure_ascii=False)
