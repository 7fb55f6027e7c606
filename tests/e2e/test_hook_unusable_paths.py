"""Payload paths the OS cannot use (NUL, an unpaired surrogate from a JSON "\\ud800" escape):
no decision from PermissionRequest (GW904, not an internal error), a GW892 deny from
PreToolUse (not GW893). Found by fuzz_hook (surrogate-in-cwd, nul-in-project-dir)."""

import json

import pytest

BAD = ["/tmp/x\x00", "/p/\ud800", "/tmp/gateway-no-such-dir-\ud800/sub"]


@pytest.mark.parametrize("cwd", BAD)
def test_permission_request_gives_no_decision(run_hook, cwd, hook_env):
    data = {"tool_name": "Bash", "cwd": cwd, "hook_event_name": "PermissionRequest",
            "tool_input": {"command": "ls"}}
    proc = run_hook("permission-request", data)
    assert proc.returncode == 0 and proc.stdout == b""
    with open(hook_env["GATEWAY_AUDIT_LOG"]) as fh:
        entry = json.loads(fh.read().splitlines()[-1])
    assert entry["code"] == "GW904"


@pytest.mark.parametrize("cwd", BAD)
def test_pre_tool_use_denies_as_bad_input(run_hook, cwd):
    data = {"tool_name": "Bash", "cwd": cwd, "session_id": "s", "hook_event_name": "PreToolUse",
            "tool_input": {"command": "ls"}}
    proc = run_hook("pre-tool-use", data)
    assert proc.returncode == 0
    out = json.loads(proc.stdout)["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny"
    assert out["permissionDecisionReason"].startswith("gateway GW892: cwd ")
