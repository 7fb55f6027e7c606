"""Re-checks the key rows of docs/client-behaviour.md: what the real client (2.1.330) does on its
own, with logging hooks only (no decision), in each permission mode.

A row failing here means the client changed under the gateway: re-run
``python -m tests.realclient.measure`` and update the page, then the gateway's model of the
client (issue 12). The expected outcomes are measurements, not wishes: several rows pin a hole
the gateway has to close (a secret that reaches the model with no dialog).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .behaviour import (
    CASES_BY_ID,
    MEASURED_ID,
    OTHER_MODEL,
    find_secrets,
    measured_turns,
    observe_interactive,
    observe_print,
    run_logged,
    strip_budget,
)
from .client import require_client
from .experiments import ADD_LOCAL_RULE, NOTES_WRITE, git_ignored
from .standin import permission_request, pre_tool_use

pytestmark = pytest.mark.realclient

CLAUDE = require_client()  # loud module-level skip (or fail, if required) when unavailable

ENV = "sk-MARKER123"
PROD = "sk-PRODMARKER456"
SSH = "SSHMARKER789"

AUTO_UNAVAILABLE = (
    "Auto mode is unavailable: its safety check does not run for this session, so Bash was not run."
)
DONT_ASK = (
    "Permission to use Bash has been denied because Claude Code is running in don't ask mode."
)
NEEDS_APPROVAL = "This command requires approval"
SONNET_PLAN = f"plan@{OTHER_MODEL}"

# (case id, mode, outcome, PermissionRequest fired, secrets in the tool_result, tool_result start)
PRINT_ROWS = [
    # secrets read with no dialog, in every mode
    ("cat-env", "default", "ran", False, [ENV], "API_KEY=sk-MARKER123"),
    ("head-env", "acceptEdits", "ran", False, [ENV], "API_KEY=sk-MARKER123"),
    ("cat-env", "plan", "ran", False, [ENV], "API_KEY=sk-MARKER123"),
    ("sed-p", "dontAsk", "ran", False, [ENV], "API_KEY=sk-MARKER123"),
    ("cat-redirect", "auto", "ran", False, [ENV], "API_KEY=sk-MARKER123"),
    ("base64", "default", "ran", False, [f"{ENV} (base64)"], "QVBJX0tFWT1zay1NQVJLRVIxMjMK"),
    ("git-show", "default", "ran", False, [PROD], "PROD_API_KEY=sk-PRODMARKER456"),
    ("git-grep", "dontAsk", "ran", False, [PROD], ""),
    # the client's grep is ugrep with --ignore-files --hidden: .gitignore decides about .env
    ("grep-r", "default", "ran", False, [PROD], ""),
    ("grep-r-unignored", "default", "ran", False, [ENV, PROD], ""),
    ("rg", "default", "ran", False, [], 'app.py:API_KEY = os.environ.get("API_KEY")'),
    ("rg-hidden-unignored", "default", "ran", False, [ENV, PROD], ""),
    ("Read-env", "default", "ran", False, [ENV], "1\tAPI_KEY=sk-MARKER123"),
    ("Read-env", "dontAsk", "ran", False, [ENV], "1\tAPI_KEY=sk-MARKER123"),
    # Grep lists file names by default (content mode prints the lines); Glob gives names only
    ("Grep", "default", "ran", False, [], "Found 2 files\napp.py\nconfig/.env.prod"),
    (
        "Grep-unignored",
        "default",
        "ran",
        False,
        [],
        "Found 3 files\napp.py\nconfig/.env.prod\n.env",
    ),
    ("Grep-content-unignored", "default", "ran", False, [ENV, PROD], ".env:1:API_KEY=sk-MARKER123"),
    ("Grep-py", "default", "ran", False, [], 'app.py:3:API_KEY = os.environ.get("API_KEY")'),
    ("Glob-top", "default", "ran", False, [], ".env\nconfig/.env.prod"),
    # forms the client does not run by itself
    ("cat-subst", "default", "asks", True, [], "A nested command in this command can't be checked"),
    ("python-open", "default", "asks", True, [], NEEDS_APPROVAL),
    ("cat-ssh", "default", "asks", True, [], "cat in '<home>/.ssh/id_rsa' was blocked."),
    (
        "Read-ssh",
        "default",
        "asks",
        True,
        [],
        "Claude requested permissions to read from <home>/.ssh/id_rsa, but you haven't granted it",
    ),
    # ... except that auto and plan (on the default model) let the Read tool read ~/.ssh
    ("Read-ssh", "auto", "ran", False, [SSH], "1\t-----BEGIN OPENSSH PRIVATE KEY-----"),
    ("Read-ssh", "plan", "ran", False, [SSH], "1\t-----BEGIN OPENSSH PRIVATE KEY-----"),
    ("cat-ssh", "auto", "refused", False, [], AUTO_UNAVAILABLE),
    # writes
    ("sitecustomize", "default", "asks", True, [], "Output redirection to '<proj>/.venv/"),
    ("sitecustomize", "acceptEdits", "ran", False, [], "(Bash completed with no output)"),
    ("sitecustomize", "auto", "ran", False, [], "(Bash completed with no output)"),
    ("cp-env", "acceptEdits", "ran", False, [], "(Bash completed with no output)"),
    ("chmod", "acceptEdits", "asks", True, [], NEEDS_APPROVAL),
    ("tar-x", "acceptEdits", "asks", True, [], NEEDS_APPROVAL),
    (
        "envrc",
        "acceptEdits",
        "asks",
        True,
        [],
        "Claude requested permissions to edit <proj>/.envrc which is a sensitive file.",
    ),
    (
        "Write-claude-settings",
        "acceptEdits",
        "asks",
        True,
        [],
        "Claude requested permissions to write to <proj>/.claude/settings.json, but you haven't",
    ),
    (
        "Write-sitecustomize",
        "acceptEdits",
        "ran",
        False,
        [],
        "File created successfully at: <proj>/.venv/lib/python3.11/site-packages/sitecustomize.py",
    ),
    ("touch", "plan", "refused", False, [], AUTO_UNAVAILABLE),
    ("touch", SONNET_PLAN, "asks", True, [], "touch in '<proj>/t' needs approval."),
    ("touch", "dontAsk", "refused", False, [], DONT_ASK),
    (
        "Edit-readme",
        "plan",
        "asks",
        True,
        [],
        "Cannot write to <proj>/README.md while in plan mode.",
    ),
]


@pytest.mark.parametrize(
    ("case_id", "mode", "outcome", "perm", "secrets", "start"),
    PRINT_ROWS,
    ids=[f"{r[0]}-{r[1]}" for r in PRINT_ROWS],
)
def test_print_mode_row(
    tmp_path: Path,
    case_id: str,
    mode: str,
    outcome: str,
    perm: bool,
    secrets: list[str],
    start: str,
) -> None:
    o = observe_print(CLAUDE, CASES_BY_ID[case_id], mode, tmp_path)
    got = (o.outcome, o.permission_request, find_secrets(o.tool_result))
    assert got == (outcome, perm, secrets), o.to_json()
    assert strip_budget(o.tool_result or "").startswith(start), o.to_json()
    assert o.notes == [], o.to_json()


# (case id, mode, outcome, dialog, PermissionRequest fired, secrets)
TTY_ROWS = [
    ("Read-env", "default", "ran", False, False, [ENV]),
    ("grep-r-unignored", "acceptEdits", "ran", False, False, [ENV, PROD]),
    ("sitecustomize", "acceptEdits", "ran", False, False, []),
    ("touch", "default", "dialog", True, True, []),
    # auto mode: the call needs the server-side check, which the mock lacks: the client asks
    # the human, and no PermissionRequest hook is called for that dialog
    ("cat-ssh", "auto", "dialog", True, False, []),
    # ... while the Read tool outside the project asks once ("Allow this read outside the
    # working directories?"), with a PermissionRequest; in -p auto it just runs (PRINT_ROWS)
    ("Read-ssh", "auto", "dialog", True, True, []),
]


@pytest.mark.parametrize(
    ("case_id", "mode", "outcome", "dialog", "perm", "secrets"),
    TTY_ROWS,
    ids=[f"{r[0]}-{r[1]}" for r in TTY_ROWS],
)
def test_interactive_row(
    tmp_path: Path,
    case_id: str,
    mode: str,
    outcome: str,
    dialog: bool,
    perm: bool,
    secrets: list[str],
) -> None:
    o = observe_interactive(CLAUDE, CASES_BY_ID[case_id], mode, tmp_path)
    got = (o.outcome, o.dialog, o.permission_request, find_secrets(o.tool_result))
    assert got == (outcome, dialog, perm, secrets), o.to_json()
    assert not any("timed out" in n for n in o.notes), o.to_json()


# --------------------------------------------------------------------------- PostToolUse


def test_posttooluse_fires_for_a_completed_write_with_its_response(tmp_path: Path) -> None:
    lg = run_logged(CLAUDE, tmp_path, NOTES_WRITE, mode="acceptEdits")
    assert (lg.project / "notes.txt").read_text() == "hello\n"
    assert lg.events() == ["PreToolUse", "PostToolUse", "PostToolBatch"]
    post = lg.payload("PostToolUse")
    assert post["tool_use_id"] == MEASURED_ID
    assert post["tool_response"] == {
        "type": "create",
        "filePath": str(lg.project / "notes.txt"),
        "content": "hello\n",
        "structuredPatch": [],
        "originalFile": None,
        "userModified": False,
    }
    assert isinstance(post["duration_ms"], int)


@pytest.mark.parametrize(
    ("mode", "pre_reply", "text"),
    [
        (
            None,
            None,
            "Claude requested permissions to write to {p}/notes.txt, but you haven't granted it yet.",
        ),
        (
            "acceptEdits",
            pre_tool_use("deny", "denied-by-test"),
            "PreToolUse:Write hook error: denied-by-test",
        ),
    ],
    ids=["refused-by-client", "denied-by-pretooluse"],
)
def test_no_posttooluse_for_a_write_that_did_not_run(
    tmp_path: Path, mode: str | None, pre_reply: dict | None, text: str
) -> None:
    replies = {"PreToolUse": pre_reply} if pre_reply else None
    lg = run_logged(CLAUDE, tmp_path, NOTES_WRITE, mode=mode, replies=replies)
    assert not (lg.project / "notes.txt").exists()
    assert lg.calls("PostToolUse") == [] and lg.calls("PostToolUseFailure") == []
    assert lg.events()[-1] == "PostToolBatch"  # PostToolBatch does fire, with the refusal text
    batch = lg.payload("PostToolBatch")["tool_calls"]
    assert batch[0]["tool_response"] == text.format(p=lg.project)
    assert lg.result().text == text.format(p=lg.project)


def test_failed_bash_fires_posttoolusefailure_not_posttooluse(tmp_path: Path) -> None:
    lg = run_logged(CLAUDE, tmp_path, measured_turns("Bash", {"command": "cat nonexistent-file"}))
    assert lg.events() == ["PreToolUse", "PostToolUseFailure", "PostToolBatch"]
    fail = lg.payload("PostToolUseFailure")
    assert fail["error"] == "Exit code 1\ncat: nonexistent-file: No such file or directory"
    assert fail["is_interrupt"] is False
    assert "tool_response" not in fail


# --------------------------------------------------------------------------- hook allow per mode

CHMOD = measured_turns("Bash", {"command": "chmod +x scripts/x.sh"})


@pytest.mark.parametrize(
    ("mode", "event", "ran"),
    [
        # a PreToolUse allow takes effect where PermissionRequest never fires ...
        ("auto", "PreToolUse", True),
        ("dontAsk", "PreToolUse", True),
        # ... and a PermissionRequest allow does not
        ("auto", "PermissionRequest", False),
        ("dontAsk", "PermissionRequest", False),
    ],
)
def test_hook_allow_in_modes_without_permissionrequest(
    tmp_path: Path, mode: str, event: str, ran: bool
) -> None:
    reply = pre_tool_use("allow") if event == "PreToolUse" else permission_request("allow")
    lg = run_logged(CLAUDE, tmp_path, CHMOD, mode=mode, replies={event: reply})
    assert bool(lg.ran()) is ran, lg.describe
    assert lg.calls("PermissionRequest") == []
    assert (lg.events()[-2] == "PostToolUse") is ran


# --------------------------------------------------------------------------- plan mode

TOUCH = measured_turns("Bash", {"command": "touch t"})


@pytest.mark.parametrize(
    ("model", "replies", "wrote"),
    [
        # the default model routes plan-mode Bash through the auto-mode check: nothing runs,
        # whatever the hooks say
        (None, {"PermissionRequest": permission_request("allow")}, False),
        (None, {"PreToolUse": pre_tool_use("allow")}, False),
        # claude-sonnet-4-5: a PermissionRequest allow runs a writing command in plan mode,
        # a PreToolUse allow does not (the client still asks, PermissionRequest fires)
        (OTHER_MODEL, {"PermissionRequest": permission_request("allow")}, True),
        (OTHER_MODEL, {"PreToolUse": pre_tool_use("allow")}, False),
    ],
    ids=[
        "default-model-PR-allow",
        "default-model-pre-allow",
        "sonnet-PR-allow",
        "sonnet-pre-allow",
    ],
)
def test_plan_mode_bash_write_after_a_hook_allow(
    tmp_path: Path, model: str | None, replies: dict, wrote: bool
) -> None:
    lg = run_logged(CLAUDE, tmp_path, TOUCH, mode="plan", model=model, replies=replies)
    assert (lg.project / "t").exists() is wrote, lg.describe
    if model is None:
        assert lg.events()[:2] == ["PreToolUse", "PermissionDenied"]
        assert lg.payload("PermissionDenied")["reason"] == "Classifier unavailable"
    else:
        assert "PermissionRequest" in lg.events()


def test_plan_mode_write_tool_runs_after_permissionrequest_allow(tmp_path: Path) -> None:
    lg = run_logged(
        CLAUDE,
        tmp_path,
        NOTES_WRITE,
        mode="plan",
        replies={"PermissionRequest": permission_request("allow")},
    )
    assert (lg.project / "notes.txt").exists(), lg.describe
    assert lg.payload("PostToolUse")["permission_mode"] == "plan"


# --------------------------------------------------------------------------- settings.local.json


def test_client_ignores_settings_local_json_through_the_global_excludes_file(
    tmp_path: Path,
) -> None:
    lg = run_logged(
        CLAUDE,
        tmp_path,
        TOUCH,
        replies={"PermissionRequest": ADD_LOCAL_RULE},
    )
    assert (lg.project / ".claude" / "settings.local.json").exists()
    assert (lg.project / ".gitignore").read_text() == ".venv/\n.env\n"  # untouched
    assert (
        lg.home / ".config" / "git" / "ignore"
    ).read_text() == "**/.claude/settings.local.json\n"
    assert git_ignored(lg.project, lg.home, ".claude/settings.local.json") == (
        "<home>/.config/git/ignore:1:**/.claude/settings.local.json\t.claude/settings.local.json"
    )


# --------------------------------------------------------------------------- bypassPermissions


@pytest.mark.skipif(os.getuid() != 0, reason="the refusal is for root only")
def test_bypass_permissions_refused_as_root(tmp_path: Path) -> None:
    from .behaviour import build_project
    from .client import run_session
    from .mock_api import bash

    proj, home = build_project(tmp_path)
    res = run_session(
        CLAUDE,
        proj,
        home=home,
        tool_use=bash("touch t"),
        permission_mode="bypassPermissions",
    )
    assert res.returncode == 1
    assert res.stderr.strip() == (
        "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons"
    )
    assert res.requests == [] and not (proj / "t").exists()
