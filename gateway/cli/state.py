"""`gateway state show | validate | repair | clean [--all]`: the breezing state files, the
workflow database and the orchestrator store."""

import json
import os
import sys

import click

from gateway.cli._project import PROJECT_HELP, default_project

EXIT_PROBLEM = 1


def _project(project):
    return os.path.abspath(project) if project else default_project()


_PROJECT = click.option("--project", type=click.Path(file_okay=False, exists=True),
                        default=None, help=PROJECT_HELP)


@click.group("state")
def command():
    """The breezing session state in .claude/state/ (see docs/state.md).

    \b
    Examples:
      gateway state show                 what the guards and the workflow see
      gateway state validate             check every file against its schema
      gateway state repair               remove only what is broken; the session continues
      gateway state clean                end the breezing session (active file, roles, phase)
      gateway state clean --all          ... and the signals, timeline and review result

    \b
    A state directory that is a symbolic link or not a directory is refused by every
    command with the message the PreToolUse guards give (GW890); nothing is ever read,
    written or deleted through a link.
    """


@command.command("show")
@_PROJECT
def show(project):
    """Summarise the state files (a broken file is shown with its repair). Always exits 0,
    also when the state directory is unusable (the error is shown); `gateway state validate`
    is the check.

    \b
    Examples:
      gateway state show
      gateway state show --project ~/src/app
    """
    from gateway.state import files

    click.echo(files.show(_project(project)))


@command.command("validate")
@_PROJECT
@click.option("--json", "as_json", is_flag=True, help="One JSON object per file.")
def validate(project, as_json):
    """Check every state file against its schema, and everything else that makes the
    guards deny (GW890): the state directory (a link, a file, no permission) and lock files
    that are not regular files; also the workflow database (gateway-workflow.sqlite3) and
    the orchestrator store (agent-coord/) when they exist. Exit 0 when all is well, 1 when anything is broken; each
    problem is printed with how to repair it (docs/state.md#recovering-from-a-corrupt-file).

    \b
    Examples:
      gateway state validate
      gateway state validate --json | jq -r 'select(.ok | not) | .message'
    """
    from gateway.state import files

    results = files.validate(_project(project))
    bad = [r for r in results if not r.ok]
    for r in results:
        _print_check(r, as_json)
    sys.exit(EXIT_PROBLEM if bad else 0)


def _print_check(r, as_json=False, err=False):
    if as_json:
        click.echo(json.dumps({"file": r.file, "ok": r.ok, "message": r.message},
                              ensure_ascii=False), err=err)
    else:
        mark = click.style("ok ", fg="green") if r.ok else click.style("BAD", fg="red",
                                                                       bold=True)
        click.echo(f"{mark} {r.file}: {r.message}", err=err)


def _report(root, res) -> None:
    from gateway.state.cleanup import ASIDE

    for p, why in res.removed:
        if why.startswith(ASIDE):
            click.echo(f"set aside {os.path.relpath(p, root)}: {why[len(ASIDE):]}")
            continue
        click.echo(f"removed {os.path.relpath(p, root)}" + (f" ({why})" if why != "state file"
                                                            else ""))
    for exc in res.problems:
        click.echo(f"gateway: {exc}", err=True)


@command.command("repair")
@_PROJECT
def repair(project):
    """Remove only what is broken and keep the breezing session: temp files of writers
    that died, lock files that are not regular files, and an unusable
    breezing-session-roles.json (the teammates register again) or gateway-breezing-phase.json
    (record the phase again). Sets aside, keeping them: the unreadable lines of the signals
    and timeline logs (moved to <log>.unreadable; a torn line no longer holds up the
    hand-over) and an unusable workflow database gateway-workflow.sqlite3 (renamed to
    .unusable-<time>; the next PreCompact hook writes a new one). Files people or the Lead
    write, and the orchestrator store agent-coord/, are never changed; what is still broken
    is printed with its repair. Exit 0 when the state is valid afterwards, 1 when something
    is still broken.

    \b
    Examples:
      gateway state repair
      gateway state repair --project ~/src/app
    """
    from gateway.state import files
    from gateway.state.store import StateError

    root = _project(project)
    try:
        res = files.repair(root)
    except StateError as exc:
        click.echo(f"gateway: {exc}", err=True)
        sys.exit(EXIT_PROBLEM)
    _report(root, res)
    bad = [r for r in files.validate(root) if not r.ok]
    if not res.removed and not bad:
        click.echo("nothing to repair: the state is valid")
    elif not bad:
        click.echo("the state is valid; the breezing session continues")
    if bad:
        click.echo(f"still broken ({len(bad)}): repair by hand as each line says", err=True)
        for r in bad:
            _print_check(r, err=True)
        sys.exit(EXIT_PROBLEM)


@command.command("clean")
@_PROJECT
@click.option("--all", "all_", is_flag=True,
              help="Also remove breezing-signals.jsonl, breezing-timeline.jsonl and "
                   "review-result.json.")
def clean(project, all_):
    """End the breezing session: remove breezing-active.json, breezing-session-roles.json,
    the role markers, the gateway's phase record and temp files of dead writers (seed 000's
    manual cleanup). Other files in .claude/state/ are never touched, nor are the lock files.
    Corrupt files are removed too (nothing is parsed); a link is removed as a link, never
    followed. Exit 1 when the state directory is refused (a link, a file) or a file cannot be
    removed (a directory in its place); everything else is still removed.
    To keep the session, use `gateway state repair`.

    \b
    Examples:
      gateway state clean
      gateway state clean --all
      gateway state clean --project ~/src/app
    """
    from gateway.state import cleanup
    from gateway.state.store import StateError

    root = _project(project)
    try:
        res = cleanup.clean(root, all=all_)
    except StateError as exc:
        click.echo(f"gateway: {exc}", err=True)
        sys.exit(EXIT_PROBLEM)
    if not res.removed and not res.problems:
        click.echo("nothing to remove")
    _report(root, res)
    if res.problems:
        sys.exit(EXIT_PROBLEM)
