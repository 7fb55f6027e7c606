"""`gateway uninstall`: take the gateway's hooks out of a Claude Code settings file."""

import sys

import click

from gateway.cli.install import EXIT_CONFIG, scope_options, show_result
from gateway.install import InstallError

EPILOG = """\b
Exit codes: 0 done (or nothing to do), 2 usage error, 3 the settings file cannot be used.
"""


@click.command("uninstall", epilog=EPILOG)
@scope_options
@click.option("--dry-run", is_flag=True, help="Show what would change (a diff); write nothing.")
def command(scope, project, settings_file, dry_run):
    """Remove the gateway's hooks from a Claude Code settings file.

    Exactly the gateway's own handlers go (any `gateway hook ...` command or
    `.../hook/...` loopback URL); everything else stays. If nothing else changed since
    `gateway install`, the file is given back byte for byte as it was before, and a file that
    install created is removed. A backup is kept either way. The sandbox entries install
    added go too (with --http, `gateway serve`'s address in sandbox.network.allowedDomains).

    \b
    Examples:
      gateway uninstall                  # .claude/settings.json of this project
      gateway uninstall --dry-run
      gateway uninstall --scope user     # ~/.claude/settings.json
    """
    from gateway.install import ops

    try:
        res = ops.uninstall(scope, project, settings_file, dry_run)
    except InstallError as exc:
        click.echo(f"gateway uninstall: {exc}", err=True)
        sys.exit(EXIT_CONFIG)
    show_result(res, "gateway uninstall" + (" (dry run)" if dry_run else ""))
    if res.changed and not dry_run:
        if res.removed_file:
            click.echo(f"removed {res.path} (gateway install had created it)")
        elif res.restored:
            click.echo("the file is back exactly as it was before `gateway install`")
    sys.exit(0)
