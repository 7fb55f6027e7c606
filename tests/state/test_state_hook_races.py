"""Role registration racing through the real hook command (`gateway hook post-tool-use`, which
records a role once its marker Write completed; one process per call, as Claude Code runs
it): concurrent registrations all land, a concurrent
escalation attempt never wins, and a hook killed in the middle of recording a registration
leaves the old or the new roles file, never a broken one."""

import json
import os
import random
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from gateway.state import fast, store
from tests.helpers import make_project

SESSION = "1807a74b-1111-4111-8111-111111111111"


@pytest.fixture(scope="module")
def exe():
    path = os.path.join(os.path.dirname(sys.executable), "gateway")
    assert os.path.exists(path), "install the package (pip install -e .) first"
    return path


@pytest.fixture()
def env(tmp_path_factory):
    home = tmp_path_factory.mktemp("race-home")
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
            "GATEWAY_USER_RULES": str(home / "none.yaml"),
            "GATEWAY_CACHE_DIR": str(tmp_path_factory.getbasetemp() / "race-cache"),
            "GATEWAY_AUDIT_LOG": "off", "CLAUDE_CONFIG_DIR": str(home / ".claude"),
            "LANG": "C.UTF-8"}


@pytest.fixture()
def proj(tmp_path_factory):
    root = make_project(tmp_path_factory.mktemp("race") / "proj")
    os.makedirs(os.path.join(root, ".claude", "state"))
    return root


def _marker(proj, agent_id, role, owns=(), name=None):
    body = json.dumps({"role": role, "owns": list(owns)})
    path = os.path.join(proj, ".claude/state", f"breezing-role-{name or agent_id}.json")
    return json.dumps({"session_id": SESSION, "cwd": proj, "hook_event_name": "PostToolUse",
                       "permission_mode": "default", "tool_name": "Write",
                       "tool_input": {"file_path": path, "content": body},
                       "tool_response": {"type": "create", "filePath": path,
                                         "content": body},
                       "agent_id": agent_id, "agent_type": "general-purpose"}).encode()


def _call(exe, env, data, hook="post-tool-use"):
    """The reason the hook gives for not registering, or None (registered)."""
    p = subprocess.run([exe, "hook", hook], input=data, env=env,
                       capture_output=True, timeout=120)
    assert p.returncode == 0, p.stderr
    if not p.stdout:
        return None
    out = json.loads(p.stdout)["hookSpecificOutput"]
    return out.get("permissionDecisionReason") or out.get("additionalContext")


def _warm(exe, env, proj):
    # compile the policy once, so the race is about the state, not the cache
    _call(exe, env, json.dumps({"tool_name": "Read", "tool_input": {}, "cwd": proj}).encode(),
          hook="pre-tool-use")


def test_parallel_registrations_through_the_hook_all_land(exe, env, proj):
    _warm(exe, env, proj)
    calls = [(f"agent-{w}-{i}", ["src/a/**"] if i % 2 else [])
             for w in range(8) for i in range(4)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(
            lambda c: _call(exe, env, _marker(proj, c[0], "implementer", c[1])), calls))
    assert results == [None] * len(calls)  # every registration: no decision
    roles = fast.load_session_roles(proj)
    assert set(roles) == {c[0] for c in calls}
    for key, owns in calls:
        assert roles[key].role == "implementer" and list(roles[key].owns) == owns
    assert SESSION not in roles


def test_escalation_racing_a_reregistration_never_wins(exe, env, proj):
    _warm(exe, env, proj)
    reviewers = [f"agent-rev-{i}" for i in range(4)]
    for r in reviewers:
        fast.update_session_roles(proj, lambda roles, r=r: {**roles,
                                                            r: fast.role_entry("reviewer")})
    calls = [(r, role) for r in reviewers for role in ("lead", "reviewer", "implementer",
                                                       "lead")]
    random.Random(7).shuffle(calls)
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda c: _call(exe, env, _marker(proj, c[0], c[1])), calls))
    for (who, role), reason in zip(calls, results, strict=True):
        if role == "reviewer":
            assert reason is None, (who, reason)
        else:
            assert reason is not None and reason.startswith("gateway GW805: "), (who, role,
                                                                                reason)
    roles = fast.load_session_roles(proj)
    assert {k: v.role for k, v in roles.items()} == {r: "reviewer" for r in reviewers}


def test_registrations_race_other_state_writers(exe, env, proj):
    """Hooks registering while the orchestration appends and rewrites the other state files
    (and rewrites the roles file itself, as `gateway state` does): nothing is lost."""
    _warm(exe, env, proj)
    signals = os.path.join(proj, ".claude/state/breezing-signals.jsonl")
    stop = time.monotonic() + 60

    def other_writers(n):
        for i in range(n):
            store.append_jsonl(signals, {"signal": "x", "i": i}, timeout=30)
            fast.update_session_roles(proj, lambda roles, i=i: {
                **roles, f"lib-{i}": fast.role_entry("reviewer")}, timeout=30)
            if time.monotonic() > stop:
                break

    with ThreadPoolExecutor(max_workers=8) as pool:
        side = pool.submit(other_writers, 30)
        results = list(pool.map(
            lambda i: _call(exe, env, _marker(proj, f"agent-h-{i}", "reviewer")), range(20)))
        side.result()
    assert results == [None] * 20
    roles = fast.load_session_roles(proj)
    assert {f"agent-h-{i}" for i in range(20)} | {f"lib-{i}" for i in range(30)} == set(roles)
    assert len(store.read_jsonl(signals).records) == 30


def test_hook_killed_mid_registration_leaves_a_whole_file(exe, env, proj):
    _warm(exe, env, proj)
    base = {f"agent-old-{i}": fast.role_entry("implementer", [f"src/m{i}/**"])
            for i in range(2500)}  # a large file makes a write take a while
    fast.update_session_roles(proj, lambda roles: base)
    path = os.path.join(proj, ".claude/state/breezing-session-roles.json")
    rng = random.Random(4321)
    registered = set()
    for n in range(16):
        key = f"agent-new-{n}"
        p = subprocess.Popen([exe, "hook", "post-tool-use"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        p.stdin.write(_marker(proj, key, "reviewer"))
        p.stdin.close()
        time.sleep(rng.uniform(0.02, 0.5))
        p.send_signal(signal.SIGKILL)
        p.wait()
        p.stdout.close()
        p.stderr.close()
        roles = fast.load_session_roles(proj)  # raises on a torn or half-written file
        assert set(base) <= set(roles)
        assert set(roles) - set(base) <= registered | {key}
        if key in roles:
            registered.add(key)
        with store.FileLock(path, timeout=2):  # the killed hook's lock died with it
            pass
    # and the hook still works afterwards
    assert _call(exe, env, _marker(proj, "agent-after", "reviewer")) is None
    assert fast.load_session_roles(proj)["agent-after"].role == "reviewer"
    print("registrations that finished before the kill:", len(registered))
