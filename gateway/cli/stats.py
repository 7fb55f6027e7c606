"""`gateway stats`: which commands cost the most prompts, and the narrowest safe rule for each."""

import json
import sys

import click

from gateway.cli._auditlog import WHEN_HELP, Reading, read
from gateway.cli.log import EXIT_CONFIG, When, check_range, log_file_option, one_line, resolve_log

EPILOG = """\b
Exit codes: 0 done, 2 usage error, 3 the audit log is off or cannot be read, or a proposal
could not be proven (a bug: please report it).
"""


@click.command("stats", epilog=EPILOG)
@click.option("--since", type=When(), default=None, help=f"Only prompts from then on: {WHEN_HELP}.")
@click.option("--until", type=When(), default=None, help="Only prompts before then.")
@click.option("--top", type=click.IntRange(min=1), default=15, show_default=True,
              help="How many commands to list (and propose rules for).")
@click.option("--event", "events", multiple=True, default=("PermissionRequest",),
              show_default=True, metavar="EVENT",
              help="Hook event whose `ask` decisions count as prompts (repeatable).")
@click.option("--yaml", "yaml_only", is_flag=True, help="Print only the proposed rules (YAML).")
@click.option("--json", "as_json", is_flag=True, help="Print the table and proposals as JSON.")
@log_file_option
def command(since, until, top, events, yaml_only, as_json, log_file):
    """Show which commands cost you the most prompts, and propose the narrowest rule that
    would let each run without one.

    A prompt is a call the gateway left to you (an `ask` of the PermissionRequest hook).
    Each is judged again with today's rules. Only prompts caused by a missing rule -- an
    unknown command (GW703) or subcommand (GW705) -- get a proposal; whatever a safety check
    asked for (ALWAYS_ASK, subcommand_ask, your permissions.ask, secrets, paths outside the
    project, shell syntax) never does. Each proposal is a catalogue entry allowing only the
    options and argument counts you used; it is loaded and checked with the real validator
    before it is shown. It belongs in your user rules (~/.config/gateway/rules.yaml): a
    project's .claude/gateway.yaml can only make the policy stricter.

    \b
    Examples:
      gateway stats                       # everything in the audit log
      gateway stats --since 1w --top 5
      gateway stats --yaml >> ~/.config/gateway/rules.yaml   # then: gateway rules validate
    """
    from gateway.cli import _proposals
    from gateway.policy.load import user_rules_path

    check_range(since, until)
    path = resolve_log(log_file)
    reading = Reading()
    try:
        entries = list(read(path, reading, since, until, {"ask"}, set(events)))
    except OSError as exc:
        click.echo(f"gateway: cannot read the audit log {path}: {exc.strerror or exc}", err=True)
        sys.exit(EXIT_CONFIG)
    if reading.skipped:
        click.echo(reading.skipped_note(), err=True)
    env = _proposals.Env()
    groups, now_allowed = _proposals.collect(entries, env)
    _proposals.propose(groups, env, top)
    shown = groups[:top]
    text, problem = _proposals.combined(shown, env)
    if problem:
        click.echo(f"gateway: the combined proposal does not hold ({problem}); please "
                   "report this", err=True)
        sys.exit(EXIT_CONFIG)
    target = user_rules_path()
    if as_json:
        click.echo(json.dumps(_as_json(shown, entries, now_allowed, text, target), indent=2,
                              ensure_ascii=False))
        sys.exit(0)
    if yaml_only:
        if text:
            click.echo(_header(target) + text, nl=False)
        sys.exit(0)
    if not reading.files:
        click.echo(f"gateway: no audit log yet at {path}", err=True)
    _table(shown, len(entries), now_allowed, len(groups) - len(shown))
    if text:
        click.echo("")
        click.echo(_header(target) + text, nl=False)
    sys.exit(0)


def _header(target) -> str:
    return (f"# Proposed by `gateway stats`. Paste into {target}\n"
            "# (the user layer: it may add commands; .claude/gateway.yaml can only tighten).\n"
            "# If that file already has a `catalogue:` key, merge the entries under it.\n"
            "# Then run `gateway rules validate`.\n")


def _table(groups, total, now_allowed, more) -> None:
    if not groups:
        click.echo(f"{total} prompt(s) in the log" + (f", {now_allowed} of them allowed by "
                                                      "today's rules" if now_allowed else ""))
        return
    click.echo(f"{total} prompt(s); {now_allowed} would be allowed by today's rules.\n")
    click.echo(f"{'prompts':>7}  {'command':28} {'code':6} proposal")
    for g in groups:
        if g.proposal is not None:
            saved = f" (saves {g.proposal.saved} of {g.prompts})" \
                if g.proposal.saved != g.prompts else ""
            what = click.style(g.proposal.summary + saved, fg="green")
        else:
            what = click.style("none: " + g.reason, fg="yellow")
        click.echo(f"{g.prompts:>7}  {one_line(g.label, 28):28} {g.code or '-':6} {what}")
    if more:
        click.echo(f"  ... and {more} more (--top)")


def _as_json(groups, entries, now_allowed, text, target) -> dict:
    out = []
    for g in groups:
        item = {"label": g.label, "code": g.code, "prompts": g.prompts,
                "commands": dict(g.commands.most_common(10))}
        if g.proposal is not None:
            item["proposal"] = {"name": g.proposal.name, "entry": g.proposal.entry,
                                "summary": g.proposal.summary, "saves": g.proposal.saved,
                                "replaces_builtin": g.proposal.replaces_builtin}
        else:
            item["no_proposal"] = g.reason
        out.append(item)
    return {"prompts": len(entries), "allowed_now": now_allowed, "groups": out,
            "yaml": text, "yaml_file": target}
