"""Spec task sync (seed 002 C案 + E案): when an Edit, MultiEdit or Write of a spec checks a task
(``- [ ]`` → ``- [x]``), the task's done step (the spec's ``task/done`` action: its issue goes
to Done) is recorded as due in ``workflow_state``, so it survives a compaction and the
SessionStart restore names it first; ``gateway spec done`` runs it through an issue tracker.

What counts as a flip: for Edit and MultiEdit, a task-list item that is unchecked in
``old_string`` and checked in ``new_string`` (matched by its title and issue); for Write, a
task unchecked in the file before (``tool_response.originalFile``) and checked after (a Write
that creates the file flips nothing). Each candidate is then confirmed against the spec as
it is on disk now: a task of its task-list section (an acceptance-criteria checkbox is not a
task), checked, with an ``(#issue)``, in a spec whose phase is implementation.

Only files directly in the project's spec directories (``.cc-craft-kit/specs/*.md``,
``specs/*.md``) are looked at; every other Write or Edit costs a path comparison. This module
is imported by the PostToolUse hook: it imports nothing heavy at module level (the SQLite
store only when a spec was edited).
"""

from __future__ import annotations

import os
import re

__all__ = ["spec_file", "flipped_titles", "detect", "record", "Synced"]

_ITEM = re.compile(r"^\s*[-*+]\s+\[( |x|X)\]\s+(.*?)\s*$")
_ISSUE = re.compile(r"\s*\(#(\d{1,9})\)\s*$")
SPEC_DIRS = (os.path.join(".cc-craft-kit", "specs"), "specs")
MAX_EDIT_TEXT = 2 << 20


def spec_file(project: str, file_path: str, cwd: str | None = None) -> str | None:
    """The absolute path when ``file_path`` is a spec file of ``project`` (directly in one of
    the spec directories, ``*.md``), else None. Symlinks are resolved for the comparison."""
    if not isinstance(file_path, str) or not file_path or "\x00" in file_path \
            or not file_path.endswith(".md") or len(file_path) > 4096:
        return None
    path = file_path if os.path.isabs(file_path) else os.path.join(cwd or project, file_path)
    path = os.path.normpath(path)
    parent = os.path.realpath(os.path.dirname(path))
    for d in SPEC_DIRS:
        if parent == os.path.realpath(os.path.join(project, d)):
            return path
    return None


def _items(text: str) -> dict[tuple[str, int | None], bool]:
    out: dict[tuple[str, int | None], bool] = {}
    for line in text.split("\n"):
        m = _ITEM.match(line)
        if not m:
            continue
        body = m.group(2)
        issue = _ISSUE.search(body)
        if issue:
            body = body[:issue.start()]
        out[(" ".join(body.split()), int(issue.group(1)) if issue else None)] = \
            m.group(1) != " "
    return out


def flipped_titles(before: str, after: str) -> list[tuple[str, int | None]]:
    """Items unchecked in ``before`` and checked in ``after`` (title, issue)."""
    old, new = _items(before), _items(after)
    return [k for k, checked in new.items() if checked and old.get(k) is False]


def _str(v) -> str | None:
    return v if isinstance(v, str) and len(v) <= MAX_EDIT_TEXT else None


def detect(tool: str, tool_input: dict, tool_response) -> list[tuple[str, int | None]]:
    """The candidate flips of one completed tool call (see the module docstring)."""
    if tool == "Edit":
        old, new = _str(tool_input.get("old_string")), _str(tool_input.get("new_string"))
        return flipped_titles(old, new) if old is not None and new is not None else []
    if tool == "MultiEdit":
        out = []
        edits = tool_input.get("edits")
        for e in edits[:1000] if isinstance(edits, list) else []:
            if isinstance(e, dict):
                old, new = _str(e.get("old_string")), _str(e.get("new_string"))
                if old is not None and new is not None:
                    out += [k for k in flipped_titles(old, new) if k not in out]
        return out
    if tool == "Write":
        before = tool_response.get("originalFile") if isinstance(tool_response, dict) else None
        after = _str(tool_input.get("content"))
        if _str(before) is None or after is None:
            return []
        return flipped_titles(before, after)
    return []


class Synced:
    """What ``record`` did: ``spec`` (the parsed spec), ``tasks`` recorded as due,
    ``problem`` (a sentence, or None), ``next_task`` (the first unchecked task, or None)."""

    __slots__ = ("spec", "tasks", "problem", "next_task")

    def __init__(self, spec=None, tasks=(), problem=None, next_task=None):
        self.spec, self.tasks, self.problem, self.next_task = spec, list(tasks), problem, \
            next_task


def record(project: str, path: str, candidates, session_id: str | None = None) -> Synced:
    """Confirm the candidates against the spec on disk and record their done steps as due.
    Never raises for a spec or store problem: it is returned in ``problem``."""
    from gateway.state import store

    from . import workflow

    try:
        spec = workflow.load_spec(path)
    except workflow.SpecError as e:
        return Synced(problem=f"the spec cannot be read: {e}")
    if not spec.implementing:
        return Synced(spec)
    wanted = set(candidates)
    hits = []
    for t in spec.tasks:
        key = (" ".join(t.title.split()), t.issue)
        if key in wanted and t.done and t.issue is not None:
            hits.append(t)
    if not hits:
        return Synced(spec)
    rel = os.path.relpath(path, project)
    try:
        with workflow.open_store(project) as st:
            st.record_checked(spec, [t.number for t in hits], rel, session_id)
    except (store.StateError, ValueError) as e:
        return Synced(spec, problem=f"the due done step could not be recorded: {e}")
    return Synced(spec, hits, None, spec.current())
