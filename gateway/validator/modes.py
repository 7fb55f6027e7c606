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

# the client's permission modes (gateway.client): the names, and how an absent or unknown
# one is judged
from gateway.client import (  # noqa: F401
    ACCEPT_EDITS,
    DEFAULT,
    EDITS,
    KNOWN,
    PLAN,
    accepts_edits,
    normalize,
)
from gateway.decision import ALLOW


def apply(ctx, verdict, mode):
    """The verdict under `mode`: in plan mode (or an unknown one) an allow stands only for a
    command that writes nothing."""
    if verdict.decision is not ALLOW or normalize(mode) != PLAN:
        return verdict
    from gateway.effects.analysis import analyze

    # what the validator's checks proved writes nothing (npx tsc --noEmit, unzip -l, the
    # words xargs adds as operands): the same judgement, not a second model of those tools
    effects = analyze(ctx.text, ctx.cwd, policy=ctx.policy,
                      facts=frozenset(getattr(ctx, "readonly_facts", ())))
    if effects.readonly:
        ctx.step("mode", "pass", "", f"{mode or 'plan'} mode: the command writes nothing")
        return verdict
    why = "; ".join(effects.reasons()[:2]) or "it is not known to be read-only"
    label = mode if mode in KNOWN else f"unknown mode {mode!r} (judged as plan)"
    return ctx.ask("mode", "GW720", f"{label}: nothing may change the project while a plan "
                   f"is reviewed, and {why}", rule="mode:plan")
