"""The TaskCompleted hook (Agent Teams, fires on the Lead's side): record the completion in
breezing-timeline.jsonl and append the progress signals that are due to breezing-signals.jsonl
(gateway.orchestration.signals). Prints nothing, or a systemMessage when a state file is
broken; never blocks the completion."""

from gateway.hooks import _lifecycle as lc

EVENT = "TaskCompleted"
MATCHER = None              # the event has no matcher
ON_FAILURE_BLOCK = False    # the client ignores onFailure for this event anyway
AUDIT = False


def decide(raw: bytes, env) -> tuple:
    payload = lc.read(raw, EVENT)
    if payload is None:
        return lc.Outcome(), None
    try:
        task_id = lc.task_id(payload)
        if task_id is None:
            return lc.Outcome(), payload
        project = lc.project(payload, env)
        if project is None:
            return lc.Outcome(), payload
        import os

        from gateway.state.layout import layout

        if not os.path.lexists(layout(project).active):
            return lc.Outcome(), payload         # no breezing session: nothing to record
        from gateway.orchestration import signals
        from gateway.state.store import StateError

        try:
            rec = signals.record_task_completed(
                project, task_id=task_id, subject=lc.text(payload, "task_subject"),
                description=lc.text(payload, "task_description"),
                teammate=lc.text(payload, "teammate_name", 256))
        except StateError as exc:
            return lc.Outcome(message=f"gateway: task {task_id[:64]!r} completed but the "
                                      f"breezing progress was not recorded: {exc}"), payload
        if rec.problem is not None:
            return lc.Outcome(message=f"gateway: progress signals were not computed: "
                                      f"{rec.problem}"), payload
        return lc.Outcome(), payload
    except Exception as exc:  # never block a completion; say what failed
        return lc.internal_error(EVENT, exc), payload


def render(outcome) -> str:
    return lc.render(outcome, EVENT, context_allowed=False)
