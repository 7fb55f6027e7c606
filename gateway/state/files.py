"""Typed load/save of the breezing state files (pydantic), and ``clean``/``validate``/``show``.

For the CLI (``gateway state …``) and the orchestration code. The PreToolUse guards use the
stdlib-only ``gateway.state.fast`` instead (pydantic stays off the hook path); both apply the same
rules. File names and the cleanup lists are in ``gateway.state.layout``.

Loading: a missing file gives ``None`` (or an empty ``SessionRoles``); anything else that is wrong
raises a ``StateError`` subclass whose message names the file, the problem and the repair -- never a
default. Schema mismatches raise ``StateInvalid`` (a ``StateCorrupt``).

Cleaning (``clean``):

* default -- seed 000's 手動クリーンアップ list plus the gateway's own phase record and writers'
  leftovers: ``breezing-active.json``, ``breezing-session-roles.json``, ``breezing-role-*.json``,
  ``gateway-breezing-phase.json`` (a stale Phase B would keep the Lead locked into the delegate
  tools after the session is gone), and temp files of dead writers (``.*.tmp-<pid>-*``).
* ``all=True`` -- additionally ``breezing-signals.jsonl``, ``breezing-timeline.jsonl`` and
  ``review-result.json`` (everything the breezing workflow leaves in the state directory).

Lock files (``.<name>.lock``) are never removed (removing flock files races with waiters) --
except, by ``gateway state repair``, one that is not a regular file (nobody can hold it); other
files in ``.claude/state/`` (other tools' state) are never touched. Removal works by name inside
the state directory opened without following links (``gateway.state.cleanup``): a link is
removed as a link, nothing outside the project is ever deleted. Every function here first asks
``layout.check_state_dir`` -- the guards' check -- so a linked or misplaced state directory is
an error, never "no state", and nothing is read or written through it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import Generic, NamedTuple, TypeVar

from pydantic import BaseModel, ValidationError

from . import fast, store
from .layout import (  # noqa: F401
    ACTIVE,
    CLEAN_ALL,
    CLEAN_DEFAULT,
    EARLY_ABORT_FILES,
    PHASE,
    PHASE_C_FILES,
    REVIEW_RESULT,
    ROLE_MARKER_GLOB,
    SESSION_ROLES,
    SIGNALS,
    TIMELINE,
    TIMELINE_KEEP_LINES,
    TIMELINE_MAX_LINES,
    StateLayout,
    check_state_dir,
    is_role_marker_name,
    layout,
    repair_hint,
)
from .models import (
    BreezingActive,
    BreezingPhase,
    ReviewResult,
    RoleMarker,
    SessionRoles,
    SignalRecord,
    TimelineEvent,
    parse_event,
    parse_signal,
)
from .statedir import prepare_state_dir
from .store import (
    DELETE,
    JsonlLineError,
    StateCorrupt,
    StateError,
    StateInvalid,
    StateMissing,
    safe_text,
)

M = TypeVar("M")


# --------------------------------------------------------------------------------------------
# Validation helpers
# --------------------------------------------------------------------------------------------

def _describe(err: ValidationError, limit: int = 5) -> str:
    parts = []
    for e in err.errors(include_url=False, include_input=False)[:limit]:
        loc = ".".join(safe_text(x, 60) for x in e.get("loc", ())) or "(top level)"
        parts.append(f"{loc}: {e.get('msg', 'invalid')}")
    more = err.error_count() - limit
    if more > 0:
        parts.append(f"and {more} more")
    return "; ".join(parts)


def _validate(model: type[M], data, path, kind: str) -> M:
    try:
        return model.model_validate(data)
    except ValidationError as e:
        raise StateInvalid(path, f"does not match the {kind} schema: {_describe(e)}",
                           repair_hint(kind, path)) from None


def _present(project_dir) -> StateLayout | None:
    """The layout when the project has a state directory, None when it has none; raises
    StateError when something else is there (the guards' check, ``check_state_dir``)."""
    lay = layout(project_dir)
    return lay if check_state_dir(lay.project_dir) else None


def _prepared(project_dir) -> StateLayout:
    """The layout, with its state directory created if absent (never through a link)."""
    lay = layout(project_dir)
    prepare_state_dir(lay.project_dir)
    return lay


def _load(lay: StateLayout, path: str, model: type[M], kind: str) -> M | None:
    if _present(lay) is None:
        return None
    try:
        data = store.read_json(path, repair=repair_hint(kind, path))
    except StateMissing:
        return None
    return _validate(model, data, path, kind)


def _dump(model: BaseModel) -> dict:
    return model.model_dump(mode="json", exclude_none=True)


def _update(path: str, model: type[M], kind: str, fn: Callable[[M | None], M | None],
            timeout: float) -> M | None:
    result: list = [None]

    def apply(current):
        missing = current is _ABSENT
        cur = None if missing else _validate(model, current, path, kind)
        new = fn(cur)
        result[0] = new
        if new is None:
            if missing:         # absent and still absent: nothing to write
                raise _NoWrite
            return DELETE
        return _dump(new)

    try:
        store.update_json(path, apply, default=_ABSENT, timeout=timeout)
    except _NoWrite:
        pass
    return result[0]


class _NoWrite(Exception):
    pass


_ABSENT = object()


# --------------------------------------------------------------------------------------------
# breezing-active.json
# --------------------------------------------------------------------------------------------

def load_active(project_dir) -> BreezingActive | None:
    """The v2 metadata, or None when no breezing session is recorded. A v1 file is converted
    (see ``BreezingActive.migrated_from``); it is not rewritten on disk by loading."""
    lay = layout(project_dir)
    return _load(lay, lay.active, BreezingActive, ACTIVE)


def save_active(project_dir, active: BreezingActive) -> None:
    _write(_prepared(project_dir).active, _dump(active))


def update_active(project_dir, fn: Callable[[BreezingActive | None], BreezingActive | None], *,
                  timeout: float = store.DEFAULT_LOCK_TIMEOUT) -> BreezingActive | None:
    """Read-modify-write under the lock. ``fn`` gets the current model (None if absent) and
    returns the new one (None deletes the file). Returns what ``fn`` returned."""
    return _update(_prepared(project_dir).active, BreezingActive, ACTIVE, fn, timeout)


def delete_active(project_dir) -> bool:
    lay = _present(project_dir)
    return store.delete_file(lay.active) if lay else False


# --------------------------------------------------------------------------------------------
# Roles
# --------------------------------------------------------------------------------------------

def load_session_roles(project_dir) -> SessionRoles:
    """The registrations; an empty ``SessionRoles`` when the file is absent."""
    lay = layout(project_dir)
    roles = _load(lay, lay.session_roles, SessionRoles, SESSION_ROLES)
    return roles if roles is not None else SessionRoles({})


def update_session_roles(project_dir, fn: Callable[[SessionRoles], SessionRoles | None], *,
                         timeout: float = store.DEFAULT_LOCK_TIMEOUT) -> SessionRoles:
    """Atomic read-modify-write of the registrations. ``fn`` gets the current ``SessionRoles``
    (empty if absent) and returns the new one, or None to keep what it mutated in place. Do the
    no-escalation check *inside* ``fn`` so check and write are one critical section. Raise from
    ``fn`` to abort without writing. The result is re-validated before it is written."""
    lay = _prepared(project_dir)

    def apply(current):
        cur = _validate(SessionRoles, current, lay.session_roles, SESSION_ROLES)
        new = fn(cur)
        new = cur if new is None else new
        new = _validate(SessionRoles, new.model_dump(mode="json"), lay.session_roles,
                        SESSION_ROLES)
        out[0] = new
        return _dump(new)

    out: list = [None]
    store.update_json(lay.session_roles, apply, default={})
    return out[0]


def parse_role_marker(content: str | bytes, source) -> RoleMarker:
    """Parse a role marker's content (e.g. a Write's ``tool_input.content``) strictly.
    ``source`` names it in errors (the target path). Raises StateCorrupt/StateInvalid."""
    raw = content.encode("utf-8", "surrogatepass") if isinstance(content, str) else content
    if len(raw) > 64 << 10:
        raise store.StateTooLarge(source, f"role marker content is {len(raw)} bytes (limit 65536)",
                                  repair_hint(ROLE_MARKER_GLOB, source))
    data = store.loads_strict(raw, source=source, repair=repair_hint(ROLE_MARKER_GLOB, source))
    return _validate(RoleMarker, data, source, ROLE_MARKER_GLOB)


def load_role_marker(path) -> RoleMarker:
    """Read one marker file. Raises StateMissing/StateCorrupt/StateInvalid/StateUnsafe."""
    data = store.read_json(path, max_bytes=64 << 10, repair=repair_hint(ROLE_MARKER_GLOB, path))
    return _validate(RoleMarker, data, path, ROLE_MARKER_GLOB)


def load_role_markers(project_dir) -> dict[str, RoleMarker | StateError]:
    """Every ``breezing-role-*.json``, each parsed or with the error that prevented it."""
    out: dict[str, RoleMarker | StateError] = {}
    lay = _present(project_dir)
    for p in lay.role_markers() if lay else ():
        try:
            out[p] = load_role_marker(p)
        except StateError as e:
            out[p] = e
    return out


# --------------------------------------------------------------------------------------------
# review-result.json, gateway phase
# --------------------------------------------------------------------------------------------

def load_review_result(project_dir) -> ReviewResult | None:
    lay = layout(project_dir)
    return _load(lay, lay.review_result, ReviewResult, REVIEW_RESULT)


def save_review_result(project_dir, result: ReviewResult) -> None:
    _write(_prepared(project_dir).review_result, _dump(result))


def load_phase(project_dir) -> BreezingPhase | None:
    """The phase the gateway recorded, or None (no breezing phase recorded)."""
    lay = layout(project_dir)
    return _load(lay, lay.phase, BreezingPhase, PHASE)


def set_phase(project_dir, phase: str, session_id: str | None = None) -> BreezingPhase:
    """Record the phase (``session_id`` defaults to breezing-active.json's session id)."""
    view = fast.set_phase(project_dir, phase, session_id)
    return BreezingPhase(**view._asdict())


def clear_phase(project_dir) -> bool:
    return fast.clear_phase(project_dir)


def _write(path: str, data: dict) -> None:
    """Atomic write under the file's lock (so it serialises with updates and deletes)."""
    with store.FileLock(path):
        store.atomic_write_json(path, data)


# --------------------------------------------------------------------------------------------
# JSONL: signals and timeline
# --------------------------------------------------------------------------------------------

class Parsed(Generic[M]):
    """Typed JSONL read: ``records`` (models), ``lines`` (their line numbers), ``errors``
    (``JsonlLineError``: unreadable lines *and* lines that fail their schema)."""

    __slots__ = ("path", "records", "lines", "errors", "missing")

    def __init__(self, path: str, records: list[M], lines: list[int],
                 errors: list[JsonlLineError], missing: bool):
        self.path, self.records, self.lines, self.errors, self.missing = (
            path, records, lines, errors, missing)

    @property
    def ok(self) -> bool:
        return not self.errors

    def raise_for_errors(self) -> Parsed[M]:
        raw = store.JsonlRead(self.path, errors=self.errors)
        raw.raise_for_errors()
        return self


def _read_typed(lay: StateLayout, path: str, parse: Callable, kind: str) -> Parsed:
    if _present(lay) is None:
        return Parsed(os.fspath(path), [], [], [], True)
    raw = store.read_jsonl(path)
    records, lines, errors = [], [], list(raw.errors)
    for lineno, obj in zip(raw.lines, raw.records, strict=True):
        try:
            records.append(parse(obj))
            lines.append(lineno)
        except ValidationError as e:
            errors.append(JsonlLineError(lineno, f"does not match the {kind} schema: "
                                                 f"{_describe(e, 3)}", ""))
        except ValueError as e:
            errors.append(JsonlLineError(lineno, str(e), ""))
    errors.sort(key=lambda e: e.lineno)
    return Parsed(os.fspath(path), records, lines, errors, raw.missing)


def _as_record(rec, parse: Callable) -> dict:
    """A model or a dict → the dict to append. Dicts are validated first (so counts given as
    strings are written as ints); unknown types are appended as given."""
    if not isinstance(rec, BaseModel):
        rec = parse(dict(rec))
    if rec.known is False:
        return dict(rec.data)
    return rec.model_dump(mode="json", exclude_none=True)


def append_signal(project_dir, record: SignalRecord | dict) -> None:
    """Append one signal (validated first; counts are written as ints)."""
    data = _as_record(record, parse_signal)
    store.append_jsonl(_prepared(project_dir).signals, data)


def read_signals(project_dir) -> Parsed[SignalRecord]:
    lay = layout(project_dir)
    return _read_typed(lay, lay.signals, parse_signal, "signal")


def append_timeline(project_dir, event: TimelineEvent | dict) -> None:
    """Append one timeline event; rotates (>500 lines → last 400) in the same lock."""
    data = _as_record(event, parse_event)
    store.append_jsonl(_prepared(project_dir).timeline, data,
                       max_lines=TIMELINE_MAX_LINES, keep_lines=TIMELINE_KEEP_LINES)


def read_timeline(project_dir) -> Parsed[TimelineEvent]:
    lay = layout(project_dir)
    return _read_typed(lay, lay.timeline, parse_event, "timeline")


# --------------------------------------------------------------------------------------------
# clean / validate / show
# --------------------------------------------------------------------------------------------

def remove_files(project_dir, names: Iterable[str]) -> list[str]:
    """Remove the named state files (globs allowed), each under its lock, by name inside the
    state directory opened without following links (``gateway.state.cleanup``): a link is
    removed as a link, nothing outside the project is touched. A directory in the place of a
    file raises ``StateUnsafe`` after everything else was removed. Returns the removed paths."""
    from . import cleanup

    res = cleanup.remove(project_dir, tuple(names))
    if res.problems:
        raise res.problems[0]
    return res.paths


def clean(project_dir, all: bool = False) -> list[str]:   # noqa: A002 - mirrors `--all`
    """``gateway state clean [--all]`` -- see the module docstring for exactly what goes.
    Raises like ``remove_files``."""
    from . import cleanup

    res = cleanup.clean(project_dir, all=all)
    if res.problems:
        raise res.problems[0]
    return res.paths


def repair(project_dir):
    """``gateway state repair`` (gateway.state.cleanup.repair), with the full checks of the
    session roles and phase files: one of them that does not load is removed."""
    from . import cleanup

    return cleanup.repair(project_dir, ((SESSION_ROLES, load_session_roles),
                                        (PHASE, load_phase)))


class CheckResult(NamedTuple):
    file: str          # path relative to the project dir
    ok: bool
    message: str       # "ok: …" summary, or the complete error message


def _rel(lay: StateLayout, p) -> str:
    try:
        return os.path.relpath(p, lay.project_dir)
    except ValueError:
        return os.fspath(p)


def validate(project_dir) -> list[CheckResult]:
    """Check every breezing state file that exists (absent ones are reported ok), and
    everything else that makes the PreToolUse guards deny (GW890): the state directory itself
    (a link, a file, no permission), lock files that are not regular files, a directory the
    gateway cannot write. Every problem comes with its repair."""
    from . import cleanup

    lay = layout(project_dir)
    out: list[CheckResult] = []
    try:
        sd = cleanup.StateDir(lay)
    except StateError as e:
        return [CheckResult(_rel(lay, lay.dir), False, str(e))]
    with sd:
        names = None
        try:
            names = sd.names()
        except StateError as e:
            out.append(CheckResult(_rel(lay, lay.dir), False, str(e)))
        access = cleanup.check_dir_access(sd)
        if access is not None and names is not None:
            out.append(CheckResult(_rel(lay, lay.dir), False, str(access)))
        _check_files(lay, out, names)
        for name in cleanup.lock_names(names or ()):
            problem = cleanup.check_lock(sd, name)
            if problem is not None:
                out.append(CheckResult(_rel(lay, sd.full(name)), False, str(problem)))
        for name in sd.stale_temp_files() if names is not None else ():
            tmp = sd.full(name)
            out.append(CheckResult(_rel(lay, tmp), False,
                                   f"state file {tmp}: temp file left by a writer that died. "
                                   f"To repair: {repair_hint('temp', tmp)}"))
    _check_stores(lay, out)
    from .stores import coord_temp_files

    for tmp in coord_temp_files(lay.project_dir):
        out.append(CheckResult(_rel(lay, tmp), False,
                               f"orchestrator store {tmp}: temp file left by a writer that "
                               f"died. To repair: {repair_hint('coord-temp', tmp)}"))
    return out


def _check_stores(lay: StateLayout, out: list) -> None:
    """The workflow database and the orchestrator store (``gateway.state.stores``)."""
    from . import stores

    for where, check in ((lay.path(stores.WORKFLOW_DB), lambda: stores.check_workflow(lay)),
                         (os.path.join(lay.project_dir, stores.COORD_DIR),
                          lambda: stores.check_coord(lay.project_dir))):
        try:
            res = check()
        except StateError as e:
            res = (False, str(e))
        if res is not None:
            out.append(CheckResult(_rel(lay, where), res[0], res[1]))


def _check_files(lay: StateLayout, out: list, names) -> None:
    def check(p, fn, summary):
        try:
            val = fn()
        except StateError as e:
            out.append(CheckResult(_rel(lay, p), False, str(e)))
            return
        out.append(CheckResult(_rel(lay, p), True, summary(val)))

    # the files the guards read: first with the guards' own readers (gateway.state.fast), so
    # that whatever makes a hook deny (GW890) is reported with the very same sentence, then
    # with the full models (which check more)
    check(lay.active, lambda: (fast.load_active_view(lay), load_active(lay))[1], _summ_active)
    check(lay.session_roles, lambda: (fast.load_session_roles(lay), _load(
        lay, lay.session_roles, SessionRoles, SESSION_ROLES))[1],
          lambda v: "absent" if v is None else f"{len(v)} registration(s)")
    markers = [lay.path(n) for n in names or () if is_role_marker_name(n)]
    for p in markers:
        check(p, lambda p=p: load_role_marker(p), lambda m: f"role marker: {m.role}")
    check(lay.review_result, lambda: load_review_result(lay),
          lambda r: "absent" if r is None else f"verdict {r.verdict}")
    check(lay.phase, lambda: (fast.load_phase(lay), load_phase(lay))[1],
          lambda r: "absent" if r is None else f"phase {r.phase}")
    for p, reader, kind in ((lay.signals, read_signals, "signal"),
                            (lay.timeline, read_timeline, "event")):
        def jl(reader=reader, p=p):
            res = reader(lay)
            if res.errors:
                raise StateCorrupt(p, f"has {len(res.errors)} bad line(s): " + "; ".join(
                    str(e) for e in res.errors[:10]), repair_hint(SIGNALS, p))
            return res
        check(p, jl, lambda r, kind=kind: "absent" if r.missing else
              f"{len(r.records)} {kind}(s)" + (
                  f", {sum(1 for x in r.records if not x.known)} of unknown type"
                  if any(not x.known for x in r.records) else ""))


def _summ_active(a: BreezingActive | None) -> str:
    if a is None:
        return "absent (no breezing session)"
    s = f"session {a.session_id}, impl_mode {a.impl_mode or 'standard (unset)'}"
    if a.migrated_from:
        s += f" (v1 file read as v2; dropped {', '.join(a.dropped_fields)})"
    return s


def show(project_dir) -> str:
    """A human summary of the breezing state. Never raises for a bad file: the error is shown.
    Text taken from the files is escaped (no terminal control sequences) and shortened."""
    lay = layout(project_dir)
    t = safe_text
    lines = [f"state directory: {lay.dir}"]
    try:
        present = check_state_dir(lay.project_dir)
    except StateError as e:
        return lines[0] + f"\n  ERROR {e}"
    if not present:
        return lines[0] + "\n  (does not exist: no state)"

    def safe(fn):
        try:
            return fn(), None
        except StateError as e:
            return None, e

    active, err = safe(lambda: load_active(lay))
    if err:
        lines.append(f"{ACTIVE}: ERROR {err}")
    elif active is None:
        lines.append(f"{ACTIVE}: absent (no breezing session)")
    else:
        lines.append(f"breezing session {t(active.session_id)}"
                     + (f" (team {t(active.team_name)})" if active.team_name else ""))
        lines.append(f"  impl_mode: {active.impl_mode or 'standard (unset)'}; started: "
                     f"{t(active.started_at or '?')}")
        if active.task_range:
            lines.append(f"  range: {t(active.task_range, 200)}")
        if active.plans_md_mapping:
            lines.append(f"  tasks: {len(active.plans_md_mapping)} mapped to Plans.md")
        if active.review:
            lines.append(f"  retakes: {active.review.retake_count}/{active.review.max_retakes}")
        b = active.batching
        if b and b.enabled:
            lines.append(f"  batching: batch {b.current_batch} of {len(b.batches)}, "
                         f"{b.total_tasks} tasks")
        if active.migrated_from:
            lines.append(f"  (v1 file; dropped {', '.join(active.dropped_fields)})")
    phase, err = safe(lambda: load_phase(lay))
    lines.append(f"gateway phase: ERROR {err}" if err else
                 f"gateway phase: {phase.phase} (since {t(phase.set_at)})" if phase else
                 "gateway phase: none recorded")
    roles, err = safe(lambda: load_session_roles(lay))
    if err:
        lines.append(f"session roles: ERROR {err}")
    else:
        lines.append(f"session roles: {len(roles)}")
        for k, v in sorted(roles.root.items()):
            owns = f" owns [{', '.join(t(g, 60) for g in v.owns[:10])}]" if v.owns else ""
            src = f" (from {t(v.marker, 60)})" if v.marker else ""
            lines.append(f"  {t(k, 40)}: {v.role}{owns}{src}")
    markers, err = safe(lambda: load_role_markers(lay))
    if err:
        lines.append(f"role markers: ERROR {err}")
    for p, m in (markers or {}).items():
        state = f"ERROR {m}" if isinstance(m, StateError) else m.role
        lines.append(f"role marker {t(os.path.basename(p))}: {state}")
    rr, err = safe(lambda: load_review_result(lay))
    if err:
        lines.append(f"{REVIEW_RESULT}: ERROR {err}")
    elif rr:
        lines.append(f"{REVIEW_RESULT}: {rr.verdict} grade {rr.grade or '-'} at "
                     f"{rr.commit_hash or '?'}")
    for name, reader in ((SIGNALS, read_signals), (TIMELINE, read_timeline)):
        res, err = safe(lambda reader=reader: reader(lay))
        if err:
            lines.append(f"{name}: ERROR {err}")
        elif not res.missing:
            extra = f", {len(res.errors)} bad line(s)" if res.errors else ""
            lines.append(f"{name}: {len(res.records)} record(s){extra}")
    from . import stores

    for label, check in (("workflow state (" + stores.WORKFLOW_DB + ")",
                          lambda: stores.check_workflow(lay)),
                         ("orchestrator store (" + stores.COORD_DIR + "/)",
                          lambda: stores.check_coord(lay.project_dir))):
        res, err = safe(check)
        if err or res is not None:
            lines.append(f"{label}: " + (f"ERROR {err}" if err else
                                         res[1] if res[0] else f"ERROR {res[1]}"))
    bad = [r for r in validate(lay) if not r.ok]
    if bad:
        lines.append(f"problems: {len(bad)} (`gateway state validate` lists each with its "
                     f"repair)")
    return "\n".join(lines)
