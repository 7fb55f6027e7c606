"""`for NAME in WORDS; do BODY; done`, unrolled into the commands bash runs.

bash expands WORDS once (braces, tildes, globs: gateway.shell.expand), then runs BODY once
per value with NAME set to it. So a loop is judged as the list of its body's instances,
each with NAME replaced by one value: a quoted `"$f"` (or `"${f}"`) is exactly the value as
one word, written here as the single-quoted value; an unquoted `$f` is split and globbed by
bash, which changes nothing only for a value of plain characters (letters, digits and
`._/%:,@+=-`), so any other value there is not modelled. Both hooks judge the unrolled
text (the validator, gateway.validator.pipeline; the effects analysis,
gateway.effects.analysis): every instance must be allowed for the loop to be, and the gravest
finding of any instance stands (a catastrophic deny among them denies the loop).

What is not modelled is refused (`Refused`, the callers ask), never guessed:

* `for NAME; do` (the positional parameters), C-style `for ((...))` (bashlex rejects it),
  while/until/if/case, a loop inside a pipeline, a subshell, a substitution or another loop,
  a loop with its own redirections (`done > out`);
* a body that is not simple commands and pipelines joined by ; && || or newlines, holds a
  substitution, a here-document, an assignment, or a builtin that changes the shell's
  state or the loop's flow (cd, export, read, break, continue, ...): an iteration could
  change what the next one does;
* a loop variable that programs could see in their environment: an upper-case name, a name
  already in the environment (exported), or one of the few lower-case names programs read
  (`*_proxy`, npm's `npm_config_*`) should the user's shell export every variable (`set -a`);
  a `${NAME...}` form other than `${NAME}`;
* words with an expansion other than braces, globs and `~`/`~/`, more than MAX_VALUES
  values, a value with a control character;
* a loop after a command that may change the directory or the shell (`cd src; for f in
  *`: the glob would expand elsewhere).

Standard library only (the hook path imports it).
"""

import re

from gateway.shell import words as sw

#: Values one loop may take before the gateway stops unrolling it (and asks).
MAX_VALUES = 64

#: Builtins that change the shell's state (directory, variables, options, functions,
#: aliases, positional parameters) or the loop's flow: an iteration running one could
#: change what the next one does, or what a later command of the line does.
STATEFUL = frozenset((
    "cd", "pushd", "popd", "source", ".", "eval", "exec", "set", "shopt", "export",
    "declare", "typeset", "local", "readonly", "unset", "alias", "unalias", "enable", "trap",
    "read", "mapfile", "readarray", "getopts", "let", "shift", "hash", "builtin", "command",
    "coproc", "function", "break", "continue", "return", "exit", "logout", "ulimit", "umask",
    "wait", "fg", "bg", "disown", "suspend", "fc", "history", "complete", "compopt",
    "dirs"))

_NAME = re.compile(r"[a-z_][a-z0-9_]*\Z")
_PLAIN = re.compile(r"[A-Za-z0-9._/%:,@+=-]+\Z")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
#: Text in a body that runs or computes something while the body is expanded.
_SUBSTITUTIONS = ("$(", "`", "<(", ">(", "$[")


class Unrolled:
    """The command text with every loop replaced by its instances."""

    __slots__ = ("text", "count", "notes")

    def __init__(self, text, count, notes):
        self.text = text
        self.count = count  # instances of loop bodies in all
        self.notes = notes  # one line per loop: "for f in ...: 3 value(s)"


class Refused:
    """A loop the gateway does not unroll, and why."""

    __slots__ = ("reason",)

    def __init__(self, reason):
        self.reason = reason


class _Refuse(Exception):
    pass


def unroll(script, cwd, home, environ=None):
    """None when `script` (gateway.shell.parse.Script) has no `for` loop; else `Unrolled`
    or `Refused`. `cwd` is where the command starts (None: unknown), `home` its $HOME,
    `environ` the names in its environment (None: this process's)."""
    loops = getattr(script, "loops", ())
    if not loops:
        return None
    try:
        return _unroll(script, loops, cwd, home, environ)
    except _Refuse as exc:
        return Refused(str(exc))
    except RecursionError:
        return Refused("the loop nests too deeply")


def _unroll(script, loops, cwd, home, environ):
    top = [p.loop for p, _ in script.items if p.loop is not None]
    if len(top) != len(loops):
        raise _Refuse("a loop inside a pipeline, a subshell, a substitution or another "
                      "compound command is not unrolled")
    kinds = [k for k, _ in script.constructs]
    if any(k != "compound" for k in kinds) or len(kinds) != len(loops):
        raise _Refuse("the loop sits beside another construct (a subshell, a group, a "
                      "here-document, a substitution, a background job, another compound "
                      "command)")
    if environ is None:
        import os

        environ = os.environ
    text = script.text
    count = 0
    notes = []
    pieces = []
    pos = 0
    for loop in top:
        _check_before(script, loop)
        _check_loop(script, loop, environ)
        values = _values(loop, cwd, home)
        body = text[loop.body_start:loop.body_end].rstrip()
        if body.endswith(";") and not body.endswith(";;") and not body.endswith("\\;"):
            # `do ls; done && x`: the body's last separator ends the loop's list, not the
            # line's (kept, `ls; && x` does not parse; the loop's status is the last
            # instance's, as `&&`/`||` after `done` read it)
            body = body[:-1]
        instances = [_substitute(body, loop.name, v) for v in values]
        count += len(instances)
        shown = ", ".join(repr(v) for v in values[:4]) + (" ..." if len(values) > 4 else "")
        notes.append(f"for {loop.name} in {' '.join(w.raw for w in loop.words)}: "
                     f"{len(values)} value(s){': ' + shown if values else ''}")
        pieces.append(text[pos:loop.start])
        # no value: the body never runs (`true` keeps a list around it well formed)
        pieces.append("\n".join(instances) if instances else "true")
        pos = loop.end
    pieces.append(text[pos:])
    return Unrolled("".join(pieces), count, notes)


def _name_of(cmd):
    return cmd.words[0] if cmd.words else None


def _check_before(script, loop):
    """A command before the loop that may move the shell or change its state: the loop's
    words would expand elsewhere, its body run in a changed shell."""
    for cmd in script.all_commands:
        if cmd.start >= loop.start:
            continue
        first = _name_of(cmd)
        if cmd.assignments or first is None or not first.literal \
                or first.value in STATEFUL:
            raise _Refuse(f"{cmd.text[:40]!r} before the loop may change the directory or "
                          "the shell the loop runs in")


def _check_loop(script, loop, environ):
    if loop.words is None:
        raise _Refuse(f"for {loop.name} without `in` loops over the positional parameters")
    if loop.shape is not None:
        raise _Refuse(f"the loop's body holds {loop.shape}; only simple commands and "
                      "pipelines joined by ; && || are unrolled")
    if loop.redirects:
        raise _Refuse("the loop has redirections of its own")
    name = loop.name
    if not _NAME.match(name) or name.endswith("_proxy") or name.startswith("npm_") \
            or name in environ:
        raise _Refuse(f"the loop variable {name!r} may reach the environment of the "
                      "programs the body runs (an upper-case name, one already in the "
                      "environment, or a proxy setting); use a lower-case name")
    body = script.text[loop.body_start:loop.body_end]
    if any(s in body for s in _SUBSTITUTIONS):
        raise _Refuse("the loop's body holds a command, process or arithmetic substitution")
    for cmd in loop.body:
        if cmd.assignments:
            raise _Refuse(f"the loop's body assigns a variable ({cmd.assignments[0].raw})")
        if any(r.heredoc is not None for r in cmd.redirects):
            raise _Refuse("the loop's body holds a here-document")
        first = _name_of(cmd)
        if first is None:
            raise _Refuse(f"{cmd.text[:40]!r} in the loop's body has no command word")
        if first.value in STATEFUL or first.raw in STATEFUL:
            raise _Refuse(f"the loop's body runs {first.value!r}, which changes the shell's "
                          "state or the loop's flow")
        if first.value == "printf" and any(w.value.startswith("-v") or w.raw.startswith("-v")
                                           for w in cmd.words[1:2]):
            raise _Refuse("the loop's body sets a variable (printf -v)")


def _values(loop, cwd, home):
    from gateway.shell import expand as ex

    budget = ex.Budget()
    out = []
    try:
        for word in loop.words:
            out.extend(_word_values(word, cwd, home, budget, ex))
            if len(out) > MAX_VALUES * 4:
                break
    except ex.TooLarge as exc:
        raise _Refuse(f"the loop's words expand too far ({exc})") from None
    except ex.Unsupported as exc:
        raise _Refuse(f"a glob the gateway does not model in the loop's words ({exc})") \
            from None
    values = list(dict.fromkeys(out))
    if len(values) > MAX_VALUES:
        raise _Refuse(f"the loop takes more than {MAX_VALUES} values")
    for v in values:
        if _CONTROL.search(v):
            raise _Refuse(f"the loop value {v!r} holds a control character")
    return values


def _word_values(word, cwd, home, budget, ex):
    kinds = {k for k, _ in word.issues}
    if not kinds:
        return [word.value]
    if not kinds <= {sw.GLOB, sw.BRACE, sw.TILDE}:
        raise _Refuse(f"the loop's word {word.raw!r} holds an expansion the gateway does not "
                      "evaluate")
    pattern = word.pattern
    out = []
    for p in ex.braces(pattern, budget):
        if p.startswith("~"):
            # a tilde at the start (also one that brace expansion put there: `{~,x}/a`)
            if not home or not home.startswith("/") or (len(p) > 1 and p[1] != "/") \
                    or any(q + "~" in word.raw for q in ("'", '"', "\\")):
                raise _Refuse(f"the tilde in the loop's word {word.raw!r} is not $HOME")
            p = sw._quote_pattern(home.rstrip("/")) + p[1:] if len(p) > 1 else \
                sw._quote_pattern(home)
        if not ex.has_glob(p):
            out.append(ex.unescape(p))
            continue
        if cwd is None and not p.startswith("/"):
            raise _Refuse(f"the loop's glob {word.raw!r} expands in a directory that is not "
                          "known")
        strict = ex.expand(p, cwd or "/", False, budget)
        wide = ex.expand(p, cwd or "/", True, budget)
        # bash's result lies between the two (gateway.shell.expand); where the strict
        # reading matches nothing bash may pass the pattern itself
        out.extend(wide)
        out.extend(strict)
        if not strict:
            out.append(ex.unescape(p))
    return out


def _sq(value):
    return "'" + value.replace("'", "'\\''") + "'"


_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def _reference(text, i, name):
    """At a `$` at text[i]: the end of a reference to `name` ($name, ${name}), or None
    when it is another expansion. Refuses a ${...} that uses the name otherwise."""
    n = len(name)
    if text.startswith(name, i + 1) and (i + 1 + n >= len(text)
                                         or text[i + 1 + n] not in _NAME_CHARS):
        return i + 1 + n
    if text.startswith("{", i + 1):
        j = text.find("}", i + 2)
        if j < 0:
            raise _Refuse("an unclosed ${ in the loop's body")
        inner = text[i + 2:j]
        if inner == name:
            return j + 1
        if re.search(r"(?<![A-Za-z0-9_])" + re.escape(name) + r"(?![A-Za-z0-9_])", inner):
            raise _Refuse(f"the loop's body uses ${{{inner}}}; only $NAME and ${{NAME}} of "
                          "the loop variable are unrolled")
    return None


def _substitute(body, name, value):
    """The body's text with every reference to `name` replaced by `value`, quoted so that
    bash passes exactly what it would have passed in the loop."""
    out = []
    i = 0
    n = len(body)
    dq = False
    opened = -1  # index in `out` of the `"` that opened the current double quotes
    while i < n:
        c = body[i]
        if c == "\\":
            out.append(body[i:i + 2])
            i += 2
            continue
        if dq:
            if c == '"':
                dq = False
            elif c == "$":
                end = _reference(body, i, name)
                if end is not None:
                    if opened == len(out) - 1 and body.startswith('"', end):
                        out[-1] = _sq(value)  # exactly "$f": the value as one word
                        dq = False
                        i = end + 1
                        continue
                    out.append('"' + _sq(value) + '"')
                    i = end
                    continue
            out.append(c)
            i += 1
            continue
        if c == "'":
            j = body.find("'", i + 1)
            if j < 0:
                raise _Refuse("an unterminated quote in the loop's body")
            out.append(body[i:j + 1])
            i = j + 1
            continue
        if c == '"':
            dq = True
            out.append(c)
            opened = len(out) - 1
            i += 1
            continue
        if c == "#" and (i == 0 or body[i - 1] in " \t\n;&|()<>"):
            j = body.find("\n", i)
            j = n if j < 0 else j
            out.append(body[i:j])
            i = j
            continue
        if c == "$":
            if body.startswith("$'", i):
                j = i + 2
                while j < n and body[j] != "'":
                    j += 2 if body[j] == "\\" else 1
                out.append(body[i:j + 1])
                i = j + 1
                continue
            if body.startswith('$"', i):
                dq = True
                out.append('$"')
                i += 2
                continue
            end = _reference(body, i, name)
            if end is not None:
                if not _PLAIN.match(value):
                    raise _Refuse(f"an unquoted ${name} with the value {value!r}: bash "
                                  f"splits and globs it; quote it (\"${name}\")")
                out.append(_sq(value))
                i = end
                continue
        out.append(c)
        i += 1
    if dq:
        raise _Refuse("an unterminated quote in the loop's body")
    return "".join(out)
