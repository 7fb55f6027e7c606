"""gateway log: reading the audit log (rotated files, torn lines), filters, output forms."""

import json
from datetime import UTC, datetime, timedelta

import pytest
from click.testing import CliRunner

from gateway.cli._auditlog import Reading, parse_when, read
from gateway.cli.app import cli

NOW = datetime(2026, 11, 22, 12, 0, 0, tzinfo=UTC)


def entry(i, decision="ask", code="GW703", command="frob x", event="PermissionRequest",
          tool="Bash", when=None, session="s1"):
    when = when or (NOW - timedelta(hours=100 - i))
    return {"time": when.strftime("%Y-%m-%dT%H:%M:%SZ"), "event": event, "session": session,
            "agent": None, "tool": tool, "command": command, "cwd": "/p", "decision": decision,
            "phase": "7A", "code": code, "rule": "", "message": "m", "latency_ms": 1.0}


@pytest.fixture()
def log(tmp_path):
    path = tmp_path / "audit.jsonl"
    rows = [entry(i, decision=("allow", "ask", "deny")[i % 3],
                  code=("GW700", "GW703", "GW750")[i % 3], command=f"cmd {i}")
            for i in range(12)]
    # rotated: .2 is older than .1, which is older than the live file
    (tmp_path / "audit.jsonl.2").write_text("".join(json.dumps(r) + "\n" for r in rows[:4]))
    (tmp_path / "audit.jsonl.1").write_text("".join(json.dumps(r) + "\n" for r in rows[4:8])
                                            + '{"torn": ')
    path.write_text("".join(json.dumps(r) + "\n" for r in rows[8:]) + "[1]\n")
    return path


def test_reads_rotated_files_in_time_order_and_counts_torn_lines(log):
    reading = Reading()
    got = [e["command"] for e in read(str(log), reading)]
    assert got == [f"cmd {i}" for i in range(12)]
    assert reading.skipped == 2 and len(reading.files) == 3


def test_filters(log):
    r = Reading()
    assert [e["command"] for e in read(str(log), r, decisions={"deny"}, codes=["gw750"])] == \
        ["cmd 2", "cmd 5", "cmd 8", "cmd 11"]
    since = NOW - timedelta(hours=100 - 9)
    assert [e["command"] for e in read(str(log), r, since=since)] == ["cmd 9", "cmd 10",
                                                                       "cmd 11"]
    assert [e["command"] for e in read(str(log), r, grep="cmd 1")] == ["cmd 1", "cmd 10",
                                                                      "cmd 11"]


@pytest.mark.parametrize("text,expected", [
    ("2h", NOW - timedelta(hours=2)),
    ("30m", NOW - timedelta(minutes=30)),
    ("7d", NOW - timedelta(days=7)),
    ("1w", NOW - timedelta(weeks=1)),
    ("2026-11-20T10:00:00Z", datetime(2026, 11, 20, 10, tzinfo=UTC)),
    ("2026-11-20T10:00+02:00", datetime(2026, 11, 20, 8, tzinfo=UTC)),
])
def test_parse_when(text, expected):
    assert parse_when(text, NOW) == expected


def test_parse_when_local_forms_and_errors():
    day = parse_when("2026-11-20", NOW)
    assert day == datetime(2026, 11, 20).astimezone().astimezone(UTC)
    assert parse_when("yesterday", NOW) == parse_when("today", NOW) - timedelta(days=1)
    with pytest.raises(ValueError, match="30m, 2h"):
        parse_when("last tuesday", NOW)


def invoke(*args, env=None):
    return CliRunner().invoke(cli, ["log", *args], env=env)


def test_cli_text_and_json(log):
    r = invoke("--file", str(log), "--decision", "ask")
    assert r.exit_code == 0
    lines = [line for line in r.output.splitlines() if "cmd" in line]
    assert len(lines) == 4 and all(" ask " in line and "GW703" in line for line in lines)
    assert "skipped 2 line(s)" in r.output
    r = invoke("--file", str(log), "--json", "-n", "2")
    rows = [json.loads(line) for line in r.output.splitlines() if line.startswith("{")]
    assert [x["command"] for x in rows] == ["cmd 10", "cmd 11"]
    r = invoke("--file", str(log), "-v", "--code", "GW750", "-n", "1")
    assert "message: m" in r.output and "cwd: /p" in r.output


def test_cli_multi_line_commands_stay_on_one_line(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text(json.dumps(entry(1, command="git commit -m 'a\nb'")) + "\n")
    r = invoke("--file", str(path))
    assert "git commit -m 'a⏎b'" in r.output


def test_cli_errors(tmp_path):
    r = invoke("--since", "whenever")
    assert r.exit_code == 2 and "30m, 2h" in r.output
    r = invoke(env={"GATEWAY_AUDIT_LOG": "off"})
    assert r.exit_code == 3 and "audit log is off" in r.output
    r = invoke("--file", str(tmp_path / "none.jsonl"), env={"GATEWAY_AUDIT_LOG": "/l.jsonl"})
    assert (r.exit_code, r.output) == (3, f"gateway: {tmp_path}/none.jsonl: no such file (the "
                                          "audit log is /l.jsonl; --file names another one)\n")
    (tmp_path / "none.jsonl.1").write_text(json.dumps(entry(1)) + "\n")  # only a rotated file
    r = invoke("--file", str(tmp_path / "none.jsonl"))
    assert r.exit_code == 0 and "frob x" in r.output


def test_default_log_not_written_yet_is_not_an_error(tmp_path):
    path = tmp_path / "none.jsonl"
    r = invoke(env={"GATEWAY_AUDIT_LOG": str(path)})
    assert (r.exit_code, r.output) == (0, f"gateway: no audit log yet at {path} (decisions are "
                                          "recorded once the hooks run; `gateway install` "
                                          "registers them)\n")


def test_unknown_code_and_empty_range_are_usage_errors(log):
    r = invoke("--file", str(log), "--code", "GW7O3")
    assert r.exit_code == 2
    assert r.output.endswith("Error: Invalid value for '--code': 'GW7O3' is not a reason code; "
                             "`gateway explain --list` lists them\n")
    r = invoke("--file", str(log), "--code", "gw703", "--json")
    assert r.exit_code == 0 and len([x for x in r.output.splitlines() if "cmd" in x]) == 4
    r = invoke("--file", str(log), "--since", "2026-11-30", "--until", "2026-11-01")
    assert r.exit_code == 2
    assert r.output.endswith("Error: Invalid value for '--since' / '--until': --since is not "
                             "before --until, so nothing can match\n")


def test_skipped_lines_are_located(log):
    r = invoke("--file", str(log), "--json")
    assert r.exit_code == 0
    assert r.output.splitlines()[-1] == (
        f"gateway: skipped 2 line(s) that are not audit entries ({log}.1 line 5, {log} line 5);"
        " a torn last line is harmless, other damage means the file was edited by hand")


def test_reads_what_the_hook_writes(tmp_path, project, monkeypatch):
    """The writer (gateway/audit.py, via the hook runner) and the reader agree."""
    import io

    from gateway.hooks.runner import run

    path = tmp_path / "live.jsonl"
    env = {"GATEWAY_AUDIT_LOG": str(path), "CLAUDE_PROJECT_DIR": project,
           "HOME": str(tmp_path)}
    for command in ("ls", "kill -9 1", "rm -rf /"):
        raw = json.dumps({"session_id": "s9", "tool_name": "Bash", "cwd": project,
                          "tool_input": {"command": command}}).encode()
        run("permission-request", io.BytesIO(raw), io.StringIO(), env)
    r = invoke("--file", str(path), "--json", "--session", "s9")
    got = [(x["command"], x["decision"], x["code"]) for x in map(json.loads,
                                                                  r.output.splitlines())]
    assert got == [("ls", "allow", "GW700"), ("kill -9 1", "ask", "GW701"),
                   ("rm -rf /", "deny", "GW750")]


def test_objects_that_are_not_entries_are_skipped_not_printed_as_blanks(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text('{"ts": 5}\n' + json.dumps(entry(1)) + "\n")
    r = invoke("--file", str(path))
    assert r.exit_code == 0
    assert r.output.splitlines() == [
        "2026-11-18 09:00:00Z  ask    GW703  perm    Bash  frob x",
        f"gateway: skipped 1 line(s) that are not audit entries ({path} line 1); a torn last "
        "line is harmless, other damage means the file was edited by hand"]


def test_each_line_names_its_hook_event(tmp_path):
    # issue 25: one call judged by both hooks printed two lines with different codes and
    # nothing to tell them apart
    path = tmp_path / "a.jsonl"
    rows = [entry(1, command="tox -e py311", event="PreToolUse", code="GW840"),
            entry(2, command="tox -e py311", event="PermissionRequest", code="GW703")]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    lines = invoke("--file", str(path)).output.splitlines()
    assert [(" pre " in x, " perm " in x) for x in lines[:2]] == [(True, False), (False, True)]
    assert "GW840" in lines[0] and "GW703" in lines[1]
    assert "pre: PreToolUse" in invoke("--help").output
