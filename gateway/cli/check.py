"""`gateway check`: the dry run, for one command or a batch, and for the PreToolUse guards
(`--tool Write --input '{"file_path": ...}'`, `--agent-id`, `--session-id`,
`--permission-mode`)."""

import json
import os
import sys

import click

from gateway import runtime
from gateway import settings as settings_mod
from gateway.cli._project import default_project
from gateway.decision import ALLOW, ASK, DENY, Verdict
from gateway.policy.errors import PolicyError

EXIT_ALLOW, EXIT_ASK, EXIT_DENY, EXIT_CONFIG = 0, 10, 11, 3
#: The permission modes Claude Code sends (gateway.validator.modes.KNOWN), as it spells them.
_MODES = ("default", "acceptEdits", "plan", "auto", "dontAsk", "bypassPermissions",
          "delegate")
_EXIT = {ALLOW: EXIT_ALLOW, DENY: EXIT_DENY}
EPILOG = """\b
Exit codes: 0 allow, 10 ask (or, for the PreToolUse dry run, no decision: the client's own
rules decide), 11 deny, 2 usage error, 3 the rules or settings cannot be loaded.
"""
_COLOURS = {"allow": "green", "ask": "yellow", "deny": "red"}


def _locate(cwd, project):
    cwd = os.path.abspath(cwd) if cwd else os.getcwd()
    if project:
        project = os.path.abspath(project)
    else:
        project = default_project(cwd)
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

    def judge(self, command, cwd, project, tool_name, mode=None):
        policy, settings = self.load(project)
        return runtime.judge_bash(command, cwd, project, tool_name, policy=policy,
                                  settings=settings, mode=mode)


def _report_policy_error(exc: PolicyError) -> int:
    click.echo("gateway: the rules cannot be loaded:", err=True)
    for line in exc.errors:
        click.echo(f"  {line}", err=True)
    click.echo("Fix the file(s) above; `gateway rules validate` re-checks them.", err=True)
    return EXIT_CONFIG


def _report_settings_error(message) -> None:
    click.echo(f"gateway: {message}", err=True)
    click.echo("Fix that file (Claude Code ignores an invalid settings file too), or pass "
               "--no-settings to judge without its permissions rules.", err=True)


def run_one(command, cwd, project, as_json, verbose, tool_name, use_settings,
            mode=None) -> int:
    cwd, project = _locate(cwd, project)
    try:
        verdict = _Session(use_settings).judge(command, cwd, project, tool_name, mode)
    except PolicyError as exc:
        return _report_policy_error(exc)
    if verdict.code == "GW903":
        _report_settings_error(verdict.message)
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


# --- PreToolUse guards ----------------------------------------------------------------------

def _tool_input(tool_name, command, input_json):
    if input_json is not None:
        try:
            ti = json.loads(input_json)
        except ValueError as exc:
            raise click.BadParameter(f"not JSON: {exc}", param_hint="--input") from None
        if not isinstance(ti, dict):
            raise click.BadParameter("must be a JSON object (the tool_input)",
                                     param_hint="--input")
        if command is not None:
            if tool_name != "Bash" or "command" in ti:
                raise click.UsageError("give the command either as COMMAND or inside --input")
            ti = dict(ti, command=command)
        return ti
    if command is None:
        raise click.UsageError(f"missing COMMAND or --input for --tool {tool_name}")
    if tool_name != "Bash":
        raise click.UsageError(f"--tool {tool_name} takes its tool_input as --input JSON")
    return {"command": command}


def run_guards(command, cwd, project, as_json, verbose, tool_name, input_json, identity,
               use_settings) -> int:
    """The PreToolUse guards (and, for Bash, the validator) on one tool call. No state is
    written: a role registration is only reported."""
    from gateway.hooks import pre_tool_use
    from gateway.runtime import evaluate_guards as evaluate

    cwd, project = _locate(cwd, project)
    tool_input = _tool_input(tool_name, command, input_json)
    agent_id, session_id, permission_mode, agent_type = identity
    payload = {"hook_event_name": "PreToolUse", "tool_name": tool_name,
               "tool_input": tool_input, "cwd": cwd}
    for key, value in (("session_id", session_id), ("agent_id", agent_id),
                       ("agent_type", agent_type), ("permission_mode", permission_mode)):
        if value is not None:
            payload[key] = value
    env = dict(os.environ, CLAUDE_PROJECT_DIR=project)
    guard = evaluate(payload, env, record=False, project=project)
    if guard.code == "GW891":
        click.echo(f"gateway: {guard.message}", err=True)
        return EXIT_CONFIG
    core = None
    sandbox = None
    if tool_name in ("Bash", "Monitor") and isinstance(tool_input.get("command"), str):
        session = _Session(use_settings)
        try:
            core = session.judge(tool_input["command"], cwd, project, "Bash", permission_mode)
        except PolicyError as exc:
            return _report_policy_error(exc)
        from gateway.sandbox import dryrun

        policy, _rules = session.load(project)
        sandbox = dryrun.report(tool_input["command"], tool_input, cwd, project, env, policy,
                                settings_mod.load(project, env))
    rule = None
    if _hook_decision(guard) == "none" and use_settings:
        from gateway import client

        rule = client.allow_rule(settings_mod.load(project), tool_input.get("command"))
    final, how = outcome(guard, core, permission_mode, rule, sandbox)
    subject = guard.command or json.dumps(tool_input, ensure_ascii=False)
    if as_json:
        g = guard.as_dict()
        g["hook_output"] = pre_tool_use.render(guard)
        g["decision"] = _hook_decision(guard)
        out = {"decision": final, "how": how, "tool": tool_name, "input": tool_input,
               "permission_mode": permission_mode, "pretooluse": g,
               "validator": core.as_dict() if core is not None else None,
               "sandbox": sandbox.as_dict() if sandbox is not None else None}
        click.echo(json.dumps(out, ensure_ascii=False))
    else:
        _print_guard(tool_name, subject, guard, core, verbose, final, how)
        from gateway.sandbox import dryrun

        for line in dryrun.describe(sandbox):
            click.echo("  " + line)
    return {"allow": EXIT_ALLOW, "deny": EXIT_DENY}.get(final, EXIT_ASK)


def _hook_decision(guard) -> str:
    """What the PreToolUse hook prints: allow, ask, deny, or none (no decision)."""
    if guard.decision is DENY:
        return "deny"
    if guard.decision is ALLOW:
        return "allow"
    return "none" if guard.code == "GW800" else "ask"


def outcome(guard, core, mode, rule=None, sandbox=None) -> tuple:
    """(final decision, how it comes about) for a tool call: the PreToolUse answer, else
    the client's own flow (gateway.client) with PermissionRequest where it fires; `rule`:
    the user's permissions.allow rule by which the client runs it itself; `sandbox`: the
    sandbox's part (gateway.sandbox.dryrun): its auto-allow and the client's own read-only
    run are "allow" too."""
    from gateway import client
    from gateway.sandbox import dryrun

    hook = _hook_decision(guard)
    if hook == "deny":
        return "deny", "PreToolUse denies it; nobody can approve it"
    if hook == "ask":
        return "ask", ("PreToolUse asks: the dialog in an interactive session, a refusal in "
                       "-p (PermissionRequest may not allow it)")
    if hook == "allow":
        return "allow", ("PreToolUse allows it (early allow); the client still applies your "
                         "permissions.ask and permissions.deny rules")
    flow = client.flow(mode)
    if rule is not None and mode not in ("plan",):
        return "allow", (f"no hook decides, and your permissions.allow rule {rule} lets the "
                         "client run it" + (" (sandboxed)" if sandbox is not None
                                            and sandbox.sandboxed else ""))
    refined = dryrun.outcome(hook, core, mode, sandbox)
    if refined is not None:
        return refined
    if core is None:
        return "none", f"no hook decides: the client's own rules decide ({flow})"
    if core.decision is ALLOW:
        return "allow", (f"no PreToolUse decision (early allow off); PermissionRequest allows "
                         f"it if the client asks ({flow})")
    return "none", (f"no hook allows it: the client's own rules decide ({flow}); if it asks, "
                    f"PermissionRequest gives no decision ({core.code})")


def _print_guard(tool_name, subject, guard, core, verbose, final, how):
    head = click.style({"none": "NO DECISION"}.get(final, final.upper()),
                       fg=_COLOURS.get(final, "yellow"), bold=True)
    click.echo(f"{head}  {tool_name} {subject}")
    click.echo(f"  {how}")
    rule = f" · {guard.rule}" if guard.rule else ""
    click.echo(f"  PreToolUse: {_hook_decision(guard)} · {guard.phase} · {guard.code}{rule}")
    click.echo(f"  {guard.message}")
    if core is not None:
        d = str(core.decision)
        click.echo("  validator (PermissionRequest): "
                   + click.style(d.upper(), fg=_COLOURS[d], bold=True)
                   + f" · phase {core.phase} · {core.code}"
                   + (f" · {core.rule}" if core.rule else "") + f" · {core.message}")
    if verbose:
        click.echo("  guard trace:")
        for s in guard.trace:
            code = f" {s.code}" if s.code else ""
            msg = f" {s.message}" if s.message else ""
            click.echo(f"    [{s.phase}] {s.status}{code}{msg}")
        if core is not None:
            click.echo("  validator trace:")
            for s in core.trace:
                code = f" {s.code}" if s.code else ""
                msg = f" {s.message}" if s.message else ""
                click.echo(f"    [{s.phase}] {s.status}{code}{msg}")
    else:
        click.echo(f"  (gateway explain {guard.code} · -v for the trace)")


def _parse_line(line: str):
    """(command, cwd, tool_name, permission_mode) from one batch line."""
    stripped = line.strip()
    if stripped.startswith("{"):
        try:
            obj = json.loads(stripped)
        except ValueError:
            obj = None
        if isinstance(obj, dict):
            return (obj.get("command"), obj.get("cwd"), obj.get("tool_name", "Bash"),
                    obj.get("permission_mode", _NO_MODE))
    return line.rstrip("\n").rstrip("\r"), None, "Bash", _NO_MODE


_NO_MODE = object()  # the line names no mode: --permission-mode applies


def run_batch(stream, cwd, project, tool_name, use_settings, mode=None) -> int:
    session = _Session(use_settings)
    base_cwd, base_project = _locate(cwd, project)
    out = sys.stdout
    for line in stream:
        if not line.strip():
            continue
        command, line_cwd, line_tool, line_mode = _parse_line(line)
        if line_mode is _NO_MODE:
            line_mode = mode
        if line_cwd is not None and (not isinstance(line_cwd, str) or "\x00" in line_cwd):
            problem = f"the line's cwd is not a valid path: {line_cwd!r}"
        elif line_mode is not None and not isinstance(line_mode, str):
            problem = f"the line's permission_mode is not a string: {line_mode!r}"
        elif line_cwd is not None and not os.path.isdir(os.path.join(base_cwd, line_cwd)):
            problem = f"the line's cwd is not a directory here: {line_cwd!r}"
        else:
            problem = None
        if problem:
            verdict = Verdict(ASK, "S0", "GW904", "", problem,
                              command=command if isinstance(command, str) else repr(command))
            out.write(json.dumps(verdict.as_dict()) + "\n")
            continue
        if line_cwd is not None:
            c, p = _locate(os.path.join(base_cwd, line_cwd), project)
        else:
            c, p = base_cwd, base_project
        try:
            verdict = session.judge(command, c, p, line_tool if line_tool else tool_name,
                                    line_mode)
        except PolicyError as exc:
            return _report_policy_error(exc)
        # ASCII-escaped so that no character inside can look like a line break to a reader
        out.write(json.dumps(verdict.as_dict()) + "\n")
    out.flush()
    return 0


@click.command("check", epilog=EPILOG)
@click.argument("command_text", metavar="COMMAND", required=False)
@click.option("--cwd", type=click.Path(file_okay=False, exists=True), default=None,
              help="Directory the command runs in (default: the current directory).")
@click.option("--project", type=click.Path(file_okay=False, exists=True), default=None,
              help="Project directory (default: $CLAUDE_PROJECT_DIR, else the nearest parent "
                   "of --cwd with a .claude/ other than ~/.claude, else the nearest with a "
                   ".git, else --cwd).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("-v", "--verbose", is_flag=True, help="Show the trace of every phase.")
@click.option("--batch", type=click.File("r", encoding="utf-8"), default=None,
              help="Read commands from FILE ('-' for stdin), one per line: plain text or a JSON "
                   "object with command and optional cwd (relative to --cwd; a directory that "
                   "does not exist asks, GW904), tool_name, permission_mode. Writes one JSON "
                   "result per line.")
@click.option("--tool", "tool_name", default="Bash", show_default=True,
              help="Tool name to judge as (the validator judges Bash; with --input the "
                   "PreToolUse guards judge any tool).")
@click.option("--no-settings", is_flag=True,
              help="Ignore the permissions.ask/deny rules of Claude Code's settings files.")
@click.option("--input", "input_json", default=None, metavar="JSON",
              help="The tool_input as a JSON object; runs the PreToolUse guards "
                   "(e.g. --tool Write --input '{\"file_path\": \"src/a.py\"}').")
@click.option("--agent-id", default=None, help="Run the PreToolUse guards as this agent_id.")
@click.option("--session-id", default=None,
              help="Run the PreToolUse guards as this session_id.")
@click.option("--agent-type", default=None, help="The agent_type of the call (recorded on "
              "registration).")
@click.option("--permission-mode", default=None, metavar="MODE",
              type=click.Choice(_MODES, case_sensitive=True),
              help="The payload's permission_mode, for every decision: default, acceptEdits "
                   "(edits inside the project allowed), plan (nothing that writes is allowed), "
                   "auto, dontAsk, bypassPermissions, delegate (older clients). Spelled as "
                   "Claude Code spells it; another value is an error (a payload's unknown mode "
                   "is judged as plan).")
@click.option("--guards", "force_guards", is_flag=True,
              help="Run the PreToolUse hook too: its guards, its asks for reads of secrets, "
                   "its early allow (implied by --input, --agent-id and --session-id).")
def command(command_text, cwd, project, as_json, verbose, batch, tool_name, no_settings,
            input_json, agent_id, session_id, agent_type, permission_mode, force_guards):
    """Dry-run the validator on COMMAND: the decision, the phase that decided, the reason code,
    the rule and the message. With --guards, --input or an identity, dry-run the PreToolUse
    hook on a tool call instead (for Bash: the hook and the validator): it denies, asks (a
    read of a secret, a file that runs code later), allows (early allow) or gives no
    decision, and then the client's own rules decide: the output says what they do in the
    given --permission-mode (no decision is not "ask": the client runs reads inside the
    project by itself). Nothing is written: a role registration is only reported.

    \b
    Examples:
      gateway check "ls -la"
      gateway check --json "git -C . push"
      gateway check --cwd src --project . "cat ../README.md"
      printf 'git status\\nrm -rf /\\n' | gateway check --batch -
      gateway check --tool Write --input '{"file_path": ".claude/settings.json"}'
      gateway check --agent-id rev-1 "sed -i s/a/b/ src/x.py"
      gateway check --tool Edit --permission-mode delegate --input '{"file_path": "a.py"}'
      gateway check --permission-mode plan "touch notes.txt"
      gateway check --guards "cat .env"
      gateway check --tool Read --input '{"file_path": ".env"}'
    """
    guards = (force_guards or input_json is not None or agent_id is not None
              or session_id is not None)
    if batch is not None:
        if command_text is not None:
            raise click.UsageError("give either COMMAND or --batch, not both")
        if guards:
            raise click.UsageError("--batch judges Bash commands with the validator; the "
                                   "PreToolUse options take one tool call")
        sys.exit(run_batch(batch, cwd, project, tool_name, not no_settings, permission_mode))
    if guards:
        sys.exit(run_guards(command_text, cwd, project, as_json, verbose, tool_name,
                            input_json, (agent_id, session_id, permission_mode, agent_type),
                            not no_settings))
    if tool_name != "Bash":
        raise click.UsageError(f"--tool {tool_name} is judged by the PreToolUse guards, which "
                               "take the tool_input as --input JSON, e.g. --tool "
                               f"{tool_name} --input '{{\"file_path\": \"src/a.py\"}}' "
                               "(only Bash commands go through the validator)")
    if command_text is None:
        raise click.UsageError("missing COMMAND (or --batch FILE)")
    sys.exit(run_one(command_text, cwd, project, as_json, verbose, tool_name, not no_settings,
                     permission_mode))
