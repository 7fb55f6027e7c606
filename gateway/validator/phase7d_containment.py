"""Phase 7D: a known command whose path arguments all stay inside the project is allowed."""

PHASE = "7D"


def run(ctx, label: str, count: int):
    what = f"{count} path argument(s) inside the project" if count else "no path arguments"
    return ctx.allow(PHASE, "GW700", f"{label.split(':', 1)[-1]} is a known command; {what}",
                     rule=label)
