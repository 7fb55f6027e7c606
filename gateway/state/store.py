"""Crash-safe, concurrency-safe storage for the gateway's state files (stdlib only).

This module sits on the hook hot path, so it imports only the standard library (no pydantic).
Everything that touches a state file on disk goes through it:

* ``atomic_write_bytes`` / ``atomic_write_json``: a temp file in the *same* directory (created with
  ``O_EXCL|O_NOFOLLOW``, mode 0600), write, ``fsync``, ``rename`` over the target, ``fsync`` the
  directory. A reader (or a writer killed at any instant) sees the old file or the new one, never a
  mix. The temp name is ``.<name>.tmp-<pid>-<hex>``; the leading dot keeps it out of globs such as
  ``breezing-role-*.json``, and the pid lets ``stale_temp_files`` find leftovers of dead writers.
* ``FileLock``: ``fcntl.flock`` on a separate hidden lock file ``.<name>.lock`` next to the target.
  flock locks die with their process, so a crashed holder never leaves a stale lock behind (stale
  recovery is inherent). A waiter sleeps in ``flock`` until the lock is released
  (``gateway.state.lockwait``: bounded, in about the order of arrival, a hook never past its
  own timeout); a lock held too long by a *live* process raises ``StateLocked`` at the bound,
  naming the holder pid recorded in the lock file. Exclusive for writers, shared for
  JSONL readers. Re-entrant per thread (a nested ``FileLock`` on the same path is a no-op).
  Lock files are never deleted (deleting flock files races); they are hidden and tiny.
* ``read_json`` / ``loads_strict``: bounded read (size limit), regular files only (symlinks, FIFOs
  and directories are refused), strict UTF-8, strict JSON (no NaN/Infinity, no duplicate keys, a
  nesting limit). Every failure is a ``StateError`` whose message names the file, the problem
  (with line/column for JSON errors) and how to repair it. Nothing is ever replaced by a default.
* ``append_jsonl`` / ``read_jsonl`` / ``rotate_jsonl`` / ``update_jsonl``: append-only JSONL.
  Appends take the exclusive lock (the file may be rewritten by a rotation or a consumer through a
  rename, and an append to the old inode would be lost -- upstream's bug), then do one ``write`` of
  one line with ``O_APPEND`` and ``fsync``.
* ``update_json``: read-modify-write under the exclusive lock with an atomic write: no lost updates.

How a corrupt JSONL line is reported
------------------------------------
``read_jsonl`` never drops a line silently and never raises for a bad line: it returns a
``JsonlRead`` with ``records`` (the good lines, in order, each a JSON object, with ``lines`` giving
their 1-based line numbers) and ``errors`` (a ``JsonlLineError`` per bad line: line number, problem,
a short excerpt, and ``torn=True`` for a final line without its newline, i.e. an interrupted write).
Blank lines are ignored. Callers that need all-or-nothing call ``result.raise_for_errors()``, which
raises ``StateCorrupt`` naming the file and the bad line numbers. ``update_jsonl`` refuses (raises)
when the file has bad lines, so a rewrite never erases evidence. An append after a torn tail first
writes a newline so the new record never fuses with the broken one.

Reads of JSON files take no lock: writers only ever rename complete files into place.
"""

from __future__ import annotations

import _thread
import errno
import json
import os
import stat

# The errors, directories and locks live below this module (gateway.state.errors and
# gateway.state.locks, which gateway.state.temps and lockwait read too); every name stays
# importable from here.
from .errors import (  # noqa: F401
    StateCorrupt,
    StateError,
    StateInvalid,
    StateLocked,
    StateMissing,
    StateTooLarge,
    StateUnsafe,
    _default_repair,
    _pid_alive,
    safe_text,
)
from .locks import (  # noqa: F401
    _LOCK_REPAIR,
    DEFAULT_LOCK_TIMEOUT,
    DIR_MODE,
    FILE_MODE,
    FileLock,
    _fsync_dir,
    _held,
    ensure_dir,
    lock_path_for,
    open_lock_file,
)

__all__ = [
    "StateError", "StateMissing", "StateCorrupt", "StateInvalid", "StateTooLarge", "StateUnsafe",
    "StateLocked",
    "DEFAULT_LOCK_TIMEOUT", "MAX_JSON_BYTES", "MAX_JSONL_BYTES", "MAX_LINE_BYTES", "MAX_DEPTH",
    "DELETE",
    "lock_path_for", "open_lock_file", "FileLock",
    "ensure_dir", "atomic_write_bytes", "atomic_write_json", "dumps_json",
    "read_bytes", "loads_strict", "read_json", "update_json", "delete_file",
    "JsonlLineError", "JsonlRead", "append_jsonl", "read_jsonl", "parse_jsonl", "rotate_jsonl",
    "update_jsonl", "stale_temp_files", "stale_temp_names", "safe_text",
]

MAX_JSON_BYTES = 1 << 20            # 1 MiB: state JSON files are a few KiB
MAX_JSONL_BYTES = 8 << 20           # 8 MiB: the timeline is rotated at 500 lines
MAX_LINE_BYTES = 64 << 10           # one JSONL record
MAX_DEPTH = 64                      # JSON nesting; the schemas need < 6
_TEMP_MARK = ".tmp-"


# --------------------------------------------------------------------------------------------
# Atomic writes
# --------------------------------------------------------------------------------------------

def _temp_path(path: str) -> str:
    d, name = os.path.split(path)
    return os.path.join(d, f".{name}{_TEMP_MARK}{os.getpid()}-{os.urandom(4).hex()}")


def atomic_write_bytes(path, data: bytes, *, mode: int = FILE_MODE,
                       sync_dir: bool = True) -> None:
    """Replace ``path`` with ``data`` atomically and durably. Creates the directory (0700).

    A ``path`` that is a symbolic link, a FIFO or anything but a regular file is refused
    (``StateUnsafe``, the sentence a reader gives): never written through, never replaced.
    While the caller holds ``path``'s ``FileLock``, the temp files a dead writer left for
    ``path`` are removed first (``temps.sweep``). ``sync_dir=False``: the caller fsyncs the
    directory itself (after releasing its lock: the rename is durable before it answers).
    """
    path = os.fspath(path)
    directory = os.path.dirname(path) or "."
    ensure_dir(directory)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise StateError(path, f"cannot be examined: {e.strerror}",
                         f"check the permissions of {directory}") from None
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise unsafe_file(path, st.st_mode)
    if (os.getpid(), _thread.get_ident(), os.path.abspath(lock_path_for(path))) in _held:
        from . import temps

        temps.sweep(directory, only=os.path.basename(path))
    tmp = _temp_path(path)
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                     mode)
    except OSError as e:
        raise StateError(path, f"cannot be written: creating a temporary file in {directory} "
                               f"failed ({e.strerror})",
                         f"check the permissions of {directory} (the gateway needs to create "
                         f"files in it) and the free disk space") from None
    try:
        try:
            view = memoryview(data)
            while view:
                n = os.write(fd, view)
                view = view[n:]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise StateError(path, f"cannot be written: {exc.strerror or exc}",
                             f"check the permissions of {directory} and the free disk "
                             f"space") from None
        raise
    if sync_dir:
        _fsync_dir(directory)


def dumps_json(obj, *, indent: int | None = 2) -> bytes:
    """Serialise like the state files are written (UTF-8, no NaN, trailing newline)."""
    try:
        return (json.dumps(obj, ensure_ascii=False, indent=indent, allow_nan=False)
                + "\n").encode("utf-8")
    except UnicodeEncodeError:      # lone surrogates (from "\\ud800" escapes): keep them escaped
        return (json.dumps(obj, ensure_ascii=True, indent=indent, allow_nan=False)
                + "\n").encode("ascii")


def atomic_write_json(path, obj, *, indent: int | None = 2, mode: int = FILE_MODE) -> None:
    atomic_write_bytes(path, dumps_json(obj, indent=indent), mode=mode)


# --------------------------------------------------------------------------------------------
# Reads
# --------------------------------------------------------------------------------------------

def _open_regular(path: str) -> int:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise StateMissing(path) from None
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise unsafe_file(path, stat.S_IFLNK) from None
        if e.errno == errno.ENOTDIR:
            # something exists where a directory must be: broken state, never "absent"
            raise StateUnsafe(path, "a parent of it is not a directory",
                              "run `gateway state validate`: it names the path that is not a "
                              "directory and the repair") from None
        raise StateError(path, f"cannot open: {e.strerror}",
                         "check the permissions of the file and the state directory") from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise unsafe_file(path, st.st_mode)
    return fd


def unsafe_file(path: str, mode: int) -> StateUnsafe:
    """The refusal of a state file that is not a regular file: the same sentence for the
    guards' reads and for every writer."""
    if stat.S_ISLNK(mode):
        return StateUnsafe(path, "is a symbolic link; state files are never followed",
                           f"remove the link {path}; the workflow re-creates the file")
    kind = "a directory" if stat.S_ISDIR(mode) else "not a regular file"
    return StateUnsafe(path, f"is {kind}", f"remove {path}; the workflow re-creates the file")


def _too_large(path: str, size: int | str, limit: int) -> StateTooLarge:
    return StateTooLarge(path, f"is {size} bytes, over the {limit}-byte limit for this file",
                         f"no workflow step writes a file this large; inspect {path} and remove it")


def read_bytes(path, max_bytes: int = MAX_JSON_BYTES) -> bytes:
    """Read a whole regular file, refusing more than ``max_bytes``."""
    path = os.fspath(path)
    fd = _open_regular(path)
    try:
        size = os.fstat(fd).st_size
        if size > max_bytes:
            raise _too_large(path, size, max_bytes)
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, max(65536, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > max_bytes:
                raise _too_large(path, f"more than {max_bytes}", max_bytes)
        return b"".join(chunks)
    finally:
        os.close(fd)


class _DuplicateKey(ValueError):
    pass


def _no_duplicates(pairs):
    d = {}
    for k, v in pairs:
        if k in d:
            raise _DuplicateKey(k)
        d[k] = v
    return d


def _reject_constant(name):
    raise ValueError(f"{name} is not valid JSON")


def _too_deep(value, max_depth: int) -> bool:
    stack = [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict):
            if d > max_depth:
                return True
            stack.extend((c, d + 1) for c in v.values())
        elif isinstance(v, list):
            if d > max_depth:
                return True
            stack.extend((c, d + 1) for c in v)
    return False


def _line_col(data: bytes, offset: int) -> tuple[int, int]:
    line = data.count(b"\n", 0, offset) + 1
    col = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return line, col


def loads_strict(data: bytes | str, *, source, max_depth: int = MAX_DEPTH,
                 repair: str | None = None, line_offset: int = 0):
    """Parse JSON strictly; any problem raises ``StateCorrupt`` naming ``source``.

    Strict UTF-8 (a leading BOM is tolerated), no NaN/Infinity, no duplicate keys, at most
    ``max_depth`` levels of nesting, non-empty. ``line_offset`` is added to reported line numbers.
    """
    source = os.fspath(source)
    if isinstance(data, (bytes, bytearray, memoryview)):
        data = bytes(data)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            line, col = _line_col(data, e.start)
            raise StateCorrupt(source, f"is not UTF-8 text (invalid byte 0x{data[e.start]:02x} at "
                                       f"line {line + line_offset} column {col}, byte {e.start})",
                               repair) from None
    else:
        text = data
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.strip():
        raise StateCorrupt(source, "is empty (a write was interrupted or something truncated it)",
                           repair)
    try:
        value = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_reject_constant)
    except json.JSONDecodeError as e:
        where = f"line {e.lineno + line_offset} column {e.colno}"
        truncated = e.pos >= len(text.rstrip()) or e.msg.startswith("Unterminated string")
        what = "ends early (truncated or half-written)" if truncated else "is not valid JSON"
        msg = e.msg[:-3] if e.msg.endswith(" at") else e.msg  # "...starting at" + " at line"
        raise StateCorrupt(source, f"{what}: {msg} at {where}", repair) from None
    except _DuplicateKey as e:
        raise StateCorrupt(source, f"is ambiguous JSON: the key '{safe_text(e, 60)}' appears twice "
                                   f"in one object",
                           repair) from None
    except RecursionError:
        raise StateCorrupt(source, f"is nested too deeply (limit {max_depth} levels)",
                           repair) from None
    except ValueError as e:   # NaN/Infinity, integers with too many digits
        raise StateCorrupt(source, f"is not acceptable JSON: {str(e)[:200]}", repair) from None
    if _too_deep(value, max_depth):
        raise StateCorrupt(source, f"is nested too deeply (limit {max_depth} levels)", repair)
    return value


def read_json(path, *, max_bytes: int = MAX_JSON_BYTES, max_depth: int = MAX_DEPTH,
              repair: str | None = None):
    """Read and strictly parse a JSON file.

    Raises ``StateMissing`` (absent), ``StateUnsafe`` (symlink/non-regular), ``StateTooLarge``,
    ``StateCorrupt`` (empty, truncated, not UTF-8, not JSON, duplicate keys, too deep).
    """
    path = os.fspath(path)
    return loads_strict(read_bytes(path, max_bytes), source=path, max_depth=max_depth,
                        repair=repair)


# --------------------------------------------------------------------------------------------
# Read-modify-write and delete
# --------------------------------------------------------------------------------------------

class _Delete:
    def __repr__(self):
        return "DELETE"


DELETE = _Delete()      # return this from an update function to remove the file
_MISSING = object()


def update_json(path, fn, *, default=_MISSING, timeout: float = DEFAULT_LOCK_TIMEOUT,
                max_bytes: int = MAX_JSON_BYTES, indent: int | None = 2, encode=None):
    """Atomically apply ``fn(current) -> new`` to a JSON file under the exclusive lock.

    If the file is missing, ``fn`` gets ``default`` (a deep copy if it is a dict or list; any other
    object is passed as is, so a private sentinel can tell "missing" from a file holding ``null``);
    ``StateMissing`` is raised if no default was given. A corrupt file raises before ``fn`` runs and is left untouched. ``fn`` may
    return ``DELETE`` to remove the file. Returns the new value (or ``DELETE``). Exceptions from
    ``fn`` leave the file unchanged. ``encode(new) -> bytes`` replaces ``dumps_json``.

    The lock is held from the read to the rename; the directory's fsync that makes the rename
    durable comes after the lock is released (the next writer need not wait for the disk
    twice), before this returns.
    """
    path = os.fspath(path)
    with FileLock(path, timeout=timeout):
        try:
            current = read_json(path, max_bytes=max_bytes)
        except StateMissing:
            if default is _MISSING:
                raise
            current = (json.loads(json.dumps(default)) if isinstance(default, (dict, list))
                       else default)
        new = fn(current)
        if new is DELETE:
            _unlink(path)
            return new
        atomic_write_bytes(path, encode(new) if encode is not None else
                           dumps_json(new, indent=indent), sync_dir=False)
    _fsync_dir(os.path.dirname(path) or ".")
    return new


def _unlink(path: str) -> bool:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return False
    if stat.S_ISDIR(st.st_mode):
        raise StateUnsafe(path, "is a directory", f"remove the directory {path} by hand")
    try:
        os.unlink(path)
    except FileNotFoundError:
        return False
    _fsync_dir(os.path.dirname(path) or ".")
    return True


def delete_file(path, *, timeout: float = DEFAULT_LOCK_TIMEOUT) -> bool:
    """Remove ``path`` under its lock (so no concurrent update resurrects it). True if removed."""
    path = os.fspath(path)
    if not os.path.lexists(path):
        return False
    with FileLock(path, timeout=timeout):
        return _unlink(path)


# --------------------------------------------------------------------------------------------
# JSONL
# --------------------------------------------------------------------------------------------

class JsonlLineError:
    """One bad line of a JSONL file."""

    __slots__ = ("lineno", "problem", "excerpt", "torn")

    def __init__(self, lineno: int, problem: str, excerpt: str, torn: bool = False):
        self.lineno = lineno
        self.problem = problem
        self.excerpt = excerpt
        self.torn = torn

    def __str__(self) -> str:
        return f"line {self.lineno}: {self.problem}"

    def __repr__(self) -> str:
        return f"JsonlLineError({self.lineno}, {self.problem!r}, torn={self.torn})"


class JsonlRead:
    """Result of ``read_jsonl``: ``records`` (dicts), ``lines`` (their line numbers), ``errors``."""

    __slots__ = ("path", "records", "lines", "errors", "missing")

    def __init__(self, path: str, records=None, lines=None, errors=None, missing=False):
        self.path = path
        self.records: list[dict] = records if records is not None else []
        self.lines: list[int] = lines if lines is not None else []
        self.errors: list[JsonlLineError] = errors if errors is not None else []
        self.missing = missing

    @property
    def ok(self) -> bool:
        return not self.errors

    def error(self) -> StateCorrupt | None:
        if not self.errors:
            return None
        shown = "; ".join(str(e) for e in self.errors[:5])
        more = f" (and {len(self.errors) - 5} more)" if len(self.errors) > 5 else ""
        return StateCorrupt(self.path, f"has {len(self.errors)} unreadable line(s): {shown}{more}",
                            f"run `gateway state validate`; delete or fix the listed lines in "
                            f"{self.path} (the other lines are intact)")

    def raise_for_errors(self) -> JsonlRead:
        err = self.error()
        if err is not None:
            raise err
        return self


def _excerpt(raw: bytes) -> str:
    return safe_text(raw[:80].decode("utf-8", "replace")) + ("…" if len(raw) > 80 else "")


def parse_jsonl(data: bytes, path: str, *, max_depth: int = MAX_DEPTH,
                first_lineno: int = 1) -> JsonlRead:
    """Parse JSONL bytes (see the module docstring for how bad lines are reported)."""
    result = JsonlRead(path)
    parts = data.split(b"\n")
    complete = data.endswith(b"\n")
    last = len(parts) - 1
    for i, raw in enumerate(parts):
        if i == last and complete:
            break                       # the empty piece after the final newline
        lineno = first_lineno + i
        if not raw.strip():
            continue
        torn = (i == last and not complete)
        if len(raw) > MAX_LINE_BYTES:
            result.errors.append(JsonlLineError(lineno, f"line is {len(raw)} bytes, over the "
                                                f"{MAX_LINE_BYTES}-byte limit", _excerpt(raw), torn))
            continue
        try:
            value = loads_strict(raw, source=path, max_depth=max_depth)
        except StateCorrupt as e:
            problem = e.problem
            if problem.startswith("is "):
                problem = problem[3:]
            if torn:
                problem = "incomplete last line (no newline; an interrupted write): " + problem
            result.errors.append(JsonlLineError(lineno, problem, _excerpt(raw), torn))
            continue
        if not isinstance(value, dict):
            result.errors.append(JsonlLineError(
                lineno, f"a record must be a JSON object, not {type(value).__name__}",
                _excerpt(raw), torn))
            continue
        result.records.append(value)
        result.lines.append(lineno)
    return result


def read_jsonl(path, *, max_bytes: int = MAX_JSONL_BYTES, lock: bool = True,
               timeout: float = DEFAULT_LOCK_TIMEOUT) -> JsonlRead:
    """Read a JSONL file. Missing file → empty result with ``missing=True``.

    With ``lock=True`` (default) a shared lock is held so an in-flight append is never seen half
    written. Raises only for whole-file problems (unsafe, too large, locked); bad lines are in
    ``result.errors``.
    """
    path = os.fspath(path)
    try:
        os.lstat(path)
    except FileNotFoundError:
        return JsonlRead(path, missing=True)
    except OSError:
        pass        # no permission, a file where a directory must be: the read says which
    if lock:
        with FileLock(path, timeout=timeout, shared=True):
            try:
                data = read_bytes(path, max_bytes)
            except StateMissing:
                return JsonlRead(path, missing=True)
    else:
        try:
            data = read_bytes(path, max_bytes)
        except StateMissing:
            return JsonlRead(path, missing=True)
    return parse_jsonl(data, path)


def _dumps_line(obj) -> bytes:
    if not isinstance(obj, dict):
        raise TypeError(f"a JSONL record must be a dict, not {type(obj).__name__}")
    try:
        data = json.dumps(obj, ensure_ascii=False, separators=(",", ":"),
                          allow_nan=False).encode("utf-8") + b"\n"
    except UnicodeEncodeError:      # lone surrogates: keep them escaped
        data = json.dumps(obj, ensure_ascii=True, separators=(",", ":"),
                          allow_nan=False).encode("ascii") + b"\n"
    if len(data) > MAX_LINE_BYTES:
        raise ValueError(f"JSONL record is {len(data)} bytes, over the {MAX_LINE_BYTES}-byte limit")
    return data


def append_jsonl(path, obj: dict, *, timeout: float = DEFAULT_LOCK_TIMEOUT,
                 max_lines: int | None = None, keep_lines: int | None = None) -> None:
    """Append one record as one line (single ``write``, ``O_APPEND``, ``fsync``) under the lock.

    With ``max_lines``/``keep_lines`` the file is rotated in the same critical section when it
    has more than ``max_lines`` lines.
    """
    path = os.fspath(path)
    data = _dumps_line(obj)
    ensure_dir(os.path.dirname(path) or ".")
    with FileLock(path, timeout=timeout):
        try:
            fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW
                         | os.O_NONBLOCK | os.O_CLOEXEC, FILE_MODE)
        except OSError as e:
            if e.errno == errno.ELOOP:
                raise StateUnsafe(path, "is a symbolic link; state files are never followed",
                                  f"remove the link {path}") from None
            if e.errno in (errno.EISDIR, errno.ENXIO, errno.ENOTDIR):
                raise StateUnsafe(path, f"is not a regular file ({e.strerror})",
                                  f"remove {path}") from None
            raise StateError(path, f"cannot be opened for appending: {e.strerror}",
                             "check the permissions of the file and the state directory") \
                from None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise StateUnsafe(path, "is not a regular file", f"remove {path}")
            if st.st_size and os.pread(fd, 1, st.st_size - 1) != b"\n":
                data = b"\n" + data     # keep a torn tail on its own line
            view = memoryview(data)
            while view:
                n = os.write(fd, view)
                view = view[n:]
            os.fsync(fd)
            size = st.st_size + len(data)
        finally:
            os.close(fd)
        if max_lines is not None and size > max_lines:   # every line is at least 1 byte
            _rotate_locked(path, max_lines, keep_lines if keep_lines is not None else max_lines)


def _rotate_locked(path: str, max_lines: int, keep_lines: int,
                   max_bytes: int = MAX_JSONL_BYTES) -> int:
    fd = _open_regular(path)
    try:
        size = os.fstat(fd).st_size
        start = max(0, size - max_bytes)
        data = os.pread(fd, size - start, start) if size else b""
        dropped_prefix = 0
        if start:       # too large to load: keep within the tail window, count the head's lines
            cut = data.find(b"\n")
            data = data[cut + 1:] if cut >= 0 else b""
            pos = 0
            while pos < start:
                chunk = os.pread(fd, min(1 << 20, start - pos), pos)
                if not chunk:
                    break
                dropped_prefix += chunk.count(b"\n")
                pos += len(chunk)
            dropped_prefix += 1 if cut >= 0 else 0
    finally:
        os.close(fd)
    lines = data.splitlines(keepends=True)
    if len(lines) + dropped_prefix <= max_lines and not start:
        return 0
    keep = lines[-keep_lines:] if keep_lines > 0 else []
    atomic_write_bytes(path, b"".join(keep))
    return len(lines) - len(keep) + dropped_prefix


def rotate_jsonl(path, max_lines: int, keep_lines: int, *,
                 timeout: float = DEFAULT_LOCK_TIMEOUT) -> int:
    """If ``path`` has more than ``max_lines`` lines, keep only the last ``keep_lines`` (atomic,
    under the lock). A file over ``MAX_JSONL_BYTES`` is cut to its tail too. Returns the number
    of lines dropped (0 when nothing was done or the file is missing)."""
    if keep_lines > max_lines:
        raise ValueError("keep_lines must not exceed max_lines")
    path = os.fspath(path)
    if not os.path.lexists(path):
        return 0
    with FileLock(path, timeout=timeout):
        try:
            return _rotate_locked(path, max_lines, keep_lines)
        except StateMissing:
            return 0


def update_jsonl(path, fn, *, timeout: float = DEFAULT_LOCK_TIMEOUT,
                 max_bytes: int = MAX_JSONL_BYTES, keep_bad: bool = False) -> list[dict]:
    """Rewrite a JSONL file as ``fn(records) -> records`` under the lock, atomically (e.g. to mark
    signals consumed). Refuses with ``StateCorrupt`` if any line is bad (never erases evidence),
    unless ``keep_bad``: then ``fn`` must return one record for each record it is given, and
    every bad line is written back byte for byte, in its place, on a line of its own."""
    path = os.fspath(path)
    with FileLock(path, timeout=timeout):
        res = read_jsonl(path, max_bytes=max_bytes, lock=False)
        if not keep_bad or not res.errors:
            res.raise_for_errors()
            new = list(fn(list(res.records)))
            if res.missing and not new:
                return new
            atomic_write_bytes(path, b"".join(_dumps_line(r) for r in new))
            return new
        new = list(fn(list(res.records)))
        if len(new) != len(res.records):
            raise ValueError("update_jsonl(keep_bad=True): fn must keep the number of records")
        raw = read_bytes(path, max_bytes).split(b"\n")
        by_line = dict(zip(res.lines, new, strict=True))
        out = []
        for i, line in enumerate(raw, 1):
            if i in by_line:
                out.append(_dumps_line(by_line[i]))
            elif line.strip():
                out.append(line + b"\n")
        atomic_write_bytes(path, b"".join(out))
        return new


# --------------------------------------------------------------------------------------------
# Leftovers: the temp files of writers that died (gateway.state.temps)
# --------------------------------------------------------------------------------------------

from .temps import stale_files as stale_temp_files  # noqa: E402  (re-exported)
from .temps import stale_names as stale_temp_names  # noqa: E402
