"""Go, Rust and git everyday forms (issue 25, e25b) through the real hook commands: raw
JSON on the stdin of `gateway hook pre-tool-use` and `gateway hook permission-request`, in
the independent Go and Rust lists' sample projects. The exact decision and, where
PreToolUse decides, its code (PermissionRequest gives no decision when the client must
ask)."""

import json
import os

import pytest

SESSION = "5b2e9c1d-0f3a-4e6b-8c7d-9a1b2c3d4e5f"


@pytest.fixture(scope="module")
def projects(tmp_path_factory):
    from benchmarks.everyday.independent.projects import build

    out = {}
    for eco in ("go", "rust"):
        root = str(tmp_path_factory.mktemp(eco))
        project, home = build(root, eco)
        out[eco] = (project, {"HOME": home, "GATEWAY_AUDIT_LOG": os.path.join(root, "audit.jsonl")})
    return out


def _hooks(run_hook, command, cwd, env, mode):
    out = []
    for event, name in (("PreToolUse", "pre-tool-use"),
                        ("PermissionRequest", "permission-request")):
        data = {"session_id": SESSION, "transcript_path": "/tmp/t.jsonl", "cwd": cwd,
                "permission_mode": mode, "hook_event_name": event, "tool_name": "Bash",
                "tool_input": {"command": command}}
        proc = run_hook(name, data, env)
        assert proc.returncode == 0, proc.stderr
        text = proc.stdout.decode().strip()
        if not text:
            out.append((None, None))
            continue
        hso = json.loads(text)["hookSpecificOutput"]
        if event == "PreToolUse":
            reason = hso["permissionDecisionReason"]
            out.append((hso["permissionDecision"], reason.split(":", 1)[0].split()[-1]))
        else:
            out.append((hso["decision"]["behavior"], None))
    return out


@pytest.mark.parametrize("eco,command,mode", [
    ("go", "golangci-lint run ./...", "default"),
    ("go", "staticcheck ./...", "default"),
    ("go", "go clean -testcache", "default"),
    ("go", "go mod download", "acceptEdits"),
    ("go", "go list -deps ./cmd/server", "plan"),
    ("rust", "cargo nextest run -p core --no-fail-fast", "default"),
    ("rust", "cargo publish --dry-run -p core", "default"),
    ("rust", "cargo fmt --all -- --check", "plan"),
])
def test_the_everyday_forms_run(run_hook, projects, eco, command, mode):
    project, env = projects[eco]
    expected_pr = ("allow", None) if mode != "plan" else (None, None)
    pre, pr = _hooks(run_hook, command, project, env, mode)
    assert pre == ("allow", "GW700")
    if mode != "plan":
        assert pr == expected_pr


@pytest.mark.parametrize("eco,command", [
    ("go", "golangci-lint run -c /tmp/evil.yml"),
    ("go", "go clean -modcache"),
    ("go", "go mod tidy"),
    ("rust", "cargo publish -p core"),
    ("rust", "cargo update"),
    ("rust", "git rebase --exec 'touch /tmp/x' HEAD~1"),
])
def test_the_neighbours_are_not_allowed(run_hook, projects, eco, command):
    project, env = projects[eco]
    for mode in ("default", "acceptEdits"):
        pre, pr = _hooks(run_hook, command, project, env, mode)
        assert pre[0] != "allow" and pr == (None, None), (command, mode, pre, pr)
