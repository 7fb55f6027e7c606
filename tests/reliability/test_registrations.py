"""Role registrations through the real hook that records them (PostToolUse, once the marker
Write completed), many at once and SIGKILLed at random
moments: no registration the hook confirmed is ever lost, the roles file is never torn, no
lock stays behind, and what a killed writer leaves is repaired by `gateway state repair`
without ending the breezing session."""

import json
import os
import random
import shutil
import subprocess
import sys

import pytest

from gateway.state import fast, files, store

from . import harness

SESSION = "3d7e6b1c-1111-4111-8111-111111111111"


def _marker(proj, agent_id, role="implementer"):
    body = json.dumps({"role": role, "owns": [f"src/{agent_id}/**"]})
    path = os.path.join(proj, ".claude", "state", f"breezing-role-{agent_id}.json")
    return {"session_id": SESSION, "agent_id": agent_id, "cwd": proj,
            "hook_event_name": "PostToolUse", "tool_name": "Write",
            "tool_input": {"file_path": path, "content": body},
            "tool_response": {"type": "create", "filePath": path, "content": body}}


def _session(proj, env, big: int):
    """A running breezing session, the policy compiled, and `big` registrations already
    there (a large roles file makes every write take a while: kills land mid-write)."""
    state = os.path.join(proj, ".claude", "state")
    os.makedirs(state, exist_ok=True)
    with open(os.path.join(state, "breezing-active.json"), "w") as fh:
        json.dump({"session_id": "S1", "impl_mode": "standard"}, fh)
    base = {f"old-{i}": fast.role_entry("implementer", [f"src/m{i}/**"]) for i in range(big)}
    fast.update_session_roles(proj, lambda roles: base)
    harness.burst("pre-tool-use", [{"session_id": "s", "cwd": proj, "tool_name": "Read",
                                    "tool_input": {"file_path": os.path.join(proj, "a.txt")}}],
                  env)
    return set(base)


def _gateway(env, *args):
    exe = os.path.join(os.path.dirname(sys.executable), "gateway")
    return subprocess.run([exe, *args], env=env, capture_output=True, text=True, timeout=120,
                          cwd=env["CLAUDE_PROJECT_DIR"])


def _check_after(proj, env, base, confirmed, attempted):
    """The roles file is whole and holds every confirmed registration; only temp files of
    killed writers are reported; repair removes them and keeps the session."""
    roles = fast.load_session_roles(proj)       # raises on a torn or half-written file
    lost = confirmed - set(roles)
    assert base <= set(roles)
    assert set(roles) - base <= attempted
    with store.FileLock(os.path.join(proj, ".claude", "state",
                                     "breezing-session-roles.json"), timeout=5):
        pass                                    # no lock outlived its (killed) holder
    bad = [r for r in files.validate(proj) if not r.ok]
    assert all(".tmp-" in r.file for r in bad), bad
    r = _gateway(env, "state", "repair")
    assert r.returncode == 0, r.stderr
    assert _gateway(env, "state", "validate").returncode == 0
    assert set(fast.load_session_roles(proj)) == set(roles)
    assert os.path.exists(os.path.join(proj, ".claude", "state", "breezing-active.json"))
    return lost, len(bad)


def test_concurrent_registrations_with_kills_lose_nothing_confirmed(scratch):
    proj, env = scratch
    base = _session(proj, env, 500)
    rounds = harness.scale(2, 5)
    n = harness.scale(30, 200)
    fig = harness.Figures(f"{rounds} x {n} concurrent registrations, ~30% SIGKILLed within "
                          "2 s")
    leftovers = 0
    attempted = set()  # every round's: a writer killed after its write landed leaves its role
    for r in range(rounds):
        ids = [f"r{r}-{i}" for i in range(n)]
        attempted |= set(ids)
        calls = harness.burst("post-tool-use", [_marker(proj, a) for a in ids], env,
                              kill_rate=0.3, rng=random.Random(r), kill_window=2.0)
        harness.record(fig, calls, lambda c: None, registrations=calls)  # no decision
        confirmed = {ids[c.tag] for c in calls if not c.killed and c.decision() is None}
        fig.confirmed += len(confirmed)
        lost, left = _check_after(proj, env, base, confirmed, attempted)
        fig.lost += len(lost)
        leftovers += left
        base |= confirmed
        assert not lost, sorted(lost)[:5]
    fig.notes.append(f"temp files of killed writers left at the end of a round: {leftovers}")
    assert fig.wrong == 0 and fig.hung == 0 and fig.busy == 0
    assert fig.kills > 0 and fig.confirmed > 0


def test_crash_trials_one_writer_killed_at_a_random_moment(scratch):
    """Kill a registering hook at a random instant, one trial after another: the file holds the
    old or the new registrations, never a mix; the next registration goes through."""
    proj, env = scratch
    base = _session(proj, env, 3000)
    trials = harness.scale(12, 100)
    fig = harness.Figures(f"{trials} crash trials: one registering hook SIGKILLed at a random "
                          "moment")
    rng = random.Random(4242)
    # how long one registration takes here and now: the kills are spread over that span
    probe = [harness.burst("post-tool-use", [_marker(proj, f"probe-{i}")], env)[0]
             for i in range(3)]
    span = sorted(c.latency for c in probe)[1]
    base |= {"probe-0", "probe-1", "probe-2"}
    landed = set()
    for t in range(trials):
        agent = f"crash-{t}"
        c = harness.start("post-tool-use", _marker(proj, agent), env, tag=t)
        kill_at = c.start + rng.uniform(0.3 * span, 1.1 * span)
        harness.wait([c], [(kill_at, c)])
        fig.processes += 1
        if c.killed:
            fig.kills += 1
        elif c.decision() is None:
            fig.confirmed += 1
            fig.latencies.append(c.latency)
        else:
            fig.wrong += 1
        roles = fast.load_session_roles(proj)       # whole, whatever the moment of the kill
        assert base <= set(roles)
        if agent in roles:
            landed.add(agent)
        if not c.killed and c.decision() is None and agent not in roles:
            fig.lost += 1
    lost, left = _check_after(proj, env, base, landed, landed)
    fig.notes.append(f"registrations that landed before the kill or completed: {len(landed)};"
                     f" temp files of killed writers repaired: {left}")
    after = harness.burst("post-tool-use", [_marker(proj, "after")], env)
    assert [c.decision() for c in after] == [None]
    assert "after" in fast.load_session_roles(proj)
    assert fig.lost == 0 and fig.wrong == 0
    assert fig.kills > 0


#: (syscall, what a kill there leaves): the hook is SIGKILLed by strace on the first call of
#: the syscall -- the lock, the temp file's fsync, the rename that publishes it
SYSCALLS = [("flock", "nothing: the lock dies with the process"),
            ("fsync", "a complete temp file, not renamed"),
            ("rename,renameat,renameat2", "a complete temp file at the moment of the rename")]


def test_kills_at_exact_syscalls_of_a_registration(scratch):
    strace = shutil.which("strace")
    if strace is None:
        pytest.skip("strace is not installed: no syscall-exact kills")
    proj, env = scratch
    base = _session(proj, env, 500)
    fig = harness.Figures("registering hooks SIGKILLed at their first flock / fsync / rename "
                          "(strace fault injection)")
    for i, (calls, _what) in enumerate(SYSCALLS):
        agent = f"sys-{i}"
        argv = [strace, "-f", "-qq", "-o", "/dev/null", "-e", f"trace={calls}", "-e",
                f"inject={calls}:signal=SIGKILL:when=1", *harness.hook_argv("post-tool-use")]
        p = subprocess.run(argv, input=json.dumps(_marker(proj, agent)).encode(), env=env,
                           capture_output=True, timeout=120)
        fig.processes += 1
        if p.stdout:
            fig.wrong += 1          # killed before it could answer: any answer is wrong
        else:
            fig.kills += 1
        roles = fast.load_session_roles(proj)      # whole: the old file
        assert set(roles) == base, (calls, sorted(set(roles) ^ base)[:5])
        left = [r.file for r in files.validate(proj) if not r.ok]
        if calls == "flock":
            assert left == []
        else:
            assert len(left) == 1 and ".breezing-session-roles.json.tmp-" in left[0], left
            fig.notes.append(f"killed at {calls.split(',')[0]}: {_what}; `gateway state "
                             "repair` removed it")
        r = _gateway(env, "state", "repair")
        assert r.returncode == 0, r.stderr
        again = harness.burst("post-tool-use", [_marker(proj, agent)], env)
        assert [c.decision() for c in again] == [None]
        base.add(agent)
    assert set(fast.load_session_roles(proj)) == base
    assert fig.wrong == 0 and fig.kills == len(SYSCALLS)


def test_readers_never_see_a_torn_roles_file_while_writers_are_killed(scratch):
    """Guards reading the roles file (every tool call) while registering hooks are killed:
    every read gives a whole file; no reader denies with GW890."""
    proj, env = scratch
    _session(proj, env, 500)
    n = harness.scale(24, 120)
    fig = harness.Figures(f"{n} readers racing {n} registrations, ~30% of the writers killed")
    rng = random.Random(77)
    read = {"session_id": SESSION, "agent_id": "old-1", "cwd": proj,
            "hook_event_name": "PreToolUse", "tool_name": "Write",
            "tool_input": {"file_path": os.path.join(proj, "src", "m1", "x.py"),
                           "content": "x"}}
    payloads = []
    for i in range(n):
        payloads.append(("w", _marker(proj, f"race-{i}")))
        payloads.append(("r", read))
    rng.shuffle(payloads)
    calls = [harness.start("post-tool-use" if kind == "w" else "pre-tool-use", p, env,
                          tag=kind) for kind, p in payloads]
    t0 = calls[0].start
    kills = [(t0 + rng.uniform(0, 2.0), c) for c in calls if c.tag == "w" and rng.random() < 0.3]
    harness.wait(calls, kills)
    # old-1 owns src/m1/**: its write is no objection (no decision), never GW890
    wrong = harness.record(fig, calls, lambda c: None,
                           registrations=[c for c in calls if c.tag == "w"])
    assert wrong == [] and fig.hung == 0 and fig.busy == 0, wrong[:5]
