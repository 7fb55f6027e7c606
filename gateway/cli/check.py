"""`gateway check`: the dry run, for one command or a batch."""

import json
import os
import sys

import click

from gateway import paths, runtime
from gateway import settings as settings_mod
from gateway.decision import ALLOW, DENY
from gateway.policy.errors import PolicyError

EXIT_ALLOW, EXIT_ASK, EXIT_DENY, EXIT_CONFIG = 0, 10, 11, 3
_EXIT = {ALLOW: EXIT_ALLOW, DENY: EXIT_DENY}
EPILOG = """\b
Exit codes: 0 allow, 10 ask, 11 deny, 2 usage error, 3 the rules or settings cannot be loaded.
"""
_COLOURS = {"allow": "green", "ask": "yellow", "deny": "red"}


def _locate(cwd, project):
    cwd = os.path.abspath(cwd) if cwd else os.getcwd()
    if project:
        project = os.path.abspath(project)
    else:
        project = paths.project_dir(cwd)
    return cwd, project


class _Session:
    """Loads the policy and settings once per project (a batch may span projects)."""

    def __init__(self, use_settings: bool):
        self.use_settings = use_settings
        self._cache = {}

    def load(self, project):
        if project not in self._cache:
            policy = runtime.get_policy(project)
            settings = settings_mod.load(project) if self.use_settings \
                else settings_mod.SettingsRules()
            self._cache[project] = (policy, settings)
        return self._cache[project]

    def judge(self, command, cwd, project, tool_name):
        policy, settings = self.load(project)
        return runtime.judge_bash(command, cwd, project, tool_name, policy=policy,
                                  settings=settings)


def _report_policy_error(exc: PolicyError) -> int:
    click.echo("gateway: the rules cannot be loaded:", err=True)
    for line in exc.errors:
        click.echo(f"  {line}", err=True)
    click.echo("Fix the file(s) above; `gateway rules validate` re-checks them.", err=True)
    return EXIT_CONFIG


def run_one(command, cwd, project, as_json, verbose, tool_name, use_settings) -> int:
    cwd, project = _locate(cwd, project)
    try:
        verdict = _Session(use_settings).judge(command, cwd, project, tool_name)
    except PolicyError as exc:
        return _report_policy_error(exc)
    if verdict.code == "GW903":
        click.echo(f"gateway: {verdict.message}", err=True)
        return EXIT_CONFIG
    if as_json:
        click.echo(json.dumps(verdict.as_dict(), ensure_ascii=False))
    else:
        _print_text(verdict, verbose)
    return _EXIT.get(verdict.decision, EXIT_ASK)


def _print_text(verdict, verbose):
    d = str(verdict.decision)
    click.echo(click.style(d.upper(), fg=_COLOURS[d], bold=True) + f"  {verdict.command}")
    rule = f" · {verdict.rule}" if verdict.rule else ""
    click.echo(f"  phase {verdict.phase} · {verdict.code}{rule}")
    click.echo(f"  {verdict.message}")
    if verbose:
        click.echo("  trace:")
        for s in verdict.trace:
            code = f" {s.code}" if s.code else ""
            msg = f" {s.message}" if s.message else ""
            click.echo(f"    [{s.phase}] {s.status}{code}{msg}")
    else:
        click.echo(f"  (gateway explain {verdict.code} · -v for the trace)")


def _parse_line(line: str):
    """(command, cwd, tool_name) from one batch line."""
    stripped = line.strip()
    if stripped.startswith("{"):
        try:
            obj = json.loads(stripped)
        except ValueError:
            obj = None
        if isinstance(obj, dict):
            return obj.get("command"), obj.get("cwd"), obj.get("tool_name", "Bash")
    return line.rstrip("\n").rstrip("\r"), None, "Bash"


def run_batch(stream, cwd, project, tool_name, use_settings) -> int:
    session = _Session(use_settings)
    base_cwd, base_project = _locate(cwd, project)
    out = sys.stdout
    for line in stream:
        if not line.strip():
            continue
        command, line_cwd, line_tool = _parse_line(line)
        if line_cwd is not None and isinstance(line_cwd, str):
            c, p = _locate(line_cwd, project)
        else:
            c, p = base_cwd, base_project
        try:
            verdict = session.judge(command, c, p, line_tool if line_tool else tool_name)
        except PolicyError as exc:
            return _report_policy_error(exc)
        # ASCII-escaped so that no character inside can look like a line break to a reader
        out.write(json.dumps(verdict.as_dict()) + "\n")
    out.flush()
    return 0


@click.command("check", epilog=EPILOG)
@click.argument("command_text", metavar="COMMAND", required=False)
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
def command(command_text, cwd, project, as_json, verbose, batch, tool_name, no_settings):
    """Dry-run the validator on COMMAND: the decision, the phase that decided, the reason code,
    the rule and the message.

    \b
    Examples:
      gateway check "ls -la"
      gateway check --json "git -C . push"
      gateway check --cwd src --project . "cat ../README.md"
      printf 'git status\\nrm -rf /\\n' | gateway check --batch -
    """
    if batch is not None:
        if command_text is not None:
            raise click.UsageError("give either COMMAND or --batch, not both")
        sys.exit(run_batch(batch, cwd, project, tool_name, not no_settings))
    if command_text is None:
        raise click.UsageError("missing COMMAND (or --batch FILE)")
    sys.exit(run_one(command_text, cwd, project, as_json, verbose, tool_name, not no_settings))
