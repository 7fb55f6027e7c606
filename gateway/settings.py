"""The user's own Claude Code permission rules, which the gateway treats as binding.

PermissionRequest hooks also fire for commands a `permissions.ask` rule sends to the dialog,
so a hook that allowed them would override the user. Every settings file Claude Code reads
is consulted (managed, user, project, local); a `Bash(...)` rule in `ask` or `deny` that
names a segment keeps it from being auto-allowed. A settings file that exists but cannot be
read or parsed makes every command ask (GW903): its rules cannot be honoured. So does one
that is not a regular file (a FIFO, a directory, a device, a dangling link) or is larger
than 4 MiB: it is refused without being read (gateway.configfile), never taken as absent.
"""

import os

from gateway import _fastjson as json

_MAX_SETTINGS = 4 * 1024 * 1024


def settings_paths(project_dir, env=None) -> list:
    env = os.environ if env is None else env
    home = env.get("HOME") or os.path.expanduser("~")
    config_dir = env.get("CLAUDE_CONFIG_DIR") or os.path.join(home, ".claude")
    paths = [
        "/etc/claude-code/managed-settings.json",
        "/Library/Application Support/ClaudeCode/managed-settings.json",
        os.path.join(config_dir, "settings.json"),
        os.path.join(config_dir, "settings.local.json"),
    ]
    if project_dir:
        paths.append(os.path.join(project_dir, ".claude", "settings.json"))
        paths.append(os.path.join(project_dir, ".claude", "settings.local.json"))
    return paths


class Rule:
    __slots__ = ("kind", "text", "source", "mode", "pattern", "_rx")

    def __init__(self, kind, text, source):
        self.kind = kind  # "ask" or "deny"
        self.text = text  # as written, e.g. Bash(git push:*)
        self.source = source
        inner = text[5:-1].strip() if text.startswith("Bash(") and text.endswith(")") else ""
        self._rx = None
        if text == "Bash" or inner in ("", "*"):
            self.mode, self.pattern = "all", ""
        elif inner.endswith(":*"):
            self.mode, self.pattern = "prefix", inner[:-2].rstrip()
        elif "*" in inner:
            self.mode, self.pattern = "glob", inner
        else:
            self.mode, self.pattern = "exact", inner

    def matches(self, text: str) -> bool:
        if self.mode == "all":
            return True
        if self.mode == "prefix":
            return text == self.pattern or text.startswith(self.pattern + " ")
        if self.mode == "exact":
            return text == self.pattern
        if self._rx is None:
            import re
            pattern, tail = self.pattern, ""
            if pattern.endswith(" *"):
                # `Bash(ls *)` names `ls -la` and also a bare `ls`
                pattern, tail = pattern[:-2], "(?: .*)?"
            body = ".*".join(re.escape(p) for p in pattern.split("*"))
            self._rx = re.compile(body + tail + r"\Z", re.DOTALL)
        return self._rx.match(text) is not None


class SettingsRules:
    """The ask and deny rules for Bash from every settings file, and any read errors; the
    allow rules apart (`allows`: they never make the gateway stricter, see below)."""

    def __init__(self, rules=(), errors=(), allow=()):
        self.rules = list(rules)
        self.errors = list(errors)
        self.allow = list(allow)

    def allows(self, argv, cmd_text: str):
        """(rule text, source) of a permissions.allow rule that names this command as
        written, or None. The client matches its allow rules against the command's own
        text: no base name or case variant is tried here (those only ever make ask and
        deny rules stricter)."""
        if not self.allow or not argv:
            return None
        texts = (cmd_text.strip(), " ".join(argv))
        for rule in self.allow:
            if any(rule.matches(t) for t in texts):
                return rule.text, rule.source
        return None

    def match(self, argv, cmd_text: str, deny_only: bool = False):
        """(kind, rule text, source) of the strictest rule naming this command, or None."""
        if not self.rules or not argv:
            return None
        joined = " ".join(argv)
        base = argv[0].rsplit("/", 1)[-1]
        texts = {cmd_text.strip(), joined, " ".join([base] + list(argv[1:])),
                 " ".join([base.lower()] + list(argv[1:]))}
        found = None
        for rule in self.rules:
            if deny_only and rule.kind != "deny":
                continue
            if any(rule.matches(t) for t in texts):
                if rule.kind == "deny":
                    return (rule.kind, rule.text, rule.source)
                found = found or (rule.kind, rule.text, rule.source)
        return found


def load(project_dir, env=None) -> SettingsRules:
    rules = []
    errors = []
    allow = []
    from gateway import configfile

    for path in settings_paths(project_dir, env):
        try:
            # a regular file only, never blocking (a FIFO here hung every hook), bounded
            data = configfile.read(path, _MAX_SETTINGS)
        except configfile.ConfigFileError as exc:
            errors.append(str(exc))
            continue
        if data is None:
            continue
        try:
            doc = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            errors.append(f"{path}: not valid JSON ({exc})")
            continue
        if not isinstance(doc, dict):
            errors.append(f"{path}: the top level is not an object")
            continue
        perms = doc.get("permissions", {})
        if perms is None:
            continue
        if not isinstance(perms, dict):
            errors.append(f"{path}: permissions is not an object")
            continue
        for kind in ("ask", "deny", "allow"):
            items = perms.get(kind, [])
            if items is None:
                continue
            if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
                if kind != "allow":  # an allow list the client cannot read allows nothing
                    errors.append(f"{path}: permissions.{kind} is not a list of strings")
                continue
            for item in items:
                item = item.strip()
                if item == "Bash" or item.startswith("Bash("):
                    (allow if kind == "allow" else rules).append(Rule(kind, item, path))
    return SettingsRules(rules, errors, allow)
