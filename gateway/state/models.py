"""Pydantic v2 models of the breezing state files (seed 000/001, seed-origins §B.2, §B.4).

Unknown fields -- the policy
----------------------------
These files are written by an LLM-driven workflow (Lead, teammates) and, in a hostile session, by a
model trying to widen its own permissions. Two classes of file, two policies:

* **Permission-bearing records** -- ``SessionRoles``/``RoleEntry`` (written only by the gateway),
  ``RoleMarker`` (a teammate's *request* for a role) and ``BreezingPhase`` (written only by the
  gateway): ``extra="forbid"``. An unexpected key is either tampering or a writer we do not
  understand; either way the record is refused (→ the guard denies with a repair hint) rather than
  half-understood. Nothing like ``"owns_all": true`` can ever slip through unnoticed.
* **Workflow metadata written by the Lead** -- ``BreezingActive`` (and its parts), ``ReviewResult``,
  signal and timeline records: ``extra="allow"``. Extra keys are kept verbatim so a read-modify-write
  by the gateway never destroys what the Lead wrote, but **no guard ever consults an extra key**:
  every field a decision depends on (``impl_mode``, ``verdict``, ``commit_hash``, ``session_id``,
  ``batching``...) is declared and strictly typed, and unknown *values* of those fields are errors.
  Size is bounded by the store (1 MiB per JSON file, 64 KiB per JSONL line) and by string limits here.
  Extra keys must never be injected into a prompt verbatim (upstream's unknown-signal path was a
  prompt-injection vector); use ``UnknownSignal.describe()``, which shows only the sanitised type.

Coercions: ints given as strings of ASCII digits are accepted where upstream wrote strings
(``completed``/``total`` of signals) and stored as ints; section numbers in ``plans_md_mapping`` may
be numbers and become strings; task ids may be ints and become strings. Booleans are never ints.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    RootModel,
    StringConstraints,
    field_validator,
    model_validator,
)

from .fast import ROLE_RANK, now_iso, parse_iso  # noqa: F401  (re-exported)

# --------------------------------------------------------------------------------------------
# Shared field types
# --------------------------------------------------------------------------------------------

Text = Annotated[str, StringConstraints(max_length=4096)]          # free text (subjects, ranges)
ShortText = Annotated[str, StringConstraints(max_length=256)]       # names, ids, timestamps
Key = Annotated[str, StringConstraints(min_length=1, max_length=256)]
Glob = Annotated[str, StringConstraints(min_length=1, max_length=1024)]
Role = Literal["lead", "implementer", "reviewer"]
Verdict = Literal["APPROVE", "REQUEST_CHANGES", "REJECT", "STOP"]
Grade = Literal["A", "B", "C", "D", "N/A"]

_DIGITS = re.compile(r"[0-9]{1,12}")


def _count(v: Any) -> Any:
    """int, or a string of ASCII digits (upstream wrote counts as strings) → int. No bools."""
    if isinstance(v, bool):
        raise ValueError("must be a whole number, not a boolean")
    if isinstance(v, int):
        return v
    if isinstance(v, str) and _DIGITS.fullmatch(v.strip()):
        return int(v.strip())
    raise ValueError("must be a whole number (or a string of digits)")


def _id_str(v: Any) -> Any:
    """Task ids / section numbers: accept int/float (not bool) and make them strings."""
    if isinstance(v, bool):
        raise ValueError("must be a string, not a boolean")
    if isinstance(v, (int, float)):
        return str(v)
    return v


def _no_bool(v: Any) -> Any:
    if isinstance(v, bool):
        raise ValueError("must be a whole number, not a boolean")
    return v


Count = Annotated[int, BeforeValidator(_no_bool), Field(ge=0, le=1_000_000)]
Ordinal = Annotated[int, BeforeValidator(_no_bool), Field(ge=1, le=10_000)]


def _iso(v: Any) -> Any:
    if isinstance(v, str) and parse_iso(v) is None:
        raise ValueError("must be an ISO-8601 timestamp, e.g. 2026-02-06T03:00:00Z")
    return v


# defer_build: a model's validator is built on first use, so importing this module stays cheap and
# a hook only pays for the models it actually validates.
_LEAD_WRITTEN = ConfigDict(extra="allow", str_max_length=65536, defer_build=True)
_GATEWAY_WRITTEN = ConfigDict(extra="forbid", str_max_length=65536, defer_build=True)


# --------------------------------------------------------------------------------------------
# breezing-active.json (v2)
# --------------------------------------------------------------------------------------------

class Options(BaseModel):
    model_config = _LEAD_WRITTEN
    codex_review: bool = False
    parallel: Ordinal | None = None


class Team(BaseModel):
    model_config = _LEAD_WRITTEN
    implementer_count: Count | None = None
    reviewer_count: Count | None = None
    model: ShortText | None = None


class Review(BaseModel):
    model_config = _LEAD_WRITTEN
    retake_count: Count = 0
    max_retakes: Count = 3


class Batch(BaseModel):
    model_config = _LEAD_WRITTEN
    batch: Ordinal
    task_ids: Annotated[list[Key], Field(max_length=10_000)] = []
    status: Literal["completed", "in_progress", "pending"]

    @field_validator("task_ids", mode="before")
    @classmethod
    def _ids(cls, v):
        return [_id_str(x) for x in v] if isinstance(v, list) else v


class Batching(BaseModel):
    model_config = _LEAD_WRITTEN
    enabled: bool = True
    total_tasks: Count | None = None
    current_batch: Ordinal | None = None
    batches: Annotated[list[Batch], Field(max_length=10_000)] = []

    @model_validator(mode="after")
    def _consistent(self):
        numbers = [b.batch for b in self.batches]
        if len(numbers) != len(set(numbers)):
            raise ValueError("batch numbers must be unique")
        if self.batches and self.current_batch is not None and self.current_batch not in numbers:
            raise ValueError(f"current_batch {self.current_batch} is not one of the batches "
                             f"{sorted(numbers)}")
        return self


#: v1 fields that v2 removed (seed 000 "v1 → v2 の変更点"); reading a v1 file drops them.
V1_REMOVED_TOP = ("status", "tasks")
V1_REMOVED_REVIEW = ("status", "last_findings", "history")


class BreezingActive(BaseModel):
    """``.claude/state/breezing-active.json`` v2: team metadata only (task state lives in the
    Agent Teams TaskList). Only ``session_id`` is required: Step 0 writes a minimal file
    (session_id, started_at, impl_mode, task_range) and Step 3 adds the rest.

    ``impl_mode`` absent means standard breezing (seed 000: 後方互換). Any other value than
    ``"standard"``/``"codex"`` is an error, so a typo can never silently switch the codex guard off.

    A v1 file (``status``/``tasks[]``/``review.status``/``review.last_findings``/
    ``review.history``) is converted on read: those fields are dropped; ``migrated_from`` and
    ``dropped_fields`` say what happened. Saving writes the v2 shape.
    """

    model_config = _LEAD_WRITTEN

    session_id: Key
    started_at: ShortText | None = None
    team_name: ShortText | None = None
    task_range: Text | None = None
    impl_mode: Literal["standard", "codex"] | None = None
    plans_md_mapping: Annotated[dict[Key, ShortText], Field(max_length=10_000)] = {}
    options: Options | None = None
    team: Team | None = None
    review: Review | None = None
    batching: Batching | None = None

    _migrated_from: int | None = PrivateAttr(default=None)
    _dropped: list[str] = PrivateAttr(default_factory=list)

    @model_validator(mode="wrap")
    @classmethod
    def _migrate_v1(cls, data, handler):
        dropped: list[str] = []
        if isinstance(data, dict):
            review = data.get("review")
            is_v1 = any(k in data for k in V1_REMOVED_TOP) or (
                isinstance(review, dict) and any(k in review for k in V1_REMOVED_REVIEW))
            if is_v1:
                data = dict(data)
                for k in V1_REMOVED_TOP:
                    if k in data:
                        del data[k]
                        dropped.append(k)
                if isinstance(review, dict):
                    review = dict(review)
                    for k in V1_REMOVED_REVIEW:
                        if k in review:
                            del review[k]
                            dropped.append("review." + k)
                    data["review"] = review
        model = handler(data)
        if dropped:
            model._migrated_from = 1
            model._dropped = dropped
        return model

    @field_validator("plans_md_mapping", mode="before")
    @classmethod
    def _mapping(cls, v):
        if isinstance(v, dict):
            return {_id_str(k) if not isinstance(k, str) else k: _id_str(x) for k, x in v.items()}
        return v

    @property
    def migrated_from(self) -> int | None:
        """1 if this was read from a v1 file, else None."""
        return self._migrated_from

    @property
    def dropped_fields(self) -> list[str]:
        return list(self._dropped)

    @property
    def is_codex(self) -> bool:
        return self.impl_mode == "codex"

    def in_progress_batch(self) -> Batch | None:
        """The first batch with status ``in_progress`` (the signal hook's rule), if batching."""
        if self.batching and self.batching.enabled:
            for b in self.batching.batches:
                if b.status == "in_progress":
                    return b
        return None

    def signal_scope(self) -> list[str]:
        """Task ids the progress signals count (§B.4): the first in-progress batch's task_ids,
        else every key of ``plans_md_mapping``."""
        b = self.in_progress_batch()
        return list(b.task_ids) if b is not None else list(self.plans_md_mapping)


# --------------------------------------------------------------------------------------------
# Roles
# --------------------------------------------------------------------------------------------

class RoleEntry(BaseModel):
    """One registration in ``breezing-session-roles.json`` (gateway-written: extra forbidden)."""

    model_config = _GATEWAY_WRITTEN
    role: Role
    owns: Annotated[list[Glob], Field(max_length=256)] = []
    agent_type: ShortText | None = None
    registered_at: ShortText | None = None
    #: the role marker (file name) this identity first registered from: the Lead assigns it
    #: its role and owns by writing that marker (gateway.guards.role.register)
    marker: ShortText | None = None

    @field_validator("registered_at")
    @classmethod
    def _ts(cls, v):
        return _iso(v)


class SessionRoles(RootModel[dict[Key, RoleEntry]]):
    """``breezing-session-roles.json``: ``{agent_id or session_id: RoleEntry}``."""

    model_config = ConfigDict(defer_build=True)

    root: Annotated[dict[Key, RoleEntry], Field(max_length=10_000)] = {}

    def lookup(self, agent_id: str | None, session_id: str | None) -> tuple[str, RoleEntry] | None:
        """The entry for ``agent_id`` first, then ``session_id`` (harness ≥ 6ebebc5e order).
        Returns ``(key, entry)`` or None."""
        for k in (agent_id, session_id):
            if k and k in self.root:
                return k, self.root[k]
        return None

    def __contains__(self, key) -> bool:
        return key in self.root

    def __getitem__(self, key) -> RoleEntry:
        return self.root[key]

    def __len__(self) -> int:
        return len(self.root)


class RoleMarker(BaseModel):
    """``breezing-role-*.json`` content: a teammate's *request* to be registered.

    ``{"role": "implementer", "owns": []}`` / ``{"role": "reviewer"}``. Extra keys are refused.
    """

    model_config = _GATEWAY_WRITTEN
    role: Role
    owns: Annotated[list[Glob], Field(max_length=256)] = []


# --------------------------------------------------------------------------------------------
# breezing-signals.jsonl
# --------------------------------------------------------------------------------------------

class _SignalBase(BaseModel):
    model_config = _LEAD_WRITTEN
    timestamp: ShortText | None = None
    consumed_at: ShortText | None = None
    known: ClassVar[bool] = True     # a recognised type (UnknownSignal/UnknownEvent: False)


class ProgressSignal(_SignalBase):
    """``partial_review_recommended`` / ``next_batch_recommended``. ``completed``/``total`` are
    stored as ints; upstream's strings of digits are accepted."""

    signal: Literal["partial_review_recommended", "next_batch_recommended"]
    session_id: Key | None = None
    completed: Count
    total: Count

    @field_validator("completed", "total", mode="before")
    @classmethod
    def _counts(cls, v):
        return _count(v)


class CiFailureSignal(_SignalBase):
    signal: Literal["ci_failure_detected"]
    conclusion: ShortText | None = None
    trigger_command: Text | None = None   # the user's Bash string: never inject it into a prompt


class TaskSignal(_SignalBase):
    """Types the upstream consumer recognised: ``retake_requested``, ``reviewer_approved``,
    ``escalation_required`` (with ``task_id`` and ``reason``)."""

    signal: Literal["retake_requested", "reviewer_approved", "escalation_required"]
    session_id: Key | None = None
    task_id: ShortText | None = None
    reason: Text | None = None

    @field_validator("task_id", mode="before")
    @classmethod
    def _tid(cls, v):
        return _id_str(v)


KNOWN_SIGNALS = ("partial_review_recommended", "next_batch_recommended", "ci_failure_detected",
                 "retake_requested", "reviewer_approved", "escalation_required")

_SAFE_NAME = re.compile(r"[^A-Za-z0-9_.:-]")


class UnknownSignal(BaseModel):
    """A record whose ``signal`` is not one we know. Kept (never dropped) but flagged:
    ``known`` is False. ``data`` is the raw record -- untrusted; do not put it into a prompt."""

    model_config = ConfigDict(extra="forbid", defer_build=True)
    signal: str
    data: dict[str, Any]
    known: ClassVar[bool] = False

    def describe(self) -> str:
        """A prompt-safe one-liner: the sanitised type name only."""
        return f"unrecognised signal type {_SAFE_NAME.sub('?', self.signal[:64])!r}"


SignalRecord = ProgressSignal | CiFailureSignal | TaskSignal | UnknownSignal

_SIGNAL_MODELS = {"partial_review_recommended": ProgressSignal,
                  "next_batch_recommended": ProgressSignal,
                  "ci_failure_detected": CiFailureSignal,
                  "retake_requested": TaskSignal, "reviewer_approved": TaskSignal,
                  "escalation_required": TaskSignal}


def parse_signal(obj: dict) -> SignalRecord:
    """Validate one signal record. Unknown types → ``UnknownSignal``; a known type with bad
    fields (or a record without a string ``signal``) raises ``pydantic.ValidationError`` /
    ``ValueError``."""
    sig = obj.get("signal") if isinstance(obj, dict) else None
    if not isinstance(sig, str) or not sig:
        raise ValueError("record has no string 'signal' field")
    model = _SIGNAL_MODELS.get(sig)
    if model is None:
        return UnknownSignal(signal=sig, data=obj)
    return model.model_validate(obj)


# --------------------------------------------------------------------------------------------
# breezing-timeline.jsonl
# --------------------------------------------------------------------------------------------

class _EventBase(BaseModel):
    model_config = _LEAD_WRITTEN
    teammate: ShortText | None = None
    timestamp: ShortText | None = None
    known: ClassVar[bool] = True     # a recognised type (UnknownSignal/UnknownEvent: False)


class TaskCompleted(_EventBase):
    event: Literal["task_completed"]
    task_id: ShortText
    subject: Text | None = None
    description: Text | None = None        # upstream keeps the first 100 characters

    @field_validator("task_id", mode="before")
    @classmethod
    def _tid(cls, v):
        return _id_str(v)


class TeammateIdle(_EventBase):
    event: Literal["teammate_idle"]
    team: ShortText | None = None


class TestResultFailed(_EventBase):
    __test__ = False     # not a pytest class
    event: Literal["test_result_failed"]
    task_id: ShortText | None = None
    failure_count: Count | None = None

    @field_validator("task_id", mode="before")
    @classmethod
    def _tid(cls, v):
        return _id_str(v)
    @field_validator("failure_count", mode="before")
    @classmethod
    def _fc(cls, v):
        return v if v is None else _count(v)


class EscalationTriggered(_EventBase):
    event: Literal["escalation_triggered"]
    task_id: ShortText | None = None
    failure_count: Count | None = None
    reason: Text | None = None

    @field_validator("task_id", mode="before")
    @classmethod
    def _tid(cls, v):
        return _id_str(v)
    @field_validator("failure_count", mode="before")
    @classmethod
    def _fc(cls, v):
        return v if v is None else _count(v)


class UnknownEvent(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)
    event: str
    data: dict[str, Any]
    known: ClassVar[bool] = False


TimelineEvent = (TaskCompleted | TeammateIdle | TestResultFailed | EscalationTriggered
                 | UnknownEvent)
_EVENT_MODELS = {"task_completed": TaskCompleted, "teammate_idle": TeammateIdle,
                 "test_result_failed": TestResultFailed,
                 "escalation_triggered": EscalationTriggered}


def parse_event(obj: dict) -> TimelineEvent:
    """Validate one timeline record (unknown ``event`` → ``UnknownEvent``)."""
    ev = obj.get("event") if isinstance(obj, dict) else None
    if not isinstance(ev, str) or not ev:
        raise ValueError("record has no string 'event' field")
    model = _EVENT_MODELS.get(ev)
    if model is None:
        return UnknownEvent(event=ev, data=obj)
    return model.model_validate(obj)


# --------------------------------------------------------------------------------------------
# review-result.json
# --------------------------------------------------------------------------------------------

_HASH = re.compile(r"[0-9a-f]{7,64}")


class ReviewResult(BaseModel):
    """``review-result.json`` (written by the Lead). ``commit_hash`` is normalised to lower-case
    hex (7–64 digits). Note it is an unsigned, forgeable token (§D.2): ``fast_path_ok`` also
    requires the session id to match, which upstream did not."""

    model_config = _LEAD_WRITTEN
    verdict: Verdict
    grade: Grade | None = None
    commit_hash: ShortText | None = None
    timestamp: ShortText | None = None
    reviewer: ShortText | None = None
    session_id: Key | None = None

    @field_validator("commit_hash")
    @classmethod
    def _hash(cls, v):
        if v is None:
            return v
        v = v.strip().lower()
        if not _HASH.fullmatch(v):
            raise ValueError("must be a git commit hash (7-64 hex digits)")
        return v

    def fast_path_ok(self, head: str | None, session_id: str | None) -> bool:
        """APPROVE, a full ``commit_hash`` equal to ``head``, and the same session."""
        return (self.verdict == "APPROVE" and bool(head) and self.commit_hash is not None
                and self.commit_hash == head.strip().lower()
                and bool(session_id) and self.session_id == session_id)


# --------------------------------------------------------------------------------------------
# gateway-breezing-phase.json (the gateway's own record, for the delegate-mode guard)
# --------------------------------------------------------------------------------------------

class BreezingPhase(BaseModel):
    """The breezing phase the gateway recorded: A (pre-delegate), B (delegate: the Lead may only
    use the task/message tools) or C (post-delegate). Gateway-written: extra forbidden."""

    model_config = _GATEWAY_WRITTEN
    phase: Literal["A", "B", "C"]
    session_id: Key | None = None
    set_at: ShortText

    @field_validator("set_at")
    @classmethod
    def _ts(cls, v):
        return _iso(v)
