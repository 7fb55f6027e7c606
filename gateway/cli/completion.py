"""`gateway completion`: the shell completion script for bash, zsh or fish."""

import os
import sys

import click

SHELLS = ("bash", "zsh", "fish")
_INSTALL = {
    "bash": 'echo \'eval "$(gateway completion bash)"\' >> ~/.bashrc',
    "zsh": 'echo \'eval "$(gateway completion zsh)"\' >> ~/.zshrc',
    "fish": "gateway completion fish > ~/.config/fish/completions/gateway.fish",
}


def script(shell: str) -> str:
    """The completion script (click's, for the `gateway` program)."""
    from click.shell_completion import get_completion_class

    from gateway.cli.app import cli

    cls = get_completion_class(shell)
    return cls(cli, {}, "gateway", "_GATEWAY_COMPLETE").source()


@click.command("completion")
@click.argument("shell", required=False, type=click.Choice(SHELLS))
def command(shell):
    """Print the shell completion script for SHELL (default: your $SHELL).

    \b
    Examples:
      eval "$(gateway completion bash)"      # try it in this shell
      echo 'eval "$(gateway completion bash)"' >> ~/.bashrc
      echo 'eval "$(gateway completion zsh)"' >> ~/.zshrc
      gateway completion fish > ~/.config/fish/completions/gateway.fish
    """
    if shell is None:
        shell = os.path.basename(os.environ.get("SHELL", ""))
        if shell not in SHELLS:
            raise click.UsageError(f"cannot tell your shell from $SHELL ({shell or 'unset'}); "
                                   f"name one: {', '.join(SHELLS)}")
    click.echo(script(shell))
    if sys.stdout.isatty():
        click.echo(f"# to install: {_INSTALL[shell]}", err=True)
    sys.exit(0)
