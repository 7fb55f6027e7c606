"""--project on every command: a directory that does not exist is a usage error (a typo must
not be judged as an empty project), and without --project every command finds the same
project as `gateway install`."""

import os

import pytest
from click.testing import CliRunner

from gateway.cli.app import cli


@pytest.mark.parametrize("args", [["rules", "show"], ["rules", "validate"], ["state", "show"],
                                  ["state", "validate"], ["state", "clean"], ["state", "repair"],
                                  ["doctor"],
                                  ["install", "--dry-run"], ["uninstall", "--dry-run"]])
def test_missing_project_is_a_usage_error(args, tmp_path):
    gone = tmp_path / "no-such-project"
    r = CliRunner().invoke(cli, [*args, "--project", str(gone)])
    assert r.exit_code == 2
    assert r.output.endswith(f"Error: Invalid value for '--project': Directory '{gone}' does "
                             "not exist.\n")
    assert not gone.exists()


def test_state_and_rules_find_the_project_as_install_does(tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / ".claude" / "state").mkdir(parents=True)
    repo = home / "src" / "app"
    (repo / ".git").mkdir(parents=True)
    (repo / "lib").mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    monkeypatch.chdir(repo / "lib")
    r = CliRunner().invoke(cli, ["state", "show"])
    assert r.output.splitlines()[0] == f"state directory: {repo}/.claude/state"
    r = CliRunner().invoke(cli, ["install", "--dry-run"])
    assert r.output.splitlines()[0] == f"gateway install (dry run): {repo}/.claude/settings.json"
    assert os.path.isdir(home / ".claude" / "state")


@pytest.mark.parametrize("scope,name", [("project", "settings.json"),
                                        ("local", "settings.local.json")])
def test_install_in_the_home_directory_is_refused(scope, name, tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    monkeypatch.chdir(home)
    r = CliRunner().invoke(cli, ["install", "--scope", scope])
    assert r.exit_code == 2
    assert r.output.endswith(
        f"Error: no project here: {home} is your home directory, and its .claude/{name} is "
        "Claude Code's user settings (every project). Run it inside a project (a folder with "
        ".git or .claude/), pass --project DIR, or use --scope user to mean every project\n")
    assert os.listdir(home / ".claude") == []
    r = CliRunner().invoke(cli, ["install", "--scope", scope, "--project", str(home),
                                 "--dry-run"])
    assert r.exit_code == 0
