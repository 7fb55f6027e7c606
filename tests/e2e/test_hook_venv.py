"""A virtual environment's interpreter is its base interpreter (issue 25): raw JSON on the
stdin of `gateway hook pre-tool-use` and `gateway hook permission-request`, in a project
with a real venv (`python3 -m venv`, whose `bin/python` links to the interpreter that made
it, outside the project).

`.venv/bin/python -m pytest -q` is `python -m pytest -q` as `.venv/bin/pytest` is `pytest`;
`source .venv/bin/activate && pytest -q` is `.venv/bin/pytest -q` (the activation only puts
the venv's bin directory first on PATH, proven in real bash). Neighbours that are not a
venv's interpreter keep asking: a link named python to another program, a bin directory
without pyvenv.cfg, code on the command line.
"""

import json
import os
import subprocess
import sys

import pytest

SESSION = "0b6d9a2e-5c41-4f7e-8d3a-7e21f9c4b5a0"


@pytest.fixture()
def venv_project(tmp_path):
    project = tmp_path / "proj"
    (project / "tests").mkdir(parents=True)
    (project / "tests" / "test_x.py").write_text("def test_x():\n    assert True\n")
    (project / "pyproject.toml").write_text("[project]\nname = 'x'\nversion = '0'\n")
    (project / ".env").write_text("SECRET=1\n")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(project / ".venv")],
                   check=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    return str(project)


def _hooks(run_hook, command, cwd, mode="default"):
    # the audit log's directory is the gateway's own: keep it away from the project
    log = {"GATEWAY_AUDIT_LOG": os.path.join(os.path.dirname(cwd), "log", "audit.jsonl")}
    out = []
    for event, name in (("PreToolUse", "pre-tool-use"),
                        ("PermissionRequest", "permission-request")):
        data = {"session_id": SESSION, "transcript_path": "/tmp/t.jsonl", "cwd": cwd,
                "permission_mode": mode, "hook_event_name": event, "tool_name": "Bash",
                "tool_input": {"command": command}}
        proc = run_hook(name, data, log)
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


def test_the_venv_interpreter_really_is_a_link_out_of_the_project(venv_project):
    link = os.path.join(venv_project, ".venv", "bin", "python")
    assert os.path.islink(link)
    assert not os.path.realpath(link).startswith(venv_project + "/")
    # run: the venv's prefix, the base interpreter's executable
    got = subprocess.run([link, "-c", "import sys; print(sys.prefix)"], capture_output=True,
                         text=True, check=True).stdout.strip()
    assert os.path.realpath(got) == os.path.realpath(os.path.join(venv_project, ".venv"))


@pytest.mark.parametrize("mode", ("default", "acceptEdits"))
@pytest.mark.parametrize("command", [
    ".venv/bin/python -m pytest -q",
    ".venv/bin/python3 -m pytest tests/test_x.py -x",
    ".venv/bin/python --version",
    "source .venv/bin/activate && pytest -q",
    ". .venv/bin/activate && python -m pytest -q",
    "source .venv/bin/activate; git status",
])
def test_the_venv_forms_are_allowed_by_both_hooks(run_hook, venv_project, command, mode):
    assert _hooks(run_hook, command, venv_project, mode) == [("allow", "GW306"
                                                              if "activate" in command
                                                              else "GW700"), ("allow", None)]


def test_plan_mode_reads_through_the_venv(run_hook, venv_project):
    for command in (".venv/bin/python --version", "source .venv/bin/activate && git status"):
        assert _hooks(run_hook, command, venv_project, "plan")[1] == ("allow", None), command
    # running the tests writes caches: not in plan mode
    assert _hooks(run_hook, ".venv/bin/python -m pytest -q", venv_project, "plan")[1] == \
        (None, None)


def test_activation_changes_only_what_runs_by_name_in_real_bash(venv_project):
    out = subprocess.run(["bash", "-c", "source .venv/bin/activate && command -v python && "
                          "pwd && echo \"$VIRTUAL_ENV\""], cwd=venv_project,
                         capture_output=True, text=True, check=True).stdout.split()
    venv = os.path.join(venv_project, ".venv")
    assert out == [os.path.join(venv, "bin", "python"), venv_project, venv], out


@pytest.mark.parametrize("setup,command,decision,code", [
    # a link named python that leads to a shell: not an interpreter
    ("ln -sf /bin/sh .venv/bin/python", ".venv/bin/python -m pytest -q", "ask", "GW840"),
    # not a venv: no pyvenv.cfg above the bin directory
    ("rm .venv/pyvenv.cfg", ".venv/bin/python -m pytest -q", "ask", "GW840"),
    ("", ".venv/bin/python -c 'print(open(\".env\").read())'", "ask", "GW840"),
    ("", "source .venv/bin/activate && cat .env", "ask", "GW503"),
    ("", ".venv/bin/python -m http.server", "ask", "GW840"),
])
def test_the_neighbours_ask(run_hook, venv_project, setup, command, decision, code):
    if setup:
        subprocess.run(["bash", "-c", setup], cwd=venv_project, check=True)
    pre, pr = _hooks(run_hook, command, venv_project)
    assert pre == (decision, code)
    assert pr == (None, None)
