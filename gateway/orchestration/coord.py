"""The orchestrator store of seed 003: Session, Task and Run under ``agent-coord/``.

Layout (the seed's Storage Structure)::

    agent-coord/
      planner-sessions/<sessionId>.json      Session
      tasks/<taskId>.json                    Task (CAS on ``version``)
      runs/<runId>.json  runs/<runId>.log    Run and its log

The seed's ``.locks/<taskId>/`` directories are replaced by ``flock`` locks on hidden lock
files next to each entity (``gateway.state.store.FileLock``): a lock dies with its process, so
a crash never leaves an entity locked for ever (upstream: no stale-lock recovery, no retry).
Files are written atomically (temp + fsync + rename; upstream: plain writes) and read strictly
and bounded; files on disk use the seed's camelCase field names.

IDs (validated before any path is built; an id is never a path):

* session ``planner-<uuid>``, ``planner-additional-<uuid>``, ``planner-replanning-<uuid>``;
  its short id is the uuid's first 8 hex digits, found by parsing (upstream: fixed offsets);
* task ``task-<short>-<n>`` (n >= 1) and, for conflict resolution,
  ``task-<short>-conflict-resolution-<8 hex>``;
* run ``run-<uuid>``. UUIDs are lower-case.

Task states and the only legal transitions (seed 003's diagram and Scheduler/Judge/Replanning
operations; ``releaseTask`` is RUNNING → READY)::

    READY               → RUNNING (claim), CANCELLED
    RUNNING             → DONE, NEEDS_CONTINUATION, BLOCKED, REPLACED_BY_REPLAN,
                          READY (release, or a dead holder's claim recovered), CANCELLED
    NEEDS_CONTINUATION  → RUNNING (claim), CANCELLED
    BLOCKED             → REPLACED_BY_REPLAN (replanned), CANCELLED
    DONE, CANCELLED, REPLACED_BY_REPLAN: final

Every update is checked against the state *read under the lock* (upstream's complete/block/
reset overwrote blindly: DONE over CANCELLED, a reset reviving a replaced task). A state change
is a compare-and-swap on ``version``: the caller names the version it decided on
(``expected_version``), or is the claim's holder (``owner``: claims bump the version, so a
holder is always acting on its own claim); claims and lease recovery compare the state and
version they read under the lock.

Claims: ``claim_next_task`` takes the first claimable task (READY or NEEDS_CONTINUATION, every
dependency DONE) in id order under that task's lock, so no interleaving hands one task to two
workers. A claim carries a lease; the holder renews it (``heartbeat``). A claim whose lease
ran out, or -- when the claimer named its worker process (``pid``) -- whose worker process on
this host is gone, is recovered (RUNNING → READY) by the next ``claim_next_task`` or
``recover_claims``.

A Run starts as RUNNING (upstream wrote SUCCESS as a placeholder, so a crashed run looked
successful) and is finished once, to SUCCESS, FAILURE or TIMEOUT.
"""

from __future__ import annotations

import errno
import os
import re
import socket
import stat
import time
import uuid
from collections.abc import Callable, Iterable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from gateway.state import anchors, store, temps
from gateway.state.fast import parse_iso

__all__ = [
    "DIR_NAME", "TASK_STATES", "TRANSITIONS", "FINAL_STATES", "CLAIMABLE", "RUN_STATUSES",
    "CoordError", "InvalidId", "NotFound", "AlreadyExists", "ConcurrentModification",
    "IllegalTransition", "NotClaimable", "NotOwner",
    "is_session_id", "is_task_id", "is_run_id", "session_short", "new_session_id",
    "task_id_for", "conflict_task_id", "new_run_id",
    "Session", "Task", "Run", "CoordStore",
]

DIR_NAME = "agent-coord"
TASK_STATES = ("READY", "RUNNING", "NEEDS_CONTINUATION", "DONE", "BLOCKED",
               "REPLACED_BY_REPLAN", "CANCELLED")
TRANSITIONS: dict[str, frozenset[str]] = {
    "READY": frozenset({"RUNNING", "CANCELLED"}),
    "RUNNING": frozenset({"DONE", "NEEDS_CONTINUATION", "BLOCKED", "REPLACED_BY_REPLAN",
                          "READY", "CANCELLED"}),
    "NEEDS_CONTINUATION": frozenset({"RUNNING", "CANCELLED"}),
    "BLOCKED": frozenset({"REPLACED_BY_REPLAN", "CANCELLED"}),
    "DONE": frozenset(), "CANCELLED": frozenset(), "REPLACED_BY_REPLAN": frozenset(),
}
FINAL_STATES = frozenset(s for s, t in TRANSITIONS.items() if not t)
CLAIMABLE = frozenset({"READY", "NEEDS_CONTINUATION"})
TASK_TYPES = ("implementation", "documentation", "investigation", "integration")
BLOCK_REASONS = ("MAX_RETRIES", "MAX_RETRIES_INTEGRATION", "CONFLICT", "SYSTEM_ERROR_TRANSIENT",
                 "SYSTEM_ERROR_PERMANENT", "MANUAL", "UNKNOWN")
RUN_STATUSES = ("RUNNING", "SUCCESS", "FAILURE", "TIMEOUT")
DEFAULT_LEASE = 600.0          # seconds a claim lives without a heartbeat
MAX_CONTINUE_ITERATIONS = 5    # `agent continue` loop guard (seed: 無限ループ防止)
MAX_ENTITY_BYTES = 4 << 20
MAX_LOG_BYTES = 64 << 20

_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
_SESSION_RX = re.compile(rf"planner-(?:(additional|replanning)-)?({_UUID})")
_TASK_RX = re.compile(r"task-([0-9a-f]{8})-(?:([1-9][0-9]{0,8})|conflict-resolution-"
                      r"([0-9a-f]{8}))")
_RUN_RX = re.compile(rf"run-({_UUID})")


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------

class CoordError(Exception):
    """Any store error; ``str()`` is a complete sentence."""


class InvalidId(CoordError, ValueError):
    pass


class NotFound(CoordError):
    pass


class AlreadyExists(CoordError):
    pass


class ConcurrentModification(CoordError):
    """The entity's version is not the one the caller read (CAS failed)."""

    def __init__(self, what: str, expected: int, actual: int):
        self.expected, self.actual = expected, actual
        super().__init__(f"{what} was modified concurrently: expected version {expected}, "
                         f"found {actual}; read it again and retry")


class IllegalTransition(CoordError):
    def __init__(self, task_id: str, current: str, target: str | None):
        self.current, self.target = current, target
        allowed = ", ".join(sorted(TRANSITIONS[current])) or "none (a final state)"
        if target is None:
            msg = (f"task {task_id} is {current}, a final state: it does not change any more "
                   f"(its feedback, reason and claim stay as they are). Replan it as a new task "
                   f"if more work is needed")
        else:
            msg = (f"task {task_id} is {current}; it cannot become {target} (allowed from "
                   f"{current}: {allowed})")
        super().__init__(msg)


class NotClaimable(CoordError):
    pass


class NotOwner(CoordError):
    pass


# --------------------------------------------------------------------------------------------
# IDs
# --------------------------------------------------------------------------------------------

def is_session_id(v) -> bool:
    return isinstance(v, str) and _SESSION_RX.fullmatch(v) is not None


def is_task_id(v) -> bool:
    return isinstance(v, str) and _TASK_RX.fullmatch(v) is not None


def is_run_id(v) -> bool:
    return isinstance(v, str) and _RUN_RX.fullmatch(v) is not None


def _check(kind: str, v, test) -> str:
    if not test(v):
        raise InvalidId(f"{store.safe_text(v, 80)!r} is not a valid {kind} id (see the seed's "
                        f"ID formats: planner-<uuid>, task-<short>-<n>, run-<uuid>)")
    return v


def session_short(session_id: str) -> str:
    """The 8-hex short id of a session id (``planner-7682b3a8-...`` → ``7682b3a8``)."""
    _check("session", session_id, is_session_id)
    return _SESSION_RX.fullmatch(session_id).group(2)[:8]


def new_session_id(kind: str = "normal") -> str:
    prefix = {"normal": "planner-", "additional": "planner-additional-",
              "replanning": "planner-replanning-"}[kind]
    return prefix + str(uuid.uuid4())


def task_id_for(session_id: str, seq: int) -> str:
    if isinstance(seq, bool) or not isinstance(seq, int) or seq < 1:
        raise InvalidId(f"a task sequence number must be >= 1, not {seq!r}")
    return f"task-{session_short(session_id)}-{seq}"


def conflict_task_id(session_id: str) -> str:
    return f"task-{session_short(session_id)}-conflict-resolution-{uuid.uuid4().hex[:8]}"


def new_run_id() -> str:
    return f"run-{uuid.uuid4()}"


def _task_sort_key(task_id: str):
    m = _TASK_RX.fullmatch(task_id)
    if m is None:
        return ("~", 0, task_id)
    return (m.group(1), int(m.group(2)) if m.group(2) else 10 ** 10, m.group(3) or "")


# --------------------------------------------------------------------------------------------
# Entities (camelCase on disk)
# --------------------------------------------------------------------------------------------

_CFG = ConfigDict(extra="forbid", alias_generator=to_camel, populate_by_name=True,
                  str_max_length=1 << 20, defer_build=True)
Ts = str


class Message(BaseModel):
    model_config = _CFG
    role: Literal["user", "assistant", "system"]
    content: str


class FinalJudgement(BaseModel):
    model_config = _CFG
    is_complete: bool
    missing_aspects: list[str] = []
    additional_task_suggestions: list[str] = []
    completion_score: float | None = None


class Session(BaseModel):
    model_config = _CFG
    session_id: str
    instruction: str
    conversation_history: list[Message] = []
    generated_tasks: list[str] = []             # task ids (seed: Task[]; review C1)
    final_judgement: FinalJudgement | None = None
    continue_iteration_count: int = Field(0, ge=0)
    created_at: Ts
    updated_at: Ts
    version: int = Field(0, ge=0)

    def model_post_init(self, _ctx) -> None:
        _check("session", self.session_id, is_session_id)
        for t in self.generated_tasks:
            _check("task", t, is_task_id)


class Task(BaseModel):
    model_config = _CFG
    id: str
    state: Literal["READY", "RUNNING", "NEEDS_CONTINUATION", "DONE", "BLOCKED",
                   "REPLACED_BY_REPLAN", "CANCELLED"] = "READY"
    task_type: Literal["implementation", "documentation", "investigation",
                       "integration"] = "implementation"
    planner_run_id: str | None = None           # the parent session id (seed's name)
    branch: str = ""
    dependencies: list[str] = []
    acceptance: str = ""
    judgement_feedback: dict[str, Any] | None = None
    block_reason: Literal["MAX_RETRIES", "MAX_RETRIES_INTEGRATION", "CONFLICT",
                          "SYSTEM_ERROR_TRANSIENT", "SYSTEM_ERROR_PERMANENT", "MANUAL",
                          "UNKNOWN"] | None = None
    replaced_by: list[str] = []
    owner: str | None = None
    owner_pid: int | None = None
    owner_host: str | None = None
    claimed_at: Ts | None = None
    lease_expires_at: Ts | None = None
    version: int = Field(0, ge=0)
    created_at: Ts
    updated_at: Ts

    def model_post_init(self, _ctx) -> None:
        _check("task", self.id, is_task_id)
        if self.planner_run_id is not None:
            _check("session", self.planner_run_id, is_session_id)
        for d in self.dependencies:
            _check("task", d, is_task_id)
        for d in self.replaced_by:
            _check("task", d, is_task_id)


class Run(BaseModel):
    model_config = _CFG
    id: str
    task_id: str
    status: Literal["RUNNING", "SUCCESS", "FAILURE", "TIMEOUT"] = "RUNNING"
    agent_type: Literal["claude", "codex"] = "claude"
    log_path: str
    planner_run_id: str | None = None
    started_at: Ts
    finished_at: Ts | None = None
    error_message: str | None = None
    version: int = Field(0, ge=0)

    def model_post_init(self, _ctx) -> None:
        _check("run", self.id, is_run_id)
        _check("task", self.task_id, is_task_id)
        if self.planner_run_id is not None:
            _check("session", self.planner_run_id, is_session_id)


def _dump(m: BaseModel) -> dict:
    return m.model_dump(mode="json", by_alias=True)


# --------------------------------------------------------------------------------------------
# The store
# --------------------------------------------------------------------------------------------

def _now_epoch() -> float:
    return time.time()


def _iso(epoch: float) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _pid_alive(pid) -> bool | None:
    if not isinstance(pid, int) or pid <= 0:
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


class CoordStore:
    """``CoordStore(project_dir)`` or ``CoordStore(base=".../agent-coord")``. Creates the
    directories on the first write. ``clock`` (epoch seconds) is injectable for tests.
    ``sweep=False``: a read-only view (``gateway orch``) that removes no temp file of a dead
    writer; the first write still does."""

    def __init__(self, project_dir=None, *, base=None, clock: Callable[[], float] = _now_epoch,
                 lock_timeout: float = store.DEFAULT_LOCK_TIMEOUT, sweep: bool = True):
        if base is None:
            if project_dir is None:
                raise ValueError("give project_dir or base")
            base = os.path.join(os.fspath(project_dir), DIR_NAME)
        self.base = os.fspath(base)
        self.clock = clock
        self.lock_timeout = lock_timeout
        self.host = socket.gethostname()
        self._swept = not sweep
        self._open_for_write()

    # -- paths -----------------------------------------------------------------------------

    def _dir(self, name: str) -> str:
        d = os.path.join(self.base, name)
        for p in (self.base, d):
            try:
                st = os.lstat(p)
            except FileNotFoundError:
                break
            except OSError:
                continue            # the read or the write that follows says why
            problem = anchors.coord_problem(p, st)
            if problem is not None:
                raise store.StateUnsafe(p, problem, f"replace {p} by a real directory (the "
                                        f"files it points to are not touched)",
                                        noun="orchestrator store")
        return d

    def _open_for_write(self) -> None:
        """Opening the store (``sweep=True``, the default; else its first write) removes the
        temp files of writers that died (``gateway.state.temps``: only the store's own, by
        name and age, each under its entity's lock). A store that cannot be used is left
        for the operation that follows to refuse."""
        if self._swept:
            return
        self._swept = True
        for name in ("planner-sessions", "tasks", "runs"):
            try:
                d = self._dir(name)
            except store.StateError:
                return
            if os.path.isdir(d) and not os.path.islink(d):
                temps.sweep(d)

    def session_path(self, session_id: str) -> str:
        return os.path.join(self._dir("planner-sessions"),
                            _check("session", session_id, is_session_id) + ".json")

    def task_path(self, task_id: str) -> str:
        return os.path.join(self._dir("tasks"), _check("task", task_id, is_task_id) + ".json")

    def run_path(self, run_id: str) -> str:
        return os.path.join(self._dir("runs"), _check("run", run_id, is_run_id) + ".json")

    def log_path(self, run_id: str) -> str:
        return os.path.join(self._dir("runs"), _check("run", run_id, is_run_id) + ".log")

    # -- generic entity I/O -----------------------------------------------------------------

    def _now(self) -> str:
        return _iso(self.clock())

    def _read(self, path: str, model: type[BaseModel], what: str):
        try:
            data = store.read_json(path, max_bytes=MAX_ENTITY_BYTES)
        except store.StateMissing:
            raise NotFound(f"{what} does not exist ({path})") from None
        try:
            return model.model_validate(data)
        except (ValidationError, InvalidId) as e:
            problem = str(e).splitlines()[0] if isinstance(e, InvalidId) else "; ".join(
                f"{'.'.join(str(x) for x in err['loc'])}: {err['msg']}"
                for err in e.errors(include_url=False, include_input=False)[:3])
            raise store.StateInvalid(path, f"is not a valid {what}: {problem}",
                                     f"inspect {path}; it is written only by the gateway's "
                                     f"orchestrator store") from None

    def _write(self, path: str, entity: BaseModel) -> None:
        store.atomic_write_json(path, _dump(entity))

    def _lock(self, path: str) -> store.FileLock:
        """The entity's lock, taken by every write (after the store's first-write sweep)."""
        self._open_for_write()
        return store.FileLock(path, timeout=self.lock_timeout)

    def _create(self, path: str, entity: BaseModel, what: str) -> None:
        with self._lock(path):
            if os.path.lexists(path):
                raise AlreadyExists(f"{what} already exists ({path})")
            self._write(path, entity)

    # -- sessions ---------------------------------------------------------------------------

    def create_session(self, instruction: str, kind: str = "normal",
                       session_id: str | None = None) -> Session:
        """A new session (``planner-<uuid>``; ``kind`` additional/replanning for the other
        forms). ``session_id``: a given, validated id instead of a new one."""
        now = self._now()
        sid = _check("session", session_id, is_session_id) if session_id else \
            new_session_id(kind)
        s = Session(session_id=sid, instruction=instruction, created_at=now, updated_at=now)
        self._create(self.session_path(s.session_id), s, f"session {s.session_id}")
        return s

    def get_session(self, session_id: str) -> Session:
        return self._read(self.session_path(session_id), Session, f"session {session_id}")

    def update_session(self, session_id: str, fn: Callable[[Session], Session],
                       expected_version: int | None = None) -> Session:
        path = self.session_path(session_id)
        with self._lock(path):
            cur = self._read(path, Session, f"session {session_id}")
            if expected_version is not None and cur.version != expected_version:
                raise ConcurrentModification(f"session {session_id}", expected_version,
                                             cur.version)
            new = fn(cur.model_copy(deep=True))
            if new.session_id != cur.session_id:
                raise CoordError("a session update cannot change its id")
            new = new.model_copy(update={"version": cur.version + 1, "updated_at": self._now()})
            Session.model_validate(_dump(new))
            self._write(path, new)
            return new

    def list_sessions(self) -> list[Session]:
        d = self._dir("planner-sessions")
        out = []
        for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            if name.endswith(".json") and is_session_id(name[:-5]):
                out.append(self.get_session(name[:-5]))
        return sorted(out, key=lambda s: s.created_at)

    def continue_session(self, session_id: str) -> Session:
        """``agent continue``: count an iteration; refuses past MAX_CONTINUE_ITERATIONS."""
        def fn(s: Session) -> Session:
            if s.continue_iteration_count >= MAX_CONTINUE_ITERATIONS:
                raise CoordError(f"session {session_id} was continued "
                                 f"{s.continue_iteration_count} times (limit "
                                 f"{MAX_CONTINUE_ITERATIONS}); start a new run instead")
            s.continue_iteration_count += 1
            return s
        return self.update_session(session_id, fn)

    def record_final_judgement(self, session_id: str, judgement: dict) -> Session:
        fj = FinalJudgement.model_validate(judgement)

        def fn(s: Session) -> Session:
            s.final_judgement = fj
            return s
        return self.update_session(session_id, fn)

    # -- tasks ------------------------------------------------------------------------------

    def add_task(self, session_id: str, seq: int, *, task_type: str = "implementation",
                 dependencies: Iterable[str] = (), acceptance: str = "", branch: str = "",
                 task_id: str | None = None) -> Task:
        """Create a READY task (version 0) and list it in the session's generatedTasks.
        Refuses an existing id (created under the lock: no check-then-write race)."""
        now = self._now()
        tid = task_id or task_id_for(session_id, seq)
        t = Task(id=tid, task_type=task_type, planner_run_id=session_id, branch=branch,
                 dependencies=list(dependencies), acceptance=acceptance, created_at=now,
                 updated_at=now)
        if session_short(session_id) != tid.split("-")[1]:
            raise InvalidId(f"task {tid} does not belong to session {session_id}")
        self._create(self.task_path(tid), t, f"task {tid}")

        def fn(s: Session) -> Session:
            if tid not in s.generated_tasks:
                s.generated_tasks.append(tid)
            return s
        if os.path.lexists(self.session_path(session_id)):
            self.update_session(session_id, fn)
        return t

    def add_conflict_resolution_task(self, session_id: str, dependencies: Iterable[str],
                                     acceptance: str = "resolve the merge conflict") -> Task:
        """Integration Operations' createConflictResolutionTask: an ``integration`` task with
        the id ``task-<short>-conflict-resolution-<uuid8>``."""
        return self.add_task(session_id, 1, task_type="integration",
                             dependencies=dependencies, acceptance=acceptance,
                             task_id=conflict_task_id(session_id))

    def get_task(self, task_id: str) -> Task:
        return self._read(self.task_path(task_id), Task, f"task {task_id}")

    def list_tasks(self, session_id: str | None = None) -> list[Task]:
        d = self._dir("tasks")
        names = sorted(os.listdir(d)) if os.path.isdir(d) else []
        ids = [n[:-5] for n in names if n.endswith(".json") and is_task_id(n[:-5])]
        if session_id is not None:
            short = session_short(session_id)
            ids = [i for i in ids if i.split("-")[1] == short]
        out = []
        for i in sorted(ids, key=_task_sort_key):
            try:
                out.append(self.get_task(i))
            except NotFound:
                continue
        return out

    def update_task(self, task_id: str, fn: Callable[[Task], Task], *,
                    expected_version: int | None = None) -> Task:
        """Read-modify-write under the task's lock. The new state must be a legal transition
        from the state read under the lock; with ``expected_version`` it is a CAS."""
        path = self.task_path(task_id)
        with self._lock(path):
            cur = self._read(path, Task, f"task {task_id}")
            if expected_version is not None and cur.version != expected_version:
                raise ConcurrentModification(f"task {task_id}", expected_version, cur.version)
            if cur.state in FINAL_STATES:
                raise IllegalTransition(task_id, cur.state, None)
            new = fn(cur.model_copy(deep=True))
            if new.id != cur.id:
                raise CoordError("a task update cannot change its id")
            if new.state != cur.state and new.state not in TRANSITIONS[cur.state]:
                raise IllegalTransition(task_id, cur.state, new.state)
            new = new.model_copy(update={"version": cur.version + 1, "updated_at": self._now()})
            Task.model_validate(_dump(new))
            self._write(path, new)
            return new

    def transition(self, task_id: str, to_state: str, *, expected_version: int | None = None,
                   owner: str | None = None, **fields) -> Task:
        """Move a task to ``to_state`` (a legal transition only). The change must name the
        version it was decided on (``expected_version``: a compare-and-swap) or be made by the
        holder of the claim (``owner``), or both. Leaving RUNNING clears the claim."""
        if to_state not in TASK_STATES:
            raise CoordError(f"unknown task state {to_state!r}")
        if expected_version is None and owner is None:
            raise CoordError(f"task {task_id}: a state change must give the version it was "
                             f"decided on (expected_version) or be made by the claim's owner")

        def fn(t: Task) -> Task:
            if to_state == "RUNNING":
                if t.state != "RUNNING" and to_state not in TRANSITIONS[t.state]:
                    raise IllegalTransition(task_id, t.state, to_state)
                raise CoordError(f"task {task_id}: only a claim (claim_task / "
                                 f"claim_next_task) makes a task RUNNING, with its holder and "
                                 f"lease")
            if to_state not in TRANSITIONS[t.state]:
                # the same state again is no transition either: a DONE task's feedback or a
                # BLOCKED task's reason is not rewritten by a second "transition"
                raise IllegalTransition(task_id, t.state, to_state)
            if owner is not None and t.owner != owner:
                raise NotOwner(f"task {task_id} is held by {t.owner or 'nobody'}, not {owner}")
            upd = dict(fields, state=to_state)
            if t.state == "RUNNING" and to_state != "RUNNING":
                upd.update(owner=None, owner_pid=None, owner_host=None, claimed_at=None,
                           lease_expires_at=None)
            return t.model_copy(update=upd)
        return self.update_task(task_id, fn, expected_version=expected_version)

    def complete_task(self, task_id: str, *, expected_version: int | None = None,
                      owner: str | None = None, feedback: dict | None = None) -> Task:
        return self.transition(task_id, "DONE", expected_version=expected_version, owner=owner,
                               judgement_feedback=feedback)

    def continue_task(self, task_id: str, *, expected_version: int | None = None,
                      owner: str | None = None, feedback: dict | None = None) -> Task:
        return self.transition(task_id, "NEEDS_CONTINUATION", expected_version=expected_version,
                               owner=owner, judgement_feedback=feedback)

    def block_task(self, task_id: str, reason: str = "UNKNOWN", *,
                   expected_version: int | None = None, owner: str | None = None) -> Task:
        if reason not in BLOCK_REASONS:
            raise CoordError(f"block reason must be one of {', '.join(BLOCK_REASONS)}")
        return self.transition(task_id, "BLOCKED", expected_version=expected_version,
                               owner=owner, block_reason=reason)

    def cancel_task(self, task_id: str, *, expected_version: int | None = None) -> Task:
        return self.transition(task_id, "CANCELLED", expected_version=expected_version)

    def replace_task(self, task_id: str, replaced_by: Iterable[str], *,
                     expected_version: int | None = None) -> Task:
        """Replanning: the task is REPLACED_BY_REPLAN by the given new tasks."""
        new = [_check("task", t, is_task_id) for t in replaced_by]
        return self.transition(task_id, "REPLACED_BY_REPLAN",
                               expected_version=expected_version, replaced_by=new)

    # -- claims (Scheduler Operations) --------------------------------------------------------

    def _claim_expired(self, t: Task, now: float) -> bool:
        if t.state != "RUNNING":
            return False
        exp = parse_iso(t.lease_expires_at) if t.lease_expires_at else None
        if exp is None or exp.timestamp() <= now:
            return True
        return t.owner_host == self.host and _pid_alive(t.owner_pid) is False

    def _deps_done(self, t: Task) -> bool:
        for d in t.dependencies:
            try:
                if self.get_task(d).state != "DONE":
                    return False
            except NotFound:
                return False
        return True

    def claim_task(self, task_id: str, worker: str, *, lease: float = DEFAULT_LEASE,
                   pid: int | None = None) -> Task:
        """Claim one task for ``worker`` (READY/NEEDS_CONTINUATION with every dependency DONE
        → RUNNING). Raises ``NotClaimable`` otherwise.

        ``pid``: the process that does the work, when it is a long-lived worker on this host
        (``os.getpid()`` in the worker): its death ends the claim at once. Without it the
        claim lives until its lease runs out -- the right choice when the claim is made by a
        short-lived command on the worker's behalf, whose exit says nothing about the work."""
        if not isinstance(worker, str) or not worker or len(worker) > 256:
            raise CoordError("worker must be a non-empty name of at most 256 characters")
        deps_ok = self._deps_done(self.get_task(task_id))

        def fn(t: Task) -> Task:
            if t.state not in CLAIMABLE:
                raise NotClaimable(f"task {task_id} is {t.state}")
            if not deps_ok or not self._deps_done(t):
                raise NotClaimable(f"task {task_id} waits for a dependency that is not DONE")
            now = self.clock()
            return t.model_copy(update={
                "state": "RUNNING", "owner": worker, "owner_pid": pid,
                "owner_host": self.host if pid is not None else None,
                "claimed_at": _iso(now),
                "lease_expires_at": _iso(now + lease)})
        try:
            return self.update_task(task_id, fn)
        except IllegalTransition as e:       # final meanwhile (another worker finished it)
            raise NotClaimable(str(e)) from None

    def recover_claims(self) -> list[Task]:
        """Put tasks whose claim expired (or whose holder on this host died) back to READY."""
        now = self.clock()
        out = []
        for t in self.list_tasks():
            if not self._claim_expired(t, now):
                continue

            def fn(cur: Task) -> Task:
                if not self._claim_expired(cur, self.clock()):
                    raise NotClaimable("renewed meanwhile")
                return cur.model_copy(update={
                    "state": "READY", "owner": None, "owner_pid": None, "owner_host": None,
                    "claimed_at": None, "lease_expires_at": None})
            try:
                out.append(self.update_task(t.id, fn))
            except (NotClaimable, NotFound):
                continue
        return out

    def claim_next_task(self, worker: str, *, lease: float = DEFAULT_LEASE,
                        session_id: str | None = None, pid: int | None = None) -> Task | None:
        """The first claimable task in id order, claimed for ``worker``; None when there is
        none. Expired claims are recovered first."""
        self.recover_claims()
        for t in self.list_tasks(session_id):
            if t.state not in CLAIMABLE:
                continue
            try:
                return self.claim_task(t.id, worker, lease=lease, pid=pid)
            except (NotClaimable, NotFound):
                continue
        return None

    def heartbeat(self, task_id: str, worker: str, *, lease: float = DEFAULT_LEASE) -> Task:
        """Renew ``worker``'s claim."""
        def fn(t: Task) -> Task:
            if t.state != "RUNNING" or t.owner != worker:
                raise NotOwner(f"task {task_id} is not claimed by {worker}")
            return t.model_copy(update={"lease_expires_at": _iso(self.clock() + lease)})
        return self.update_task(task_id, fn)

    def release_task(self, task_id: str, worker: str) -> Task:
        """The seed's releaseTask: give a claim back (RUNNING → READY)."""
        return self.transition(task_id, "READY", owner=worker)

    # -- runs -------------------------------------------------------------------------------

    def start_run(self, task_id: str, agent_type: str = "claude",
                  session_id: str | None = None, run_id: str | None = None) -> Run:
        """A new Run of ``task_id``, RUNNING from the start: a run is a worker executing a
        claimed task, so the task must exist and be RUNNING (raises ``NotFound``,
        ``CoordError``)."""
        _check("task", task_id, is_task_id)
        t = self.get_task(task_id)
        if t.state != "RUNNING":
            raise CoordError(f"task {task_id} is {t.state}, not RUNNING: a run is started for a "
                             f"claimed task (claim it first: `gateway orch claim WORKER --task "
                             f"{task_id}`)")
        rid = _check("run", run_id, is_run_id) if run_id else new_run_id()
        r = Run(id=rid, task_id=task_id, agent_type=agent_type,
                log_path=os.path.join(DIR_NAME, "runs", rid + ".log"),
                planner_run_id=session_id, started_at=self._now())
        self._create(self.run_path(rid), r, f"run {rid}")
        return r

    def get_run(self, run_id: str) -> Run:
        return self._read(self.run_path(run_id), Run, f"run {run_id}")

    def finish_run(self, run_id: str, status: str, error: str | None = None) -> Run:
        if status not in ("SUCCESS", "FAILURE", "TIMEOUT"):
            raise CoordError("a run finishes as SUCCESS, FAILURE or TIMEOUT")
        path = self.run_path(run_id)
        with self._lock(path):
            cur = self._read(path, Run, f"run {run_id}")
            if cur.status != "RUNNING":
                raise CoordError(f"run {run_id} already finished as {cur.status}")
            new = cur.model_copy(update={"status": status, "finished_at": self._now(),
                                         "error_message": (error or None) and error[:4000],
                                         "version": cur.version + 1})
            self._write(path, new)
            return new

    def append_log(self, run_id: str, text: str) -> None:
        path = self.log_path(run_id)
        data = text.encode("utf-8", "backslashreplace")
        store.ensure_dir(os.path.dirname(path))
        with self._lock(path):
            try:
                fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW
                             | os.O_NONBLOCK | os.O_CLOEXEC, store.FILE_MODE)
            except OSError as e:
                if e.errno in (errno.ELOOP, errno.EISDIR, errno.ENXIO, errno.ENOTDIR):
                    try:
                        mode = os.lstat(path).st_mode
                    except OSError:
                        mode = stat.S_IFLNK if e.errno == errno.ELOOP else 0
                    raise store.unsafe_file(path, mode) from None   # the readers' sentence
                raise store.StateError(path, f"cannot be opened for appending: {e.strerror}",
                                       "check the permissions of the store") from None
            try:
                if not stat.S_ISREG(os.fstat(fd).st_mode):
                    raise store.unsafe_file(path, os.fstat(fd).st_mode)
                if os.fstat(fd).st_size + len(data) > MAX_LOG_BYTES:
                    raise CoordError(f"run log {path} would exceed {MAX_LOG_BYTES} bytes")
                os.write(fd, data)
            finally:
                os.close(fd)

    def list_runs(self, task_id: str | None = None) -> list[Run]:
        d = self._dir("runs")
        out = []
        for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            if name.endswith(".json") and is_run_id(name[:-5]):
                r = self.get_run(name[:-5])
                if task_id is None or r.task_id == task_id:
                    out.append(r)
        return sorted(out, key=lambda r: r.started_at)
