"""The review loop (seed 001 リテイクループ, review-retake-loop; seed-origins §B.4, §D.2).

Verdicts: ``APPROVE`` → Phase C; ``REQUEST_CHANGES`` → a retake while fewer than
``max_retakes`` (3) were made, else escalate to the user (3回リテイク超過); ``REJECT`` or
``STOP`` → stop at once and report. The counter is ``review.retake_count`` of
breezing-active.json, updated under its lock.

The Phase C fast path skips the manual confirmation only when ``review-result.json`` says
``APPROVE``, its ``commit_hash`` is the current ``HEAD`` (no commit after the review) and its
``session_id`` is the running breezing session's. Upstream did not check the session, so a
stale approval of another session at the same HEAD passed (§D.2). The file is an unsigned token
any state writer can forge: the fast path only skips a confirmation, never a check.
"""

from __future__ import annotations

import os
import subprocess

from gateway.state import files, store
from gateway.state.models import Review

__all__ = ["VERDICTS", "next_step", "FastPath", "fast_path", "git_head",
           "Observed", "observe", "record_review", "NEXT"]

VERDICTS = ("APPROVE", "REQUEST_CHANGES", "REJECT", "STOP")


def next_step(verdict: str, retake_count: int, max_retakes: int = 3) -> str:
    """``"approve"``, ``"retake"``, ``"escalate"`` or ``"stop"`` for a verdict, given the
    retakes already made."""
    if verdict not in VERDICTS:
        raise ValueError(f"verdict must be one of {', '.join(VERDICTS)}, not {verdict!r}")
    if verdict == "APPROVE":
        return "approve"
    if verdict in ("REJECT", "STOP"):
        return "stop"
    return "retake" if retake_count < max_retakes else "escalate"


#: What the Lead does after each step (seed 001 リテイクループ, review-retake-loop).
NEXT = {
    "approve": "every task completed and approved: run `gateway breezing phase C`, then "
               "`gateway breezing finish`",
    "retake": "break the findings into fix tasks (TaskCreate) for the implementers; ask the "
              "Reviewer for a new review when they are completed",
    "escalate": "the retake limit is reached: escalate to the user (SendMessage is not "
                "enough: stop and ask the user how to go on); do not start another retake",
    "stop": "stop at once and report to the user (REJECT/STOP)",
}


class Observed:
    """A verdict as the observer recorded it: ``step`` (approve, retake, escalate, stop),
    ``retake_count``/``max_retakes`` after it, ``new`` (False: this verdict was recorded
    already -- the same review seen again counts once), ``verdict``."""

    __slots__ = ("verdict", "step", "retake_count", "max_retakes", "new")

    def __init__(self, verdict, step, retake_count, max_retakes, new):
        self.verdict, self.step, self.retake_count = verdict, step, retake_count
        self.max_retakes, self.new = max_retakes, new

    @property
    def next(self) -> str:
        return NEXT[self.step]

    def as_dict(self) -> dict:
        return {"verdict": self.verdict, "step": self.step, "retake_count": self.retake_count,
                "max_retakes": self.max_retakes, "new": self.new, "next": self.next}


def _key(result) -> str:
    return "|".join(str(x) for x in (result.verdict, result.timestamp, result.commit_hash,
                                     result.session_id, result.grade))


def observe(project_dir, result, *, fresh: bool = False) -> Observed:
    """The observer of a verdict (a ReviewResult: written by `gateway breezing review`, or by
    a Write of review-result.json that PostToolUse saw): REQUEST_CHANGES increments
    ``review.retake_count`` of breezing-active.json unless the limit is reached (then the step
    is escalate); the same review seen twice counts once (``review.last_verdict``) unless
    ``fresh`` (a verdict the Lead records with the command is a new review each time, even
    within the same second). Raises ``StateError`` (no session, corrupt file)."""
    out: list = []

    def fn(active):
        if active is None:
            raise store.StateMissing(files.layout(project_dir).active,
                                     "does not exist: no breezing session to review")
        review = active.review or Review()
        extra = dict(review.model_extra or {})
        key = _key(result)
        last = extra.get("last_verdict")
        if not fresh and isinstance(last, dict) and last.get("key") == key \
                and last.get("step") in NEXT:
            out.append(Observed(result.verdict, last["step"], review.retake_count,
                                review.max_retakes, False))
            return active
        step = next_step(result.verdict, review.retake_count, review.max_retakes)
        count = review.retake_count + (1 if step == "retake" else 0)
        data = review.model_dump(mode="json")
        data.update(retake_count=count, last_verdict={"key": key, "step": step,
                                                      "verdict": result.verdict,
                                                      "at": result.timestamp})
        review = Review.model_validate(data)
        out.append(Observed(result.verdict, step, count, review.max_retakes, True))
        return active.model_copy(update={"review": review})

    files.update_active(project_dir, fn)
    return out[0]


def record_review(project_dir, verdict: str, *, grade=None, reviewer=None,
                  now=None) -> tuple:
    """`gateway breezing review VERDICT`: the Lead records the Reviewer's verdict (seed 001:
    the Reviewer is read-only, the Lead writes review-result.json) for the current HEAD and
    this session, and the observer applies it (``observe``). Returns ``(ReviewResult,
    Observed)``. Raises ``StateError``, ValueError (an unknown verdict or grade)."""
    from gateway.state.fast import now_iso
    from gateway.state.models import ReviewResult

    if verdict not in VERDICTS:
        raise ValueError(f"the verdict must be one of {', '.join(VERDICTS)}, not "
                         f"{store.safe_text(verdict, 30)!r}")
    active = files.load_active(project_dir)
    if active is None:
        raise store.StateMissing(files.layout(project_dir).active,
                                 "does not exist: no breezing session to review")
    data = {"verdict": verdict, "timestamp": now or now_iso(), "session_id": active.session_id}
    head = git_head(project_dir)
    if head:
        data["commit_hash"] = head
    if grade:
        data["grade"] = grade
    if reviewer:
        data["reviewer"] = reviewer
    result = ReviewResult.model_validate(data)
    files.save_review_result(project_dir, result)
    return result, observe(project_dir, result, fresh=True)


def git_head(project_dir) -> str | None:
    """``git rev-parse --verify HEAD`` in the project, or None (no repository, no commit)."""
    try:
        p = subprocess.run(["git", "-C", os.fspath(project_dir), "rev-parse", "--verify",
                            "--quiet", "HEAD"], capture_output=True, text=True, timeout=30,
                           stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    head = p.stdout.strip().lower()
    return head if p.returncode == 0 and head else None


class FastPath:
    """``ok`` and ``reason`` (one sentence either way); ``head`` and ``result`` as read."""

    __slots__ = ("ok", "reason", "head", "result")

    def __init__(self, ok, reason, head=None, result=None):
        self.ok, self.reason, self.head, self.result = ok, reason, head, result

    def as_dict(self) -> dict:
        return {"ok": self.ok, "reason": self.reason, "head": self.head,
                "verdict": self.result.verdict if self.result else None,
                "commit_hash": self.result.commit_hash if self.result else None}


def fast_path(project_dir, session_id: str | None = None, head: str | None = None) -> FastPath:
    """The Phase C fast-path check. ``session_id`` defaults to breezing-active.json's; ``head``
    to the repository's HEAD. A broken file is a normal "no" (the manual check runs), with the
    file's problem as the reason."""
    try:
        result = files.load_review_result(project_dir)
    except store.StateError as e:
        return FastPath(False, f"review-result.json cannot be used: {e.problem}")
    if result is None:
        return FastPath(False, "no review-result.json: the normal confirmation runs")
    if session_id is None:
        try:
            active = files.load_active(project_dir)
        except store.StateError as e:
            return FastPath(False, f"breezing-active.json cannot be used: {e.problem}",
                            result=result)
        session_id = active.session_id if active else None
    head = head if head is not None else git_head(project_dir)
    if result.verdict != "APPROVE":
        return FastPath(False, f"the verdict is {result.verdict}, not APPROVE", head, result)
    if not result.commit_hash:
        return FastPath(False, "review-result.json has no commit_hash", head, result)
    if not head:
        return FastPath(False, "the project has no git HEAD to compare with", head, result)
    if result.commit_hash != head.strip().lower():
        return FastPath(False, f"HEAD is {head[:12]}, the review was of "
                               f"{result.commit_hash[:12]}: commits were made after the review",
                        head, result)
    if not session_id or result.session_id != session_id:
        return FastPath(False, "review-result.json belongs to another breezing session "
                               f"({store.safe_text(result.session_id or 'none', 60)})",
                        head, result)
    if not result.fast_path_ok(head, session_id):     # the model's own rule agrees
        return FastPath(False, "review-result.json does not qualify", head, result)
    return FastPath(True, f"APPROVE of HEAD {head[:12]} in this session: straight to the "
                          f"integration check", head, result)
