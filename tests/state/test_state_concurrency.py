"""Many processes appending to and rewriting the same state files at once: nothing is lost,
nothing is torn."""

import json
import multiprocessing as mp
import os

from gateway.state import fast, files, store

CTX = mp.get_context("fork")
PROCS = 8


def _run(target, args_list):
    ps = [CTX.Process(target=target, args=args) for args in args_list]
    for p in ps:
        p.start()
    for p in ps:
        p.join(60)
    codes = [p.exitcode for p in ps]
    assert codes == [0] * len(ps), codes


def _appender(path, worker, n):
    for i in range(n):
        store.append_jsonl(path, {"w": worker, "i": i, "pad": "x" * (worker * 37)},
                           timeout=30)


def test_parallel_appends_lose_nothing(tmp_path):
    path = str(tmp_path / "signals.jsonl")
    n = 200
    _run(_appender, [(path, w, n) for w in range(PROCS)])
    res = store.read_jsonl(path)
    assert res.ok, res.errors
    assert len(res.records) == PROCS * n
    for w in range(PROCS):        # each writer's records all there, in its own order
        assert [r["i"] for r in res.records if r["w"] == w] == list(range(n))


def _appender_rotating(path, worker, n):
    for i in range(n):
        store.append_jsonl(path, {"w": worker, "i": i}, timeout=30, max_lines=50, keep_lines=40)


def _consumer(path, n):
    # rewrites the file (as the signal injector does) while others append
    for _ in range(n):
        store.update_jsonl(path, lambda rs: [{**r, "seen": 1} for r in rs], timeout=30)


def test_appends_racing_rewrites_and_rotation_lose_nothing(tmp_path):
    """Upstream appended without the lock while the injector rewrote the file (lost signals)."""
    n = 100
    path2 = str(tmp_path / "s2.jsonl")
    args = [(path2, w, n) for w in range(4)]
    ps = [CTX.Process(target=_appender, args=a) for a in args]
    ps += [CTX.Process(target=_consumer, args=(path2, 40)) for _ in range(2)]
    for p in ps:
        p.start()
    for p in ps:
        p.join(60)
    assert [p.exitcode for p in ps] == [0] * len(ps)
    res = store.read_jsonl(path2)
    assert res.ok, res.errors
    assert sorted((r["w"], r["i"]) for r in res.records) == \
        sorted((w, i) for w in range(4) for i in range(n))


def test_rotation_under_contention_keeps_a_valid_bounded_file(tmp_path):
    path = str(tmp_path / "timeline.jsonl")
    _run(_appender_rotating, [(path, w, 100) for w in range(PROCS)])
    res = store.read_jsonl(path)
    assert res.ok, res.errors
    assert 40 <= len(res.records) <= 50
    for w in range(PROCS):        # what survives of each writer is its newest, in order
        mine = [r["i"] for r in res.records if r["w"] == w]
        assert mine == sorted(mine)


def _incrementer(path, n):
    for _ in range(n):
        store.update_json(path, lambda v: {**v, "n": v["n"] + 1, "pad": "y" * 20000},
                          default={"n": 0}, timeout=30)


def test_parallel_update_json_is_exact(tmp_path):
    path = str(tmp_path / "counter.json")
    n = 50
    _run(_incrementer, [(path, n) for _ in range(PROCS)])
    assert store.read_json(path)["n"] == PROCS * n


def _reader(path, stop_at, q):
    seen = bad = 0
    last = -1
    while last < stop_at:
        try:
            v = store.read_json(path)
        except store.StateMissing:
            continue
        except store.StateError as e:
            bad += 1
            q.put(str(e))
            break
        seen += 1
        assert len(v["pad"]) == 20000
        last = v["n"]
    q.put(("ok", seen, bad))


def test_readers_never_see_a_torn_file(tmp_path):
    path = str(tmp_path / "counter.json")
    store.atomic_write_json(path, {"n": 0, "pad": "y" * 20000})
    total = 4 * 40
    q = CTX.Queue()
    readers = [CTX.Process(target=_reader, args=(path, total, q)) for _ in range(3)]
    writers = [CTX.Process(target=_incrementer, args=(path, 40)) for _ in range(4)]
    for p in readers + writers:
        p.start()
    for p in writers:
        p.join(60)
    for p in readers:
        p.join(60)
    results = [q.get(timeout=5) for _ in readers]
    for r in results:
        assert isinstance(r, tuple) and r[0] == "ok" and r[2] == 0, r
    assert store.read_json(path)["n"] == total


def _register(project, worker, n):
    for i in range(n):
        key = f"agent-{worker}-{i}"
        fast.update_session_roles(
            project, lambda roles, key=key: roles.update({key: fast.role_entry("implementer",
                                                                               [f"src/{key}/**"])}),
            timeout=30)


def test_parallel_role_registrations_all_kept(tmp_path):
    n = 25
    _run(_register, [(str(tmp_path), w, n) for w in range(PROCS)])
    roles = fast.load_session_roles(tmp_path)
    assert len(roles) == PROCS * n
    assert files.load_session_roles(tmp_path).root.keys() == roles.keys()
    raw = json.loads(open(os.path.join(tmp_path, ".claude/state/breezing-session-roles.json")).read())
    assert raw["agent-3-7"]["owns"] == ["src/agent-3-7/**"]
