"""Plans.md: the task markers and section numbers the breezing workflow reads (seeds 000/001).

What is a task
--------------
A line outside fenced code blocks that carries a status marker and is a Markdown heading, a
list item (``- [ ] ...``, ``3. ...``) or a table row whose first cell is a task number::

    ### 4.1 ログイン機能の実装 <!-- cc:TODO -->
    - [ ] 4.2 認証ミドルウェアの作成 `cc:WIP`
    3. セッション管理 (cc:TODO)
    | 26.0.1 | 失敗原因分析ステップを追加 | ... | - | cc:完了 |
    - [ ] T002: User API `cc:todo` depends:T001

Markers (case-insensitive where Latin): ``cc:TODO``, ``cc:WIP``, ``cc:done`` / ``cc:完了``,
``pm:requested`` / ``pm:依頼中`` / ``cursor:依頼中`` (to do), ``pm:approved`` / ``pm:確認済`` /
``cursor:確認済`` (done), and ``blocked`` in backticks. When a line has several, the last one
counts. The section number is the task's leading number (``4.1``, ``3``, ``26.0.1``,
``Phase 26.0:``) or its ``T001:`` id; a task without one has ``section None`` and cannot be
mapped. ``depends:ID,ID``, ``owns: glob, glob`` (on the line or in the lines below it) and
``[P]`` are read and removed from the title.

Completion (Phase C)
--------------------
``mark_done(path, sections)`` rewrites the mapped tasks' markers to ``cc:done`` (and ``- [ ]``
to ``- [x]``) in **one atomic write**, or writes nothing: a missing or ambiguous section, a
file changed while it was being updated, or an unreadable file raise ``PlansError``. Seed 000:
Plans.md is updated only at completion, never during the run.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

from gateway.state import store

__all__ = ["PlansError", "PlanTask", "Plans", "parse", "load", "mark_done", "complete_session",
           "STATUSES", "MAX_PLANS_BYTES"]

MAX_PLANS_BYTES = 4 << 20
STATUSES = ("todo", "wip", "done", "blocked")

_MARKER = re.compile(
    r"(?<![\w:])(?:(cc):(todo|wip|done|完了)|(pm|cursor):(requested|approved|依頼中|確認済))"
    r"(?![\w])|`(blocked)`", re.IGNORECASE)
_MEANING = {"todo": "todo", "wip": "wip", "done": "done", "完了": "done",
            "requested": "todo", "依頼中": "todo", "approved": "done", "確認済": "done"}
_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_BULLET = re.compile(r"^(\s*)[-*+]\s+(?:\[( |x|X)\]\s+)?(.*)$")
_ORDERED = re.compile(r"^(\s*)(\d+(?:\.\d+)*)[.)]\s+(?:\[( |x|X)\]\s+)?(.*)$")
_SECTION = re.compile(r"^(?:(?:Phase|フェーズ)\s*)?(\d+(?:\.\d+)*[a-z]?)(?:[.:)]|\s)\s*"
                      r"|^(T\d+):\s*", re.IGNORECASE)
_TABLE_ID = re.compile(r"^(?:\d+(?:\.\d+)*[a-z]?|[A-Z]{1,10}-?\d+)$")
_DEPENDS = re.compile(r"\bdepends:\s*([\w.-]+(?:\s*,\s*[\w.-]+)*)", re.IGNORECASE)
_OWNS = re.compile(r"\bowns:\s*(.+)$", re.IGNORECASE)
_DECOR = [re.compile(p) for p in (r"<!--\s*-->", r"``", r"\(\s*\)", r"\[P\]", r"\s{2,}")]


class PlansError(Exception):
    """Plans.md cannot be read or updated. ``str()`` says what and how to repair."""


class PlanTask:
    """One task line. ``line`` is 1-based; ``status`` one of STATUSES."""

    __slots__ = ("section", "title", "status", "marker", "line", "kind", "depends", "owns",
                 "checkbox", "parents", "items")

    def __init__(self, section, title, status, marker, line, kind, depends=(), owns=(),
                 checkbox=None):
        self.section: str | None = section
        self.title: str = title
        self.status: str = status
        self.marker: str = marker
        self.line: int = line
        self.kind: str = kind              # heading | bullet | ordered | table
        self.depends: tuple[str, ...] = tuple(depends)
        self.owns: tuple[str, ...] = tuple(owns)
        self.checkbox: str | None = checkbox  # " " or "x" for "- [ ]" items
        #: the texts of the headings the task sits under, outermost first ("Phase 4: 認証機能")
        self.parents: tuple[str, ...] = ()
        #: how many list items follow the task line before the next task or heading
        self.items: int = 0

    @property
    def done(self) -> bool:
        return self.status == "done"

    def as_dict(self) -> dict:
        return {"section": self.section, "title": self.title, "status": self.status,
                "marker": self.marker, "line": self.line, "depends": list(self.depends),
                "owns": list(self.owns), "parents": list(self.parents)}

    def __repr__(self) -> str:
        return f"PlanTask({self.section!r}, {self.title!r}, {self.status!r}, line={self.line})"


class Plans:
    """The parsed file: ``tasks`` in file order, lookups by section and by title."""

    def __init__(self, tasks: list[PlanTask], path: str | None = None):
        self.tasks = tasks
        self.path = path
        self._by_section: dict[str, list[PlanTask]] = {}
        for t in tasks:
            if t.section is not None:
                self._by_section.setdefault(t.section, []).append(t)

    def sections(self, section: str) -> list[PlanTask]:
        """Every task with this section number (more than one: the file is ambiguous)."""
        return list(self._by_section.get(str(section), ()))

    def get(self, section: str) -> PlanTask | None:
        """The one task with this section number, or None (absent or ambiguous)."""
        found = self._by_section.get(str(section), ())
        return found[0] if len(found) == 1 else None

    def by_title(self, title: str) -> list[PlanTask]:
        key = _title_key(title)
        return [t for t in self.tasks if _title_key(t.title) == key]

    def duplicates(self) -> list[str]:
        return [s for s, ts in self._by_section.items() if len(ts) > 1]

    def unfinished(self) -> list[PlanTask]:
        return [t for t in self.tasks if not t.done]


def _title_key(title: str) -> str:
    t = _SECTION.sub("", title.strip(), count=1)
    return " ".join(t.split()).casefold()


def _clean(text: str, marker_span: tuple[int, int] | None) -> str:
    if marker_span:
        text = text[:marker_span[0]] + text[marker_span[1]:]
    text = _DEPENDS.sub("", text)
    text = _OWNS.sub("", text)
    for rx in _DECOR:
        text = rx.sub(" ", text)
    text = text.strip().strip("|").strip()
    return re.sub(r"\s+[—–-]+\s*$", "", text).strip()


def _status(m: re.Match) -> str:
    if m.group(5):
        return "blocked"
    word = (m.group(2) or m.group(4)).lower()
    return _MEANING[word]


def parse(text: str, path: str | None = None) -> Plans:
    """Parse Plans.md text (see the module docstring)."""
    tasks: list[PlanTask] = []
    in_fence = False
    lines = text.split("\n")
    current: PlanTask | None = None
    headings: list[tuple[int, str]] = []      # the enclosing headings: (level, text)
    for i, line in enumerate(lines, 1):
        if _FENCE.match(line):
            in_fence = not in_fence
            current = None
            continue
        if in_fence:
            continue
        h = _HEADING.match(line)
        level = len(h.group(1)) if h else 7
        if h:
            while headings and headings[-1][0] >= level:
                headings.pop()
        markers = list(_MARKER.finditer(line))
        if not markers:
            if h:
                headings.append((level, _clean(h.group(2), None)))
            if current is not None and line.strip():
                own = _OWNS.search(line)
                if own and not current.owns:
                    current.owns = _split_list(own.group(1))
                elif _BULLET.match(line) or _ORDERED.match(line):
                    current.items += 1
                if h:
                    current = None
            continue
        m = markers[-1]
        task = _task_line(line, i, m)
        if task is not None:
            task.parents = tuple(t for _lvl, t in headings)
            tasks.append(task)
            current = task
            if h:
                headings.append((level, task.title))
        else:
            current = None
            if h:
                headings.append((level, _clean(h.group(2), m.span())))
    return Plans(tasks, path)


def _split_list(value: str) -> tuple[str, ...]:
    value = value.strip().strip("`")
    return tuple(x.strip().strip("`") for x in value.split(",") if x.strip().strip("`"))


def _task_line(line: str, lineno: int, m: re.Match) -> PlanTask | None:
    status = _status(m)
    marker = m.group(0).strip("`")
    checkbox = None
    if line.lstrip().startswith("|"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2 or not _TABLE_ID.match(cells[0].strip("`* ")):
            return None
        if m.start() < line.index("|", line.index("|") + 1):
            return None                     # the marker is in the first cell: a legend row
        section = cells[0].strip("`* ")
        title = _clean(cells[1], None)
        depends = ()
        for c in cells[2:]:
            if re.fullmatch(r"(?:\d+(?:\.\d+)*[a-z]?)(?:\s*,\s*\d+(?:\.\d+)*[a-z]?)*", c):
                depends = _split_list(c)
        return PlanTask(section, title, status, marker, lineno, "table", depends)
    h = _HEADING.match(line)
    o = _ORDERED.match(line)
    b = _BULLET.match(line)
    section = None
    if h:
        kind, rest, offset = "heading", h.group(2), h.start(2)
    elif o:
        kind, rest, offset = "ordered", o.group(4), o.start(4)
        section = o.group(2)
        checkbox = o.group(3).lower() if o.group(3) else None
    elif b:
        kind, rest, offset = "bullet", b.group(3), b.start(3)
        checkbox = b.group(2).lower() if b.group(2) else None
    else:
        return None
    span = (m.start() - offset, m.end() - offset)
    if span[0] < 0:
        return None
    deps = _DEPENDS.search(rest)
    owns = _OWNS.search(rest[:span[0]] + rest[span[1]:])
    if section is None:
        s = _SECTION.match(rest)
        if s:
            section = s.group(1) or s.group(2)
            cut = s.end()
            span = (span[0] - cut, span[1] - cut)
            rest = rest[cut:]
            if span[0] < 0:
                return None
    title = _clean(rest, span)
    return PlanTask(section, title, status, marker, lineno, kind,
                    _split_list(deps.group(1)) if deps else (),
                    _split_list(owns.group(1)) if owns else (), checkbox)


def _read(path) -> bytes:
    path = os.fspath(path)
    try:
        return store.read_bytes(path, MAX_PLANS_BYTES)
    except store.StateMissing:
        raise PlansError(f"{path} does not exist: the breezing workflow reads its tasks from "
                         f"Plans.md in the project directory") from None
    except store.StateError as e:
        raise PlansError(f"{path}: {e.problem}. To repair: {e.repair}") from None


def _decode(data: bytes, path: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise PlansError(f"{path} is not UTF-8 text (byte {e.start}); save it as UTF-8") from None


def load(path) -> Plans:
    """Read and parse Plans.md. Raises ``PlansError`` (missing, unreadable, not UTF-8, a
    symlink or not a regular file, over 4 MiB)."""
    path = os.fspath(path)
    return parse(_decode(_read(path), path), path)


def _done_line(line: str, task: PlanTask) -> str:
    ms = list(_MARKER.finditer(line))
    m = ms[-1]
    word = "cc:done"
    new = line[:m.start()] + (f"`{word}`" if m.group(5) else word) + line[m.end():]
    if task.checkbox == " ":
        new = re.sub(r"^(\s*(?:[-*+]|\d+(?:\.\d+)*[.)])\s+)\[ \]", r"\1[x]", new, count=1)
    return new


def mark_done(path, sections: Iterable[str], *, lock_dir=None) -> list[PlanTask]:
    """Set the tasks of ``sections`` to ``cc:done`` in one atomic write; returns the tasks that
    changed (already-done tasks are left as they are). Nothing is written on any error.

    ``lock_dir``: where the writers' lock lives (default: the project's ``.claude/state``,
    so no lock file appears next to Plans.md)."""
    path = os.fspath(path)
    wanted = [str(s) for s in sections]
    if lock_dir is None:
        lock_dir = os.path.join(os.path.dirname(os.path.abspath(path)), ".claude", "state")
    with store.FileLock(os.path.join(lock_dir, "Plans.md")):
        raw = _read(path)
        text = _decode(raw, path)
        plans = parse(text, path)
        missing = [s for s in wanted if not plans.sections(s)]
        ambiguous = [s for s in wanted if len(plans.sections(s)) > 1]
        if missing or ambiguous:
            parts = []
            if missing:
                parts.append("no task with section " + ", ".join(missing))
            if ambiguous:
                parts.append("more than one task with section " + ", ".join(ambiguous))
            raise PlansError(f"{path}: {'; '.join(parts)}; nothing was changed. To repair: "
                             f"fix the section numbers in Plans.md (or the plans_md_mapping of "
                             f"breezing-active.json), then run the update again")
        lines = text.split("\n")
        changed = []
        for s in dict.fromkeys(wanted):
            task = plans.get(s)
            if task.done:
                continue
            lines[task.line - 1] = _done_line(lines[task.line - 1], task)
            changed.append(task)
        if not changed:
            return []
        new = "\n".join(lines).encode("utf-8")
        try:
            mode = os.stat(path).st_mode & 0o777
        except OSError:
            mode = 0o644
        if _read(path) != raw:
            raise PlansError(f"{path} changed while it was being updated; nothing was changed. "
                             f"Run the update again")
        store.atomic_write_bytes(path, new, mode=mode)
        for t in changed:
            t.status, t.marker = "done", "cc:done"
        return changed


def complete_session(project_dir, plans_path=None) -> list[PlanTask]:
    """Phase C's Plans.md update for the running breezing session: every section of
    ``resume.completion_sections`` (the mapped ones and those finished before a resume) to
    ``cc:done``, in one atomic write (``mark_done``). Refused unless Phase C is the recorded
    phase of this session (``gateway breezing phase C``): seed 000 updates Plans.md only at
    completion, never while the team works. Raises ``PlansError``."""
    from gateway.state import fast, files, store

    from .sections import completion_sections

    project = os.fspath(project_dir)
    try:
        phase = fast.effective_phase(project)
        active = files.load_active(project)
    except store.StateError as e:
        raise PlansError(f"the breezing state cannot be read: {e}") from None
    if active is None:
        raise PlansError("no breezing session (.claude/state/breezing-active.json is absent): "
                         "nothing to complete")
    if phase is None or phase.phase != "C":
        now = f"phase {phase.phase} is recorded" if phase else "no phase is recorded"
        raise PlansError(f"Plans.md is updated only at Phase C and {now}: finish the review "
                         f"(APPROVE), then record `gateway breezing phase C`")
    path = plans_path or os.path.join(project, "Plans.md")
    return mark_done(path, completion_sections(active),
                     lock_dir=os.path.join(project, ".claude", "state"))
