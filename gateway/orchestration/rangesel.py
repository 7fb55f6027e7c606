"""Which Plans.md tasks a /breezing run takes: the range the user named (seed 001 範囲確認).

================================  =========================================================
``認証機能からユーザー管理まで``   from the first task matching 「認証」 through the last one
                                  matching 「ユーザー管理」 (``between``)
``ログイン機能を終わらせて``       every task matching 「ログイン」 (``keywords``)
``Header, Footer, Sidebar``       every task matching one of the keywords (``keywords``)
``全部やって``                     every unfinished task (``all``)
``続きやって``                     resume the recorded session (``resume``: gateway resume)
================================  =========================================================

How the text is read: a trailing request (``完了して``, ``を終わらせて``, ``やって``, ...) is
dropped, then ``AからBまで`` (also ``A〜B``, ``A..B``; ``Aから`` to the end, ``Bまで`` from the
start) or a list split on ``,`` / ``、``; each keyword loses a trailing ``機能`` (「ログイン機能」
→ 「ログイン」, as the seed's table reads it) and surrounding quotes.

How a task matches a keyword: the keyword (case-insensitive) is in the task's title or in a
heading the task sits under (``## Phase 4: 認証機能``); a keyword that is a section number
(``4.1``, ``4``, ``T002``) matches that section and the sections below it. Only unfinished
tasks (``cc:TODO``, ``cc:WIP``) with a section number are taken; done, blocked and unnumbered
tasks in the range are reported as notes, never silently dropped.
"""

from __future__ import annotations

import re

from . import plans as _plans

__all__ = ["RangeError", "RangeSpec", "Selection", "parse_range", "select", "matches",
           "normalise_keyword", "ALL_WORDS", "RESUME_WORDS"]

ALL_WORDS = ("全部", "全て", "すべて", "全部やって", "全部やる", "全タスク", "all", "all tasks",
             "everything", "do all", "do everything", "all of them")
RESUME_WORDS = ("続き", "続きやって", "続きをやって", "続きから", "再開", "再開して", "resume",
                "continue", "carry on", "continue where we left off", "pick up where we left off")
#: English ranges: "A through B", "from A through B", "from A to B", "from A", "up to B"
_EN_FROM_TO = re.compile(r"^from\s+(.+?)\s+(?:through|thru|to|until)\s+(.+)$", re.I)
_EN_THROUGH = re.compile(r"^(.+?)\s+(?:through|thru)\s+(.+)$", re.I)
_EN_FROM = re.compile(r"^(?:from|starting (?:at|with))\s+(.+)$", re.I)
_EN_UNTIL = re.compile(r"^(?:up\s+to|until|through|thru)\s+(.+)$", re.I)
_EN_REQUEST = re.compile(r"^(?:please\s+)?(?:do|finish|complete|implement|work\s+on)\s+(.+?)"
                         r"(?:\s*,?\s*please)?\s*[.!]*$", re.I)
_REQUEST = re.compile(
    r"(?:を|の)?\s*(?:完了させて|完了して|終わらせて|片付けて|実装して|やって|進めて|"
    r"お願い(?:します)?|完走して)(?:ください|下さい)?\s*[。.!！]*\s*$")
_BETWEEN = re.compile(r"^(.*?)\s*(?:から|〜|～|~|\.\.)\s*(.*?)\s*(?:まで)?$")
_UNTIL = re.compile(r"^(.+?)\s*まで$")
_LIST = re.compile(r"\s*[,、，]\s*")
_SECTION_KW = re.compile(r"(?:\d+(?:\.\d+)*[a-z]?|T\d+)", re.IGNORECASE)
_QUOTES = "「」『』\"'“”‘’`"
MAX_RANGE = 4096


class RangeError(ValueError):
    """The range cannot be used. ``code`` for machines: ``empty``, ``no_match``,
    ``reversed``, ``nothing_left``."""

    def __init__(self, code: str, message: str):
        self.code = code
        super().__init__(message)


class RangeSpec:
    """``kind``: all | resume | between | keywords. ``start``/``end`` (between; either may be
    None: from the first / to the last task), ``keywords`` (keywords), ``text`` as given."""

    __slots__ = ("kind", "text", "start", "end", "keywords")

    def __init__(self, kind, text, start=None, end=None, keywords=()):
        self.kind, self.text, self.start, self.end = kind, text, start, end
        self.keywords: tuple[str, ...] = tuple(keywords)

    def as_dict(self) -> dict:
        return {"kind": self.kind, "text": self.text, "start": self.start, "end": self.end,
                "keywords": list(self.keywords)}

    def describe(self, env=None) -> str:
        """How the range was understood, in the seed table's words (English outside a
        Japanese locale, gateway.i18n)."""
        from gateway.i18n import is_ja

        if not is_ja(env):
            if self.kind == "all":
                return "every unfinished task of Plans.md"
            if self.kind == "resume":
                return "the unfinished tasks recorded in breezing-active.json (resumed)"
            if self.kind == "between":
                a = f'"{self.start}"' if self.start else "the first task"
                b = f'"{self.end}"' if self.end else "the last task"
                return f"the tasks from {a} through {b}"
            if len(self.keywords) == 1:
                return f'every task matching "{self.keywords[0]}"'
            return "the tasks matching one of " + ", ".join(f'"{k}"' for k in self.keywords)
        if self.kind == "all":
            return "Plans.md の全未完了タスク"
        if self.kind == "resume":
            return "breezing-active.json から未完了タスクを復元"
        if self.kind == "between":
            a = f"「{self.start}」" if self.start else "最初のタスク"
            b = f"「{self.end}」" if self.end else "最後のタスク"
            return f"{a}〜{b}を含むタスク"
        if len(self.keywords) == 1:
            return f"「{self.keywords[0]}」を含む全タスク"
        return "列挙されたキーワード (" + ", ".join(f"「{k}」" for k in self.keywords) + \
            ") を含むタスク"


def normalise_keyword(word: str) -> str:
    w = word.strip().strip(_QUOTES).strip()
    w = re.sub(r"\s*(?:を|の)$", "", w)
    if w.endswith("機能") and len(w) > 2:
        w = w[:-2]
    return w.strip()


def parse_range(text: str) -> RangeSpec:
    """Read the user's range text (see the module docstring). Raises ``RangeError``."""
    if not isinstance(text, str) or not text.strip():
        raise RangeError("empty", "the range is empty: name the tasks (「認証機能からユーザー管理"
                                  "まで」, a keyword, a comma list), 全部やって or 続きやって")
    if len(text) > MAX_RANGE:
        raise RangeError("empty", f"the range is longer than {MAX_RANGE} characters")
    raw = " ".join(text.split())
    bare = raw.strip().strip(_QUOTES)
    if bare.lower() in RESUME_WORDS or bare in RESUME_WORDS:
        return RangeSpec("resume", raw)
    core = _REQUEST.sub("", bare).strip() or bare
    m = _EN_REQUEST.match(core)
    if m:
        core = m.group(1).strip() or core
    if core.lower() in ALL_WORDS or bare.lower() in ALL_WORDS:
        return RangeSpec("all", raw)
    if core.lower() in RESUME_WORDS:
        return RangeSpec("resume", raw)
    if not _LIST.search(core):
        for rx, parts in ((_EN_FROM_TO, (1, 2)), (_EN_THROUGH, (1, 2)), (_EN_FROM, (1, None)),
                          (_EN_UNTIL, (None, 1))):
            m = rx.match(core)
            if m:
                a = normalise_keyword(m.group(parts[0])) if parts[0] else None
                b = normalise_keyword(m.group(parts[1])) if parts[1] else None
                if a or b:
                    return RangeSpec("between", raw, a or None, b or None)
    m = _BETWEEN.match(core)
    if m and (m.group(1) or m.group(2)) and not _LIST.search(core):
        a, b = normalise_keyword(m.group(1)), normalise_keyword(m.group(2))
        if a or b:
            return RangeSpec("between", raw, a or None, b or None)
    m = _UNTIL.match(core)
    if m and not _LIST.search(core):
        b = normalise_keyword(m.group(1))
        if b:
            return RangeSpec("between", raw, None, b)
    words = [normalise_keyword(w) for w in _LIST.split(core)]
    words = [w for w in dict.fromkeys(words) if w]
    if not words:
        raise RangeError("empty", f"no keyword in the range 「{raw[:80]}」")
    return RangeSpec("keywords", raw, keywords=words)


def matches(task: _plans.PlanTask, keyword: str) -> bool:
    """Whether ``task`` matches ``keyword`` (see the module docstring)."""
    if _SECTION_KW.fullmatch(keyword) and task.section is not None:
        s, k = task.section.casefold(), keyword.casefold()
        if s == k or s.startswith(k + "."):
            return True
    k = keyword.casefold()
    return any(k in part.casefold() for part in (task.title, *task.parents))


class Selection:
    """``tasks``: the unfinished, mappable tasks in plan order; ``notes``: [(code, message)]
    about tasks of the range that are not taken; ``spec``: the RangeSpec."""

    __slots__ = ("spec", "tasks", "notes")

    def __init__(self, spec, tasks, notes):
        self.spec, self.tasks, self.notes = spec, tasks, notes

    def as_dict(self) -> dict:
        return {"range": self.spec.as_dict(), "understood_as": self.spec.describe(),
                "tasks": [t.as_dict() for t in self.tasks],
                "notes": [{"code": c, "message": m} for c, m in self.notes]}


def _label(t: _plans.PlanTask) -> str:
    return f"{t.section or '(番号なし)'} {t.title[:60]}"


def select(plans: _plans.Plans, spec: RangeSpec) -> Selection:
    """The tasks of the range (not for ``resume``). Raises ``RangeError`` when nothing
    matches a keyword, the range runs backwards, or no unfinished task is left."""
    if spec.kind == "resume":
        raise ValueError("a resume range is not a selection: use gateway resume")
    tasks = plans.tasks
    missing: list[str] = []
    if spec.kind == "all":
        picked = list(tasks)
    elif spec.kind == "between":
        first = 0
        last = len(tasks) - 1
        if spec.start:
            hits = [i for i, t in enumerate(tasks) if matches(t, spec.start)]
            if not hits:
                raise RangeError("no_match", f"no task in Plans.md matches 「{spec.start}」 (the "
                                             f"start of the range)")
            first = hits[0]
        if spec.end:
            hits = [i for i, t in enumerate(tasks) if matches(t, spec.end)]
            if not hits:
                raise RangeError("no_match", f"no task in Plans.md matches 「{spec.end}」 (the "
                                             f"end of the range)")
            after = [i for i in hits if i >= first]
            if not after:
                raise RangeError("reversed", f"every task matching 「{spec.end}」 comes before "
                                             f"the first task matching 「{spec.start}」 in "
                                             f"Plans.md: swap them")
            last = after[-1]
        picked = tasks[first:last + 1]
    else:
        missing = [k for k in spec.keywords if not any(matches(t, k) for t in tasks)]
        if len(missing) == len(spec.keywords):
            raise RangeError("no_match", "no task in Plans.md matches "
                                         + ", ".join(f"「{k}」" for k in missing)
                                         + ": name a task's title words or section number")
        picked = [t for t in tasks if any(matches(t, k) for k in spec.keywords)]
    notes: list[tuple[str, str]] = []
    if spec.kind == "keywords" and missing:
        # a list (Header, Footer, Sidebar) takes what it names; a name without a task is said
        notes.append(("no_match", "no task in Plans.md matches "
                                  + ", ".join(f"「{k}」" for k in missing)
                                  + ": the other names are taken"))
    out = []
    done = [t for t in picked if t.done]
    for t in picked:
        if t.done:
            continue
        if t.status == "blocked":
            notes.append(("blocked", f"{_label(t)} is marked blocked: not taken"))
        elif t.section is None:
            notes.append(("unnumbered", f"{_label(t)} has no section number, so it cannot be "
                                        f"mapped to a task (plans_md_mapping): not taken; "
                                        f"give it a number in Plans.md"))
        else:
            out.append(t)
    dup = [s for s in dict.fromkeys(t.section for t in out) if len(plans.sections(s)) > 1]
    if dup:
        raise RangeError("ambiguous", "more than one task in Plans.md has the section number "
                         + ", ".join(dup) + ": the mapping to tasks would be ambiguous; "
                                             "renumber them")
    if done:
        notes.append(("done", f"{len(done)} task(s) of the range are already cc:done: not "
                              f"taken"))
    if not out:
        raise RangeError("nothing_left", f"no unfinished task in the range "
                                         f"({spec.describe()}): nothing to do")
    return Selection(spec, out, notes)
