"""`gateway check`: exit codes, the JSON shape, the batch mode, and agreement with the hook."""

import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from gateway.cli.app import cli


@pytest.fixture()
def run(project):
    runner = CliRunner()

    def _run(*args, input=None):
        return runner.invoke(cli, ["check", "--project", project, "--cwd", project,
                                   "--no-settings", *args], input=input)
    return _run


@pytest.mark.parametrize("command,code", [("git status", 0), ("curl http://x", 10),
                                          ("rm -rf /", 11)])
def test_exit_codes(run, command, code):
    assert run(command).exit_code == code


def test_usage_error_exit_code(run):
    assert run().exit_code == 2
    result = CliRunner().invoke(cli, ["check", "--bogus"])
    assert result.exit_code == 2


def test_json_shape(run):
    result = run("--json", "git -C . push")
    obj = json.loads(result.output)
    assert set(obj) == {"decision", "phase", "code", "rule", "message", "command", "trace"}
    assert (obj["decision"], obj["phase"], obj["code"], obj["rule"]) == (
        "ask", "7B2", "GW707", "subcommand_ask:git push")
    assert obj["command"] == "git -C . push"
    assert [s["phase"] for s in obj["trace"]][:5] == ["S0", "1", "1.5", "2", "3"]
    assert obj["trace"][-1] == {"phase": "7B2", "status": "ask", "code": "GW707",
                                "message": "'git push' needs the human"}


def test_text_output_names_phase_code_rule(run):
    result = run("cat .env")
    assert result.exit_code == 10
    assert result.output.splitlines()[0] == "ASK  cat .env"
    assert "phase 5 · GW503 · secrets:.env" in result.output


def test_verbose_shows_every_phase(run):
    out = run("-v", "git status").output
    for phase in ("[S0]", "[1]", "[1.5]", "[2]", "[3]", "[7A]", "[7B]", "[7B2]", "[7C]",
                  "[5]", "[7D]"):
        assert phase in out


def test_broken_rules_are_a_configuration_error(project, tmp_path, monkeypatch):
    bad = tmp_path / "rules.yaml"
    bad.write_text("always_ask: 5\n")
    monkeypatch.setenv("GATEWAY_USER_RULES", str(bad))
    result = CliRunner().invoke(cli, ["check", "--project", project, "ls"])
    assert result.exit_code == 3
    assert f"{bad}:1: always_ask: Input should be a valid list" in result.output


def test_batch_plain_and_json_lines(run, project):
    lines = ["git status", json.dumps({"command": "cat ../README.md", "cwd": f"{project}/src"}),
             "rm -rf /", "", json.dumps({"command": "ls", "tool_name": "Write"})]
    result = run("--batch", "-", input="\n".join(lines) + "\n")
    assert result.exit_code == 0
    out = [json.loads(line) for line in result.output.splitlines()]
    assert [(o["decision"], o["code"]) for o in out] == [
        ("allow", "GW700"), ("allow", "GW700"), ("deny", "GW750"), ("ask", "GW103")]


def test_batch_ten_thousand_lines(run):
    cmds = ["git status", "ls -la src", "cat .env", "git push", "python3 scripts/foo.py"]
    text = "\n".join(cmds[i % 5] for i in range(10_000)) + "\n"
    result = run("--batch", "-", input=text)
    out = result.output.splitlines()
    assert len(out) == 10_000
    # the sample project has no repository: its scripts are not code a human has seen (GW782)
    assert [(json.loads(out[i])["decision"], json.loads(out[i])["code"]) for i in range(5)] == [
        ("allow", "GW700"), ("allow", "GW700"), ("ask", "GW503"), ("ask", "GW707"),
        ("ask", "GW782")]


def test_check_and_hook_agree_on_every_case_table(gateway_exe, project, tmp_path):
    """Every command of tests/data/cases through `gateway check --batch` (one process) and
    through the in-process validator gives the same decision and code."""
    from helpers import DATA, decode

    from gateway.runtime import get_policy
    from gateway.settings import SettingsRules
    from gateway.validator.pipeline import validate

    cases = []
    for name in sorted(os.listdir(os.path.join(DATA, "cases"))):
        with open(os.path.join(DATA, "cases", name), encoding="utf-8") as fh:
            for line in fh:
                if line.strip() and not line.startswith("#"):
                    parts = line.rstrip("\n").split("\t")
                    if len(parts) < 4 or not parts[3]:
                        cases.append(decode(parts[0]).replace("{PROJECT}", project))
    batch = "\n".join(json.dumps({"command": c}) for c in cases) + "\n"
    env = dict(os.environ, GATEWAY_AUDIT_LOG="off")
    proc = subprocess.run([gateway_exe, "check", "--batch", "-", "--project", project,
                           "--cwd", project, "--no-settings"], input=batch.encode(),
                          capture_output=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    got = [json.loads(line) for line in proc.stdout.decode().split("\n") if line]
    policy = get_policy(project)
    assert len(got) == len(cases)
    for command, out in zip(cases, got, strict=True):
        # as the CLI and the hooks do (gateway.runtime): $HOME names what `~/...` is
        v = validate(command, project, project, policy, "Bash", SettingsRules(),
                     home=os.environ.get("HOME"))
        assert (out["decision"], out["code"]) == (str(v.decision), v.code), command


@pytest.fixture()
def gateway_exe():
    exe = os.path.join(os.path.dirname(sys.executable), "gateway")
    assert os.path.exists(exe), "install the package first (pip install '.[dev]')"
    return exe


def test_missing_directories_are_usage_errors(project, tmp_path):
    gone = tmp_path / "no-such-dir"
    for opt in ("--cwd", "--project"):
        r = CliRunner().invoke(cli, ["check", opt, str(gone), "ls"])
        assert r.exit_code == 2
        assert r.output.endswith(f"Error: Invalid value for '{opt}': Directory '{gone}' does "
                                 "not exist.\n")


def test_other_tools_need_input_json(project):
    for args in (["--tool", "Write", "src/a.py"], ["--tool", "Write"]):
        r = CliRunner().invoke(cli, ["check", "--project", project, *args])
        assert r.exit_code == 2
        assert r.output.endswith(
            "Error: --tool Write is judged by the PreToolUse guards, which take the tool_input "
            "as --input JSON, e.g. --tool Write --input '{\"file_path\": \"src/a.py\"}' (only "
            "Bash commands go through the validator)\n")


def test_unreadable_settings_say_how_to_go_on(project):
    settings = os.path.join(project, ".claude", "settings.json")
    os.makedirs(os.path.dirname(settings), exist_ok=True)
    with open(settings, "w") as fh:
        fh.write('{"permissions": ')
    try:
        r = CliRunner().invoke(cli, ["check", "--project", project, "--cwd", project, "ls"])
        assert r.exit_code == 3
        assert r.output.splitlines()[-1] == (
            "Fix that file (Claude Code ignores an invalid settings file too), or pass "
            "--no-settings to judge without its permissions rules.")
        r = CliRunner().invoke(cli, ["check", "--project", project, "--cwd", project,
                                     "--no-settings", "ls"])
        assert r.exit_code == 0
    finally:
        os.remove(settings)


def test_default_project_is_not_the_home_directory(tmp_path, monkeypatch):
    """~/.claude is Claude Code's user configuration, not a project marker: from a repository
    without .claude/ yet, `gateway check` judges for the repository, as `gateway install`
    and the hooks (CLAUDE_PROJECT_DIR) do, so `..` out of it is outside."""
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / "secret.txt").write_text("x")
    repo = home / "src" / "app"
    (repo / ".git").mkdir(parents=True)
    (repo / "src").mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    monkeypatch.chdir(repo / "src")
    r = CliRunner().invoke(cli, ["check", "--no-settings", "--json", "cat ../../../secret.txt"])
    got = json.loads(r.output)
    assert (r.exit_code, got["decision"], got["code"]) == (10, "ask", "GW501")
    r = CliRunner().invoke(cli, ["check", "--no-settings", "--json", "cat ../README.md"])
    assert json.loads(r.output)["code"] == "GW700"


def test_batch_line_cwd_must_be_a_directory_and_is_relative_to_cwd(project, tmp_path):
    lines = [json.dumps({"command": "ls", "cwd": str(tmp_path / "gone")}),
             json.dumps({"command": "cat ../README.md", "cwd": "src"}), "ls"]
    r = CliRunner().invoke(cli, ["check", "--project", project, "--cwd", project,
                                 "--no-settings", "--batch", "-"], input="\n".join(lines))
    out = [json.loads(line) for line in r.output.splitlines()]
    assert r.exit_code == 0
    assert [(o["decision"], o["code"], o["message"]) for o in out][0] == (
        "ask", "GW904", f"the line's cwd is not a directory here: '{tmp_path / 'gone'}'")
    assert [(o["decision"], o["code"]) for o in out][1:] == [("allow", "GW700"),
                                                              ("allow", "GW700")]


@pytest.mark.parametrize("mode", ["acceptedits", "bogus", "Plan", ""])
def test_an_unknown_permission_mode_is_an_error(mode):
    # issue 25: `--permission-mode acceptedits` was silently judged as default
    r = CliRunner().invoke(cli, ["check", "--permission-mode", mode, "ls"])
    assert r.exit_code == 2, r.output
    assert "'acceptEdits'" in r.output and "is not one of" in r.output
    r = CliRunner().invoke(cli, ["check", "--permission-mode", "acceptEdits", "ls"])
    assert r.exit_code == 0, r.output
