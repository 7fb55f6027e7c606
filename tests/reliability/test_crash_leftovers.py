"""No temp file of a writer killed with SIGKILL survives the next open of its store (issue 29).

Before, after 120 kill -9 trials the orchestrator store held 1,659 temp files: nothing ever
removed them. Now each store removes its own when it is next opened for a write (only its
own, by name and age, under the entity's lock: ``gateway.state.temps``):

* the breezing state (``.claude/state/``): a registering hook killed between its temp file's
  write and its rename; the next hook that writes the state (a TeammateIdle here) removes it;
* the orchestrator store (``agent-coord/``): a worker killed the same way; the next write of
  any ``CoordStore`` removes it;
* the SQLite workflow store: a writer killed in its commit leaves the write-ahead log and its
  index; the next open rolls the log in and, closing, removes both.

Before that next open ``gateway state validate`` reports each leftover with its repair. The
kills are exact where strace is installed (``-e inject=fsync:signal=SIGKILL``: the temp
file is complete, not yet renamed) and random otherwise; the random trials run as many times
as the issue's (``GATEWAY_RELIABILITY=long``: 120).
"""

import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from benchmarks.load import run as load
from gateway.orchestration import coord, workflow
from gateway.state import fast, files

from . import harness

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STRACE = shutil.which("strace")
SID = "planner-7682b3a8-1c2d-4e5f-8a9b-0c1d2e3f4a5b"


def _kill_at_first_fsync(argv, stdin=b"", env=None):
    """Run ``argv`` under strace, SIGKILLed at its first fsync (SQLite: fdatasync)."""
    p = subprocess.run([STRACE, "-f", "-qq", "-o", "/dev/null", "-e", "trace=fsync,fdatasync",
                        "-e", "inject=fsync,fdatasync:signal=SIGKILL:when=1", *argv],
                       input=stdin, env=env, capture_output=True, timeout=120)
    assert p.returncode != 0, p         # killed (strace reports the tracee's signal)
    return p


def _temps(directory):
    return sorted(n for n in os.listdir(directory) if ".tmp-" in n)


def _bad(proj):
    return [(r.file, r.message) for r in files.validate(proj) if not r.ok]


@pytest.fixture()
def session(tmp_path):
    return load.project(str(tmp_path))


needs_strace = pytest.mark.skipif(STRACE is None, reason="strace is not installed: no "
                                  "syscall-exact kills (the random trials below still run)")


@needs_strace
def test_the_breezing_state(session):
    proj, env = session
    state = os.path.join(proj, ".claude", "state")
    p = _kill_at_first_fsync(harness.hook_argv("post-tool-use"),
                             json.dumps(load.payload("register", proj, 1)).encode(), env)
    assert p.stdout == b""                      # killed before it could answer
    (tmp,) = _temps(state)
    assert tmp.startswith(".breezing-session-roles.json.tmp-")
    assert _bad(proj) == [(f".claude/state/{tmp}",
                           f"state file {state}/{tmp}: temp file left by a writer that died. "
                           f"To repair: the gateway's next write to the state directory "
                           f"removes it; `gateway state repair` removes it now (the breezing "
                           f"session continues)")]
    assert "load-1" not in fast.load_session_roles(proj)       # old file, whole
    # the next write of the state -- another hook, another file -- removes it
    idle = harness.burst("teammate-idle", [load.payload("idle", proj, 2)], env)[0]
    assert idle.out == b"" and idle.returncode == 0, idle.out
    assert _temps(state) == [] and _bad(proj) == []


@needs_strace
def test_the_orchestrator_store(tmp_path):
    proj = str(tmp_path)
    cs = coord.CoordStore(proj)
    cs.create_session("x", session_id=SID)
    task = cs.add_task(SID, 1)
    code = ("import sys; from gateway.orchestration import coord; "
            "coord.CoordStore(sys.argv[1]).claim_next_task('doomed')")
    _kill_at_first_fsync([sys.executable, "-c", code, proj],
                         env={**os.environ, "PYTHONPATH": ROOT})
    tasks = os.path.join(proj, "agent-coord", "tasks")
    (tmp,) = _temps(tasks)
    assert tmp.startswith(f".{task.id}.json.tmp-")
    assert cs.get_task(task.id).state == "READY"               # the old file, whole
    path = os.path.join(tasks, tmp)
    assert (f"agent-coord/tasks/{tmp}", f"orchestrator store {path}: temp file left by a "
            f"writer that died. To repair: the next write to the orchestrator store removes "
            f"it; `gateway state repair` removes it now") in _bad(proj)
    # the next open for a write -- another process, another entity -- removes it
    code = ("import sys; from gateway.orchestration import coord; "
            "coord.CoordStore(sys.argv[1]).add_task(sys.argv[2], 2)")
    subprocess.run([sys.executable, "-c", code, proj, SID], check=True,
                   env={**os.environ, "PYTHONPATH": ROOT})
    assert _temps(tasks) == []
    assert coord.CoordStore(proj).claim_next_task("w").id == task.id


@needs_strace
def test_the_workflow_database(session):
    proj, env = session
    assert harness.burst("pre-compact", [load.payload("compact", proj, 0)], env)[0].out == b""
    state = os.path.join(proj, ".claude", "state")
    with workflow.open_store(proj) as st:
        before = st.all()[0].updated_at
    _kill_at_first_fsync(harness.hook_argv("pre-compact"),
                         json.dumps(load.payload("compact", proj, 1)).encode(), env)
    left = sorted(n for n in os.listdir(state) if n.startswith(workflow.DB_NAME + "-"))
    assert left == [workflow.DB_NAME + "-shm", workflow.DB_NAME + "-wal"], left
    # the next open reads the log (the killed commit is there whole or not at all: the row
    # is the old one or the new one) and, closing, removes both
    with workflow.open_store(proj) as st:
        (row,) = st.all()
        assert row.updated_at >= before and row.spec_id == load.SPEC_ID
    assert sorted(n for n in os.listdir(state) if n.startswith(workflow.DB_NAME)) == \
        [workflow.DB_NAME]
    db = sqlite3.connect(workflow.db_path(proj))
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    db.close()


WORKER = r"""
import sys
from gateway.orchestration import coord
cs = coord.CoordStore(sys.argv[1])
print("ready", flush=True)
while True:
    for t in cs.list_tasks():
        try:
            cs.update_task(t.id, lambda x: x)       # a version bump: one atomic write each
        except coord.CoordError:
            pass
"""


def test_random_kills_of_orchestrator_workers_leave_nothing_after_the_next_open(tmp_path):
    """The issue's trials: a worker writing the store as fast as it can, SIGKILLed at a random
    moment, again and again. After every trial the next open for a write leaves no temp
    file; the entities are whole; validate and repair agree."""
    proj = str(tmp_path)
    cs = coord.CoordStore(proj)
    cs.create_session("x", session_id=SID)
    for i in range(1, 6):
        cs.add_task(SID, i, acceptance="a" * 200_000)       # big: a kill lands mid-write
    trials = harness.scale(15, 120)
    fig = harness.Figures(f"orchestrator store: {trials} workers SIGKILLed at a random moment")
    rng = random.Random(29)
    landed = 0
    tasks = os.path.join(proj, "agent-coord", "tasks")
    for t in range(trials):
        p = subprocess.Popen([sys.executable, "-c", WORKER, proj], stdout=subprocess.PIPE,
                             text=True, env={**os.environ, "PYTHONPATH": ROOT})
        assert p.stdout.readline().strip() == "ready"
        time.sleep(rng.uniform(0.0, 0.3))
        p.send_signal(signal.SIGKILL)
        p.wait()
        fig.processes += 1
        fig.kills += 1
        left = _temps(tasks)
        landed += len(left)
        if left:
            reported = {f for f, _m in _bad(proj)}
            assert {f"agent-coord/tasks/{n}" for n in left} <= reported
        coord.CoordStore(proj)                       # the next open
        assert _temps(tasks) == [], (t, _temps(tasks))
        assert len(coord.CoordStore(proj).list_tasks()) == 5      # every entity whole
    fig.notes.append(f"kills that left a temp file: {landed}; temp files after the next "
                     f"open: 0")
    assert landed > 0, "no kill landed mid-write: the trial proved nothing"
