"""The UserPromptSubmit hook: hand the Lead its unconsumed breezing progress signals
(partial_review_recommended, next_batch_recommended, ...) as short structured text in
``additionalContext``, marking them consumed (gateway.orchestration.signals). Nothing when no
breezing session exists (checked with one ``lstat`` before anything is imported) or no signal
is waiting. A broken state file: no context, a systemMessage saying what and how to repair.
Never blocks a prompt."""

from gateway.hooks import _lifecycle as lc

EVENT = "UserPromptSubmit"
MATCHER = None              # the event has no matcher
ON_FAILURE_BLOCK = False    # never block the user's prompt
AUDIT = False


def decide(raw: bytes, env) -> tuple:
    payload = lc.read(raw, EVENT)
    if payload is None:
        return lc.Outcome(), None
    try:
        if not isinstance(payload.get("prompt"), str):
            return lc.Outcome(), payload         # not a prompt (e.g. gateway doctor's probe)
        project = lc.project(payload, env)
        if project is None:
            return lc.Outcome(), payload
        import os

        from gateway.state.layout import layout

        lay = layout(project)
        if not os.path.lexists(lay.signals) or not os.path.lexists(lay.active):
            return lc.Outcome(), payload
        if payload.get("agent_id"):
            return lc.Outcome(), payload        # only the Lead's own prompts
        from gateway.orchestration import signals
        from gateway.state import files
        from gateway.state.store import StateError

        try:
            active = files.load_active(lay)
            if active is None:
                return lc.Outcome(), payload
            warnings: list[str] = []
            taken = signals.take_signals(lay, active.session_id, warnings=warnings)
        except StateError as exc:
            return lc.Outcome(message=f"gateway: the breezing signals were not handed over: "
                                      f"{exc}"), payload
        return lc.Outcome(signals.describe(taken, active) or None,
                          "\n".join(warnings) or None), payload
    except Exception as exc:
        return lc.internal_error(EVENT, exc), payload


def render(outcome) -> str:
    return lc.render(outcome, EVENT, context_allowed=True)
