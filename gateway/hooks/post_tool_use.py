"""The PostToolUse hook: a role is registered from the completed role-marker Write.

PreToolUse only checks a registration (and refuses one that must be refused): the client
may still refuse the Write itself (it treats .claude/ as sensitive) or the human may answer
No, so recording it there would register a role for a file that was never written
(reference/claude-code-hooks.md §15). PostToolUse fires once the Write has completed; the
registration is recorded here, with every check run again on the state as it is now.

Output: nothing when the call is not a role-marker Write or the role was recorded; when it
could not be recorded, `additionalContext` tells the model why (PostToolUse cannot undo the
Write; an unregistered marker gives no role).
"""

import json

from gateway.decision import DENY, Verdict
from gateway.hooks import payload as pl

EVENT = "PostToolUse"
#: Only a Write registers a role (an Edit of a marker is refused by PreToolUse).
MATCHER = "Write"
ON_FAILURE_BLOCK = False  # a completed call cannot be blocked


def decide(raw: bytes, env) -> tuple:
    """(verdict, payload or None). Never raises."""
    try:
        payload = pl.read(raw)
    except pl.PayloadError as exc:
        # whether it was a role marker cannot be told: nothing is registered, nothing said
        # to the model (most Writes are not markers); the audit log keeps the reason
        return Verdict(DENY, "guard:input", "GW892", "", f"the hook input cannot be read "
                       f"({exc}); no role was registered", command=SILENT), None
    if not _completed(payload.get("tool_response")):
        return Verdict(DENY, "guard:register", "GW806", "", "the Write did not complete; no "
                       "role was registered"), payload
    try:
        from gateway.guards.engine import record_registration

        verdict = record_registration(payload, env)
    except Exception as exc:  # record_registration never raises; the last line of defence
        verdict = Verdict(DENY, "guard:error", "GW893", "", f"{type(exc).__name__}: {exc}")
    if verdict is None:
        return Verdict(DENY, "guard", "GW800", "", "not a role marker Write"), payload
    return verdict, payload


def _completed(response) -> bool:
    """A tool_response that does not say the Write failed. PostToolUse fires for completed
    calls; a response carrying an error or success: false is taken at its word."""
    if isinstance(response, dict):
        if response.get("success") is False or response.get("error"):
            return False
        if response.get("is_error") is True or response.get("isError") is True:
            return False
    return True


SILENT = "(PostToolUse input that cannot be read)"


def render(verdict) -> str:
    if verdict.code == "GW800" or verdict.decision is not DENY or verdict.command == SILENT:
        return ""
    text = (f"gateway {verdict.code}: the role marker was written but no role was "
            f"registered: {verdict.message}")
    return json.dumps({"hookSpecificOutput": {"hookEventName": EVENT,
                                              "additionalContext": text}}, ensure_ascii=True)
