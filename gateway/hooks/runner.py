"""`gateway hook <event>`: read all of stdin, decide, print one JSON object or nothing,
exit 0. This is the hot path: nothing here imports click, pydantic or PyYAML.

Each hook event is a module of this package with `EVENT` (Claude Code's event name),
`decide(raw, env) -> (verdict, payload)` and `render(verdict) -> str`; the command-line name
is the module name with dashes (permission_request -> permission-request). This package is
the one list of implemented hooks (`gateway install` registers exactly these).
"""

import os
import sys
import time

_NOT_EVENTS = ("runner", "payload")


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
    import importlib
    return importlib.import_module("gateway.hooks." + event.replace("-", "_"))


def run(event: str, stdin=None, stdout=None, env=None) -> int:
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
        module = _module(event)
        if module is None:
            sys.stderr.write(f"gateway: unknown hook event {event!r}; known: "
                             f"{', '.join(events())}\n")
            return 0
        verdict, payload = module.decide(raw, env)
        text = module.render(verdict)
        try:
            from gateway import audit
            audit.record(verdict, event=module.EVENT, payload=payload,
                         latency_ms=round((time.perf_counter() - start) * 1000, 2), env=env)
        except Exception:
            pass
    except Exception as exc:  # never allow on an error: print nothing
        text = ""
        sys.stderr.write(f"gateway: internal error in the {event} hook: {exc}\n")
    if text:
        stdout.write(text + "\n")
        stdout.flush()
    return 0
