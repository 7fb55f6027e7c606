"""git rebase --continue / --abort / --quit and git mv (issue 25), judged as the client's
hooks judge them (benchmarks/everyday/run.py's Judge) in real repositories with a real
rebase under way: starting a rebase still asks (subcommand_ask); continuing one is judged by
what the rest of its todo list does, ending one by what it would lose."""

import os
import subprocess

import pytest

from benchmarks.everyday import run as bench

pytestmark = pytest.mark.slow  # real repositories and rebases: the full tier

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false",
       "-c", "init.defaultBranch=main"]


def _git(cwd, *args, ok=(0,), env=None):
    proc = subprocess.run(GIT + list(args), cwd=cwd, capture_output=True,
                          env=dict(os.environ, GIT_EDITOR="true", **(env or {})))
    assert proc.returncode in ok, proc.stderr
    return proc


def _write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fh:
        fh.write(text)


@pytest.fixture()
def repo(tmp_path):
    root = str(tmp_path / "proj")
    home = str(tmp_path / "home")
    os.makedirs(root)
    os.makedirs(home)
    _git(root, "init", "-q")
    _write(root, "a.txt", "base\n")
    _write(root, "b.txt", "b\n")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "base")
    _git(root, "checkout", "-qb", "feature")
    _write(root, "a.txt", "feature\n")
    _git(root, "commit", "-qam", "feature a")
    _write(root, "b.txt", "feature b\n")
    _git(root, "commit", "-qam", "feature b")
    _git(root, "checkout", "-q", "main")
    _write(root, "a.txt", "main\n")
    _git(root, "commit", "-qam", "main a")
    _git(root, "checkout", "-q", "feature")
    return root, bench.Judge(str(tmp_path), project=root, home=home)


def _decide(judge, command, mode="acceptEdits"):
    a = judge(command, mode)
    return a["final"], a["validator_code"]


def _conflicted(root):
    # the first pick conflicts on a.txt: the rebase stops with a.txt unmerged
    _git(root, "rebase", "main", ok=(1,))
    assert os.path.isdir(os.path.join(root, ".git", "rebase-merge"))


def test_starting_a_rebase_asks_in_every_mode(repo):
    root, judge = repo
    for mode in ("default", "acceptEdits"):
        for cmd in ("git rebase main", "git rebase -i HEAD~2", "git rebase --exec make main",
                    "git rebase -x 'curl x | sh' main", "git rebase --onto main HEAD~1",
                    "git rebase --continue main", "git rebase --cont",
                    "git rebase --edit-todo", "git rebase --skip"):
            assert _decide(judge, cmd, mode) == ("ask", "GW707"), cmd


def test_no_rebase_under_way_continue_and_abort_do_nothing(repo):
    root, judge = repo
    for cmd in ("git rebase --continue", "git rebase --abort", "git rebase --quit"):
        assert _decide(judge, cmd) == ("allow", "GW700")


def test_continue_after_resolving_a_conflict_runs(repo):
    root, judge = repo
    _conflicted(root)
    _write(root, "a.txt", "resolved\n")
    _git(root, "add", "a.txt")
    assert _decide(judge, "git rebase --continue") == ("allow", "GW700")
    assert _decide(judge, "git rebase --continue", "default") == ("allow", "GW700")
    # and it really does: the rebase completes
    _git(root, "rebase", "--continue")
    assert not os.path.isdir(os.path.join(root, ".git", "rebase-merge"))


def test_abort_with_a_resolution_in_progress_asks(repo):
    root, judge = repo
    _conflicted(root)
    _write(root, "a.txt", "half resolved by hand\n")
    assert _decide(judge, "git rebase --abort") == ("ask", "GW707")
    # what it would lose, proven: the edit is gone after a real abort
    _git(root, "rebase", "--abort")
    with open(os.path.join(root, "a.txt")) as fh:
        assert fh.read() == "feature\n"


def test_abort_at_a_clean_stop_runs(repo):
    root, judge = repo
    _git(root, "rebase", "-i", "main", env={"GIT_SEQUENCE_EDITOR": "sed -i 's/^pick/edit/'"},
         ok=(0, 1))
    state = os.path.join(root, ".git", "rebase-merge")
    assert os.path.isdir(state), "the rebase did not stop at the edit line"
    status = _git(root, "status", "--porcelain", "--untracked-files=no").stdout
    if status.strip():
        _git(root, "checkout", "--theirs", "a.txt", ok=(0, 1))
        _git(root, "add", "a.txt")
    status = _git(root, "status", "--porcelain", "--untracked-files=no").stdout
    if status.strip():
        _git(root, "commit", "-qm", "x", ok=(0, 1))
    assert _decide(judge, "git rebase --abort") == ("allow", "GW700")


def test_a_todo_line_that_runs_a_command_asks(repo):
    root, judge = repo
    _conflicted(root)
    todo = os.path.join(root, ".git", "rebase-merge", "git-rebase-todo")
    with open(todo, "a") as fh:
        fh.write("exec touch /tmp/pwned-by-rebase\n")
    _write(root, "a.txt", "resolved\n")
    _git(root, "add", "a.txt")
    assert _decide(judge, "git rebase --continue") == ("ask", "GW707")


def test_continue_applying_a_commit_that_changes_the_permission_surface_asks(repo):
    root, judge = repo
    _write(root, ".claude/settings.json", '{"permissions": {"allow": ["Bash(*)"]}}\n')
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "widen the permissions")
    _conflicted(root)
    _write(root, "a.txt", "resolved\n")
    _git(root, "add", "a.txt")
    assert _decide(judge, "git rebase --continue") == ("ask", "GW741")


def test_git_mv_is_an_edit(repo):
    root, judge = repo
    assert _decide(judge, "git mv a.txt c.txt") == ("allow", "GW700")
    assert _decide(judge, "git mv a.txt c.txt", "default")[0] == "ask"
    assert _decide(judge, "git mv a.txt c.txt", "plan")[0] == "ask"
    for cmd, code in (("git mv -f a.txt b.txt", "GW704"), ("git mv a.txt /tmp/c.txt", "GW501")):
        assert _decide(judge, cmd) == ("ask", code), cmd
    # onto the permission surface: the PreToolUse guard denies it
    assert _decide(judge, "git mv a.txt .claude/settings.json") == ("deny", "GW504")
