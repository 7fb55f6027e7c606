"""Stand-in command hooks for real-client tests: tiny Python scripts that log and reply.

A :class:`StandInHook` is a script in a temporary folder. Each time the client runs it, it
appends one JSON line ``{"at": <unix time>, "payload": <stdin JSON>}`` to ``<name>.jsonl``,
optionally sleeps, then prints a fixed reply (or nothing = "no decision") and exits with a
chosen code. The timestamp lets interactive tests relate a hook call to what the screen showed.

    pre = StandInHook(tmp_path, "pre", reply=pre_tool_use("ask", "why"))
    perm = StandInHook(tmp_path, "perm", reply=None)          # logs only
    settings = hooks_settings(("PreToolUse", "Bash", pre), ("PermissionRequest", "*", perm))
    ...
    assert [c["hook_event_name"] for c in perm.calls()] == ["PermissionRequest"]
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import Any


def pre_tool_use(decision: str, reason: str = "") -> dict[str, Any]:
    """A PreToolUse reply: ``decision`` ∈ allow | deny | ask (| defer)."""
    out: dict[str, Any] = {"hookEventName": "PreToolUse", "permissionDecision": decision}
    if reason:
        out["permissionDecisionReason"] = reason
    return {"hookSpecificOutput": out}


def permission_request(behavior: str, message: str = "") -> dict[str, Any]:
    """A PermissionRequest reply: ``behavior`` ∈ allow | deny."""
    decision: dict[str, Any] = {"behavior": behavior}
    if message:
        decision["message"] = message
    return {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}}


class StandInHook:
    """A logging command hook with a fixed reply (``None``: print nothing)."""

    def __init__(
        self,
        folder: str | Path,
        name: str,
        reply: dict[str, Any] | None = None,
        *,
        sleep: float = 0.0,
        exit_code: int = 0,
    ) -> None:
        self.name = name
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        self.log = folder / f"{name}.jsonl"
        self.script = folder / f"{name}.py"
        self.script.write_text(
            textwrap.dedent(
                f"""\
                import json, sys, time
                at = time.time()
                payload = json.load(sys.stdin)
                with open({str(self.log)!r}, "a") as f:
                    f.write(json.dumps({{"at": at, "payload": payload}}) + "\\n")
                if {sleep!r}:
                    time.sleep({sleep!r})
                reply = {json.dumps(reply)!r}
                if reply != "null":
                    print(reply)
                sys.exit({exit_code!r})
                """
            )
        )
        self.command = f'"{sys.executable}" "{self.script}"'

    def entries(self) -> list[dict[str, Any]]:
        """``[{"at": unix time, "payload": {...}}, ...]`` in call order."""
        if not self.log.exists():
            return []
        lines = [ln for ln in self.log.read_text().splitlines() if ln.strip()]
        out = []
        for i, line in enumerate(lines):
            try:
                out.append(json.loads(line))
            except ValueError:
                if i == len(lines) - 1:  # a hook killed mid-write with the session: not a call
                    break
                raise
        return out

    def calls(self) -> list[dict[str, Any]]:
        """The stdin payloads the client sent, in call order."""
        return [e["payload"] for e in self.entries()]

    def events(self) -> list[str]:
        return [c.get("hook_event_name", "?") for c in self.calls()]

    def __repr__(self) -> str:
        return f"StandInHook({self.name!r}, calls={self.events()})"


def hooks_settings(*registrations: tuple[str, str, StandInHook | str]) -> dict[str, Any]:
    """``{"hooks": {...}}`` from ``(event, matcher, hook_or_command)`` triples."""
    hooks: dict[str, list[dict[str, Any]]] = {}
    for event, matcher, hook in registrations:
        command = hook.command if isinstance(hook, StandInHook) else hook
        hooks.setdefault(event, []).append(
            {"matcher": matcher, "hooks": [{"type": "command", "command": command}]}
        )
    return {"hooks": hooks}
