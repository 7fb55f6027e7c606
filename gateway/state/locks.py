"""Directories and locks of the state files (stdlib only, hot path): ``ensure_dir`` (never
through a link: ``anchors.guard``), the hidden lock files and ``FileLock`` (see
gateway.state.store's module docstring). Below gateway.state.store and gateway.state.temps;
the store re-exports every name."""

from __future__ import annotations

import _thread
import errno
import fcntl
import os
import stat
import time

from .errors import StateError, StateLocked, StateMissing, StateUnsafe

DEFAULT_LOCK_TIMEOUT = 20.0         # seconds; a hook waits less: gateway.state.lockwait
FILE_MODE = 0o600
DIR_MODE = 0o700


def _fsync_dir(directory: str) -> None:
    try:
        fd = os.open(directory or ".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def ensure_dir(directory) -> str:
    """Create ``directory`` (and parents) with mode 0700 if missing. Returns it as str.

    Raises ``StateUnsafe`` when ``directory`` is a symbolic link or something other than a
    directory (nothing is ever created through a link) -- for the project's store
    directories (``.claude/state``, ``agent-coord``) also when a directory of the store above
    it is (``anchors.guard``: the guards' check and sentence) -- and ``StateError`` when it
    cannot be created (permissions)."""
    directory = os.fspath(directory)
    from .anchors import guard

    guard(directory)        # a store of the project: never through a link (the guards' check)
    try:
        st = os.lstat(directory)
    except FileNotFoundError:
        try:
            os.makedirs(directory, mode=DIR_MODE, exist_ok=True)
            st = os.lstat(directory)
        except OSError as e:
            raise StateError(directory, f"cannot create the directory: {e.strerror}",
                             "check that every parent of it is a directory you may write",
                             noun="state directory") from None
    except OSError as e:
        raise StateError(directory, f"cannot be examined: {e.strerror}",
                         "check the permissions of its parent directories",
                         noun="state directory") from None
    if stat.S_ISLNK(st.st_mode):
        raise StateUnsafe(directory, "is a symbolic link; state is never written through one",
                          f"remove the link {directory}", noun="state directory")
    if not stat.S_ISDIR(st.st_mode):
        raise StateUnsafe(directory, "is not a directory",
                          f"look at what {directory} holds, then remove it",
                          noun="state directory")
    return directory


def lock_path_for(path) -> str:
    """The lock file used for ``path``: ``<dir>/.<name>.lock``."""
    path = os.fspath(path)
    d, name = os.path.split(path)
    return os.path.join(d, "." + name + ".lock")


_LOCK_REPAIR = ("`gateway state repair` removes it (it is only a lock file; the breezing "
                "session continues)")


def open_lock_file(lock_path, *, create: bool = True, dir_fd: int | None = None) -> int:
    """Open a lock file for ``flock``: never through a symbolic link, never blocking (a FIFO),
    a regular file only. With ``create=False`` nothing is created: ``gateway state validate``
    checks an existing lock file with exactly what ``FileLock`` does before it locks.
    Raises ``StateUnsafe`` (not a regular file), ``StateMissing`` (absent, ``create=False``)
    or ``StateError`` (permissions)."""
    lock_path = os.fspath(lock_path)
    name = lock_path if dir_fd is None else os.path.basename(lock_path)
    flags = os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | (os.O_CREAT if create
                                                                        else 0)
    try:
        fd = os.open(name, flags, FILE_MODE, dir_fd=dir_fd)
    except FileNotFoundError:
        if create:
            raise StateError(lock_path, "cannot create the lock file: a parent directory is "
                                        "missing", "check the state directory") from None
        raise StateMissing(lock_path) from None
    except OSError as e:
        if e.errno in (errno.ELOOP, errno.EISDIR, errno.ENXIO, errno.ENOTDIR):
            raise StateUnsafe(lock_path, f"lock file is not a regular file ({e.strerror})",
                              _LOCK_REPAIR) from None
        raise StateError(lock_path, f"cannot open lock file: {e.strerror}",
                         "check the permissions of the state directory and of the lock "
                         "file") from None
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        mode = 0
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise StateUnsafe(lock_path, "lock file is not a regular file", _LOCK_REPAIR)
    return fd


_held: dict[tuple[int, int, str], list] = {}   # (pid, thread, lockpath) -> [fd, shared, depth]


class FileLock:
    """``with FileLock(path, timeout=20.0, shared=False): ...``

    Locks ``path`` through ``lock_path_for(path)`` with ``flock``, waiting asleep in the kernel
    (``gateway.state.lockwait``). Raises ``StateLocked`` after ``timeout`` seconds
    (``timeout=0`` tries once; ``GATEWAY_LOCK_WAIT`` overrides it; a hook process stops
    waiting in time to answer before Claude Code's hook timeout). The exclusive holder writes
    ``"<pid> <epoch>"`` into the lock file so a waiter that times out can name it. Re-entrant within one thread;
    asking for exclusive while holding shared raises ``RuntimeError`` (that would self-deadlock).
    """

    __slots__ = ("path", "lock_path", "timeout", "shared", "dir_fd", "_key")

    def __init__(self, path, timeout: float = DEFAULT_LOCK_TIMEOUT, shared: bool = False, *,
                 dir_fd: int | None = None):
        self.path = os.fspath(path)
        self.lock_path = lock_path_for(self.path)
        self.timeout = timeout
        self.shared = shared
        self.dir_fd = dir_fd   # the lock file is opened by name in this directory (no links)
        self._key = None

    def __enter__(self) -> FileLock:
        key = (os.getpid(), _thread.get_ident(), os.path.abspath(self.lock_path))
        entry = _held.get(key)
        if entry is not None:
            if entry[1] and not self.shared:
                raise RuntimeError(f"FileLock({self.path}): exclusive requested while this thread "
                                   f"holds it shared")
            entry[2] += 1
            self._key = key
            return self
        fd = self._acquire()
        _held[key] = [fd, self.shared, 1]
        self._key = key
        return self

    def __exit__(self, *exc) -> None:
        key, self._key = self._key, None
        entry = _held.get(key)
        if entry is None:
            return
        entry[2] -= 1
        if entry[2] == 0:
            del _held[key]
            try:
                fcntl.flock(entry[0], fcntl.LOCK_UN)
            finally:
                os.close(entry[0])

    def _open(self) -> int:
        if self.dir_fd is None:
            ensure_dir(os.path.dirname(self.lock_path) or ".")
        return open_lock_file(self.lock_path, create=True, dir_fd=self.dir_fd)

    def _same_file(self, fd: int) -> bool:
        try:
            if self.dir_fd is None:
                now = os.stat(self.lock_path, follow_symlinks=False)
            else:
                now = os.stat(os.path.basename(self.lock_path), dir_fd=self.dir_fd,
                              follow_symlinks=False)
        except FileNotFoundError:
            return False
        return os.fstat(fd).st_ino == now.st_ino

    def _acquire(self) -> int:
        from . import lockwait

        started = time.monotonic()
        until, capped = lockwait.deadline(lockwait.configured(self.timeout))
        while True:
            fd = self._open()
            try:
                got = lockwait.acquire(fd, not self.shared, until)
            except BaseException:
                os.close(fd)
                raise
            if not got:
                os.close(fd)
                self._raise_locked(time.monotonic() - started, capped)
            # The lock file might have been replaced/removed between open and flock.
            if not self._same_file(fd):
                os.close(fd)
                continue
            if not self.shared:     # a fixed-width record: no truncation (a journal commit)
                try:
                    os.pwrite(fd, f"{os.getpid()} {time.time():.3f}".ljust(39).encode() + b"\n",
                              0)
                except OSError:
                    pass
            return fd

    def _raise_locked(self, waited: float = 0.0, capped: bool = False):
        from . import lockwait

        pid = since = None
        try:
            fd = open_lock_file(self.lock_path, create=False, dir_fd=self.dir_fd)
            try:
                parts = os.pread(fd, 100, 0).split()
            finally:
                os.close(fd)
            pid, since = int(parts[0]), float(parts[1])
        except (OSError, ValueError, IndexError, StateError):
            pass
        problem, repair = lockwait.refusal(self.lock_path, lockwait.configured(self.timeout),
                                           waited, capped, pid, since)
        raise StateLocked(self.path, problem, repair, holder_pid=pid)
