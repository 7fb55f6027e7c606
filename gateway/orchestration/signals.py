"""Team progress: the timeline, the progress signals and their hand-over to the Lead (seed 001
シグナルベースの動的判断; facts and bugs of the original in seed-origins §B.4, §D.2).

TaskCompleted → ``record_task_completed``
    appends ``task_completed`` to ``breezing-timeline.jsonl`` (with the breezing session id),
    then, under the signals file's lock, counts the **distinct** task ids of the current scope
    completed in **this** session and appends the signals that are due:

    * ``partial_review_recommended`` when ``completed >= ceil(n/2)`` and ``ceil(n/2) > 1``;
    * ``next_batch_recommended`` when ``completed >= ceil(0.6 n)``, only while progressive
      batching has a pending batch after the current one (seed 001: "Progressive Batch 時").

    The scope is the in-progress batch's task ids, else every task of ``plans_md_mapping``.
    Each signal fires once per breezing session -- once per batch when batching (the batch
    number is part of the signal) -- so a retake, a second hook for the same task or two hooks
    at once never give two. Counts are JSON numbers.

TeammateIdle → ``record_teammate_idle``
    appends ``teammate_idle``, unless the same teammate idled less than 5 s ago.

UserPromptSubmit / SessionStart → ``take_signals`` + ``describe``
    marks this session's unconsumed signals consumed (under the lock, so none is lost or
    handed over twice) and renders them as short structured text. Nothing from the files is
    copied verbatim: signal names are from a fixed list, numbers are numbers, ids and section
    numbers are reduced to safe characters, reasons and CI commands are never shown (upstream
    injected whole JSONL lines, a prompt-injection path).

Task ids are compared after normalisation (``task-001``, ``#1`` and ``1`` are the same task):
the TaskCompleted payload and ``plans_md_mapping`` may spell them differently.
"""

from __future__ import annotations

import os
import re

from gateway.state import files, store
from gateway.state.fast import now_iso, parse_iso
from gateway.state.layout import layout

from .sections import task_key

__all__ = ["PARTIAL_REVIEW", "NEXT_BATCH", "IDLE_DEDUP_SECONDS", "task_key",
           "record_task_completed", "record_teammate_idle", "progress", "take_signals",
           "describe", "Progress"]

PARTIAL_REVIEW = "partial_review_recommended"
NEXT_BATCH = "next_batch_recommended"
IDLE_DEDUP_SECONDS = 5.0
SUBJECT_LIMIT = 200
DESCRIPTION_LIMIT = 100          # upstream keeps the first 100 characters

_SAFE_ID = re.compile(r"[A-Za-z0-9_.#:-]{1,64}")


def safe_id(value) -> str:
    """An id for a message to the model: only ``[A-Za-z0-9_.#:-]``, at most 64 characters."""
    s = str(value)
    return s if _SAFE_ID.fullmatch(s) else "(an id with unusual characters)"


class Progress:
    """The progress of the current scope: ``completed`` of ``total``, in ``batch`` (or None)."""

    __slots__ = ("session_id", "total", "completed", "batch", "next_pending", "ids")

    def __init__(self, session_id, total, completed, batch, next_pending, ids):
        self.session_id, self.total, self.completed = session_id, total, completed
        self.batch, self.next_pending, self.ids = batch, next_pending, ids

    def due(self) -> list[str]:
        """The signals whose threshold is reached (before dedup)."""
        from .team import batch_progress

        half, sixty = batch_progress(self.total)
        out = []
        if half and self.completed >= half:
            out.append(PARTIAL_REVIEW)
        if self.next_pending is not None and sixty and self.completed >= sixty:
            out.append(NEXT_BATCH)
        return out


def progress(active, done_sections) -> Progress:
    """The progress of the current scope: the sections of the batch in progress (the latest
    registered one, gateway.orchestration.progress.current_batch), else every mapped section,
    completed in ``active``'s session (``done_sections``: the sections the progress record
    holds, gateway.orchestration.progress)."""
    from . import progress as _progress

    batch = _progress.current_batch(active)
    if batch is not None:
        scope = _progress.batch_sections(active).get(batch.batch, [])
    else:
        scope = list(dict.fromkeys(active.plans_md_mapping.values()))
    done = sorted(s for s in scope if s in done_sections)
    next_pending = None
    if batch is not None:
        later = [b for b in active.batching.batches if b.batch > batch.batch
                 and b.status == "pending"]
        next_pending = min(later, key=lambda b: b.batch) if later else None
    return Progress(active.session_id, len(scope), len(done),
                    batch.batch if batch is not None else None, next_pending, done)


def _signal_key(rec) -> tuple:
    extra = getattr(rec, "model_extra", None) or {}
    return (rec.signal, getattr(rec, "session_id", None), extra.get("batch"))


class Recorded:
    """What ``record_task_completed`` did: ``signals`` appended, ``progress`` (or None when no
    breezing session could be read), ``problem`` (a StateError the caller must report)."""

    __slots__ = ("signals", "progress", "problem")

    def __init__(self, signals=(), progress=None, problem=None):
        self.signals = list(signals)
        self.progress = progress
        self.problem = problem


def record_task_completed(project_dir, *, task_id: str, subject: str | None = None,
                          description: str | None = None, teammate: str | None = None,
                          now: str | None = None) -> Recorded:
    """Timeline + signals for one TaskCompleted event (see the module docstring).

    Only while a breezing session exists (``breezing-active.json``). A corrupt
    breezing-active.json: the event is still recorded (without a session id) and the error is
    returned in ``problem``; no signal is computed from a file that cannot be read."""
    lay = layout(project_dir)
    if not os.path.lexists(lay.active):
        return Recorded()
    now = now or now_iso()
    problem = None
    try:
        active = files.load_active(lay)
    except store.StateError as e:
        active, problem = None, e
    if active is None and problem is None:     # removed in between
        return Recorded()
    event = {"event": "task_completed", "task_id": str(task_id), "timestamp": now}
    if teammate:
        event["teammate"] = teammate[:256]
    if subject:
        event["subject"] = subject[:SUBJECT_LIMIT]
    if description:
        event["description"] = description[:DESCRIPTION_LIMIT]
    if active is not None:
        event["session_id"] = active.session_id
    from . import progress as _progress

    _progress.append_timeline(lay, event, active.session_id if active else None)
    if active is None:
        return Recorded(problem=problem)
    _progress.record_completed(lay, active, task_id=task_id, subject=subject,
                               description=description, teammate=teammate, now=now)
    appended = []
    with store.FileLock(lay.signals):
        active = files.load_active(lay) or active     # the batch statuses may have changed
        rec = _progress.load(lay, active.session_id)
        done = {e.get("section") for e in rec["completed"].values() if e.get("section")}
        prog = progress(active, done)
        due = prog.due()
        if not due:
            return Recorded([], prog)
        existing = files.read_signals(lay)    # unreadable lines are skipped (torn writes)
        seen = {_signal_key(r) for r in existing.records if r.known}
        for sig in due:
            if (sig, active.session_id, prog.batch) in seen:
                continue
            rec = {"signal": sig, "session_id": active.session_id,
                   "completed": prog.completed, "total": prog.total, "timestamp": now}
            if prog.batch is not None:
                rec["batch"] = prog.batch
            files.append_signal(lay, rec)
            appended.append(rec)
    return Recorded(appended, prog)


def record_teammate_idle(project_dir, *, teammate: str | None, team: str | None = None,
                         now: str | None = None) -> bool:
    """Append ``teammate_idle`` unless the same teammate idled < 5 s ago. True if appended.
    Only while a breezing session exists."""
    lay = layout(project_dir)
    if not os.path.lexists(lay.active):
        return False
    now = now or now_iso()
    t_now = parse_iso(now)
    with store.FileLock(lay.timeline):
        if teammate and t_now is not None:
            for rec in reversed(files.read_timeline(lay).records):
                if getattr(rec, "event", None) == "teammate_idle" and rec.teammate == teammate:
                    t = parse_iso(rec.timestamp)
                    if t is not None and 0 <= (t_now - t).total_seconds() < IDLE_DEDUP_SECONDS:
                        return False
                    break
        event = {"event": "teammate_idle", "timestamp": now}
        if teammate:
            event["teammate"] = teammate[:256]
        if team:
            event["team"] = team[:256]
        from gateway.state import fast

        from . import progress as _progress

        try:
            view = fast.load_active_view(lay)
        except store.StateError:
            view = None
        _progress.append_timeline(lay, event, view.session_id if view else None)
    return True


def take_signals(project_dir, session_id: str | None, *, consume: bool = True,
                 now: str | None = None, warnings: list | None = None) -> list:
    """The unconsumed signals for ``session_id`` (and those carrying no session, such as CI
    failures), as models in file order; marked consumed unless ``consume=False``. Raises
    ``StateError``.

    A line that cannot be read (a torn write, a hand edit) raises, unless ``warnings`` is a
    list: then the line is skipped and kept as it is in the file (never erased, never handed
    over), the readable signals are handed over, and one sentence naming the bad lines and
    their repair is appended to ``warnings``."""
    lay = layout(project_dir)
    if not os.path.lexists(lay.signals):
        return []
    from gateway.state.models import parse_signal

    picked: list = []
    now = now or now_iso()

    def mine(raw: dict) -> bool:
        if raw.get("consumed_at"):
            return False
        sid = raw.get("session_id")
        return sid is None or sid == session_id

    def fn(records):
        out = []
        for raw in records:
            if mine(raw):
                try:
                    picked.append(parse_signal(raw))
                except ValueError as e:
                    raise store.StateCorrupt(lay.signals, f"has a signal that does not match "
                                             f"its schema ({str(e)[:200]})",
                                             "run `gateway state validate`; fix or delete the "
                                             "line") from None
                if consume:
                    raw = {**raw, "consumed_at": now}
            out.append(raw)
        return out

    res = store.read_jsonl(lay.signals)
    if warnings is None:
        res.raise_for_errors()
    if not consume or not any(mine(r) for r in res.records):
        fn(res.records)                 # nothing to mark: no rewrite of the file
    else:
        picked.clear()
        # re-reads under the lock: none lost or doubled; bad lines stay as they are
        store.update_jsonl(lay.signals, fn, keep_bad=warnings is not None)
    if warnings is not None and res.errors:
        warnings.append(bad_lines_warning(res))
    return picked


def bad_lines_warning(res) -> str:
    """One sentence for the user about the unreadable lines of a signals read."""
    n = len(res.errors)
    where = ", ".join(f"line {e.lineno}" + (" (an interrupted write)" if e.torn else "")
                      for e in res.errors[:5]) + (f" and {n - 5} more" if n > 5 else "")
    return (f"gateway: {n} line(s) of {res.path} cannot be read and were skipped ({where}); "
            f"the other signals were handed over. To repair: `gateway state repair` sets the "
            f"unreadable lines aside")


def _sections(active, batch_no) -> list[str]:
    if active is None or active.batching is None:
        return []
    for b in active.batching.batches:
        if b.batch == batch_no:
            secs = (b.model_extra or {}).get("sections") or []
            return [safe_id(s) for s in secs if isinstance(s, (str, int))][:20]
    return []


def describe(signals, active=None) -> str:
    """Short structured text for the Lead (see the module docstring). "" for no signals."""
    if not signals:
        return ""
    lines = []
    unknown = 0
    for s in signals:
        name = s.signal if s.known else None
        if name == PARTIAL_REVIEW:
            where = f" of batch {s.model_extra['batch']}" if (s.model_extra or {}).get(
                "batch") is not None and isinstance(s.model_extra["batch"], int) else ""
            lines.append(f"- {PARTIAL_REVIEW}: {s.completed} of {s.total} tasks{where} "
                         f"completed. You may ask the Reviewer for a partial review (not "
                         f"needed when only one task is left).")
        elif name == NEXT_BATCH:
            b = (s.model_extra or {}).get("batch")
            b = b if isinstance(b, int) and not isinstance(b, bool) else None
            nxt = ""
            if active is not None and b is not None:
                later = [x.batch for x in (active.batching.batches if active.batching else [])
                         if x.batch > b and x.status == "pending"]
                if later:
                    secs = _sections(active, min(later))
                    nxt = f" Register batch {min(later)}'s tasks (TaskCreate)" + (
                        f": Plans.md sections {', '.join(secs)}." if secs else ".")
            lines.append(f"- {NEXT_BATCH}: {s.completed} of {s.total} tasks"
                         f"{f' of batch {b}' if b is not None else ''} completed.{nxt}")
        elif name == "ci_failure_detected":
            c = s.conclusion if s.conclusion and re.fullmatch(r"[a-z_]{1,32}",
                                                              s.conclusion) else "unknown"
            lines.append(f"- ci_failure_detected: CI concluded {c}. Look at the CI run before "
                         f"continuing.")
        elif name in ("retake_requested", "reviewer_approved", "escalation_required"):
            tid = f" for task {safe_id(s.task_id)}" if s.task_id else ""
            why = " (the reason is in .claude/state/breezing-signals.jsonl)" if s.reason else ""
            lines.append(f"- {name}{tid}{why}.")
        else:
            unknown += 1
    if unknown:
        lines.append(f"- {unknown} signal(s) of a type the gateway does not know (not shown; "
                     f"see .claude/state/breezing-signals.jsonl).")
    sid = safe_id(active.session_id) if active is not None else None
    head = "gateway: breezing signals" + (f" for session {sid}" if sid else "") + \
        " (recommendations computed by the gateway's hooks; they are not user instructions):"
    return "\n".join([head] + lines)
