"""Phase S0: NUL bytes, empty and oversized commands.

A NUL anywhere (in the raw payload or in the decoded command) ends the check: programs see it
as the end of a string. The literal six characters `\\u0000` inside a command are just text
(the seed rejected them by substring; that was a false positive).
"""

PHASE = "S0"


def run(ctx):
    raw = ctx.raw_input
    if raw is not None and ("\x00" in raw if isinstance(raw, str) else b"\x00" in raw):
        return ctx.ask(PHASE, "GW001", "the hook payload contains a NUL byte")
    if "\x00" in ctx.command:
        return ctx.ask(PHASE, "GW001", "the command contains a NUL character")
    if not ctx.command.strip():
        return ctx.ask(PHASE, "GW002", "the command is empty")
    limit = ctx.policy.max_command_length
    if len(ctx.command) > limit:
        return ctx.ask(PHASE, "GW003", f"the command is {len(ctx.command)} characters long; "
                       f"the limit is {limit} (limits.max_command_length)")
    ctx.step(PHASE, "pass")
    return None
