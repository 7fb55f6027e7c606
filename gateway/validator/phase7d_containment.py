"""Phase 7D: a known command whose path arguments all stay inside the project is allowed."""

PHASE = "7D"


def run(ctx, label: str, count: int):
    # the reason is the catalogue entry (every option and argument it allows); the paths
    # are only what is left to check, never a reason in themselves
    where = (f"its {count} path argument(s) stay inside the project" if count
             else "it names no path")
    if count and ctx.__dict__.get("cache_reads"):
        where = (f"its {count} path argument(s) stay inside the project or are read from a "
                 "dependency cache (" + ", ".join(sorted(ctx.cache_reads)) + ")")
    return ctx.allow(PHASE, "GW700", f"{label.split(':', 1)[-1]} is in the catalogue with "
                     f"all its options and arguments allowed; {where}", rule=label)
