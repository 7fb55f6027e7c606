"""What the team of the running breezing session did, as the hooks observed it (seed 001's
Team Activity; seed 000's batching): ``.claude/state/gateway-breezing-progress.json``, written
only by the gateway (GW834).

* **TaskCompleted** (``record_completed``): the task, who completed it and when, and the
  Plans.md section it is -- from the task's subject (``"4.1 ログイン機能の実装"``, the form
  ``gateway breezing start`` registers) or its description (``Plans.md 4.1``), and only when
  the payload carries neither, from ``plans_md_mapping`` (an id the gateway assumed: a fix
  task created in between shifts the ids the client gives, a subject never lies about which
  task it is). A task that is no Plans.md section (a fix task after REQUEST_CHANGES) is kept
  as an extra task.
* **TaskCreated** (``record_created``): the task the Lead created, so that a fix task is known
  even when the team's task list cannot be read; Phase C waits for it.
* **`gateway resume --yes`** (``carry_fix_tasks``): the fix tasks the previous session left
  open are carried into the new session's record (by subject) and Phase C waits for them
  until the Lead creates each again and it is completed.
* the batch a completion finishes is marked ``completed`` in breezing-active.json's
  ``batching`` (``gateway breezing batch`` marks the next one ``in_progress``).

The timeline (``breezing-timeline.jsonl``) is seed 001's log and is rotated (> 500 lines →
the last 400): this record is what the signals, ``gateway breezing status``, Phase C's check
and the completion report count, so a rotation never loses the running session's work. The
rotation here (``append_timeline``) also keeps every completion of the running session.

The record belongs to one breezing session: a record of another session (a resumed one) is
read as empty.
"""

from __future__ import annotations

import os
import re

from gateway.state import files, store
from gateway.state.fast import now_iso
from gateway.state.layout import TIMELINE_KEEP_LINES, TIMELINE_MAX_LINES, layout

from .sections import completed_sections, completion_sections, task_key

__all__ = ["FILE", "load", "record_completed", "record_created", "carry_fix_tasks",
           "section_of", "team_list",
           "session_sections", "batch_sections", "Snapshot", "snapshot", "append_timeline",
           "current_batch"]

FILE = "gateway-breezing-progress.json"
MAX_TASKS = 5000
_SECTION = re.compile(r"^\s*(?:(?:Phase|フェーズ)\s*)?(\d+(?:\.\d+)*[a-z]?|T\d+)(?:[.:)]|\s|$)",
                      re.IGNORECASE)
_DESC = re.compile(r"Plans\.md\s+(\d+(?:\.\d+)*[a-z]?|T\d+)\b", re.IGNORECASE)


def _path(project_dir) -> str:
    return layout(project_dir).path(FILE)


def _empty(session_id) -> dict:
    return {"session_id": session_id, "completed": {}, "created": {}, "carried": []}


def _valid(rec, session_id) -> dict:
    if not isinstance(rec, dict) or rec.get("session_id") != session_id:
        return _empty(session_id)
    for key in ("completed", "created"):
        if not isinstance(rec.get(key), dict):
            rec[key] = {}
    if not isinstance(rec.get("carried"), list):
        rec["carried"] = []
    return rec


def load(project_dir, session_id) -> dict:
    """The record of ``session_id`` (empty when there is none or it is another session's).
    Raises ``StateError`` for a file that cannot be read."""
    try:
        rec = store.read_json(_path(project_dir))
    except store.StateMissing:
        return _empty(session_id)
    return _valid(rec, session_id)


def batch_sections(active) -> dict:
    """``{batch number: [sections]}``: a registered batch's from its task ids, a pending
    one's from the sections it keeps."""
    out = {}
    if active is None or active.batching is None:
        return out
    mapping = {task_key(k): v for k, v in active.plans_md_mapping.items()}
    for b in active.batching.batches:
        secs = [mapping[task_key(t)] for t in b.task_ids if task_key(t) in mapping]
        if not secs:
            raw = (b.model_extra or {}).get("sections") or []
            secs = [str(s) for s in raw if isinstance(s, (str, int)) and not isinstance(s, bool)]
        out[b.batch] = secs
    return out


def session_sections(active) -> list:
    """Every Plans.md section of the session: finished before a resume, mapped, and waiting
    in a batch not registered yet."""
    out = completion_sections(active)
    for secs in batch_sections(active).values():
        out += secs
    return list(dict.fromkeys(out))


def section_of(active, task_id, subject=None, description=None, record=None):
    """The Plans.md section a task is (see the module docstring), or None: the section its
    subject or description names; else, unless the TaskCreated hook saw it created as a task
    that names no section (a fix task), the one ``plans_md_mapping`` gives its id."""
    sections = set(session_sections(active))
    for text, rx in ((subject, _SECTION), (description, _DESC)):
        if isinstance(text, str) and text.strip():
            m = rx.search(text) if rx is _DESC else rx.match(text)
            if m and m.group(1) in sections:
                return m.group(1)
    created = (record or {}).get("created", {}).get(task_key(task_id))
    if isinstance(created, dict) and not created.get("section"):
        return None
    mapping = {task_key(k): v for k, v in active.plans_md_mapping.items()}
    return mapping.get(task_key(task_id))


def current_batch(active):
    """The batch the progress signals count: the latest registered one still in progress
    (``current_batch``), else the first in progress; None without batching."""
    if active is None or active.batching is None or not active.batching.enabled:
        return None
    live = [b for b in active.batching.batches if b.status == "in_progress"]
    if not live:
        return None
    cur = active.batching.current_batch
    return next((b for b in live if b.batch == cur), live[0])


def _mark_batches(project_dir, session_id, done_sections) -> list:
    """In-progress batches whose every section is completed become ``completed``."""
    finished = []

    def fn(active):
        if active is None or active.session_id != session_id or active.batching is None:
            return active
        secs = batch_sections(active)
        batching = active.batching.model_copy(deep=True)
        changed = False
        for b in batching.batches:
            if b.status == "in_progress" and secs.get(b.batch) and \
                    set(secs[b.batch]) <= done_sections:
                b.status = "completed"
                finished.append(b.batch)
                changed = True
        return active.model_copy(update={"batching": batching}) if changed else active

    if done_sections:
        files.update_active(project_dir, fn)
    return finished


def record_completed(project_dir, active, *, task_id, subject=None, description=None,
                     teammate=None, now=None) -> dict:
    """Record a TaskCompleted of ``active``'s session. Returns ``{"section", "first",
    "batches_completed"}``. Raises ``StateError``."""
    now = now or now_iso()
    key = task_key(task_id)
    out = {"section": None, "first": False, "batches_completed": []}
    done_sections: set = set()

    def fn(rec):
        rec = _valid(rec, active.session_id)
        section = out["section"] = section_of(active, task_id, subject, description, rec)
        done = rec["completed"]
        entry = done.get(key)
        if entry is None:
            if len(done) >= MAX_TASKS:
                return rec
            out["first"] = True
            entry = done[key] = {"task_id": str(task_id)[:64], "section": section,
                                 "teammate": (teammate or None) and teammate[:128],
                                 "timestamp": now, "times": 0}
        entry["times"] = int(entry.get("times") or 0) + 1
        entry["last"] = now
        if section and not entry.get("section"):
            entry["section"] = section
        done_sections.update(e.get("section") for e in done.values() if e.get("section"))
        return rec

    store.update_json(_path(project_dir), fn, default=None)
    out["batches_completed"] = _mark_batches(project_dir, active.session_id, done_sections)
    return out


def record_created(project_dir, active, *, task_id, subject=None, description=None,
                   now=None, session=None) -> dict:
    """Record a TaskCreated of ``active``'s session (``{"section"}``); ``session``: the
    Claude Code session that created it, whose task list holds it (2.1.330 keeps a session's
    tasks in ``~/.claude/tasks/<session id>/``, not under the team's name). Raises
    ``StateError``."""
    now = now or now_iso()
    section = section_of(active, task_id, subject, description)
    key = task_key(task_id)

    def fn(rec):
        rec = _valid(rec, active.session_id)
        if isinstance(session, str) and session:
            lists = [x for x in rec.get("lists") or [] if isinstance(x, str) and x != session]
            rec["lists"] = (lists + [session[:128]])[-20:]
        if len(rec["created"]) < MAX_TASKS:
            rec["created"][key] = {"task_id": str(task_id)[:64],
                                   "subject": (subject or "")[:200], "section": section,
                                   "timestamp": now}
        # a fix task open before a resume, created again (the same subject): no longer carried
        carried = rec["carried"]
        for i, c in enumerate(carried):
            if isinstance(c, dict) and subject and c.get("subject") == subject[:200]:
                del carried[i]
                break
        return rec

    store.update_json(_path(project_dir), fn, default=None)
    return {"section": section}


def carry_fix_tasks(project_dir, session_id, fix_tasks) -> None:
    """`gateway resume --yes`: the fix tasks the previous session left open (their subjects)
    become the new session's ``carried`` tasks: Phase C waits for them until the Lead creates
    each again with the same subject (TaskCreated) and it is completed. Raises
    ``StateError``."""
    subjects = [str(f["subject"])[:200] for f in fix_tasks
                if isinstance(f, dict) and isinstance(f.get("subject"), str) and f["subject"]]

    def fn(rec):
        rec = _valid(rec, session_id)
        rec["carried"] = [{"subject": s} for s in subjects[:MAX_TASKS]]
        return rec

    store.update_json(_path(project_dir), fn, default=None)


def team_list(project_dir, active, env=None, root=None):
    """The team's task list: ``~/.claude/tasks/<team_name>/`` (seed 000), else the task list
    of a session the TaskCreated hook saw creating this session's tasks (where Claude Code
    2.1.330 keeps them). Raises ValueError for an unsafe team name."""
    from . import tasklist

    team = tasklist.read_team(active.team_name, env, root)
    if team.exists:
        return team
    try:
        rec = load(project_dir, active.session_id)
    except store.StateError:
        return team
    for sid in reversed(rec.get("lists") or []):
        if isinstance(sid, str) and tasklist.safe_team_name(sid):
            other = tasklist.read_team(sid, env, root)
            if other.exists:
                return other
    return team


class Snapshot:
    """Where the session stands: ``sections`` (every section, in order), ``done`` {section:
    completion}, ``extra`` (tasks that are no section: {key: created/completed}),
    ``pending_batches`` [(number, sections)], ``team`` (the task list as read, or None)."""

    __slots__ = ("active", "sections", "done", "extra", "pending_batches", "team", "record",
                 "listed")

    def __init__(self, active, sections, done, extra, pending_batches, team, record,
                 listed=None):
        self.active, self.sections, self.done, self.extra = active, sections, done, extra
        self.pending_batches, self.team, self.record = pending_batches, team, record
        self.listed = listed or {}    # {section: (task id, status)} from the team's list

    @property
    def unfinished_sections(self) -> list:
        return [s for s in self.sections if s not in self.done]

    @property
    def unfinished_extra(self) -> list:
        return [e for e in self.extra.values() if not e.get("completed")]

    def as_dict(self) -> dict:
        return {"session_id": self.active.session_id, "sections": self.sections,
                "done": self.done, "unfinished": self.unfinished_sections,
                "extra": list(self.extra.values()),
                "pending_batches": [{"batch": n, "sections": s}
                                    for n, s in self.pending_batches]}


def snapshot(project_dir, active, team=None) -> Snapshot:
    """The session's progress from the record, the team's task list (``team``: a
    tasklist.TeamList, or None) and the mapping. A section is done when a TaskCompleted of
    this session was recorded for it, or the team's task list shows its task completed.
    Raises ``StateError``."""
    rec = load(project_dir, active.session_id)
    sections = session_sections(active)
    done = {s: {"by": None, "at": None, "task_id": None, "source": "an earlier session"}
            for s in completed_sections(active)}
    for e in rec["completed"].values():
        s = e.get("section")
        if s in sections and s not in done:
            done[s] = {"by": e.get("teammate"), "at": e.get("timestamp"),
                       "task_id": e.get("task_id"), "source": "TaskCompleted"}
    extra = {}
    for key, e in rec["created"].items():
        if not e.get("section"):
            extra[key] = {"task_id": e.get("task_id"), "subject": e.get("subject"),
                          "completed": key in rec["completed"]}
    for key, e in rec["completed"].items():
        if not e.get("section") and key not in extra:
            extra[key] = {"task_id": e.get("task_id"), "subject": None, "completed": True}
    for i, c in enumerate(rec.get("carried") or [], 1):
        if isinstance(c, dict) and isinstance(c.get("subject"), str):
            extra[f"carried-{i}"] = {"task_id": None, "subject": c["subject"],
                                     "completed": False, "carried": True}
    listed = {}
    if team is not None and team.exists and team.problem is None:
        mapping = {task_key(k): v for k, v in active.plans_md_mapping.items()}
        for t in team.tasks.values():
            k = task_key(t.id)
            s = section_of(active, t.id, t.subject, record=rec) if t.subject else mapping.get(k)
            if s is not None:
                listed[s] = (t.id, t.status)
            if s is None and t.status != "deleted":
                e = extra.setdefault(k, {"task_id": t.id, "subject": t.subject,
                                         "completed": False})
                e["completed"] = e["completed"] or t.status == "completed"
                e["listed"] = t.status
            elif s in sections and t.status == "completed" and s not in done:
                done[s] = {"by": None, "at": None, "task_id": t.id, "source": "TaskList"}
    pending = []
    if active.batching is not None:
        secs = batch_sections(active)
        pending = [(b.batch, secs.get(b.batch, [])) for b in active.batching.batches
                   if b.status == "pending"]
    return Snapshot(active, sections, done, extra, pending, team, rec, listed)


# --------------------------------------------------------------------------------------------
# The timeline, rotated without losing the running session's completions
# --------------------------------------------------------------------------------------------

def append_timeline(project_dir, event: dict, session_id=None) -> None:
    """Append a timeline event (seed 001's log); past 500 lines keep the last 400, but the
    ``task_completed`` lines of ``session_id`` stay, the latest of each task and teammate (the
    oldest other lines go first; never more than 400 lines in all)."""
    lay = layout(project_dir)
    _append(lay, event)
    _rotate(lay.timeline, session_id)


def _append(lay, event):
    from gateway.state.models import parse_event

    data = files._as_record(event, parse_event)
    from gateway.state.statedir import prepare_state_dir

    prepare_state_dir(lay.project_dir)
    store.append_jsonl(lay.timeline, data)


def _kept_key(line: bytes, session_id):
    """``(task, teammate)`` of a ``task_completed`` line of ``session_id``, else None."""
    if not session_id or b"task_completed" not in line:
        return None
    import json

    try:
        obj = json.loads(line)
    except ValueError:
        return None
    if not isinstance(obj, dict) or obj.get("event") != "task_completed" or \
            obj.get("session_id") != session_id:
        return None
    return (task_key(obj.get("task_id")), str(obj.get("teammate")))


def _rotate(path, session_id) -> int:
    try:
        st = os.stat(path)
    except OSError:
        return 0
    if st.st_size < TIMELINE_MAX_LINES:      # every line is at least one byte
        return 0
    with store.FileLock(path):
        try:
            data = store.read_bytes(path, store.MAX_JSONL_BYTES)
        except store.StateError:
            return 0
        lines = data.splitlines(keepends=True)
        if len(lines) <= TIMELINE_MAX_LINES:
            return 0
        # the running session's completions stay: the latest line of each task and teammate
        # (a task completed again repeats nothing the report shows), at most the lines kept
        seen: set = set()
        keep_flags = []
        for ln in reversed(lines):
            key = _kept_key(ln, session_id)
            keep = key is not None and key not in seen and len(seen) < TIMELINE_KEEP_LINES
            if keep:
                seen.add(key)
            keep_flags.append(keep)
        keep_flags.reverse()
        budget = max(0, TIMELINE_KEEP_LINES - len(seen))
        out, others = [], 0
        for ln, keep in zip(reversed(lines), reversed(keep_flags), strict=True):
            if keep:
                out.append(ln)
            elif others < budget:
                out.append(ln)
                others += 1
        out.reverse()
        out = [ln if ln.endswith(b"\n") else ln + b"\n" for ln in out]
        store.atomic_write_bytes(path, b"".join(out))
        return len(lines) - len(out)
