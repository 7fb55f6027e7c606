"""The writes the effects analysis names, judged as the PreToolUse guards judge them.

The catalogue's own path checks (phase 5) see the paths a command's words name; the effects
analysis (gateway.effects.analysis) also knows where they land: a file copied into a
directory (`cp x DIR/`, `cp -t DIR x`), a name an option derives (`cp -b -S .json`, `sed
-i.json`), a target after a `cd`. Whatever the guards' write judgement finds there
(gateway.effects.writejudge) stops the validator's allow too: a protected path asks GW504
(a secret GW503), a file that runs later GW780, a filtered tree write over a protected path
GW504. So PermissionRequest, the early allow and `gateway check` never allow what the
PreToolUse guards ask for or deny as a write (issue 28: the two hooks never disagree).
"""

PHASE = "5"


def run(ctx):
    """An ask verdict for the first write the guards object to, else None."""
    from gateway.effects import files, writejudge

    effects = analysis(ctx)
    if not (effects.writes or effects.surface_ops):
        return None
    surface = files.Surface(ctx.roots, ctx.policy, ctx.env)
    found = writejudge.findings(effects, surface, ctx.cwd, ctx.project)
    denies = [f for f in found if f.kind in (writejudge.PROTECTED, writejudge.FILTERED)]
    if effects.surface_ops and not denies:
        return ctx.ask(PHASE, "GW504", f"{effects.surface_ops[0]}",
                       rule="protected:settings")
    if not denies:
        verdict = _client_sensitive(ctx, effects) or _memory(ctx, effects)
        if verdict is not None:
            return verdict
    for f in denies + [f for f in found if f not in denies]:
        w, p, hit = f.write, f.path, f.hit
        where = ("in a directory that cannot be known, which may be " if f.unknown_dir
                 else "") + p
        if f.kind == writejudge.FILTERED:
            what = "more than it can look at" if hit is files.UNKNOWN else f"{hit[1]}: {hit[2]}"
            return ctx.ask(PHASE, "GW504", f"{w.via} changes files below {w.target!r} "
                           f"({where}) chosen by a filter the gateway does not reproduce, and "
                           f"the tree holds a protected path ({what})",
                           rule=f"protected-below:{hit[1] or p}")
        code, rule, what = hit
        if code == files.AUTORUN_CODE:
            return ctx.ask(PHASE, "GW780", f"{w.via} writes {w.target!r} ({where}): {what} "
                           f"({rule})", rule=f"autorun:{rule}")
        if code == "GW833":
            return ctx.ask(PHASE, "GW503", f"{w.via} writes {w.target!r} ({where}): {what} "
                           f"({rule})", rule=f"secrets:{rule}")
        return ctx.ask(PHASE, "GW504", f"{w.via} writes {w.target!r} ({where}): {what} "
                       f"({rule}) [{code}]", rule=f"protected:{rule}")
    return None


def _client_sensitive(ctx, effects):
    """GW783: a named write of a file the client treats as sensitive on its own
    (gateway.clientfiles): its own dialog must stay."""
    from gateway.clientfiles import sensitive

    for w in effects.writes:
        for p in w.paths:
            hit = sensitive(p, ctx.policy)
            if hit:
                return client_ask(ctx, w.via, w.target, p, hit)
    return None


def _memory(ctx, effects):
    """GW784: a write of a memory file that may add an @import of a secret or of a file
    outside the project (gateway.memory)."""
    import os

    from gateway import memory

    why = memory.bash_concern(effects, ctx.text, ctx.roots, ctx.policy,
                              ctx.home or os.path.normpath(os.path.expanduser("~")), ctx.env)
    if why is None:
        return None
    return ctx.ask(PHASE, "GW784", why, rule="memory:import")


def client_ask(ctx, via, target, path, hit):
    return ctx.ask(PHASE, "GW783", f"{via} writes {target!r} ({path}), which Claude Code "
                   f"treats as a sensitive file ({hit}): it asks before it edits one, even "
                   "in acceptEdits, and an allow from the gateway would skip that",
                   rule=f"client_sensitive:{hit}")


def analysis(ctx):
    """The effects analysis of the command being validated, made once per validation."""
    effects = ctx.__dict__.get("_effects")
    if effects is None:
        from gateway import usershell
        from gateway.effects.analysis import analyze

        text = usershell.as_bash(ctx.text) if usershell.is_zsh(ctx.env) else ctx.text
        effects = ctx.__dict__["_effects"] = analyze(text, ctx.cwd, home=ctx.home,
                                                     policy=ctx.policy)
    return effects
