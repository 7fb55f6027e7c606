"""The state files' errors: each a complete sentence naming the file, the problem and the
repair (stdlib only, hot path). Below every other module of gateway.state; gateway.state.store
re-exports them."""

from __future__ import annotations

import os


def _default_repair(path: str) -> str:
    return (f"run `gateway state validate` to see every problem, then fix {path} by hand or, "
            f"after checking what it holds, remove it (`gateway state clean` removes the breezing "
            f"session files)")


class StateError(Exception):
    """A state file cannot be used. ``str(err)`` is a complete, user-facing sentence naming the
    file, the problem and the repair; guards can use it verbatim as a deny reason.

    Attributes: ``path`` (str), ``problem`` (str), ``repair`` (str).
    """

    def __init__(self, path, problem: str, repair: str | None = None, *,
                 noun: str = "state file"):
        self.path = os.fspath(path)
        self.problem = problem
        self.repair = repair if repair is not None else _default_repair(self.path)
        super().__init__(f"{noun} {self.path}: {problem}. To repair: {self.repair}")


class StateMissing(StateError):
    """The file does not exist (often a legitimate "no session" state; callers decide)."""

    def __init__(self, path, problem: str = "does not exist", repair: str | None = None):
        super().__init__(path, problem, repair if repair is not None else
                         "nothing to repair if no session is running; otherwise re-create it "
                         "through the workflow step that writes it")


class StateCorrupt(StateError):
    """The bytes are not valid (UTF-8 / JSON / JSONL / empty / truncated)."""


class StateInvalid(StateCorrupt):
    """Valid JSON, but it does not match the file's schema (raised by gateway.state.files)."""


class StateTooLarge(StateCorrupt):
    """The file exceeds its size limit; it is not read at all."""


class StateUnsafe(StateError):
    """Not a regular file: a symlink, FIFO, directory or device. Never followed or read."""


class StateLocked(StateError):
    """The file's lock could not be taken within the timeout."""

    def __init__(self, path, problem: str, repair: str | None = None, holder_pid: int | None = None):
        self.holder_pid = holder_pid
        super().__init__(path, problem, repair)


def safe_text(value, limit: int = 80) -> str:
    """Render untrusted text (keys, values from a state file) for a message that may reach a
    terminal or a model: non-printable characters (controls, escapes, bidi overrides, line
    separators) are escaped and the length is capped."""
    s = str(value)
    cut = len(s) > limit
    s = s[:limit]
    if not s.isprintable():
        s = "".join(c if c.isprintable() else repr(c)[1:-1] for c in s)
    return s + ("…" if cut else "")


def _pid_alive(pid: int) -> bool | None:
    if pid <= 0:
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return None
    return True
