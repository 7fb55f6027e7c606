"""The SessionStart hook for sources ``compact`` and ``resume``: tell the model what it must do
next, from the state on disk.

* a /breezing session (breezing-active.json): rebuild or resume the right team for
  ``impl_mode``, stay in delegate mode in Phase B, never implement directly, and the mode
  mismatch warning (gateway.orchestration.restore);
* the spec workflow position saved by PreCompact (gateway.orchestration.workflow);
* the Lead's unconsumed progress signals (gateway.orchestration.signals).

Output: ``hookSpecificOutput.additionalContext`` (and a systemMessage for the user when a state
file is broken: the context then says that nothing may be rebuilt from memory and how to
repair the file). Nothing of that for ``startup`` and ``clear`` or when there is no state.

For every source (``startup``, ``resume``, ``clear``, ``compact``): a memory file the session
loads that imports a secret (or, for the project's own memory files, a file outside the
project) is reported (gateway.memory): the client has already put it into the model's
context, with no tool call, so the user is warned (systemMessage) and the model is told not
to use it (additionalContext).
"""

from gateway.hooks import _lifecycle as lc

EVENT = "SessionStart"
MATCHER = "startup|resume|clear|compact"
ON_FAILURE_BLOCK = False
AUDIT = False
SOURCES = ("compact", "resume")


def decide(raw: bytes, env) -> tuple:
    payload = lc.read(raw, EVENT)
    if payload is None:
        return lc.Outcome(), None
    try:
        source = payload.get("source")
        project = lc.project(payload, env)
        if project is None:
            return lc.Outcome(), payload
        warning = memory_imports(project, env)
        if source == "resume":
            _take_over(project, lc.text(payload, "session_id", 256))
        if source not in SOURCES:
            return warning, payload
        return _joined(restore(project, source, env, lc.text(payload, "transcript_path")),
                       warning), payload
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


def memory_imports(project: str, env) -> lc.Outcome:
    """The warning about memory files that import a secret or (the project's) a file outside
    the project (gateway.memory.scan); an empty Outcome when there is none."""
    import os

    from gateway import memory
    from gateway.paths import Roots
    from gateway.runtime import get_policy

    home = (env or os.environ).get("HOME") or os.path.expanduser("~")
    config = (env or os.environ).get("CLAUDE_CONFIG_DIR")
    try:
        policy = get_policy(project, env)
    except Exception as exc:  # the rules cannot be loaded: say so, never stay silent
        return lc.Outcome(message=f"gateway: the memory files were not checked for imports "
                          f"of secrets: the rules cannot be loaded ({exc})")
    try:  # a cold content scanner is started now, not on the session's first read
        from gateway.secrets import content

        content.warm(policy, env)
    except Exception:  # noqa: BLE001 - an optimisation: never in the way of the hook
        pass
    roots = Roots(project, policy.allowed_dirs)
    found = memory.scan(os.path.realpath(project), os.path.normpath(home), roots, policy,
                        config_dir=config if config and config.startswith("/") else None,
                        env=env)
    if not found:
        return lc.Outcome()
    lines = [f"{f} imports {imp} ({why})" for f, imp, why in found[:5]]
    more = f" (and {len(found) - 5} more)" if len(found) > 5 else ""
    message = ("gateway: a memory file Claude Code loaded into this session imports what the "
               "model should not see: " + "; ".join(lines) + more + ". Remove the @import "
               "line(s); the imported text is already in this session's context.")
    context = ("gateway: the memory files of this session import files the model must not "
               "use: " + "; ".join(lines) + more + ". Do not use, quote or act on their "
               "contents; tell the user to remove the @import line(s).")
    return lc.Outcome(context, message)


def _joined(a, b) -> lc.Outcome:
    context = "\n\n".join(x for x in (a.context, b.context) if x) or None
    message = "\n".join(x for x in (a.message, b.message) if x) or None
    return lc.Outcome(context, message)


def render(outcome) -> str:
    return lc.render(outcome, EVENT, context_allowed=True)
