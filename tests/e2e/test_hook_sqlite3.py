"""The sqlite3 shell's read-only queries through the installed hook commands (issue 25): raw
JSON on stdin of `gateway hook pre-tool-use` and `gateway hook permission-request`, exact
decision and code; every allowed form is then run by the real sqlite3 shell (where it is
installed) and seen to change nothing: the database's bytes and the project's files are
the same after it."""

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SESSION = "3b9e1c70-44d2-4f8e-a6b1-90c2d7e5f318"


def _project(root):
    os.makedirs(root)
    con = sqlite3.connect(os.path.join(root, "db.sqlite3"))
    con.executescript("""
        create table orders_order(id integer primary key, status text, total real);
        insert into orders_order(status, total) values ('paid', 10.5), ('draft', 3);
        create view paid as select id, total from orders_order where status = 'paid';
    """)
    con.commit()
    con.close()
    with open(os.path.join(root, ".env"), "w") as fh:
        fh.write("API_KEY=sk-live-51Hk2pL0aD9x8QmZ7vT3nR6yW1cB4eF0\n")
    for args in (["init", "-q"], ["add", "db.sqlite3"], ["commit", "-qm", "init"]):
        subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", *args], cwd=root,
                       check=True, capture_output=True)
    return root


@pytest.fixture(scope="module")
def proj(tmp_path_factory):
    return _project(str(tmp_path_factory.mktemp("sqlite") / "p"))


def _call(run_hook, event, command, cwd, mode="default"):
    data = {"session_id": SESSION, "transcript_path": "/tmp/t.jsonl", "cwd": cwd,
            "permission_mode": mode, "hook_event_name": event, "tool_name": "Bash",
            "tool_input": {"command": command}}
    if event == "PreToolUse":
        data["tool_use_id"] = "toolu_1"
    name = "pre-tool-use" if event == "PreToolUse" else "permission-request"
    proc = run_hook(name, json.dumps(data).encode())
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout.decode()
    if not text.strip():
        return None, None
    out = json.loads(text)["hookSpecificOutput"]
    if event == "PreToolUse":
        decision, reason = out["permissionDecision"], out["permissionDecisionReason"]
    else:
        decision, reason = out["decision"]["behavior"], out["decision"].get("message", "")
    return decision, (reason.split(":", 1)[0].replace("gateway ", "") if reason else None)


def _audit_code(hook_env):
    with open(hook_env["GATEWAY_AUDIT_LOG"], encoding="utf-8") as fh:
        last = json.loads(fh.read().splitlines()[-1])
    return last["decision"], last["code"]


def _snapshot(root):
    out = {}
    for d, _, files in os.walk(root):
        if "/.git" in d + "/":
            continue
        for f in files:
            with open(os.path.join(d, f), "rb") as fh:
                out[os.path.relpath(os.path.join(d, f), root)] = hashlib.sha256(
                    fh.read()).hexdigest()
    return out


READS = [
    'sqlite3 db.sqlite3 ".tables"',
    'sqlite3 db.sqlite3 "SELECT id, status, total FROM orders_order ORDER BY id DESC LIMIT 5;"',
    "sqlite3 -header -column db.sqlite3 'select status, count(*), sum(total) from "
    "orders_order group by status'",
    "sqlite3 db.sqlite3 '.schema orders_order'",
    "sqlite3 db.sqlite3 'select * from paid'",
    "sqlite3 -json db.sqlite3 \"select upper(status), printf('%.2f', total) from orders_order\"",
    "sqlite3 db.sqlite3 '.headers on' 'select * from orders_order limit 1'",
]


@pytest.mark.parametrize("command", READS)
def test_read_only_queries_run_and_change_nothing(run_hook, proj, command):
    for mode in ("default", "plan"):
        assert _call(run_hook, "PreToolUse", command, proj, mode) == ("allow", "GW700")
        assert _call(run_hook, "PermissionRequest", command, proj, mode) == ("allow", None)
    if shutil.which("sqlite3") is None:
        return  # the effect is proven where the shell is installed (CI installs it)
    before = _snapshot(proj)
    proc = subprocess.run(["bash", "-c", command], cwd=proj, capture_output=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert _snapshot(proj) == before


ASKED = [
    # (command, validator code): the shell's own functions, writes, other files, stdin
    ("sqlite3 db.sqlite3 \"select readfile('.env')\"", "GW710"),
    ("sqlite3 db.sqlite3 \"select writefile('x.py', 'print(1)')\"", "GW710"),
    ("sqlite3 db.sqlite3 \"select edit('x')\"", "GW710"),
    ("sqlite3 db.sqlite3 \"select load_extension('./evil')\"", "GW710"),
    ("sqlite3 db.sqlite3 \"DELETE FROM orders_order WHERE status = 'draft';\"", "GW710"),
    ("sqlite3 db.sqlite3 'update orders_order set total = 0'", "GW710"),
    ("sqlite3 db.sqlite3 'drop view paid'", "GW710"),
    ("sqlite3 db.sqlite3 \"attach '/tmp/x.db' as x\"", "GW710"),
    ("sqlite3 db.sqlite3 'pragma journal_mode=wal'", "GW710"),
    ("sqlite3 db.sqlite3 'select 1; delete from orders_order'", "GW710"),
    ("sqlite3 db.sqlite3 \"select * from fsdir('/')\"", "GW710"),
    ("sqlite3 db.sqlite3 'vacuum into \"/tmp/copy.db\"'", "GW710"),  # no authorizer call
    ("sqlite3 db.sqlite3 \"vacuum into (select '/tmp/copy.db')\"", "GW710"),
    ("sqlite3 db.sqlite3 'reindex'", "GW710"),
    ("sqlite3 db.sqlite3 'analyze'", "GW710"),
    ("sqlite3 db.sqlite3 '.shell id'", "GW710"),
    ("sqlite3 db.sqlite3 '.output /tmp/x'", "GW710"),
    ("sqlite3 db.sqlite3 '.read evil.sql'", "GW710"),
    ("sqlite3 db.sqlite3 '.tables\n.shell id'", "GW710"),
    ("sqlite3 db.sqlite3 '.import data.csv t'", "GW710"),
    ("sqlite3 -cmd '.shell id' db.sqlite3 'select 1'", "GW704"),
    ("sqlite3 -init evil.sql db.sqlite3 'select 1'", "GW704"),
    ("sqlite3 db.sqlite3", "GW712"),
    ("sqlite3 new.db 'select 1'", "GW712"),
    ("sqlite3 'file:db.sqlite3?mode=rw' 'select 1'", "GW712"),
    ("sqlite3 /tmp/x.db 'select 1'", "GW501"),
]


@pytest.mark.parametrize("command,code", ASKED)
def test_everything_else_asks(run_hook, hook_env, proj, command, code):
    assert _call(run_hook, "PermissionRequest", command, proj) == (None, None)
    assert _audit_code(hook_env) == ("ask", code)


def test_an_asked_query_does_what_the_ask_says(proj, tmp_path):
    """The reasons above, by their effect in the real shell: readfile prints a file, a
    missing database is created, -cmd runs a program."""
    if shutil.which("sqlite3") is None:
        pytest.skip("the sqlite3 shell is not installed")
    out = subprocess.run(["sqlite3", "db.sqlite3", "select readfile('.env')"], cwd=proj,
                         capture_output=True, text=True, timeout=30).stdout
    assert "sk-live-" in out
    subprocess.run(["sqlite3", str(tmp_path / "new.db"), "select 1"], capture_output=True,
                   timeout=30)
    assert (tmp_path / "new.db").exists()
    out = subprocess.run(["sqlite3", "-cmd", ".shell echo ran-a-program", "db.sqlite3",
                          "select 1"], cwd=proj, capture_output=True, text=True,
                         timeout=30).stdout
    assert "ran-a-program" in out


_NAMES = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=3, max_size=12)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=_NAMES, args=st.sampled_from(["", "'.env'", "1", "status"]))
def test_only_the_core_pure_functions_are_reads(proj, judge_in, name, args):
    """A function the list does not name asks, whatever it is called."""
    from gateway.validator.checks.sqlite import _FUNCTIONS

    verdict = judge_in(proj, f"sqlite3 db.sqlite3 \"select {name}({args}) from orders_order\"")
    if name.lower() in _FUNCTIONS:
        return
    assert (verdict.decision.name, verdict.code) == ("ASK", "GW710"), verdict.message


@pytest.fixture
def judge_in():
    from gateway.runtime import get_policy
    from gateway.settings import SettingsRules
    from gateway.validator.pipeline import validate

    def _judge(project, command):
        return validate(command, project, project, get_policy(project), "Bash",
                        SettingsRules(), None)

    return _judge
