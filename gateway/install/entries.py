"""What `gateway install` registers: one handler per hook the gateway implements.

The list of hooks is gateway.hooks.runner.events() (one module per event in gateway/hooks/),
so a hook module added later is registered by the next install, and nothing is registered
before its module exists. Each hook module describes its own registration with module-level
data (all optional except EVENT, which the runner needs anyway):

  EVENT            Claude Code's event name, e.g. "PreToolUse"
  MATCHER          the matcher regex over tool names, e.g. "Bash" or "Write|Edit"; None (or
                   absent) registers the handler without a matcher, i.e. for every tool
  ON_FAILURE_BLOCK True: the handler gets "onFailure": "block", so a crash or a timeout
                   blocks the call instead of letting it through. Default: True for
                   PreToolUse (the guards must fail closed), False for everything else
  TIMEOUT          seconds before Claude Code gives up on the hook (default 30)

Handlers start the gateway by absolute paths taken from the running installation, so they
work whatever the agent's cwd, PATH and PYTHONPATH are. Two forms (`--launcher`):

  lean    (default) `<venv>/bin/python -I -S -c '<extend sys.path; run gateway>' hook NAME`:
          gateway.launch's line, without `site` and pip's script (~2 ms less per call)
  script  `<venv>/bin/gateway hook NAME`: pip's console script (`--gateway-path` names one)

Install, uninstall and doctor recognise both, whichever was registered, and the
`<python> -m gateway hook NAME` form of older versions.
"""

import importlib
import os
import re
import shlex
import shutil
import subprocess
import sys

from gateway.install import InstallError

#: The Claude Code release the real-client suite (tests/realclient) pins and proves.
TESTED_CLAUDE_CODE = "2.1.330"

DEFAULT_TIMEOUT = 30

_EVENT_NAME = re.compile(r"^[A-Z][A-Za-z]{2,40}$")
_HOOK_NAME = re.compile(r"^[a-z][a-z0-9-]{1,40}$")
_LOOPBACK_URL = re.compile(
    r"^https?://(?:127\.0\.0\.1|localhost|\[::1\])(?::\d{1,5})?/hook/([a-z][a-z0-9-]{1,40})$")


class HookSpec:
    """One implemented hook, as install registers it."""

    __slots__ = ("name", "event", "matcher", "on_failure_block", "timeout", "module")

    def __init__(self, name, event, matcher, on_failure_block, timeout, module):
        self.name = name  # command-line name: "permission-request"
        self.event = event  # Claude Code event: "PermissionRequest"
        self.matcher = matcher  # regex over tool names, or None for every tool
        self.on_failure_block = on_failure_block
        self.timeout = timeout
        self.module = module  # "gateway.hooks.permission_request"

    def __repr__(self) -> str:
        return f"HookSpec({self.name!r}, {self.event!r}, matcher={self.matcher!r})"


def hook_specs() -> list:
    """Every implemented hook, in the runner's order. Raises InstallError when a hook module
    describes itself in a way Claude Code could not use."""
    from gateway.hooks import runner

    specs = []
    for name in runner.events():
        modname = "gateway.hooks." + name.replace("-", "_")
        try:
            module = importlib.import_module(modname)
        except Exception as exc:  # a broken module must stop install, not register garbage
            raise InstallError(f"{modname}: cannot import the hook module: {exc}") from None
        where = f"{modname} ({getattr(module, '__file__', '?')})"
        event = getattr(module, "EVENT", None)
        if not isinstance(event, str) or not _EVENT_NAME.match(event):
            raise InstallError(f"{where}: EVENT must be a Claude Code event name such as "
                               f"'PreToolUse', not {event!r}")
        if not _HOOK_NAME.match(name):
            raise InstallError(f"{where}: the module name gives the hook name {name!r}, "
                               "which is not lower-case words joined by dashes")
        matcher = getattr(module, "MATCHER", None)
        if matcher is not None:
            if not isinstance(matcher, str) or not matcher.strip():
                raise InstallError(f"{where}: MATCHER must be a non-empty string or None, "
                                   f"not {matcher!r}")
            try:
                re.compile(matcher)
            except re.error as exc:
                raise InstallError(f"{where}: MATCHER {matcher!r} is not a regex: {exc}") \
                    from None
        block = getattr(module, "ON_FAILURE_BLOCK", event == "PreToolUse")
        timeout = getattr(module, "TIMEOUT", DEFAULT_TIMEOUT)
        if not isinstance(block, bool):
            raise InstallError(f"{where}: ON_FAILURE_BLOCK must be True or False")
        if not isinstance(timeout, int) or isinstance(timeout, bool) or not 1 <= timeout <= 600:
            raise InstallError(f"{where}: TIMEOUT must be whole seconds from 1 to 600")
        specs.append(HookSpec(name, event, matcher, block, timeout, modname))
    return specs


# --- the gateway command ---------------------------------------------------------------

LAUNCHERS = ("lean", "script")


def _executable(path) -> bool:
    return bool(path) and os.path.isfile(path) and os.access(path, os.X_OK)


def gateway_command(explicit=None, launcher="script") -> list:
    """argv prefix (before `hook NAME`) that runs the installed gateway from anywhere.

    launcher "lean" (what `gateway install` registers unless told otherwise):
    gateway.launch's line for this interpreter and installation, checked by starting it
    once. "script": [abs path of the console script], or [python, -m, gateway] when there is
    no script but the interpreter can import the package from any directory; `explicit`
    (--gateway-path) names the script. Raises InstallError when the form asked for cannot
    work."""
    if launcher not in LAUNCHERS:
        raise InstallError(f"unknown launcher {launcher!r}; use one of {', '.join(LAUNCHERS)}")
    if explicit:
        if launcher == "lean":
            raise InstallError("--gateway-path names a console script: it goes with "
                               "--launcher script, not lean")
        path = os.path.abspath(os.path.expanduser(explicit))
        if not _executable(path):
            raise InstallError(f"--gateway-path {explicit}: not an executable file")
        return [path]
    if launcher == "lean":
        return lean_command()
    # The console script beside the running interpreter (a venv's bin/, uv tool, pipx).
    # Not resolved through symlinks: the venv's path is the stable one.
    beside = os.path.join(os.path.dirname(sys.executable), "gateway")
    if _executable(beside):
        return [os.path.abspath(beside)]
    argv0 = sys.argv[0] if sys.argv else ""
    if os.path.basename(argv0) == "gateway" and _executable(argv0):
        return [os.path.abspath(argv0)]
    found = shutil.which("gateway")
    if found and _importable_from(found):
        return [os.path.abspath(found)]
    if _package_importable(sys.executable):
        return [os.path.abspath(sys.executable), "-m", "gateway"]
    raise InstallError(
        "cannot find an installed `gateway` command to register: install the package "
        "(`pip install .` or `uv tool install .`) and run `gateway install` from it, or pass "
        "--gateway-path /abs/path/to/gateway")


def lean_command(python=None) -> list:
    """gateway.launch's prefix for `python` (default: this interpreter), after starting it
    once, the way Claude Code will (from /, with -I), to see that it imports the gateway,
    every hook module and bashlex. Raises InstallError when it does not."""
    from gateway import launch

    python = os.path.abspath(python or sys.executable or "")
    if not _executable(python):
        raise InstallError(f"the running interpreter {python!r} is not an executable file, "
                           "so the lean launch line cannot name it; use --launcher script")
    paths = launch.search_path()
    prefix = launch.prefix(python, paths)
    check = (f"import sys; sys.path.extend({paths!r}); import gateway._entry; "
             "from gateway.hooks import runner; "
             "[__import__('gateway.hooks.' + e.replace('-', '_')) for e in runner.events()]; "
             "from importlib.util import find_spec; "
             "sys.exit(0 if find_spec('bashlex') is not None else 3)")
    why = ""
    try:
        p = subprocess.run([python, *launch.FLAGS, "-c", check], cwd="/",
                           stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
        if p.returncode != 0:
            err = p.stderr.decode("utf-8", "replace").strip().splitlines()
            why = err[-1] if err else f"exit status {p.returncode}"
            if p.returncode == 3 and not err:
                why = "bashlex is not importable"
    except (OSError, subprocess.TimeoutExpired) as exc:
        why = str(exc)
    if why:
        raise InstallError(f"the lean launch line does not start from this installation "
                           f"({python} -I -S with {', '.join(paths) or 'no directories'}: "
                           f"{why}); reinstall the package, or use --launcher script")
    return prefix


def _importable_from(script: str) -> bool:
    """The `gateway` found on PATH belongs to this package (not some other tool's)."""
    try:
        with open(script, "rb") as fh:
            head = fh.read(4096)
    except OSError:
        return False
    return b"gateway" in head


def _package_importable(python: str) -> bool:
    """`python -m gateway` works from any directory (the package is installed, not just on
    the current PYTHONPATH)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    try:
        p = subprocess.run([python, "-c", "import gateway._entry"], cwd="/", env=env,
                           capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return p.returncode == 0


def prefix_string(prefix: list) -> str:
    """The gateway command as shell text."""
    return " ".join(shlex.quote(p) for p in prefix)


def command_string(prefix: list, hook_name: str, env=None) -> str:
    """The handler's command; `env` (GATEWAY_* settings such as GATEWAY_EARLY_ALLOW=0) is
    written in front, as shell assignments for this command only."""
    assigns = "".join(f"{k}={shlex.quote(v)} " for k, v in sorted((env or {}).items()))
    return assigns + prefix_string(prefix) + " hook " + hook_name


#: Settings a handler's command may carry in front (parse_command reads them back).
_ENV_WORD = re.compile(r"^(GATEWAY_[A-Z_]{1,40})=(.*)$", re.S)
#: The PreToolUse early allow (gateway.guards.reads): off is written into the command.
EARLY_ALLOW_OFF = {"GATEWAY_EARLY_ALLOW": "0"}


def handler_env(spec: HookSpec, early_allow=True) -> dict:
    """The settings written in front of a hook's command: early allow off for PreToolUse."""
    return dict(EARLY_ALLOW_OFF) if spec.event == "PreToolUse" and not early_allow else {}


# --- handlers and groups ----------------------------------------------------------------


def handler(spec: HookSpec, prefix, env=None) -> dict:
    """The command handler for one hook."""
    out = {"type": "command", "command": command_string(prefix, spec.name, env),
           "timeout": spec.timeout}
    if spec.on_failure_block:
        out["onFailure"] = "block"
    return out


def group(spec: HookSpec, prefix, env=None) -> dict:
    """The matcher group holding one handler."""
    out = {}
    if spec.matcher is not None:
        out["matcher"] = spec.matcher
    out["hooks"] = [handler(spec, prefix, env)]
    return out


def http_groups(specs, port=None, project=None, token_from_env=False, env=None,
                early_allow=True) -> dict:
    """{hook name: matcher group} of the http handlers `gateway serve` answers: every hook,
    each with the onFailure of its command handler (PreToolUse: "block", so a server that
    is down, killed mid-call or too slow blocks the call; see gateway.server)."""
    from gateway import server

    kwargs = {"project": project, "env": env, "token_from_env": token_from_env,
              "early_allow": early_allow}
    if port is not None:
        kwargs["port"] = port
    try:
        entries_ = server.http_hook_entries(**kwargs)
    except (OSError, ValueError) as exc:
        raise InstallError(f"cannot prepare the http hooks: {exc}") from None
    out = {}
    for groups in entries_.values():
        for g in groups:
            name = owned_hook_name(g["hooks"][0])
            if name is not None and any(s.name == name for s in specs):
                out[name] = g
    return out


def plugin_hooks(specs=None) -> dict:
    """hooks/hooks.json of the Claude Code plugin layout: the same handlers, run through the
    plugin's launcher (which finds the installed gateway at run time)."""
    specs = hook_specs() if specs is None else specs
    hooks = {}
    for spec in specs:
        h = {"type": "command",
             "command": f'"${{CLAUDE_PLUGIN_ROOT}}/hooks/gateway-hook" {spec.name}',
             "timeout": spec.timeout}
        if spec.on_failure_block:
            h["onFailure"] = "block"
        g = {"matcher": spec.matcher} if spec.matcher is not None else {}
        g["hooks"] = [h]
        hooks.setdefault(spec.event, []).append(g)
    return {"description": "gateway: a permission gateway for AI coding agents. Generated by "
                           "`gateway install --plugin-hooks`; do not edit by hand.",
            "hooks": hooks}


# --- recognising the gateway's own handlers ---------------------------------------------


class Command:
    """A command handler of the gateway, taken apart: `kind` is "script" (the console
    script), "module" (`python -m gateway`) or "lean" (gateway.launch's line, with the
    directories it puts on sys.path in `paths`); `env` the GATEWAY_* settings in front."""

    __slots__ = ("kind", "program", "name", "paths", "env")

    def __init__(self, kind, program, name, paths=(), env=None):
        self.kind, self.program, self.name, self.paths = kind, program, name, tuple(paths)
        self.env = dict(env or {})

    @property
    def early_allow(self) -> bool:
        return (self.env.get("GATEWAY_EARLY_ALLOW", "").strip().lower()
                not in ("0", "off", "false", "no"))

    def display(self) -> str:
        """The command for people: the lean line's program shortened to where it runs from."""
        if self.kind != "lean":
            return ""
        where = ", ".join(self.paths) or "no directories"
        assigns = "".join(f"{k}={v} " for k, v in sorted(self.env.items()))
        return f"{assigns}{self.program} -I -S -c <gateway from {where}> hook {self.name}"


def parse_command(cmd) -> "Command | None":
    """The gateway command handler `cmd` (a settings.json "command" string) runs, or None
    when it is not one: `<...>/gateway hook NAME`, `<python> -m gateway hook NAME`, or the
    lean line `<python> -I -S -c '<gateway.launch program>' hook NAME`."""
    if not isinstance(cmd, str):
        return None
    try:
        words = shlex.split(cmd)
    except ValueError:
        return None
    env = {}
    while words and _ENV_WORD.match(words[0]):
        key, value = _ENV_WORD.match(words.pop(0)).groups()
        env[key] = value
    if len(words) < 3 or words[-2] != "hook" or not _HOOK_NAME.match(words[-1]):
        return None
    name = words[-1]
    head = words[:-2]
    if len(head) == 1 and os.path.basename(head[0]) == "gateway":
        return Command("script", head[0], name, env=env)
    if (len(head) == 3 and head[1:] == ["-m", "gateway"]
            and os.path.basename(head[0]).startswith("python")):
        return Command("module", head[0], name, env=env)
    from gateway import launch

    lean = launch.parse(head)
    if lean is not None:
        return Command("lean", lean[0], name, lean[1], env=env)
    return None


def owned_hook_name(h) -> str | None:
    """The hook name when `h` is a handler the gateway registers (by install, an older
    install with another path or launcher, or by hand as the README shows), else None.

    Command handlers: see parse_command. Http handlers: a loopback URL ending in /hook/NAME.
    """
    if not isinstance(h, dict):
        return None
    kind = h.get("type", "command")
    if kind == "http":
        url = h.get("url")
        m = _LOOPBACK_URL.match(url) if isinstance(url, str) else None
        return m.group(1) if m else None
    if kind != "command":
        return None
    parsed = parse_command(h.get("command"))
    return parsed.name if parsed is not None else None


def display_command(h) -> str:
    """What a handler runs, for people: the URL, the command, or the lean line shortened."""
    if not isinstance(h, dict):
        return ""
    if h.get("type") == "http":
        return h.get("url") or ""
    cmd = h.get("command")
    parsed = parse_command(cmd)
    if parsed is not None and parsed.kind == "lean":
        return parsed.display()
    return cmd if isinstance(cmd, str) else ""


def program_of(h) -> str | None:
    """The program a command handler runs (its first word), or None."""
    try:
        words = shlex.split(h.get("command", ""))
    except (ValueError, AttributeError):
        return None
    while words and _ENV_WORD.match(words[0]):
        words.pop(0)  # GATEWAY_* settings written in front (handler_env)
    return words[0] if words else None
