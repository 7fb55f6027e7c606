"""`gateway doctor`: is the gateway installed and working for this project?"""

import os
import sys

import click

EPILOG = """\b
Exit codes: 0 no problems (warnings may be listed), 1 at least one problem, 2 usage error.
"""

_MARK = {"ok": ("ok", "green"), "warn": ("warn", "yellow"), "fail": ("FAIL", "red"),
         "info": ("info", None)}


@click.command("doctor", epilog=EPILOG)
@click.option("--project", type=click.Path(file_okay=False, exists=True), default=None,
              help="Project directory (default: found from the current directory as "
                   "`gateway install` does).")
@click.option("--no-probe", is_flag=True,
              help="Do not run the registered hook commands (only check they exist).")
@click.option("--claude", "claude", default=None, metavar="PATH",
              help="The claude executable to report on (default: `claude` on PATH).")
@click.option("--json", "as_json", is_flag=True, help="Print the checks as JSON.")
def command(project, no_probe, claude, as_json):
    """Check the installation: the hooks are registered in Claude Code's settings, the
    registered command exists and answers a sample call, the rules load, and which Claude
    Code version is installed.

    After `gateway install --http` it lists which events are http handlers and which are
    commands, sends each http handler's sample call to `gateway serve` with the handler's
    own URL and token, and fails when the server does not answer a guard (every tool call
    is then blocked) or when the sandbox would refuse the server's address.

    \b
    Examples:
      gateway doctor
      gateway doctor --project ~/src/app
      gateway doctor --json | jq '.[] | select(.status == "fail")'
    """
    from gateway.install import doctor, ops

    project = os.path.abspath(project) if project else ops.find_project()
    checks = doctor.run(project, probe=not no_probe, claude=claude)
    if as_json:
        click.echo(doctor.as_json(checks))
    else:
        click.echo(f"gateway doctor: project {project}")
        for c in checks:
            label, colour = _MARK[c.status]
            click.echo("  " + click.style(f"{label:5}", fg=colour, bold=c.status == "fail")
                       + " " + c.title)
            if c.fix and c.status in ("warn", "fail"):
                click.echo(f"        fix: {c.fix}")
        fails = sum(c.status == "fail" for c in checks)
        warns = sum(c.status == "warn" for c in checks)
        click.echo(f"{fails} problem(s), {warns} warning(s)")
    sys.exit(1 if any(c.status == "fail" for c in checks) else 0)
