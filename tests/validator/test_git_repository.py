"""git runs with the configuration of the repository it finds: a repository inside the project
other than the project's own (an embedded bare repository is ordinary tracked content) can
set diff.external or core.fsmonitor and run any program. Each test builds its own project."""

import os

import pytest

from gateway.settings import SettingsRules
from gateway.validator.pipeline import validate


def _git_dir(path):
    os.makedirs(os.path.join(path, "objects"))
    os.makedirs(os.path.join(path, "refs", "heads"))
    with open(os.path.join(path, "HEAD"), "w") as fh:
        fh.write("ref: refs/heads/main\n")


@pytest.fixture()
def proj(tmp_path):
    root = os.path.realpath(str(tmp_path / "proj"))
    os.makedirs(os.path.join(root, "src"))
    _git_dir(os.path.join(root, ".git"))
    _git_dir(os.path.join(root, "vendor", "x.git"))  # an embedded bare repository
    _git_dir(os.path.join(root, "deps", "foo", ".git"))  # a nested clone
    os.makedirs(os.path.join(root, "sub"))  # a submodule: its .git file points into .git
    _git_dir(os.path.join(root, ".git", "modules", "sub"))
    with open(os.path.join(root, "sub", ".git"), "w") as fh:
        fh.write("gitdir: ../.git/modules/sub\n")
    os.makedirs(os.path.join(root, "evil"))
    with open(os.path.join(root, "evil", ".git"), "w") as fh:
        fh.write("gitdir: ../vendor/x.git\n")
    return root


def _judge(policy, root, command):
    verdict = validate(command, root, root, policy, "Bash", SettingsRules(), None)
    return str(verdict.decision), verdict.code


@pytest.mark.parametrize("command", [
    "git -C vendor/x.git diff HEAD~1 HEAD",
    "git --git-dir=vendor/x.git diff HEAD~1 HEAD",
    "git --git-dir vendor/x.git log",
    "cd vendor/x.git && git diff HEAD~1 HEAD",
    "cd vendor/x.git/refs && git log",
    "git -C deps/foo status",
    "git -C evil log",
])
def test_another_repository_asks(policy, proj, command):
    assert _judge(policy, proj, command) == ("ask", "GW713")


@pytest.mark.parametrize("command", [
    "git status", "git -C src status", "cd src && git log", "git -C vendor log",
    "git --git-dir=.git log", "git -C .git log", "git -C sub status",
    "git --git-dir .git --work-tree . status",
])
def test_the_projects_repository_is_allowed(policy, proj, command):
    assert _judge(policy, proj, command) == ("allow", "GW700")
