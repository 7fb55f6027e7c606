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

__all__ = ["VERDICTS", "next_step", "record_verdict", "FastPath", "fast_path", "git_head"]

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


def record_verdict(project_dir, verdict: str) -> tuple[str, int, int]:
    """Apply a verdict to breezing-active.json: a retake increments the counter. Returns
    ``(step, retake_count, max_retakes)`` after the update. Raises ``StateError`` (no session,
    corrupt file) and ValueError (unknown verdict)."""
    out: list = []

    def fn(active):
        if active is None:
            raise store.StateMissing(files.layout(project_dir).active,
                                     "does not exist: no breezing session to review")
        review = active.review or Review()
        step = next_step(verdict, review.retake_count, review.max_retakes)
        if step == "retake":
            review = review.model_copy(update={"retake_count": review.retake_count + 1})
        out.append((step, review.retake_count, review.max_retakes))
        return active.model_copy(update={"review": review})

    files.update_active(project_dir, fn)
    return out[0]


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
