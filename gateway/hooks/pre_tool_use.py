"""The PreToolUse hook: the guards (role, codex, delegate mode, protected paths) and the hard
denies of the core (a Bash command the validator denies), for every tool.

Output per the measured contract (reference/claude-code-hooks.md §4):
`hookSpecificOutput.permissionDecision` "deny" (nobody may run it), "ask" (a human must say
yes: the dialog in an interactive session, a refusal in -p), "allow" (the validator allows
it; early allow, see gateway.guards.reads), or nothing: the client's own permission flow
decides, and that flow runs read-only commands and in-project reads by itself, so every
"never" of the gateway is a decision here. Any error it cannot classify denies: a guard
that cannot decide does not let the call through.
"""

from gateway import _fastjson as json
from gateway.decision import ALLOW, DENY, Verdict
from gateway.hooks import payload as pl

EVENT = "PreToolUse"
PASS_CODE = "GW800"  # no decision: the client's own permission flow decides
#: Every tool: in delegate mode the Lead may use only the delegate tools, so the hook must
#: see all of them. None = registered without a matcher (Claude Code: every tool).
MATCHER = None
ON_FAILURE_BLOCK = True


def decide(raw: bytes, env) -> tuple:
    """(verdict, payload or None) for raw stdin bytes. Never raises."""
    try:
        payload = pl.read(raw)
    except pl.PayloadError as exc:
        return Verdict(DENY, "guard:input", "GW892", "", f"the hook input cannot be read "
                       f"({exc}); the call is refused"), None
    except Exception as exc:  # pragma: no cover - read() raises PayloadError only
        return Verdict(DENY, "guard:error", "GW893", "", f"{type(exc).__name__}: {exc}"), None
    try:
        from gateway.runtime import evaluate_guards

        return evaluate_guards(payload, env), payload
    except Exception as exc:  # evaluate() never raises; this is the last line of defence
        return Verdict(DENY, "guard:error", "GW893", "", f"{type(exc).__name__}: {exc}"), \
            payload


def render(verdict) -> str:
    """The stdout text for a verdict: deny, ask or allow, or "" (no decision, GW800)."""
    if verdict.decision is DENY:
        decision = "deny"
    elif verdict.decision is ALLOW:
        decision = "allow"
    elif verdict.code != PASS_CODE:
        decision = "ask"
    else:
        return ""
    reason = f"gateway {verdict.code}: {verdict.message}"
    out = {"hookSpecificOutput": {"hookEventName": EVENT, "permissionDecision": decision,
                                  "permissionDecisionReason": reason}}
    # ASCII with \u escapes: a reason quoting hostile input (a lone surrogate from a JSON
    # "\ud800" escape) cannot make the output unwritable, so the deny always gets out
    return json.dumps(out, ensure_ascii=True)
