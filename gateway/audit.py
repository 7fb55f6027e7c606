"""The audit log: one JSON object per decision, appended to a JSONL file.

On by default at $XDG_STATE_HOME/gateway/audit.jsonl (~/.local/state/gateway/audit.jsonl).
GATEWAY_AUDIT_LOG=off turns it off; GATEWAY_AUDIT_LOG=/path moves it. When the file passes
GATEWAY_AUDIT_MAX_BYTES (default 10 MB) it is rotated to .1 (then .2, .3; older dropped).
Logging never changes a decision: its errors are swallowed.
"""

import os
import time

KEEP = 3


def log_path(env=None):
    env = os.environ if env is None else env
    value = env.get("GATEWAY_AUDIT_LOG", "")
    if value.lower() in ("off", "0", "false", "no"):
        return None
    if value:
        return value
    base = env.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(base, "gateway", "audit.jsonl")


def _rotate(path: str, limit: int) -> None:
    try:
        if os.path.getsize(path) < limit:
            return
    except OSError:
        return
    for i in range(KEEP - 1, 0, -1):
        src = f"{path}.{i}"
        if os.path.exists(src):
            os.replace(src, f"{path}.{i + 1}")
    os.replace(path, f"{path}.1")


def record(verdict, *, event: str, payload=None, tool=None, latency_ms=None, env=None):
    path = log_path(env)
    if path is None:
        return
    from gateway import _fastjson as json  # only when the log is on

    env = os.environ if env is None else env
    payload = payload if isinstance(payload, dict) else {}
    tool_input = payload.get("tool_input") if isinstance(payload.get("tool_input"), dict) else {}
    entry = {
        "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + "Z",
        "event": event,
        "session": payload.get("session_id"),
        "agent": payload.get("agent_id"),
        "tool": tool if tool is not None else payload.get("tool_name"),
        "command": verdict.command or tool_input.get("command") or tool_input.get("file_path"),
        "cwd": payload.get("cwd"),
        "decision": str(verdict.decision),
        "phase": verdict.phase,
        "code": verdict.code,
        "rule": verdict.rule,
        "message": verdict.message,
        "latency_ms": latency_ms,
    }
    try:
        limit = int(env.get("GATEWAY_AUDIT_MAX_BYTES", 10 * 1024 * 1024))
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        _rotate(path, limit)
        # backslashreplace: a lone surrogate (a JSON "\ud800" in the payload) is written as
        # its JSON escape, so the entry is kept and the line stays valid JSON
        line = (json.dumps(entry, ensure_ascii=False, default=str) + "\n").encode(
            "utf-8", "backslashreplace")
        # O_NONBLOCK: a FIFO at the log path must not hang the hook (issue 14); only a
        # regular file is written
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK, 0o600)
        try:
            if (os.fstat(fd).st_mode & 0o170000) != 0o100000:
                return
            os.write(fd, line)
        finally:
            os.close(fd)
    except (OSError, ValueError, TypeError):
        pass
