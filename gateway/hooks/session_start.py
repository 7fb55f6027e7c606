"""The SessionStart hook for sources ``compact`` and ``resume``: tell the model what it must do
next, from the state on disk.

* a /breezing session (breezing-active.json): rebuild or resume the right team for
  ``impl_mode``, stay in delegate mode in Phase B, never implement directly, and the mode
  mismatch warning (gateway.orchestration.restore);
* the spec workflow position saved by PreCompact (gateway.orchestration.workflow);
* the Lead's unconsumed progress signals (gateway.orchestration.signals).

Output: ``hookSpecificOutput.additionalContext`` (and a systemMessage for the user when a state
file is broken: the context then says that nothing may be rebuilt from memory and how to
repair the file). Nothing for ``startup``, ``clear`` and ``fork`` (the matcher does not even
run it) or when there is no state.
"""

from gateway.hooks import _lifecycle as lc

EVENT = "SessionStart"
MATCHER = "compact|resume"
ON_FAILURE_BLOCK = False
AUDIT = False
SOURCES = ("compact", "resume")


def decide(raw: bytes, env) -> tuple:
    payload = lc.read(raw, EVENT)
    if payload is None:
        return lc.Outcome(), None
    try:
        source = payload.get("source")
        if source not in SOURCES:
            return lc.Outcome(), payload
        project = lc.project(payload, env)
        if project is None:
            return lc.Outcome(), payload
        if source == "resume":
            _take_over(project, lc.text(payload, "session_id", 256))
        return restore(project, source, env, lc.text(payload, "transcript_path")), payload
    except Exception as exc:
        return lc.internal_error(EVENT, exc), payload


def _take_over(project, session_id):
    """A session the user resumed takes the breezing Lead's place (leadship.take_over)."""
    from gateway.orchestration import leadship
    from gateway.state.store import StateError

    try:
        leadship.take_over(project, session_id)
    except (StateError, ValueError):
        pass        # the restore below reports a broken state file


def restore(project: str, source: str, env, transcript_path=None) -> lc.Outcome:
    import os

    from gateway.orchestration import restore as breezing
    from gateway.orchestration import signals, workflow
    from gateway.state.layout import layout
    from gateway.state.store import StateError

    parts, messages = [], []
    lay = layout(project)
    b = breezing.breezing_context(project, source, env, transcript_path)
    if b.context:
        parts.append(b.context)
    if b.warning:
        messages.append(b.warning)
    try:
        text, problems = workflow.restore(project)
    except StateError as exc:
        text, problems = None, []
        parts.append(f"gateway: the saved workflow position cannot be read "
                     f"(.claude/state/{workflow.DB_NAME} {exc.problem}); check the spec's task "
                     f"list by hand before continuing.")
        messages.append(f"gateway: {exc}")
    if text:
        parts.append(text)
    if problems:
        messages.append("gateway: " + "; ".join(problems[:3]))
    if b.context and b.warning is None and os.path.lexists(lay.signals):
        try:
            from gateway.state import files

            active = files.load_active(lay)
            warnings: list[str] = []
            taken = signals.take_signals(lay, active.session_id if active else None,
                                         warnings=warnings)
            messages.extend(warnings)
            if taken:
                parts.append(signals.describe(taken, active))
        except StateError as exc:
            messages.append(f"gateway: the breezing signals were not handed over: {exc}")
    return lc.Outcome("\n\n".join(parts) or None, "\n".join(messages) or None)


def render(outcome) -> str:
    return lc.render(outcome, EVENT, context_allowed=True)
