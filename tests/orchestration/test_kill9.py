"""The TaskCompleted/TeammateIdle recording under SIGKILL: several processes record completions
as fast as they can while one after another is killed at a random instant. Nothing recorded
(acknowledged) is lost, no line is ever garbage (a kill may cut the record being written: it
is reported as torn, never fused with the next), and no signal is duplicated."""

import json
import os
import random
import signal
import subprocess
import sys
import time

from gateway.orchestration import signals
from gateway.state import store

from .conftest import SESSION

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

RECORDER = r"""
import random, sys
from gateway.orchestration import signals
proj, seed = sys.argv[1], int(sys.argv[2])
rng = random.Random(seed)
print("ready", flush=True)
while True:
    tid = f"task-{rng.randint(1, 40)}"
    signals.record_task_completed(proj, task_id=tid, subject="x" * rng.randint(0, 3000),
                                  teammate=f"impl-{seed}")
    print("ok", tid, flush=True)
    signals.record_teammate_idle(proj, teammate=f"impl-{seed}", team="t")
"""


def _spawn(proj, seed):
    p = subprocess.Popen([sys.executable, "-c", RECORDER, str(proj), str(seed)],
                         stdout=subprocess.PIPE, text=True,
                         env={**os.environ, "PYTHONPATH": ROOT})
    assert p.stdout.readline().strip() == "ready"
    return p


def _check_lines(res):
    for e in res.errors:
        head = '{"'
        assert e.excerpt[:len(head)] == head[:len(e.excerpt)], e      # a cut record, not junk


def test_recording_survives_sigkill(proj, active):
    active(plans_md_mapping={f"task-{i}": f"4.{i}" for i in range(1, 41)})
    rng = random.Random(7)
    acked = set()
    live = [_spawn(proj, s) for s in range(3)]
    seed = 3
    for _ in range(12):
        time.sleep(rng.uniform(0.1, 0.5))
        victim = live.pop(rng.randrange(len(live)))
        victim.send_signal(signal.SIGKILL)
        victim.wait()
        acked.update(line.split()[1] for line in victim.stdout.read().splitlines()
                     if line.startswith("ok "))
        live.append(_spawn(proj, seed))
        seed += 1
    for p in live:
        p.send_signal(signal.SIGKILL)
        p.wait()
        acked.update(line.split()[1] for line in p.stdout.read().splitlines()
                     if line.startswith("ok "))
    state = proj / ".claude" / "state"
    tl = store.read_jsonl(state / "breezing-timeline.jsonl")
    _check_lines(tl)
    recorded = {r["task_id"] for r in tl.records if r.get("event") == "task_completed"}
    assert acked and acked <= recorded                       # acknowledged ⇒ on disk
    assert len(tl.records) <= 500                            # rotated (>500 → last 400)
    sg = store.read_jsonl(state / "breezing-signals.jsonl")
    _check_lines(sg)
    partial = [r for r in sg.records if r["signal"] == signals.PARTIAL_REVIEW]
    assert len(partial) <= 1
    if len({k for k in recorded}) >= 20 and not sg.errors:
        assert len(partial) == 1 and partial[0]["session_id"] == SESSION
        assert isinstance(partial[0]["completed"], int) and partial[0]["completed"] >= 20
    # the files stay usable: a new completion is recorded (a torn tail is kept apart)
    rec = signals.record_task_completed(proj, task_id="task-1", teammate="after")
    last = store.read_jsonl(state / "breezing-timeline.jsonl").records[-1]
    assert last["teammate"] == "after"
    assert rec.problem is None or sg.errors
    print("acked", len(acked), "timeline errors", len(tl.errors), "signal errors",
          len(sg.errors), json.dumps([r["signal"] for r in sg.records]))
