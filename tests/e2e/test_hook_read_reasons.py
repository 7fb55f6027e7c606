"""GW840 names the real reason (issue 25): the PreToolUse hook's ask for a command whose reads
the gateway cannot clear leads with the validator's own reason and code, and then says why
that reason leaves the reads unknown -- one sentence per class, not "it may read a secret"
wrapped around `git restore`'s discarded changes and `npx eslint`'s download alike. A
program given a secret's name is a read of that secret (GW503), not "not in the catalogue".
Raw JSON on the stdin of `gateway hook pre-tool-use`, in a project with a .env and git."""

import json
import os

import pytest

from tests.helpers import commit_paths

CASES = [
    ("git restore a.txt", "GW840",
     "git restore: restoring the working tree discards uncommitted changes (only --staged is "
     "auto-allowed) (GW704); the gateway judges this form no further, so it cannot rule out "
     "that it reads a secret"),
    ("npx eslint .", "GW840",
     "npx eslint: not installed in the project: npx would download the package and run it "
     "(GW764); the packages' own code runs, and it may read any file, a secret among them"),
    ("base64 a.txt", "GW840",
     "base64 is not in the command catalogue (GW703); a program the gateway does not know may "
     "read any file, a secret among them"),
    ("git pull", "GW840",
     "git pull: subcommand not in the catalogue (GW705); a subcommand the catalogue does not "
     "know may read any file, a secret among them"),
    ("docker run alpine", "GW840",
     "docker run: subcommand not in the catalogue (GW705); a subcommand the catalogue does not "
     "know may read any file, a secret among them"),
    ("podman run alpine", "GW840",
     "podman is on the ALWAYS_ASK list (GW701); the catalogue does not model what it reads, "
     "so it may read a secret"),
    ("python3 -c 'import os'", "GW840",
     "python3 -c runs code given on the command line, and it prints nothing (only imports): "
     "the gateway allows only imports and prints of public values (versions, places) "
     "(GW401); code given on the command line may read any file, a secret among them"),
    ("wc -l $(git ls-files)", "GW840",
     "command substitution: $(git ls-files) (GW201); the command that makes its arguments may "
     "read any file, and so may the result"),
    ("base64 .env", "GW503",
     "the command reads a secret: base64 is given '.env', a secret file (.env)"),
]


@pytest.fixture()
def project(tmp_path):
    p = tmp_path / "proj"
    (p / ".claude").mkdir(parents=True)
    (p / ".env").write_text("SECRET=1\n")
    (p / "a.txt").write_text("a\n")
    commit_paths(str(p), ["a.txt"])
    return str(p)


@pytest.mark.parametrize("command,code,reason", CASES)
def test_the_ask_names_the_real_reason(run_hook, project, command, code, reason):
    data = {"session_id": "s1", "transcript_path": "/tmp/t.jsonl", "cwd": project,
            "permission_mode": "default", "hook_event_name": "PreToolUse",
            "tool_name": "Bash", "tool_input": {"command": command}}
    # the audit log in a directory of its own: the gateway protects the log's directory
    log = os.path.join(os.path.dirname(project), "log", "audit.jsonl")
    proc = run_hook("pre-tool-use", data, {"CLAUDE_PROJECT_DIR": project,
                                           "GATEWAY_AUDIT_LOG": log})
    assert proc.returncode == 0, proc.stderr
    hso = json.loads(proc.stdout)["hookSpecificOutput"]
    assert (hso["permissionDecision"], hso["permissionDecisionReason"]) == \
        ("ask", f"gateway {code}: {reason}")
