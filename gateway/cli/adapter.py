"""`gateway adapter AGENT`: the gateway as another agent's hook (see gateway/adapters/)."""

import json
import sys

import click

from gateway.adapters import AGENTS


@click.command("adapter")
@click.argument("agent", type=click.Choice(AGENTS))
@click.option("--print-config", is_flag=True,
              help="Print the agent's settings that register this adapter, and exit.")
def command(agent, print_config):
    """Run as AGENT's hook: read its JSON on stdin, print its answer, always exit 0.

    The decision core is the one Claude Code's hooks use; only the JSON shapes differ.
    gemini: Gemini CLI's BeforeTool hook for run_shell_command; it denies what the
    validator denies (rm -rf /, curl | sh, ...) and leaves everything else to Gemini CLI.

    \b
    Examples:
      gateway adapter gemini --print-config     # paste into .gemini/settings.json
      echo '{"hook_event_name":"BeforeTool","tool_name":"run_shell_command",
             "tool_input":{"command":"rm -rf /"},"cwd":"/repo"}' | gateway adapter gemini
    """
    from gateway.adapters import module_for, run
    from gateway.install import InstallError, entries

    if print_config:
        try:
            prefix = entries.prefix_string(entries.gateway_command())
        except InstallError as exc:
            click.echo(f"gateway adapter: {exc}", err=True)
            sys.exit(3)
        click.echo(json.dumps(module_for(agent).settings(prefix), indent=2))
        sys.exit(0)
    sys.exit(run(agent))
