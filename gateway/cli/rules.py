"""`gateway rules show | validate`."""

import json
import os
import sys

import click

from gateway.cli._project import PROJECT_HELP, default_project
from gateway.policy.errors import PolicyError

EXIT_CONFIG = 3


def _project(project):
    return os.path.abspath(project) if project else default_project()


def show(project, as_json) -> int:
    from gateway.policy.merge import merge

    try:
        m = merge(_project(project))
    except PolicyError as exc:
        click.echo("gateway: the rules cannot be loaded, so there is no effective policy to "
                   "show; until it is fixed every call asks (GW891, GW901):", err=True)
        for line in exc.errors:
            click.echo(f"  {line}", err=True)
        click.echo("Fix the file(s) above; `gateway rules validate` re-checks them.", err=True)
        return EXIT_CONFIG
    if as_json:
        click.echo(json.dumps({"policy": m.policy, "provenance": m.provenance,
                               "sources": m.sources}, indent=2))
        return 0
    click.echo("layers (lowest first):")
    for layer, path in m.sources:
        click.echo(f"  {layer:8} {path}")
    p = m.policy
    click.echo(f"\nlimits: {p['limits']}   compound commands: "
               f"{'on' if p['compound'] else 'off'}")
    for key in ("always_ask", "subcommand_ask", "containment_dirs", "allowed_dirs",
                "protected_paths", "autorun"):
        click.echo(f"\n{key}:")
        for item in p[key]:
            click.echo(f"  {item:40} {_origin(m, key, item)}")
    click.echo("\nsecrets:")
    for item in p["secrets"]["patterns"]:
        click.echo(f"  {item:40} {_origin(m, 'secrets.patterns', item)}")
    click.echo("\ncatalogue:")
    for name in sorted(p["catalogue"]):
        subs = p["catalogue"][name].get("subcommands")
        extra = f" ({len(subs)} subcommands)" if subs else ""
        click.echo(f"  {name + extra:40} {_origin(m, 'catalogue', name)}")
    click.echo("\ndeny:")
    for rule in p["deny"]:
        click.echo(f"  {rule['id']:40} {_origin(m, 'deny', rule['id'])}")
    return 0


def _origin(m, key, item):
    origin = m.provenance.get(f"{key}:{item}", "")
    return origin.split(" (")[0] if origin else "builtin"


def _guess_layer(path):
    base = os.path.basename(path)
    if base == "gateway.local.yaml":
        return "local"
    if base == "gateway.yaml" and os.path.basename(os.path.dirname(os.path.abspath(path))) \
            == ".claude":
        return "project"
    return "user"


def validate(files, project, layer) -> int:
    from gateway.policy.load import read_layer
    from gateway.policy.merge import _apply, merge

    problems = []
    if files:
        base = merge(None)
        checked = []
        for f in files:
            lay = layer or _guess_layer(f)
            if not os.path.exists(f):
                problems.append(f"{f}: no such file")
                continue
            checked.append(f"{f} ({lay} layer)")
            try:
                read = read_layer(lay, f)
                problems.extend(_apply(base, lay, f, *read))
            except PolicyError as exc:
                problems.extend(exc.errors)
        if not problems:
            problems.extend(_examples(base))
        what = ", ".join(checked)
    else:
        from gateway.policy.load import layer_paths

        root = _project(project)
        try:
            merged = merge(root)
            problems.extend(_examples(merged))
        except PolicyError as exc:
            problems.extend(exc.errors)
        else:
            read = [(lay, p) for lay, p in merged.sources if lay != "builtin"]
            if read:
                what = "built-in, " + ", ".join(f"{lay} {_short(p)}" for lay, p in read)
            else:
                absent = [_short(p) for lay, p in layer_paths(root) if lay != "builtin"]
                what = "built-in only (no " + ", ".join(absent[:-1]) + f" or {absent[-1]})"
    if problems:
        for line in problems:
            click.echo(line, err=True)
        click.echo(f"{len(problems)} problem(s)", err=True)
        return EXIT_CONFIG
    click.echo(f"rules are valid: {what}")
    return 0


def _short(path) -> str:
    """A path as the user would type it: relative below the current directory, ~ for home."""
    home = os.path.expanduser("~")
    rel = os.path.relpath(path)
    if not rel.startswith(".."):
        return rel
    return "~" + path[len(home):] if path.startswith(home + "/") else path


def _examples(merged):
    from gateway.validator.examples import check

    try:
        check(merged)
    except PolicyError as exc:
        return exc.errors
    return []


@click.group("rules")
def command():
    """Show and validate the rules layers (built-in, user, project, local); see
    docs/rules.md.

    \b
    Examples:
      gateway rules show                       # the effective policy, entry by entry
      gateway rules show --json | jq '.sources'
      gateway rules validate                   # every layer of this project
      gateway rules validate ~/.config/gateway/rules.yaml
    """


@command.command("show")
@click.option("--project", type=click.Path(file_okay=False, exists=True), default=None,
              help=PROJECT_HELP)
@click.option("--json", "as_json", is_flag=True,
              help="Print JSON: the merged policy, the layer of each entry (provenance) and "
                   "the files read (sources).")
def show_command(project, as_json):
    """Print the effective policy with the layer each entry came from. Exit 3 when the rules
    cannot be loaded (the errors are printed).

    \b
    Examples:
      gateway rules show
      gateway rules show --project ~/src/app
      gateway rules show --json | jq '.policy.always_ask'
    """
    sys.exit(show(project, as_json))


@command.command("validate")
@click.argument("files", nargs=-1, type=click.Path(dir_okay=False))
@click.option("--project", type=click.Path(file_okay=False, exists=True), default=None,
              help=PROJECT_HELP)
@click.option("--layer", type=click.Choice(["user", "project", "local"]), default=None,
              help="Validate FILES as this layer (default: guessed from the file name).")
def validate_command(files, project, layer):
    """Check rules files: schema, layer permissions and the rules' own examples. Without
    FILES, checks every layer of the project. Exit 0 when valid, 3 when not.

    \b
    Examples:
      gateway rules validate
      gateway rules validate .claude/gateway.yaml
    """
    sys.exit(validate(files, project, layer))
