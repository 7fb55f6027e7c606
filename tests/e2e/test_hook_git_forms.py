"""The git forms of rules/effects.yaml (`git.subcommands`) through the real PreToolUse hook
(`gateway hook pre-tool-use`, raw JSON on stdin): a reviewer runs only what the forms call
read-only, an implementer no form that rewrites files it does not own, and an option no form
lists (written out or abbreviated as git abbreviates it) is never read-only."""

import json

import pytest

from tests.e2e.test_hook_pre_tool_use import (  # noqa: F401  (fixtures)
    bash,
    denied,
    hook,
    marker,
    policy_cache,
    proj,
    silent,
)


def asked(proc, code):
    """The reason of the one ask object on stdout (after the role guard let it through)."""
    assert proc.returncode == 0, proc.stderr
    hso = json.loads(proc.stdout)["hookSpecificOutput"]
    assert hso["hookEventName"] == "PreToolUse" and hso["permissionDecision"] == "ask", hso
    reason = hso["permissionDecisionReason"]
    assert reason.startswith(f"gateway {code}: "), (code, reason)
    return reason


# read-only by the forms, and the validator vouches for what they read: nothing to say
READ_ONLY = [
    "git branch --li 'feat/*'",           # --li is --list (git resolves it)
    "git reflog -5",
    "git config --get user.name",
    "git stash show -p",
]

# read-only by the forms (the reviewer may run them), but the validator does not know what
# they read (not in the catalogue): the reads guard asks, in this project with secrets
READ_ONLY_UNVOUCHED = [
    "git archive --format=tar HEAD",
    "git format-patch -1 --stdout",
    "git apply --check fix.patch",
]

NOT_READ_ONLY = [
    # (command, what the reason names)
    ("git archive --remote=origin HEAD", "git archive --remote may run a program of your choice"),
    ("git archive --rem origin HEAD", "git archive --remote may run a program of your choice"),
    ("git format-patch -1 --stdout --outp=x.patch",
     "git format-patch --outp: an option no form of git format-patch in the rules allows"),
    ("git reflog --output=/tmp/reflog.txt", "git reflog --output writes '/tmp/reflog.txt'"),
    ("git stash list --output=out.txt", "git stash --output writes 'out.txt'"),
    ("git branch --del old", "git branch changes the repository"),
    ("git apply --check --index fix.patch", "git apply changes the repository"),
]


@pytest.mark.parametrize("command", READ_ONLY)
def test_a_reviewer_runs_the_read_only_forms(hook, proj, command):
    assert silent(hook(marker(proj, "reviewer", "reviewer", agent_id="agent-rev")))
    assert silent(hook(bash(command, proj, agent_id="agent-rev")))


@pytest.mark.parametrize("command", READ_ONLY_UNVOUCHED)
def test_a_reviewer_passes_the_role_guard_with_the_other_read_only_forms(hook, proj,
                                                                        command):
    assert silent(hook(marker(proj, "reviewer", "reviewer", agent_id="agent-rev")))
    reason = asked(hook(bash(command, proj, agent_id="agent-rev")), "GW840")
    assert reason.endswith("(GW705); a subcommand the catalogue does not know may read any "
                           "file, a secret among them"), reason


@pytest.mark.parametrize("command,why", NOT_READ_ONLY)
def test_a_reviewer_is_refused_the_other_forms(hook, proj, command, why):
    assert silent(hook(marker(proj, "reviewer", "reviewer", agent_id="agent-rev")))
    reason = denied(hook(bash(command, proj, agent_id="agent-rev")), "GW802")
    assert why in reason, reason


def test_git_config_glob_is_global(hook, proj):
    """`--glob` abbreviates `--global` (git resolves it): the write is ~/.gitconfig, part of
    the permission surface, for anyone."""
    reason = denied(hook(bash("git config --glob core.pager cat", proj)), "GW835")
    assert "git config --global writes" in reason and "~/.gitconfig" in reason, reason


@pytest.mark.parametrize("command,code,why", [
    # the write archive -o makes is judged like any other (it used to go unseen)
    ("git archive -o build/src.tar HEAD", "GW803", "git archive -o writes 'build/src.tar'"),
    ("git archive --out=build/src.tar HEAD", "GW803",
     "git archive --output writes 'build/src.tar'"),
    ("git reset --har HEAD~1", "GW803", "git reset rewrites working-tree files"),
    ("git archive --exec=/tmp/x --remote=o HEAD", "GW804", "may run a program of your choice"),
    ("git difftool -x sh HEAD", "GW804", "may run a program of your choice"),
])
def test_an_implementer_is_refused_the_forms_that_write_elsewhere(hook, proj, command, code,
                                                                   why):
    assert silent(hook(marker(proj, "impl-1", "implementer", ["src/**"],
                              agent_id="agent-impl")))
    reason = denied(hook(bash(command, proj, agent_id="agent-impl")), code)
    assert why in reason, reason


@pytest.mark.parametrize("command,code", [
    ("git switch --cre topic", None),         # a branch at HEAD: no file changes
    ("git checkout -b topic", None),
    ("git restore --staged src/app.py", None),  # the index only
    # the role guard lets these through; the validator does not vouch for their reads
    ("git rm --cached src/app.py", "GW840"),
    ("git reset --soft HEAD~1", "GW840"),
    ("git archive -o src/src.tar HEAD", "GW840"),  # a file it owns
])
def test_an_implementer_runs_the_forms_that_stay_in_its_files(hook, proj, command, code):
    assert silent(hook(marker(proj, "impl-1", "implementer", ["src/**"],
                              agent_id="agent-impl")))
    proc = hook(bash(command, proj, agent_id="agent-impl"))
    if code is None:
        assert silent(proc)
    else:
        asked(proc, code)
