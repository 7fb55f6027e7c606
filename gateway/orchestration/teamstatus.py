"""`gateway breezing status`: where a breezing session stands and what the Lead does next,
read-only, from breezing-active.json, the hooks' progress record
(gateway.orchestration.progress), the team's task list, the registrations and the phase.

What comes next, in this order: a verdict to act on (retake, escalate, stop); the next
batch when the current one is 60 % done (seed 001's next_batch_recommended) or finished; the
final review when every task -- Plans.md sections and fix tasks -- is completed; Phase C after
an APPROVE of this session; otherwise the team works.
"""

from __future__ import annotations

import os

from gateway.state import fast, files, store

from . import progress as _progress
from .team import batch_progress

__all__ = ["StatusError", "status", "render"]


class StatusError(Exception):
    def __init__(self, message: str, code: str = "state"):
        self.code = code
        super().__init__(message)


def status(project_dir, tasks_root=None, env=None) -> dict:
    project = os.path.abspath(os.fspath(project_dir))
    try:
        active = files.load_active(project)
        phase = fast.effective_phase(project)
        roles = fast.load_session_roles(project)
    except store.StateError as e:
        raise StatusError(f"gateway: {e}") from None
    if active is None:
        raise StatusError("gateway: no breezing session (.claude/state/breezing-active.json "
                          "is absent): start one with `gateway breezing start --range ...`",
                          "no_session")
    team = None
    if active.team_name:
        try:
            team = _progress.team_list(project, active, env, tasks_root)
        except ValueError:
            team = None
    try:
        snap = _progress.snapshot(project, active, team)
    except store.StateError as e:
        raise StatusError(f"gateway: {e}") from None
    review = active.review
    last = (review.model_extra or {}).get("last_verdict") if review else None
    step = last.get("step") if isinstance(last, dict) else None
    cur = _progress.current_batch(active)
    batch = None
    if cur is not None:
        secs = _progress.batch_sections(active).get(cur.batch, [])
        done_here = sum(1 for s in secs if s in snap.done)
        half, sixty = batch_progress(len(secs))
        batch = {"batch": cur.batch, "sections": secs, "completed": done_here,
                 "next_batch_at": sixty}
    counts = {}
    for v in roles.values():
        counts[v.role] = counts.get(v.role, 0) + 1
    expected = None
    if active.team:
        expected = {"implementer": active.team.implementer_count or 0,
                    "reviewer": active.team.reviewer_count or 0}
    open_extra = snap.unfinished_extra
    unfinished = snap.unfinished_sections
    pending = snap.pending_batches
    if step == "escalate":
        nxt = "the retake limit is reached: escalate to the user"
    elif step == "stop":
        nxt = "the Reviewer said REJECT/STOP: stop and report to the user"
    elif pending and (batch is None or batch["completed"] >= batch["next_batch_at"]):
        nxt = f"register the next batch: `gateway breezing batch` (batch {pending[0][0]})"
    elif not unfinished and not open_extra and not pending:
        if step == "approve" and (phase is None or phase.phase != "C"):
            nxt = "APPROVE recorded: `gateway breezing phase C`, then `gateway breezing finish`"
        elif phase is not None and phase.phase == "C":
            nxt = "`gateway breezing finish` (then commit and `gateway breezing finish --cleanup`)"
        else:
            nxt = ("every task is completed: ask the Reviewer for the final review and record "
                   "it with `gateway breezing review VERDICT`")
    elif step == "retake" and open_extra:
        nxt = "a retake is under way: the fix tasks are open; the Reviewer reviews again after"
    else:
        nxt = "the team works: the implementers claim tasks (`gateway breezing next`)"
    return {
        "session_id": active.session_id, "team_name": active.team_name,
        "impl_mode": active.impl_mode or "standard",
        "phase": phase.phase if phase else None,
        "sections": len(snap.sections), "completed": len(snap.done),
        "unfinished": unfinished, "done": snap.done,
        "batch": batch, "pending_batches": [{"batch": n, "sections": s} for n, s in pending],
        "fix_tasks": list(snap.extra.values()), "open_fix_tasks": open_extra,
        "retakes": {"count": review.retake_count if review else 0,
                    "max": review.max_retakes if review else 3, "last": step},
        "registered": counts, "expected": expected,
        "task_list": (team.path if team is not None and team.exists else None),
        "next": nxt,
    }


def render(st: dict) -> str:
    t = store.safe_text
    lines = [f"breezing session {t(st['session_id'], 60)} (team {t(st['team_name'] or '-', 60)}"
             f", impl_mode {st['impl_mode']}, phase {st['phase'] or 'none'})",
             f"Plans.md tasks: {st['completed']} of {st['sections']} completed"]
    if st["unfinished"]:
        shown = ", ".join(t(s, 20) for s in st["unfinished"][:12])
        lines.append(f"  not completed: {shown}" + (" ..." if len(st["unfinished"]) > 12
                                                    else ""))
    b = st["batch"]
    if b is not None:
        lines.append(f"batch {b['batch']} in progress: {b['completed']} of {len(b['sections'])}"
                     f" completed (the next batch is due at {b['next_batch_at']})")
    for p in st["pending_batches"]:
        lines.append(f"batch {p['batch']} waiting: {', '.join(t(s, 20) for s in p['sections'])}")
    if st["fix_tasks"]:
        lines.append(f"other tasks (fix tasks): {len(st['fix_tasks'])}, "
                     f"{len(st['open_fix_tasks'])} open"
                     + ("".join(f"\n  open: «{t(e.get('subject') or '', 80)}» (open before "
                                f"the resume: create it again with this subject)"
                                if e.get("carried") else
                                f"\n  open: {t(e.get('task_id'), 40)} "
                                f"{t(e.get('subject') or '', 80)}"
                                for e in st["open_fix_tasks"][:10])))
    r = st["retakes"]
    lines.append(f"retakes: {r['count']} of {r['max']}"
                 + (f" (last verdict: {r['last']})" if r["last"] else ""))
    reg = ", ".join(f"{k} {v}" for k, v in sorted(st["registered"].items())) or "none"
    exp = st["expected"]
    want = (f" (the team: {exp['implementer']} implementer(s), {exp['reviewer']} reviewer(s))"
            if exp else "")
    lines.append(f"registered: {reg}{want}")
    lines.append(f"next: {st['next']}")
    return "\n".join(lines)
