"""gateway doctor: registered or not, the command runs and answers, the rules load."""

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from gateway.cli.app import cli
from gateway.install import doctor, ops

GW = str(Path(sys.executable).parent / "gateway")
pytestmark = pytest.mark.skipif(not Path(GW).exists(),
                                reason=f"no gateway console script at {GW} (pip install -e .)")


@pytest.fixture()
def project(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "userclaude"))
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    p = tmp_path / "proj"
    (p / ".claude").mkdir(parents=True)
    return p


def statuses(checks):
    return [(c.status, c.title) for c in checks]


def find(checks, status, words):
    return [c for c in checks if c.status == status and words in c.title]


def test_not_installed_is_a_problem_with_a_fix(project):
    checks = doctor.run(str(project), claude="/nonexistent/claude")
    bad = find(checks, "fail", "PermissionRequest (permission-request) is not registered")
    assert bad and bad[0].fix == "gateway install"


def test_installed_hook_is_run_and_answers(project):
    ops.install("project", str(project), gateway_path=GW)
    checks = doctor.run(str(project), claude="/nonexistent/claude")
    assert not [c for c in checks if c.status == "fail"], statuses(checks)
    assert find(checks, "ok", "PermissionRequest hook runs: allow for `git status`")
    assert find(checks, "ok", "rules load")


@pytest.mark.parametrize("kind", ["fifo", "dir"])
def test_a_settings_path_that_is_no_regular_file_is_reported_not_hung_on(project, kind):
    """Reproducer (found by the reliability pass): a FIFO at .claude/settings.local.json hung
    `gateway doctor` in open()."""
    import os

    path = project / ".claude" / "settings.local.json"
    os.mkfifo(path) if kind == "fifo" else path.mkdir()
    checks = doctor.run(str(project), probe=False, claude="/nonexistent/claude")
    bad = find(checks, "fail", "local settings file cannot be used")
    what = "is a FIFO (named pipe)" if kind == "fifo" else "is a directory"
    assert bad and what in bad[0].title and "not a regular file" in bad[0].title, \
        statuses(checks)


def test_missing_program_fails(project, tmp_path):
    gone = tmp_path / "old" / "gateway"
    gone.parent.mkdir()
    gone.write_text("#!/bin/sh\n")
    gone.chmod(0o755)
    ops.install("project", str(project), gateway_path=str(gone))
    gone.unlink()
    checks = doctor.run(str(project))
    assert find(checks, "fail", "does not exist or is not executable")


def test_broken_hook_output_fails(project, tmp_path):
    liar = tmp_path / "bin" / "gateway"
    liar.parent.mkdir()
    liar.write_text("#!/bin/sh\necho hello from bashrc\n")
    liar.chmod(0o755)
    ops.install("project", str(project), gateway_path=str(liar))
    assert find(doctor.run(str(project)), "fail", "not JSON")


def test_warnings_stale_matcher_duplicate_and_disable_all(project):
    settings = project / ".claude" / "settings.json"
    settings.write_text(json.dumps({"disableAllHooks": True, "hooks": {"PermissionRequest": [
        {"matcher": "Bash|Write", "hooks": [{"type": "command",
                                             "command": f"{GW} hook permission-request"}]},
        {"matcher": "Bash", "hooks": [{"type": "command", "command": f"{GW} hook gone"}]}]}}))
    local = project / ".claude" / "settings.local.json"
    ops.install("local", str(project), gateway_path=GW)
    local.write_text(local.read_text().replace('"timeout": 30', '"timeout": 31'))
    checks = doctor.run(str(project), probe=False)
    assert find(checks, "fail", "disableAllHooks")
    assert find(checks, "warn", "has matcher 'Bash|Write'")
    assert find(checks, "warn", "registers `gone`")
    assert find(checks, "warn", "registered 2 times")


def test_broken_rules_and_settings_fail(project):
    (project / ".claude" / "gateway.yaml").write_text("catalogue: {rm: {}}\n")
    (project / ".claude" / "settings.local.json").write_text("{oops")
    checks = doctor.run(str(project), probe=False)
    assert find(checks, "fail", "the rules cannot be loaded")
    local = project / ".claude" / "settings.local.json"
    titles = [(c.status, c.title, c.fix) for c in checks if c.status == "fail"]
    assert (
        "fail", f"local settings file cannot be used: {local}:1:2: invalid JSON: Expecting "
        "property name enclosed in double quotes. Claude Code ignores it, and the gateway asks "
        "for every command (GW903) because it cannot honour its permission rules",
        f"fix {local} (or move it away), then run gateway doctor again") in titles
    # the unreadable file is reported once, and install is not proposed before it is fixed
    assert not [t for t in titles if "GW903" in t[1] and t[1].startswith("a settings file")]
    assert ("fail", "PreToolUse (pre-tool-use) is not registered in any settings file that can "
            "be used", f"fix {local} first; if it does not register the gateway either, then "
            "gateway install") in titles
    assert not [t for t in titles if "nothing was changed" in t[1]]


def test_claude_version_reporting(tmp_path):
    fake = tmp_path / "claude"
    fake.write_text("#!/bin/sh\necho '2.1.330 (Claude Code)'\n")
    fake.chmod(0o755)
    assert doctor.claude_version(str(fake))[1] == "2.1.330"
    assert doctor._claude_version(str(fake), {}).status == "ok"
    fake.write_text("#!/bin/sh\necho '2.2.0 (Claude Code)'\n")
    check = doctor._claude_version(str(fake), {})
    assert check.status == "warn" and "2.1.330" in check.title


def test_cli_exit_codes_and_json(project, monkeypatch):
    monkeypatch.chdir(project)
    runner = CliRunner()
    r = runner.invoke(cli, ["doctor", "--no-probe", "--claude", "/nonexistent"])
    assert r.exit_code == 1 and "FAIL" in r.output and "fix: gateway install" in r.output
    ops.install("project", str(project), gateway_path=GW)
    r = runner.invoke(cli, ["doctor", "--json", "--claude", "/nonexistent"])
    assert r.exit_code == 0, r.output
    assert all(c["status"] != "fail" for c in json.loads(r.output))


# --- the lean launch line (what `gateway install` registers by default) --------------------


def test_lean_install_is_checked_by_starting_it(project):
    ops.install("project", str(project))
    checks = doctor.run(str(project), claude="/nonexistent/claude")
    assert not [c for c in checks if c.status == "fail"], statuses(checks)
    assert find(checks, "ok", "PermissionRequest hook runs: allow for `git status`")
    registered = find(checks, "ok", "PermissionRequest registered in project")
    assert registered and " -I -S -c <gateway from " in registered[0].title
    assert find(doctor.run(str(project), probe=False), "ok",
                "exists and so do the gateway's directories")


def _write_handler(project, command):
    settings = project / ".claude" / "settings.json"
    settings.write_text(json.dumps({"hooks": {"PermissionRequest": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}]}}))


def test_lean_line_whose_venv_is_gone_fails(project, tmp_path):
    from gateway import launch
    from gateway.install import entries

    gone = tmp_path / "old-venv" / "lib" / "python3.11" / "site-packages"
    _write_handler(project, entries.command_string(
        launch.prefix(sys.executable, [str(gone)]), "permission-request"))
    for probe in (True, False):
        bad = find(doctor.run(str(project), probe=probe), "fail", f"from {gone}, which is gone")
        assert bad and "gateway install --scope project" in bad[0].fix
    _write_handler(project, entries.command_string(
        launch.prefix(str(tmp_path / "old-venv" / "bin" / "python"), [str(gone)]),
        "permission-request"))
    bad = find(doctor.run(str(project), probe=False), "fail", "does not exist")
    assert bad and "the Python of the lean launch line" in bad[0].title


def test_command_that_does_not_start_fails(project, tmp_path):
    crash = tmp_path / "bin" / "gateway"
    crash.parent.mkdir()
    crash.write_text("#!/bin/sh\ncat >/dev/null\necho 'Traceback: ImportError' >&2\nexit 1\n")
    crash.chmod(0o755)
    ops.install("project", str(project), gateway_path=str(crash))
    bad = find(doctor.run(str(project)), "fail", "does not start")
    assert bad and "exit 1: Traceback: ImportError" in bad[0].title


def test_a_gone_environment_is_one_finding_not_one_per_hook(project, tmp_path):
    """Issue 25: with the hooks' virtual environment gone, doctor printed the same FAIL
    line for each of the eight hooks. It says it once, with the hooks it concerns."""
    from gateway import launch
    from gateway.hooks import runner
    from gateway.install import entries

    gone = tmp_path / "old-venv" / "lib" / "python3.11" / "site-packages"
    prefix = launch.prefix(sys.executable, [str(gone)])
    hooks = {}
    for name in runner.events():
        event = "".join(w.capitalize() for w in name.split("-"))
        hooks.setdefault(event, []).append(
            {"hooks": [{"type": "command", "command": entries.command_string(prefix, name)}]})
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    checks = doctor.run(str(project), probe=False)
    bad = find(checks, "fail", "which is gone")
    assert len(bad) == 1, statuses(checks)
    assert f"[the same for {len(runner.events())} hooks: " in bad[0].title
    out = CliRunner().invoke(cli, ["doctor", "--project", str(project), "--no-probe"]).output
    assert out.count("which is gone") == 1, out


def test_http_install_says_which_events_are_http_and_whether_serve_answers(project):
    """`install --http`: doctor lists the http events, and probes `gateway serve` with the
    handler's own URL and token. Down: the guards' line fails (every call blocked), the
    dialog's warns. Up: each event answers, PreToolUse with its decision."""
    import socket

    from gateway import server as srv

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    ops.install("local", str(project), http=True, port=port, gateway_path=GW)
    checks = doctor.run(str(project), claude="/nonexistent/claude")
    kinds = [c for c in checks if c.title.startswith("http handlers (answered by")]
    assert kinds and "PreToolUse" in kinds[0].title and "PermissionRequest" in kinds[0].title
    assert "command handlers" not in kinds[0].title
    assert find(checks, "ok", "PreToolUse registered in local")
    assert find(checks, "ok", "(http, answered by `gateway serve`)")
    down = find(checks, "fail", "PreToolUse over http")
    assert down and "every call is blocked" in down[0].title
    assert down[0].fix.startswith("start `gateway serve`")
    assert find(checks, "warn", "PermissionRequest over http") and \
        "dialog" in find(checks, "warn", "PermissionRequest over http")[0].title

    httpd = srv.make_server(port=port)
    srv.serve_in_thread(httpd)
    try:
        checks = doctor.run(str(project), claude="/nonexistent/claude")
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert find(checks, "ok", "PreToolUse over http: `gateway serve` answers (allow for "
                              "`git status`)"), statuses(checks)
    assert find(checks, "ok", "PermissionRequest over http: `gateway serve` answers (allow")
    assert not [c for c in checks if c.status == "fail" and "http" in c.title], \
        statuses(checks)


def test_an_http_guard_without_on_failure_block_fails(project):
    from gateway import server as srv

    hooks = srv.http_hook_entries(port=9, project=str(project))
    del hooks["PreToolUse"][0]["hooks"][0]["onFailure"]
    (project / ".claude" / "settings.local.json").write_text(json.dumps({"hooks": hooks}))
    checks = doctor.run(str(project), probe=False, claude="/nonexistent/claude")
    bad = find(checks, "fail", "is an http handler without \"onFailure\": \"block\"")
    assert bad and "unguarded" in bad[0].title


def test_http_hooks_the_sandbox_proxy_would_refuse_fail(project):
    """With the sandbox on, Claude Code sends http hooks through its proxy (403 for a host
    the sandbox does not allow): doctor fails until the server's port is allowed."""
    from gateway import server as srv

    hooks = srv.http_hook_entries(port=9931, project=str(project))
    local = project / ".claude" / "settings.local.json"
    local.write_text(json.dumps({"hooks": hooks, "sandbox": {"enabled": True}}))
    checks = doctor.run(str(project), probe=False, claude="/nonexistent/claude")
    bad = find(checks, "fail", "the sandbox is on and does not allow 127.0.0.1:9931")
    assert len(bad) == 1 and "every call is blocked" in bad[0].title, statuses(checks)
    assert "PreToolUse" in bad[0].title and "SessionStart" in bad[0].title
    local.write_text(json.dumps({"hooks": hooks, "sandbox": {
        "enabled": True, "network": {"allowedDomains": ["127.0.0.1:9931"]}}}))
    checks = doctor.run(str(project), probe=False, claude="/nonexistent/claude")
    assert not find(checks, "fail", "the sandbox is on and does not allow"), statuses(checks)
