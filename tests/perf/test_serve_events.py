"""`gateway serve` answers every hook event over the hook socket (issue 25), and a
state-writing event is applied exactly once: by the server or by the hook process, never by
both (gateway._resident, "Exactly once").

Through the real entry points: the real `gateway hook <event>` command with raw JSON on
stdin, a real `gateway serve` process (running, not running, killed mid-call), and the
state the hooks write on disk. The two races a timeout opens are driven in one process,
where the test can hold the server at the exact point: before it takes the call (the hook
then applies it itself and the server refuses it) and after (the hook then waits for the
server's answer and does not apply it again)."""

import fcntl
import io
import json
import os
import sys
import shutil
import signal
import subprocess
import threading
import time

import pytest

from gateway import _resident
from gateway import server as srv
from gateway.cli.bench import _free_port
from gateway.hooks import runner
from gateway.orchestration import progress
from gateway.state.locks import lock_path_for
from tests.reliability import harness
from tests.reliability.test_linked_stores import EVENT_NAMES, HOOKS, build, env_for, snapshot

TOKEN = "t" * 43


def test_every_hook_event_is_served():
    assert set(_resident.FORWARDED) == set(runner.events())
    for name, event in _resident.EVENTS.items():
        assert runner.module_for(name).EVENT == event
    # a hook that decides nothing but writes state is not "pure": it carries a call id
    assert set(_resident.PURE) == {"permission-request", "pre-tool-use"}


# --- a real `gateway serve` and real hook processes -----------------------------------------


_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _serve(env, *extra):
    server_env = {k: v for k, v in env.items() if k not in ("GATEWAY_RESIDENT",
                                                            "CLAUDE_PROJECT_DIR")}
    # the server imports the same copy of the package as the hooks (launch.hook_argv: this
    # test process's sys.path); an installed console script may import another (CI installs
    # non-editable) and the server then refuses every call as another package's
    proc = subprocess.Popen([sys.executable, "-m", "gateway", "serve", "--port",
                             str(_free_port()), "-v", *extra], cwd=_REPO,
                            env=server_env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    path = _resident.socket_path(env)
    deadline = time.monotonic() + 60
    while not os.path.exists(path):
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
        time.sleep(0.05)
    time.sleep(0.3)
    return proc


def _stop(proc) -> str:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        _, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
    return err.decode("utf-8", "replace")


def _hook(event, payload, env, **popen):
    return subprocess.run(harness.hook_argv(event), input=json.dumps(payload).encode(),
                          env=env, cwd=env["CLAUDE_PROJECT_DIR"], capture_output=True,
                          timeout=120, **popen)


def _calls(proj):
    out = []
    for event, bodies in HOOKS.items():
        for body in bodies:
            out.append((event, {"session_id": "S1", "cwd": proj,
                                "hook_event_name": EVENT_NAMES[event], **body(proj)}))
    return out


def _untimed(text: str) -> str:
    import re

    text = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)?", "T", text)
    text = re.sub(r"\b[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}\b", "U", text)
    return re.sub(r"\b\d{10}(\.\d+)?\b", "N", text)


def _state(proj) -> dict:
    """What the hooks wrote: every file under the project's state stores, with the times
    and the random ids of a run taken out."""
    import re

    snap = {}
    for sub in (".claude", "agent-coord"):
        where = os.path.join(proj, sub)
        if os.path.isdir(where):
            for rel, value in snapshot(where).items():
                snap[f"{sub}/{rel}"] = value
    out = {}
    for rel, value in snap.items():
        if re.search(r"\.(lock|tmp[-\w.]*)$|-(wal|shm|journal)$", rel):
            continue
        path = os.path.join(proj, rel)
        if value[1] is not None and rel.endswith((".sqlite3", ".db")):
            import sqlite3

            db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            try:
                value = (value[0], _untimed("\n".join(db.iterdump())))
            finally:
                db.close()
        elif value[1] is not None and rel.endswith((".json", ".jsonl", ".md")):
            with open(path, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
            value = (value[0], _untimed(text))
        out[rel] = value
    return out


def test_every_event_answers_and_writes_the_same_served_or_not(tmp_path):
    # every hook event, with the payloads that make it read or write a store
    # (tests/reliability/test_linked_stores.py), run as real hook processes on the same
    # project twice: alone, then with `gateway serve` answering: the same output for each
    # call and the same state on disk at the end; the server answered every one
    root = str(tmp_path / "r")
    results = []
    for served in (False, True):
        shutil.rmtree(root, ignore_errors=True)
        os.makedirs(root)
        proj = build(root)
        env = env_for(root, proj)
        proc = None
        if served:
            env = dict(env, GATEWAY_RESIDENT="")
            proc = _serve(env)
        try:
            outs = []
            for event, payload in _calls(proj):
                p = _hook(event, payload, env)
                assert p.returncode == 0 and "Traceback" not in p.stderr.decode(), p.stderr
                outs.append((event, _untimed(p.stdout.decode())))
        finally:
            log = _stop(proc) if proc else ""
        results.append((outs, _state(proj)))
        if served:
            answered = log.count("hook socket: ")
            assert answered == len(outs) and log.count(" answered") == len(outs), log
            # nothing taken is left over: the hook forgot each call once answered
            assert os.listdir(_resident.calls_dir(_resident.socket_path(env))) == []
    (alone, alone_state), (fast, fast_state) = results
    assert fast == alone
    assert fast_state == alone_state
    assert any(out for _, out in alone), "no hook printed anything: the payloads are wrong"


def _task_record(proj) -> dict:
    path = os.path.join(proj, ".claude", "state", progress.FILE)
    if not os.path.exists(path):
        return {}
    with open(path) as fh:
        return json.load(fh).get("created", {})


class _Held:
    """The progress store's lock, held by the test (flock, as the store takes it)."""

    def __init__(self, proj):
        path = lock_path_for(progress._path(proj))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        self.fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(self.fd, fcntl.LOCK_EX)

    def release(self):
        if self.fd is not None:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = None


def _created(proj, task="5"):
    return {"session_id": "S1", "cwd": proj, "hook_event_name": "TaskCreated",
            "task_id": task, "task_subject": "export", "task_description": "export the users"}


def test_a_server_killed_mid_call_is_never_applied_twice(tmp_path):
    # the server takes a TaskCreated, waits for the progress store's lock (held here), and is
    # killed (SIGKILL) in the middle: the hook does not apply the call again in-process --
    # the server may have written it -- prints nothing (these hooks never allow or block)
    # and says why on stderr; with the server gone, the next call is decided in-process
    root = str(tmp_path)
    proj = build(root)
    env = dict(env_for(root, proj), GATEWAY_RESIDENT="")
    calls = _resident.calls_dir(_resident.socket_path(env))
    proc = _serve(env)
    held = _Held(proj)
    try:
        hook = subprocess.Popen(harness.hook_argv("task-created"), env=env, cwd=proj,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        hook.stdin.write(json.dumps(_created(proj)).encode())
        hook.stdin.close()
        hook.stdin = None
        deadline = time.monotonic() + 30
        while not os.listdir(calls):  # the server has taken the call
            assert time.monotonic() < deadline and hook.poll() is None
            time.sleep(0.02)
        proc.kill()
        out, err = hook.communicate(timeout=60)
    finally:
        held.release()
        _stop(proc)
    assert hook.returncode == 0
    assert out == b""
    assert b"took this TaskCreated call and gave no answer" in err, err
    assert "5" not in json.dumps(_task_record(proj))  # the server died before writing it
    # the socket file is left behind by the killed server: a hook now decides in-process
    assert os.path.exists(_resident.socket_path(env))
    p = _hook("task-created", _created(proj, "6"), env)
    assert p.returncode == 0 and p.stdout == b"" and p.stderr == b"", p.stderr
    assert [v["task_id"] for v in _task_record(proj).values()] == ["6"]


def test_a_server_that_is_not_running_changes_nothing(tmp_path):
    root = str(tmp_path)
    proj = build(root)
    env = dict(env_for(root, proj), GATEWAY_RESIDENT="")
    p = _hook("task-created", _created(proj), env)
    assert p.returncode == 0 and p.stdout == b"" and p.stderr == b""
    assert [v["task_id"] for v in _task_record(proj).values()] == ["5"]
    assert not os.path.exists(os.path.dirname(_resident.socket_path(env)) + "/calls")


# --- the two races, in one process: the server held before or after it takes the call -------


@pytest.fixture()
def resident(tmp_path, isolated_env):
    root = str(tmp_path)
    proj = build(root)
    env = dict(env_for(root, proj), GATEWAY_RESIDENT="")
    saved = dict(os.environ)
    os.environ.update({k: v for k, v in env.items() if k != "CLAUDE_PROJECT_DIR"})
    httpd = srv.make_server(port=0, token=TOKEN)
    listener = srv.ResidentListener(httpd)
    listener.start()
    yield httpd, listener, proj, env
    listener.close()
    httpd.server_close()
    os.environ.clear()
    os.environ.update(saved)


def _run_hook(event, payload, env, timeout):
    """gateway.hooks.runner.run (what `gateway hook` runs), its wait on the socket shortened
    from TIMEOUT to `timeout` seconds."""
    import functools

    out = io.StringIO()
    saved = _resident.forward
    _resident.forward = functools.partial(saved, timeout=timeout)
    try:
        runner.run(event, stdin=io.BytesIO(json.dumps(payload).encode()), stdout=out, env=env)
    finally:
        _resident.forward = saved
    return out.getvalue()


def _audit_lines(path):
    if not os.path.exists(path):
        return []
    with open(path) as fh:
        return [json.loads(line) for line in fh]


def test_a_call_the_hook_stopped_waiting_for_is_applied_by_the_hook_only(resident, tmp_path):
    # the server is busy (its decision lock held here) when a PostToolUse arrives: the hook
    # stops waiting, takes the call and decides in-process (one audit line); the server,
    # free again, finds the call taken and refuses it: still one audit line
    httpd, listener, proj, env = resident
    audit = str(tmp_path / "audit.jsonl")
    env = dict(env, GATEWAY_AUDIT_LOG=audit)
    payload = {"session_id": "S1", "cwd": proj, "hook_event_name": "PostToolUse",
               "tool_name": "Bash", "tool_input": {"command": "ls"},
               "tool_response": {"stdout": "a.txt\n", "stderr": "", "interrupted": False}}
    before = httpd.count
    with httpd._lock:
        _run_hook("post-tool-use", payload, env, timeout=0.5)
        assert len(_audit_lines(audit)) == 1
    deadline = time.monotonic() + 20
    while listener.refused == 0:
        assert time.monotonic() < deadline, "the server never refused the call"
        time.sleep(0.02)
    assert httpd.count == before
    lines = _audit_lines(audit)
    assert [(x["event"], x["command"]) for x in lines] == [("PostToolUse", "ls")]
    # unhindered, the server answers it: one more line, written by the server
    _run_hook("post-tool-use", payload, env, timeout=10)
    assert httpd.count == before + 1 and len(_audit_lines(audit)) == 2


def test_a_call_the_server_took_is_awaited_not_applied_again(resident):
    # the server has taken a TaskCreated and waits for the progress lock (held here) when
    # the hook stops waiting on the socket: the hook finds the call taken and waits for the
    # server's answer instead of applying it itself; the record holds the task once,
    # written by the server (and the run's output is the server's: nothing)
    httpd, listener, proj, env = resident
    held = _Held(proj)
    timer = threading.Timer(1.5, held.release)
    timer.start()
    try:
        before = httpd.count
        started = time.monotonic()
        out = _run_hook("task-created", _created(proj), env, timeout=0.3)
        waited = time.monotonic() - started
    finally:
        timer.join()
        held.release()
    assert out == ""
    assert waited >= 1.0  # it waited for the server past its own socket timeout
    assert httpd.count == before + 1 and listener.refused == 0
    assert [v["task_id"] for v in _task_record(proj).values()] == ["5"]
    assert os.listdir(listener.calls) == []


def test_a_forged_or_missing_call_id_is_refused(resident):
    # a state-writing event without a call id (or a pure one with one) is not served
    httpd, listener, proj, env = resident
    raw = json.dumps(_created(proj)).encode()
    for event, call in (("task-created", ""), ("permission-request", "a" * 32)):
        assert listener.answer(_resident.encode_request(event, raw, env, call), 0.0) == \
            _resident.REFUSED
    with pytest.raises(ValueError):
        _resident.decode_request(_resident.encode_request("task-created", raw, env, "../x"))
    assert _task_record(proj) == {}
