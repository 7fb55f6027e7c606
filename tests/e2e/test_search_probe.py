"""Searches that reach a secret, through the real hook commands (raw JSON on stdin): the three
everyday rows the search probe allows (`grep -rn TODO .`, `rg TODO`, `git grep TODO` in the
everyday sample project: .env, config/.env.production, the tracked deploy/key.pem and
vendor/lib/.npmrc hold no TODO), and their neighbours whose pattern matches a secret's line.

PreToolUse answers with a JSON decision; PermissionRequest prints the allow object or
nothing (ask); the audit log records the PermissionRequest code.
"""

import json
import os
import shutil

import pytest

SESSION = "7a1e3c9a-2b7d-4e8f-9a61-0c4d2b8e7f55"
RG = shutil.which("rg")


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    from benchmarks.everyday.project import build

    return build(str(tmp_path_factory.mktemp("probe")))


def _payload(event, command, cwd, mode):
    data = {"session_id": SESSION, "transcript_path": "/tmp/t.jsonl", "cwd": cwd,
            "permission_mode": mode, "hook_event_name": event, "tool_name": "Bash",
            "tool_input": {"command": command, "description": "search"}}
    if event == "PreToolUse":
        data["tool_use_id"] = "toolu_probe"
    else:
        data["permission_suggestions"] = []
    return data


def _pre(run_hook, command, cwd, mode):
    proc = run_hook("pre-tool-use", _payload("PreToolUse", command, cwd, mode))
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "PreToolUse"
    return out["permissionDecision"], out["permissionDecisionReason"].split(":", 1)[0]


def _pr(run_hook, hook_env, command, cwd, mode):
    proc = run_hook("permission-request", _payload("PermissionRequest", command, cwd, mode))
    assert proc.returncode == 0, proc.stderr
    with open(hook_env["GATEWAY_AUDIT_LOG"], encoding="utf-8") as fh:
        last = json.loads(fh.read().splitlines()[-1])
    text = proc.stdout.decode()
    if not text:
        return None, last["code"]
    assert text.count("\n") == 1, text
    return json.loads(text)["hookSpecificOutput"]["decision"]["behavior"], last["code"]


ALLOWED = ["grep -rn TODO .", "git grep TODO"] + (["rg TODO"] if RG else [])


@pytest.mark.parametrize("mode", ("default", "acceptEdits"))
@pytest.mark.parametrize("command", ALLOWED)
def test_the_everyday_searches_are_allowed_by_both_hooks(run_hook, hook_env, shop, mode,
                                                         command):
    assert _pre(run_hook, command, shop, mode) == ("allow", "gateway GW700")
    assert _pr(run_hook, hook_env, command, shop, mode) == ("allow", "GW700")


MATCHING = [("grep -rn API_KEY .", "GW506"), ("grep -rvn TODO .", "GW506"),
            ("grep -rn -e TODO -e sk-live .", "GW506"), ("git grep -e BEGIN", "GW503"),
            ("git grep -i begin", "GW503"), ("git grep --no-index -e API_KEY", "GW506")]
if RG:
    MATCHING += [("rg -i 'begin private'", "GW506"), ("rg --passthru NOMATCH deploy", "GW506")]


@pytest.mark.parametrize("mode", ("default", "acceptEdits"))
@pytest.mark.parametrize("command,code", MATCHING)
def test_a_search_whose_pattern_matches_a_secret_asks_in_both_hooks(run_hook, hook_env, shop,
                                                                    mode, command, code):
    assert _pre(run_hook, command, shop, mode) == ("ask", f"gateway {code}")
    assert _pr(run_hook, hook_env, command, shop, mode) == (None, code)


def test_patterns_from_standard_input_cannot_be_probed(run_hook, hook_env, shop):
    command = "echo API_KEY | grep -rn -f - ."
    assert _pre(run_hook, command, shop, "default") == ("ask", "gateway GW840")
    assert _pr(run_hook, hook_env, command, shop, "default") == (None, "GW509")


def test_without_the_program_in_path_the_search_asks(run_hook, hook_env, shop, tmp_path):
    """The probe runs the program the command resolves to; where PATH has none, it cannot
    answer (GW509; PreToolUse: what is read cannot be known, GW840)."""
    empty = tmp_path / "bin"
    empty.mkdir()
    os.symlink(shutil.which("git"), empty / "git")
    proc = run_hook("pre-tool-use", _payload("PreToolUse", "rg TODO", shop, "default"),
                    {"PATH": str(empty)})
    out = json.loads(proc.stdout)["hookSpecificOutput"]
    assert (out["permissionDecision"], out["permissionDecisionReason"].split(":", 1)[0]) == (
        "ask", "gateway GW840")
    assert "GW509" in out["permissionDecisionReason"]
