"""The SessionEnd hook: what a session leaves for the next one (seed 002 E案: "PreCompact または
SessionEnd でワークフロー状態を永続化").

* the spec workflow position is saved as PreCompact saves it
  (gateway.orchestration.workflow.save_current), so a session that ends without a compaction
  restores the spec it was on when it is resumed (SessionStart ``resume``);
* when the ending session is the breezing team's Lead, its lead registration goes
  (gateway.orchestration.leadship.end): its teammates end with it, and the next session
  resumes the team (`gateway resume`).

The breezing state needs no saving: breezing-active.json is on disk. Prints nothing, or a
systemMessage when the state cannot be saved; the event cannot block.
"""

from gateway.hooks import _lifecycle as lc

EVENT = "SessionEnd"
MATCHER = None
ON_FAILURE_BLOCK = False
AUDIT = False


def decide(raw: bytes, env) -> tuple:
    payload = lc.read(raw, EVENT)
    if payload is None:
        return lc.Outcome(), None
    try:
        if not isinstance(payload.get("reason"), str):
            return lc.Outcome(), payload      # not a SessionEnd (e.g. gateway doctor's probe)
        project = lc.project(payload, env)
        if project is None:
            return lc.Outcome(), payload
        sid = lc.text(payload, "session_id", 256)
        from gateway.orchestration import leadship, workflow
        from gateway.state.store import StateError

        problems = []
        try:
            _row, bad = workflow.save_current(project, sid)
            problems += bad[:3]
        except StateError as exc:
            problems.append(f"the workflow position was not saved: {exc}")
        try:
            leadship.end(project, sid)
        except (StateError, ValueError) as exc:
            problems.append(f"the Lead's registration was not ended: {exc}")
        if problems:
            return lc.Outcome(message="gateway: " + "; ".join(problems)), payload
        return lc.Outcome(), payload
    except Exception as exc:
        return lc.internal_error(EVENT, exc), payload


def render(outcome) -> str:
    return lc.render(outcome, EVENT, context_allowed=False)
