"""The TaskCreated hook (Agent Teams, 2.1.84+): record the task the Lead (or a teammate)
created in the breezing session's progress record (gateway.orchestration.progress), with the
Plans.md section its subject names -- a fix task created after REQUEST_CHANGES names none and
is kept as an extra task that Phase C waits for. Prints nothing, or a systemMessage when the
record cannot be written; never blocks the creation (no exit 2)."""

from gateway.hooks import _lifecycle as lc

EVENT = "TaskCreated"
MATCHER = None              # the event has no matcher
ON_FAILURE_BLOCK = False    # the client ignores onFailure for this event
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
        from gateway.orchestration import progress
        from gateway.state import files
        from gateway.state.store import StateError

        try:
            active = files.load_active(project)
            if active is None or not active.team_name:
                return lc.Outcome(), payload
            progress.record_created(project, active, task_id=task_id,
                                    subject=lc.text(payload, "task_subject"),
                                    description=lc.text(payload, "task_description"),
                                    session=lc.text(payload, "session_id", 128))
        except StateError as exc:
            return lc.Outcome(message=f"gateway: task {task_id[:64]!r} was created but the "
                                      f"breezing progress was not recorded: {exc}"), payload
        return lc.Outcome(), payload
    except Exception as exc:
        return lc.internal_error(EVENT, exc), payload


def render(outcome) -> str:
    return lc.render(outcome, EVENT, context_allowed=False)
