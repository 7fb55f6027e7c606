"""The lean hook command line (gateway.launch) answers like the console script, starts without
`site`, and is not steered by the environment or the current directory."""

import json
import os
import subprocess
import sys

from gateway import launch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _run(argv, project, body, cwd="/", **extra):
    env = dict(os.environ, CLAUDE_PROJECT_DIR=project, GATEWAY_RESIDENT="off")
    env.update(extra)
    p = subprocess.run(argv, input=body, capture_output=True, env=env, timeout=120, cwd=cwd)
    assert p.returncode == 0, p.stderr.decode()
    return p.stdout.decode()


def test_lean_command_answers_like_the_hook(project, tmp_path):
    argv = launch.hook_argv("permission-request")
    assert argv[1:4] == ["-I", "-S", "-c"] and argv[-2:] == ["hook", "permission-request"]
    assert ROOT in json.dumps(argv) or any("site-packages" in p for p in launch.search_path())
    reference = [sys.executable, "-m", "gateway", "hook", "permission-request"]
    for command in ("git status", "rm -rf /", "cat .env", "ls -la"):
        body = json.dumps({"cwd": project, "tool_name": "Bash",
                           "tool_input": {"command": command}}).encode()
        assert _run(argv, project, body) == _run(reference, project, body,
                                                 PYTHONPATH=ROOT), command


def test_lean_command_ignores_pythonpath_and_cwd(project, tmp_path):
    evil = tmp_path / "evil"
    (evil / "gateway").mkdir(parents=True)
    (evil / "gateway" / "__init__.py").write_text("raise SystemExit('hijacked')\n")
    (evil / "json.py").write_text("raise SystemExit('hijacked')\n")
    body = json.dumps({"cwd": project, "tool_name": "Bash",
                       "tool_input": {"command": "git status"}}).encode()
    out = _run(launch.hook_argv("permission-request"), project, body, cwd=str(evil),
               PYTHONPATH=str(evil))
    assert '"allow"' in out
