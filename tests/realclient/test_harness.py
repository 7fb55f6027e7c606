"""Proves the real-client harness with stand-in hooks (no gateway code involved).

Each test runs the pinned ``claude -p "do it"`` against the scripted mock: the model's first turn
is one tool call, and the verdict is read from the side effect in the project directory plus the
``tool_result`` the client sent back to the mock. Stand-in hooks are tiny Python scripts that log
their stdin to a JSONL file and print a fixed reply.

Texts asserted here were observed on 2.1.330; re-check them when re-pinning (docs/realclient.md).
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from .client import SessionResult, require_client, run_session
from .mock_api import bash, write

pytestmark = pytest.mark.realclient

CLAUDE = require_client()  # loud module-level skip (or fail, if required) when unavailable

DENY_PRE = {
    "hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": "blocked-by-test",
    }
}
ALLOW_PERM = {
    "hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}
}

# A command 2.1.330 does NOT auto-allow in default mode: it creates a file in the project, so the
# client asks (verified by test_control_touch_needs_approval_without_hooks).
COMMAND = "touch marker"


def make_hook(tmp: Path, name: str, reply: dict[str, Any] | None) -> tuple[str, Path]:
    """A stand-in command hook: logs its stdin JSON to <name>.jsonl, prints ``reply`` (or nothing)."""
    log = tmp / f"{name}.jsonl"
    script = tmp / f"{name}.py"
    script.write_text(
        textwrap.dedent(
            f"""\
            import json, sys
            payload = json.load(sys.stdin)
            with open({str(log)!r}, "a") as f:
                f.write(json.dumps(payload) + "\\n")
            reply = {json.dumps(reply)!r}
            if reply != "null":
                print(reply)
            """
        )
    )
    return f'"{sys.executable}" "{script}"', log


def read_log(log: Path) -> list[dict[str, Any]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


def hooks_settings(event: str, command: str, matcher: str = "*") -> dict[str, Any]:
    return {
        "hooks": {event: [{"matcher": matcher, "hooks": [{"type": "command", "command": command}]}]}
    }


def run(tmp_path: Path, **kw: Any) -> SessionResult:
    res = run_session(CLAUDE, tmp_path / "proj", home=tmp_path / "home", **kw)
    assert not res.timed_out, res.describe()
    assert res.returncode == 0, res.describe()
    return res


def test_control_touch_needs_approval_without_hooks(tmp_path: Path) -> None:
    """Premise check: with no hooks, `touch marker` is not auto-allowed in -p default mode."""
    res = run(tmp_path, tool_use=bash(COMMAND))
    assert not (res.project_dir / "marker").exists(), res.describe()
    tr = res.tool_result
    assert tr.is_error, res.describe()
    assert "needs approval" in tr.text, res.describe()
    assert res.script_left == 0, res.describe()


def test_pretooluse_deny_blocks_command(tmp_path: Path) -> None:
    cmd, log = make_hook(tmp_path, "pre", DENY_PRE)
    res = run(
        tmp_path, tool_use=bash(COMMAND), user_settings=hooks_settings("PreToolUse", cmd, "Bash")
    )
    assert not (res.project_dir / "marker").exists(), res.describe()
    tr = res.tool_result
    assert tr.is_error, res.describe()
    assert "blocked-by-test" in tr.text, res.describe()
    # exact 2.1.330 wording
    assert tr.text == "PreToolUse:Bash hook error: blocked-by-test", res.describe()
    calls = read_log(log)
    assert [c["hook_event_name"] for c in calls] == ["PreToolUse"]
    assert calls[0]["tool_name"] == "Bash"
    assert calls[0]["tool_input"]["command"] == COMMAND
    assert calls[0]["tool_use_id"] == tr.tool_use_id


def test_permissionrequest_allow_runs_command(tmp_path: Path) -> None:
    cmd, log = make_hook(tmp_path, "perm", ALLOW_PERM)
    res = run(
        tmp_path, tool_use=bash(COMMAND), user_settings=hooks_settings("PermissionRequest", cmd)
    )
    assert (res.project_dir / "marker").exists(), res.describe()
    tr = res.tool_result
    assert not tr.is_error, res.describe()
    calls = read_log(log)
    assert [c["hook_event_name"] for c in calls] == ["PermissionRequest"]
    assert calls[0]["tool_input"]["command"] == COMMAND
    assert calls[0]["permission_mode"] == "default"
    assert "tool_use_id" not in calls[0]  # §5: PermissionRequest carries no tool_use_id


def test_permissionrequest_no_decision_denies_in_print_mode(tmp_path: Path) -> None:
    cmd, log = make_hook(tmp_path, "perm", None)
    res = run(
        tmp_path, tool_use=bash(COMMAND), user_settings=hooks_settings("PermissionRequest", cmd)
    )
    assert not (res.project_dir / "marker").exists(), res.describe()
    tr = res.tool_result
    assert tr.is_error, res.describe()
    assert "needs approval" in tr.text, res.describe()
    # The hook did run: the deny is the -p fallback for "no decision", not a missing hook.
    assert [c["hook_event_name"] for c in read_log(log)] == ["PermissionRequest"]


def test_project_scope_pretooluse_deny_blocks_write(tmp_path: Path) -> None:
    """Project `.claude/settings.json` hooks fire too, and Write tool calls can be scripted."""
    cmd, log = make_hook(tmp_path, "pre", DENY_PRE)
    target = (tmp_path / "proj").resolve() / "written.txt"
    res = run(
        tmp_path,
        tool_use=write(str(target), "hello\n"),
        project_settings=hooks_settings("PreToolUse", cmd, "Write|Edit"),
    )
    assert not target.exists(), res.describe()
    tr = res.tool_result
    assert tr.is_error and "blocked-by-test" in tr.text, res.describe()
    calls = read_log(log)
    assert [c["tool_name"] for c in calls] == ["Write"]
    assert calls[0]["tool_input"] == {"file_path": str(target), "content": "hello\n"}
