"""The SQLite workflow store under many processes at once (issue 29): no call answers
"locked", nothing acknowledged is lost, the database stays whole; and a wait that runs out is
a refusal that says what happened.

Each writer process opens the store the way the hooks and `gateway spec` do
(``workflow.open_store``) and makes every kind of write (``save``, ``mark_started``,
``record_done_due``, ``clear_done_due``, ``record_checked``) while reader processes read
(``all``, ``restore``) the whole time: 200 processes at once found 14-21 calls per round
answering ``database is locked`` before; the suite runs 40 (``GATEWAY_RELIABILITY=long``:
200) and requires none.
"""

import json
import os
import shutil
import sqlite3
import subprocess
import sys

import pytest

from gateway.orchestration import workflow

from . import harness

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SPEC = os.path.join(ROOT, "tests", "orchestration", "data", "seed002-spec.md")
SPEC_ID = "ed37057f-b8e2-499d-b564-505254a0c509"

WRITER = r"""
import json, sys
from gateway.orchestration import workflow
from gateway.state import store
proj, me, rnd = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
out = {"ok": 0, "locked": [], "other": []}
spec = f"spec-{me}-{rnd}"
steps = [lambda st: st.save(spec_id=spec, spec_path=f"specs/{spec}.md", task_number=1,
                            task_title="t", next_action="task_start", issue=me,
                            session_id=f"s{me}"),
         lambda st: st.mark_started(spec, 1),
         lambda st: st.record_done_due(spec, 1, me, "t"),
         lambda st: st.record_done_due("shared", 1, me)]       # a row every writer updates
try:
    with workflow.open_store(proj) as st:
        for step in steps[:int(sys.argv[4]) if len(sys.argv) > 4 else 4]:
            step(st)
            out["ok"] += 1
except store.StateLocked as e:
    out["locked"].append(str(e)[:1000])
except Exception as e:
    out["other"].append(f"{type(e).__name__}: {str(e)[:1000]}")
print(json.dumps(out), flush=True)
"""

READER = r"""
import json, sys
from gateway.orchestration import workflow
from gateway.state import store
proj, rounds = sys.argv[1], int(sys.argv[2])
out = {"ok": 0, "locked": [], "other": []}
for r in range(rounds):
    try:
        with workflow.open_store(proj) as st:
            st.all()
            st.latest()
        workflow.restore(proj)
        out["ok"] += 1
    except store.StateLocked as e:
        out["locked"].append(str(e)[:1000])
    except Exception as e:
        out["other"].append(f"{type(e).__name__}: {str(e)[:300]}")
print(json.dumps(out), flush=True)
"""


@pytest.fixture()
def proj(tmp_path):
    p = tmp_path / "proj"
    (p / ".claude" / "state").mkdir(parents=True)
    (p / ".cc-craft-kit" / "specs").mkdir(parents=True)
    shutil.copy(SPEC, p / ".cc-craft-kit" / "specs" / f"{SPEC_ID}.md")
    with workflow.open_store(p) as st:
        st.save(spec_id="shared", spec_path="specs/shared.md", task_number=1, task_title="t",
                next_action="task_start", issue=None)
    return str(p)


def _start(code, *args):
    return subprocess.Popen([sys.executable, "-c", code, *map(str, args)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": ROOT}, cwd="/")


def test_concurrent_writers_and_readers_never_answer_locked(proj):
    writers = harness.scale(40, 200)
    readers = harness.scale(10, 40)
    rounds = harness.scale(2, 3)
    fig = harness.Figures(f"SQLite workflow store: {rounds} rounds of {writers} writer "
                          f"processes (4 transactions each) and {readers} readers at once")
    results = []
    for rnd in range(rounds):
        procs = [("w", _start(WRITER, proj, i, rnd)) for i in range(writers)]
        procs += [("r", _start(READER, proj, 3)) for _ in range(readers)]
        for kind, p in procs:
            out, err = p.communicate(timeout=600)
            assert p.returncode == 0, err[-800:]
            results.append((kind, json.loads(out)))
        fig.processes += len(procs)
    locked = [x for _, r in results for x in r["locked"]]
    other = [x for _, r in results for x in r["other"]]
    fig.busy = len(locked)
    fig.wrong = len(other)
    fig.notes.append(f"write transactions {sum(r['ok'] for k, r in results if k == 'w')} of "
                     f"{writers * rounds * 4}, reads {sum(r['ok'] for k, r in results if k == 'r')}"
                     f" of {readers * rounds * 3}; locked {len(locked)}; other errors "
                     f"{len(other)}")
    assert locked == [] and other == [], (locked[:3], other[:3])
    # nothing acknowledged is lost, the database is whole
    db = sqlite3.connect(workflow.db_path(proj))
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    db.close()
    with workflow.open_store(proj) as st:
        rows = {r.spec_id: r for r in st.all()}
    for i in range(writers):
        for r in range(rounds):
            row = rows[f"spec-{i}-{r}"]
            assert row.next_action == "task_done" and row.done_due == [
                {"task": 1, "issue": i, "title": "t"}], row.as_dict()
    # the shared row: each writer replaced the due step of task 1 (the last one stays)
    assert len(rows["shared"].done_due) == 1
    assert not [n for n in os.listdir(os.path.join(proj, ".claude", "state"))
                if n.endswith("-journal") or ".tmp-" in n]


def test_a_database_held_by_another_program_is_waited_for_then_refused_with_why(proj):
    """A program that is not the gateway (an sqlite3 shell in a transaction) keeps the
    database locked: a write waits the bound (here GATEWAY_LOCK_WAIT=1) and is refused with
    what happened and what to do, never with a bare "database is locked"."""
    db = sqlite3.connect(workflow.db_path(proj), isolation_level=None)
    db.execute("BEGIN EXCLUSIVE")
    try:
        p = subprocess.run([sys.executable, "-c", WRITER, proj, "0", "9"], capture_output=True,
                           text=True, env={**os.environ, "PYTHONPATH": ROOT,
                                           "GATEWAY_LOCK_WAIT": "1"}, timeout=120)
    finally:
        db.execute("ROLLBACK")
        db.close()
    out = json.loads(p.stdout)
    assert out["ok"] == 0 and out["other"] == [], out
    (msg,) = out["locked"]
    assert msg.startswith(f"state file {workflow.db_path(proj)}: stayed busy for "), msg
    assert "(the bound is 1s): another process holds the database (database is locked)" in msg
    assert msg.endswith("To repair: wait and retry; if a process that is not the gateway keeps "
                        "the database open (an sqlite3 shell, a backup tool), close it")
    # and then it goes through
    p = subprocess.run([sys.executable, "-c", WRITER, proj, "0", "9"], capture_output=True,
                       text=True, env={**os.environ, "PYTHONPATH": ROOT}, timeout=120)
    assert json.loads(p.stdout)["ok"] == 4


def test_a_reader_is_never_blocked_by_a_writer(proj):
    """The database is in write-ahead-log mode: a reader is not blocked by a write in
    progress, however long it takes (here another program holds the write lock with an
    uncommitted change), and reads the last committed state; it never waits and is never told
    "locked" or "corrupt" (a busy read used to be reported as a corrupt database)."""
    db = sqlite3.connect(workflow.db_path(proj), isolation_level=None)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.execute("BEGIN IMMEDIATE")
    db.execute("DELETE FROM workflow_state")
    try:
        p = subprocess.run([sys.executable, "-c", READER, proj, "3"], capture_output=True,
                           text=True, env={**os.environ, "PYTHONPATH": ROOT,
                                           "GATEWAY_LOCK_WAIT": "1"}, timeout=120)
        with workflow.open_store(proj) as st:
            assert st.get("shared") is not None      # the committed row, not the delete
    finally:
        db.execute("ROLLBACK")
        db.close()
    assert json.loads(p.stdout) == {"ok": 3, "locked": [], "other": []}


def test_an_older_database_is_moved_to_write_ahead_logging_and_keeps_its_rows(tmp_path):
    path = tmp_path / ".claude" / "state" / workflow.DB_NAME
    path.parent.mkdir(parents=True)
    with workflow.WorkflowStore(str(path)) as st:
        st.save(spec_id="x", spec_path="specs/x.md", task_number=2, task_title="t",
                next_action="task_done", issue=7)
    db = sqlite3.connect(path, isolation_level=None)
    assert db.execute("PRAGMA journal_mode = DELETE").fetchone()[0] == "delete"
    db.close()
    with workflow.WorkflowStore(str(path)) as st:
        assert st.get("x").current_task_number == 2
    db = sqlite3.connect(path, isolation_level=None)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.close()
    assert sorted(os.listdir(path.parent)) == [".gateway-workflow.sqlite3.lock", workflow.DB_NAME]
