"""The recursive-read walk beyond the case table: its bound, unreadable directories, deep
trees and symlink loops. Each test builds its own small project."""

import os
import shutil

import pytest

from gateway.settings import SettingsRules
from gateway.validator import phase5_recursive
from gateway.validator.pipeline import validate


@pytest.fixture()
def tree(tmp_path):
    root = os.path.realpath(str(tmp_path / "proj"))
    os.makedirs(os.path.join(root, "src"))
    return root


def _judge(policy, root, command):
    verdict = validate(command, root, root, policy, "Bash", SettingsRules(), None)
    return str(verdict.decision), verdict.code


def test_clean_tree_is_allowed(policy, tree):
    with open(os.path.join(tree, "src", "a.py"), "w") as fh:
        fh.write("x = 1\n")
    assert _judge(policy, tree, "grep -rn x .") == ("allow", "GW700")


def test_over_the_bound_is_not_proven_clean(policy, tree, monkeypatch):
    for i in range(30):
        open(os.path.join(tree, "src", f"f{i}.py"), "w").close()
    monkeypatch.setattr(phase5_recursive, "WALK_LIMIT", 20)
    assert _judge(policy, tree, "grep -r x src") == ("ask", "GW507")
    monkeypatch.setattr(phase5_recursive, "WALK_LIMIT", 40)
    assert _judge(policy, tree, "grep -r x src") == ("allow", "GW700")


def test_the_bound_is_shared_by_all_start_directories(policy, tree, monkeypatch):
    os.makedirs(os.path.join(tree, "lib"))
    for i in range(15):
        open(os.path.join(tree, "src", f"f{i}.py"), "w").close()
        open(os.path.join(tree, "lib", f"f{i}.py"), "w").close()
    monkeypatch.setattr(phase5_recursive, "WALK_LIMIT", 20)
    assert _judge(policy, tree, "grep -r x src") == ("allow", "GW700")
    assert _judge(policy, tree, "grep -r x src lib") == ("ask", "GW507")


def test_unlistable_directory_is_not_proven_clean(policy, tree, monkeypatch):
    locked = os.path.join(tree, "src", "locked")
    os.makedirs(locked)
    real_scandir = os.scandir

    def scandir(path):  # chmod 0 does not stop root, so refuse the listing here
        if os.fspath(path) == locked:
            raise PermissionError(13, "Permission denied", path)
        return real_scandir(path)

    monkeypatch.setattr(phase5_recursive.os, "scandir", scandir)
    assert _judge(policy, tree, "grep -r x src") == ("ask", "GW507")


def test_deep_tree_does_not_exhaust_the_stack(policy, tree):
    path = os.path.join(tree, "src")
    for _ in range(400):  # deeper than the default recursion limit would allow recursively
        path = os.path.join(path, "d")
    os.makedirs(path)
    with open(os.path.join(path, "id_rsa"), "w") as fh:
        fh.write("key\n")
    verdict = validate("grep -r key src", tree, tree, policy, "Bash", SettingsRules(), None)
    assert (str(verdict.decision), verdict.code) == ("ask", "GW506")
    assert "id_rsa" in verdict.message
    # no line of the key matches x: grep, run on it, lists nothing (searchprobe)
    assert _judge(policy, tree, "grep -r x src") == ("allow", "GW700")


def test_secret_directory_is_found_by_its_name(policy, tree):
    os.makedirs(os.path.join(tree, "src", ".ssh"))
    with open(os.path.join(tree, "src", ".ssh", "known"), "w") as fh:
        fh.write("x\n")  # a file of a secret directory is a secret, whatever its name
    assert _judge(policy, tree, "grep -r x src") == ("ask", "GW506")
    assert _judge(policy, tree, "grep -r y src") == ("allow", "GW700")  # no line matches
    # rg skips hidden directories unless asked
    assert _judge(policy, tree, "rg x src") == ("allow", "GW700")
    if shutil.which("rg"):
        assert _judge(policy, tree, "rg --hidden x src") == ("ask", "GW506")
    else:
        assert _judge(policy, tree, "rg --hidden x src") == ("ask", "GW509")


def test_symlink_loop_is_refused_when_followed_and_skipped_otherwise(policy, tree):
    os.symlink(os.path.join(tree, "src"), os.path.join(tree, "src", "loop"))
    assert _judge(policy, tree, "grep -R x src") == ("ask", "GW507")
    assert _judge(policy, tree, "grep -r x src") == ("allow", "GW700")


def test_symlinked_start_directory_is_walked_at_its_target(policy, tree):
    os.makedirs(os.path.join(tree, "conf"))
    with open(os.path.join(tree, "conf", ".env"), "w") as fh:
        fh.write("K=1\n")
    os.symlink(os.path.join(tree, "conf"), os.path.join(tree, "src", "c"))
    # grep -r follows a symlink named on the command line
    assert _judge(policy, tree, "grep -r K src/c") == ("ask", "GW506")
    assert _judge(policy, tree, "grep -r x src/c") == ("allow", "GW700")  # no line matches


def test_git_diff_outside_a_work_tree_compares_trees(policy, tree):
    # outside a git work tree `git diff a b` is `git diff --no-index a b`: it prints every
    # file of a tree that is only on one side, secrets included
    with open(os.path.join(tree, ".env"), "w") as fh:
        fh.write("SECRET=1\n")
    assert _judge(policy, tree, "git diff src .") == ("ask", "GW506")
    assert _judge(policy, tree, "git diff --no-index src .") == ("ask", "GW506")
    os.makedirs(os.path.join(tree, ".git"))
    assert _judge(policy, tree, "git diff src .") == ("allow", "GW700")
    assert _judge(policy, tree, "git diff --no-index src .") == ("ask", "GW506")
