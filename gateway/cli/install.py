"""`gateway install`: register the gateway's hooks in a Claude Code settings file."""

import json
import os
import sys

import click

from gateway.cli._project import PROJECT_HELP
from gateway.install import InstallError

EXIT_CONFIG = 3

EPILOG = """\b
Exit codes: 0 done (or nothing to do), 2 usage error, 3 the settings file or the gateway
command cannot be used (the message says what to fix; nothing was changed).
"""


def scope_options(f):
    """--scope, --project and --settings, shared with `gateway uninstall`."""
    f = click.option("--settings", "settings_file", type=click.Path(dir_okay=False),
                     default=None, help="Use this settings file instead of the scope's.")(f)
    f = click.option("--project", type=click.Path(file_okay=False, exists=True), default=None,
                     help=PROJECT_HELP)(f)
    f = click.option("--scope", type=click.Choice(["project", "local", "user"]),
                     default="project", show_default=True,
                     help="project: .claude/settings.json (committed, shared); local: "
                          ".claude/settings.local.json (this machine only); user: "
                          "~/.claude/settings.json (every project).")(f)
    return f


def show_result(res, verb: str) -> None:
    where = os.path.relpath(res.path) if not os.path.relpath(res.path).startswith("..") \
        else res.path
    if not res.changes and not res.changed:
        for note in res.notes:
            click.echo(note)
        return
    click.echo(f"{verb}: {where}")
    for change in res.changes:
        colour = {"add": "green", "update": "yellow", "remove": "red"}.get(change.action)
        click.echo("  " + click.style(f"{change.action:6}", fg=colour) + str(change)[6:])
    if res.dry_run:
        if res.diff:
            click.echo("")
            click.echo(res.diff.rstrip("\n"))
        click.echo("\ndry run: nothing was written")
        for note in res.notes:
            click.echo(note)
        return
    if not res.changed:
        click.echo("already up to date; nothing was written")
        return
    if res.backup:
        click.echo(f"backup of the previous file: {res.backup}")
    for note in res.notes:
        click.echo(note)


def _refuse_home_as_project(scope, found) -> None:
    """Run in the home directory, the project's .claude/ is ~/.claude, Claude Code's user
    configuration: a "project" install would quietly apply to every project."""
    home = os.path.realpath(os.path.expanduser("~"))
    if os.path.realpath(found) != home:
        return
    name = "settings.json" if scope == "project" else "settings.local.json"
    raise click.UsageError(
        f"no project here: {found} is your home directory, and its .claude/{name} is Claude "
        "Code's user settings (every project). Run it inside a project (a folder with .git or "
        ".claude/), pass --project DIR, or use --scope user to mean every project")


def _compile_builtin_policy() -> None:
    """Compile the built-in + user policy into the cache now, so that the first hook calls of
    every project without rules of its own find it compiled (issue 14: 200 concurrent first
    calls). A rules error is left for the hooks and `gateway doctor` to report."""
    try:
        from gateway.runtime import get_policy

        get_policy(None)
    except Exception:
        pass


@click.command("install", epilog=EPILOG)
@scope_options
@click.option("--dry-run", is_flag=True, help="Show what would change (a diff); write nothing.")
@click.option("--http", "http", is_flag=True,
              help="Register every hook as an http handler answered by a running "
                   "`gateway serve` (no process start per call). The PreToolUse guards get "
                   "\"onFailure\": \"block\": while the server is down (or killed mid-call, "
                   "or slower than 10 s) every tool call is blocked, never let through "
                   "unguarded; PermissionRequest then shows Claude Code's dialog. Start "
                   "`gateway serve` first (docs/getting-started.md).")
@click.option("--port", type=click.IntRange(1, 65535), default=None,
              help="Port of `gateway serve` for --http (default 8787).")
@click.option("--launcher", type=click.Choice(["lean", "script"]), default=None,
              help="How the command hooks start the gateway. lean (default): this "
                   "installation's Python with -I -S and the gateway's directories, about "
                   "2 ms faster per tool call; script: pip's `gateway` console script.")
@click.option("--gateway-path", default=None, metavar="PATH",
              help="The gateway console script to register (implies --launcher script; "
                   "default: the script beside this gateway's Python).")
@click.option("--early-allow/--no-early-allow", default=True, show_default=True,
              help="PreToolUse allows a Bash command the validator allows (in the payload's "
                   "permission mode) before the client's own checks: no dialog drawn and "
                   "closed again, and it works in auto mode and -p, where PermissionRequest "
                   "allows never apply. The client still applies your permissions.ask and "
                   ".deny rules after it. --no-early-allow leaves every allow to "
                   "PermissionRequest (docs/security.md, the trade-off).")
@click.option("--sandbox/--no-sandbox", "sandbox", default=None,
              help="Configure Claude Code's Bash sandbox from the rules (bubblewrap + socat "
                   "on Linux): secrets hidden from commands, the files that run later and "
                   "the gateway's own files write-protected, failIfUnavailable and "
                   "allowUnsandboxedCommands: false. Default: when the sandbox can start on "
                   "this machine (otherwise install says what is missing). --sandbox writes "
                   "it regardless; --no-sandbox writes none and takes out what an earlier "
                   "install added (docs/sandbox.md).")
@click.option("--allow-unsandboxed", is_flag=True,
              help="Leave sandbox.allowUnsandboxedCommands alone: a call may then ask to run "
                   "outside the sandbox (dangerouslyDisableSandbox, after a dialog), and the "
                   "gateway judges such a call as unsandboxed.")
@click.option("--no-toolchain-caches", "toolchain_caches", flag_value=False, default=True,
              help="Do not allow sandboxed writes to the toolchain caches found for this "
                   "project (~/.npm, ~/.cache/pip, ~/.cargo/registry...; rules/sandbox.yaml).")
@click.option("--plugin-hooks", is_flag=True,
              help="Print hooks/hooks.json for the Claude Code plugin layout and exit.")
def command(scope, project, settings_file, dry_run, http, port, launcher, gateway_path,
            early_allow, sandbox, allow_unsandboxed, toolchain_caches, plugin_hooks):
    """Register the gateway's hooks in a Claude Code settings file.

    Every hook the gateway implements is registered (PermissionRequest for Bash; PreToolUse
    for every tool, with "onFailure": "block" so a crash blocks instead of allowing;
    PostToolUse for Write, Edit and MultiEdit, which records a team role once its marker
    Write completed and a spec task's due done step once its box was checked), by
    absolute paths of this installation: its Python started with -I -S (the lean launch
    line; --launcher script for the console script), so the hooks work whatever the
    agent's cwd, PATH and PYTHONPATH are. Claude Code's Bash sandbox is configured from the
    gateway's rules in the same file (see --sandbox). Every other key and hook in the file is
    kept;
    running it again changes nothing; a backup of the file is kept; `gateway uninstall` takes
    exactly these entries out again.

    \b
    Examples:
      gateway install                    # .claude/settings.json of this project
      gateway install --dry-run          # show the diff, write nothing
      gateway install --scope local      # .claude/settings.local.json (not committed)
      gateway install --scope user       # ~/.claude/settings.json, for every project
      gateway install --scope local --http   # answered by `gateway serve`
      gateway install --launcher script  # register the `gateway` console script
      gateway install --no-early-allow   # allows only through PermissionRequest
      gateway install --no-sandbox       # hooks only, no OS sandbox
      gateway doctor                     # check the result (and prove the sandbox)
    """
    from gateway.install import entries, ops

    try:
        if plugin_hooks:
            click.echo(json.dumps(entries.plugin_hooks(), indent=2))
            sys.exit(0)
        if port is not None and not http:
            raise click.UsageError("--port goes with --http")
        if scope in ("project", "local") and project is None and settings_file is None:
            _refuse_home_as_project(scope, ops.find_project())
        if gateway_path and launcher == "lean":
            raise click.UsageError("--gateway-path names a console script: it goes with "
                                   "--launcher script")
        from gateway.sandbox.configure import Choice

        mode = {None: "auto", True: "on", False: "off"}[sandbox]
        res = ops.install(scope, project, settings_file, dry_run, http, port, gateway_path,
                          launcher=launcher, early_allow=early_allow,
                          sandbox=Choice(mode, allow_unsandboxed, toolchain_caches))
    except InstallError as exc:
        click.echo(f"gateway install: {exc}", err=True)
        sys.exit(EXIT_CONFIG)
    show_result(res, "gateway install" + (" (dry run)" if dry_run else ""))
    if not dry_run:
        _compile_builtin_policy()
    if res.changed and not dry_run:
        if http:
            click.echo("Start `gateway serve` before Claude Code: while it is down, every "
                       "tool call is blocked (the guards fail closed) and no other hook runs; "
                       "`gateway doctor` says whether it answers.")
        click.echo("Start a new Claude Code session (running ones may not see new hooks); "
                   "`gateway doctor` checks the installation.")
    sys.exit(0)
