"""`gateway hook <event>`: read all of stdin, decide, print one JSON object or nothing,
exit 0. This is the hot path: nothing here imports click, pydantic or PyYAML.
"""

import os
import sys
import time

HANDLERS = {
    # event name on the command line -> (module, hook event name)
    "permission-request": ("gateway.hooks.permission_request", "PermissionRequest"),
}


def run(event: str, stdin=None, stdout=None, env=None) -> int:
    stdin = stdin if stdin is not None else sys.stdin.buffer
    stdout = stdout if stdout is not None else sys.stdout
    env = os.environ if env is None else env
    start = time.perf_counter()
    try:
        raw = stdin.read()
    except Exception:
        raw = b""
    handler = HANDLERS.get(event)
    if handler is None:
        sys.stderr.write(f"gateway: unknown hook event {event!r}; known: "
                         f"{', '.join(sorted(HANDLERS))}\n")
        return 0
    text = ""
    try:
        import importlib
        module = importlib.import_module(handler[0])
        verdict, payload = module.decide(raw, env)
        text = module.render(verdict)
        try:
            from gateway import audit
            audit.record(verdict, event=handler[1], payload=payload,
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
