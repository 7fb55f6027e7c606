"""gateway.orchestration.coord: seed 003's orchestrator store -- ids (never a path), the task
state machine (only legal transitions; upstream overwrote blindly), CAS on version, claims that
cannot be lost or doubled under concurrency and are recovered when the holder dies, runs that
start RUNNING (upstream: SUCCESS). Facts and bugs: seed-origins §C.2, §D.3."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from gateway.orchestration import coord
from gateway.orchestration.coord import (
    AlreadyExists,
    ConcurrentModification,
    CoordStore,
    IllegalTransition,
    InvalidId,
    NotClaimable,
    NotOwner,
)
from gateway.state import store

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
U = "7682b3a8-1c2d-4e5f-8a9b-0c1d2e3f4a5b"


class Clock:
    def __init__(self, t=1_800_000_000.0):
        self.t = t

    def __call__(self):
        return self.t


@pytest.fixture()
def cs(tmp_path):
    return CoordStore(tmp_path, clock=Clock())


# --- ids -----------------------------------------------------------------------------------


@pytest.mark.parametrize("sid", [f"planner-{U}", f"planner-additional-{U}",
                                 f"planner-replanning-{U}"])
def test_session_short_is_parsed_not_cut_at_fixed_offsets(sid):
    assert coord.session_short(sid) == "7682b3a8"
    assert coord.task_id_for(sid, 12) == "task-7682b3a8-12"
    assert coord.conflict_task_id(sid).startswith("task-7682b3a8-conflict-resolution-")
    assert coord.is_task_id(coord.conflict_task_id(sid))


@pytest.mark.parametrize("bad", [
    "../../etc/passwd", "task-7682b3a8-1/../../x", "task-7682b3a8-0", "task-7682B3A8-1",
    "task-7682b3a8-01", "task-7682b3a8-1.json", "task-7682b3a8-1\n", "/abs", "", None, 5,
    "task-7682b3a8-conflict-resolution-xyz", "planner-" + U.upper(), f"planner-other-{U}",
    f"run-{U}/../x",
])
def test_bad_ids_never_reach_a_path(cs, bad):
    for fn in (cs.task_path, cs.session_path, cs.run_path, cs.get_task):
        with pytest.raises(InvalidId):
            fn(bad)
    assert not os.path.exists(cs.base)


def test_the_seed_layout(cs, tmp_path):
    s = cs.create_session("ユーザー認証機能を実装して")
    t = cs.add_task(s.session_id, 1)
    cs.claim_task(t.id, "agent-1")                         # a worker runs a claimed task
    r = cs.start_run(t.id, session_id=s.session_id)
    cs.append_log(r.id, "started\n")
    base = tmp_path / "agent-coord"
    assert (base / "planner-sessions" / f"{s.session_id}.json").is_file()
    assert (base / "tasks" / f"{t.id}.json").is_file()
    assert (base / "runs" / f"{r.id}.json").is_file()
    assert (base / "runs" / f"{r.id}.log").read_text() == "started\n"
    on_disk = json.loads((base / "tasks" / f"{t.id}.json").read_text())
    assert on_disk["plannerRunId"] == s.session_id and on_disk["taskType"] == "implementation"
    assert on_disk["state"] == "RUNNING" and on_disk["version"] == 1 and \
        on_disk["owner"] == "agent-1"
    assert json.loads((base / "planner-sessions" / f"{s.session_id}.json").read_text())[
        "generatedTasks"] == [t.id]


def test_a_task_is_created_once(cs):
    s = cs.create_session("x")
    cs.add_task(s.session_id, 1)
    with pytest.raises(AlreadyExists):
        cs.add_task(s.session_id, 1)


def test_a_task_of_another_session_is_refused(cs):
    s = cs.create_session("x")
    with pytest.raises(InvalidId, match="does not belong to session"):
        cs.add_task(s.session_id, 1, task_id="task-00000000-1")


def test_conflict_resolution_task(cs):
    s = cs.create_session("x")
    a, b = cs.add_task(s.session_id, 1), cs.add_task(s.session_id, 2)
    c = cs.add_conflict_resolution_task(s.session_id, [a.id, b.id])
    assert c.task_type == "integration" and c.dependencies == [a.id, b.id]
    assert c.id.startswith(f"task-{coord.session_short(s.session_id)}-conflict-resolution-")


def test_a_tampered_entity_is_reported(cs):
    s = cs.create_session("x")
    t = cs.add_task(s.session_id, 1)
    path = cs.task_path(t.id)
    data = json.loads(open(path).read())
    data["dependencies"] = ["../../etc/passwd"]
    with open(path, "w") as fh:
        json.dump(data, fh)
    with pytest.raises(store.StateInvalid, match="is not a valid task"):
        cs.get_task(t.id)
    data["dependencies"] = []
    data["superuser"] = True
    with open(path, "w") as fh:
        json.dump(data, fh)
    with pytest.raises(store.StateInvalid, match="superuser"):
        cs.get_task(t.id)


# --- the state machine ---------------------------------------------------------------------


def test_done_cannot_be_revived_by_a_blind_reset(cs):
    s = cs.create_session("x")
    t = cs.add_task(s.session_id, 1)
    cs.claim_task(t.id, "w")
    cs.complete_task(t.id, owner="w")
    for target in ("READY", "RUNNING", "BLOCKED", "CANCELLED", "NEEDS_CONTINUATION"):
        with pytest.raises(IllegalTransition) as e:
            cs.transition(t.id, target, expected_version=cs.get_task(t.id).version)
        assert str(e.value) == (f"task {t.id} is DONE, a final state: it does not change any "
                                f"more (its feedback, reason and claim stay as they are). "
                                f"Replan it as a new task if more work is needed")
    assert cs.get_task(t.id).state == "DONE"


@pytest.mark.parametrize("final", ["DONE", "CANCELLED", "REPLACED_BY_REPLAN"])
def test_final_tasks_never_change(cs, final):
    """Issue 27 item 11: DONE -> DONE does not overwrite the Judge's feedback, a final task
    takes no block reason, and no run starts for it."""
    s = cs.create_session("x")
    t = cs.add_task(s.session_id, 1)
    cs.claim_task(t.id, "w")
    if final == "DONE":
        cs.complete_task(t.id, owner="w", feedback={"score": 1})
    elif final == "CANCELLED":
        cs.cancel_task(t.id, expected_version=1)
    else:
        cs.replace_task(t.id, [f"task-{s.session_id[8:16]}-2"], expected_version=1)
    before = cs.get_task(t.id)
    for attempt in (lambda: cs.complete_task(t.id, expected_version=before.version,
                                             feedback={"score": 0}),
                    lambda: cs.block_task(t.id, "MANUAL", expected_version=before.version),
                    lambda: cs.transition(t.id, final, expected_version=before.version),
                    lambda: cs.start_run(t.id)):
        with pytest.raises(coord.CoordError):
            attempt()
    after = cs.get_task(t.id)
    assert after == before and after.judgement_feedback == before.judgement_feedback


def test_done_cannot_overwrite_cancelled(cs):
    s = cs.create_session("x")
    t = cs.add_task(s.session_id, 1)
    cs.claim_task(t.id, "w")
    cs.cancel_task(t.id, expected_version=1)
    with pytest.raises(IllegalTransition):
        cs.complete_task(t.id, expected_version=2)
    with pytest.raises(IllegalTransition):
        cs.replace_task(t.id, [], expected_version=2)


def test_replanning_a_blocked_task(cs):
    s = cs.create_session("x")
    t = cs.add_task(s.session_id, 1)
    cs.claim_task(t.id, "w")
    cs.block_task(t.id, "MAX_RETRIES", owner="w")
    with pytest.raises(IllegalTransition):
        cs.transition(t.id, "READY", expected_version=2)   # no blind reset of BLOCKED
    new = cs.add_task(s.session_id, 2)
    r = cs.replace_task(t.id, [new.id], expected_version=2)
    assert (r.state, r.replaced_by, r.block_reason) == ("REPLACED_BY_REPLAN", [new.id],
                                                        "MAX_RETRIES")


def test_compare_and_swap_on_version(cs):
    s = cs.create_session("x")
    t = cs.add_task(s.session_id, 1)
    assert t.version == 0
    c = cs.claim_task(t.id, "w")
    assert c.version == 1
    with pytest.raises(ConcurrentModification) as e:
        cs.complete_task(t.id, expected_version=0)         # a stale read
    assert (e.value.expected, e.value.actual) == (0, 1)
    assert cs.complete_task(t.id, expected_version=1).version == 2
    with pytest.raises(coord.CoordError, match="must give the version it was decided on"):
        cs.cancel_task(t.id)                               # neither version nor owner


def test_only_the_holder_may_finish_its_claim(cs):
    s = cs.create_session("x")
    t = cs.add_task(s.session_id, 1)
    cs.claim_task(t.id, "w1")
    with pytest.raises(NotOwner):
        cs.complete_task(t.id, owner="w2")
    with pytest.raises(NotOwner):
        cs.heartbeat(t.id, "w2")
    assert cs.release_task(t.id, "w1").state == "READY"


class TaskMachine(RuleBasedStateMachine):
    """Random operations from several workers on a small graph: the store never reaches an
    illegal state, every accepted change is a legal transition, versions only grow."""

    def __init__(self):
        super().__init__()
        import tempfile

        self.dir = tempfile.mkdtemp()
        self.clock = Clock()
        self.cs = CoordStore(self.dir, clock=self.clock)
        s = self.cs.create_session("machine")
        a = self.cs.add_task(s.session_id, 1)
        b = self.cs.add_task(s.session_id, 2, dependencies=[a.id])
        c = self.cs.add_task(s.session_id, 3)
        self.ids = [a.id, b.id, c.id]
        self.seen = {t: [("READY", 0)] for t in self.ids}

    def _observe(self):
        for tid in self.ids:
            t = self.cs.get_task(tid)
            if (t.state, t.version) != self.seen[tid][-1]:
                self.seen[tid].append((t.state, t.version))

    @rule(i=st.integers(0, 2), to=st.sampled_from(coord.TASK_STATES),
          owner=st.sampled_from([None, "w1", "w2"]), stale=st.booleans())
    def transition(self, i, to, owner, stale):
        tid = self.ids[i]
        cur = self.cs.get_task(tid)
        try:
            t = self.cs.transition(tid, to, owner=owner,
                                   expected_version=cur.version - 1 if stale else cur.version)
        except (IllegalTransition, ConcurrentModification, NotOwner):
            return
        except coord.CoordError as e:
            assert to == "RUNNING" and "only a claim" in str(e)
            return
        assert not stale and to != "RUNNING"
        assert to == cur.state or to in coord.TRANSITIONS[cur.state]
        assert t.version == cur.version + 1
        self._observe()

    @rule(worker=st.sampled_from(["w1", "w2", "w3"]))
    def claim_next(self, worker):
        t = self.cs.claim_next_task(worker)
        if t is not None:
            assert t.state == "RUNNING" and t.owner == worker
        self._observe()

    @rule(dt=st.sampled_from([1.0, 700.0]))
    def time_passes(self, dt):
        self.clock.t += dt

    @rule()
    def recover(self):
        self.cs.recover_claims()
        self._observe()

    @invariant()
    def legal_history(self):
        for tid in self.ids:
            t = self.cs.get_task(tid)
            assert t.state in coord.TASK_STATES
            hist = self.seen[tid]
            for (a, va), (b, vb) in zip(hist, hist[1:], strict=False):
                assert vb > va
                assert a == b or b in coord.TRANSITIONS[a], (a, b)
            assert (t.state, t.version) == hist[-1]
            if t.state == "RUNNING":
                assert t.owner and t.lease_expires_at
            else:
                assert t.owner is None and t.lease_expires_at is None
            if t.state == "RUNNING" and tid == self.ids[1]:
                assert self.cs.get_task(self.ids[0]).state == "DONE"   # claimed only when
                                                                          # its dependency is


TaskMachine.TestCase.settings = settings(max_examples=40, stateful_step_count=25,
                                         deadline=None)
test_task_state_machine = TaskMachine.TestCase


# --- claims ---------------------------------------------------------------------------------


def test_claims_follow_id_order_and_dependencies(cs):
    s = cs.create_session("x")
    a = cs.add_task(s.session_id, 1)
    b = cs.add_task(s.session_id, 2, dependencies=[a.id])
    c = cs.add_task(s.session_id, 10)
    assert cs.claim_next_task("w1").id == a.id
    assert cs.claim_next_task("w2").id == c.id               # b waits for a; 10 after 2
    assert cs.claim_next_task("w3") is None
    with pytest.raises(NotClaimable, match="waits for a dependency"):
        cs.claim_task(b.id, "w3")
    cs.complete_task(a.id, owner="w1")
    assert cs.claim_next_task("w3").id == b.id


def test_needs_continuation_is_claimed_again(cs):
    s = cs.create_session("x")
    t = cs.add_task(s.session_id, 1)
    cs.claim_task(t.id, "w1")
    cs.continue_task(t.id, owner="w1", feedback={"reason": "half done"})
    again = cs.claim_next_task("w2")
    assert (again.id, again.owner, again.judgement_feedback) == (t.id, "w2",
                                                                 {"reason": "half done"})


def test_an_expired_claim_is_recovered_after_the_lease(tmp_path):
    clock = Clock()
    cs = CoordStore(tmp_path, clock=clock)
    s = cs.create_session("x")
    t = cs.add_task(s.session_id, 1)
    cs.claim_task(t.id, "w1", lease=60)
    clock.t += 59
    assert cs.claim_next_task("w2") is None                  # still held
    cs.heartbeat(t.id, "w1", lease=60)
    clock.t += 59
    assert cs.claim_next_task("w2") is None                  # renewed
    clock.t += 2
    got = cs.claim_next_task("w2")
    assert (got.id, got.owner) == (t.id, "w2")
    with pytest.raises(NotOwner):
        cs.complete_task(t.id, owner="w1")                   # the old holder lost it


def test_a_dead_holders_claim_is_recovered_at_once(cs):
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    s = cs.create_session("x")
    t = cs.add_task(s.session_id, 1)
    cs.claim_task(t.id, "w1", pid=p.pid)                     # held by a process that is gone
    got = cs.claim_next_task("w2")
    assert (got.id, got.owner) == (t.id, "w2")


def test_a_claim_made_by_a_short_lived_command_lives_until_its_lease(tmp_path):
    """A claim made on a worker's behalf by a command that exits (no pid given) is not taken
    from the worker when that command's process is gone; only the lease ends it."""
    clock = Clock(time.time())                             # the command uses the real clock
    cs = CoordStore(tmp_path, clock=clock)
    s = cs.create_session("x")
    t = cs.add_task(s.session_id, 1)
    code = ("import sys; from gateway.orchestration.coord import CoordStore; "
            "print(CoordStore(base=sys.argv[1]).claim_next_task('agent-1', lease=60).id)")
    p = subprocess.run([sys.executable, "-c", code, cs.base], env=_env(), capture_output=True,
                       text=True, timeout=60)
    assert p.stdout.strip() == t.id, p.stderr
    held = cs.get_task(t.id)
    assert (held.owner, held.owner_pid, held.owner_host) == ("agent-1", None, None)
    assert cs.claim_next_task("agent-2") is None          # the claimer exited: still held
    clock.t = 10 ** 10                                     # long after the lease
    assert cs.claim_next_task("agent-2").owner == "agent-2"


def test_runs_start_running_and_finish_once(cs):
    s = cs.create_session("x")
    t = cs.add_task(s.session_id, 1)
    with pytest.raises(coord.CoordError, match="is READY, not RUNNING"):
        cs.start_run(t.id)                                  # issue 27: a run needs a claim
    with pytest.raises(coord.NotFound):
        cs.start_run(f"task-{s.session_id[8:16]}-9")
    cs.claim_task(t.id, "w")
    r = cs.start_run(t.id, "codex", session_id=s.session_id)
    assert (r.status, r.finished_at, r.agent_type) == ("RUNNING", None, "codex")
    assert cs.get_run(r.id).status == "RUNNING"              # a crash here looks unfinished
    done = cs.finish_run(r.id, "FAILURE", "boom")
    assert (done.status, done.error_message) == ("FAILURE", "boom") and done.finished_at
    with pytest.raises(coord.CoordError, match="already finished as FAILURE"):
        cs.finish_run(r.id, "SUCCESS")
    second = cs.start_run(t.id)
    with pytest.raises(coord.CoordError, match="finishes as SUCCESS, FAILURE or TIMEOUT"):
        cs.finish_run(second.id, "RUNNING")
    assert {x.id: x.status for x in cs.list_runs(t.id)} == {r.id: "FAILURE",
                                                            second.id: "RUNNING"}
    fixed = f"run-{U}"
    assert cs.start_run(t.id, run_id=fixed).id == fixed
    with pytest.raises(coord.AlreadyExists):
        cs.start_run(t.id, run_id=fixed)


def test_continue_has_a_limit(cs):
    s = cs.create_session("x")
    for i in range(coord.MAX_CONTINUE_ITERATIONS):
        assert cs.continue_session(s.session_id).continue_iteration_count == i + 1
    with pytest.raises(coord.CoordError, match="limit 5"):
        cs.continue_session(s.session_id)


def test_a_symlinked_store_directory_is_refused(tmp_path):
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", tmp_path / "agent-coord")
    cs = CoordStore(tmp_path)
    with pytest.raises(store.StateUnsafe, match="symbolic link"):
        cs.create_session("x")


# --- many processes ---------------------------------------------------------------------------

WORKER = r"""
import json, os, sys
from gateway.orchestration.coord import CoordStore
base, name, out = sys.argv[1], sys.argv[2], sys.argv[3]
cs = CoordStore(base=base, lock_timeout=30)
got = []
while True:
    t = cs.claim_next_task(name, pid=os.getpid())
    if t is None:
        break
    got.append(t.id)
    cs.complete_task(t.id, owner=name)
with open(out, "w") as fh:
    json.dump(got, fh)
"""


def _env():
    return {**os.environ, "PYTHONPATH": ROOT}


def test_many_workers_claim_every_task_exactly_once(tmp_path):
    cs = CoordStore(tmp_path)
    s = cs.create_session("x")
    ids = [cs.add_task(s.session_id, i).id for i in range(1, 41)]
    outs = [tmp_path / f"w{i}.json" for i in range(6)]
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, cs.base, f"w{i}", str(o)],
                              env=_env(), stderr=subprocess.PIPE, text=True)
             for i, o in enumerate(outs)]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    claimed = [tid for o in outs for tid in json.loads(o.read_text())]
    assert sorted(claimed) == sorted(ids)                     # each exactly once
    assert all(cs.get_task(t).state == "DONE" and cs.get_task(t).version == 2 for t in ids)


HOLDER = r"""
import os, sys, time
from gateway.orchestration.coord import CoordStore
cs = CoordStore(base=sys.argv[1])
t = cs.claim_next_task("doomed", lease=3600, pid=os.getpid())
print(t.id, flush=True)
time.sleep(600)
"""


def test_a_claim_of_a_worker_killed_with_sigkill_is_recovered(tmp_path):
    cs = CoordStore(tmp_path)
    s = cs.create_session("x")
    t = cs.add_task(s.session_id, 1)
    p = subprocess.Popen([sys.executable, "-c", HOLDER, cs.base], env=_env(),
                         stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == t.id
    assert cs.claim_next_task("other") is None                # held by a live process
    p.send_signal(signal.SIGKILL)
    p.wait()
    got = cs.claim_next_task("other")                         # lease 3600 s, but pid gone
    assert (got.id, got.owner) == (t.id, "other")


KILLED = r"""
import os, sys
from gateway.orchestration.coord import CoordStore
cs = CoordStore(base=sys.argv[1], lock_timeout=30)
print("ready", flush=True)
while True:
    t = cs.claim_next_task(sys.argv[2], lease=3600, pid=os.getpid())
    if t is None:
        break
    cs.complete_task(t.id, owner=sys.argv[2])
"""


def test_workers_killed_at_random_lose_no_task(tmp_path):
    cs = CoordStore(tmp_path, lock_timeout=30)
    s = cs.create_session("x")
    ids = [cs.add_task(s.session_id, i).id for i in range(1, 61)]
    deadline = time.monotonic() + 120
    k = 0
    while time.monotonic() < deadline:
        remaining = [t for t in cs.list_tasks() if t.state != "DONE"]
        if not remaining:
            break
        p = subprocess.Popen([sys.executable, "-c", KILLED, cs.base, f"w{k}"], env=_env(),
                             stdout=subprocess.PIPE, text=True)
        assert p.stdout.readline().strip() == "ready"
        time.sleep(0.05 + (k % 5) * 0.03)
        p.send_signal(signal.SIGKILL)
        p.wait()
        k += 1
        for t in cs.list_tasks():                             # never torn, always valid
            assert t.state in ("READY", "RUNNING", "DONE")
    while (t := cs.claim_next_task("finisher")) is not None:  # dead holders recovered
        cs.complete_task(t.id, owner="finisher")
    assert sorted(t.id for t in cs.list_tasks() if t.state == "DONE") == sorted(ids)
