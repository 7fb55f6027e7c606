"""The team's other stores, for ``gateway state validate | show | repair``: the workflow state
of seed 002 (``.claude/state/gateway-workflow.sqlite3``) and the orchestrator store of seed 003
(``agent-coord/``), and the unreadable lines of the two JSONL logs.

* **validate** opens the SQLite file with the workflow's own reader (a file that is not a
  database, a foreign schema, a link are reported with the reader's sentence) and reads every
  entity of ``agent-coord/`` as ``gateway orch status`` does (a link, a file that cannot be
  read, each named).
* **repair** sets aside what only the gateway writes and cannot be used, keeping it as
  evidence: an unusable workflow database is renamed to
  ``gateway-workflow.sqlite3.unusable-<time>`` (the next PreCompact hook writes a new one;
  only the saved position is lost, the specs are untouched), and the unreadable lines of
  ``breezing-signals.jsonl`` / ``breezing-timeline.jsonl`` (torn writes) are moved, byte for
  byte, to ``<name>.unreadable`` next to it, so that the rest is intact and readable. The
  orchestrator store is only reported: its files are each session's record, and a stale claim
  is recovered by the store itself after its lease.

The imports of the orchestration package are made inside the functions: this module is used
by the CLI only, never on the hook path.
"""

from __future__ import annotations

import os
import time

from . import store
from .layout import SIGNALS, TIMELINE, StateLayout

WORKFLOW_DB = "gateway-workflow.sqlite3"
COORD_DIR = "agent-coord"
SET_ASIDE = ".unreadable"


def _stamp() -> str:
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())


def check_workflow(lay: StateLayout) -> tuple[bool, str] | None:
    """``(ok, message)`` for the workflow database, or None when there is none."""
    path = lay.path(WORKFLOW_DB)
    if not os.path.lexists(path):
        return None
    from gateway.orchestration import workflow

    try:
        with workflow.WorkflowStore(path) as st:
            rows = st.all()
    except store.StateError as e:
        return False, str(e)
    return True, f"{len(rows)} saved spec position(s)" + (
        f", latest {rows[0].spec_id} task {rows[0].current_task_number} "
        f"({rows[0].next_action})" if rows else "")


COORD_SUBDIRS = ("planner-sessions", "tasks", "runs")


def coord_temp_files(project_dir) -> list[str]:
    """Temp files of writers of ``agent-coord/`` that died (``temps.stale_files``); nothing
    when the store is absent or not a real directory (``check_coord`` reports that)."""
    from . import anchors, temps

    out = []
    try:
        if not anchors.check_coord_dir(os.fspath(project_dir)):
            return []
    except store.StateError:
        return []
    for sub in COORD_SUBDIRS:
        d = os.path.join(os.fspath(project_dir), COORD_DIR, sub)
        if os.path.isdir(d) and not os.path.islink(d):
            out.extend(temps.stale_files(d))
    return out


def sweep_coord(project_dir) -> list[str]:
    """Remove them (``temps.sweep``: each under its entity's lock); the removed paths."""
    from . import temps

    out = []
    for path in coord_temp_files(project_dir):
        d, name = os.path.split(path)
        parsed = temps.parse(name)
        if parsed is not None:
            out.extend(temps.sweep(d, only=parsed[0]))
    return sorted(set(out))


def check_coord(project_dir) -> tuple[bool, str] | None:
    """``(ok, message)`` for ``agent-coord/``, or None when there is none."""
    from . import anchors

    base = os.path.join(os.fspath(project_dir), COORD_DIR)
    if not os.path.lexists(base):
        return None
    try:
        anchors.check_coord_dir(os.fspath(project_dir))
    except store.StateError as e:
        return False, str(e)
    from gateway.orchestration import coord, orchview

    try:
        view = orchview.overview(project_dir)
    except (coord.CoordError, store.StateError) as e:
        return False, f"orchestrator store {base}: {e}"
    counts = f"{len(view['sessions'])} session(s), {sum(view['task_counts'].values())} " \
             f"task(s), {sum(view['runs'].values())} run(s)"
    if view["problems"]:
        shown = "; ".join(view["problems"][:5])
        more = f" (and {len(view['problems']) - 5} more)" if len(view["problems"]) > 5 else ""
        return False, (f"orchestrator store {base}: {len(view['problems'])} file(s) cannot be "
                       f"read: {shown}{more} ({counts} readable). To repair: look at each "
                       f"file named (`gateway orch status` lists them); the orchestrator "
                       f"writes them, so restore it from your backup or remove the session's "
                       f"files by hand")
    return True, counts


def set_aside_workflow(lay: StateLayout) -> str | None:
    """Rename an unusable workflow database aside; its new path, or None (usable or absent).
    Raises ``StateError`` when it cannot be renamed."""
    res = check_workflow(lay)
    if res is None or res[0]:
        return None
    path = lay.path(WORKFLOW_DB)
    if os.path.isdir(path) and not os.path.islink(path):
        raise store.StateUnsafe(path, "is a directory", f"look at what {path} holds and "
                                f"remove the directory by hand")
    new = f"{path}.unusable-{_stamp()}"
    with store.FileLock(path):
        try:
            os.rename(path, new)
        except OSError as e:
            raise store.StateError(path, f"cannot be renamed: {e.strerror}",
                                   f"check the permissions of {lay.dir}") from None
        for x in ("-journal", "-wal", "-shm"):
            if os.path.lexists(path + x):
                try:
                    os.rename(path + x, new + x)
                except OSError:
                    pass
    return new


def set_aside_bad_lines(lay: StateLayout, name: str) -> tuple[str, int] | None:
    """Move the unreadable lines of a JSONL log to ``<name>.unreadable`` (appended, byte for
    byte) and rewrite the log without them, atomically, under its lock. ``(aside path,
    number of lines)``, or None when every line is readable."""
    path = lay.path(name)
    if not os.path.lexists(path):
        return None
    aside = path + SET_ASIDE
    with store.FileLock(path):
        res = store.read_jsonl(path, lock=False)
        if not res.errors:
            return None
        bad = {e.lineno for e in res.errors}
        raw = store.read_bytes(path, store.MAX_JSONL_BYTES).split(b"\n")
        keep, moved = [], []
        for i, line in enumerate(raw, 1):
            if not line.strip():
                continue
            (moved if i in bad else keep).append(line + b"\n")
        try:
            before = store.read_bytes(aside, store.MAX_JSONL_BYTES)
        except store.StateMissing:
            before = b""
        if before and not before.endswith(b"\n"):
            before += b"\n"
        store.atomic_write_bytes(aside, before + b"".join(moved))
        store.atomic_write_bytes(path, b"".join(keep))
    return aside, len(moved)


JSONL_LOGS = (SIGNALS, TIMELINE)
