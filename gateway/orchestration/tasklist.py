"""Read-only access to an Agent Teams task list (seed 000: ``~/.claude/tasks/{team_name}/``, the
SSOT of the running tasks; the gateway only reads it).

The root is ``$GATEWAY_TASKS_DIR`` (for tests and unusual set-ups), else
``$CLAUDE_CONFIG_DIR/tasks``, else ``~/.claude/tasks``. A team name is used as one directory
name only: anything with a path separator, ``..``, a leading dot or other characters than
``[A-Za-z0-9._-]`` is refused (``team_name`` comes from a file the Lead writes).

Each task is a JSON file ``<id>.json`` with at least ``id`` and ``status`` (``pending``,
``in_progress``, ``completed``) and usually ``subject`` and ``blockedBy`` (task ids). A file that cannot be read is kept as
a task with a ``problem`` (seed 000: a broken task file is re-registered as pending).
"""

from __future__ import annotations

import os
import re

from gateway.state import store

__all__ = ["STATUSES", "TeamTask", "TeamList", "tasks_root", "safe_team_name", "read_team"]

STATUSES = ("pending", "in_progress", "completed")
MAX_TASK_FILES = 2000
_TEAM = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,127}")


def tasks_root(env=None) -> str:
    env = os.environ if env is None else env
    explicit = env.get("GATEWAY_TASKS_DIR")
    if explicit:
        return explicit
    config = env.get("CLAUDE_CONFIG_DIR")
    if config:
        return os.path.join(config, "tasks")
    home = env.get("HOME") or os.path.expanduser("~")
    return os.path.join(home, ".claude", "tasks")


def safe_team_name(name) -> bool:
    return isinstance(name, str) and bool(_TEAM.fullmatch(name)) and ".." not in name


class TeamTask:
    __slots__ = ("id", "subject", "status", "file", "problem", "blocked_by")

    def __init__(self, id, subject, status, file, problem=None, blocked_by=()):  # noqa: A002
        self.id, self.subject, self.status, self.file, self.problem = (
            id, subject, status, file, problem)
        self.blocked_by: tuple[str, ...] = tuple(blocked_by)

    def __repr__(self) -> str:
        return f"TeamTask({self.id!r}, {self.status!r}{', broken' if self.problem else ''})"


class TeamList:
    """``exists``: the directory is there; ``tasks``: {id: TeamTask} (file order);
    ``path``: the directory; ``problem``: why it could not be read at all (or None)."""

    __slots__ = ("path", "exists", "tasks", "problem")

    def __init__(self, path, exists, tasks, problem=None):
        self.path, self.exists, self.tasks, self.problem = path, exists, tasks, problem

    def counts(self) -> dict[str, int]:
        out = dict.fromkeys(STATUSES, 0)
        for t in self.tasks.values():
            out[t.status if t.status in out else "pending"] += 1
        return out


def read_team(team_name: str, env=None, root: str | None = None) -> TeamList:
    """The team's tasks. Raises ValueError for an unsafe team name."""
    if not safe_team_name(team_name):
        raise ValueError(f"team_name {store.safe_text(team_name, 60)!r} is not a plain "
                         f"directory name (letters, digits, '.', '_', '-')")
    base = root if root is not None else tasks_root(env)
    path = os.path.join(base, team_name)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return TeamList(path, False, {})
    except OSError as e:
        return TeamList(path, False, {}, f"cannot be read: {e.strerror}")
    import stat as _stat

    if not _stat.S_ISDIR(st.st_mode):
        return TeamList(path, False, {}, "is not a directory")
    try:
        names = sorted(n for n in os.listdir(path) if n.endswith(".json")
                       and not n.startswith("."))[:MAX_TASK_FILES]
    except OSError as e:
        return TeamList(path, True, {}, f"cannot be listed: {e.strerror}")
    tasks: dict[str, TeamTask] = {}
    for name in names:
        full = os.path.join(path, name)
        stem = name[:-5]
        try:
            data = store.read_json(full, max_bytes=256 << 10)
        except store.StateError as e:
            tasks[stem] = TeamTask(stem, None, "pending", full, e.problem)
            continue
        if not isinstance(data, dict):
            tasks[stem] = TeamTask(stem, None, "pending", full, "is not a JSON object")
            continue
        tid = data.get("id", stem)
        tid = str(tid) if isinstance(tid, (str, int)) and not isinstance(tid, bool) else stem
        status = data.get("status")
        subject = data.get("subject") if isinstance(data.get("subject"), str) else None
        if status not in STATUSES:
            tasks[tid] = TeamTask(tid, subject, "pending", full,
                                  f"has status {store.safe_text(status, 30)!r}")
            continue
        tasks[tid] = TeamTask(tid, subject, status, full, blocked_by=_ids(data.get("blockedBy")))
    return TeamList(path, True, tasks)


def _ids(value) -> tuple[str, ...]:
    """``blockedBy`` as task ids (strings); anything else in the list is dropped."""
    if not isinstance(value, list):
        return ()
    return tuple(str(v) for v in value[:1000]
                 if isinstance(v, (str, int)) and not isinstance(v, bool))
