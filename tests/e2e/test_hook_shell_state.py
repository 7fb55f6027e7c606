"""A `for` loop, `export FOO=bar` and `source .venv/bin/activate` through the real hook
commands (issue 13, round 19): raw JSON on the stdin of `gateway hook pre-tool-use` and
`gateway hook permission-request`, in the everyday benchmark's sample project, as Claude Code
sends it. Each of the three rows is allowed by both hooks in default, acceptEdits and plan
mode; their neighbours that would be attacks are not.
"""

import json
import os

import pytest

SESSION = "5f1e3c9a-2b7d-4e8f-9a61-0c4d2b8e7f13"

ROWS = [
    ('for f in src/shop/*.py; do wc -l "$f"; done', "GW700"),
    ("export FOO=bar", "GW219"),
    ("source .venv/bin/activate", "GW306"),
    (". .venv/bin/activate", "GW306"),
    ("source scripts/release.sh", "GW600"),
]


@pytest.fixture()
def sample(tmp_path, hook_env):
    from benchmarks.everyday.project import build

    project = build(str(tmp_path / "sample"))
    home = os.path.join(os.path.dirname(project), "home")
    return project, {"HOME": home}


def _call(run_hook, event, command, cwd, mode, env):
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
    assert out["hookEventName"] == event
    if event == "PreToolUse":
        reason = out["permissionDecisionReason"]
        return out["permissionDecision"], reason.split(":", 1)[0].replace("gateway ", "")
    return out["decision"]["behavior"], None


@pytest.mark.parametrize("mode", ("default", "acceptEdits", "plan"))
@pytest.mark.parametrize("command,code", ROWS)
def test_the_rows_are_allowed_by_both_hooks(run_hook, sample, mode, command, code):
    project, env = sample
    if mode == "plan" and command.startswith("source scripts/"):
        # what the script writes is not visible: plan mode asks for it as for bash FILE
        assert _call(run_hook, "PermissionRequest", command, project, mode, env)[0] is None
        assert _call(run_hook, "PermissionRequest", "bash scripts/release.sh", project, mode,
                     env)[0] is None
        return
    assert _call(run_hook, "PreToolUse", command, project, mode, env) == ("allow", code)
    assert _call(run_hook, "PermissionRequest", command, project, mode, env) == \
        ("allow", None)


NEIGHBOURS = [
    # (command, PreToolUse decision, its code)
    ('for d in ~ /; do rm -rf "$d"; done', "deny", "GW750"),
    ('for f in .env*; do cat "$f"; done', "ask", "GW503"),
    ('for f in ~/.ssh/id_ed25519; do cat "$f"; done', "ask", "GW503"),
    ('for d in .git/hooks; do rm -rf "$d"; done', "deny", "GW835"),
    ('for f in src/shop/*.py; do cat $f; done; cat "$f"', "ask", "GW840"),
    ('for F in src/shop/*.py; do wc -l "$F"; done', "ask", "GW840"),
    ("export PATH=/tmp/x:$PATH; ls", "ask", "GW840"),
    ("export LD_PRELOAD=/tmp/evil.so; ls", "ask", "GW840"),
    ("export GIT_EXTERNAL_DIFF=x; git diff", "ask", "GW840"),
    ("source scripts/release.sh && cat README.md", "ask", "GW840"),
    ("source /tmp/x.sh", "ask", "GW840"),
    ("source ../home/.bashrc", "ask", "GW840"),
    ("export", "ask", "GW840"),
]


@pytest.mark.parametrize("command,decision,code", NEIGHBOURS)
def test_the_neighbours_are_not_allowed(run_hook, sample, command, decision, code):
    project, env = sample
    for mode in ("default", "acceptEdits"):
        assert _call(run_hook, "PreToolUse", command, project, mode, env) == (decision, code)
        pr = _call(run_hook, "PermissionRequest", command, project, mode, env)[0]
        # the validator denies only the catastrophic (GW750); a write of the permission
        # surface is the guards' deny (GW835), the validator has no decision for it
        assert pr == ("deny" if code == "GW750" else None), (command, mode, pr)
