"""`/breezing 続きやって` (seed 000 「続きやって」再開フロー) as code.

Step 1: no ``breezing-active.json`` → 「前回のセッションが見つかりません」 (nothing to resume).
Step 2: ``inspect`` reads breezing-active.json, the team's task list
(``~/.claude/tasks/{team_name}/``) and Plans.md and ``screen`` shows the seed's screen::

    前回のセッション: breezing-20260206-0300
    開始: 2026-02-06 03:00
    Team: breezing-auth-feature

    TaskList 状態:
    ✅ task-1 (4.1) ログイン機能の実装
    ⏸ task-2 (4.2) 認証ミドルウェアの作成 (中断)
    ⏳ task-3 (4.3) セッション管理

    続行しますか？

Step 3: ``apply`` (after the user's approval) makes the state changes: the unfinished tasks --
in-progress ones reset to pending -- get new ids in registration order (the ids the new team's
TaskCreate gives, ``task-1``, ``task-2``... in the old ids' style), ``plans_md_mapping`` is
rewritten with them, the session gets a new id and team name (``resumed_from`` keeps the old
id), and the stale role files and phase record are removed. Creating the team, TaskCreate and
spawning are the Lead's (Agent Teams tools); ``apply`` returns what to register, in order.

Abnormal states (seed 000 異常状態への対応), each reported as a note:

* breezing-active.json corrupt or missing ``team_name`` / ``plans_md_mapping`` → ``ResumeError``
  naming the file, the problem and the repair (never a guessed resume);
* the task-list directory is gone → states from the Plans.md markers (``cc:done`` → done, the
  rest to do); a broken task file → that task is re-registered as pending;
* Plans.md changed: a mapped section that is gone is found again by its title (the mapping is
  rebuilt from Plans.md) or skipped; a task already ``cc:done`` is skipped; unfinished tasks
  added next to the mapped ones are listed (``include_added`` registers them);
* progressive batching: the in-progress batch's unfinished tasks are registered now; pending
  batches stay pending, restored from their recorded Plans.md sections.
"""

from __future__ import annotations

import os
import re

from gateway.state import files, store
from gateway.state.fast import now_iso, parse_iso
from gateway.state.layout import PHASE, ROLE_MARKER_GLOB, SESSION_ROLES, layout
from gateway.state.models import BreezingActive

from . import plans as _plans
from . import tasklist
from .sections import COMPLETED_FIELD, completed_sections, completion_sections, task_key

__all__ = ["ResumeError", "Entry", "Report", "inspect", "screen", "as_json", "apply",
           "next_team_name", "completed_sections", "completion_sections", "NOT_FOUND",
           "EXIT_NOT_FOUND", "EXIT_BROKEN"]

NOT_FOUND = "前回のセッションが見つかりません"
NOT_FOUND_EN = ("No previous session was found (no .claude/state/breezing-active.json): start "
                "a new run with `gateway breezing start --range ...`")


def _t(ja: str, en: str) -> str:
    from gateway.i18n import text

    return text(ja, en)


def not_found() -> str:
    """The seed's message for a Japanese user; in English it also says what to do."""
    return _t(NOT_FOUND, NOT_FOUND_EN)
EXIT_NOT_FOUND = 1
EXIT_BROKEN = 3
ICON = {"completed": "✅", "in_progress": "⏸", "pending": "⏳"}
STALE_FILES = (SESSION_ROLES, ROLE_MARKER_GLOB, PHASE)
class ResumeError(Exception):
    """Nothing can be resumed. ``exit_code``: 1 no session, 3 a broken state; ``code`` for
    machines."""

    def __init__(self, message: str, exit_code: int = EXIT_BROKEN, code: str = "broken"):
        self.exit_code = exit_code
        self.code = code
        super().__init__(message)


class Entry:
    """One mapped task. ``status``: completed / in_progress / pending (as it was);
    ``skip``: not to be registered again (with the reason in ``note``)."""

    __slots__ = ("old_id", "section", "title", "status", "origin", "note", "skip", "batch",
                 "depends", "owns")

    def __init__(self, old_id, section, title, status, origin, note=None, skip=False,
                 batch=None, depends=(), owns=()):
        self.old_id, self.section, self.title, self.status = old_id, section, title, status
        self.origin, self.note, self.skip, self.batch = origin, note, skip, batch
        self.depends, self.owns = tuple(depends), tuple(owns)

    @property
    def unfinished(self) -> bool:
        return self.status != "completed" and not self.skip

    def as_dict(self) -> dict:
        return {"id": self.old_id, "section": self.section, "title": self.title,
                "status": self.status, "from": self.origin, "skip": self.skip,
                "note": self.note, "batch": self.batch}


class Report:
    def __init__(self, active, team, entries, added, pending, notes, plans_path, earlier=(),
                 fix_tasks=()):
        self.active = active
        # the fix tasks (no Plans.md section) the session left open: {"id", "subject"}
        self.fix_tasks: list[dict] = list(fix_tasks)
        self.earlier: list[Entry] = list(earlier)   # completed before the last resume
        self.team = team                    # tasklist.TeamList
        self.entries: list[Entry] = entries
        self.added: list[_plans.PlanTask] = added
        self.pending: list[Entry] = pending  # tasks of batches not registered yet
        self.notes: list[tuple[str, str]] = notes
        self.plans_path = plans_path

    def to_register(self, include_added: bool = False) -> list[Entry]:
        out = [e for e in self.entries if e.unfinished]
        if include_added:
            out += [Entry(None, t.section, t.title, "pending", "plans", "added to Plans.md",
                          depends=t.depends, owns=t.owns) for t in self.added]
        return out


def _note(notes, code, message):
    notes.append((code, message))


def _strip_section(subject: str | None) -> str | None:
    if not subject:
        return None
    return _plans._SECTION.sub("", subject.strip(), count=1).strip() or subject.strip()


def _parent(section: str) -> str:
    return section.rsplit(".", 1)[0] if "." in section else ""


def inspect(project_dir, env=None, tasks_root: str | None = None,
            plans_path: str | None = None) -> Report:
    """Step 2's view (see the module docstring). Raises ``ResumeError``."""
    lay = layout(project_dir)
    try:
        active = files.load_active(lay)
    except store.StateError as e:
        raise ResumeError(f"gateway: {e}", EXIT_BROKEN, "active_corrupt") from None
    if active is None:
        raise ResumeError(not_found(), EXIT_NOT_FOUND, "not_found")
    missing = [f for f, ok in (("team_name", active.team_name),
                               ("plans_md_mapping", active.plans_md_mapping)) if not ok]
    if missing:
        raise ResumeError(
            f"gateway: state file {lay.active}: lacks {' and '.join(missing)}: the session "
            f"never finished team initialisation (seed 001 Step 3), so there is nothing to "
            f"resume. To repair: start a new /breezing (`gateway state clean` ends the old "
            f"session)", EXIT_BROKEN, "active_incomplete")
    notes: list[tuple[str, str]] = []
    from . import progress as _progress

    try:
        observed = {e.get("section") for e in _progress.load(
            lay, active.session_id)["completed"].values() if e.get("section")}
    except store.StateError as e:
        observed = set()
        _note(notes, "progress_unreadable", _t(f"進捗記録を読めません: {e.problem}",
                                                f"the progress record cannot be read: "
                                                f"{e.problem}"))
    try:
        from .progress import team_list

        team = team_list(lay.project_dir, active, env, tasks_root)
    except ValueError as e:
        raise ResumeError(f"gateway: state file {lay.active}: {e}. To repair: fix team_name "
                          f"in {lay.active} by hand", EXIT_BROKEN, "team_name_unsafe") from None
    if not team.exists:
        _note(notes, "tasklist_missing",
              _t(f"TaskList ディレクトリ {team.path} がありません", f"the TaskList directory "
                 f"{team.path} is not there")
              + (f" ({team.problem})" if team.problem else "")
              + _t(": 状態は TaskCompleted の記録と Plans.md のマーカーから復元しました",
                   ": the states come from the TaskCompleted record and the Plans.md "
                   "markers"))
    fix_tasks = []
    try:
        snap = _progress.snapshot(lay.project_dir, active, team)
    except store.StateError:
        snap = None         # noted above (progress_unreadable)
    for e in (snap.unfinished_extra if snap else []):
        if e.get("subject"):
            fix_tasks.append({"id": e.get("task_id"), "subject": e["subject"]})
        else:
            _note(notes, "fix_task_unknown",
                  _t(f"件名のない修正タスク {store.safe_text(e.get('task_id'), 40)} が未完了です: "
                     f"Reviewer の指摘を確認して作り直してください",
                     f"fix task {store.safe_text(e.get('task_id'), 40)} has no subject and is "
                     f"not completed: check the Reviewer's findings and create it again"))
    plans_path = plans_path or os.path.join(lay.project_dir, "Plans.md")
    plans = None
    try:
        plans = _plans.load(plans_path)
    except _plans.PlansError as e:
        _note(notes, "plans_unreadable", _t(f"Plans.md を読めません: {e}",
                                            f"Plans.md cannot be read: {e}"))
    entries: list[Entry] = []
    batch_of = {}
    if active.batching and active.batching.enabled:
        for b in active.batching.batches:
            for tid in b.task_ids:
                batch_of[task_key(tid)] = b.batch
    for old_id, section in active.plans_md_mapping.items():
        tt = team.tasks.get(old_id) or next((t for t in team.tasks.values()
                                             if task_key(t.id) == task_key(old_id)), None)
        subject_title = _strip_section(tt.subject) if tt else None
        pt = None
        note = None
        if plans is not None:
            pt = plans.get(section)
            if pt is None and plans.sections(section):
                note = _t(f"Plans.md に {section} が複数あります: 手で確認してください",
                          f"Plans.md has {section} more than once: check it by hand")
            elif pt is None:
                cands = plans.by_title(subject_title) if subject_title else []
                if len(cands) == 1 and cands[0].section:
                    note = _t(f"{section} は Plans.md で {cands[0].section} になりました (タイトルで照合)",
                              f"{section} is {cands[0].section} in Plans.md now (found by its "
                              f"title)")
                    pt, section = cands[0], cands[0].section
        title = (pt.title if pt else None) or subject_title or _t("(タイトル不明)",
                                                                  "(title unknown)")
        if team.exists:
            if tt is None:
                status, origin = "pending", "tasklist"
                note = note or _t("TaskList にタスクファイルがありません: pending として再登録",
                                  "no task file in the TaskList: registered again as pending")
            else:
                status, origin = tt.status, "tasklist"
                if tt.problem:
                    note = note or _t(f"タスクファイルが壊れています ({tt.problem}): pending として再登録",
                                      f"the task file is broken ({tt.problem}): registered "
                                      f"again as pending")
                    status = "pending"
        else:
            origin = "plans"
            status = ("completed" if pt and pt.done else
                      "in_progress" if pt and pt.status == "wip" else "pending")
        if section in observed and status != "completed":
            # the TaskCompleted hook saw it completed in this session
            status, origin = "completed", "hooks"
        e = Entry(old_id, section, title, status, origin, note,
                  batch=batch_of.get(task_key(old_id)),
                  depends=pt.depends if pt else (), owns=pt.owns if pt else ())
        if plans is not None and pt is None and not plans.sections(section):
            e.skip = True
            e.note = _t(f"{section} は Plans.md にありません: スキップ",
                        f"{section} is not in Plans.md: skipped")
        elif pt is not None and pt.done and status != "completed":
            e.skip = True
            e.note = _t("Plans.md で cc:done: スキップ", "cc:done in Plans.md: skipped")
        entries.append(e)
    pending: list[Entry] = []
    pending_sections: set[str] = set()
    if active.batching and active.batching.enabled:
        for b in active.batching.batches:
            if b.status != "pending":
                continue
            secs = (b.model_extra or {}).get("sections")
            if not isinstance(secs, list) or not secs:
                _note(notes, "batch_unknown",
                      _t(f"バッチ {b.batch} のセクションが記録されていません: Plans.md から手で登録してください",
                         f"batch {b.batch} has no recorded sections: register them from "
                         f"Plans.md by hand"))
                continue
            for s in secs:
                s = str(s)
                pending_sections.add(s)
                pt = plans.get(s) if plans else None
                if pt is not None and pt.done:
                    continue
                pending.append(Entry(None, s, pt.title if pt else _t("(タイトル不明)",
                                                                     "(title unknown)"),
                                     "pending", "plans",
                                     _t(f"バッチ {b.batch}: 未登録",
                                        f"batch {b.batch}: not registered yet"), batch=b.batch,
                                     depends=pt.depends if pt else (),
                                     owns=pt.owns if pt else ()))
    earlier = [Entry(None, sec, (plans.get(sec).title if plans and plans.get(sec) else
                                 _t("(タイトル不明)", "(title unknown)")), "completed",
                     "earlier", _t("前回までのセッションで完了", "completed in an earlier session"))
               for sec in completed_sections(active) if sec not in {e.section for e in entries}]
    added: list[_plans.PlanTask] = []
    if plans is not None:
        mapped = {e.section for e in entries} | {e.section for e in earlier}
        parents = {_parent(s) for s in mapped}
        for t in plans.unfinished():
            if t.section and t.section not in mapped and t.section not in pending_sections \
                    and _parent(t.section) in parents and t.status != "blocked":
                added.append(t)
        if added:
            _note(notes, "plans_added",
                  _t("Plans.md に追加されたタスク: ", "tasks added to Plans.md: ")
                  + ", ".join(f"{t.section} {store.safe_text(t.title, 40)}" for t in added[:10])
                  + (_t(" ほか", " and more") if len(added) > 10 else "")
                  + _t(" (含める場合は --include-added)", " (--include-added registers them)"))
    return Report(active, team, entries, added, pending, notes, plans_path, earlier,
                  fix_tasks)


def _started(ts: str | None) -> str:
    dt = parse_iso(ts) if ts else None
    return dt.strftime("%Y-%m-%d %H:%M") if dt else _t("不明", "unknown")


def screen(report: Report) -> str:
    """The seed's Step 2 screen (notes, if any, before the question)."""
    t = store.safe_text
    a = report.active
    lines = [_t("前回のセッション: ", "Previous session: ") + t(a.session_id),
             _t("開始: ", "Started: ") + _started(a.started_at),
             f"Team: {t(a.team_name)}", "", _t("TaskList 状態:", "TaskList state:")]
    for e in report.earlier:
        lines.append(f"✅ ({t(e.section)}) {t(e.title, 120)} ({e.note})")
    for e in report.entries:
        mark = ICON.get(e.status, "⏳")
        tail = ""
        if e.skip:
            mark = "✅" if e.status == "completed" or "cc:done" in (e.note or "") else "⏭"
            tail = f" ({e.note})"
        elif e.status == "in_progress":
            tail = _t(" (中断)", " (interrupted)")
        if e.note and not e.skip:
            tail += f" ({e.note})"
        lines.append(f"{mark} {t(e.old_id)} ({t(e.section)}) {t(e.title, 120)}{tail}")
    for e in report.pending:
        lines.append(f"⏳ ({t(e.section)}) {t(e.title, 120)} ({e.note})")
    for f in report.fix_tasks:
        lines.append(f"⏳ {t(f['id'])} {t(f['subject'], 120)} "
                     + _t("(REQUEST_CHANGES の修正タスク: 同じ件名で再作成)",
                          "(a fix task after REQUEST_CHANGES: create it again with this "
                          "subject)"))
    if report.notes:
        lines.append("")
        lines += [f"⚠️ {m}" for _code, m in report.notes]
    lines += ["", _t("続行しますか？", "Continue?")]
    return "\n".join(lines)


def as_json(report: Report, include_added: bool = False) -> dict:
    a = report.active
    return {
        "found": True, "session_id": a.session_id, "started_at": a.started_at,
        "team_name": a.team_name, "impl_mode": a.impl_mode or "standard",
        "implementer_count": a.team.implementer_count if a.team else None,
        "tasklist": {"path": report.team.path, "exists": report.team.exists},
        "tasks": [e.as_dict() for e in report.entries],
        "completed_earlier": [e.section for e in report.earlier],
        "pending_batches": [e.as_dict() for e in report.pending],
        "fix_tasks": report.fix_tasks,
        "added": [t.as_dict() for t in report.added],
        "notes": [{"code": c, "message": m} for c, m in report.notes],
        "to_register": [{"section": e.section, "title": e.title, "was": e.status}
                        for e in report.to_register(include_added)],
    }


def next_team_name(old: str) -> str:
    m = re.fullmatch(r"(.*)-r(\d{1,6})", old)
    name = f"{m.group(1)}-r{int(m.group(2)) + 1}" if m else f"{old}-r2"
    return name[:128]


def _new_ids(old_ids: list[str], n: int) -> list[str]:
    plain = [i for i in old_ids if i is not None]
    if plain and all(i.isdigit() for i in plain):
        return [str(k) for k in range(1, n + 1)]
    return [f"task-{k}" for k in range(1, n + 1)]


def _session_id(old: str, now: str) -> str:
    dt = parse_iso(now)
    sid = f"breezing-{dt:%Y%m%d-%H%M}" if dt else "breezing-resumed"
    return sid if sid != old else sid + "-2"


def apply(project_dir, report: Report, *, team: str | None = None,
          include_added: bool = False, now: str | None = None) -> dict:
    """Step 3's state changes (see the module docstring); returns what was done and the tasks
    to register, in order. Raises ``ResumeError`` when the state changed since ``inspect`` or a
    file cannot be written (nothing is then changed)."""
    lay = layout(project_dir)
    now = now or now_iso()
    old = report.active
    team = team or next_team_name(old.team_name)
    if not tasklist.safe_team_name(team):
        raise ResumeError(f"gateway: --team {store.safe_text(team, 60)!r} is not a plain "
                          f"directory name (letters, digits, '.', '_', '-')", 2, "team_unsafe")
    todo = report.to_register(include_added)
    ids = _new_ids([e.old_id for e in report.entries], len(todo))
    by_section = {e.section: new for e, new in zip(todo, ids, strict=True)}
    tasks = []
    for e, new in zip(todo, ids, strict=True):
        tasks.append({"id": new, "section": e.section, "title": e.title, "was": e.status,
                      "status": "pending", "previous_id": e.old_id,
                      "blocked_by": [by_section[d] for d in e.depends if d in by_section],
                      "owns": list(e.owns)})
    new_sid = _session_id(old.session_id, now)
    done_before = list(dict.fromkeys(
        completed_sections(old)
        + [e.section for e in report.entries if e.status == "completed" and not e.skip]))

    def fn(current):
        if current is None or current.session_id != old.session_id or \
                current.plans_md_mapping != old.plans_md_mapping:
            raise ResumeError("gateway: breezing-active.json changed while the resume was "
                              "prepared; nothing was changed. Run `gateway resume` again",
                              EXIT_BROKEN, "changed")
        upd = {"session_id": new_sid, "started_at": now, "team_name": team,
               "plans_md_mapping": {t["id"]: t["section"] for t in tasks}}

        if current.batching and current.batching.enabled:
            from .progress import batch_sections

            secs = batch_sections(current)
            batching = current.batching.model_dump(mode="json", exclude_none=True)
            for b in batching["batches"]:
                if b["status"] == "pending":
                    continue
                mine = secs.get(b["batch"], [])
                b["sections"] = mine
                b["task_ids"] = [by_section[x] for x in mine if x in by_section]
                b["status"] = "in_progress" if b["task_ids"] else "completed"
        else:
            batching = None
        data = current.model_copy(update=upd).model_dump(mode="json", exclude_none=True)
        if batching is not None:
            data["batching"] = batching
        data["resumed_from"] = old.session_id
        earlier = (current.model_extra or {}).get("earlier_sessions")
        earlier = [x for x in earlier if isinstance(x, str)] if isinstance(earlier, list) \
            else []
        data["earlier_sessions"] = (earlier + [old.session_id])[-50:]
        data[COMPLETED_FIELD] = done_before
        return BreezingActive.model_validate(data)

    try:
        files.update_active(lay, fn)
        removed = files.remove_files(lay, STALE_FILES)
        from .progress import carry_fix_tasks

        if report.fix_tasks:
            carry_fix_tasks(lay.project_dir, new_sid, report.fix_tasks)
    except store.StateError as e:
        raise ResumeError(f"gateway: {e}", EXIT_BROKEN, "write_failed") from None
    return {"session_id": new_sid, "resumed_from": old.session_id, "team_name": team,
            "impl_mode": old.impl_mode or "standard",
            "implementer_count": old.team.implementer_count if old.team else None,
            "tasks": tasks,
            "fix_tasks": [{"subject": f["subject"], "previous_id": f["id"]}
                          for f in report.fix_tasks],
            "completed_sections": done_before,
            "removed": [os.path.relpath(p, lay.project_dir) for p in removed]}
