"""Progressive batching, the step that advances it (seed 000's ``batching``; seed 001's
``next_batch_recommended``: 次バッチの TaskCreate 登録): ``gateway breezing batch``.

More than 8 tasks are registered in batches (``gateway breezing start`` registers batch 1 and
keeps the others ``pending`` with their Plans.md sections). When the Lead registers the next
batch, ``register_next`` makes the state change: the lowest pending batch gets task ids that
continue after every id the session knows (the mapping and the ids the hooks saw), its
sections join ``plans_md_mapping``, it becomes ``in_progress`` and ``current_batch``; the
tasks to create come back in order, with their blocked-by edges (a dependency on a task of an
earlier batch waits for that task's id). The TaskCompleted hook marks a batch ``completed``
when every one of its sections is (gateway.orchestration.progress).
"""

from __future__ import annotations

import os
import re

from gateway.state import files, store
from gateway.state.models import BreezingActive

from . import plans as _plans
from . import progress as _progress
from . import registration
from .sections import task_key

__all__ = ["BatchError", "register_next", "next_ids"]


class BatchError(Exception):
    """The next batch cannot be registered; nothing was changed. ``exit_code`` for the CLI."""

    def __init__(self, message: str, exit_code: int = 1, code: str = "batch"):
        self.exit_code, self.code = exit_code, code
        super().__init__(message)


def next_ids(active, known, n: int) -> list[str]:
    """``n`` new task ids after every id of the mapping and ``known`` (the ids the hooks saw),
    in the mapping's style (``task-9`` or ``9``)."""
    keys = list(active.plans_md_mapping) + list(known)
    nums = [int(task_key(k)) for k in keys if task_key(k).isdigit()]
    start = max(nums, default=0) + 1
    plain = [k for k in active.plans_md_mapping if k is not None]
    digits = bool(plain) and all(str(k).isdigit() for k in plain)
    return [str(start + i) if digits else f"task-{start + i}" for i in range(n)]


def register_next(project_dir, plans_path: str | None = None) -> dict:
    """Register the next pending batch (see the module docstring). Raises ``BatchError``."""
    project = os.path.abspath(os.fspath(project_dir))
    try:
        active = files.load_active(project)
    except store.StateError as e:
        raise BatchError(f"gateway: {e}", 3, "active_unusable") from None
    if active is None or not active.team_name:
        raise BatchError("gateway: no breezing team is recorded (breezing-active.json has no "
                         "team_name): start one with `gateway breezing start --range ... "
                         "--yes`", 3, "no_team")
    pending = sorted((b for b in (active.batching.batches if active.batching else [])
                      if b.status == "pending"), key=lambda b: b.batch)
    if not pending:
        raise BatchError("gateway: no batch is waiting: every task of the session is "
                         "registered (`gateway breezing status` shows the progress)", 1,
                         "no_pending")
    batch = pending[0]
    sections = _progress.batch_sections(active).get(batch.batch, [])
    path = plans_path or os.path.join(project, "Plans.md")
    try:
        plans = _plans.load(path)
    except _plans.PlansError as e:
        raise BatchError(f"gateway: {e}", 3, "plans_unusable") from None
    tasks, missing = [], []
    for s in sections:
        t = plans.get(s)
        (tasks.append(t) if t is not None else missing.append(s))
    if missing:
        raise BatchError(f"gateway: batch {batch.batch}'s section(s) {', '.join(missing)} are "
                         f"not in {path} any more: fix Plans.md (or resume the session with "
                         f"`gateway resume`, which rebuilds the mapping)", 3, "plans_changed")
    try:
        rec = _progress.load(project, active.session_id)
    except store.StateError as e:
        raise BatchError(f"gateway: {e}", 3, "progress_unusable") from None
    known = [e.get("task_id") for part in ("completed", "created")
             for e in rec[part].values() if isinstance(e.get("task_id"), str)]
    ids = next_ids(active, known, len(tasks))
    m = re.fullmatch(r"(?:task-)?(\d+)", ids[0]) if ids else None
    first = int(m.group(1)) if m else 1
    reg = registration.build(tasks, plans, first_id=first)
    mapped = {v: k for k, v in active.plans_md_mapping.items()}
    errors = []
    for f in reg.findings:
        if f.level != "error":
            continue
        if f.check == "DEP" and len(f.sections) == 2 and f.sections[1] in mapped:
            e = reg.by_section()[f.sections[0]]
            e.blocked_by.append(mapped[f.sections[1]])     # waits for the earlier batch's task
            e.why[mapped[f.sections[1]]] = f"depends:{f.sections[1]}"
            continue
        errors.append(f.message)
    if errors:
        raise BatchError("gateway: batch tasks cannot be registered: " + "; ".join(errors), 2,
                         "tasks_invalid")
    for e, new in zip(reg.entries, ids, strict=True):
        old = e.id
        e.id = new
        for other in reg.entries:
            other.blocked_by = [new if b == old else b for b in other.blocked_by]
    new_map = {e.id: e.section for e in reg.entries}

    def fn(current):
        if current is None or current.session_id != active.session_id or \
                current.plans_md_mapping != active.plans_md_mapping:
            raise BatchError("gateway: breezing-active.json changed meanwhile; nothing was "
                             "changed. Run `gateway breezing batch` again", 3, "changed")
        data = current.model_dump(mode="json", exclude_none=True)
        data["plans_md_mapping"] = {**data.get("plans_md_mapping", {}), **new_map}
        for b in data["batching"]["batches"]:
            if b["batch"] == batch.batch:
                b["status"] = "in_progress"
                b["task_ids"] = list(new_map)
        data["batching"]["current_batch"] = batch.batch
        return BreezingActive.model_validate(data)

    try:
        files.update_active(project, fn)
    except store.StateError as e:
        raise BatchError(f"gateway: {e}", 3, "write_failed") from None
    left = [b.batch for b in pending[1:]]
    return {"batch": batch.batch, "register": [e.as_dict() for e in reg.entries],
            "pending_batches": left, "session_id": active.session_id,
            "next": ["TaskCreate each task of `register` in order (subject, description, "
                     "activeForm); then TaskUpdate addBlockedBy as listed",
                     "the implementers claim them (`gateway breezing next`)"]}
