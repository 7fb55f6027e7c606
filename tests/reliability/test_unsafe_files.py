"""Every writer of every store refuses a file that is a link, a FIFO or not a regular file, as
the guards' readers do (issue 29): never written through, never replaced, never a hang.

For each store file and the writer that changes it -- through the real hook or verb where one
writes it, through the store's API otherwise (what issue 27's orchestration calls) -- the file
is replaced by a symbolic link to a file outside the project, by a FIFO, or by a directory.
The writer runs in its own process (a FIFO opened the wrong way would block it: a timeout is
a failure); its answer must refuse, naming the file and what it is, and the outside file, the
FIFO and the directory must be exactly as they were.
"""

import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys

import pytest

from benchmarks.load import run as load
from gateway.orchestration import coord

from . import harness

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GATEWAY = os.path.join(os.path.dirname(sys.executable), "gateway")
SID = "planner-7682b3a8-1c2d-4e5f-8a9b-0c1d2e3f4a5b"
RUN = "run-0d3c2b1a-9f8e-4d7c-8b6a-5f4e3d2c1b0a"
TASK = "task-7682b3a8-1"

API = r"""
import sys
from gateway.orchestration import coord
from gateway.state import files, models, store
proj, what = sys.argv[1], sys.argv[2]
try:
    if what == "review":
        files.save_review_result(proj, models.ReviewResult(verdict="APPROVE"))
    elif what == "active":
        files.update_active(proj, lambda a: a)
    elif what == "task":
        coord.CoordStore(proj).claim_next_task("w")
    elif what == "session":
        coord.CoordStore(proj).continue_session(sys.argv[3])
    elif what == "run":
        coord.CoordStore(proj).finish_run(sys.argv[3], "SUCCESS")
    elif what == "log":
        coord.CoordStore(proj).append_log(sys.argv[3], "more\n")
    print("WROTE")
except (store.StateError, coord.CoordError) as e:
    print("REFUSED", e)
"""


def _state(proj, name):
    return os.path.join(proj, ".claude", "state", name)


def _hook(event, kind):
    def run(proj, env):
        i = 8 if kind == "complete_first" else 9
        what = "complete" if kind == "complete_first" else kind
        p = subprocess.run(harness.hook_argv(event), env=env, capture_output=True, timeout=60,
                           input=json.dumps(load.payload(what, proj, i)).encode())
        return p.stdout.decode()
    return run


def _cli(*args):
    def run(proj, env):
        p = subprocess.run([GATEWAY, *args], env=env, capture_output=True, timeout=60, cwd=proj,
                           stdin=subprocess.DEVNULL)
        return p.stdout.decode() + p.stderr.decode()
    return run


def _api(what, *args):
    def run(proj, env):
        p = subprocess.run([sys.executable, "-c", API, proj, what, *args], capture_output=True,
                           timeout=60, env={**env, "PYTHONPATH": ROOT})
        assert "Traceback" not in p.stderr.decode(), p.stderr.decode()
        return p.stdout.decode()
    return run


#: (the file, relative to the project; the writer that changes it)
WRITERS = {
    "roles (registration hook)": (".claude/state/breezing-session-roles.json",
                                  _hook("post-tool-use", "register")),
    "timeline (TeammateIdle hook)": (".claude/state/breezing-timeline.jsonl",
                                     _hook("teammate-idle", "idle")),
    "timeline (TaskCompleted hook)": (".claude/state/breezing-timeline.jsonl",
                                      _hook("task-completed", "complete")),
    "signals (TaskCompleted hook)": (".claude/state/breezing-signals.jsonl",
                                     _hook("task-completed", "complete")),
    "workflow database (PreCompact hook)": (".claude/state/gateway-workflow.sqlite3",
                                            _hook("pre-compact", "compact")),
    "phase (gateway breezing phase)": (".claude/state/gateway-breezing-phase.json",
                                       _cli("breezing", "phase", "B")),
    "verify record (gateway breezing verify)": (".claude/state/gateway-breezing-verify.json",
                                                _cli("breezing", "verify", "--timeout", "5")),
    "review result (files.save_review_result)": (".claude/state/review-result.json",
                                                 _api("review")),
    "breezing-active.json (files.update_active)": (".claude/state/breezing-active.json",
                                                   _api("active")),
    "task (CoordStore.claim_next_task)": (f"agent-coord/tasks/{TASK}.json", _api("task")),
    "session (CoordStore.continue_session)": (f"agent-coord/planner-sessions/{SID}.json",
                                              _api("session", SID)),
    "run (CoordStore.finish_run)": (f"agent-coord/runs/{RUN}.json", _api("run", RUN)),
    "run log (CoordStore.append_log)": (f"agent-coord/runs/{RUN}.log", _api("log", RUN)),
}

KINDS = ("link", "fifo", "directory")
WHAT = {"link": "symbolic link", "fifo": "not a regular file", "directory": "directory"}


def _project(root):
    proj, env = load.project(root)
    # a partial review is due at the 2nd of 4 tasks: the TaskCompleted of task 10 (payload 9)
    # appends to the signals
    with open(_state(proj, "breezing-active.json"), "w") as fh:
        json.dump({"session_id": "S1", "plans_md_mapping": {str(i): f"2.{i}"
                                                            for i in range(9, 13)}}, fh)
    # task 9 completed first, recorded as the hook records it (the progress record counts,
    # not the timeline's lines)
    assert _hook("task-completed", "complete_first")(proj, env) == ""
    assert harness.burst("pre-compact", [load.payload("compact", proj, 0)], env)[0].out == b""
    cs = coord.CoordStore(proj)
    cs.create_session("x", session_id=SID)
    cs.add_task(SID, 1)
    assert cs.claim_next_task("w0").id == TASK          # a run is started for a claimed task
    cs.add_task(SID, 2)
    cs.start_run(TASK, "codex", run_id=RUN)
    cs.append_log(RUN, "started\n")
    return proj, env


def _digest(path):
    st = os.lstat(path)
    if stat.S_ISREG(st.st_mode):
        with open(path, "rb") as fh:
            return ("file", hashlib.sha256(fh.read()).hexdigest())
    return (stat.S_IFMT(st.st_mode), sorted(os.listdir(path)) if stat.S_ISDIR(st.st_mode)
            else None)


@pytest.mark.parametrize("kind", KINDS)
def test_every_writer_refuses_a_file_that_is_not_a_regular_file(tmp_path, kind):
    proj, env = _project(str(tmp_path))
    outside = tmp_path / "outside"
    outside.mkdir()
    failures = []
    for label, (rel, writer) in WRITERS.items():
        path = os.path.join(proj, rel)
        keep = str(tmp_path / "keep") if os.path.lexists(path) else None
        if keep:
            shutil.move(path, keep)                   # the real file, put back afterwards
        victim = outside / os.path.basename(rel)
        victim.write_bytes(b"outside the project\n")
        if kind == "link":
            os.symlink(victim, path)
        elif kind == "fifo":
            os.mkfifo(path)
        else:
            os.mkdir(path)
        before = (_digest(path), _digest(victim))
        try:
            answer = writer(proj, env)
        except subprocess.TimeoutExpired:
            answer = "HUNG"
        after = (_digest(path), _digest(victim))
        refused = path in answer and WHAT[kind] in answer and "WROTE" not in answer \
            and answer != "HUNG"
        if not refused or after != before:
            failures.append((label, kind, answer[-500:], before == after))
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.unlink(path)
        if keep:
            shutil.move(keep, path)
    assert failures == [], failures
