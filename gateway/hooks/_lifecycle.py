"""Shared plumbing of the lifecycle hooks (SessionStart, PreCompact, TaskCompleted,
TeammateIdle, UserPromptSubmit): they serve the state and orchestration modules and make no
permission decision.

Contract (SPEC §2): read all of stdin, exit 0, print one JSON object or nothing. What they may
print: ``additionalContext`` for the model (SessionStart, UserPromptSubmit) and a
``systemMessage`` for the user when a state file is broken (it says what and how to repair).
They never block (no exit 2, no ``decision: block``, no ``continue: false``): a broken state
file must not stop a teammate, a compaction or a prompt, and must not become an instruction.

Input that is not a JSON object, an event name that is not the hook's, or a payload without
the event's own fields is ignored (nothing is written, nothing printed): this is also what
`gateway doctor`'s probe sends, so the probe has no side effects.
"""

import json

from gateway.hooks import payload as pl


class Outcome:
    """What a lifecycle hook prints: ``context`` (for the model), ``message`` (for the user)."""

    __slots__ = ("context", "message", "decision")

    def __init__(self, context=None, message=None):
        self.context = context
        self.message = message
        self.decision = None          # not a permission decision

    def __repr__(self) -> str:
        return f"Outcome(context={self.context!r}, message={self.message!r})"


def read(raw: bytes, event: str):
    """The payload, or None when the hook must ignore the input."""
    try:
        payload = pl.read(raw)
    except pl.PayloadError:
        return None
    name = payload.get("hook_event_name")
    if name is not None and name != event:
        return None
    return payload


def text(payload: dict, key: str, limit: int = 4096):
    """A string field, or None when absent, not a string, empty or not encodable."""
    v = payload.get(key)
    if not isinstance(v, str) or not v:
        return None
    try:
        v.encode("utf-8")
    except UnicodeEncodeError:
        v = v.encode("utf-8", "backslashreplace").decode("utf-8")
    return v[:limit]


def task_id(payload: dict):
    """A TaskCreated/TaskCompleted ``task_id`` as text (a number is accepted), or None."""
    tid = payload.get("task_id")
    if isinstance(tid, int) and not isinstance(tid, bool):
        tid = str(tid)
    if not isinstance(tid, str) or not tid.strip() or len(tid) > 256:
        return None
    return tid


def project(payload: dict, env) -> str | None:
    """The project directory (SPEC §2: CLAUDE_PROJECT_DIR, else the payload's cwd walked up to
    the nearest .claude/, else cwd), or None: a cwd that is not an absolute path (the payload
    is malformed), or neither a cwd nor CLAUDE_PROJECT_DIR."""
    from gateway import paths

    cwd = payload.get("cwd")
    if cwd is not None and not (isinstance(cwd, str) and cwd.startswith("/")
                                and paths.usable(cwd)):
        return None                      # a malformed payload: ignored
    explicit = env.get("CLAUDE_PROJECT_DIR")
    if cwd is None and not (isinstance(explicit, str) and explicit.startswith("/")):
        return None
    return paths.project_dir(cwd, env)


def internal_error(event: str, exc: BaseException) -> Outcome:
    return Outcome(message=f"gateway: internal error in the {event} hook "
                           f"({type(exc).__name__}: {str(exc)[:300]}); nothing was changed by "
                           f"it. Please report it with the hook input.")


def render(outcome, event: str, context_allowed: bool) -> str:
    if not isinstance(outcome, Outcome):
        return ""
    out = {}
    if outcome.context and context_allowed:
        out["hookSpecificOutput"] = {"hookEventName": event,
                                     "additionalContext": outcome.context}
    if outcome.message:
        out["systemMessage"] = outcome.message
    return json.dumps(out, ensure_ascii=True) if out else ""
