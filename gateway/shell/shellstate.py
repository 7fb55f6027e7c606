"""Commands that change only the shell they run in, and where they stand in a line.

`FOO=bar` (assignments and no command), `export FOO=bar` / `export FOO` and `source FILE` /
`. FILE` act on the current shell: its variables, its environment, and for `source` whatever
FILE's code does in it (directory, functions, aliases, options). What they change is seen
only by the commands that run after them in the same shell: the client runs every Bash call
in a shell of its own, and "an export in one command will not be available in the next"
(Claude Code's Bash tool; the working directory alone carries over, and only inside the
project). So:

* as the last command of the line (`last_command`), an assignment or export of literal
  values has no effect at all, and `source FILE` is what FILE's code does, nothing more:
  the same trust as `bash FILE` (gateway.validator.segment);
* before another command it changes that command's environment exactly as a prefix
  assignment does (`export PATH=/tmp/x:$PATH; ls` is `PATH=/tmp/x:$PATH ls`, GW211), and a
  sourced file may move the shell or redefine the commands after it (GW307).

Standard library only (the hook path imports it).
"""

ASSIGN = "assign"
EXPORT = "export"
SOURCE = "source"

_EXPORT_ARG = r"[A-Za-z_][A-Za-z0-9_]*(\+?=.*)?\Z"  # compiled when an export is met


def last_command(script):
    """The simple command that is the last thing the line runs in its shell: the last item
    of the top-level list, a pipeline of exactly that command (not negated, not in the
    background). None when there is none."""
    if script is None or not script.items:
        return None
    pipeline, op = script.items[-1]
    if op not in (None, ";", "\n") or getattr(pipeline, "negated", False) \
            or len(pipeline.commands) != 1:
        return None
    return pipeline.commands[0]


def kind(cmd):
    """ASSIGN, EXPORT or SOURCE when `cmd` is such a command in a form modelled here, else
    None. ASSIGN: only assignments of literal values. EXPORT: `export` with one or more
    literal NAME or NAME=value arguments (no option: -f, -n and -p do other things, and a
    bare `export` prints the environment). SOURCE: `source`/`.` with a literal file and
    literal arguments. None of them with a redirection."""
    if cmd is None or cmd.redirects:
        return None
    if not cmd.words:
        if cmd.assignments and all(a.literal for a in cmd.assignments):
            return ASSIGN
        return None
    if cmd.assignments:
        return None
    first = cmd.words[0]
    args = cmd.words[1:]
    if first.raw == "export":
        import re  # not for the commands that are no export

        if args and all(w.literal and re.match(_EXPORT_ARG, w.value, re.S) for w in args):
            return EXPORT
        return None
    if first.raw in ("source", "."):
        if args and all(w.literal for w in args):
            return SOURCE
    return None


def activation(arg, bin_dirs):
    """Is the path `arg` (as written, relative) the `activate` script of one of the
    project_bin_dirs (`.venv/bin/activate`, `./venv/bin/activate`)?"""
    import posixpath

    if arg.startswith("/") or not arg:
        return False
    norm = posixpath.normpath(arg)
    return (not norm.startswith("..") and posixpath.basename(norm) == "activate"
            and posixpath.dirname(norm) in bin_dirs)
