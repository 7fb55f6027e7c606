"""Claude Code's permission mode as part of the validator's decision.

The payload's `permission_mode` says what the human has consented to for this session:

* ``default`` (and ``auto``, ``dontAsk``, ``delegate`` of older clients): as the catalogue
  says;
* ``plan``: nothing may change the project while the human reviews a plan. A hook allow in
  plan mode really runs a writing command (reference/claude-code-hooks.md §5), so an allow
  stands only for a command the effects analysis proves read-only (GW720);
* ``acceptEdits`` (and ``auto``, which runs the same in-project edits by itself): the human
  accepts edits inside the project; the catalogue's edit forms are allowed (see the
  catalogue's ``edit`` entries), with the protected paths and secrets as everywhere;
* ``bypassPermissions``: the client asks nothing; the hooks' allows change nothing and
  their denies still hold;
* anything else (a mode a newer client invented) is treated as plan: no allow for a write.
"""

from gateway.decision import ALLOW

DEFAULT = "default"
PLAN = "plan"
ACCEPT_EDITS = "acceptEdits"
#: Modes the gateway knows; an absent mode (older clients, the CLI) is "default".
KNOWN = frozenset((DEFAULT, PLAN, ACCEPT_EDITS, "bypassPermissions", "dontAsk", "auto",
                   "delegate"))
#: Modes in which the human accepted edits inside the project. Auto mode runs the client's
#: own in-project edits (mkdir, cp, sed -i, redirections) before its classifier looks at
#: anything, as acceptEdits does (measured, docs/client-behaviour.md).
EDITS = frozenset((ACCEPT_EDITS, "auto", "bypassPermissions"))


def normalize(mode):
    """The mode to judge by: a known mode as is, "default" for none, "plan" for an unknown
    one (the strictest about writes)."""
    if mode is None or mode == "":
        return DEFAULT
    return mode if mode in KNOWN else PLAN


def accepts_edits(mode) -> bool:
    return normalize(mode) in EDITS


def apply(ctx, verdict, mode):
    """The verdict under `mode`: in plan mode (or an unknown one) an allow stands only for a
    command that writes nothing."""
    if verdict.decision is not ALLOW or normalize(mode) != PLAN:
        return verdict
    from gateway.guards.effects import analyze

    effects = analyze(ctx.text, ctx.cwd, policy=ctx.policy)
    if effects.readonly:
        ctx.step("mode", "pass", "", f"{mode or 'plan'} mode: the command writes nothing")
        return verdict
    why = "; ".join(effects.reasons()[:2]) or "it is not known to be read-only"
    label = mode if mode in KNOWN else f"unknown mode {mode!r} (judged as plan)"
    return ctx.ask("mode", "GW720", f"{label}: nothing may change the project while a plan "
                   f"is reviewed, and {why}", rule="mode:plan")
