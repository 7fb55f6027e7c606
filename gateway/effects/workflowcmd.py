"""The gateway's own workflow commands as the guards read them: `gateway <verb> [<sub>] ...`
resolved against its catalogue entry (rules/workflow.yaml), the one description both hooks
use. Standard library only (hook path).

* ``resolve(spec, argv)``: the subcommand entry a command line reaches, its label and the
  words after it, or None when the entry does not list it;
* ``single(command)``: the argv of a command that is exactly one `gateway ...` (one simple
  command, literal words, the installed gateway), else None -- the form the delegate-mode
  guard and the registration channel accept (nothing else runs beside it).
"""

import posixpath

#: In `state_op_with`: the subcommand changes the state when it is given an argument
#: (`gateway breezing phase B`; `gateway breezing phase` shows the phase).
ARGUMENT = "<argument>"


class Resolved:
    """A workflow command: ``spec`` (its catalogue entry), ``label`` ("gateway breezing
    phase"), ``rest`` (the words after the subcommand), ``args`` (parsed as the entry reads
    them)."""

    __slots__ = ("spec", "label", "rest", "args")

    def __init__(self, spec, label, rest, args):
        self.spec, self.label, self.rest, self.args = spec, label, rest, args

    @property
    def help(self) -> bool:
        return any(w in ("-h", "--help") for w in self.rest)

    @property
    def state_op(self):
        """The workflow state change this use makes, or None (a view)."""
        s = self.spec
        if not s.state_op or self.help:
            return None
        if s.dry_run and self.args.has(*s.dry_run):
            return None
        if s.state_op_with and not (self.args.has(*s.state_op_with) or (
                ARGUMENT in s.state_op_with and self.args.positionals)):
            return None
        if s.args == "text" and self.args.positionals:
            return f"{s.state_op} {self.args.positionals[0][:40]}"
        return s.state_op

    def positionals(self) -> list:
        return list(self.args.positionals)

    def values(self, name) -> list:
        return self.args.values(name)


def resolve(spec, argv):
    """``Resolved`` for ``argv`` (the words after `gateway`) under the gateway's entry
    ``spec``, or None when a word names no listed subcommand."""
    from gateway.shell import argv as argvmod

    label = "gateway"
    words = list(argv)
    while spec.subcommands is not None and words and not words[0].startswith("-"):
        if words[0] not in spec.subcommands:
            return None
        label = f"{label} {words[0]}"
        spec = spec.subcommands[words[0]]
        words = words[1:]
    args = argvmod.parse(words, spec.value_flags, spec.long_options, spec.optional_flags)
    return Resolved(spec, label, words, args)


def single(command, limit=4096):
    """The argv of `command` when it is exactly one `gateway ...` (see the module
    docstring), else None."""
    if not isinstance(command, str) or len(command) > limit:
        return None
    from gateway.shell.parse import ShellParseError, parse

    try:
        script = parse(command)
    except ShellParseError:
        return None
    if not script.simple:
        return None
    cmd = script.items[0][0].commands[0]
    if cmd.assignments or cmd.redirects or not all(w.literal for w in cmd.words):
        return None
    argv = [w.value for w in cmd.words]
    from gateway.effects.analysis._base import trusted_program

    if not argv or posixpath.basename(argv[0]) != "gateway" or not trusted_program(argv[0]):
        return None
    return argv


def of_command(command, policy):
    """``Resolved`` for a command that is exactly one `gateway ...` the rules list, or None."""
    argv = single(command)
    if argv is None:
        return None
    spec = policy.command("gateway")
    if spec is None:
        return None
    return resolve(spec, argv[1:])
