"""The round-19 catalogue forms through the installed hook commands: raw JSON in the
client's shape on stdin of `gateway hook pre-tool-use` and `gateway hook
permission-request`, in the everyday benchmark's sample project, in the mode each allow
applies to (and the neighbouring mode where it must not)."""

import json
import os

import pytest

SESSION = "5f1e3c9a-2b7d-4e8f-9a61-0c4d2b8e7f13"


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    from benchmarks.everyday.project import build

    return build(str(tmp_path_factory.mktemp("catgaps-hooks")))


def _call(run_hook, event, command, cwd, mode):
    data = {"session_id": SESSION, "transcript_path": "/tmp/t.jsonl", "cwd": cwd,
            "permission_mode": mode, "hook_event_name": event, "tool_name": "Bash",
            "tool_input": {"command": command}}
    if event == "PreToolUse":
        data["tool_use_id"] = "toolu_1"
    name = "pre-tool-use" if event == "PreToolUse" else "permission-request"
    proc = run_hook(name, json.dumps(data).encode())
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout.decode()
    if not text.strip():
        return None, None
    out = json.loads(text)["hookSpecificOutput"]
    assert out["hookEventName"] == event
    if event == "PreToolUse":
        decision, reason = out["permissionDecision"], out["permissionDecisionReason"]
    else:
        decision, reason = out["decision"]["behavior"], out["decision"].get("message", "")
    code = reason.split(":", 1)[0].replace("gateway ", "") if reason else None
    return decision, code


ALLOWED = [
    # (command, mode)
    ("less -N README.md", "default"),
    ("less -N README.md", "plan"),
    ("git clean -n", "default"),
    ("git clean -nfd", "acceptEdits"),
    ("git clean -n", "plan"),
    ("go tool cover -func=coverage.out", "default"),
    ("cargo clean", "acceptEdits"),
    ("echo '*.log' >> .gitignore", "acceptEdits"),
    ("cargo test 2> logs/test.log", "acceptEdits"),
]


@pytest.mark.parametrize("command,mode", ALLOWED)
def test_the_new_allows_through_the_hooks(run_hook, shop, command, mode):
    # PreToolUse: the early allow (the validator allows and nothing it reads is a secret)
    assert _call(run_hook, "PreToolUse", command, shop, mode) == ("allow", "GW700")
    assert _call(run_hook, "PermissionRequest", command, shop, mode) == ("allow", None)


ASKED = [
    # (command, mode, PermissionRequest's code): PermissionRequest gives no decision, the
    # client asks; PreToolUse lets the client's own flow decide or asks itself
    ("echo '*.log' >> .gitignore", "default", "GW213"),
    ("echo '*.log' >> .gitignore", "plan", "GW213"),
    # the command line names what is removed (docs/security.md: cargo clean alone runs)
    ("cargo clean --target-dir target2", "default", "GW721"),
    ("git clean -fd", "acceptEdits", "GW707"),
    ("git clean -n --no-dry-run -f", "default", "GW707"),
    ("less +G README.md", "default", "GW704"),
    ("less -o log.txt README.md", "default", "GW704"),
    ("go tool cover -html=coverage.out", "default", "GW704"),
    ("go tool vet ./...", "default", "GW705"),
    ("echo x > /dev/stderr", "acceptEdits", "GW714"),
    ("echo x >| notes.txt", "acceptEdits", "GW213"),
    ("echo x &> notes.txt", "acceptEdits", "GW213"),
    ("echo x > ../outside.txt", "acceptEdits", "GW501"),
    ("cargo clean --target-dir .claude", "acceptEdits", "GW504"),
]


@pytest.mark.parametrize("command,mode,expected", ASKED)
def test_their_neighbours_are_not_allowed(run_hook, shop, command, mode, expected):
    pre, _ = _call(run_hook, "PreToolUse", command, shop, mode)
    assert pre != "allow", command
    # PermissionRequest never allows: it prints nothing (the client shows its dialog)
    assert _call(run_hook, "PermissionRequest", command, shop, mode) == (None, None)


@pytest.mark.parametrize("command,code", [
    ("echo x > .git/config", "GW835"), ("echo x >> .claude/settings.json", "GW835"),
    ("echo '{}' > agent-coord/task.json", "GW835")])
def test_a_redirect_onto_the_surface_is_denied_in_accept_edits(run_hook, shop, command, code):
    assert _call(run_hook, "PreToolUse", command, shop, "acceptEdits") == ("deny", code)
    assert _call(run_hook, "PermissionRequest", command, shop, "acceptEdits") == (None, None)


def test_the_validator_names_the_reason_for_each_ask(shop):
    """The same asks, in process, with the exact reason code of the validator."""
    from gateway.runtime import judge_bash

    env = dict(os.environ, HOME=os.path.join(os.path.dirname(shop), "home"))
    for command, mode, expected in ASKED:
        v = judge_bash(command, shop, shop, env=env, mode=mode)
        assert (str(v.decision), v.code) == ("ask", expected), (command, mode, v)
