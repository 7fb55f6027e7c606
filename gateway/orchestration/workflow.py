"""Workflow state across compaction (seed 002): which spec task the session is on and what must
happen next, kept in one SQLite file, ``.claude/state/gateway-workflow.sqlite3``.

Specs
-----
A spec is a Markdown file in ``.cc-craft-kit/specs/`` or ``specs/`` (seed 002's layout)::

    # <title>
    **仕様書 ID:** ed37057f-...            (or **Spec ID:**)
    **フェーズ:** implementation           (or **Phase:**)
    ## 8. 実装タスクリスト                  (a level-2 heading naming a task list)
    - [ ] schema.ts に ... を追加 (#541)
    - [x] ...

The task list section runs to the next level-2 heading, a ``---`` line or the end. A task's
number is its 1-based position there; ``(#123)`` at the end is its issue.

Saving (PreCompact)
-------------------
The spec being worked on is the implementation-phase spec with an unchecked task whose file
changed last. Its first unchecked task is saved with the next action: ``task_done`` when the
stored state already says that task was started (``mark_started``), else ``task_start``
(upstream derived ``task_done`` from the *previous* task, so ``task_start`` was unreachable).
One row per spec (``INSERT ... ON CONFLICT(spec_id) DO UPDATE`` in one transaction);
``saved_at`` is when the spec was first saved, ``updated_at`` every save.

Restoring (SessionStart compact|resume)
---------------------------------------
The row with the latest ``updated_at`` (upstream sorted by ``saved_at`` and restored a stale
row) whose spec still exists, still has that id and is still in the implementation phase
(upstream ignored the phase and could resurrect a finished spec). The spec is read again, so
a task checked since the save is reported as such, never as still to do. Done steps recorded
as due (``record_done_due``, e.g. by a hook that saw a box flip to ``[x]``) are named first.

Errors: a database that is not SQLite, has another schema, or is not a regular file raises a
``StateError`` naming the file and the repair; the hooks report it and restore nothing.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import stat
import uuid

from gateway.state import sqlitewait, store
from gateway.state.layout import layout

__all__ = ["DB_NAME", "SPEC_DIRS", "NEXT_ACTIONS", "SpecError", "SpecTask", "Spec",
           "parse_spec", "load_spec", "find_specs", "WorkflowState", "WorkflowStore",
           "open_store", "save_current", "restore"]

DB_NAME = "gateway-workflow.sqlite3"
SPEC_DIRS = (os.path.join(".cc-craft-kit", "specs"), "specs")
NEXT_ACTIONS = ("task_start", "task_done", "none")
SCHEMA_VERSION = 1
MAX_SPEC_BYTES = 2 << 20
MAX_SPECS = 500

_ID_LINE = re.compile(r"^\*\*(?:仕様書\s*ID|Spec\s*ID)[:：]?\*\*[:：]?\s*(\S+)\s*$", re.I)
_PHASE_LINE = re.compile(r"^\*\*(?:フェーズ|Phase)[:：]?\*\*[:：]?\s*(\S+)\s*$", re.I)
_TITLE = re.compile(r"^#\s+(.+?)\s*$")
_H2 = re.compile(r"^##\s+(.*)$")
_TASKLIST = re.compile(r"タスクリスト|task\s*list|\btasks\b", re.I)
_ITEM = re.compile(r"^\s*[-*+]\s+\[( |x|X)\]\s+(.*?)\s*$")
_ISSUE = re.compile(r"\s*\(#(\d{1,9})\)\s*$")
_SAFE_SPEC_ID = re.compile(r"[A-Za-z0-9_.-]{1,128}")


class SpecError(Exception):
    """A spec file cannot be used (the message names it)."""


class SpecTask:
    __slots__ = ("number", "title", "done", "issue")

    def __init__(self, number: int, title: str, done: bool, issue: int | None):
        self.number, self.title, self.done, self.issue = number, title, done, issue

    def __repr__(self) -> str:
        return f"SpecTask({self.number}, {self.title!r}, done={self.done}, issue={self.issue})"


class Spec:
    __slots__ = ("spec_id", "title", "phase", "path", "tasks", "mtime")

    def __init__(self, spec_id, title, phase, path, tasks, mtime=0.0):
        self.spec_id, self.title, self.phase, self.path = spec_id, title, phase, path
        self.tasks: list[SpecTask] = tasks
        self.mtime = mtime

    def current(self) -> SpecTask | None:
        """The first unchecked task (what the session works on), or None."""
        return next((t for t in self.tasks if not t.done), None)

    def task(self, number: int) -> SpecTask | None:
        return self.tasks[number - 1] if 1 <= number <= len(self.tasks) else None

    @property
    def implementing(self) -> bool:
        return (self.phase or "").lower() == "implementation"


def parse_spec(text: str, path: str) -> Spec:
    """Parse a spec (see the module docstring). Raises ``SpecError`` without an id."""
    spec_id = phase = title = None
    tasks: list[SpecTask] = []
    in_list = False
    for line in text.split("\n"):
        if spec_id is None and (m := _ID_LINE.match(line.strip())):
            spec_id = m.group(1)
            continue
        if phase is None and (m := _PHASE_LINE.match(line.strip())):
            phase = m.group(1)
            continue
        if title is None and (m := _TITLE.match(line)):
            title = m.group(1)
            continue
        h2 = _H2.match(line)
        if h2:
            in_list = bool(_TASKLIST.search(h2.group(1))) and not tasks
            continue
        if in_list and line.strip() == "---":
            in_list = False
            continue
        if in_list and (m := _ITEM.match(line)):
            body = m.group(2)
            issue = _ISSUE.search(body)
            if issue:
                body = body[:issue.start()]
            tasks.append(SpecTask(len(tasks) + 1, body.strip(), m.group(1) != " ",
                                  int(issue.group(1)) if issue else None))
    if spec_id is None:
        raise SpecError(f"{path}: no '**仕様書 ID:**' (or '**Spec ID:**') line")
    if not _SAFE_SPEC_ID.fullmatch(spec_id):
        raise SpecError(f"{path}: the spec id {store.safe_text(spec_id, 40)!r} is not "
                        f"letters, digits, '.', '_' and '-'")
    return Spec(spec_id, title or os.path.basename(path), phase, path, tasks)


def load_spec(path) -> Spec:
    path = os.fspath(path)
    try:
        data = store.read_bytes(path, MAX_SPEC_BYTES)
        mtime = os.lstat(path).st_mtime
    except store.StateError as e:
        raise SpecError(f"{path}: {e.problem}") from None
    except OSError as e:
        raise SpecError(f"{path}: {e.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise SpecError(f"{path}: not UTF-8 text") from None
    spec = parse_spec(text, path)
    spec.mtime = mtime
    return spec


def _inside(project: str, path: str) -> bool:
    real_root = os.path.realpath(project)
    real = os.path.realpath(path)
    return real == real_root or real.startswith(real_root.rstrip("/") + "/")


def find_specs(project_dir) -> tuple[list[Spec], list[str]]:
    """``(specs, problems)`` from the spec directories (files that are not specs are skipped
    silently; a spec that cannot be read is a problem). Only files inside the project."""
    project = os.fspath(project_dir)
    specs, problems = [], []
    seen = 0
    for d in SPEC_DIRS:
        full = os.path.join(project, d)
        if not os.path.isdir(full) or os.path.islink(full) or not _inside(project, full):
            continue
        for name in sorted(os.listdir(full)):
            if not name.endswith(".md") or name.startswith("."):
                continue
            seen += 1
            if seen > MAX_SPECS:
                problems.append(f"more than {MAX_SPECS} spec files; the rest were not read")
                return specs, problems
            path = os.path.join(full, name)
            try:
                specs.append(load_spec(path))
            except SpecError as e:
                if "no '**仕様書 ID:**'" not in str(e):
                    problems.append(str(e))
    return specs, problems


# --------------------------------------------------------------------------------------------
# The store
# --------------------------------------------------------------------------------------------

class WorkflowState:
    __slots__ = ("id", "spec_id", "spec_path", "current_task_number", "current_task_title",
                 "next_action", "github_issue_number", "saved_at", "updated_at", "session_id",
                 "done_due")

    def __init__(self, **kw):
        for k in self.__slots__:
            setattr(self, k, kw.get(k))
        if self.done_due is None:
            self.done_due = []

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__slots__}

    def __repr__(self) -> str:
        return (f"WorkflowState({self.spec_id!r}, task={self.current_task_number}, "
                f"next={self.next_action!r}, updated={self.updated_at!r})")


_COLUMNS = ("id", "spec_id", "spec_path", "current_task_number", "current_task_title",
            "next_action", "github_issue_number", "saved_at", "updated_at", "session_id",
            "done_due")
_SCHEMA = """
CREATE TABLE workflow_state (
  id TEXT PRIMARY KEY,
  spec_id TEXT NOT NULL UNIQUE,
  spec_path TEXT NOT NULL,
  current_task_number INTEGER NOT NULL CHECK (current_task_number >= 1),
  current_task_title TEXT NOT NULL,
  next_action TEXT NOT NULL DEFAULT 'none'
    CHECK (next_action IN ('task_start', 'task_done', 'none')),
  github_issue_number INTEGER,
  saved_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  session_id TEXT,
  done_due TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX workflow_state_updated ON workflow_state(updated_at);
"""

_REPAIR = ("`gateway state repair` sets it aside (renamed to {path}.unusable-<time>); the "
           "next PreCompact hook writes a new one (only the saved position in the spec is "
           "lost; the specs themselves are untouched)")


def _stamp() -> str:
    """A sortable UTC timestamp with microseconds (two saves in one second stay ordered)."""
    from datetime import UTC, datetime

    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class WorkflowStore:
    """The SQLite file. Use as a context manager; every method is one transaction."""

    def __init__(self, path: str, timeout: float = store.DEFAULT_LOCK_TIMEOUT):
        self.path = path
        self.timeout = timeout
        self.db: sqlite3.Connection | None = None

    def _corrupt(self, problem: str) -> store.StateCorrupt:
        return store.StateCorrupt(self.path, problem, _REPAIR.format(path=self.path))

    def __enter__(self) -> WorkflowStore:
        # the state directory as the guards check it (never through a link), then the file
        store.ensure_dir(os.path.dirname(self.path) or ".")
        try:
            st = os.lstat(self.path)
        except FileNotFoundError:
            st = None
        if st is not None and not stat.S_ISREG(st.st_mode):
            raise store.unsafe_file(self.path, st.st_mode)      # never opened: the readers' words
        if st is None:
            try:
                os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                                 | os.O_NONBLOCK | os.O_CLOEXEC, store.FILE_MODE))
            except FileExistsError:
                pass
            except OSError as e:
                raise store.StateError(self.path, f"cannot be created: {e.strerror}",
                                       "check the permissions of the state directory") from None
        wait = sqlitewait.Waiter(self.path, self.timeout)
        try:
            self.db = sqlite3.connect(self.path, timeout=max(0.001, wait.left()),
                                      isolation_level=None)
            self.db.execute("PRAGMA foreign_keys = ON")
            self._schema(wait)
        except store.StateError:
            self.close()
            raise
        except sqlite3.DatabaseError as e:
            self.close()
            raise self._corrupt(f"is not a usable SQLite database ({e})") from None
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self.db is not None:
            self.db.close()
            self.db = None

    def _schema(self, wait) -> None:
        """Check the schema with reads (a reader takes no write lock); create it, under the
        writers' lock, only in a database that has no table yet."""
        db = self.db

        def look():
            version = db.execute("PRAGMA user_version").fetchone()[0]
            tables = {r[0] for r in db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
            cols = tuple(r[1] for r in db.execute("PRAGMA table_info(workflow_state)"))
            return version, tables, cols

        version, tables, cols = wait.retry(look, db)
        if version == 0 and not tables:
            def create(db):
                version, tables, _cols = look()
                if version == 0 and not tables:
                    for stmt in _SCHEMA.strip().split(";"):
                        if stmt.strip():
                            db.execute(stmt)
                    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            self._write(create)
            version, tables, cols = wait.retry(look, db)
        if version != SCHEMA_VERSION or "workflow_state" not in tables:
            raise self._corrupt(f"has schema version {version} and tables "
                                f"{sorted(tables)[:5]}, not the gateway's workflow "
                                f"schema {SCHEMA_VERSION}")
        if cols != _COLUMNS:
            raise self._corrupt(f"has a workflow_state table with columns "
                                f"{', '.join(cols)}, not the gateway's")
        if wait.retry(lambda: db.execute("PRAGMA journal_mode").fetchone()[0], db) != "wal":
            self._to_wal(wait)

    def _to_wal(self, wait) -> None:
        """Write-ahead logging (once per database; the mode is kept in the file): readers
        never block a writer nor wait for one, and a commit is one fsync of the log instead
        of three (journal, database, directory): 6 ms instead of 25 ms on this VM. Under
        the writers' lock; a database that cannot change its mode now (another program has
        it open) is used as it is and changed by a later write."""
        with store.FileLock(self.path, timeout=self.timeout):
            try:
                wait.retry(lambda: self.db.execute("PRAGMA journal_mode = WAL").fetchone(),
                           self.db)
            except store.StateLocked:
                pass

    # -- rows -----------------------------------------------------------------------------

    def _row(self, r) -> WorkflowState:
        d = dict(zip(_COLUMNS, r, strict=True))
        try:
            due = json.loads(d["done_due"])
            if not isinstance(due, list) or not all(
                    isinstance(x, dict) and isinstance(x.get("task"), int) for x in due):
                raise ValueError
        except (ValueError, TypeError):
            raise self._corrupt(f"row for spec {store.safe_text(d['spec_id'], 40)} has an "
                                f"unreadable done_due list") from None
        d["done_due"] = due
        if d["next_action"] not in NEXT_ACTIONS or not isinstance(
                d["current_task_number"], int) or d["current_task_number"] < 1:
            raise self._corrupt(f"row for spec {store.safe_text(d['spec_id'], 40)} is invalid")
        return WorkflowState(**d)

    def _q(self, sql: str, args=()) -> list:
        """One read: waits while a write commits (``sqlitewait``), never answers locked."""
        wait = sqlitewait.Waiter(self.path, self.timeout)
        try:
            return wait.retry(lambda: self.db.execute(sql, args).fetchall(), self.db)
        except sqlite3.DatabaseError as e:
            raise self._corrupt(f"cannot be read ({e})") from None

    def all(self) -> list[WorkflowState]:
        """Every row, latest ``updated_at`` first."""
        return [self._row(r) for r in self._q(
            f"SELECT {', '.join(_COLUMNS)} FROM workflow_state "
            f"ORDER BY updated_at DESC, rowid DESC")]

    def latest(self) -> WorkflowState | None:
        rows = self._q(f"SELECT {', '.join(_COLUMNS)} FROM workflow_state "
                       f"ORDER BY updated_at DESC, rowid DESC LIMIT 1")
        return self._row(rows[0]) if rows else None

    def get(self, spec_id: str) -> WorkflowState | None:
        rows = self._q(f"SELECT {', '.join(_COLUMNS)} FROM workflow_state WHERE spec_id = ?",
                       (spec_id,))
        return self._row(rows[0]) if rows else None

    def _write(self, fn):
        """``fn(db)`` in one ``BEGIN IMMEDIATE`` transaction, under the writers' lock (the
        database's ``FileLock``: writers queue there, see ``gateway.state.sqlitewait``)."""
        db = self.db

        def once():
            db.execute("BEGIN IMMEDIATE")
            try:
                out = fn(db)
                db.execute("COMMIT")
                return out
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise

        try:
            with store.FileLock(self.path, timeout=self.timeout):
                return sqlitewait.Waiter(self.path, self.timeout).retry(once, db)
        except sqlite3.DatabaseError as e:
            raise self._corrupt(f"cannot be written ({e})") from None

    def save(self, *, spec_id: str, spec_path: str, task_number: int, task_title: str,
             next_action: str, issue: int | None, session_id: str | None = None,
             done_due: list | None = None) -> WorkflowState:
        """Upsert the row of ``spec_id``. ``done_due`` None keeps the stored list."""
        if next_action not in NEXT_ACTIONS:
            raise ValueError(f"next_action must be one of {NEXT_ACTIONS}")
        now = _stamp()

        def fn(db):
            due_json = json.dumps(done_due) if done_due is not None else None
            db.execute(
                "INSERT INTO workflow_state (id, spec_id, spec_path, current_task_number, "
                "current_task_title, next_action, github_issue_number, saved_at, updated_at, "
                "session_id, done_due) VALUES (?,?,?,?,?,?,?,?,?,?, COALESCE(?, '[]')) "
                "ON CONFLICT(spec_id) DO UPDATE SET spec_path = excluded.spec_path, "
                "current_task_number = excluded.current_task_number, "
                "current_task_title = excluded.current_task_title, "
                "next_action = excluded.next_action, "
                "github_issue_number = excluded.github_issue_number, "
                "updated_at = excluded.updated_at, session_id = excluded.session_id, "
                "done_due = COALESCE(?, workflow_state.done_due)",
                (str(uuid.uuid4()), spec_id, spec_path, task_number, task_title, next_action,
                 issue, now, now, session_id, due_json, due_json))
        self._write(fn)
        return self.get(spec_id)

    def mark_started(self, spec_id: str, task_number: int) -> WorkflowState | None:
        """The task's start step ran: its next action becomes ``task_done``."""
        self._write(lambda db: db.execute(
            "UPDATE workflow_state SET next_action = 'task_done', updated_at = ? "
            "WHERE spec_id = ? AND current_task_number = ?", (_stamp(), spec_id, task_number)))
        return self.get(spec_id)

    def record_done_due(self, spec_id: str, task_number: int, issue: int | None = None,
                        title: str | None = None) -> WorkflowState | None:
        """A task was checked but its done step has not run yet (no-op without a row)."""
        def fn(db):
            rows = db.execute("SELECT done_due FROM workflow_state WHERE spec_id = ?",
                              (spec_id,)).fetchall()
            if not rows:
                return
            due = [d for d in json.loads(rows[0][0]) if d.get("task") != task_number]
            due.append({"task": task_number, "issue": issue, "title": (title or "")[:200]})
            db.execute("UPDATE workflow_state SET done_due = ?, updated_at = ? "
                       "WHERE spec_id = ?", (json.dumps(due, ensure_ascii=False), _stamp(),
                                             spec_id))
        self._write(fn)
        return self.get(spec_id)

    def clear_done_due(self, spec_id: str, task_number: int) -> WorkflowState | None:
        """The task's done step ran."""
        def fn(db):
            rows = db.execute("SELECT done_due FROM workflow_state WHERE spec_id = ?",
                              (spec_id,)).fetchall()
            if not rows:
                return
            due = [d for d in json.loads(rows[0][0]) if d.get("task") != task_number]
            db.execute("UPDATE workflow_state SET done_due = ?, updated_at = ? "
                       "WHERE spec_id = ?", (json.dumps(due, ensure_ascii=False), _stamp(),
                                             spec_id))
        self._write(fn)
        return self.get(spec_id)

    def record_checked(self, spec: Spec, numbers, spec_path: str,
                       session_id: str | None = None) -> WorkflowState:
        """Tasks ``numbers`` of ``spec`` were checked (a PostToolUse hook saw their boxes
        flip): in one transaction, the spec's row is saved as it is now (its first unchecked
        task, or its last task with ``none`` when every task is checked) and a done step is
        recorded as due for each of those tasks that has an issue."""
        now = _stamp()
        cur = spec.current()
        last = spec.tasks[-1] if spec.tasks else None
        if cur is None and last is None:
            raise ValueError(f"spec {spec.spec_id} has no task list")
        task = cur or last

        def fn(db):
            rows = db.execute("SELECT current_task_number, next_action, done_due FROM "
                              "workflow_state WHERE spec_id = ?", (spec.spec_id,)).fetchall()
            stored = rows[0] if rows else None
            if cur is None:
                action = "none"
            elif stored is not None and stored[0] == cur.number and stored[1] == "task_done":
                action = "task_done"
            else:
                action = "task_start"
            due = json.loads(stored[2]) if stored is not None else []
            if not isinstance(due, list):
                due = []
            if stored is not None:
                due = merge_due(due, newly_checked(stored[0], spec))
            for n in numbers:
                t = spec.task(n)
                if t is None or t.issue is None or not t.done:
                    continue
                due = [d for d in due if not (isinstance(d, dict) and d.get("task") == n)]
                due.append({"task": n, "issue": t.issue, "title": t.title[:200]})
            db.execute(
                "INSERT INTO workflow_state (id, spec_id, spec_path, current_task_number, "
                "current_task_title, next_action, github_issue_number, saved_at, updated_at, "
                "session_id, done_due) VALUES (?,?,?,?,?,?,?,?,?,?,?) "
                "ON CONFLICT(spec_id) DO UPDATE SET spec_path = excluded.spec_path, "
                "current_task_number = excluded.current_task_number, "
                "current_task_title = excluded.current_task_title, "
                "next_action = excluded.next_action, "
                "github_issue_number = excluded.github_issue_number, "
                "updated_at = excluded.updated_at, "
                "session_id = COALESCE(excluded.session_id, workflow_state.session_id), "
                "done_due = excluded.done_due",
                (str(uuid.uuid4()), spec.spec_id, spec_path, task.number, task.title[:500],
                 action, task.issue, now, now, session_id,
                 json.dumps(due, ensure_ascii=False)))
        self._write(fn)
        return self.get(spec.spec_id)

    def delete(self, spec_id: str) -> None:
        self._write(lambda db: db.execute("DELETE FROM workflow_state WHERE spec_id = ?",
                                          (spec_id,)))


def db_path(project_dir) -> str:
    return layout(project_dir).path(DB_NAME)


def open_store(project_dir) -> WorkflowStore:
    return WorkflowStore(db_path(project_dir))


# --------------------------------------------------------------------------------------------
# PreCompact and SessionStart
# --------------------------------------------------------------------------------------------

def _rel(project: str, path: str) -> str:
    return os.path.relpath(path, project)


def newly_checked(stored_task: int | None, spec: Spec) -> list:
    """Done steps that became due since a row was saved at task ``stored_task``: every task
    from it up to the spec's current (first unchecked) task that is checked and has an issue.
    However the box was checked -- an Edit the PostToolUse hook saw, a Bash `sed -i`, an editor
    -- the next save (PreCompact, SessionEnd, a spec step) records its done step as due (seed
    002's lost done step), and the restore and `gateway spec status` name it."""
    if not isinstance(stored_task, int):
        return []
    cur = spec.current()
    end = cur.number if cur is not None else len(spec.tasks) + 1
    return [{"task": t.number, "issue": t.issue, "title": t.title[:200]}
            for t in spec.tasks if stored_task <= t.number < end and t.done
            and t.issue is not None]


def merge_due(due, more) -> list:
    have = {d.get("task") for d in due if isinstance(d, dict)}
    return list(due) + [d for d in more if d["task"] not in have]


def next_action_for(stored: WorkflowState | None, task_number: int) -> str:
    """``task_done`` when the stored state already says this task was started, else
    ``task_start``."""
    if stored is not None and stored.current_task_number == task_number \
            and stored.next_action == "task_done":
        return "task_done"
    return "task_start"


def save_current(project_dir, session_id: str | None = None) -> tuple[WorkflowState | None,
                                                                      list[str]]:
    """PreCompact: save the spec being worked on. ``(saved row or None, problems)``.
    Does nothing (and creates no database) when no spec is being implemented."""
    project = os.fspath(project_dir)
    specs, problems = find_specs(project)
    active = [s for s in specs if s.implementing and s.current() is not None]
    if not active:
        return None, problems
    spec = max(active, key=lambda s: (s.mtime, s.path))
    cur = spec.current()
    with open_store(project) as st:
        stored = st.get(spec.spec_id)
        due = None
        if stored is not None:
            more = newly_checked(stored.current_task_number, spec)
            due = merge_due(stored.done_due, more) if more else None
        row = st.save(spec_id=spec.spec_id, spec_path=_rel(project, spec.path),
                      task_number=cur.number, task_title=cur.title[:500],
                      next_action=next_action_for(stored, cur.number), issue=cur.issue,
                      session_id=session_id, done_due=due)
    return row, problems


def _cmd(step: str, issue, number=None) -> str:
    """The gateway command of a step, as a prefix inside the parentheses (a task without an
    issue is named by its position, ``--task N``)."""
    if isinstance(issue, int):
        return f"`gateway spec {step} {issue}`; "
    return f"`gateway spec {step} --task {number}`; " if isinstance(number, int) else ""


def _issue(n) -> str:
    return f"issue #{n}" if isinstance(n, int) else "no issue"


def restore(project_dir) -> tuple[str | None, list[str]]:
    """SessionStart: the instruction text for the latest still-valid saved state, or None.
    ``problems``: specs that could not be read (rows for them are skipped)."""
    project = os.fspath(project_dir)
    path = db_path(project)
    if not os.path.lexists(path):
        return None, []
    problems: list[str] = []
    with WorkflowStore(path) as st:
        rows = st.all()
    for row in rows:
        spec_path = os.path.join(project, row.spec_path)
        if os.path.isabs(row.spec_path) or not _inside(project, spec_path):
            problems.append(f"saved state for spec {store.safe_text(row.spec_id, 40)} names "
                            f"a path outside the project; ignored")
            continue
        try:
            spec = load_spec(spec_path)
        except SpecError as e:
            if os.path.lexists(spec_path):
                problems.append(str(e))
            continue
        if spec.spec_id != row.spec_id or not spec.implementing:
            continue                       # stale: another spec now, or no longer implementing
        return _instruction(row, spec), problems
    return None, problems


def _instruction(row: WorkflowState, spec: Spec) -> str:
    t = store.safe_text
    lines = [f"gateway: workflow state restored (saved {row.updated_at[:19]}Z): spec "
             f"«{t(spec.title, 100)}» ({row.spec_id}), phase implementation, "
             f"{sum(1 for x in spec.tasks if x.done)} of {len(spec.tasks)} tasks checked."]
    for d in row.done_due:
        task = spec.task(d.get("task")) if isinstance(d.get("task"), int) else None
        if task is not None:
            lines.append(f"- DUE FIRST: task {task.number} «{t(task.title, 100)}» is checked "
                         f"but its done step has not run: run the task done step for "
                         f"{_issue(task.issue)} now"
                         + (f" (`gateway spec done {task.issue}`)." if isinstance(
                             task.issue, int) else "."))
    saved = spec.task(row.current_task_number)
    cur = spec.current()
    listed = {d.get("task") for d in row.done_due}
    for d in newly_checked(row.current_task_number, spec):
        if d["task"] in listed:
            continue
        lines.append(f"- DUE FIRST: task {d['task']} «{t(d['title'], 100)}» was checked after "
                     f"the state was saved (its box flipped without the gateway seeing its done "
                     f"step): run the task done step for {_issue(d['issue'])} now "
                     f"(`gateway spec done {d['issue']}`).")
        listed.add(d["task"])
    if saved is not None and saved.done and cur is not saved and saved.number not in listed:
        lines.append(f"- Task {saved.number} «{t(saved.title, 100)}» was the current task when "
                     f"the state was saved and is checked now: if its done step has not run "
                     f"({_issue(saved.issue)}), run it before anything else.")
    if cur is None:
        lines.append("- Every task of the spec is checked: no task is left to start.")
        return "\n".join(lines)
    action = row.next_action if saved is cur else "task_start"
    cmd = _cmd("start" if action == "task_start" else "done", cur.issue, cur.number)
    what = {"task_start": f"run the task start step ({cmd}the issue goes to In Progress) "
                          f"before implementing it",
            "task_done": f"it was started: finish implementing it, check its box in the spec, "
                         f"then run the task done step ({cmd}the issue goes to Done)"}[action]
    lines.append(f"- Current task {cur.number} of {len(spec.tasks)} «{t(cur.title, 100)}» "
                 f"({_issue(cur.issue)}): next action {action}: {what}.")
    lines.append("- After each task: check its box, run its done step, then start the next "
                 "task the same way.")
    return "\n".join(lines)
