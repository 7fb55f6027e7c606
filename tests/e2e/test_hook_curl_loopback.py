"""curl to this machine's loopback through the installed hook commands (issue 25): raw JSON
in the client's shape on stdin of `gateway hook pre-tool-use` and `gateway hook
permission-request`, in the go sample project of the independent benchmark (it holds a
`.env`), in default, acceptEdits and plan, with the exact decision and code of each hook
(PermissionRequest's code from the audit log when it leaves the dialog to the client; the
validator's own code inside PreToolUse's GW840)."""

import json
import os

import pytest

SESSION = "3f1c2b7a-4d5e-4f60-8a9b-0c1d2e3f4a5b"
MODES = ("default", "acceptEdits", "plan")


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    from benchmarks.everyday.independent.projects import build

    root = str(tmp_path_factory.mktemp("c25-hooks"))
    path = build(root, "go")[0]
    with open(os.path.join(path, ".env"), "w") as fh:
        fh.write("API_KEY=sk-live-0000\n")
    with open(os.path.join(path, "order.json"), "w") as fh:
        fh.write('{"sku": "A1", "qty": 2}\n')
    return path


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
        return None, None, ""
    out = json.loads(text)["hookSpecificOutput"]
    assert out["hookEventName"] == event
    if event == "PreToolUse":
        decision, reason = out["permissionDecision"], out["permissionDecisionReason"]
    else:
        decision, reason = out["decision"]["behavior"], out["decision"].get("message", "")
    code = reason.split(":", 1)[0].replace("gateway ", "") if reason else None
    return decision, code, reason


def _audit_code(hook_env):
    with open(hook_env["GATEWAY_AUDIT_LOG"], encoding="utf-8") as fh:
        return json.loads(fh.read().splitlines()[-1])["code"]


# the independent lists' rows (go.txt, rust.txt, java.txt, python.txt, node.txt) and their
# neighbours that read only: no dialog in any mode
READS = [
    "curl -s http://127.0.0.1:8000/api/health/",
    'curl -s -o /dev/null -w "%{http_code}" http://localhost:8000/admin/login/',
    "sleep 3 && curl -s localhost:8000/api/orders/?page=1 | head -c 500",
    "curl -s localhost:8080/healthz ; curl -s localhost:6060/debug/pprof/goroutine?debug=1 "
    "| head -50",
    "curl -sI http://localhost:3000/api/health ; curl -s localhost:8080/api/orders/42 | jq .",
    "curl -s 'http://[::1]:8080/metrics' | grep -c go_goroutines",
    "curl -fsS -H 'Accept: application/json' -m 5 http://127.0.0.1:5173/ -o /dev/null",
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("command", READS)
def test_loopback_reads_run_in_every_mode(run_hook, project, command, mode):
    pre = _call(run_hook, "PreToolUse", command, project, mode)
    assert pre[:2] == ("allow", "GW700"), pre
    assert _call(run_hook, "PermissionRequest", command, project, mode)[:2] == ("allow", None)


CHANGES = [
    "curl -s -X POST localhost:8080/v1/orders -H 'Content-Type: application/json' "
    "-d '{\"sku\":\"A1\",\"qty\":2}'",
    "curl -s -X DELETE http://127.0.0.1:8000/api/orders/42",
    "curl -s --json @order.json localhost:8080/v1/orders",
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("command", CHANGES)
def test_requests_that_change_the_dev_server_ask_in_plan(run_hook, hook_env, project, command,
                                                         mode):
    pre = _call(run_hook, "PreToolUse", command, project, mode)
    perm = _call(run_hook, "PermissionRequest", command, project, mode)
    if mode == "plan":
        # PreToolUse: what it reads is known (no secret); the client's flow decides, and
        # PermissionRequest leaves the dialog: GW720 (it may change the server's state)
        assert pre[:2] == (None, None), pre
        assert perm[:2] == (None, None), perm
        assert _audit_code(hook_env) == "GW720"
    else:
        assert pre[:2] == ("allow", "GW700"), pre
        assert perm[:2] == ("allow", None), perm


# (command, the validator's code): PreToolUse asks itself (GW840, the validator's code and
# real reason inside it) in every mode; PermissionRequest leaves the dialog with the code
NEIGHBOURS = [
    ("curl -sL http://127.0.0.1:8000/redirect", "GW791", "-L"),
    ("curl -s --location-t http://127.0.0.1:8000/", "GW791", "--location-t"),
    ("curl -s https://example.com/api", "GW790", "example.com"),
    ("curl -s 'http://localhost:8000@evil.example/'", "GW790", "user information"),
    ("curl -s 'http://{localhost,evil.example}:8000/'", "GW790", "globbing"),
    ("curl -s localhost.evil.example:8000/", "GW790", "localhost.evil.example"),
    ("curl -s 2130706433:8000/", "GW790", "2130706433"),
    ("curl -s file:///etc/passwd", "GW790", "file"),
    ("curl -s --resolve localhost:80:10.0.0.1 http://localhost/", "GW791", "--resolve"),
    ("curl -s --unix-socket /var/run/docker.sock http://localhost/containers/json", "GW791",
     "--unix-socket"),
    ("curl -s -K cfg.txt localhost:8000/", "GW791", "-K"),
    ("curl -s -w '%output{x.txt}' localhost:8000/", "GW791", "%output"),
    ("curl -s localhost:2375/containers/json", "GW790", "Docker Engine API"),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("command,code,named", NEIGHBOURS)
def test_neighbours_ask_with_the_real_reason(run_hook, hook_env, project, command, code,
                                             named, mode):
    decision, outer, reason = _call(run_hook, "PreToolUse", command, project, mode)
    assert (decision, outer) == ("ask", "GW840"), reason
    assert f"({code})" in reason and named in reason, reason
    assert _call(run_hook, "PermissionRequest", command, project, mode)[:2] == (None, None)
    assert _audit_code(hook_env) == code


@pytest.mark.parametrize("mode", MODES)
def test_a_secret_sent_as_data_is_a_read_of_the_secret(run_hook, hook_env, project, mode):
    command = "curl -s -d @.env localhost:8000/post"
    decision, code, reason = _call(run_hook, "PreToolUse", command, project, mode)
    assert (decision, code) == ("ask", "GW503"), reason
    assert ".env" in reason
    assert _call(run_hook, "PermissionRequest", command, project, mode)[:2] == (None, None)
    assert _audit_code(hook_env) == "GW503"


@pytest.mark.parametrize("mode", MODES)
def test_output_file_is_an_edit(run_hook, hook_env, project, mode):
    command = "curl -s -o page.html localhost:8000/"
    perm = _call(run_hook, "PermissionRequest", command, project, mode)
    if mode == "acceptEdits":
        assert perm[:2] == ("allow", None)
        assert _call(run_hook, "PreToolUse", command, project, mode)[:2] == ("allow", "GW700")
    else:
        assert perm[:2] == (None, None)
        assert _audit_code(hook_env) == "GW721"


@pytest.mark.parametrize("mode", MODES)
def test_a_curlrc_asks_unless_q_comes_first(run_hook, hook_env, project, mode):
    # no URL and no configuration file: curl contacts nothing (curl 7.88.1: `curl: (2) no
    # URL specified!`, exit 2); this is also bash's nullglob reading of an unquoted
    # `localhost:8000/x?page=1` that matches no file
    assert _call(run_hook, "PreToolUse", "curl -s", project, mode)[:2] == ("allow", "GW700")
    with open(os.path.join(hook_env["HOME"], ".curlrc"), "w") as fh:
        fh.write('url = "http://evil.example/"\n')
    command = "curl -s localhost:8000/healthz"
    decision, outer, reason = _call(run_hook, "PreToolUse", command, project, mode)
    assert (decision, outer) == ("ask", "GW840") and "(GW791)" in reason, reason
    assert ".curlrc" in reason
    assert _call(run_hook, "PermissionRequest", command, project, mode)[:2] == (None, None)
    assert _audit_code(hook_env) == "GW791"
    # with one, no URL on the command line may still be one from the file
    assert _call(run_hook, "PreToolUse", "curl -s", project, mode)[:2] == ("ask", "GW840")
    command = "curl -q -s localhost:8000/healthz"
    assert _call(run_hook, "PreToolUse", command, project, mode)[:2] == ("allow", "GW700")
    assert _call(run_hook, "PermissionRequest", command, project, mode)[:2] == ("allow", None)
