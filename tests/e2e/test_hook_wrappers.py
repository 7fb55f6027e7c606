"""Wrappers that run a known command are judged as that command (issue 25): raw JSON on
the stdin of `gateway hook pre-tool-use` and `gateway hook permission-request` in the
everyday benchmark's sample project (tracked deploy/key.pem, an ignored .env).

`timeout 120 pytest -q` is `pytest -q`; `P | xargs CMD` is CMD with the names P prints when
P is git ls-files or a find that only tests and prints (gateway/validator/xargs.py).
"""

import json
import os

import pytest

SESSION = "3c1f0e2a-7d4b-4a9e-b5c6-2f8e1d0a9b7c"


@pytest.fixture()
def sample(tmp_path):
    from benchmarks.everyday.project import build

    project = build(str(tmp_path / "sample"))
    home = os.path.join(os.path.dirname(project), "home")
    return project, {"HOME": home,
                     "GATEWAY_AUDIT_LOG": os.path.join(str(tmp_path), "log", "audit.jsonl")}


def _hooks(run_hook, command, cwd, env, mode="default"):
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


ALLOWED = [
    "timeout 120 git log --oneline -5",
    "timeout -s KILL 10 git status",
    "nice -n 10 git diff --stat",
    "find src -type f -name '*.py' | xargs wc -l",
    "find . -name '*.py' -print0 | xargs -0 grep -n main",
    "git ls-files '*.py' | xargs grep -l import",
    "git ls-files src | sort | head -3 | xargs wc -l",
]


@pytest.mark.parametrize("mode", ("default", "acceptEdits"))
@pytest.mark.parametrize("command", ALLOWED)
def test_wrapped_known_commands_are_allowed(run_hook, sample, command, mode):
    project, env = sample
    assert _hooks(run_hook, command, project, env, mode) == [("allow", "GW700"),
                                                              ("allow", None)]


@pytest.mark.parametrize("command,code", [
    ("timeout 10 cat .env", "GW503"),
    # the tracked files include deploy/key.pem: wc would read it
    ("git ls-files | xargs wc -l", "GW503"),
    # the tree holds .env (git ignores it, find does not)
    ("find . -type f | xargs cat", "GW503"),
    ("cat files.txt | xargs cat", "GW840"),
    ("git ls-files | xargs -I{} cat {}", "GW840"),
    ("xargs cat < README.md", "GW840"),
    ("find src -name '*.py' -exec cat {} + | xargs wc -l", "GW840"),
])
def test_the_neighbours_ask(run_hook, sample, command, code):
    project, env = sample
    pre, pr = _hooks(run_hook, command, project, env)
    assert pre == ("ask", code)
    assert pr == (None, None)


def test_a_writer_behind_xargs_is_an_edit(run_hook, sample):
    project, env = sample
    cmd = "find src -name '*.py' | xargs sed -i 's/main/run/'"
    assert _hooks(run_hook, cmd, project, env)[1] == (None, None)
    assert _hooks(run_hook, cmd, project, env, "acceptEdits")[1] == ("allow", None)
    assert _hooks(run_hook, "find . -name '*.pyc' | xargs rm", project, env,
                  "acceptEdits")[1] == (None, None)
