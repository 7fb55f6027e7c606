"""`gateway hook <event>`: read all of stdin, decide, print one JSON object or nothing,
exit 0. This is the hot path: nothing here imports click, pydantic or PyYAML.

Each hook event is a module of this package with `EVENT` (Claude Code's event name),
`decide(raw, env) -> (verdict, payload)` and `render(verdict) -> str` (and `AUDIT = False` for
the lifecycle hooks, which make no permission decision to log); the command-line name
is the module name with dashes (permission_request -> permission-request). This package is
the one list of implemented hooks (`gateway install` registers exactly these).
"""

import os
import sys
import time

_NOT_EVENTS = ("runner", "payload")

#: What a hook prints when it fails before it can decide (the module does not import, say).
#: Printing nothing is "no decision": right for PermissionRequest (the dialog), but for the
#: PreToolUse guards it would let the call through, so they deny. Plain text, no imports.
_ON_INTERNAL_ERROR = {
    "pre-tool-use": '{"hookSpecificOutput": {"hookEventName": "PreToolUse", '
                    '"permissionDecision": "deny", "permissionDecisionReason": "gateway GW893: '
                    'internal error in the gateway hook; the call is refused (see stderr)"}}',
}


def events() -> list:
    """Command-line names of every implemented hook event."""
    here = os.path.dirname(os.path.abspath(__file__))
    out = []
    for name in sorted(os.listdir(here)):
        if name.endswith(".py") and not name.startswith("_") and name[:-3] not in _NOT_EVENTS:
            out.append(name[:-3].replace("_", "-"))
    return out


def _module(event: str):
    if event not in events():
        return None
    name = "gateway.hooks." + event.replace("-", "_")
    __import__(name)  # not importlib: importing it (and `warnings`) costs a hook call ~1 ms
    return sys.modules[name]


def module_for(event: str):
    """The module of a hook event's command-line name, or None when there is none."""
    return _module(event)


def respond(module, raw: bytes, env, start=None) -> str:
    """The hook's output text ("" for none) for raw input: decide, render, audit. Shared by
    the command hook and `gateway serve`, so both give the same answer. An exception here is
    an internal error: the caller expresses no decision."""
    start = time.perf_counter() if start is None else start
    verdict, payload = module.decide(raw, env)
    text = module.render(verdict)
    if not getattr(module, "AUDIT", True):  # lifecycle hooks decide nothing: not audited
        return text
    try:
        from gateway import audit
        audit.record(verdict, event=module.EVENT, payload=payload,
                     latency_ms=round((time.perf_counter() - start) * 1000, 2), env=env)
    except Exception:
        pass
    return text


def run(event: str, stdin=None, stdout=None, env=None, hook_process: bool = False) -> int:
    """``hook_process``: this process is the hook Claude Code started (``gateway hook``), so
    its lock waits end in time for its answer (gateway.state.lockwait)."""
    stdin = stdin if stdin is not None else sys.stdin.buffer
    stdout = stdout if stdout is not None else sys.stdout
    env = os.environ if env is None else env
    start = time.perf_counter()
    try:
        raw = stdin.read()
    except Exception:
        raw = b""
    text = ""
    try:
        from gateway import _resident  # a running `gateway serve` answers without the imports

        text = _resident.forward(event, raw, env)
        if text is None:
            module = _module(event)
            if module is None:
                sys.stderr.write(f"gateway: unknown hook event {event!r}; known: "
                                 f"{', '.join(events())}\n")
                return 0
            if hook_process:
                from gateway.state import lockwait

                lockwait.in_hook(getattr(module, "TIMEOUT", lockwait.HOOK_TIMEOUT))
            text = respond(module, raw, env, start)
    except Exception as exc:  # never allow on an error: no decision, or the guards' deny
        text = _ON_INTERNAL_ERROR.get(event, "")
        sys.stderr.write(f"gateway: internal error in the {event} hook: {exc}\n")
    if text:
        stdout.write(text + "\n")
        stdout.flush()
    return 0
