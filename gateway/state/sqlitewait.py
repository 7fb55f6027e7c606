"""SQLite for the stores: writers queue for the database, readers never wait long, and a
busy database is waited for, never answered with "locked".

SQLite's own waiting (``sqlite3.connect(timeout=...)``) is a busy handler that polls: it
sleeps 1, 2, 5 ... 100 ms between tries, and whoever tries at the right moment wins. With 200
processes writing the workflow database at once, 14-21 calls per round ran out of their 5 s
and answered ``database is locked``. Here:

* every write takes the database's ``FileLock`` (``.<db>.lock``, exclusive) before its
  ``BEGIN IMMEDIATE``: writers sleep in ``flock`` and get the database one after the other, in
  about the order they came (``gateway.state.lockwait``), within the same bound as every other
  lock of the stores (a hook: its own timeout less 5 s). Under the lock the only other party
  SQLite can meet is a reader;
* a reader holds SQLite's shared lock for one ``SELECT`` of a table of a few hundred rows at
  most (well under a millisecond on this VM). A writer's commit waits for the readers that
  hold it, with SQLite's busy handler, and a reader that comes while a commit is being
  written waits for that commit (one ``fsync``: milliseconds). Neither waits for a queue;
* any ``SQLITE_BUSY`` / ``database is locked`` that still comes back (a non-gateway process
  holding the database, a hot journal being rolled back) is retried until the same deadline.
  A deadline that passes is ``StateLocked``: a refusal that says what happened and what to do.
"""

import sqlite3
import time

from . import lockwait, store


def is_busy(exc: BaseException) -> bool:
    """``SQLITE_BUSY`` or ``SQLITE_LOCKED`` (Python only gives the message)."""
    if not isinstance(exc, sqlite3.OperationalError):
        return False
    text = str(exc).lower()
    return "locked" in text or "busy" in text


class Waiter:
    """One operation's deadline: ``Waiter(path, timeout)``; ``left()`` seconds remain;
    ``retry(fn)`` runs ``fn`` until it does not answer busy; ``expired()`` is the refusal."""

    __slots__ = ("path", "timeout", "until", "capped", "started")

    def __init__(self, path: str, timeout: float):
        self.path = path
        self.timeout = lockwait.configured(timeout)
        self.started = time.monotonic()
        self.until, self.capped = lockwait.deadline(self.timeout)

    def left(self) -> float:
        return max(0.0, self.until - time.monotonic())

    def retry(self, fn, db=None):
        delay = 0.001
        while True:
            if db is not None:
                db.execute(f"PRAGMA busy_timeout = {max(1, int(self.left() * 1000))}")
            try:
                return fn()
            except sqlite3.OperationalError as e:
                if not is_busy(e):
                    raise
                if self.left() <= 0:
                    raise self.expired(str(e)) from None
            time.sleep(min(delay, self.left()))
            delay = min(delay * 2, 0.01)

    def expired(self, detail: str) -> store.StateLocked:
        waited = time.monotonic() - self.started
        if self.capped:
            bound = (f"for {waited:.1f}s, as long as a hook may wait (Claude Code stops it "
                     f"after {lockwait.hook_timeout():g}s)")
        else:
            bound = f"for {waited:.1f}s (the bound is {self.timeout:g}s)"
        return store.StateLocked(
            self.path, f"stayed busy {bound}: another process holds the database ({detail})",
            "wait and retry; if a process that is not the gateway keeps the database open "
            "(an sqlite3 shell, a backup tool), close it")
