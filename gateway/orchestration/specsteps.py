"""A spec task's start and done steps (seed 002 ``task/start`` and ``task/done``), run through an
issue tracker (``gateway.orchestration.trackers``) and recorded in ``workflow_state``; and the
status of the specs being implemented. Used by ``gateway spec``.

* **start** an issue: its task must be the spec's current task (the first unchecked one:
  the workflow takes the tasks in order); the tracker's start runs, then the state says the
  task was started (its next action becomes ``task_done``);
* **done** an issue: its task must be checked in the spec (check the box first: that is what
  a PostToolUse hook records as "done step due"); the tracker's done runs, then the due entry
  is cleared.

The tracker runs first: when it fails nothing is recorded, and the step can be run again.
"""

from __future__ import annotations

import os

from gateway.state import store

from . import trackers, workflow

__all__ = ["StepError", "status", "find", "run_step"]


class StepError(Exception):
    def __init__(self, message: str, exit_code: int = 1):
        self.exit_code = exit_code
        super().__init__(message)


def _row(st, spec_id):
    return st.get(spec_id)


def status(project) -> dict:
    """Every implementation-phase spec: its current task, the stored next action and the
    done steps due. ``problems``: specs or a store that cannot be read."""
    project = os.fspath(project)
    specs, problems = workflow.find_specs(project)
    rows = {}
    if os.path.lexists(workflow.db_path(project)):
        try:
            with workflow.open_store(project) as st:
                rows = {r.spec_id: r for r in st.all()}
        except store.StateError as e:
            problems.append(f"{workflow.DB_NAME}: {e.problem}")
    out = []
    for spec in sorted(specs, key=lambda s: s.path):
        if not spec.implementing:
            continue
        cur = spec.current()
        row = rows.get(spec.spec_id)
        action = "none" if cur is None else (
            row.next_action if row and row.current_task_number == cur.number
            else "task_start")
        out.append({
            "spec_id": spec.spec_id, "title": store.safe_text(spec.title, 120),
            "path": os.path.relpath(spec.path, project),
            "checked": sum(1 for t in spec.tasks if t.done), "tasks": len(spec.tasks),
            "current": None if cur is None else {"task": cur.number, "issue": cur.issue,
                                                 "title": store.safe_text(cur.title, 120)},
            "next_action": action,
            "done_due": workflow.merge_due(
                list(row.done_due), workflow.newly_checked(row.current_task_number, spec))
            if row else [],
            "saved_at": row.updated_at if row else None})
    return {"specs": out, "problems": problems}


def label(issue) -> str:
    """``#541`` or ``no issue``."""
    return f"#{issue}" if isinstance(issue, int) else "no issue"


def ref(issue, number) -> str:
    """How `gateway spec start|done` names a task: its issue, else ``--task N``."""
    return str(issue) if isinstance(issue, int) else f"--task {number}"


def find(project, issue: int, spec_id: str | None = None):
    """``(spec, task)`` of the implementation-phase spec task with ``issue``. Raises
    ``StepError`` (none, or several specs without ``spec_id``)."""
    specs, _problems = workflow.find_specs(os.fspath(project))
    hits = [(s, t) for s in specs if s.implementing and (spec_id is None or s.spec_id == spec_id)
            for t in s.tasks if t.issue == issue]
    if not hits:
        where = f"spec {spec_id}" if spec_id else "a spec in implementation"
        raise StepError(f"no task of {where} has issue #{issue}: `gateway spec status` lists "
                        f"the tasks (a task without an issue is started and done with --task "
                        f"N)", 2)
    if len(hits) > 1:
        raise StepError(f"issue #{issue} is a task of several specs ("
                        + ", ".join(s.spec_id for s, _ in hits[:5]) + "): give --spec", 2)
    return hits[0]


def find_task(project, number: int, spec_id: str | None = None):
    """``(spec, task)`` of task ``number`` (its position in the task list) of the
    implementation-phase spec (``spec_id`` when there are several). Raises ``StepError``."""
    specs, _problems = workflow.find_specs(os.fspath(project))
    cands = [s for s in specs if s.implementing and (spec_id is None or s.spec_id == spec_id)]
    if not cands:
        where = f"spec {spec_id}" if spec_id else "a spec in implementation"
        raise StepError(f"there is no {where}", 2)
    if len(cands) > 1:
        raise StepError("several specs are in implementation ("
                        + ", ".join(s.spec_id for s in cands[:5]) + "): give --spec", 2)
    task = cands[0].task(number)
    if task is None:
        raise StepError(f"the spec has no task {number} (it has {len(cands[0].tasks)}): give "
                        f"the task's position in its task list", 2)
    return cands[0], task


def run_step(project, step: str, issue: int | None, tracker: trackers.Tracker,
             spec_id: str | None = None, session_id: str | None = None,
             task_number: int | None = None) -> dict:
    """Run ``start`` or ``done`` for ``issue`` -- or for task ``task_number``, which is how a
    task without an issue number is named (the step is then only recorded: there is no issue
    to move) -- see the module docstring. Raises ``StepError``."""
    if step not in ("start", "done"):
        raise ValueError(step)
    project = os.fspath(project)
    if issue is None:
        spec, task = find_task(project, task_number, spec_id)
        issue = task.issue
    else:
        spec, task = find(project, issue, spec_id)
    cur = spec.current()
    name = f"issue #{issue}" if issue is not None else f"task {task.number}"
    if step == "start" and (cur is None or cur.number != task.number):
        now = (f"task {cur.number} ({label(cur.issue)})" if cur
               else "no task: every box is checked")
        raise StepError(f"{name} is task {task.number} of the spec; the current task (the "
                        f"first unchecked one) is {now}: start tasks in order (`gateway spec "
                        f"start {ref(cur.issue, cur.number) if cur else ''}`)".rstrip())
    if step == "done" and not task.done:
        raise StepError(f"task {task.number} ({label(issue)}) is not checked in "
                        f"{os.path.relpath(spec.path, project)}: check its box first, then "
                        f"run its done step")
    if issue is None:
        said = "no issue number: the step is recorded (there is no issue to move)"
    else:
        try:
            said = tracker.start(issue) if step == "start" else tracker.done(issue)
        except trackers.TrackerError as e:
            raise StepError(f"the {step} step of issue #{issue} did not happen: {e}; nothing "
                            f"was recorded. Fix the tracker (or use --tracker none to record "
                            f"the step only), then run it again") from None
    rel = os.path.relpath(spec.path, project)
    try:
        with workflow.open_store(project) as st:
            stored = st.get(spec.spec_id)
            if stored is None or stored.current_task_number != (cur.number if cur else
                                                                 stored.current_task_number):
                st.record_checked(spec, [], rel, session_id)
            if step == "start":
                st.mark_started(spec.spec_id, task.number)
            else:
                st.clear_done_due(spec.spec_id, task.number)
            row = st.get(spec.spec_id)
    except store.StateError as e:
        raise StepError(f"the tracker's {step} step ran ({said}) but the workflow state could "
                        f"not be updated: {e}", 3) from None
    nxt = spec.current()
    return {"step": step, "issue": issue, "spec_id": spec.spec_id, "task": task.number,
            "title": store.safe_text(task.title, 120), "tracker": tracker.name,
            "tracker_said": said, "next_action": row.next_action if row else None,
            "done_due": row.done_due if row else [],
            "next_task": None if nxt is None else {"task": nxt.number, "issue": nxt.issue,
                                                   "title": store.safe_text(nxt.title, 120)}}
