"""Phase 3: the bashlex parse into real words.

If bashlex rejected the text (or skipped any of it), nothing is allowed. Otherwise each
segment's command word must be a plain, unquoted name that is not a builtin running code.
Quote removal itself happened in gateway.shell.words: the segments carry the words bash
would pass.
"""

from gateway.shell import shellstate

PHASE = "3"


def run(ctx):
    if ctx.script is None:
        err = ctx.parse_error
        if err is not None and err.unsupported:
            return ctx.ask(PHASE, "GW302", str(err))
        return ctx.ask(PHASE, "GW301", f"cannot parse: {err}")
    for pipeline, _op in ctx.script.items:
        for cmd in pipeline.commands:
            if cmd is None:
                continue  # compound commands were refused in phase 2
            if cmd is getattr(ctx, "shell_last", None) and not cmd.words:
                continue  # FOO=bar as the last command (phase 2)
            if not cmd.words:
                return ctx.ask(PHASE, "GW305", f"no command word in {cmd.text!r}")
            name = cmd.words[0]
            if name.quoted:
                return ctx.ask(PHASE, "GW303", f"the command name {name.raw} is quoted or "
                               "escaped")
            if name.raw in ("source", ".") and shellstate.kind(cmd) == shellstate.SOURCE:
                continue  # judged as the file it runs (gateway.validator.segment)
            if name.value in ctx.policy.shell_builtins:
                return ctx.ask(PHASE, "GW304", f"{name.value} runs the code it is given",
                               rule=f"shell_builtins:{name.value}")
    ctx.step(PHASE, "pass", "", f"{len(ctx.script.items)} list item(s)")
    return None
