"""The client's effective sandbox settings, and whether one Bash call runs sandboxed.

Read from the `sandbox` objects of every settings file the gateway already parses for the
permission rules (gateway.settings.load, one pass): no file is read twice. Precedence, as
measured with Claude Code 2.1.330 (docs/client-behaviour.md, "The Bash sandbox"): a scalar
from the project's `.claude/settings.local.json` beats `.claude/settings.json`, which beats the
user's `~/.claude/settings.json`; managed settings beat all. `allowUnsandboxedCommands: false`
in managed or user settings holds whatever a project says. List entries of every layer add
up. A relative path is relative to the project for the project's files and to ~/.claude for
the user's; `~/` is the home directory; `//x` and `/x` are absolute.

A call runs sandboxed when the sandbox is enabled, can start (`failIfUnavailable`, or
bubblewrap and socat on PATH: without them the client runs Bash unconfined and says
nothing, measured), its filesystem rules are not switched off, the call does not ask to
leave it (`dangerouslyDisableSandbox` while `allowUnsandboxedCommands` is not false) and no
`excludedCommands` entry may name it. The secrets are hidden when the effective denyRead holds
every path gateway.sandbox.globs generates for this project.

Fail closed: a `sandbox` value that is not the shape the client reads makes the sandbox
count as absent (the gateway then decides as it does without one). Standard library only.
"""

import os

_MANAGED_PREFIXES = ("/etc/claude-code/", "/Library/Application Support/ClaudeCode/")
_LIST_KEYS = ("denyRead", "denyWrite", "allowWrite", "allowRead")


class Posture:
    """The effective sandbox settings for one project."""

    __slots__ = ("enabled", "fail_if_unavailable", "allow_unsandboxed", "auto_allow",
                 "fs_disabled", "excluded", "paths", "sources", "problems", "platform_ok",
                 "_deps", "_home", "project")

    def __init__(self):
        self.enabled = False
        self.fail_if_unavailable = False
        self.allow_unsandboxed = True  # the client's default
        self.auto_allow = False  # the client's default
        self.fs_disabled = False
        self.platform_ok = True
        self.excluded = []  # excludedCommands, every layer
        self.paths = {k: [] for k in _LIST_KEYS}  # absolute forms
        self.sources = {}  # key -> settings file that decided it
        self.problems = []  # settings the client would not read as the gateway does
        self._deps = None
        self._home = ""
        self.project = ""

    # --- can it start -------------------------------------------------------------------

    def deps_found(self, env) -> bool:
        """bubblewrap and socat on the PATH the client (and so the hook) has."""
        if self._deps is None:
            found = {"bwrap": False, "socat": False}
            for d in (env.get("PATH") or "").split(os.pathsep):
                if not d:
                    continue
                for name in found:
                    if not found[name] and os.access(os.path.join(d, name), os.X_OK):
                        found[name] = True
            self._deps = found["bwrap"] and found["socat"]
        return self._deps

    def active(self, env) -> bool:
        """The sandbox is on and Bash calls run in it (unless one asks to leave it)."""
        return (self.enabled and self.platform_ok and not self.fs_disabled and not self.problems
                and (self.fail_if_unavailable or self.deps_found(env)))

    def runs_sandboxed(self, command, tool_input, env) -> bool:
        """Does this Bash call run inside the sandbox?"""
        if not self.active(env):
            return False
        if isinstance(tool_input, dict) and tool_input.get("dangerouslyDisableSandbox") \
                and self.allow_unsandboxed:
            return False
        return not self.excluded_match(command)

    def why_not(self, command, tool_input, env) -> str:
        """Why this call does not run sandboxed ("" when it does)."""
        if self.problems:
            return "the sandbox settings cannot be read as the client reads them: " \
                   + self.problems[0]
        if not self.enabled:
            return "the sandbox is not enabled (sandbox.enabled)"
        if not self.platform_ok:
            return "sandbox.enabledPlatforms does not list linux"
        if self.fs_disabled:
            return "sandbox.filesystem.disabled switches its file rules off"
        if not (self.fail_if_unavailable or self.deps_found(env)):
            return ("bubblewrap or socat is not on PATH and sandbox.failIfUnavailable is not "
                    "set: the client runs Bash unconfined")
        if isinstance(tool_input, dict) and tool_input.get("dangerouslyDisableSandbox") \
                and self.allow_unsandboxed:
            return ("the call asks to run outside the sandbox (dangerouslyDisableSandbox) and "
                    "sandbox.allowUnsandboxedCommands is not false")
        hit = self.excluded_match(command)
        if hit:
            return f"sandbox.excludedCommands lists {hit!r}"
        return ""

    def excluded_match(self, command) -> str:
        """The excludedCommands entry that may name `command`, or "". Fail closed: an entry
        whose first word appears anywhere among the command's words counts (the client's
        matching of compound commands is not modelled)."""
        if not self.excluded:
            return ""
        words = set(_words(command))
        for entry in self.excluded:
            first = entry.strip().split(" ", 1)[0] if isinstance(entry, str) else ""
            if not first or first == "*" or "*" in first:
                return entry if isinstance(entry, str) else "?"
            if first in words or os.path.basename(first) in words:
                return entry
        return ""

    # --- what it hides ------------------------------------------------------------------

    def missing(self, wanted) -> list:
        """The entries of `wanted` ([absolute path or glob]) the effective denyRead lacks."""
        have = set(self.paths["denyRead"])
        return [w for w in wanted if w not in have]

    def hides_secrets(self, policy, env) -> list:
        """The secret paths (absolute) the effective denyRead lacks, and the allowRead
        entries that may re-open one (any but the templates install writes): [] when every
        path gateway.sandbox.globs generates for this project is hidden."""
        out = self.missing(wanted_deny_read(policy, self.project, env, self._home))
        if self.paths["allowRead"]:
            from gateway.sandbox import globs

            templates = {_absolute(g, self.project, self._home)
                         for g in globs.template_globs(policy)}
            out += [f"allowRead {p}" for p in self.paths["allowRead"] if p not in templates]
        return out


def _words(command):
    out = []
    cur = []
    for ch in command if isinstance(command, str) else "":
        if ch.isspace() or ch in ";&|()<>`$\"'{}":
            if cur:
                out.append("".join(cur))
                cur = []
        else:
            cur.append(ch)
    if cur:
        out.append("".join(cur))
    return out + [os.path.basename(w) for w in out if "/" in w]


def wanted_deny_read(policy, project, env, home=None) -> list:
    """The absolute forms of every denyRead path gateway install generates for `project`."""
    from gateway.sandbox import globs

    home = home or _home(env)
    out = [_absolute(g, project, home) for g, _r in globs.secret_globs(policy)]
    out += [_absolute(p, project, home) for p, _r in globs.home_secrets(policy)]
    out += [_absolute(p, project, home) for p in globs.client_credentials(env)]
    return out


def _home(env) -> str:
    return os.path.normpath(env.get("HOME") or os.path.expanduser("~"))


def _absolute(value, root, home) -> str:
    """The client's reading of a sandbox path written in a file whose root is `root`."""
    if value.startswith("~/"):
        return _norm(home + "/" + value[2:])
    if value == "~":
        return home
    if value.startswith("/"):
        return _norm("/" + value.lstrip("/"))
    rel = value[2:] if value.startswith("./") else value
    return _norm(root.rstrip("/") + "/" + rel)


def _norm(p) -> str:
    # normalise slashes and dots, keep glob characters as they are
    parts = []
    for c in p.split("/"):
        if c in ("", "."):
            continue
        if c == ".." and parts:
            parts.pop()
            continue
        parts.append(c)
    return "/" + "/".join(parts)


def _layer_root(path, project, env) -> str:
    """Where relative paths in the settings file `path` are anchored."""
    if path.startswith(_MANAGED_PREFIXES):
        return "/"
    if project and path.startswith(os.path.join(project, ".claude") + os.sep):
        return project
    config_dir = env.get("CLAUDE_CONFIG_DIR") or os.path.join(_home(env), ".claude")
    return config_dir


def from_settings(settings, project, env) -> Posture:
    """The Posture of the `sandbox` objects gateway.settings.load collected."""
    p = Posture()
    p.project = project or ""
    p._home = _home(env)
    layers = list(getattr(settings, "sandbox", ()) or ())
    # lowest precedence first: the user's files, the project's, its local file; managed last
    managed = [lay for lay in layers if lay[0].startswith(_MANAGED_PREFIXES)]
    others = [lay for lay in layers if not lay[0].startswith(_MANAGED_PREFIXES)]
    held_closed = False
    for path, sb in others + managed:
        if not isinstance(sb, dict):
            p.problems.append(f"{path}: sandbox is not an object")
            continue
        for key, attr in (("enabled", "enabled"), ("failIfUnavailable", "fail_if_unavailable"),
                          ("autoAllowBashIfSandboxed", "auto_allow"),
                          ("allowUnsandboxedCommands", "allow_unsandboxed")):
            if key not in sb:
                continue
            v = sb[key]
            if not isinstance(v, bool):
                p.problems.append(f"{path}: sandbox.{key} is not true or false")
                continue
            if key == "allowUnsandboxedCommands" and held_closed and v:
                continue  # a false in user or managed settings holds
            setattr(p, attr, v)
            p.sources[key] = path
            if key == "allowUnsandboxedCommands" and not v and (
                    path.startswith(_MANAGED_PREFIXES) or _layer_root(path, project, env)
                    != (project or "")):
                held_closed = True
        plats = sb.get("enabledPlatforms")
        if plats is not None:
            p.platform_ok = isinstance(plats, list) and "linux" in plats
        ex = sb.get("excludedCommands")
        if ex is not None:
            if isinstance(ex, list):
                p.excluded.extend(ex)
            else:
                p.problems.append(f"{path}: sandbox.excludedCommands is not a list")
        fs = sb.get("filesystem")
        if fs is None:
            continue
        if not isinstance(fs, dict):
            p.problems.append(f"{path}: sandbox.filesystem is not an object")
            continue
        if fs.get("disabled") is True:
            p.fs_disabled = True
        root = _layer_root(path, project, env)
        for key in _LIST_KEYS:
            vals = fs.get(key)
            if vals is None:
                continue
            if not isinstance(vals, list) or not all(isinstance(v, str) for v in vals):
                p.problems.append(f"{path}: sandbox.filesystem.{key} is not a list of strings")
                continue
            for v in vals:
                p.paths[key].append(_absolute(v, root, p._home))
    return p


def load(project, env) -> Posture:
    """The Posture for `project`, reading the settings files (for the CLI; the hook passes
    the settings it already read to from_settings)."""
    from gateway import settings as settings_mod

    return from_settings(settings_mod.load(project, env), project, env)


def probe_block(posture, project_to, home_to) -> dict:
    """The effective settings as one `sandbox` object for a scratch project and home (the
    client self-test): the project's and the home's paths moved there, written absolute."""

    def move(p):
        for old, new in ((posture.project, project_to), (posture._home, home_to)):
            if old and (p == old or p.startswith(old.rstrip("/") + "/")):
                return "/" + new.rstrip("/") + p[len(old.rstrip("/")):]
        return "/" + p

    out = {"enabled": posture.enabled, "failIfUnavailable": posture.fail_if_unavailable,
           "allowUnsandboxedCommands": posture.allow_unsandboxed}
    fs = {k: [move(p) for p in v] for k, v in posture.paths.items() if v}
    if fs:
        out["filesystem"] = fs
    return out
