"""tox and nox listings through the installed hook commands (issue 25): raw JSON on stdin of
`gateway hook pre-tool-use` and `gateway hook permission-request`, exact decision and code.

`tox -l` / `nox -l` list what a project defines and change nothing, unless the tool first
installs packages from the network: tox provisions itself when its configuration names
`requires` or `min_version`, nox installs the dependencies of a noxfile's inline script
block (both measured with tox 4.67 and nox 2026.10: `.tox/.tox` and
`.nox/_nox_script_mode` appeared and pip ran). nox imports the noxfile: the project's code,
only as the repository's HEAD commit holds it (GW782)."""

import json
import os
import subprocess

import pytest

SESSION = "5d0c7a2e-8b1f-4e3a-9c6d-2f4b8a1e7c30"
NOXFILE = "import nox\n\n\n@nox.session(python=['3.12'])\ndef tests(session):\n    pass\n"
SCRIPT_BLOCK = "# /// script\n# dependencies = [\"nox\", \"requests\"]\n# ///\n"


def _git(cwd, *args):
    subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", *args], cwd=cwd,
                   check=True, capture_output=True)


def _project(root, files):
    os.makedirs(root)
    for name, text in files.items():
        path = os.path.join(root, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as fh:
            fh.write(text)
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "init")
    return root


def _call(run_hook, event, command, cwd, mode, env=None):
    data = {"session_id": SESSION, "transcript_path": "/tmp/t.jsonl", "cwd": cwd,
            "permission_mode": mode, "hook_event_name": event, "tool_name": "Bash",
            "tool_input": {"command": command}}
    if event == "PreToolUse":
        data["tool_use_id"] = "toolu_1"
    name = "pre-tool-use" if event == "PreToolUse" else "permission-request"
    proc = run_hook(name, json.dumps(data).encode(), env)
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout.decode()
    if not text.strip():
        return None, None
    out = json.loads(text)["hookSpecificOutput"]
    if event == "PreToolUse":
        decision, reason = out["permissionDecision"], out["permissionDecisionReason"]
    else:
        decision, reason = out["decision"]["behavior"], out["decision"].get("message", "")
    code = reason.split(":", 1)[0].replace("gateway ", "") if reason else None
    return decision, code


@pytest.fixture
def permission(run_hook, hook_env):
    """PermissionRequest's answer: ("allow", None), or ("ask", the validator's code) when
    the hook prints nothing (the client shows its dialog; the audit log has the code)."""

    def _permission(command, cwd, mode="default", env=None):
        got = _call(run_hook, "PermissionRequest", command, cwd, mode, env)
        if got != (None, None):
            return got
        with open(hook_env["GATEWAY_AUDIT_LOG"], encoding="utf-8") as fh:
            last = json.loads(fh.read().splitlines()[-1])
        assert last["decision"] == "ask", last
        return "ask", last["code"]

    return _permission


@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    return _project(str(tmp_path_factory.mktemp("toxnox") / "p"),
                    {"tox.ini": "[tox]\nenv_list = py312, lint\n", "noxfile.py": NOXFILE})


@pytest.mark.parametrize("command,mode", [
    ("tox -l", "default"), ("tox -a", "acceptEdits"), ("tox list", "plan"),
    ("tox l -d", "default"), ("tox --listenvs-all", "plan"), ("nox -l", "plan"),
    ("nox --list", "acceptEdits"), ("nox -l --json", "default"), ("tox --version", "plan")])
def test_listings_run_in_every_mode(run_hook, permission, plain, command, mode):
    assert _call(run_hook, "PreToolUse", command, plain, mode) == ("allow", "GW700")
    assert permission(command, plain, mode) == ("allow", None)


@pytest.mark.parametrize("command,code", [
    ("tox", "GW764"), ("tox -e py312", "GW764"), ("tox -e lint -r", "GW764"),
    ("tox -p", "GW764"), ("nox", "GW764"), ("nox -s tests-3.12", "GW764"),
    ("tox run -e py312", "GW705"), ("tox -l -c /tmp/tox.ini", "GW704"),
    ("tox -l --workdir /tmp/w", "GW704"), ("nox -l -f /tmp/noxfile.py", "GW601"),
    ("nox -l -f '$HOME/noxfile.py'", "GW704"), ("nox -l --envdir /tmp/x", "GW704"),
])
def test_running_environments_and_unknown_forms_ask(permission, plain, command, code):
    for mode in ("default", "plan"):
        assert permission(command, plain, mode) == ("ask", code), mode


@pytest.mark.parametrize("files", [
    {"tox.ini": "[tox]\nrequires = tox>=4.99\nenv_list = py312\n"},
    {"tox.ini": "[tox]\nmin_version = 9.0\n"},
    {"tox.ini": "[tox]\nminversion = 9.0\n"},
    {"setup.cfg": "[tox:tox]\nrequires = tox-uv\n"},
    {"pyproject.toml": "[tool.tox]\nrequires = [\"tox>=5\"]\n"},
    {"pyproject.toml": "[tool.tox]\nlegacy_tox_ini = \"\"\"\n[tox]\nrequires = tox-uv\n\"\"\"\n"},
    {"tox.toml": "min_version = \"9\"\nenv_list = [\"py312\"]\n"},
], ids=["ini-requires", "ini-min_version", "ini-minversion", "setup.cfg", "pyproject",
        "legacy_tox_ini", "tox.toml"])
def test_tox_that_would_provision_itself_asks(run_hook, permission, tmp_path, files):
    proj = _project(str(tmp_path / "p"), files)
    assert permission("tox -l", proj) == ("ask", "GW764")
    assert _call(run_hook, "PreToolUse", "tox -l", proj, "default")[0] != "allow"


def test_tox_configuration_above_the_project_is_read_too(run_hook, permission, tmp_path):
    with open(tmp_path / "tox.ini", "w") as fh:
        fh.write("[tox]\nrequires = evil-plugin\n")
    proj = _project(str(tmp_path / "p"), {"README.md": "x\n"})
    assert permission("tox -l", proj) == ("ask", "GW764")


def test_an_unreadable_tox_configuration_asks(run_hook, permission, tmp_path):
    proj = _project(str(tmp_path / "p"), {"README.md": "x\n"})
    os.mkfifo(os.path.join(proj, "tox.ini"))
    assert permission("tox -l", proj) == ("ask", "GW761")


def test_nox_with_an_inline_script_block_asks(run_hook, permission, tmp_path):
    proj = _project(str(tmp_path / "p"), {"noxfile.py": SCRIPT_BLOCK + NOXFILE})
    assert permission("nox -l", proj) == ("ask", "GW764")
    # --script-mode none reads the file without installing what the block names
    assert permission("nox -l --script-mode none", proj) == ("allow", None)
    assert permission("nox -l --script-mode none", proj,
                       env={"NOX_SCRIPT_MODE": "reuse"}) == ("ask", "GW764")


def test_nox_imports_only_the_head_commits_noxfile(run_hook, permission, tmp_path):
    proj = _project(str(tmp_path / "p"), {"noxfile.py": NOXFILE})
    with open(os.path.join(proj, "noxfile.py"), "a") as fh:
        fh.write("import os; os.system('touch /tmp/pwned')\n")
    assert permission("nox -l", proj) == ("ask", "GW782")
    other = _project(str(tmp_path / "q"), {"README.md": "x\n"})
    with open(os.path.join(other, "noxfile.py"), "w") as fh:
        fh.write(NOXFILE)  # written by the agent, never committed
    assert permission("nox -l", other) == ("ask", "GW782")
    os.symlink("/etc/hostname", os.path.join(other, "linked.py"))
    assert permission("nox -l -f linked.py", other)[0] == "ask"
