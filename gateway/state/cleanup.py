"""Removing state files without ever following a link: ``gateway state clean`` and
``gateway state repair``, and the directory checks ``gateway state validate`` shares with them.

The state directory is opened from the project one component at a time with ``O_NOFOLLOW``
(``.claude``, then ``state``), after ``layout.check_state_dir`` -- the check the PreToolUse
guards make (GW890) -- has accepted it. Every entry is then examined (``lstat``) and removed
(``unlink``) *by name relative to that open directory*: if ``.claude/state`` is replaced by a
link in the middle of a cleanup, the cleanup still works in the directory it checked, and a
link inside it is removed as a link. Nothing is ever deleted outside the project.

``clean`` ends the breezing session (the lists in ``gateway.state.layout``); ``repair`` removes
only what is broken and keeps the session:

* temp files of writers that died (``.<name>.tmp-<pid>-<hex>``, the pid no longer running);
* lock files that are not regular files (a symbolic link, FIFO, socket, device, or an empty
  directory): they block every write of their file (GW890) and hold no lock;
* the files only the gateway writes, when they cannot be used: ``breezing-session-roles.json``
  (the teammates register again) and ``gateway-breezing-phase.json`` (record the phase
  again). A file that cannot be opened for lack of permission is reported, not removed.

Files that people or the Lead write (``breezing-active.json``, ``review-result.json``, role
markers, the JSONL logs) are never removed by ``repair``; their repair is printed.
"""

from __future__ import annotations

import errno
import os
import stat

from . import store
from .layout import (
    CLEAN_ALL,
    CLEAN_DEFAULT,
    KNOWN_FILES,
    STATE_DIR,
    check_state_dir,
    is_role_marker_name,
    layout,
)
from .store import StateError, StateUnsafe

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class StateDir:
    """The project's state directory, opened without following links (a context manager).

    ``fd`` is None when the project has no state directory. Raises what ``check_state_dir``
    raises, and ``StateError`` when the directory cannot be opened (permissions)."""

    def __init__(self, project_dir):
        self.layout = layout(project_dir)
        self.path = self.layout.dir
        self.fd = None
        if not check_state_dir(self.layout.project_dir):
            return
        fds = []
        try:
            fd = os.open(self.layout.project_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            fds.append(fd)
            for part in STATE_DIR.split(os.sep):
                fd = os.open(part, _DIR_FLAGS, dir_fd=fd)
                fds.append(fd)
        except OSError as e:
            for f in fds:
                os.close(f)
            if e.errno in (errno.ELOOP, errno.ENOTDIR):     # replaced after the check
                raise StateUnsafe(self.path, "changed into a link or a file while it was being "
                                             "opened", "run the command again",
                                  noun="state directory") from None
            raise StateError(self.path, f"cannot be opened: {e.strerror}",
                             f"check the permissions of {self.path} (the owner needs rwx: "
                             f"chmod u+rwx {self.path})", noun="state directory") from None
        for f in fds[:-1]:
            os.close(f)
        self.fd = fds[-1]

    def __enter__(self) -> StateDir:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def full(self, name: str) -> str:
        return os.path.join(self.path, name)

    def names(self) -> list[str]:
        """The directory's entries, sorted. Raises StateError when it cannot be listed."""
        if self.fd is None:
            return []
        try:
            return sorted(os.listdir(self.fd))
        except OSError as e:
            raise StateError(self.path, f"cannot be listed: {e.strerror}",
                             f"check the permissions of {self.path} (the owner needs rwx: "
                             f"chmod u+rwx {self.path})", noun="state directory") from None

    def lstat(self, name: str):
        try:
            return os.stat(name, dir_fd=self.fd, follow_symlinks=False)
        except FileNotFoundError:
            return None

    def unlink(self, name: str, *, lock: bool = True, empty_dir: bool = False) -> bool:
        """Remove one entry by name (a link is removed as a link), under its lock unless
        ``lock`` is False. A directory is refused (StateUnsafe), except an empty one with
        ``empty_dir``. True if it was removed."""
        if lock:
            with store.FileLock(self.full(name), dir_fd=self.fd):
                return self._unlink(name, empty_dir)
        return self._unlink(name, empty_dir)

    def _unlink(self, name: str, allow_empty_dir: bool) -> bool:
        st = self.lstat(name)
        if st is None:
            return False
        path = self.full(name)
        try:
            if stat.S_ISDIR(st.st_mode):
                if not allow_empty_dir:
                    raise StateUnsafe(path, "is a directory", f"look at what {path} holds and "
                                      f"remove the directory by hand")
                try:
                    os.rmdir(name, dir_fd=self.fd)
                except OSError as e:
                    if e.errno in (errno.ENOTEMPTY, errno.EEXIST):
                        raise StateUnsafe(path, "is a directory that is not empty",
                                          f"look at what {path} holds and remove the directory "
                                          f"by hand") from None
                    raise
            else:
                os.unlink(name, dir_fd=self.fd)
        except FileNotFoundError:
            return False
        except StateError:
            raise
        except OSError as e:
            raise StateError(path, f"cannot be removed: {e.strerror}",
                             f"check the permissions of {self.path}") from None
        try:
            os.fsync(self.fd)
        except OSError:
            pass
        return True

    def stale_temp_files(self) -> list[str]:
        """Names of temp files whose writer died (see ``store.stale_temp_files``)."""
        return store.stale_temp_names(self.names(), lambda n: self.lstat(n))


class Result:
    """What a cleanup did: ``removed`` (paths, with why) and ``problems`` (StateErrors of what
    could not be removed)."""

    __slots__ = ("removed", "problems")

    def __init__(self):
        self.removed: list[tuple[str, str]] = []
        self.problems: list[StateError] = []

    @property
    def paths(self) -> list[str]:
        return [p for p, _ in self.removed]


def _matches(name: str, patterns) -> bool:
    import fnmatch

    return not name.startswith(".") and any(fnmatch.fnmatchcase(name, p) for p in patterns)


def remove(project_dir, patterns, *, temp_files: bool = False) -> Result:
    """Remove the state files named by ``patterns`` (names or globs of ``layout``), each under
    its lock, and with ``temp_files`` the temp files of dead writers. A directory in the place
    of a file is reported in ``problems`` and the rest is still removed."""
    res = Result()
    with StateDir(project_dir) as sd:
        if sd.fd is None:
            return res
        for name in sd.names():
            if not _matches(name, patterns):
                continue
            try:
                if sd.unlink(name):
                    res.removed.append((sd.full(name), "state file"))
            except StateError as e:
                res.problems.append(e)
        if temp_files:
            for name in sd.stale_temp_files():
                try:
                    if sd.unlink(name, lock=False):
                        res.removed.append((sd.full(name), "temp file of a writer that died"))
                except StateError as e:
                    res.problems.append(e)
    return res


def clean(project_dir, all: bool = False) -> Result:   # noqa: A002 - mirrors `--all`
    """``gateway state clean [--all]``: end the breezing session."""
    return remove(project_dir, CLEAN_ALL if all else CLEAN_DEFAULT, temp_files=True)


def lock_names(names) -> list[str]:
    """The lock files of the gateway's state files among ``names`` (``.<name>.lock``)."""
    out = []
    for n in names:
        if n.startswith(".") and n.endswith(".lock"):
            target = n[1:-len(".lock")]
            if target in KNOWN_FILES or is_role_marker_name(target):
                out.append(n)
    return out


def check_lock(sd: StateDir, name: str) -> StateError | None:
    """The problem of one lock file, found exactly as ``FileLock`` would meet it, or None."""
    try:
        fd = store.open_lock_file(sd.full(name), create=False, dir_fd=sd.fd)
    except store.StateMissing:
        return None
    except StateError as e:
        return e
    os.close(fd)
    return None


def check_dir_access(sd: StateDir) -> StateError | None:
    """Can the gateway record a registration here (create, rename and remove files)?"""
    if sd.fd is None:
        return None
    if not os.access(sd.path, os.W_OK | os.X_OK | os.R_OK):
        return StateError(sd.path, "is not readable and writable by you, so registrations "
                                   "cannot be recorded (every role marker write is denied, "
                                   "GW890)",
                          f"chmod u+rwx {sd.path}", noun="state directory")
    return None


def repair(project_dir, loaders) -> Result:
    """``gateway state repair``: remove only what is broken (see the module docstring); the
    breezing session continues. `loaders`: [(file name, load)], the full checks of the
    gateway's own state files (their pydantic models: gateway.state.files.repair passes
    them; this module sits below that one and does not import it)."""
    res = Result()
    with StateDir(project_dir) as sd:
        if sd.fd is not None:
            _repair_state_dir(sd, res, loaders)
    _repair_stores(layout(project_dir), res)
    return res


def _repair_state_dir(sd: StateDir, res: Result, loaders) -> None:
    """The state directory's part of ``repair``."""
    names = sd.names()
    for name in sd.stale_temp_files():
        try:
            if sd.unlink(name, lock=False):
                res.removed.append((sd.full(name), "temp file of a writer that died"))
        except StateError as e:
            res.problems.append(e)
    for name in lock_names(names):
        problem = check_lock(sd, name)
        if problem is None or not isinstance(problem, StateUnsafe):
            if problem is not None:
                res.problems.append(problem)
            continue
        try:
            if sd.unlink(name, lock=False, empty_dir=True):
                res.removed.append((sd.full(name), "lock file that was not a regular file"))
        except StateError as e:
            res.problems.append(e)
    for name, load in loaders:
        if name not in names:
            continue
        try:
            load(sd.layout)
            continue
        except store.StateLocked:
            continue    # busy, not broken
        except (store.StateCorrupt, StateUnsafe):
            pass
        except StateError as e:     # permissions: not ours to remove
            res.problems.append(e)
            continue
        try:
            if sd.unlink(name, empty_dir=True):
                res.removed.append((sd.full(name), f"unusable {name}"))
        except StateError as e:
            res.problems.append(e)


#: ``Result.removed`` entries whose file was repaired in place or renamed, not removed
ASIDE = "set aside: "


def _repair_stores(lay, res: Result) -> None:
    """The unreadable lines of the JSONL logs and an unusable workflow database, set aside
    (``gateway.state.stores``); never removed."""
    from . import stores

    for path in stores.sweep_coord(lay.project_dir):
        res.removed.append((path, "temp file of a writer that died"))
    for name in stores.JSONL_LOGS:
        try:
            moved = stores.set_aside_bad_lines(lay, name)
        except StateError as e:
            res.problems.append(e)
            continue
        if moved:
            res.removed.append((lay.path(name), f"{ASIDE}{moved[1]} unreadable line(s) moved "
                                f"to {os.path.basename(moved[0])}"))
    try:
        new = stores.set_aside_workflow(lay)
    except StateError as e:
        res.problems.append(e)
        return
    if new:
        res.removed.append((lay.path(stores.WORKFLOW_DB), f"{ASIDE}unusable, renamed to "
                            f"{os.path.basename(new)}; the next PreCompact hook writes a new "
                            f"one"))
