"""`gateway serve`'s bearer token is a credential, through the real hook commands.

`gateway install --http --scope local` writes the token into .claude/settings.local.json
(the client sends it with every hook event); anyone holding it can send the server forged
events that write the gateway's state (a task done, a session ended). `cat`, `grep -r
Bearer .claude`, `jq .` and the Read tool of that file were allowed with no dialog (GW700,
no decision): the file's name is no secret's and detect-secrets has no rule for a header.
Now the header is a credential by content (gateway.secrets.plugins.
AuthorizationHeaderDetector: GW510 in Bash, GW841 for Read), and with the sandbox the file
and the token's own file (~/.local/state/gateway/serve-token) are in denyRead, hidden from
every program a Bash call runs. Each read's effect is proven in real bash first.
"""

import json
import os
import subprocess

import pytest

SESSION = "3c4d5e6f-7081-4293-a4b5-c6d7e8f90a12"


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    home = tmp_path_factory.mktemp("token-home")
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
            "XDG_STATE_HOME": str(home / ".local" / "state"),
            "GATEWAY_USER_RULES": str(home / "none.yaml"),
            "GATEWAY_CACHE_DIR": str(tmp_path_factory.mktemp("token-cache")),
            "GATEWAY_AUDIT_LOG": "off", "CLAUDE_CONFIG_DIR": str(home / ".claude"),
            "LANG": "C.UTF-8", "SHELL": "/bin/bash"}


def _project(root):
    os.makedirs(root)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    with open(os.path.join(root, "README.md"), "w") as fh:
        fh.write("# demo\n")
    return root


def _install(gateway_exe, env, root, *args):
    p = subprocess.run([gateway_exe, "install", "--project", root, "--http", *args],
                       env=dict(env, CLAUDE_PROJECT_DIR=root), capture_output=True,
                       text=True, cwd=root)
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


@pytest.fixture(scope="module", params=["--sandbox", "--no-sandbox"])
def proj(request, tmp_path_factory, gateway_exe, env):
    root = _project(str(tmp_path_factory.mktemp("token") / "proj"))
    _install(gateway_exe, env, root, "--scope", "local", request.param)
    return root


def _token(env):
    path = os.path.join(env["XDG_STATE_HOME"], "gateway", "serve-token")
    with open(path) as fh:
        return fh.read().strip()


def _project_token(env, root):
    """The token the project's handlers carry (gateway.server.project_token)."""
    from gateway.server import project_token

    return project_token(_token(env), root)


def hook(gateway_exe, env, cwd, tool, tool_input):
    data = {"session_id": SESSION, "transcript_path": "/tmp/t.jsonl", "cwd": cwd,
            "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": tool,
            "tool_input": tool_input, "tool_use_id": "toolu_1"}
    proc = subprocess.run([gateway_exe, "hook", "pre-tool-use"],
                          input=json.dumps(data).encode(), capture_output=True,
                          env=dict(env, CLAUDE_PROJECT_DIR=cwd), timeout=60)
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout.decode().strip()
    if not text:
        return None, None
    out = json.loads(text)["hookSpecificOutput"]
    return (out["permissionDecision"],
            out["permissionDecisionReason"].split(":", 1)[0].replace("gateway ", ""))


READS = [("cat .claude/settings.local.json", "GW510"),
         ("head -c 2000 .claude/settings.local.json", "GW510"),
         ("jq . .claude/settings.local.json", "GW510"),
         ("grep -r Bearer .claude", "GW506"),
         ("grep Authorization .claude/settings.local.json", "GW510")]


@pytest.mark.parametrize("command", [c for c, _ in READS])
def test_each_read_really_prints_the_token(proj, env, command):
    if command.startswith("jq") and subprocess.run(["sh", "-c", "command -v jq"],
                                                   capture_output=True).returncode:
        pytest.skip("jq is not installed")
    out = subprocess.run(["bash", "-c", command], cwd=proj, capture_output=True, text=True)
    assert _project_token(env, proj) in out.stdout, command


@pytest.mark.parametrize("command,code", READS)
def test_a_read_of_the_token_asks(gateway_exe, env, proj, command, code):
    assert hook(gateway_exe, env, proj, "Bash", {"command": command}) == ("ask", code)


def test_the_read_tool_asks_for_the_file(gateway_exe, env, proj):
    path = os.path.join(proj, ".claude", "settings.local.json")
    assert hook(gateway_exe, env, proj, "Read", {"file_path": path}) == ("ask", "GW841")


def test_other_reads_stay_allowed(gateway_exe, env, proj):
    assert hook(gateway_exe, env, proj, "Bash", {"command": "cat README.md"}) == \
        ("allow", "GW700")


def test_the_sandbox_hides_both_files_that_hold_the_token(proj, env, request):
    with open(os.path.join(proj, ".claude", "settings.local.json")) as fh:
        data = json.load(fh)
    if request.node.callspec.params["proj"] == "--no-sandbox":
        assert "sandbox" not in data  # nothing configured: the reads' asks are the guard
        return
    deny = data["sandbox"]["filesystem"]["denyRead"]
    home = env["HOME"]
    local = os.path.join(proj, ".claude", "settings.local.json")
    want_local = "~/" + os.path.relpath(local, home) if local.startswith(home + "/") \
        else "/" + local
    assert "~/.local/state/gateway/serve-token" in deny, deny
    assert want_local in deny, deny


def test_a_committed_file_carries_no_token_and_stays_readable(tmp_path_factory, gateway_exe,
                                                               env):
    """The project scope's file is committed: its handlers read $GATEWAY_SERVE_TOKEN, so
    the file holds a reference, not the token, and reading it draws no dialog."""
    root = _project(str(tmp_path_factory.mktemp("committed") / "proj"))
    out = _install(gateway_exe, env, root, "--scope", "project", "--no-sandbox")
    assert "GATEWAY_SERVE_TOKEN" in out, out
    with open(os.path.join(root, ".claude", "settings.json")) as fh:
        text = fh.read()
    assert "Bearer ${GATEWAY_SERVE_TOKEN}" in text and _token(env) not in text
    assert hook(gateway_exe, env, root, "Bash", {"command": "cat .claude/settings.json"}) == \
        ("allow", "GW700")
