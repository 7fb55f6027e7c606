"""gateway.orchestration.review: the retake loop (limit 3, then escalation; REJECT/STOP stop)
and the Phase C fast path (APPROVE, commit == HEAD, same session; seed 001)."""

import json
import subprocess

import pytest

from gateway.orchestration import review
from gateway.state import files, store

from .conftest import SESSION


@pytest.mark.parametrize("verdict,retakes,step", [
    ("APPROVE", 0, "approve"), ("APPROVE", 3, "approve"),
    ("REQUEST_CHANGES", 0, "retake"), ("REQUEST_CHANGES", 2, "retake"),
    ("REQUEST_CHANGES", 3, "escalate"), ("REQUEST_CHANGES", 7, "escalate"),
    ("REJECT", 0, "stop"), ("STOP", 1, "stop"),
])
def test_next_step(verdict, retakes, step):
    assert review.next_step(verdict, retakes, 3) == step


def test_unknown_verdict_is_an_error():
    with pytest.raises(ValueError, match="verdict must be one of"):
        review.next_step("LGTM", 0)


def _verdict(proj, verdict, n):
    """`gateway breezing review VERDICT` (its library step): each call is a new review."""
    _, obs = review.record_review(proj, verdict, now=f"2026-02-06T0{n}:00:00Z")
    return obs.step, obs.retake_count, obs.max_retakes


def test_three_retakes_then_escalation(proj, active):
    active()
    steps = [_verdict(proj, "REQUEST_CHANGES", n) for n in range(4)]
    assert steps == [("retake", 1, 3), ("retake", 2, 3), ("retake", 3, 3),
                     ("escalate", 3, 3)]
    assert files.load_active(proj).review.retake_count == 3
    assert _verdict(proj, "APPROVE", 5) == ("approve", 3, 3)


def test_two_verdicts_recorded_in_the_same_second_are_two_reviews(proj, active):
    """The command records a new review each time; only a Write of review-result.json seen
    again (PostToolUse) is the same review."""
    active()
    assert _verdict(proj, "REQUEST_CHANGES", 1) == ("retake", 1, 3)
    assert _verdict(proj, "REQUEST_CHANGES", 1) == ("retake", 2, 3)


def test_a_verdict_needs_a_session(proj):
    with pytest.raises(store.StateMissing, match="no breezing session to review"):
        _verdict(proj, "REQUEST_CHANGES", 1)


def test_a_verdict_keeps_the_leads_other_fields(proj, active):
    data = active(review=None)
    data["custom"] = {"kept": True}
    (proj / ".claude" / "state" / "breezing-active.json").write_text(json.dumps(data))
    assert _verdict(proj, "REQUEST_CHANGES", 1) == ("retake", 1, 3)
    saved = json.loads((proj / ".claude" / "state" / "breezing-active.json").read_text())
    assert saved["custom"] == {"kept": True} and saved["review"]["retake_count"] == 1


# --- fast path -----------------------------------------------------------------------------


@pytest.fixture()
def repo(proj):
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@e", "PATH": "/usr/bin:/bin", "HOME": str(proj)}
    subprocess.run(["git", "init", "-q", str(proj)], check=True, env=env)
    (proj / "a.txt").write_text("a")
    subprocess.run(["git", "-C", str(proj), "add", "a.txt"], check=True, env=env)
    subprocess.run(["git", "-C", str(proj), "commit", "-qm", "a"], check=True, env=env)

    def head():
        return subprocess.run(["git", "-C", str(proj), "rev-parse", "HEAD"], check=True,
                              capture_output=True, text=True).stdout.strip()

    def commit():
        (proj / "a.txt").write_text((proj / "a.txt").read_text() + "b")
        subprocess.run(["git", "-C", str(proj), "commit", "-qam", "b"], check=True, env=env)
    return head, commit


def _result(proj, **kw):
    data = {"verdict": "APPROVE", "grade": "A", "session_id": SESSION, **kw}
    (proj / ".claude" / "state" / "review-result.json").write_text(json.dumps(data))


def test_fast_path_when_approved_at_head_in_this_session(proj, active, repo):
    head, _ = repo
    active()
    _result(proj, commit_hash=head())
    fp = review.fast_path(proj)
    assert fp.ok and fp.reason.startswith(f"APPROVE of HEAD {head()[:12]} in this session")


def test_no_fast_path_after_a_later_commit(proj, active, repo):
    head, commit = repo
    active()
    _result(proj, commit_hash=head())
    commit()
    fp = review.fast_path(proj)
    assert not fp.ok and fp.reason.endswith("commits were made after the review")


def test_no_fast_path_for_another_sessions_approval(proj, active, repo):
    # upstream checked verdict and hash only: a stale approval at the same HEAD passed
    head, _ = repo
    active()
    _result(proj, commit_hash=head(), session_id="breezing-20260101-0000")
    fp = review.fast_path(proj)
    assert not fp.ok and "another breezing session (breezing-20260101-0000)" in fp.reason
    _result(proj, commit_hash=head(), session_id=None)
    assert not review.fast_path(proj).ok


@pytest.mark.parametrize("kw,reason", [
    ({"verdict": "REQUEST_CHANGES"}, "the verdict is REQUEST_CHANGES, not APPROVE"),
    ({"commit_hash": None}, "review-result.json has no commit_hash"),
])
def test_no_fast_path_without_approval_or_hash(proj, active, repo, kw, reason):
    head, _ = repo
    active()
    _result(proj, **{"commit_hash": head(), **kw})
    if kw.get("commit_hash", "x") is None:
        data = json.loads((proj / ".claude/state/review-result.json").read_text())
        del data["commit_hash"]
        (proj / ".claude/state/review-result.json").write_text(json.dumps(data))
    fp = review.fast_path(proj)
    assert not fp.ok and fp.reason == reason


def test_an_abbreviated_hash_is_not_head(proj, active, repo):
    head, _ = repo
    active()
    _result(proj, commit_hash=head()[:7])
    assert not review.fast_path(proj).ok


def test_no_review_result_and_a_broken_one(proj, active):
    active()
    fp = review.fast_path(proj, head="a" * 40)
    assert not fp.ok and fp.reason == "no review-result.json: the normal confirmation runs"
    (proj / ".claude" / "state" / "review-result.json").write_text('{"verdict": "APPROVE"')
    fp = review.fast_path(proj, head="a" * 40)
    assert not fp.ok and fp.reason.startswith("review-result.json cannot be used: ends early")


def test_no_fast_path_without_a_repository(proj, active):
    active()
    _result(proj, commit_hash="a" * 40)
    fp = review.fast_path(proj)
    assert not fp.ok and fp.reason == "the project has no git HEAD to compare with"
