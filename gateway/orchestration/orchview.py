"""Read-only views of the orchestrator store (seed 003's CLI: ``agent status``, ``agent info
<sessionId>``, ``agent resume --list``) over ``gateway.orchestration.coord``.

Nothing here writes or creates anything: a missing ``agent-coord/`` is an empty store. Every
id is validated before it is used (an id is never a path: ``../x`` is refused before the file
system is touched); a file that cannot be read is listed as a problem with its reason and
the rest of the store is still shown. Texts from the store (instructions, feedback, errors)
are shortened and reduced to printable characters.
"""

from __future__ import annotations

import os

from gateway.state import store

from . import coord

__all__ = ["task_row", "overview", "session_info", "resume_list", "UNFINISHED"]

#: states a resumed session still runs (seed 003: 未完了タスク)
UNFINISHED = ("READY", "RUNNING", "NEEDS_CONTINUATION", "BLOCKED")


def _names(st: coord.CoordStore, sub: str, test) -> list[str]:
    d = st._dir(sub)
    try:
        names = sorted(os.listdir(d))
    except (FileNotFoundError, NotADirectoryError):
        return []
    return [n[:-5] for n in names if n.endswith(".json") and test(n[:-5])]


def _load_all(st: coord.CoordStore):
    problems: list[str] = []
    sessions, tasks, runs = {}, {}, {}
    for kind, sub, test, get, into in (
            ("session", "planner-sessions", coord.is_session_id, st.get_session, sessions),
            ("task", "tasks", coord.is_task_id, st.get_task, tasks),
            ("run", "runs", coord.is_run_id, st.get_run, runs)):
        for i in _names(st, sub, test):
            try:
                into[i] = get(i)
            except (coord.CoordError, store.StateError) as e:
                problems.append(f"{kind} {i}: {_why(e)}")
    return sessions, tasks, runs, problems


def _why(e: Exception) -> str:
    """One line: a state error's problem (its repair hint speaks of the breezing files)."""
    text = e.problem if isinstance(e, store.StateError) else str(e)
    return store.safe_text(text.splitlines()[0] if text else type(e).__name__, 300)


def task_row(t: coord.Task, runs: list) -> dict:
    return {"id": t.id, "state": t.state, "type": t.task_type, "version": t.version,
            "owner": t.owner, "lease_expires_at": t.lease_expires_at,
            "dependencies": list(t.dependencies), "block_reason": t.block_reason,
            "replaced_by": list(t.replaced_by),
            "runs": [{"id": r.id, "status": r.status, "agent": r.agent_type,
                      "started_at": r.started_at, "finished_at": r.finished_at} for r in runs]}


def _by_task(runs: dict) -> dict[str, list]:
    out: dict[str, list] = {}
    for r in sorted(runs.values(), key=lambda r: r.started_at):
        out.setdefault(r.task_id, []).append(r)
    return out


def _counts(tasks) -> dict[str, int]:
    c = dict.fromkeys(coord.TASK_STATES, 0)
    for t in tasks:
        c[t.state] += 1
    return c


def overview(project_dir) -> dict:
    """``agent status``: the sessions with their task counts, every task by state, the runs
    by status (running ones listed), and the problems."""
    st = coord.CoordStore(project_dir, sweep=False)
    sessions, tasks, runs, problems = _load_all(st)
    by_session: dict[str, list] = {}
    orphans = []
    for t in tasks.values():
        sid = t.planner_run_id
        (by_session.setdefault(sid, []) if sid in sessions else orphans).append(t)
    rows = []
    for s in sorted(sessions.values(), key=lambda s: s.created_at):
        mine = by_session.get(s.session_id, [])
        rows.append({"session_id": s.session_id, "created_at": s.created_at,
                     "instruction": store.safe_text(s.instruction, 80),
                     "tasks": len(mine), "states": {k: v for k, v in _counts(mine).items() if v},
                     "complete": s.final_judgement.is_complete if s.final_judgement else None})
    by_state: dict[str, list[str]] = {}
    for t in sorted(tasks.values(), key=lambda t: coord._task_sort_key(t.id)):
        by_state.setdefault(t.state, []).append(t.id)
    run_counts = dict.fromkeys(coord.RUN_STATUSES, 0)
    for r in runs.values():
        run_counts[r.status] += 1
    return {"store": st.base, "exists": os.path.isdir(st.base), "sessions": rows,
            "tasks_by_state": by_state, "task_counts": _counts(tasks.values()),
            "runs": run_counts,
            "running_runs": [{"id": r.id, "task_id": r.task_id, "started_at": r.started_at}
                             for r in sorted(runs.values(), key=lambda r: r.started_at)
                             if r.status == "RUNNING"],
            "orphan_tasks": sorted(t.id for t in orphans), "problems": problems}


def session_info(project_dir, session_id: str) -> dict:
    """``agent info <sessionId>``. Raises ``coord.InvalidId`` (before any file is read) and
    ``coord.NotFound``."""
    if not coord.is_session_id(session_id):
        raise coord.InvalidId(f"{store.safe_text(session_id, 80)!r} is not a session id "
                              f"(planner-<uuid>, planner-additional-<uuid> or "
                              f"planner-replanning-<uuid>)")
    st = coord.CoordStore(project_dir, sweep=False)
    s = st.get_session(session_id)
    _s, all_tasks, runs, problems = _load_all(st)
    short = coord.session_short(session_id)
    tasks = [t for t in all_tasks.values() if t.planner_run_id == session_id
             or t.id in s.generated_tasks]
    problems = [p for p in problems if p.startswith("run ")
                or (p.startswith("task ") and p.split()[1].split("-")[1] == short)]
    missing = [tid for tid in s.generated_tasks if tid not in all_tasks
               and not any(p.startswith(f"task {tid}:") for p in problems)]
    problems += [f"task {tid}: listed in generatedTasks but its file does not exist"
                 for tid in missing]
    runs_of = _by_task(runs)
    fj = s.final_judgement
    return {"session_id": s.session_id, "short": coord.session_short(s.session_id),
            "instruction": store.safe_text(s.instruction, 500),
            "created_at": s.created_at, "updated_at": s.updated_at, "version": s.version,
            "continue_iteration_count": s.continue_iteration_count,
            "messages": len(s.conversation_history),
            "final_judgement": None if fj is None else {
                "is_complete": fj.is_complete, "completion_score": fj.completion_score,
                "missing_aspects": [store.safe_text(m, 200) for m in fj.missing_aspects[:20]],
                "additional_task_suggestions": [store.safe_text(m, 200) for m in
                                                fj.additional_task_suggestions[:20]]},
            "task_counts": {k: v for k, v in _counts(tasks).items() if v},
            "tasks": [task_row(t, runs_of.get(t.id, []))
                      for t in sorted(tasks, key=lambda t: coord._task_sort_key(t.id))],
            "problems": problems}


def resume_list(project_dir) -> tuple[list[dict], list[str]]:
    """``agent resume --list``: ``(sessions, problems)``; every session, newest first, with
    what a resume would run (its READY, RUNNING, NEEDS_CONTINUATION and BLOCKED tasks)."""
    st = coord.CoordStore(project_dir, sweep=False)
    sessions, tasks, _runs, problems = _load_all(st)
    out = []
    for s in sorted(sessions.values(), key=lambda s: s.created_at, reverse=True):
        mine = [t for t in tasks.values() if t.planner_run_id == s.session_id]
        left = sorted((t.id for t in mine if t.state in UNFINISHED), key=coord._task_sort_key)
        done = sum(1 for t in mine if t.state == "DONE")
        fj = s.final_judgement
        out.append({"session_id": s.session_id, "created_at": s.created_at,
                    "updated_at": s.updated_at,
                    "instruction": store.safe_text(s.instruction, 80),
                    "tasks": len(mine), "done": done, "unfinished": left,
                    "complete": fj.is_complete if fj else None,
                    "resumable": bool(left) or (fj is not None and not fj.is_complete)})
    return out, problems
