"""The `gateway` command line: a thin click layer over the library. Each verb lives in its own
module under gateway/cli/ as plain functions; this file only declares the interface."""

import sys

import click

from gateway import __version__

EXIT_ALLOW = 0
EXIT_ASK = 10
EXIT_DENY = 11
EXIT_USAGE = 2
EXIT_CONFIG = 3

EPILOG = """\b
Exit codes of `gateway check`: 0 allow, 10 ask, 11 deny, 2 usage error,
3 the rules or settings cannot be loaded.
"""


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
             epilog=EPILOG)
@click.version_option(__version__, "-V", "--version", prog_name="gateway")
def cli():
    """A permission gateway for AI coding agents (Claude Code hooks).

    \b
    Examples:
      gateway check "git status"            dry-run one command
      gateway check -v "curl x | sh"        ... with the trace of every phase
      gateway explain GW750                 what a reason code means
      gateway rules show                    the effective policy and where it came from
      gateway hook permission-request < payload.json
    """


@cli.command(epilog=EPILOG)
@click.argument("command", required=False)
@click.option("--cwd", type=click.Path(file_okay=False), default=None,
              help="Directory the command runs in (default: the current directory).")
@click.option("--project", type=click.Path(file_okay=False), default=None,
              help="Project directory (default: $CLAUDE_PROJECT_DIR, else the nearest parent "
                   "of --cwd with a .claude/ directory, else --cwd).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("-v", "--verbose", is_flag=True, help="Show the trace of every phase.")
@click.option("--batch", type=click.File("r", encoding="utf-8"), default=None,
              help="Read commands from FILE ('-' for stdin), one per line: plain text or a JSON "
                   "object with command and optional cwd, tool_name. Writes one JSON result "
                   "per line.")
@click.option("--tool", "tool_name", default="Bash", show_default=True,
              help="Tool name to judge as (the validator judges Bash).")
@click.option("--no-settings", is_flag=True,
              help="Ignore the permissions.ask/deny rules of Claude Code's settings files.")
def check(command, cwd, project, as_json, verbose, batch, tool_name, no_settings):
    """Dry-run the validator on COMMAND: the decision, the phase that decided, the reason code,
    the rule and the message.

    \b
    Examples:
      gateway check "ls -la"
      gateway check --json "git -C . push"
      gateway check --cwd src --project . "cat ../README.md"
      printf 'git status\\nrm -rf /\\n' | gateway check --batch -
    """
    from gateway.cli import check as impl

    if batch is not None:
        if command is not None:
            raise click.UsageError("give either COMMAND or --batch, not both")
        sys.exit(impl.run_batch(batch, cwd, project, tool_name, not no_settings))
    if command is None:
        raise click.UsageError("missing COMMAND (or --batch FILE)")
    sys.exit(impl.run_one(command, cwd, project, as_json, verbose, tool_name, not no_settings))


@cli.command()
@click.argument("code", required=False)
@click.option("--list", "list_all", is_flag=True, help="List every reason code.")
def explain(code, list_all):
    """Explain a reason code (GW...), with an example.

    \b
    Examples:
      gateway explain GW703
      gateway explain --list
    """
    from gateway.cli import explain as impl

    if list_all or code is None:
        sys.exit(impl.list_codes())
    sys.exit(impl.explain(code))


@cli.group()
def rules():
    """Show and validate the rules layers (built-in, user, project, local)."""


@rules.command("show")
@click.option("--project", type=click.Path(file_okay=False), default=None,
              help="Project directory (default: found from the current directory).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def rules_show(project, as_json):
    """Print the effective policy with the layer each entry came from.

    \b
    Example:
      gateway rules show --project .
    """
    from gateway.cli import rules as impl

    sys.exit(impl.show(project, as_json))


@rules.command("validate")
@click.argument("files", nargs=-1, type=click.Path(dir_okay=False))
@click.option("--project", type=click.Path(file_okay=False), default=None,
              help="Project directory (default: found from the current directory).")
@click.option("--layer", type=click.Choice(["user", "project", "local"]), default=None,
              help="Validate FILES as this layer (default: guessed from the file name).")
def rules_validate(files, project, layer):
    """Check rules files: schema, layer permissions and the rules' own examples. Without
    FILES, checks every layer of the project. Exit 0 when valid, 3 when not.

    \b
    Examples:
      gateway rules validate
      gateway rules validate .claude/gateway.yaml
    """
    from gateway.cli import rules as impl

    sys.exit(impl.validate(files, project, layer))


@cli.command("hook")
@click.argument("event", type=click.Choice(["permission-request"]))
def hook(event):
    """Run as a Claude Code hook: read the event's JSON on stdin, print the decision JSON (or
    nothing), always exit 0. `gateway install` registers these.

    \b
    Example:
      echo '{"tool_name":"Bash","tool_input":{"command":"ls"},"cwd":"/repo"}' \\
        | gateway hook permission-request
    """
    from gateway.hooks.runner import run

    sys.exit(run(event))


def main(argv=None) -> int:
    try:
        cli.main(args=argv, prog_name="gateway", standalone_mode=True)
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    return 0
