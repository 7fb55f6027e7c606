"""The PreCompact hook: save the spec workflow position (seed 002) to the project's SQLite
workflow state before the context is compacted (gateway.orchestration.workflow.save_current).
The breezing state needs no saving here: breezing-active.json is on disk already and is what
the SessionStart hook restores from. Prints nothing, or a systemMessage when the state cannot
be saved; never blocks compaction."""

from gateway.hooks import _lifecycle as lc

EVENT = "PreCompact"
MATCHER = None              # both triggers: manual and auto
ON_FAILURE_BLOCK = False    # a failing save must not block compaction
AUDIT = False
TRIGGERS = ("manual", "auto")


def decide(raw: bytes, env) -> tuple:
    payload = lc.read(raw, EVENT)
    if payload is None:
        return lc.Outcome(), None
    try:
        if payload.get("trigger") not in TRIGGERS:
            return lc.Outcome(), payload
        project = lc.project(payload, env)
        if project is None:
            return lc.Outcome(), payload
        from gateway.orchestration import workflow
        from gateway.state.store import StateError

        try:
            _row, problems = workflow.save_current(project, lc.text(payload, "session_id", 256))
        except StateError as exc:
            return lc.Outcome(message=f"gateway: the workflow position was not saved before "
                                      f"compaction: {exc}"), payload
        if problems:
            return lc.Outcome(message="gateway: some spec files could not be read: "
                                      + "; ".join(problems[:3])), payload
        return lc.Outcome(), payload
    except Exception as exc:
        return lc.internal_error(EVENT, exc), payload


def render(outcome) -> str:
    return lc.render(outcome, EVENT, context_allowed=False)
