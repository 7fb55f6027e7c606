"""Gemini CLI: its BeforeTool hook, answered by the Bash validator.

Gemini CLI's hooks follow Claude Code's contract (settings.json `hooks` → event → matcher
groups of command handlers; JSON on stdin and stdout), with its own names: the event is
BeforeTool, the shell tool is run_shell_command with tool_input {command, description?,
dir_path?} (older releases: `directory`), and a hook blocks a call with
{"decision": "deny", "reason": "..."} (the reason goes to the model as the tool's error).

As in Claude Code's PreToolUse, only `deny` is ever emitted: what the validator allows or
asks is left to Gemini CLI's own confirmation (an "allow" could skip it). As there, an input
the adapter cannot read (not JSON, a command or cwd of the wrong type, a cwd with NUL) or an
internal error is a deny (GW892, GW893): in YOLO mode "no decision" would run the command
unchecked. Other events and tools are not judged here and get no decision.
"""

import json
import os
import posixpath

from gateway.decision import ASK, DENY, Verdict
from gateway.hooks import payload as pl

AGENT = "gemini"
EVENTS = ("BeforeTool",)
SHELL_TOOL = "run_shell_command"
NO_DECISION = "{}"  # Gemini CLI parses stdout as JSON on exit 0: print an empty object


def event_of(payload) -> str:
    return payload.get("hook_event_name", "?") if isinstance(payload, dict) else "?"


def _cwd(payload, tool_input):
    """The directory the command runs in: cwd joined with tool_input.dir_path; None when the
    payload names none (the project directory is used then)."""
    from gateway import paths

    cwd = pl.text_field(payload, "cwd", None)
    if cwd is not None and not (cwd.startswith("/") and paths.usable(cwd)):
        raise pl.PayloadError("cwd is not a usable absolute path")
    sub = tool_input.get("dir_path", tool_input.get("directory"))
    if sub is not None and not (isinstance(sub, str) and paths.usable(sub)):
        raise pl.PayloadError("tool_input.dir_path is not a usable path")
    if sub and cwd:
        cwd = posixpath.normpath(posixpath.join(cwd, sub))
    elif sub and sub.startswith("/"):
        cwd = posixpath.normpath(sub)
    return cwd


def decide(raw: bytes, env) -> tuple:
    """(verdict, payload or None) for raw stdin bytes. Never raises."""
    try:
        payload = pl.read(raw)
        if payload.get("hook_event_name") not in EVENTS:
            return Verdict(ASK, "1", "GW103", "", "not a BeforeTool event"), payload
        tool = payload.get("tool_name")
        if tool != SHELL_TOOL:
            return (Verdict(ASK, "1", "GW103", "", f"tool_name is {tool!r}; only "
                            f"{SHELL_TOOL} is judged here"), payload)
        tool_input = pl.tool_input(payload)
        command = tool_input.get("command")
        if not isinstance(command, str):
            raise pl.PayloadError("tool_input.command is missing or not a string")
        cwd = _cwd(payload, tool_input)
        from gateway import paths, runtime

        explicit = env.get("GEMINI_PROJECT_DIR")
        if explicit and os.path.isabs(explicit):
            env = dict(env, CLAUDE_PROJECT_DIR=explicit)
        project = paths.project_dir(pl.text_field(payload, "cwd", None), env)
        verdict = runtime.judge_bash(command, cwd or project, project, "Bash",
                                     raw_input=raw.decode("utf-8"), env=env)
        return verdict, payload
    except pl.PayloadError as exc:  # cannot tell what would run: refuse, as PreToolUse does
        return Verdict(DENY, "guard:input", "GW892", "",
                       f"the BeforeTool input cannot be read ({exc}); the call is refused"), None
    except Exception as exc:  # never let a call through on an error
        return Verdict(DENY, "guard:error", "GW893", "",
                       f"internal error: {type(exc).__name__}: {exc}"), None


def render(verdict, payload=None) -> str:
    if verdict.decision is DENY:
        return json.dumps({"decision": "deny",
                           "reason": f"gateway {verdict.code}: {verdict.message}"},
                          ensure_ascii=False)
    return NO_DECISION


def settings(prefix: str) -> dict:
    """The `hooks` part of Gemini CLI's settings.json (.gemini/settings.json or
    ~/.gemini/settings.json) that registers this adapter; `prefix` runs the gateway."""
    return {"hooks": {"BeforeTool": [{
        "matcher": SHELL_TOOL,
        "hooks": [{"name": "gateway", "type": "command",
                   "command": f"{prefix} adapter {AGENT}", "timeout": 30000,
                   "description": "gateway: deny catastrophic shell commands"}]}]}}
