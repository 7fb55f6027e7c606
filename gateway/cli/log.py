"""`gateway log`: the decisions the hooks made, from the audit log."""

import collections
import json
import sys

import click

from gateway.cli._auditlog import WHEN_HELP, Reading, parse_when, read

EXIT_CONFIG = 3
EPILOG = """\b
Exit codes: 0 done (also when nothing matched), 2 usage error, 3 the audit log is off or
cannot be read.
"""
_COLOURS = {"allow": "green", "ask": "yellow", "deny": "red"}


class When(click.ParamType):
    name = "WHEN"

    def convert(self, value, param, ctx):
        try:
            return parse_when(value)
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


def check_range(since, until) -> None:
    if since is not None and until is not None and since >= until:
        raise click.BadParameter("--since is not before --until, so nothing can match",
                                 param_hint="'--since' / '--until'")


def check_codes(codes) -> tuple:
    """The codes, upper-cased; a usage error naming the first one that is not a reason code."""
    from gateway.codes import CODES

    for code in codes:
        if code.upper() not in CODES:
            raise click.BadParameter(f"{code!r} is not a reason code; `gateway explain --list` "
                                     "lists them", param_hint="'--code'")
    return tuple(c.upper() for c in codes)


def log_file_option(f):
    return click.option("--file", "log_file", type=click.Path(dir_okay=False), default=None,
                        help="The audit log to read (default: $GATEWAY_AUDIT_LOG, else "
                             "~/.local/state/gateway/audit.jsonl).")(f)


def resolve_log(log_file) -> str:
    """The log path, or exit 3 with the reason."""
    from gateway import audit

    if log_file:
        from gateway.cli._auditlog import log_files

        if not log_files(log_file):
            click.echo(f"gateway: {log_file}: no such file (the audit log is "
                       f"{audit.log_path() or 'off'}; --file names another one)", err=True)
            sys.exit(EXIT_CONFIG)
        return log_file
    path = audit.log_path()
    if path is None:
        click.echo("gateway: the audit log is off (GATEWAY_AUDIT_LOG=off); unset it to "
                   "record decisions, or pass --file", err=True)
        sys.exit(EXIT_CONFIG)
    return path


def one_line(text, width) -> str:
    text = str(text or "").replace("\n", "⏎").replace("\t", " ")
    return text if width <= 0 or len(text) <= width else text[:width - 1] + "…"


#: The hook event of a line, short: one tool call is judged by PreToolUse and, when the
#: client shows its dialog, again by PermissionRequest (two lines, each with its own code).
_EVENTS = {"PreToolUse": "pre", "PermissionRequest": "perm", "PostToolUse": "post",
           "SessionStart": "start", "UserPromptSubmit": "prompt", "PreCompact": "compact",
           "TaskCompleted": "task", "TeammateIdle": "idle"}


def print_entry(entry, full: bool) -> None:
    when = str(entry.get("time", "?")).replace("T", " ")
    decision = str(entry.get("decision", "?"))
    event = str(entry.get("event") or "-")
    head = (f"{when}  " + click.style(f"{decision:5}", fg=_COLOURS.get(decision))
            + f"  {entry.get('code') or '-':6} {_EVENTS.get(event, event)[:7]:7} "
            + f"{entry.get('tool') or '-':5} ")
    click.echo(head + one_line(entry.get("command"), 0 if full else 100))
    if full:
        for key in ("event", "session", "agent", "cwd", "phase", "rule", "message",
                    "latency_ms"):
            if entry.get(key) not in (None, ""):
                click.echo(f"      {key}: {entry[key]}")


@click.command("log", epilog=EPILOG)
@click.option("--since", type=When(), default=None, help=f"Only decisions from then on: {WHEN_HELP}.")
@click.option("--until", type=When(), default=None, help="Only decisions before then.")
@click.option("--decision", "decisions", multiple=True,
              type=click.Choice(["allow", "ask", "deny"]), help="Only this decision (repeatable).")
@click.option("--code", "codes", multiple=True, metavar="GWnnn", help="Only this reason code (repeatable).")
@click.option("--event", "events", multiple=True, metavar="EVENT",
              help="Only this hook event, e.g. PermissionRequest (repeatable).")
@click.option("--tool", "tools", multiple=True, metavar="TOOL", help="Only this tool, e.g. Bash.")
@click.option("--session", "sessions", multiple=True, metavar="ID", help="Only this session.")
@click.option("--grep", default=None, metavar="TEXT", help="Only commands containing TEXT.")
@click.option("-n", "--limit", type=click.IntRange(min=0), default=0,
              help="Show only the last N matching decisions (0: all).")
@click.option("-v", "--verbose", is_flag=True, help="Show every field, untruncated.")
@click.option("--json", "as_json", is_flag=True, help="Print the matching entries as JSON lines.")
@log_file_option
def command(since, until, decisions, codes, events, tools, sessions, grep, limit, verbose,
            as_json, log_file):
    """Show the gateway's decisions from the audit log, oldest first: time, decision, code,
    hook event (pre: PreToolUse, perm: PermissionRequest, post: PostToolUse...), tool,
    command. A call the client shows its dialog for is judged twice, once per event.

    \b
    Examples:
      gateway log --since 1d                       # the last 24 hours
      gateway log --since today --decision ask     # what prompted you today
      gateway log --decision deny -v               # every deny, with its reason
      gateway log --code GW703 -n 20               # the last 20 unknown commands
      gateway log --since 1w --json | jq -r .command | sort | uniq -c | sort -rn
    """
    check_range(since, until)
    codes = check_codes(codes)
    path = resolve_log(log_file)
    reading = Reading()
    entries = read(path, reading, since, until, set(decisions), set(events), codes,
                   set(sessions), set(tools), grep)
    try:
        if limit:
            entries = collections.deque(entries, maxlen=limit)
        count = 0
        for entry in entries:
            count += 1
            if as_json:
                click.echo(json.dumps(entry, ensure_ascii=False))
            else:
                print_entry(entry, verbose)
    except OSError as exc:
        click.echo(f"gateway: cannot read the audit log {path}: {exc.strerror or exc}", err=True)
        sys.exit(EXIT_CONFIG)
    if not reading.files:
        click.echo(f"gateway: no audit log yet at {path} (decisions are recorded once the "
                   "hooks run; `gateway install` registers them)", err=True)
    elif not as_json and count == 0:
        click.echo("no matching decisions", err=True)
    if reading.skipped:
        click.echo(reading.skipped_note(), err=True)
    sys.exit(0)
