"""The real PermissionRequest hook command, fed raw JSON on stdin as Claude Code feeds it:
the exact stdout (decision JSON or nothing) and exit code 0, for good and hostile input."""

import json
import os

import pytest

ALLOW = {"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                                "decision": {"behavior": "allow"}}}


def payload(command, cwd, **extra):
    data = {"session_id": "s-1", "transcript_path": "/tmp/t.jsonl", "cwd": cwd,
            "permission_mode": "default", "hook_event_name": "PermissionRequest",
            "tool_name": "Bash", "tool_input": {"command": command, "description": "x"},
            "permission_suggestions": []}
    data.update(extra)
    return data


def decision(proc):
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode("utf-8")
    if out == "":
        return None
    assert out.endswith("\n") and out.count("\n") == 1, out
    return json.loads(out)


def test_allow_prints_exactly_the_allow_object(run_hook, project):
    assert decision(run_hook("permission-request", payload("git status", project))) == ALLOW


def test_contained_script_is_allowed(run_hook, project, tmp_path):
    """A contained script the repository's HEAD commit holds; not committed, it asks."""
    from helpers import make_committed_project

    proc = run_hook("permission-request", payload("python3 scripts/foo.py", project))
    assert decision(proc) is None  # the sample project has no repository: unseen code
    repo = make_committed_project(tmp_path / "repo")
    proc = run_hook("permission-request", payload("python3 scripts/foo.py", repo))
    assert decision(proc) == ALLOW
    proc = run_hook("permission-request", payload("bash scripts/untracked.sh", repo))
    assert decision(proc) is None


def test_ask_prints_nothing(run_hook, project):
    assert decision(run_hook("permission-request", payload("curl http://x", project))) is None


def test_deny_prints_the_reason(run_hook, project):
    out = decision(run_hook("permission-request", payload("rm -rf /", project)))
    dec = out["hookSpecificOutput"]["decision"]
    assert out["hookSpecificOutput"]["hookEventName"] == "PermissionRequest"
    assert dec["behavior"] == "deny"
    assert dec["message"].startswith("gateway GW750: ")


def test_relative_paths_resolve_against_the_payload_cwd(run_hook, project):
    sub = f"{project}/src"
    assert decision(run_hook("permission-request", payload("cat ../README.md", sub))) == ALLOW
    assert decision(run_hook("permission-request", payload("cat ../../x", sub))) is None


def test_project_dir_comes_from_the_environment(run_hook, project, tmp_path):
    # cwd outside the project: paths there are outside
    proc = run_hook("permission-request", payload("cat a.txt", str(tmp_path)),
                    env_extra={"CLAUDE_PROJECT_DIR": project})
    assert decision(proc) is None
    proc = run_hook("permission-request", payload("cat a.txt", project),
                    env_extra={"CLAUDE_PROJECT_DIR": project})
    assert decision(proc) == ALLOW


def test_settings_ask_rule_is_binding(run_hook, project, hook_env, tmp_path):
    import os
    settings_dir = os.path.join(hook_env["CLAUDE_CONFIG_DIR"])
    os.makedirs(settings_dir, exist_ok=True)
    with open(os.path.join(settings_dir, "settings.json"), "w") as fh:
        json.dump({"permissions": {"ask": ["Bash(git log:*)"]}}, fh)
    assert decision(run_hook("permission-request", payload("git log -1", project))) is None
    assert decision(run_hook("permission-request", payload("git status", project))) == ALLOW


def test_broken_settings_file_means_no_allow(run_hook, project, hook_env):
    import os
    os.makedirs(hook_env["CLAUDE_CONFIG_DIR"], exist_ok=True)
    with open(os.path.join(hook_env["CLAUDE_CONFIG_DIR"], "settings.json"), "w") as fh:
        fh.write("{ not json")
    assert decision(run_hook("permission-request", payload("git status", project))) is None


def test_broken_user_rules_mean_no_allow(run_hook, project, hook_env):
    with open(hook_env["GATEWAY_USER_RULES"], "w") as fh:
        fh.write("always_ask: [unclosed\n")
    assert decision(run_hook("permission-request", payload("git status", project))) is None


HOSTILE = [
    b"",
    b"not json at all",
    b"\xff\xfe\x00garbage",
    b"[]",
    b"null",
    b'"a string"',
    b"{}",
    b'{"tool_name": "Bash"}',
    b'{"tool_name": "Bash", "tool_input": "ls"}',
    b'{"tool_name": "Bash", "tool_input": {"command": ["ls"]}}',
    b'{"tool_name": "Bash", "tool_input": {"command": null}}',
    b'{"tool_name": 7, "tool_input": {"command": "ls"}}',
    b'{"tool_name": "Bash", "tool_input": {"command": "ls"}, "cwd": 5}',
    b'{"tool_name": "Write", "tool_input": {"command": "ls"}}',
    b'{"tool_input": {"command": "ls"}}',
    b'{"tool_name": "", "tool_input": {"command": "ls"}}',
    b'{"tool_name": "Bash", "tool_input": {"command": "ls\\u0000"}}',
    b'{"tool_name": "Bash", "tool_input": {"command": "ls"}} trailing',
    b'{"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_name": "Write"}',
    b"[" * 100000,
    b'{"a":' * 50000,
]


@pytest.mark.parametrize("raw", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_input_never_allows(run_hook, raw):
    proc = run_hook("permission-request", raw)
    assert proc.returncode == 0
    assert proc.stdout == b""


def test_non_utf8_bytes_inside_json_string(run_hook, project):
    raw = b'{"tool_name":"Bash","tool_input":{"command":"ls \xc3\x28"},"cwd":"' + \
        project.encode() + b'"}'
    proc = run_hook("permission-request", raw)
    assert (proc.returncode, proc.stdout) == (0, b"")


def test_huge_command_is_refused_quickly(run_hook, project):
    proc = run_hook("permission-request", payload("echo " + "a" * 200_000, project))
    assert (proc.returncode, proc.stdout) == (0, b"")


def test_huge_payload_field_does_not_matter(run_hook, project):
    data = payload("git status", project, transcript_path="x" * 1_000_000)
    assert decision(run_hook("permission-request", data)) == ALLOW


def test_audit_log_records_the_decision(run_hook, project, hook_env):
    run_hook("permission-request", payload("git status", project, session_id="sess-9"))
    with open(hook_env["GATEWAY_AUDIT_LOG"]) as fh:
        entries = [json.loads(line) for line in fh]
    assert entries[-1]["decision"] == "allow"
    assert entries[-1]["code"] == "GW700"
    assert entries[-1]["session"] == "sess-9"
    assert entries[-1]["command"] == "git status"
    assert entries[-1]["event"] == "PermissionRequest"
    assert isinstance(entries[-1]["latency_ms"], float)


def test_audit_log_off_switch(run_hook, project, hook_env):
    import os
    run_hook("permission-request", payload("git status", project),
             env_extra={"GATEWAY_AUDIT_LOG": "off"})
    assert not os.path.exists(hook_env["GATEWAY_AUDIT_LOG"])


def test_unknown_event_prints_nothing(run_hook):
    proc = run_hook("no-such-event", b"{}")
    assert (proc.returncode, proc.stdout) == (0, b"")


@pytest.mark.parametrize("cwd", [None, "src", "", 7])
def test_missing_or_relative_cwd_gives_no_decision(run_hook, project, cwd):
    # the Bash tool's shell keeps its own directory between calls: without an absolute cwd
    # the gateway cannot place `.` or a relative path, so it leaves the decision to the human
    data = payload("cat README.md", project)
    if cwd is None:
        del data["cwd"]
    else:
        data["cwd"] = cwd
    proc = run_hook("permission-request", data, env_extra={"CLAUDE_PROJECT_DIR": project})
    assert decision(proc) is None


def test_home_is_never_taken_for_the_project(run_hook, hook_env):
    """Without CLAUDE_PROJECT_DIR the walk up to a .claude/ skips ~/.claude (Claude Code's
    user configuration): otherwise every file in the home directory would be "inside"."""
    import os
    home = hook_env["HOME"]
    os.makedirs(os.path.join(home, ".claude"), exist_ok=True)
    repo = os.path.join(home, "work", "repo")
    os.makedirs(os.path.join(repo, "src"))
    with open(os.path.join(home, "notes.txt"), "w") as fh:
        fh.write("x\n")
    # from inside the repo (no .claude/ of its own), a file elsewhere in home is outside
    assert decision(run_hook("permission-request", payload("cat ../../notes.txt", repo))) is None
    assert decision(run_hook("permission-request", payload("cat src/../x", repo))) == ALLOW
    # once the repo has its own .claude/, it is the project, as before
    os.makedirs(os.path.join(repo, ".claude"))
    sub = os.path.join(repo, "src")
    assert decision(run_hook("permission-request", payload("cat ../x", sub))) == ALLOW
    assert decision(run_hook("permission-request", payload("cat ../../x", sub))) is None


def test_a_tracked_secret_makes_git_diff_ask(run_hook, tmp_path):
    # the real hook, a real repository that committed its .env and changed it since: git diff
    # would print it; the same diff of src/ would not
    from tests.validator.test_tracked_secrets import SECRET, repo

    root = repo(tmp_path, SECRET)
    with open(os.path.join(root, "config", ".env"), "w") as fh:
        fh.write("TOKEN=2\n")
    env = {"CLAUDE_PROJECT_DIR": root}
    assert decision(run_hook("permission-request", payload("git diff", root), env)) is None
    assert decision(run_hook("permission-request", payload("git log -p", root), env)) is None
    assert decision(run_hook("permission-request", payload("git diff -- src", root),
                             env)) == ALLOW
    assert decision(run_hook("permission-request", payload("git diff --stat", root),
                             env)) == ALLOW
    assert decision(run_hook("permission-request", payload("git log --oneline", root),
                             env)) == ALLOW
