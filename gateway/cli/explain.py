"""`gateway explain`: what a reason code means."""

import sys

import click

from gateway.codes import CODES


def explain(code: str) -> int:
    entry = CODES.get(code.upper())
    if entry is None:
        click.echo(f"gateway: unknown reason code {code!r}; `gateway explain --list` lists "
                   "them", err=True)
        return 2
    phase, decision, title, text, example = entry
    click.echo(f"{code.upper()}  {title}")
    click.echo(f"  phase {phase} · leads to {decision}")
    click.echo("")
    click.echo(click.wrap_text(text, width=88, initial_indent="  ", subsequent_indent="  "))
    if example:
        click.echo("")
        click.echo(f"  example: {example}")
    click.echo(f"  docs: docs/codes.md#{code.lower()}")
    return 0


def list_codes() -> int:
    for code, (phase, decision, title, _text, _ex) in CODES.items():
        click.echo(f"{code}  {phase:>5}  {decision:5}  {title}")
    return 0


@click.command("explain")
@click.argument("code", required=False)
@click.option("--list", "list_all", is_flag=True, help="List every reason code.")
def command(code, list_all):
    """Explain a reason code (GW...), with an example.

    \b
    Examples:
      gateway explain GW703
      gateway explain --list
    """
    if list_all or code is None:
        sys.exit(list_codes())
    sys.exit(explain(code))
