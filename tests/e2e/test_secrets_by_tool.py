"""Issue 24 through the real hook command (raw JSON on stdin of `gateway hook pre-tool-use`
and `gateway hook permission-request`): a secret by name, by content, by place and by
container asks for every tool that reads it, in every mode; the user's own .env set-up asks,
never denies; ordinary reads stay allowed."""

import json
import os
import shutil
import subprocess
import sys

import pytest

MODES = ("default", "acceptEdits", "plan", "auto", "dontAsk")
AWS = "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8vR2mT7p\n"


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    home = tmp_path_factory.mktemp("secrets-home")
    (home / ".claude").mkdir()
    (home / ".claude" / ".credentials.json").write_text('{"claudeAiOauth": {"accessToken": '
                                                        '"sk-ant-oat01-x"}}\n')
    proj = tmp_path_factory.mktemp("secrets-proj")
    subprocess.run(["git", "init", "-q", str(proj)], check=True)
    files = {
        ".env-local": "A=1\n", ".env_prod": "A=1\n", ".envrc.local": "A=1\n",
        "env.local": "A=1\n", ".env.example": "A=\n",
        "deploy/settings.ini": "[default]\n" + AWS,
        "config/app.yaml": "db:\n  password: Zq8vR2mT7pLx9KcW3nBd\n",
        "README.md": "# demo\n\nSet the password in the settings page.\n",
        "src/app.py": "def main():\n    return 1\n",
        "stage/notes/a.md": "x\n",
    }
    for rel, text in files.items():
        path = proj / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
           "CLAUDE_PROJECT_DIR": str(proj),
           "GATEWAY_CACHE_DIR": str(tmp_path_factory.mktemp("secrets-cache")),
           "GATEWAY_USER_RULES": str(home / "none.yaml"), "GATEWAY_AUDIT_LOG": "off",
           "XDG_CONFIG_HOME": str(home / ".config"), "XDG_STATE_HOME": str(home / ".state"),
           "CLAUDE_CONFIG_DIR": str(home / ".claude")}
    return {"home": str(home), "proj": os.path.realpath(str(proj)), "env": env}


def _gateway():
    exe = shutil.which("gateway", path=os.path.dirname(sys.executable))
    assert exe, "the gateway console script is installed beside the interpreter"
    return exe


def hook(world, event, tool, tool_input, mode="default"):
    payload = {"session_id": "s-24", "transcript_path": "/tmp/t.jsonl", "cwd": world["proj"],
               "permission_mode": mode, "hook_event_name":
               "PreToolUse" if event == "pre-tool-use" else "PermissionRequest",
               "tool_name": tool, "tool_input": tool_input}
    out = subprocess.run([_gateway(), "hook", event], input=json.dumps(payload),
                         capture_output=True, text=True, env=world["env"], timeout=120)
    assert out.returncode == 0, out.stderr
    if not out.stdout.strip():
        return None, ""
    spec = json.loads(out.stdout)["hookSpecificOutput"]
    if event == "pre-tool-use":
        reason = spec.get("permissionDecisionReason", "")
        return spec.get("permissionDecision"), reason.split(":")[0].replace("gateway ", "")
    return spec["decision"]["behavior"], ""


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("tool,tool_input,code", [
    ("Bash", {"command": "cat .env-local"}, "GW503"),
    ("Bash", {"command": "cat .env_prod"}, "GW503"),
    ("Bash", {"command": "cat .envrc.local"}, "GW503"),
    ("Bash", {"command": "cat env.local"}, "GW503"),
    ("Bash", {"command": "head -3 deploy/settings.ini"}, "GW510"),
    ("Bash", {"command": "tail config/app.yaml"}, "GW510"),
    ("Read", {"file_path": "deploy/settings.ini"}, "GW841"),
    ("Read", {"file_path": "env.local"}, "GW841"),
    ("Read", {"file_path": "~/.claude/.credentials.json"}, "GW841"),
    ("mcp__fs__read_file", {"path": "deploy/settings.ini"}, "GW841"),
    ("Grep", {"pattern": "A", "path": "."}, "GW842"),
])
def test_reading_a_secret_asks_by_every_tool_in_every_mode(world, mode, tool, tool_input,
                                                             code):
    ti = dict(tool_input)
    if "file_path" in ti:
        ti["file_path"] = ti["file_path"].replace("~", world["home"], 1) \
            if ti["file_path"].startswith("~") else os.path.join(world["proj"], ti["file_path"])
    decision, got = hook(world, "pre-tool-use", tool, ti, mode)
    assert (decision, got) == ("ask", code), (tool, ti, mode)


@pytest.mark.parametrize("command,code", [
    ("cp .env.example .env", "GW833"), ("cp -n .env.example .env", "GW833"),
    ("mv .env.example .env", "GW833"), ("touch .env", "GW833"),
    ("echo 'DEBUG=1' >> .env", "GW833"), ("chmod 600 .env", "GW833"),
    ("rm .env", "GW833"), ("cp .env-local .env.bak", "GW833"),
    ("rm .git/index.lock", "GW839"), ("git config user.name bob", "GW839"),
    ("ln -s ~ homelink", "GW843"),
])
def test_the_users_own_set_up_asks_and_is_never_denied(world, command, code):
    for mode in MODES:
        decision, got = hook(world, "pre-tool-use", "Bash", {"command": command}, mode)
        assert (decision, got) == ("ask", code), (command, mode)


@pytest.mark.parametrize("tool", ["Write", "Edit"])
def test_the_file_tools_on_an_env_file_ask(world, tool):
    ti = {"file_path": os.path.join(world["proj"], ".env"), "content": "A=1\n"} \
        if tool == "Write" else {"file_path": os.path.join(world["proj"], ".env-local"),
                                 "old_string": "A=1", "new_string": "A=2"}
    assert hook(world, "pre-tool-use", tool, ti) == ("ask", "GW833")


def test_a_copy_into_claude_is_not_refused_for_role_registrations(world):
    decision, code = hook(world, "pre-tool-use", "Bash", {"command": "cp -r stage .claude"})
    assert decision != "deny", code


@pytest.mark.parametrize("tool,tool_input", [
    ("Bash", {"command": "cat README.md"}), ("Bash", {"command": "cat src/app.py"}),
    ("Bash", {"command": "head -5 src/app.py"}),
])
def test_ordinary_reads_stay_allowed(world, tool, tool_input):
    assert hook(world, "pre-tool-use", tool, tool_input)[0] == "allow"
    assert hook(world, "permission-request", tool, tool_input)[0] == "allow"


@pytest.mark.parametrize("path", ["README.md", "src/app.py", ".env.example"])
def test_ordinary_reads_with_the_read_tool_get_no_ask(world, path):
    assert hook(world, "pre-tool-use", "Read",
                {"file_path": os.path.join(world["proj"], path)}) == (None, "")


def test_permission_request_never_allows_a_content_secret(world):
    for command in ("head -3 deploy/settings.ini", "cat config/app.yaml"):
        assert hook(world, "permission-request", "Bash", {"command": command})[0] != "allow"
