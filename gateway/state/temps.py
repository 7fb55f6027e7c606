"""The temp files of the stores' atomic writes, and their removal when a writer died (stdlib
only: the hooks sweep here).

``store.atomic_write_bytes`` writes ``.<name>.tmp-<pid>-<8 hex>`` next to ``<name>`` and
renames it over ``<name>``; a writer killed in between (kill -9, a crash, a full disk) leaves
it behind. Nothing else ever removed them: after 120 kill -9 trials the orchestrator store
held 1,659. Now every store removes its own when it is opened for a write:

* the state directory ``.claude/state/`` in ``statedir.prepare_state_dir`` (every registration,
  signal, timeline line, phase, review result and the SQLite workflow store open it);
* the orchestrator store ``agent-coord/`` at the first write of a ``CoordStore``;
* and every atomic write those of its own file, while it holds the file's lock.

Only its own, by name and age: a name is swept only when it is exactly that pattern, its
``<name>`` is a file the store keeps (the caller says which, ``owned``), its writer is not
this process, and either that process no longer runs or the file is older than
``STALE_AGE`` (the pid may have been reused); and only while ``<name>``'s lock can be taken at
once. Every writer of the stores makes its temp file under that lock, so a lock that is
free means that no writer is between creating and renaming it: a live writer's temp file is
never touched, whatever its pid says (another pid namespace, say).

``gateway state validate`` reports what is left (``stale_names``); ``gateway state repair``
removes it.
"""

import os
import time

MARK = ".tmp-"
#: Seconds after which a temp file is stale even when a process with its pid runs (a writer
#: keeps its temp file for the milliseconds of one write).
STALE_AGE = 60.0
_HEX = frozenset("0123456789abcdef")


def parse(name: str):
    """``(target name, pid)`` when ``name`` is a temp file of ``atomic_write_bytes``
    (``.<target>.tmp-<pid>-<8 hex>``), else None."""
    if not name.startswith("."):
        return None
    head, sep, tail = name.rpartition(MARK)
    if not sep or len(head) < 2 or head in ("..", "..."):
        return None
    pid, dash, suffix = tail.partition("-")
    if not dash or not (pid.isascii() and pid.isdigit()) or len(pid) > 10 \
            or len(suffix) != 8 or not _HEX.issuperset(suffix):
        return None
    return head[1:], int(pid)


def name_for(target: str, pid: int, suffix: str) -> str:
    return f".{target}{MARK}{pid}-{suffix}"


def _alive(pid: int):
    from .errors import _pid_alive

    return _pid_alive(pid)


def stale_names(names, lstat, min_age: float = 60.0) -> list:
    """The names among ``names`` that are temp files of writers that died (for ``validate``
    and ``repair``; nothing is locked): the pid no longer runs, or it cannot be told and the
    file is older than ``min_age``. ``lstat(name)`` gives an entry's stat result or None."""
    out = []
    now = time.time()
    me = os.getpid()
    for name in names:
        parsed = parse(name)
        if parsed is None or parsed[1] == me:
            continue
        alive = _alive(parsed[1])
        if alive is True:
            continue
        if alive is None:
            st = lstat(name)
            if st is None or now - st.st_mtime < min_age:
                continue
        out.append(name)
    return sorted(out)


def stale_files(directory, *, min_age: float = 60.0) -> list:
    """Paths of the temp files in ``directory`` whose writer died (``stale_names``)."""
    directory = os.fspath(directory)
    try:
        names = os.listdir(directory)
    except OSError:
        return []

    def lstat(name):
        try:
            return os.lstat(os.path.join(directory, name))
        except OSError:
            return None

    return sorted(os.path.join(directory, n) for n in stale_names(names, lstat, min_age))


def sweep(directory, only: str | None = None, owned=None) -> list:
    """Remove the stale temp files in ``directory`` (see the module docstring) and return
    their paths. ``only``: just those of that target name; ``owned(target) -> bool``: which
    targets are the store's (default: every name). Never raises: what cannot be removed now
    is left for the next write, ``validate`` and ``repair``."""
    from .errors import StateError
    from .locks import FileLock

    directory = os.fspath(directory)
    try:
        names = os.listdir(directory)
    except OSError:
        return []
    removed = []
    now = time.time()
    me = os.getpid()
    for name in names:
        if MARK not in name:
            continue
        parsed = parse(name)
        if parsed is None:
            continue
        target, pid = parsed
        if pid == me or (only is not None and target != only) \
                or (owned is not None and not owned(target)):
            continue
        path = os.path.join(directory, name)
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if _alive(pid) is not False and now - st.st_mtime < STALE_AGE:
            continue
        try:
            with FileLock(os.path.join(directory, target), timeout=0):
                os.unlink(path)
        except (StateError, OSError):
            continue
        removed.append(path)
    return removed
