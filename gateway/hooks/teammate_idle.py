"""The TeammateIdle hook (Agent Teams, fires on the Lead's side): record ``teammate_idle`` in
breezing-timeline.jsonl (not again within 5 s for the same teammate). Prints nothing, or a
systemMessage when the timeline cannot be written; never keeps a teammate working."""

from gateway.hooks import _lifecycle as lc

EVENT = "TeammateIdle"
MATCHER = None
ON_FAILURE_BLOCK = False
AUDIT = False


def decide(raw: bytes, env) -> tuple:
    payload = lc.read(raw, EVENT)
    if payload is None:
        return lc.Outcome(), None
    try:
        teammate = lc.text(payload, "teammate_name", 256)
        if teammate is None:
            return lc.Outcome(), payload
        project = lc.project(payload, env)
        if project is None:
            return lc.Outcome(), payload
        import os

        from gateway.state.layout import layout

        if not os.path.lexists(layout(project).active):
            return lc.Outcome(), payload
        from gateway.orchestration import signals
        from gateway.state.store import StateError

        try:
            signals.record_teammate_idle(project, teammate=teammate,
                                         team=lc.text(payload, "team_name", 256))
        except StateError as exc:
            return lc.Outcome(message=f"gateway: the teammate_idle event was not recorded: "
                                      f"{exc}"), payload
        return lc.Outcome(), payload
    except Exception as exc:
        return lc.internal_error(EVENT, exc), payload


def render(outcome) -> str:
    return lc.render(outcome, EVENT, context_allowed=False)
