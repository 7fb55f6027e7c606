"""`gateway state show | validate | clean [--all]`: the breezing state files."""

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
      gateway state clean                end the breezing session (active file, roles, phase)
      gateway state clean --all          ... and the signals, timeline and review result
    """


@command.command("show")
@_PROJECT
def show(project):
    """Summarise the state files (a broken file is shown with its repair). Always exits 0;
    `gateway state validate` is the check.

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
    """Check every state file against its schema. Exit 1 when any is broken; each broken
    file is printed with how to repair it (docs/state.md#recovering-from-a-corrupt-file).

    \b
    Examples:
      gateway state validate
      gateway state validate --json | jq -r 'select(.ok | not) | .message'
    """
    from gateway.state import files

    results = files.validate(_project(project))
    bad = [r for r in results if not r.ok]
    for r in results:
        if as_json:
            click.echo(json.dumps({"file": r.file, "ok": r.ok, "message": r.message},
                                  ensure_ascii=False))
        else:
            mark = click.style("ok ", fg="green") if r.ok else click.style("BAD", fg="red",
                                                                           bold=True)
            click.echo(f"{mark} {r.file}: {r.message}")
    sys.exit(EXIT_PROBLEM if bad else 0)


@command.command("clean")
@_PROJECT
@click.option("--all", "all_", is_flag=True,
              help="Also remove breezing-signals.jsonl, breezing-timeline.jsonl and "
                   "review-result.json.")
def clean(project, all_):
    """End the breezing session: remove breezing-active.json, breezing-session-roles.json,
    the role markers, the gateway's phase record and temp files of dead writers (seed 000's
    manual cleanup). Other files in .claude/state/ are never touched, nor are the lock files.
    Corrupt files are removed too (nothing is parsed). Exit 1 when a file cannot be removed.

    \b
    Examples:
      gateway state clean
      gateway state clean --all
      gateway state clean --project ~/src/app
    """
    from gateway.state import files
    from gateway.state.store import StateError

    root = _project(project)
    try:
        removed = files.clean(root, all=all_)
    except StateError as exc:
        click.echo(f"gateway: {exc}", err=True)
        sys.exit(EXIT_PROBLEM)
    if not removed:
        click.echo("nothing to remove")
    for p in removed:
        click.echo(f"removed {os.path.relpath(p, root)}")
