"""`gateway hook EVENT`: run as a Claude Code hook. The real work (and the fast path that
skips this module entirely) is gateway.hooks.runner."""

import sys

import click

from gateway.hooks.runner import events


@click.command("hook")
@click.argument("event", type=click.Choice(events()))
def command(event):
    """Run as a Claude Code hook: read the event's JSON on stdin, print the decision JSON (or
    nothing), always exit 0. `gateway install` registers these.

    \b
    Example:
      echo '{"tool_name":"Bash","tool_input":{"command":"ls"},"cwd":"/repo"}' \\
        | gateway hook permission-request
    """
    from gateway.hooks.runner import run

    sys.exit(run(event))
