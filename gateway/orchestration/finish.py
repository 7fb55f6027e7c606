"""Phase C of /breezing as code (seed 001 完了ステージ, seed 000 クリーンアップ): what ``gateway
breezing finish`` does once every task is completed and the Reviewer approved.

The seed's order, and who does each step::

    1. delegate mode off                 the Lead: `gateway breezing phase C` (required first)
    2. APPROVE fast path                 finish        (review-result.json: APPROVE, HEAD, session)
    3. integration build/test            finish        (gateway.orchestration.verify)
    4. Plans.md cc:TODO → cc:done        finish        (one atomic write, plans.complete_session)
    5. git commit (Conventional Commits) the Lead
    6. breezing-active.json removed      finish --cleanup
    7. review-result.json removed        finish --cleanup
       (and the role files, signals and the gateway's phase and finish records)
    8. Team cleanup                      the Lead (Agent Teams)
    9. the completion report             finish --cleanup (from the state, before it goes)

``complete`` (steps 2-4) refuses, changing nothing, when Phase C is not recorded for the
session, when the team's task list shows a mapped task that is not completed, when the
fast path does not hold and the user's approval is not given (``approved``: the normal
confirmation), when review-result.json says REJECT or STOP for this session, or when a check
fails. ``cleanup`` (steps 6, 7, 9) refuses until ``complete`` ran for this session, so Plans.md
is never left behind.

The report (``render``) is the seed's 完了レポート: the range and task count, the duration since
``started_at``, implementers, retakes, the tasks, who completed what and when (from
``breezing-timeline.jsonl``), the review verdict, the build and test results of the recorded
check, and the commits made since the session started.
"""

from __future__ import annotations

import os
import re
import subprocess

from gateway.state import fast, files, store
from gateway.state.layout import (
    ACTIVE,
    PHASE,
    REVIEW_RESULT,
    ROLE_MARKER_GLOB,
    SESSION_ROLES,
    SIGNALS,
    layout,
)

from . import plans as _plans
from . import review as _review
from . import verify
from .sections import completion_sections, task_key

__all__ = ["FINISH_RECORD", "FinishError", "complete", "build_report", "render", "cleanup",
           "CLEANUP_ORDER", "teammate_label"]

FINISH_RECORD = "gateway-breezing-finish.json"
#: seed 001 処理 6-7, then seed 000 正常完了時 3-4, the signals (seed 001's lifecycle), the
#: gateway's own records.
CLEANUP_ORDER = (ACTIVE, REVIEW_RESULT, SESSION_ROLES, ROLE_MARKER_GLOB, SIGNALS, PHASE,
                 verify.RECORD, FINISH_RECORD, "gateway-breezing-progress.json")
CLOSING = "楽勝でした 🐎💨"


class FinishError(Exception):
    """Phase C cannot go on; nothing was changed. ``code`` for machines."""

    def __init__(self, code: str, message: str, exit_code: int = 1, detail=None):
        self.code, self.exit_code, self.detail = code, exit_code, detail
        super().__init__(message)


def _active(lay):
    try:
        active = files.load_active(lay)
    except store.StateError as e:
        raise FinishError("active_unusable", f"gateway: {e}", 3) from None
    if active is None:
        raise FinishError("no_session", "gateway: no breezing session (.claude/state/"
                                        "breezing-active.json is absent): it was finished "
                                        "and cleaned up already, or never started; nothing "
                                        "to finish. Start a run with `gateway breezing start "
                                        "--range ...`")
    return active


def _git(project: str, *args: str) -> str | None:
    try:
        r = subprocess.run(["git", "-C", project, *args], capture_output=True, text=True,
                           timeout=30, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return r.stdout if r.returncode == 0 else None


def complete(project_dir, *, approved: bool = False, pkg_manager: str | None = None,
             pytest: str | None = None, timeout: float = verify.DEFAULT_TIMEOUT,
             plans_path: str | None = None, env=None, on_step=None, tasks_root=None,
             on_fast_path=None) -> dict:
    """Steps 2-4 (see the module docstring). Raises ``FinishError``. ``on_fast_path(fp)``
    is called once the fast path (or the user's approval) let Phase C go on, before the
    check runs; ``on_step`` is the check's (``verify.run``)."""
    project = os.path.abspath(os.fspath(project_dir))
    lay = layout(project)
    active = _active(lay)
    sid = active.session_id
    try:
        phase = fast.effective_phase(lay)
    except store.StateError as e:
        raise FinishError("phase_unusable", f"gateway: {e}", 3) from None
    if phase is None or phase.phase != "C":
        now = f"phase {phase.phase} is recorded" if phase else "no phase is recorded"
        raise FinishError("not_phase_c", f"gateway: Phase C is not recorded for session {sid} "
                                         f"({now}): when every task is completed and the "
                                         f"Reviewer approved, run `gateway breezing phase C` "
                                         f"first")
    notes = []
    team = None
    if active.team_name:
        try:
            from .progress import team_list

            team = team_list(project, active, env, tasks_root)
        except ValueError as e:
            raise FinishError("team_name_unsafe", f"gateway: {e}", 3) from None
        if not team.exists or team.problem is not None:
            notes.append(f"the team's task list {team.path} is not there: the completions "
                         f"the TaskCompleted hook recorded were checked instead")
    from . import progress as _progress

    try:
        snap = _progress.snapshot(project, active, team)
    except store.StateError as e:
        raise FinishError("progress_unusable", f"gateway: {e}", 3) from None
    if snap.pending_batches:
        n, secs = snap.pending_batches[0]
        raise FinishError("batch_pending", f"gateway: Phase C needs every task of the session; "
                                           f"batch {n} ({', '.join(secs[:8])}) was never "
                                           f"registered: run `gateway breezing batch`, let the "
                                           f"team complete it, then finish",
                          detail=[{"batch": n, "sections": s} for n, s in snap.pending_batches])
    unfinished = [f"{snap.listed[s][0]} ({s}): {snap.listed[s][1]}" if s in snap.listed
                  else f"{s}: not completed" for s in snap.unfinished_sections]
    unfinished += [f"«{store.safe_text(e.get('subject'), 60)}» (a fix task open before the "
                   f"resume): not created again: create it with this subject (TaskCreate)"
                   if e.get("carried") else
                   f"{store.safe_text(e.get('task_id'), 40)} "
                   f"({store.safe_text(e.get('subject') or 'a task that is no Plans.md task', 60)}"
                   f"): not completed" for e in snap.unfinished_extra]
    if unfinished:
        raise FinishError("tasks_unfinished", "gateway: Phase C needs every task completed, "
                                              "fix tasks included; not completed: "
                                              + "; ".join(unfinished[:10])
                                              + (f" and {len(unfinished) - 10} more"
                                                 if len(unfinished) > 10 else "")
                                              + ". Wait for the team (`gateway breezing "
                                                "status`), then run finish again",
                          detail=unfinished)
    fp = _review.fast_path(project, session_id=sid)
    try:
        result = files.load_review_result(lay)
    except store.StateError:
        result = None
    if result is not None and result.session_id == sid and result.verdict in ("REJECT", "STOP"):
        raise FinishError("review_stopped", f"gateway: the Reviewer's verdict is "
                                            f"{result.verdict}: stop and report to the user "
                                            f"(seed 001: REJECT/STOP stop at once)")
    if not fp.ok and not approved:
        raise FinishError("not_approved", f"gateway: the APPROVE fast path does not hold "
                                          f"({fp.reason}). Confirm the Reviewer's final verdict "
                                          f"is APPROVE (the normal confirmation), then run "
                                          f"`gateway breezing finish --approved`",
                          detail=fp.as_dict())
    try:
        planned = verify.plan(project, pkg_manager=pkg_manager, pytest=pytest, env=env)
    except verify.VerifyError as e:
        raise FinishError("verify_unplanned", f"gateway: {e}", 2) from None
    if on_fast_path:
        on_fast_path(fp.as_dict())
    head = _review.git_head(project)
    record = verify.run(project, planned, timeout=timeout, session_id=sid, head=head,
                        on_step=on_step, env=env)
    if not record["ok"]:
        bad = next(s for s in record["steps"] if s["number"] == record["stopped_at"])
        raise FinishError("verify_failed", f"gateway: the integration check failed at step "
                                           f"{bad['number']} ({bad['command']}: {bad['status']})"
                                           f"; Plans.md was not changed. Fix it, then run "
                                           f"`gateway breezing finish` again",
                          detail=record)
    try:
        changed = _plans.complete_session(project, plans_path)
    except _plans.PlansError as e:
        raise FinishError("plans_failed", f"gateway: {e}", 3) from None
    rec = {"session_id": sid, "completed_at": fast.now_iso(), "head": head,
           "approved_by": "fast_path" if fp.ok else "user",
           "fast_path": fp.as_dict(),
           "plans_done": [t.section for t in changed],
           "sections": completion_sections(active), "notes": notes}
    with store.FileLock(lay.path(FINISH_RECORD)):
        store.atomic_write_json(lay.path(FINISH_RECORD), rec)
    return {"step": "completed", **rec, "verify": record,
            "next": ["git commit (Conventional Commits, e.g. `feat: ...`): the implementation "
                     "and Plans.md",
                     "`gateway breezing finish --cleanup`: the state cleanup and the report",
                     "Team cleanup (Agent Teams: clean up the team)"]}


# --------------------------------------------------------------------------------------------
# The report
# --------------------------------------------------------------------------------------------

_IMPL = re.compile(r"(?:implementer|impl|worker|task-worker|codex-implementer)[-_ #]*(\d{1,4})",
                   re.IGNORECASE)


def teammate_label(name: str | None) -> str:
    """``implementer-1`` → ``Implementer #1``, ``reviewer`` → ``Reviewer``, else the name."""
    if not name:
        return "(unknown)"
    m = _IMPL.fullmatch(name.strip())
    if m:
        return f"Implementer #{int(m.group(1))}"
    if name.strip().lower() in ("reviewer", "code-reviewer"):
        return "Reviewer"
    return store.safe_text(name, 40)


def _hhmm(ts: str | None) -> str | None:
    dt = fast.parse_iso(ts) if ts else None
    return dt.astimezone().strftime("%H:%M") if dt else None


def _task_label(task_id) -> str:
    k = task_key(task_id)
    return f"#{k}" if re.fullmatch(r"[A-Za-z0-9_.-]{1,32}", k) else "#?"


def sessions_of(active) -> set:
    """The breezing session ids of this run: the current one and those it resumed."""
    raw = (active.model_extra or {}).get("earlier_sessions")
    out = {active.session_id}
    if isinstance(raw, list):
        out |= {x for x in raw if isinstance(x, str)}
    prev = (active.model_extra or {}).get("resumed_from")
    if isinstance(prev, str):
        out.add(prev)
    return out


def _activity(lay, sid, review_result, sessions=None) -> list[dict]:
    try:
        records = files.read_timeline(lay).records
    except store.StateError:
        records = []
    sessions = sessions or {sid}
    rows: dict[str, dict] = {}
    for rec in records:
        if getattr(rec, "event", None) != "task_completed":
            continue
        if (rec.model_extra or {}).get("session_id") not in sessions:
            continue
        who = teammate_label(rec.teammate)
        row = rows.setdefault(who, {"teammate": who, "done": {}})
        row["done"][_task_label(rec.task_id)] = _hhmm(rec.timestamp) or "?"

    def order(label):
        m = re.fullmatch(r"Implementer #(\d+)", label)
        return (0, int(m.group(1)), "") if m else (1, 0, label)

    out = [{"teammate": r["teammate"], "tasks": list(r["done"]),
            "times": list(r["done"].values())}
           for r in sorted(rows.values(), key=lambda r: order(r["teammate"]))]
    if review_result is not None and review_result.session_id in (None, sid):
        out.append({"teammate": "Reviewer", "tasks": [], "times":
                    [t for t in [_hhmm(review_result.timestamp)] if t], "review": True})
    return out


def _build_test(record: dict | None) -> dict:
    steps = (record or {}).get("steps") or []
    ran = [s for s in steps if isinstance(s, dict) and s.get("applies")]

    def summary(kinds):
        mine = [s for s in ran if s.get("kind") in kinds]
        if not mine:
            return {"status": "none"}
        statuses = [s.get("status") for s in mine]
        if any(st not in ("passed", "no-tests") for st in statuses):
            return {"status": "failed"}
        if all(st == "no-tests" for st in statuses):
            return {"status": "no-tests"}
        counted = [s["tests"] for s in mine if isinstance(s.get("tests"), dict)]
        out = {"status": "passed"}
        if counted:
            out["passed"] = sum(int(c.get("passed", 0)) for c in counted)
            out["total"] = sum(int(c.get("total", 0)) for c in counted)
        return out

    return {"build": summary(("check", "lint")), "tests": summary(("test",)),
            "steps": [{"name": s.get("name"), "command": s.get("command"),
                       "status": s.get("status")} for s in ran]}


def _commits(project: str, base: str | None) -> list[dict]:
    if not base or not re.fullmatch(r"[0-9a-fA-F]{7,64}", base):
        return []
    out = _git(project, "log", "--max-count=20", "--format=%h%x00%s", f"{base}..HEAD")
    commits = []
    for line in (out or "").splitlines():
        h, _, subject = line.partition("\x00")
        if h:
            commits.append({"hash": h, "subject": subject})
    return commits


def build_report(project_dir, now: str | None = None, plans_path: str | None = None) -> dict:
    """The data of the completion report, from the state as it is (before the cleanup)."""
    project = os.path.abspath(os.fspath(project_dir))
    lay = layout(project)
    active = _active(lay)
    sid = active.session_id
    try:
        finish_rec = store.read_json(lay.path(FINISH_RECORD))
    except store.StateError:
        finish_rec = None
    try:
        review_result = files.load_review_result(lay)
    except store.StateError:
        review_result = None
    from .progress import session_sections

    sections = session_sections(active)
    try:
        plans = _plans.load(plans_path or os.path.join(project, "Plans.md"))
    except _plans.PlansError:
        plans = None
    tasks = []
    for s in sections:
        t = plans.get(s) if plans else None
        from gateway.i18n import text

        tasks.append({"section": s, "title": t.title if t else text("(タイトル不明)",
                                                                   "(title unknown)"),
                      "done": bool(t and t.done)})
    started = fast.parse_iso(active.started_at) if active.started_at else None
    end = fast.parse_iso(now or fast.now_iso())
    minutes = round((end - started).total_seconds() / 60) if started and end else None
    via = (finish_rec or {}).get("approved_by") if isinstance(finish_rec, dict) else None
    verdict = None
    if review_result is not None and review_result.session_id in (None, sid):
        verdict = {"verdict": review_result.verdict, "grade": review_result.grade or "N/A"}
    elif via == "user":
        verdict = {"verdict": "APPROVE", "grade": "N/A", "manual": True}
    codex = bool(active.options and active.options.codex_review)
    base = (active.model_extra or {}).get("base_commit")
    if not isinstance(base, str):
        base = (finish_rec or {}).get("head") if isinstance(finish_rec, dict) else None
    return {
        "session_id": sid, "range": active.task_range, "task_count": len(sections),
        "duration_min": minutes,
        "implementers": active.team.implementer_count if active.team else None,
        "retakes": active.review.retake_count if active.review else 0,
        "tasks": tasks,
        "activity": _activity(lay, sid, review_result, sessions_of(active)),
        "review": {**(verdict or {"verdict": None}), "approved_by": via,
                   "codex_review": "enabled" if codex else "N/A"},
        **_build_test(verify.load_record(lay)),
        "commits": _commits(project, base),
    }


_JA = {"range": "対象", "tasks_n": "タスク", "unknown_range": "(範囲不明)", "duration": "所要時間",
       "unknown": "不明", "minutes": "分", "parallel": "並列", "retakes": "リテイク",
       "times": "回", "activity": "## Team Activity (TaskCompleted/TeammateIdle Hook - 実装済み)",
       "header": "| Teammate | 完了タスク | 完了時刻 |", "reviewed": "(レビュー完了)",
       "manual": "APPROVE (手動確認)", "verdict": "判定", "enabled": "有効 (--codex-review)",
       "build": "ビルド", "test": "テスト", "ok": "✅ 成功", "failed": "❌ 失敗",
       "none": "— (対象なし)", "no_tests": "— (テストなし)", "passed": "通過",
       "no_commit": "- (コミットなし)", "closing": CLOSING}
_EN = {"range": "Range", "tasks_n": "tasks", "unknown_range": "(range unknown)",
       "duration": "Duration", "unknown": "unknown", "minutes": "min", "parallel": "in parallel",
       "retakes": "Retakes", "times": "", "activity": "## Team Activity (TaskCompleted/"
       "TeammateIdle hooks)", "header": "| Teammate | Tasks completed | Completed at |",
       "reviewed": "(review done)", "manual": "APPROVE (confirmed by the user)",
       "verdict": "Verdict", "enabled": "enabled (--codex-review)", "build": "Build",
       "test": "Tests", "ok": "✅ passed", "failed": "❌ failed", "none": "— (nothing to run)",
       "no_tests": "— (no tests)", "passed": "passed", "no_commit": "- (no commit)",
       "closing": "Done with ease 🐎💨"}


def render(report: dict, env=None) -> str:
    """The seed's 完了レポート (Markdown): exactly the seed's for a Japanese user
    (gateway.i18n), in English otherwise."""
    from gateway.i18n import is_ja

    w = _JA if is_ja(env) else _EN
    t = store.safe_text
    n = report["task_count"]
    mins = report["duration_min"]
    times = f" {w['times']}" if w["times"] else ""
    lines = ["🏇 Breezing Complete!", "", "## Summary",
             f"- {w['range']}: {t(report['range'] or w['unknown_range'], 200)} ({n} "
             f"{w['tasks_n']})",
             f"- {w['duration']}: {mins if mins is not None else w['unknown']} {w['minutes']}",
             f"- Implementer: {report['implementers'] or '?'} {w['parallel']}",
             f"- {w['retakes']}: {report['retakes']}{times}", "", "## Tasks"]
    for task in report["tasks"]:
        s = task["section"]
        label = f"{s}." if s.isdigit() else s
        lines.append(f"{'✅' if task['done'] else '⏳'} {t(label, 20)} {t(task['title'], 120)}")
    lines += ["", w["activity"], w["header"], "|----------|-----------|---------|"]
    for row in report["activity"]:
        done = w["reviewed"] if row.get("review") else ", ".join(row["tasks"])
        lines.append(f"| {row['teammate']} | {done} | {', '.join(row['times']) or '-'} |")
    rv = report["review"]
    verdict = w["unknown"]
    if rv.get("verdict"):
        verdict = f"{rv['verdict']} (Grade: {rv.get('grade') or 'N/A'})"
        if rv.get("manual"):
            verdict = w["manual"]
    lines += ["", "## Review", f"- {w['verdict']}: {verdict}",
              f"- Codex Review: {w['enabled'] if rv['codex_review'] != 'N/A' else 'N/A'}",
              "", "## Build & Test"]
    b, tt = report["build"], report["tests"]
    lines.append(f"- {w['build']}: " + {"passed": w["ok"], "failed": w["failed"],
                                        "no-tests": w["ok"]}.get(b["status"], w["none"]))
    if tt["status"] == "passed" and "total" in tt:
        test = f"✅ {tt['passed']}/{tt['total']} {w['passed']}"
    else:
        test = {"passed": w["ok"], "failed": w["failed"],
                "no-tests": w["no_tests"]}.get(tt["status"], w["none"])
    lines += [f"- {w['test']}: {test}", "", "## Commit"]
    if report["commits"]:
        lines += [f"- {c['hash']}: {t(c['subject'], 200)}" for c in report["commits"]]
    else:
        lines.append(w["no_commit"])
    lines += ["", w["closing"]]
    return "\n".join(lines)


def cleanup(project_dir, *, now: str | None = None, plans_path: str | None = None,
            no_commit: bool = False) -> dict:
    """Steps 6, 7 and 9: the report from the state, then the state files removed in the
    seed's order. Raises ``FinishError`` (nothing removed) until ``complete`` ran."""
    project = os.path.abspath(os.fspath(project_dir))
    lay = layout(project)
    active = _active(lay)
    try:
        rec = store.read_json(lay.path(FINISH_RECORD))
    except store.StateMissing:
        rec = None
    except store.StateError as e:
        raise FinishError("finish_record_unusable", f"gateway: {e}", 3) from None
    if not isinstance(rec, dict) or rec.get("session_id") != active.session_id:
        raise FinishError("not_completed", "gateway: Phase C steps 2-4 (fast path, integration "
                                           "check, Plans.md) have not run for session "
                                           f"{active.session_id}: run `gateway breezing "
                                           f"finish` first")
    head = _review.git_head(project)
    if not no_commit and head is not None and head == rec.get("head"):
        raise FinishError("not_committed", "gateway: no commit since `gateway breezing finish` "
                                           "(HEAD is still " + head[:12] + "): commit the "
                                           "implementation and Plans.md first (seed 001 step 5, "
                                           "Conventional Commits), then run `gateway breezing "
                                           "finish --cleanup`; nothing was removed. With "
                                           "nothing to commit, add --no-commit")
    report = build_report(project, now=now, plans_path=plans_path)
    removed = []
    for name in CLEANUP_ORDER:
        removed += files.remove_files(lay, (name,))
    report["removed"] = [os.path.relpath(p, project) for p in removed]
    return report
