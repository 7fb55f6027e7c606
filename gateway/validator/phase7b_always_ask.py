"""Phase 7B: ALWAYS_ASK, and the user's own permissions.ask / permissions.deny rules.

ALWAYS_ASK is matched on the resolved, lower-case command name. The Claude Code settings
rules are binding: a command they name is never auto-allowed (ask), or is denied (deny).
"""

PHASE = "7B"


def run(ctx, name: str, argv, cmd_text: str):
    if name in ctx.policy.always_ask and not (ctx.exposure and ctx.policy.command(name)) \
            and not _removal_edit(ctx, name) and not _modelled(ctx, name):
        # exposure: a catalogued command's reads are judged from its entry, whatever else
        # makes it ask (cp reads its sources, rm reads nothing)
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
    if kind != "deny" and ctx.exposure:
        return None  # the client applies its ask rules itself; they say nothing of reads
    if kind == "deny":
        return ctx.deny(PHASE, "GW709", f"permissions.deny rule {rule} in {source}",
                        rule=f"settings.deny:{rule}")
    return ctx.ask(PHASE, "GW708", f"permissions.ask rule {rule} in {source}",
                   rule=f"settings.ask:{rule}")


#: ALWAYS_ASK entries whose catalogue check judges the one form the gateway models, and asks
#: for every other with its real reason: curl to this machine's loopback (checks/net.py).
_MODELLED = {"curl": "curl"}


def _modelled(ctx, name) -> bool:
    """curl: its check (checks/net.py) allows only a request to the loopback and asks for
    everything else (GW790/GW791), so the floor's ask stands for every other form. The
    built-in catalogue entry must name the check; a layer's own entry without it keeps the
    ask."""
    check = _MODELLED.get(name)
    if check is None:
        return False
    spec = ctx.policy.command(name)
    return spec is not None and spec.check == check


def _removal_edit(ctx, name) -> bool:
    """rm and rmdir in a mode that accepts edits: their catalogue check judges the removal
    as an edit (checks/removal.py) instead of the name asking. A user or project layer that
    puts them on ALWAYS_ASK keeps the floor's ask in every mode only through that check's
    own rules; the built-in catalogue entry must say `check: rm`."""
    from gateway.validator import modes

    if name not in ("rm", "rmdir") or not modes.accepts_edits(ctx.mode):
        return False
    spec = ctx.policy.command(name)
    return spec is not None and spec.edit and spec.check == "rm"
