"""Phase 7B: ALWAYS_ASK, and the user's own permissions.ask / permissions.deny rules.

ALWAYS_ASK is matched on the resolved, lower-case command name. The Claude Code settings
rules are binding: a command they name is never auto-allowed (ask), or is denied (deny).
"""

PHASE = "7B"


def run(ctx, name: str, argv, cmd_text: str):
    if name in ctx.policy.always_ask:
        return ctx.ask(PHASE, "GW701", f"{name} is on the ALWAYS_ASK list",
                       rule=f"always_ask:{name}")
    return settings(ctx, argv, cmd_text)


def settings(ctx, argv, cmd_text: str):
    rules = ctx.settings
    if rules is None:
        return None
    hit = rules.match(argv, cmd_text)
    if hit is None:
        return None
    kind, rule, source = hit
    if kind == "deny":
        return ctx.deny(PHASE, "GW709", f"permissions.deny rule {rule} in {source}",
                        rule=f"settings.deny:{rule}")
    return ctx.ask(PHASE, "GW708", f"permissions.ask rule {rule} in {source}",
                   rule=f"settings.ask:{rule}")
