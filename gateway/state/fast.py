"""Hot-path views of the permission-bearing state, stdlib only (no pydantic: issue 5).

The PreToolUse guards call these; the CLI and orchestration use ``gateway.state.files`` (pydantic).
The checks here are the *same* rules as the pydantic models in ``gateway.state.models`` (a
hypothesis test in ``tests/state`` holds the two to agreement):

* ``session roles`` / ``role markers`` / ``gateway phase``: validated completely (extra keys are
  refused, exactly like the models' ``extra="forbid"``).
* ``breezing-active.json``: only what a guard decides on is validated -- it must be a JSON object,
  ``impl_mode`` must be absent/null/"standard"/"codex" and ``session_id``, when present, a non-empty
  string of at most 256 characters. Other fields are the Lead's metadata; ``gateway state validate``
  checks them with the full model. Whenever the full model accepts a file, this view agrees with it.

Every function raises a ``StateError`` subclass (``str(err)`` names the file, the problem and the
repair) for anything but a missing file; missing means "no state" (None / empty).
"""

from __future__ import annotations

from collections import namedtuple

from . import store
from .layout import (
    ACTIVE,
    PHASE,
    ROLE_MARKER_GLOB,
    SESSION_ROLES,
    check_state_dir,
    layout,
    repair_hint,
)
from .statedir import prepare_state_dir
from .store import StateInvalid, StateMissing

ROLES = ("lead", "implementer", "reviewer")
#: Privilege order for the no-self-escalation rule: a registered identity may only move down.
ROLE_RANK = {"reviewer": 0, "implementer": 1, "lead": 2}
PHASES = ("A", "B", "C")
IMPL_MODES = ("standard", "codex")

MAX_KEY = 256            # ids, names, timestamps
MAX_GLOB = 1024
MAX_OWNS = 256
MAX_ROLE_ENTRIES = 10_000
MAX_MARKER_BYTES = 64 << 10

TYPE_CHECKING = False  # not from `typing`: importing it (and `datetime`) costs a hook call ~4 ms
if TYPE_CHECKING:  # for the annotations only (they are not evaluated at run time)
    from collections.abc import Callable
    from datetime import datetime


# --------------------------------------------------------------------------------------------
# Timestamps
# --------------------------------------------------------------------------------------------

def now_iso() -> str:
    """UTC timestamp as the gateway writes it: ``2026-02-06T03:00:00Z``."""
    from datetime import UTC, datetime

    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_iso(ts) -> datetime | None:
    """Best-effort ISO-8601 parse (``Z`` accepted); naive values are taken as UTC. None if bad."""
    if not isinstance(ts, str):
        return None
    from datetime import UTC, datetime

    try:
        dt = datetime.fromisoformat(ts.strip().replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return None
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)


# --------------------------------------------------------------------------------------------
# Field checks (raise ValueError("<loc>: <problem>"))
# --------------------------------------------------------------------------------------------

def _str(v, loc: str, max_len: int, *, min_len: int = 0, optional: bool = False):
    if v is None and optional:
        return None
    if not isinstance(v, str):
        raise ValueError(f"{loc}: must be a string")
    if len(v) < min_len:
        raise ValueError(f"{loc}: must not be empty")
    if len(v) > max_len:
        raise ValueError(f"{loc}: longer than {max_len} characters")
    return v


def _keys(obj: dict, allowed: tuple, loc: str) -> None:
    for k in obj:
        if k not in allowed:
            where = f"{loc}.{store.safe_text(k, 60)}" if loc else store.safe_text(k, 60)
            raise ValueError(f"{where}: unexpected field (allowed: {', '.join(allowed)})")


# The views are `collections.namedtuple` classes (not `typing.NamedTuple`: importing `typing`
# costs a hook call ~2.5 ms); the fields and their types are in the comments.


class RoleView(namedtuple("RoleView", ("role", "owns", "agent_type", "registered_at",
                                       "marker"), defaults=((), None, None, None))):
    """One role registration (or a parsed role marker: agent_type/registered_at/marker are None).

    role: str; owns: tuple[str, ...] = (); agent_type: str | None = None;
    registered_at: str | None = None; marker: str | None = None (the role marker's file name
    the identity first registered from: the Lead assigns it owns by writing that marker)
    """

    __slots__ = ()

    def as_json(self) -> dict:
        d = {"role": self.role, "owns": list(self.owns)}
        if self.agent_type is not None:
            d["agent_type"] = self.agent_type
        if self.registered_at is not None:
            d["registered_at"] = self.registered_at
        if self.marker is not None:
            d["marker"] = self.marker
        return d


_ENTRY_KEYS = ("role", "owns", "agent_type", "registered_at", "marker")
_MARKER_KEYS = ("role", "owns")


def _role(v, loc):
    if not isinstance(v, str) or v not in ROLES:
        raise ValueError(f"{loc}: must be one of {', '.join(ROLES)}")
    return v


def _owns(v, loc) -> tuple[str, ...]:
    if not isinstance(v, list):
        raise ValueError(f"{loc}: must be a list of glob strings")
    if len(v) > MAX_OWNS:
        raise ValueError(f"{loc}: more than {MAX_OWNS} patterns")
    return tuple(_str(g, f"{loc}.{i}", MAX_GLOB, min_len=1) for i, g in enumerate(v))


def check_role_entry(obj, loc: str = "") -> RoleView:
    """Validate one ``breezing-session-roles.json`` value (same rules as models.RoleEntry)."""
    pre = f"{loc}." if loc else ""
    if not isinstance(obj, dict):
        raise ValueError(f"{loc or '(top level)'}: must be an object")
    _keys(obj, _ENTRY_KEYS, loc)
    if "role" not in obj:
        raise ValueError(f"{pre}role: field required")
    role = _role(obj["role"], pre + "role")
    owns = _owns(obj["owns"], pre + "owns") if "owns" in obj else ()
    agent_type = _str(obj.get("agent_type"), pre + "agent_type", MAX_KEY, optional=True)
    ts = _str(obj.get("registered_at"), pre + "registered_at", MAX_KEY, optional=True)
    if ts is not None and parse_iso(ts) is None:
        raise ValueError(f"{pre}registered_at: must be an ISO-8601 timestamp")
    marker = _str(obj.get("marker"), pre + "marker", MAX_KEY, optional=True)
    return RoleView(role, owns, agent_type, ts, marker)


def check_session_roles(obj) -> dict[str, RoleView]:
    if not isinstance(obj, dict):
        raise ValueError("(top level): must be an object mapping agent_id/session_id to a role")
    if len(obj) > MAX_ROLE_ENTRIES:
        raise ValueError(f"(top level): more than {MAX_ROLE_ENTRIES} registrations")
    out = {}
    for k, v in obj.items():
        if not 1 <= len(k) <= MAX_KEY:
            raise ValueError(f"'{store.safe_text(k, 60)}': key must be 1-{MAX_KEY} characters")
        out[k] = check_role_entry(v, store.safe_text(k, 60))
    return out


def check_role_marker(obj) -> RoleView:
    """Validate a role marker's JSON (same rules as models.RoleMarker)."""
    if not isinstance(obj, dict):
        raise ValueError("(top level): a role marker must be an object")
    _keys(obj, _MARKER_KEYS, "")
    if "role" not in obj:
        raise ValueError("role: field required")
    return RoleView(_role(obj["role"], "role"),
                    _owns(obj["owns"], "owns") if "owns" in obj else ())


def _invalid(path, kind: str, e: ValueError) -> StateInvalid:
    return StateInvalid(path, f"does not match the {kind} schema: {e}", repair_hint(kind, path))


# --------------------------------------------------------------------------------------------
# Session roles
# --------------------------------------------------------------------------------------------

def load_session_roles(project_dir) -> dict[str, RoleView]:
    """All registrations; ``{}`` when the file is absent."""
    path = layout(project_dir).session_roles
    try:
        data = store.read_json(path, repair=repair_hint(SESSION_ROLES, path))
    except StateMissing:
        return {}
    try:
        return check_session_roles(data)
    except ValueError as e:
        raise _invalid(path, SESSION_ROLES, e) from None


def lookup_role(project_dir, agent_id: str | None,
                session_id: str | None) -> tuple[str, RoleView] | None:
    """The registration for ``agent_id`` first, then ``session_id``: ``(key, RoleView)``, or None
    (unregistered). Raises StateError if the roles file is unusable."""
    roles = load_session_roles(project_dir)
    for k in (agent_id, session_id):
        if k and k in roles:
            return k, roles[k]
    return None


def update_session_roles(project_dir,
                         fn: Callable[[dict[str, RoleView]], dict[str, RoleView] | None], *,
                         timeout: float = store.DEFAULT_LOCK_TIMEOUT) -> dict[str, RoleView]:
    """Atomic read-modify-write of the registrations under the lock.

    ``fn`` gets the current ``{key: RoleView}`` (empty if absent) and returns the new mapping, or
    None to keep its in-place changes. Put the no-escalation check inside ``fn`` so check and
    write are one critical section; raise from ``fn`` to abort (nothing is written). The result is
    validated before it is written. A corrupt file raises before ``fn`` runs and is left as is.
    """
    lay = layout(project_dir)
    prepare_state_dir(lay.project_dir)  # never through a link, never into a file
    path = lay.session_roles
    out: list = [None]

    def apply(current):
        try:
            cur = check_session_roles(current)
        except ValueError as e:
            raise _invalid(path, SESSION_ROLES, e) from None
        new = fn(cur)
        new = cur if new is None else new
        raw = {k: (v.as_json() if isinstance(v, RoleView) else v) for k, v in new.items()}
        try:
            out[0] = _check_changed(raw, new, cur)
        except ValueError as e:
            raise ValueError(f"refusing to write an invalid {SESSION_ROLES}: {e}") from None
        return raw

    store.update_json(path, apply, default={}, timeout=timeout,
                      max_bytes=store.MAX_JSON_BYTES, encode=encode_roles)
    return out[0]


def _check_changed(raw: dict, new: dict, cur: dict) -> dict[str, RoleView]:
    """``check_session_roles(raw)``, without validating again the entries ``fn`` left as
    they were read (the same RoleView objects, validated a moment ago): the work under the
    lock stays small when hundreds of teammates register at once."""
    if not isinstance(raw, dict) or len(raw) > MAX_ROLE_ENTRIES:
        return check_session_roles(raw)
    out = {}
    for k, v in raw.items():
        if k in cur and new[k] is cur[k]:
            out[k] = cur[k]
        else:
            out.update(check_session_roles({k: v}))
    return out


def encode_roles(raw: dict) -> bytes:
    """``breezing-session-roles.json`` as written: one registration per line (the C JSON
    encoder; an indented dump runs in Python, several times slower, under the lock)."""
    import json

    for ascii_only in (False, True):     # lone surrogates ("\\ud800" escapes) stay escaped
        enc = json.JSONEncoder(ensure_ascii=ascii_only, separators=(", ", ": "),
                               allow_nan=False).encode
        text = "{\n" + ",\n".join(f"  {enc(k)}: {enc(v)}" for k, v in raw.items()) + \
            "\n}\n" if raw else "{}\n"
        try:
            return text.encode("utf-8")
        except UnicodeEncodeError:
            continue
    raise AssertionError("unreachable")


def role_entry(role: str, owns=(), agent_type: str | None = None,
               registered_at: str | None = None, marker: str | None = None) -> RoleView:
    """Build a validated RoleView (``registered_at`` defaults to now)."""
    raw = {"role": role, "owns": list(owns)}
    if agent_type is not None:
        raw["agent_type"] = agent_type
    raw["registered_at"] = registered_at if registered_at is not None else now_iso()
    if marker is not None:
        raw["marker"] = marker
    return check_role_entry(raw)


def parse_role_marker(content, source) -> RoleView:
    """Parse a role marker write's content (``tool_input.content``) strictly. ``source`` (the
    target path) names it in errors. Raises StateCorrupt / StateTooLarge / StateInvalid."""
    raw = content.encode("utf-8", "surrogatepass") if isinstance(content, str) else content
    if not isinstance(raw, (bytes, bytearray)):
        raise StateInvalid(source, "role marker content is not text",
                           repair_hint(ROLE_MARKER_GLOB, source))
    if len(raw) > MAX_MARKER_BYTES:
        raise store.StateTooLarge(source, f"role marker content is {len(raw)} bytes (limit "
                                          f"{MAX_MARKER_BYTES})",
                                  repair_hint(ROLE_MARKER_GLOB, source))
    data = store.loads_strict(bytes(raw), source=source,
                              repair=repair_hint(ROLE_MARKER_GLOB, source))
    try:
        return check_role_marker(data)
    except ValueError as e:
        raise _invalid(source, ROLE_MARKER_GLOB, e) from None


def load_role_marker(path) -> RoleView:
    """Read a ``breezing-role-*.json`` file (raises StateMissing if absent)."""
    data = store.read_bytes(path, MAX_MARKER_BYTES)
    return parse_role_marker(data, path)


# --------------------------------------------------------------------------------------------
# breezing-active.json (decisive fields only) and the gateway phase
# --------------------------------------------------------------------------------------------

class ActiveView(namedtuple("ActiveView", ("session_id", "impl_mode", "team"),
                            defaults=(False,))):
    """session_id: str | None; impl_mode: str | None (None = unset = standard, seed 000
    後方互換); team: bool (a team was initialised: team_name is set)."""

    __slots__ = ()

    @property
    def is_codex(self) -> bool:
        return self.impl_mode == "codex"


def check_active_view(obj) -> ActiveView:
    if not isinstance(obj, dict):
        raise ValueError("(top level): must be an object")
    mode = obj.get("impl_mode")
    if mode is not None and (not isinstance(mode, str) or mode not in IMPL_MODES):
        raise ValueError('impl_mode: must be "standard" or "codex" (or absent)')
    sid = _str(obj.get("session_id"), "session_id", MAX_KEY, min_len=1, optional=True)
    team = obj.get("team_name")
    return ActiveView(sid, mode, isinstance(team, str) and bool(team))


def load_active_view(project_dir) -> ActiveView | None:
    """``session_id`` and ``impl_mode`` of ``breezing-active.json``; None when absent."""
    path = layout(project_dir).active
    try:
        data = store.read_json(path, repair=repair_hint(ACTIVE, path))
    except StateMissing:
        return None
    try:
        return check_active_view(data)
    except ValueError as e:
        raise _invalid(path, ACTIVE, e) from None


class PhaseView(namedtuple("PhaseView", ("phase", "session_id", "set_at"))):
    """phase: "A" | "B" | "C"; session_id: str | None (the breezing session id,
    breezing-active.json's); set_at: str."""

    __slots__ = ()


_PHASE_KEYS = ("phase", "session_id", "set_at")


def check_phase(obj) -> PhaseView:
    """Same rules as models.BreezingPhase."""
    if not isinstance(obj, dict):
        raise ValueError("(top level): must be an object")
    _keys(obj, _PHASE_KEYS, "")
    if "phase" not in obj:
        raise ValueError("phase: field required")
    ph = obj["phase"]
    if not isinstance(ph, str) or ph not in PHASES:
        raise ValueError('phase: must be "A", "B" or "C"')
    sid = _str(obj.get("session_id"), "session_id", MAX_KEY, min_len=1, optional=True)
    if "set_at" not in obj:
        raise ValueError("set_at: field required")
    ts = _str(obj["set_at"], "set_at", MAX_KEY)
    if parse_iso(ts) is None:
        raise ValueError("set_at: must be an ISO-8601 timestamp")
    return PhaseView(ph, sid, ts)


def load_phase(project_dir) -> PhaseView | None:
    """The recorded phase, or None. (See ``effective_phase`` for what a guard should use.)"""
    path = layout(project_dir).phase
    try:
        data = store.read_json(path, repair=repair_hint(PHASE, path))
    except StateMissing:
        return None
    try:
        return check_phase(data)
    except ValueError as e:
        raise _invalid(path, PHASE, e) from None


def effective_phase(project_dir) -> PhaseView | None:
    """The phase a guard should act on: the recorded phase while ``breezing-active.json`` exists
    and (if the record names a session) belongs to that session; None otherwise (the
    breezing-active lifecycle ends the phase: early abort and Phase C delete that file, and a
    record from an earlier session is stale). Unreadable files raise StateError (→ deny)."""
    ph = load_phase(project_dir)
    if ph is None:
        return None
    active = load_active_view(project_dir)
    if active is None:
        return None
    if ph.session_id is not None and active.session_id is not None \
            and ph.session_id != active.session_id:
        return None
    return ph


def set_phase(project_dir, phase: str, session_id: str | None = None) -> PhaseView:
    """Record the breezing phase (atomic). ``session_id`` defaults to breezing-active.json's."""
    lay = layout(project_dir)
    prepare_state_dir(lay.project_dir)  # never through a link, never into a file
    if session_id is None:
        active = load_active_view(project_dir)
        session_id = active.session_id if active else None
    raw = {"phase": phase, "set_at": now_iso()}
    if session_id is not None:
        raw["session_id"] = session_id
    view = check_phase(raw)
    path = lay.phase
    with store.FileLock(path):
        store.atomic_write_json(path, raw)
    return view


def clear_phase(project_dir) -> bool:
    lay = layout(project_dir)
    if not check_state_dir(lay.project_dir):
        return False
    return store.delete_file(lay.phase)

