"""From the selected Plans.md tasks to the shared task list (seed 001 Step 3, TaskCreate
登録ルール; plans-to-tasklist's validation V1-V5), and the implementers' claim order.

Registration rules
------------------
* one Plans.md task = one TaskCreate entry, ids ``task-1``, ``task-2``... in plan order, subject
  ``"<section> <title>"``, ``owns:`` (the files the task edits) in the description, an
  ``activeForm`` in the present continuous (「ログイン機能の実装」 → 「ログイン機能を実装中」);
* ``depends:`` of Plans.md become blocked-by edges; a dependency on a task that is already
  ``cc:done`` is satisfied; on an unfinished task outside the range it is an error (the task
  would wait for ever: widen the range);
* **file conflicts (V5)**: a task whose ``owns`` overlaps an earlier task's gets a blocked-by
  edge on the nearest such earlier task (plan order), unless the two are already ordered --
  so tasks on one file run one after the other, and the repair is reported, not asked;
* warnings the user decides on: V1 scope too large (more than 10 owns or 5+ sub-items), V3 two
  tasks share half of their owns or more (they run in sequence; merge them?), V4 an abstract title (改善, リファクタリング, 最適化...)
  with neither owns nor sub-items. A task without ``owns`` is ``owns: auto`` (the implementer
  finds its files); conflicts with it cannot be seen in advance.

Two owns entries overlap when they are equal, one matches the other as a glob, one is a
directory above the other, or -- both being globs -- the literal part of one is a prefix of the
other's (conservative: an unneeded edge only serialises two tasks).

Claim order (seed 001 Implementer の自律ループ): among the ``pending`` tasks whose blockers are
all ``completed``, the one with the lowest id.
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
from collections.abc import Iterable

from . import graph as _graph
from . import plans as _plans
from .sections import task_key

__all__ = ["RegistrationError", "Entry", "Finding", "Registration", "build", "overlap",
           "active_form", "claim_next", "V1_MAX_OWNS", "V1_MAX_ITEMS"]

V1_MAX_OWNS = 10
V1_MAX_ITEMS = 5
_ABSTRACT = ("改善", "リファクタリング", "最適化", "整理", "見直し", "refactor", "improve",
             "optimize", "optimise", "cleanup", "clean up")
_GLOB = re.compile(r"[*?\[]")
_FORMS = (
    (re.compile(r"^(.+?)の(実装|作成|追加|修正|更新|削除|設計|調査|整備|導入|対応|移行|改善|"
                r"最適化|リファクタリング|テスト|検証|確認)$"), "{0}を{1}中"),
    (re.compile(r"^バグ修正[:：]\s*(.+)$"), "{0}バグを修正中"),
)


class RegistrationError(ValueError):
    """The tasks cannot be registered as they are (the message names the tasks)."""


class Finding:
    """A validation result: ``check`` V1/V3/V4/V5/DEP, ``level`` warning | repaired | error,
    ``sections`` involved, ``message``."""

    __slots__ = ("check", "level", "sections", "message")

    def __init__(self, check, level, sections, message):
        self.check, self.level, self.sections, self.message = check, level, list(sections), \
            message

    def as_dict(self) -> dict:
        return {"check": self.check, "level": self.level, "sections": self.sections,
                "message": self.message}


class Entry:
    """One TaskCreate entry."""

    __slots__ = ("id", "section", "title", "marker", "owns", "blocked_by", "why")

    def __init__(self, id, section, title, marker, owns):  # noqa: A002
        self.id, self.section, self.title, self.marker = id, section, title, marker
        self.owns: list[str] = list(owns)
        self.blocked_by: list[str] = []
        self.why: dict[str, str] = {}       # blocker id -> why (depends: / V5 file)

    @property
    def subject(self) -> str:
        label = f"{self.section}." if self.section.isdigit() else self.section
        return f"{label} {self.title}"

    @property
    def active_form(self) -> str:
        return active_form(self.title)

    def description(self) -> str:
        owns = ", ".join(self.owns) if self.owns else "auto"
        return f"Plans.md {self.section}\nowns: {owns}"

    def as_dict(self) -> dict:
        return {"id": self.id, "section": self.section, "subject": self.subject,
                "description": self.description(), "activeForm": self.active_form,
                "owns": self.owns, "blockedBy": self.blocked_by,
                "why": [{"blocker": b, "reason": r} for b, r in self.why.items()]}


class Registration:
    __slots__ = ("entries", "findings")

    def __init__(self, entries, findings):
        self.entries: list[Entry] = entries
        self.findings: list[Finding] = findings

    def by_section(self) -> dict[str, Entry]:
        return {e.section: e for e in self.entries}

    def independent(self) -> list[Entry]:
        """Entries without a blocker (seed 001's 独立タスク)."""
        return [e for e in self.entries if not e.blocked_by]

    def deps(self) -> dict[str, list[str]]:
        """``{section: [sections it waits for]}`` in plan order (for batching)."""
        ids = {e.id: e.section for e in self.entries}
        return {e.section: [ids[b] for b in e.blocked_by] for e in self.entries}

    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.level == "error"]


def active_form(title: str) -> str:
    """The present continuous for TaskCreate's ``activeForm`` (「…の実装」 → 「…を実装中」)."""
    t = title.strip()
    for rx, fmt in _FORMS:
        m = rx.match(t)
        if m:
            return fmt.format(*m.groups())
    return f"{t}を実行中" if re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", t) else f"Working on {t}"


def _norm(p: str) -> str:
    p = p.strip().strip("`").replace("\\", "/")
    while p.startswith("./"):
        p = p[2:]
    return posixpath.normpath(p) if p else p


def _literal(p: str) -> str:
    m = _GLOB.search(p)
    return p[:m.start()] if m else p


def overlap(a: str, b: str) -> bool:
    """Whether two owns entries may name the same file (see the module docstring)."""
    a, b = _norm(a), _norm(b)
    if not a or not b:
        return False
    if a == b or fnmatch.fnmatchcase(a, b) or fnmatch.fnmatchcase(b, a):
        return True
    if b.startswith(a.rstrip("/") + "/") or a.startswith(b.rstrip("/") + "/"):
        return True
    ga, gb = bool(_GLOB.search(a)), bool(_GLOB.search(b))
    if ga or gb:
        la, lb = _literal(a), _literal(b)
        return la.startswith(lb) if ga and gb else (
            b.startswith(la) if ga else a.startswith(lb))
    return False


def _shared(a: Entry, b: Entry) -> bool:
    return any(overlap(x, y) for x in a.owns for y in b.owns)


def _ancestors(entry: Entry, by_id: dict[str, Entry]) -> set[str]:
    seen: set[str] = set()
    todo = list(entry.blocked_by)
    while todo:
        x = todo.pop()
        if x in seen:
            continue
        seen.add(x)
        todo.extend(by_id[x].blocked_by)
    return seen


def build(tasks: list[_plans.PlanTask], plans: _plans.Plans | None = None, *,
          first_id: int = 1) -> Registration:
    """The entries and findings for ``tasks`` (plan order). ``plans``: the whole file, to
    resolve dependencies outside the range."""
    entries = [Entry(f"task-{first_id + i}", t.section, t.title, t.marker, t.owns)
               for i, t in enumerate(tasks)]
    by_section = {e.section: e for e in entries}
    by_id = {e.id: e for e in entries}
    findings: list[Finding] = []
    for t, e in zip(tasks, entries, strict=True):
        for d in t.depends:
            if d in by_section and by_section[d] is not e:
                b = by_section[d]
                if b.id not in e.blocked_by:
                    e.blocked_by.append(b.id)
                    e.why[b.id] = f"depends:{d}"
                continue
            other = plans.get(d) if plans is not None else None
            if other is not None and other.done:
                continue
            why = ("is not a task of Plans.md" if plans is not None and other is None
                   else "is not done and not in the range")
            findings.append(Finding("DEP", "error", [e.section, d],
                                    f"{e.section} depends on {d}, which {why}: it would wait "
                                    f"for ever. Widen the range or fix depends: in Plans.md"))
    try:
        _graph.validate({e.id: e.blocked_by for e in entries})
    except _graph.GraphError as exc:
        names = [by_id[i].section if i in by_id else i for i in exc.tasks]
        findings.append(Finding("DEP", "error", names,
                                "Plans.md dependency cycle: " + " -> ".join(names)))
        return Registration(entries, findings)
    for j, later in enumerate(entries):
        for i in range(j - 1, -1, -1):
            earlier = entries[i]
            if not _shared(earlier, later):
                continue
            if earlier.id in _ancestors(later, by_id) or later.id in _ancestors(earlier, by_id):
                continue
            later.blocked_by.append(earlier.id)
            files = sorted({x for x in later.owns for y in earlier.owns if overlap(x, y)})
            later.why[earlier.id] = "V5 " + ", ".join(files)
            findings.append(Finding("V5", "repaired", [earlier.section, later.section],
                                    f"{later.section} and {earlier.section} both touch "
                                    f"{', '.join(files)}: {later.section} waits for "
                                    f"{earlier.section} (blockedBy {earlier.id}, added)"))
    for t, e in zip(tasks, entries, strict=True):
        if len(e.owns) > V1_MAX_OWNS or t.items >= V1_MAX_ITEMS:
            size = f"{len(e.owns)} owns" if len(e.owns) > V1_MAX_OWNS else f"{t.items} sub-items"
            findings.append(Finding("V1", "warning", [e.section],
                                    f"{e.section} 「{e.title[:60]}」: scope too large ({size}); "
                                    f"consider splitting it"))
        low = e.title.casefold()
        if not e.owns and not t.items and any(k in low for k in _ABSTRACT):
            findings.append(Finding("V4", "warning", [e.section],
                                    f"{e.section} 「{e.title[:60]}」: an abstract task with no "
                                    f"files and no acceptance criteria; make it concrete"))
    for j, b in enumerate(entries):
        for a in entries[:j]:
            if not a.owns or not b.owns:
                continue
            same = {_norm(x) for x in a.owns} & {_norm(y) for y in b.owns}
            if len(same) * 2 >= min(len(a.owns), len(b.owns)) and same:
                findings.append(Finding("V3", "warning", [a.section, b.section],
                                        f"{a.section} and {b.section} share {len(same)} of "
                                        f"their owns ({', '.join(sorted(same)[:3])}): they "
                                        f"run one after the other; consider merging them"))
    return Registration(entries, findings)


def _id_order(task_id: str):
    k = task_key(task_id)
    return (0, int(k), "") if k.isdigit() else (1, 0, k)


def claim_next(tasks: Iterable) -> str | None:
    """The id an implementer claims next: ``pending``, every blocker ``completed`` (a blocker
    that is not in the list counts as not completed), lowest id (numbers compared as numbers:
    ``task-2`` before ``task-10``). ``tasks``: objects or dicts with ``id``, ``status`` and
    ``blocked_by``; None when nothing can be claimed."""
    rows = []
    for t in tasks:
        get = t.get if isinstance(t, dict) else (lambda k, t=t: getattr(t, k, None))
        rows.append((str(get("id")), get("status"), list(get("blocked_by") or ())))
    status = {task_key(i): s for i, s, _ in rows}
    ready = [i for i, s, blockers in rows if s == "pending"
             and all(status.get(task_key(b)) == "completed" for b in blockers)]
    return min(ready, key=_id_order) if ready else None
