"""Two command substitutions judged as what they are (issue 25), else GW201 as before.

* `$(go env NAME)` for Go's path variables (GOMODCACHE, GOCACHE, GOPATH): its value is
  computed as Go computes it (gateway.tools.goenv, never by running go) and put in its
  place, so `ls $(go env GOMODCACHE)/github.com/jackc/` is judged as the `ls` of that path
  (a read of the module cache: gateway.validator.caches). The value must be an absolute path
  of plain characters (no blank, glob, quote or `$`): bash's word splitting and globbing of
  an unquoted substitution then leave it one word, as written. Any other variable (GOROOT:
  which toolchain runs decides it; GOFLAGS: any text) or form asks.
* `"$(CMD)"` used only as a string: the whole word is the double-quoted substitution, and it
  is the operand of `test -z` / `test -n` (`[ -z "$(gofmt -l .)" ]`, exactly those
  arguments). Its text is data there, never a path, a program or an option; it is replaced
  by an empty string. echo and printf are not modelled: the seeds' regression cases hold
  `echo "$(whoami)"` as a form that must ask.

In both, the inner command is judged as its own command (the strictest verdict stands), and
the line with the substitutions replaced goes through every phase. Refused (None: phase 2
asks GW201 as before): a `$(` that is not a substitution bashlex found (`'$(x)'`, `$((1))`,
backquotes), an inner command with parentheses, quotes of the other kind or a `$`, any `cd`
or `pushd` on the line (the inner command runs where the outer one does), a substitution
elsewhere.
"""

from gateway.shell.parse import CMDSUB_NODE

_GO_ENV = "go env "
_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./@+,:-")
_INNER_BAD = frozenset('()`"$\\\n;&|<>')
#: echo and printf are not among them: the seeds' regression cases hold `echo "$(whoami)"`
#: as a form that must ask (seed-regression-cases.tsv, phase 1.5's unsafe suffixes)
_STRING_PROGRAMS = ("test", "[")


class Rewrite:
    __slots__ = ("text", "inner", "notes")

    def __init__(self, text, inner, notes):
        self.text = text  # the line with each substitution replaced
        self.inner = inner  # the inner commands, each judged on its own
        self.notes = notes


def rewrite(ctx, script):
    """The Rewrite of the line, or None when it holds a substitution not modelled here."""
    subs = [d for k, d in script.constructs if k == CMDSUB_NODE]
    if not subs:
        return None
    text = ctx.text
    if text.count("$(") != len(subs) or "`" in text or "$((" in text:
        return None
    if any(c.words and c.words[0].raw in ("cd", "pushd", "popd") for c in script.all_commands):
        return None
    spans = []
    i = text.find("$(")
    while i >= 0:
        end = text.find(")", i + 2)
        if end < 0:
            return None
        inner = text[i + 2:end]
        if not inner.strip() or any(c in _INNER_BAD for c in inner) or inner.count("'") % 2:
            return None
        spans.append((i, end + 1, inner))
        i = text.find("$(", end + 1)
    words = _words(script)
    out = []
    pos = 0
    inner_cmds = []
    notes = []
    for start, end, inner in spans:
        plain = " ".join(inner.split())
        if plain.startswith(_GO_ENV) and len(plain.split()) == 3:
            name = plain.split()[2]
            from gateway.tools import goenv

            value = goenv.value(name, ctx.env) if name in goenv.NAMES else None
            if value is None or not set(value) <= _PLAIN or not value.startswith("/"):
                return None
            out.append(text[pos:start])
            out.append(value)
            pos = end
            inner_cmds.append(inner)
            notes.append(f"$({plain}) is {value!r}")
            continue
        # "$(CMD)": the quotes right around it, and a word that is exactly that
        if start == 0 or text[start - 1] != '"' or text[end:end + 1] != '"':
            return None
        raw = text[start - 1:end + 1]
        if not _string_operand(words, raw, text):
            return None
        out.append(text[pos:start - 1])
        out.append("''")
        pos = end + 1
        inner_cmds.append(inner)
        notes.append(f"\"$({plain})\" is a string here (its output is data)")
    out.append(text[pos:])
    return Rewrite("".join(out), inner_cmds, notes)


def _words(script):
    """The top-level simple commands' words (raw), not those inside substitutions."""
    out = []
    for pipeline, _op in script.items:
        for cmd in pipeline.commands:
            out.append([w.raw for w in cmd.words])
    return out


def _string_operand(commands, raw, text) -> bool:
    """Every word `raw` ("$(...)") on the line is a string operand: test -z/-n's one operand
    (`test -z W`, `[ -z W ]`). At least one, and
    no other occurrence of it on the line (a redirection's target, an assignment)."""
    found = 0
    for words in commands:
        for k, w in enumerate(words):
            if w != raw:
                continue
            if k == 0 or words[0] not in _STRING_PROGRAMS:
                return False
            prog = words[0]
            if prog == "test" and not (len(words) == 3 and k == 2 and words[1] in ("-z", "-n")):
                return False
            if prog == "[" and not (len(words) == 4 and k == 2 and words[1] in ("-z", "-n")
                                    and words[3] == "]"):
                return False
            found += 1
    return found > 0 and found == text.count(raw)
