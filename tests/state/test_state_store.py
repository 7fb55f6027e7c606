"""Unit tests of gateway.state.store: atomic writes, strict reads, locks, JSONL."""

import json
import os
import signal
import stat
import subprocess
import sys
import textwrap
import time

import pytest

from gateway.state import store
from gateway.state.store import (
    DELETE,
    FileLock,
    StateCorrupt,
    StateError,
    StateLocked,
    StateMissing,
    StateTooLarge,
    StateUnsafe,
)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ENV = {**os.environ, "PYTHONPATH": ROOT}

# --------------------------------------------------------------------------------------------
# atomic writes
# --------------------------------------------------------------------------------------------


def test_atomic_write_creates_dir_0700_and_file_0600(tmp_path):
    d = tmp_path / "a" / "b"
    p = d / "f.json"
    old = os.umask(0o022)
    try:
        store.atomic_write_json(p, {"x": 1})
    finally:
        os.umask(old)
    assert json.loads(p.read_text()) == {"x": 1}
    assert stat.S_IMODE(os.stat(p).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(d).st_mode) == 0o700
    assert os.listdir(d) == ["f.json"]          # no temp file left


def test_atomic_write_replaces_and_keeps_no_temp(tmp_path):
    p = tmp_path / "f.json"
    store.atomic_write_bytes(p, b"one")
    store.atomic_write_bytes(p, b"two")
    assert p.read_bytes() == b"two"
    assert sorted(os.listdir(tmp_path)) == ["f.json"]


def test_atomic_write_refuses_a_symlink_and_leaves_both_alone(tmp_path):
    """A state file that is a link is refused by a writer with the sentence a reader (the
    guards) gives: never written through, never replaced (issue 29)."""
    target = tmp_path / "outside.txt"
    target.write_text("precious")
    link = tmp_path / "state.json"
    link.symlink_to(target)
    with pytest.raises(StateUnsafe) as exc:
        store.atomic_write_json(link, {"a": 1})
    with pytest.raises(StateUnsafe) as read:
        store.read_json(link)
    assert str(exc.value) == str(read.value)
    assert "is a symbolic link; state files are never followed" in str(exc.value)
    assert target.read_text() == "precious"
    assert link.is_symlink()
    assert sorted(os.listdir(tmp_path)) == ["outside.txt", "state.json"]


def test_atomic_write_refuses_a_fifo(tmp_path):
    fifo = tmp_path / "state.json"
    os.mkfifo(fifo)
    with pytest.raises(StateUnsafe) as exc:
        store.atomic_write_json(fifo, {"a": 1})
    with pytest.raises(StateUnsafe) as read:
        store.read_json(fifo)
    assert str(exc.value) == str(read.value)
    assert "is not a regular file" in str(exc.value)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_atomic_write_refuses_directory_target(tmp_path):
    (tmp_path / "d").mkdir()
    with pytest.raises(StateUnsafe, match="is a directory"):
        store.atomic_write_bytes(tmp_path / "d", b"x")


def test_atomic_write_failure_removes_temp(tmp_path, monkeypatch):
    p = tmp_path / "f.json"
    store.atomic_write_bytes(p, b"old")

    def boom(*a):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(store.os, "fsync", boom)
    with pytest.raises(StateError) as ei:   # a located error, never a bare OSError
        store.atomic_write_bytes(p, b"new")
    monkeypatch.undo()
    assert f"state file {p}: cannot be written: No space left on device" in str(ei.value)
    assert p.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["f.json"]


def test_dumps_json_handles_lone_surrogates():
    data = store.dumps_json({"s": "\ud800x", "j": "日本"})
    assert json.loads(data) == {"s": "\ud800x", "j": "日本"}


def test_atomic_write_rejects_nan(tmp_path):
    with pytest.raises(ValueError):
        store.atomic_write_json(tmp_path / "f.json", {"x": float("nan")})
    assert not (tmp_path / "f.json").exists()


# --------------------------------------------------------------------------------------------
# strict reads: every failure names the file, says what is wrong and how to repair
# --------------------------------------------------------------------------------------------


def _err(tmp_path, content: bytes, **kw) -> StateError:
    p = tmp_path / "breezing-active.json"
    p.write_bytes(content)
    with pytest.raises(StateError) as ei:
        store.read_json(p, **kw)
    msg = str(ei.value)
    assert str(p) in msg and "To repair:" in msg
    return ei.value


def test_read_json_ok_and_bom(tmp_path):
    p = tmp_path / "f.json"
    p.write_bytes(b'\xef\xbb\xbf{"a": [1, 2]}')
    assert store.read_json(p) == {"a": [1, 2]}


def test_read_json_missing(tmp_path):
    with pytest.raises(StateMissing) as ei:
        store.read_json(tmp_path / "nope.json")
    assert "nope.json" in str(ei.value)


def test_a_file_where_a_directory_must_be_is_broken_not_missing(tmp_path):
    # issue 14: ".claude/state" as a regular file was read as "no session"
    (tmp_path / "file").write_text("x")
    with pytest.raises(StateUnsafe) as ei:
        store.read_json(tmp_path / "file" / "x.json")
    assert not isinstance(ei.value, StateMissing)
    assert "a parent of it is not a directory" in str(ei.value)


def test_truncated_json_reports_line_and_column(tmp_path):
    e = _err(tmp_path, b'{\n  "session_id": "breezing-1",\n  "impl_mode": "co')
    assert isinstance(e, StateCorrupt)
    assert "ends early" in str(e) and "line 3" in str(e) and "column" in str(e)


def test_invalid_json_reports_line_and_column(tmp_path):
    e = _err(tmp_path, b'{\n  "a": 1,\n  "b": tru\n}')
    assert isinstance(e, StateCorrupt)
    assert "not valid JSON" in str(e) and "line 3 column" in str(e)


def test_empty_file_is_corrupt(tmp_path):
    e = _err(tmp_path, b"")
    assert isinstance(e, StateCorrupt) and "empty" in str(e)
    e = _err(tmp_path, b"  \n")
    assert "empty" in str(e)


def test_garbage_bytes(tmp_path):
    e = _err(tmp_path, bytes(range(256)) * 4)
    assert isinstance(e, StateCorrupt)


def test_non_utf8_reports_position(tmp_path):
    e = _err(tmp_path, b'{"a":\n "caf\xe9"}')
    assert isinstance(e, StateCorrupt)
    assert "not UTF-8" in str(e) and "0xe9" in str(e) and "line 2" in str(e)


def test_duplicate_keys_are_refused(tmp_path):
    e = _err(tmp_path, b'{"impl_mode": "codex", "impl_mode": "standard"}')
    assert "appears twice" in str(e) and "impl_mode" in str(e)


def test_nan_infinity_refused(tmp_path):
    for lit in (b"NaN", b"Infinity", b"-Infinity"):
        e = _err(tmp_path, b'{"a": ' + lit + b"}")
        assert isinstance(e, StateCorrupt)


def test_deep_nesting_is_refused(tmp_path):
    e = _err(tmp_path, b"[" * 100_000 + b"]" * 100_000)
    assert isinstance(e, StateCorrupt) and "nested too deeply" in str(e)
    e = _err(tmp_path, b'{"a":' * 100 + b"1" + b"}" * 100)
    assert "nested too deeply" in str(e)
    # 64 levels are fine
    p = tmp_path / "ok.json"
    p.write_bytes(b"[" * 64 + b"]" * 64)
    store.read_json(p)


def test_huge_integer_refused(tmp_path):
    e = _err(tmp_path, b'{"a": ' + b"9" * 5000 + b"}")
    assert isinstance(e, StateCorrupt)


def test_huge_file_bounded(tmp_path):
    p = tmp_path / "big.json"
    with open(p, "wb") as f:
        f.write(b'{"a": "')
        f.seek(50 << 20)
        f.write(b'"}')
    with pytest.raises(StateTooLarge) as ei:
        store.read_json(p)
    assert str(p) in str(ei.value) and "limit" in str(ei.value)
    assert isinstance(ei.value, StateCorrupt)


def test_symlink_is_not_followed(tmp_path):
    target = tmp_path / "t.json"
    target.write_text('{"role": "lead"}')
    link = tmp_path / "l.json"
    link.symlink_to(target)
    with pytest.raises(StateUnsafe, match="symbolic link"):
        store.read_json(link)


def test_fifo_and_directory_refused_without_blocking(tmp_path):
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    with pytest.raises(StateUnsafe, match="not a regular file"):
        store.read_json(fifo)
    (tmp_path / "dir.json").mkdir()
    with pytest.raises(StateUnsafe, match="directory"):
        store.read_json(tmp_path / "dir.json")


def test_custom_repair_hint(tmp_path):
    p = tmp_path / "x.json"
    p.write_text("{")
    with pytest.raises(StateCorrupt) as ei:
        store.read_json(p, repair="do the thing")
    assert ei.value.repair == "do the thing"
    assert str(ei.value).endswith("To repair: do the thing")
    assert ei.value.path == str(p)


def test_loads_strict_on_text():
    assert store.loads_strict('{"a": 1}', source="content") == {"a": 1}
    with pytest.raises(StateCorrupt, match="content"):
        store.loads_strict("{", source="content")


# --------------------------------------------------------------------------------------------
# update_json / delete_file
# --------------------------------------------------------------------------------------------


def test_update_json_default_and_delete(tmp_path):
    p = tmp_path / "c.json"
    with pytest.raises(StateMissing):
        store.update_json(p, lambda v: v)
    assert store.update_json(p, lambda v: {**v, "n": v["n"] + 1}, default={"n": 0}) == {"n": 1}
    assert store.update_json(p, lambda v: {**v, "n": v["n"] + 1}, default={"n": 0}) == {"n": 2}
    assert store.update_json(p, lambda v: DELETE) is DELETE
    assert not p.exists()


def test_update_json_default_is_copied(tmp_path):
    default = {"items": []}
    store.update_json(tmp_path / "a.json", lambda v: (v["items"].append(1), v)[1], default=default)
    assert default == {"items": []}


def test_update_json_sentinel_default_distinguishes_null(tmp_path):
    p = tmp_path / "n.json"
    sentinel = object()
    seen = []
    store.update_json(p, lambda v: (seen.append(v), {"a": 1})[1], default=sentinel)
    assert seen == [sentinel]
    p.write_text("null")
    store.update_json(p, lambda v: (seen.append(v), {"a": 1})[1], default=sentinel)
    assert seen[-1] is None


def test_update_json_exception_leaves_file(tmp_path):
    p = tmp_path / "c.json"
    store.atomic_write_json(p, {"n": 1})

    def bad(v):
        raise RuntimeError("nope")
    with pytest.raises(RuntimeError):
        store.update_json(p, bad)
    assert json.loads(p.read_text()) == {"n": 1}


def test_update_json_refuses_corrupt_file_and_keeps_it(tmp_path):
    p = tmp_path / "c.json"
    p.write_bytes(b'{"n": 1')
    called = []
    with pytest.raises(StateCorrupt):
        store.update_json(p, lambda v: called.append(v) or {"n": 0}, default={"n": 0})
    assert called == []
    assert p.read_bytes() == b'{"n": 1'


def test_delete_file(tmp_path):
    p = tmp_path / "x.json"
    assert store.delete_file(p) is False
    p.write_text("{}")
    assert store.delete_file(p) is True
    assert not p.exists()
    link = tmp_path / "l.json"
    link.symlink_to(tmp_path / "target")
    (tmp_path / "target").write_text("keep")
    assert store.delete_file(link) is True
    assert (tmp_path / "target").read_text() == "keep"


# --------------------------------------------------------------------------------------------
# FileLock
# --------------------------------------------------------------------------------------------

HOLDER = textwrap.dedent("""
    import sys, time
    from gateway.state.store import FileLock
    with FileLock(sys.argv[1], shared=sys.argv[2] == "sh"):
        print("locked", flush=True)
        time.sleep(60)
""")


def _hold(path, shared=False):
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(path), "sh" if shared else "ex"],
                            stdout=subprocess.PIPE, text=True,
                            env=ENV)
    assert proc.stdout.readline().strip() == "locked"
    return proc


def test_lock_path_is_hidden(tmp_path):
    assert store.lock_path_for(tmp_path / "breezing-role-x.json") == \
        str(tmp_path / ".breezing-role-x.json.lock")


def test_lock_timeout_names_live_holder(tmp_path):
    p = tmp_path / "f.json"
    proc = _hold(p)
    try:
        t = time.monotonic()
        with pytest.raises(StateLocked) as ei:
            with FileLock(p, timeout=0.3):
                pass
        assert time.monotonic() - t > 0.25   # it waited its timeout before giving up
        assert ei.value.holder_pid == proc.pid
        msg = str(ei.value)
        assert f"pid {proc.pid}" in msg and "running" in msg and str(p) in msg
    finally:
        proc.kill()
        proc.wait()


def test_stale_lock_of_killed_holder_is_recovered(tmp_path):
    p = tmp_path / "f.json"
    proc = _hold(p)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    with FileLock(p, timeout=2):    # taken at once, not after a stale-lock timeout
        pass


def test_shared_locks_coexist_and_block_writers(tmp_path):
    p = tmp_path / "f.jsonl"
    proc = _hold(p, shared=True)
    try:
        with FileLock(p, timeout=0.5, shared=True):
            pass
        with pytest.raises(StateLocked):
            with FileLock(p, timeout=0.2):
                pass
        with pytest.raises(StateLocked):
            store.append_jsonl(p, {"a": 1}, timeout=0.2)
    finally:
        proc.kill()
        proc.wait()


def test_lock_is_reentrant_per_thread(tmp_path):
    p = tmp_path / "f.json"
    with FileLock(p, timeout=0.2):
        with FileLock(p, timeout=0.2):
            store.update_json(p, lambda v: {"n": 1}, default={}, timeout=0.2)
        # still held after the inner exit
        code = ("import sys; from gateway.state.store import FileLock, StateLocked\n"
                "try:\n  FileLock(sys.argv[1], timeout=0.1).__enter__()\n"
                "except StateLocked: sys.exit(3)\n")
        r = subprocess.run([sys.executable, "-c", code, str(p)],
                           env=ENV)
        assert r.returncode == 3
    with FileLock(p, timeout=0.2):
        pass


def test_lock_upgrade_from_shared_is_refused(tmp_path):
    p = tmp_path / "f.json"
    with FileLock(p, shared=True):
        with pytest.raises(RuntimeError):
            with FileLock(p):
                pass


def test_lock_threads_exclude_each_other(tmp_path):
    import threading
    p = tmp_path / "c.json"
    store.atomic_write_json(p, {"n": 0})

    def work():
        for _ in range(50):
            store.update_json(p, lambda v: {"n": v["n"] + 1})
    ts = [threading.Thread(target=work) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert store.read_json(p) == {"n": 200}


def test_lock_file_symlink_refused(tmp_path):
    p = tmp_path / "f.json"
    (tmp_path / ".f.json.lock").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(StateUnsafe):
        with FileLock(p, timeout=0.1):
            pass
    assert not (tmp_path / "elsewhere").exists()


# --------------------------------------------------------------------------------------------
# JSONL
# --------------------------------------------------------------------------------------------


def test_append_and_read_jsonl(tmp_path):
    p = tmp_path / "s.jsonl"
    res = store.read_jsonl(p)
    assert res.missing and res.records == [] and res.ok
    store.append_jsonl(p, {"a": 1, "s": "日本"})
    store.append_jsonl(p, {"a": 2})
    assert p.read_bytes() == '{"a":1,"s":"日本"}\n{"a":2}\n'.encode()
    res = store.read_jsonl(p)
    assert res.records == [{"a": 1, "s": "日本"}, {"a": 2}] and res.lines == [1, 2] and res.ok
    assert stat.S_IMODE(os.stat(p).st_mode) == 0o600


def test_append_rejects_non_dict_and_oversize(tmp_path):
    p = tmp_path / "s.jsonl"
    with pytest.raises(TypeError):
        store.append_jsonl(p, [1])
    with pytest.raises(ValueError):
        store.append_jsonl(p, {"x": "a" * (store.MAX_LINE_BYTES + 1)})
    assert not p.exists()


def test_read_jsonl_reports_bad_lines_never_drops(tmp_path):
    p = tmp_path / "s.jsonl"
    p.write_bytes(b'{"a":1}\n\n{"b":\n[1,2]\n\xff\xfe\n{"c":3}\n{"torn":')
    res = store.read_jsonl(p)
    assert res.records == [{"a": 1}, {"c": 3}]
    assert res.lines == [1, 6]
    assert [e.lineno for e in res.errors] == [3, 4, 5, 7]
    assert "object" in res.errors[1].problem
    assert "UTF-8" in res.errors[2].problem
    assert res.errors[3].torn and "incomplete last line" in res.errors[3].problem
    assert not res.ok
    with pytest.raises(StateCorrupt) as ei:
        res.raise_for_errors()
    msg = str(ei.value)
    assert str(p) in msg and "line 3" in msg and "line 7" in msg and "4 unreadable" in msg


def test_append_after_torn_tail_keeps_records_apart(tmp_path):
    p = tmp_path / "s.jsonl"
    p.write_bytes(b'{"a":1}\n{"half":')
    store.append_jsonl(p, {"b": 2})
    res = store.read_jsonl(p)
    assert res.records == [{"a": 1}, {"b": 2}]
    assert [e.lineno for e in res.errors] == [2] and not res.errors[0].torn


def test_final_line_without_newline_but_valid_is_a_record(tmp_path):
    p = tmp_path / "s.jsonl"
    p.write_bytes(b'{"a":1}\n{"b":2}')
    res = store.read_jsonl(p)
    assert res.records == [{"a": 1}, {"b": 2}] and res.ok


def test_read_jsonl_too_large(tmp_path):
    p = tmp_path / "s.jsonl"
    p.write_bytes(b'{"a":1}\n' * 100)
    with pytest.raises(StateTooLarge):
        store.read_jsonl(p, max_bytes=100)


def test_rotate_jsonl(tmp_path):
    p = tmp_path / "t.jsonl"
    assert store.rotate_jsonl(p, 10, 5) == 0
    for i in range(12):
        store.append_jsonl(p, {"i": i})
    assert store.rotate_jsonl(p, 12, 5) == 0
    assert store.rotate_jsonl(p, 10, 5) == 7
    assert [r["i"] for r in store.read_jsonl(p).records] == [7, 8, 9, 10, 11]
    with pytest.raises(ValueError):
        store.rotate_jsonl(p, 5, 6)


def test_append_with_rotation_bounds_the_file(tmp_path):
    p = tmp_path / "t.jsonl"
    for i in range(1200):
        store.append_jsonl(p, {"event": "x", "i": i}, max_lines=500, keep_lines=400)
    recs = store.read_jsonl(p).records
    assert 400 <= len(recs) <= 500
    assert recs[-1]["i"] == 1199
    assert [r["i"] for r in recs] == list(range(1200 - len(recs), 1200))


def test_rotate_oversized_file_keeps_tail(tmp_path, monkeypatch):
    p = tmp_path / "t.jsonl"
    p.write_bytes(b"".join(b'{"i":%d}\n' % i for i in range(1000)))
    monkeypatch.setattr(store, "MAX_JSONL_BYTES", 200)
    with FileLock(p):
        dropped = store._rotate_locked(str(p), 10_000, 5, max_bytes=200)
    recs = store.read_jsonl(p).records
    assert [r["i"] for r in recs] == [995, 996, 997, 998, 999]
    assert dropped == 995


def test_update_jsonl(tmp_path):
    p = tmp_path / "s.jsonl"
    assert store.update_jsonl(p, lambda rs: rs) == []
    assert not p.exists()
    for i in range(3):
        store.append_jsonl(p, {"i": i})
    store.update_jsonl(p, lambda rs: [{**r, "consumed_at": "t"} for r in rs if r["i"] != 1])
    assert store.read_jsonl(p).records == [{"i": 0, "consumed_at": "t"},
                                           {"i": 2, "consumed_at": "t"}]


def test_update_jsonl_refuses_when_lines_are_bad(tmp_path):
    p = tmp_path / "s.jsonl"
    p.write_bytes(b'{"i":0}\nbroken\n')
    with pytest.raises(StateCorrupt, match="line 2"):
        store.update_jsonl(p, lambda rs: [])
    assert p.read_bytes() == b'{"i":0}\nbroken\n'


def test_jsonl_symlink_refused(tmp_path):
    target = tmp_path / "target"
    target.write_text("")
    p = tmp_path / "s.jsonl"
    p.symlink_to(target)
    with pytest.raises(StateUnsafe):
        store.append_jsonl(p, {"a": 1})
    with pytest.raises(StateUnsafe):
        store.read_jsonl(p)
    assert target.read_text() == ""


# --------------------------------------------------------------------------------------------
# leftovers
# --------------------------------------------------------------------------------------------


def test_stale_temp_files(tmp_path):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = tmp_path / f".f.json.tmp-{dead.pid}-abcd1234"
    stale.write_text("half")
    live = tmp_path / f".f.json.tmp-{os.getppid()}-abcd1234"
    live.write_text("in progress")
    (tmp_path / "f.json").write_text("{}")
    (tmp_path / ".f.json.lock").write_text("")
    assert store.stale_temp_files(tmp_path) == [str(stale)]


def test_store_imports_no_pydantic():
    code = ("import sys, gateway.state.store, gateway.state.fast, gateway.state.layout\n"
            "bad = [m for m in sys.modules if m.split('.')[0] in ('pydantic', 'click', 'bashlex')]\n"
            "assert not bad, bad\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=ENV)
    assert r.returncode == 0, r.stderr


def test_lock_file_fifo_refused(tmp_path):
    os.mkfifo(tmp_path / ".f.json.lock")
    with pytest.raises(StateUnsafe, match="not a regular file"):
        with FileLock(tmp_path / "f.json", timeout=0.1):
            pass
