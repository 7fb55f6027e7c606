"""What Claude Code does on its own when a hook gives no decision, per permission mode.

"No decision" is not "ask": the client's own permission flow decides, and it runs a good
deal by itself (measured on 2.1.330, reference/claude-code-hooks.md §5, §8, §14, §15 and
docs/client-behaviour.md). The dry run (`gateway check`) says this instead of "= ask", and
docs/security.md's decision matrix is built from the same facts.
"""

#: Claude Code's permission modes (gateway.validator.modes judges by them).
DEFAULT = "default"
PLAN = "plan"
ACCEPT_EDITS = "acceptEdits"
#: Modes the gateway knows; an absent mode (older clients, the CLI) is "default".
KNOWN = frozenset((DEFAULT, PLAN, ACCEPT_EDITS, "bypassPermissions", "dontAsk", "auto",
                   "delegate"))
#: Modes in which the human accepted edits inside the project. Auto mode runs the client's
#: own in-project edits (mkdir, cp, sed -i, redirections) before its classifier looks at
#: anything, as acceptEdits does (measured, docs/client-behaviour.md).
EDITS = frozenset((ACCEPT_EDITS, "auto", "bypassPermissions"))


def normalize(mode):
    """The mode to judge by: a known mode as is, "default" for none, "plan" for an unknown
    one (the strictest about writes)."""
    if mode is None or mode == "":
        return DEFAULT
    return mode if mode in KNOWN else PLAN


def accepts_edits(mode) -> bool:
    return normalize(mode) in EDITS

#: The client's own flow for a call no hook decided, by permission mode.
_FLOW = {
    "default": "it runs read-only commands and reads inside the project by itself; for the "
               "rest it shows the dialog (interactive) or refuses (-p), and PermissionRequest "
               "may allow",
    "acceptEdits": "it runs read-only commands, reads and edits inside the project by itself "
                   "(Write/Edit, mkdir, touch, rm, rmdir, mv, cp, sed, redirections); for the "
                   "rest the dialog (interactive) or a refusal (-p), and PermissionRequest may "
                   "allow",
    "plan": "it runs reads by itself and nothing that writes; a PermissionRequest allow would "
            "run a writing command, so the gateway allows none",
    "auto": "it runs reads and edits inside the project by itself and its classifier "
            "approves or refuses the rest; PermissionRequest never fires",
    "dontAsk": "it refuses everything that is not pre-approved by a rule; PermissionRequest "
               "never fires",
    "bypassPermissions": "it runs everything; only a hook's deny or ask stops a call",
    "delegate": "(an old client's delegate mode) as default, for the tools the mode leaves",
}


def flow(mode) -> str:
    """One sentence: what the client does by itself for a call no hook decided."""
    name = normalize(mode)
    if mode and mode not in KNOWN:
        return f"unknown mode {mode!r}: the gateway judges it as plan; " + _FLOW["plan"]
    return f"{name} mode: " + _FLOW[name]


def allow_rule(settings, command):
    """The permissions.allow rule by which the client runs `command` itself when no hook
    decides, or None: only for one simple command the rule names as written (the client's
    rules are shell-operator aware: `Bash(tox:*)` does not cover `tox && other`). Used by
    the dry run and the benchmarks to say what runs; the hooks never act on it."""
    if settings is None or not getattr(settings, "allow", None) or not isinstance(command, str):
        return None
    from gateway.shell.parse import ShellParseError, parse

    try:
        script = parse(command)
    except ShellParseError:
        return None
    if len(script.items) != 1 or len(script.items[0][0].commands) != 1 or script.constructs:
        return None
    cmd = script.items[0][0].commands[0]
    if cmd is None or cmd.assignments or cmd.redirects or not all(w.literal for w in cmd.words):
        return None
    hit = settings.allows(cmd.argv, command)
    return hit[0] if hit else None
