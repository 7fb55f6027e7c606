"""Bash quote removal for one word, and the expansions a word would undergo.

bashlex finds the word boundaries; its own `word` attribute is not a faithful quote removal
(`$'\\x72m'` comes out as `$x72m`). So every decision works on the word's *source text*, decoded
here the way bash decodes it. Anything bash would expand (parameters, substitutions, globs,
braces, tildes, history) is reported as an issue, and such a word never counts as literal.
"""

# Issue kinds (each maps to a phase-2 reason code in gateway.validator.phase2_syntax).
PARAM = "param"  # $VAR, ${...}, $1, $@, ...
CMDSUB = "cmdsub"  # $(...)
BACKTICK = "backtick"  # `...`
ARITH = "arith"  # $((...)), $[...]
ANSI_C = "ansi_c"  # $'...'
LOCALE = "locale"  # $"..."
GLOB = "glob"  # unquoted * ? [
BRACE = "brace"  # unquoted {a,b} / {1..3}
TILDE = "tilde"  # ~, ~user at the start of a word or after = / :
HISTORY = "history"  # ! that interactive bash would expand
UNTERMINATED = "unterminated"  # a quote that never closes
PLACEHOLDER = "heredoc_placeholder"  # a here-doc placeholder outside its own quotes

#: The characters of bash's names (variables): [A-Za-z_][A-Za-z0-9_]*, ASCII only.
NAME_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
NAME_CHARS = NAME_START | frozenset("0123456789")
_SPECIAL_PARAMS = frozenset("@*#?-$!0123456789")
_DQ_ESCAPABLE = frozenset('$`"\\\n')
_HISTORY_QUIET = frozenset(" \t\n=(")


class Word:
    """A shell word after bash quote removal.

    raw      the source text of the word
    value    the word as bash would pass it to the command (meaningful when `literal`)
    quoted   some part of it was quoted or backslash-escaped
    issues   list of (kind, detail) for every expansion bash would perform
    pattern  the value with every quoted or escaped character that brace and pathname
             expansion would otherwise read (* ? [ ] { } , \\ ! ^ - .) written as \\c: what
             gateway.shell.expand expands
    """

    __slots__ = ("raw", "value", "quoted", "issues", "pattern")

    def __init__(self, raw: str, value: str, quoted: bool, issues: list, pattern=None):
        self.raw = raw
        self.value = value
        self.quoted = quoted
        self.issues = issues
        self.pattern = value if pattern is None else pattern

    @property
    def literal(self) -> bool:
        return not self.issues

    def __repr__(self) -> str:
        return f"Word({self.raw!r} -> {self.value!r}, issues={self.issues!r})"


def is_name(text: str) -> bool:
    """Whether `text` is a name as bash (and awk) reads one: [A-Za-z_][A-Za-z0-9_]*."""
    return bool(text) and text[0] in NAME_START and all(c in NAME_CHARS for c in text)


def expand_tilde(word: Word, home):
    """The word's value with bash's tilde expansion done for `~` and `~/...` (at the start,
    or after the first `=` or a `:` of an assignment-like word), or None when it has another
    expansion or a tilde form whose value is not $HOME (~user, ~+, ~-)."""
    if not home or not home.startswith("/"):
        return None
    value = word.value
    tildes = []
    for kind, detail in word.issues:
        if kind != TILDE:
            return None
        i = len(word.raw) - len(detail)
        if any(c in "'\"\\" for c in word.raw[:i]):
            return None  # quotes before it: raw and value positions differ
        rest = detail[1:]
        if rest and rest[0] not in "/:":
            return None
        tildes.append(i)
    for i in sorted(tildes, reverse=True):
        if value[i:i + 1] != "~":
            return None
        value = value[:i] + home.rstrip("/") + value[i + 1:]
    return value


def _dollar_issue(text: str, i: int, in_dq: bool):
    """Classify a `$` at text[i]; return (kind, end_index) or None when it is a literal `$`."""
    n = len(text)
    if i + 1 >= n:
        return None
    nxt = text[i + 1]
    if nxt == "(":
        if i + 2 < n and text[i + 2] == "(":
            return ARITH, i + 3
        return CMDSUB, i + 2
    if nxt == "[":
        return ARITH, i + 2
    if nxt == "{" or nxt in NAME_START or nxt in _SPECIAL_PARAMS:
        return PARAM, i + 2
    if not in_dq and nxt == "'":
        return ANSI_C, i + 2
    if not in_dq and nxt == '"':
        return LOCALE, i + 2
    if in_dq and nxt == '"':
        return None  # "...$" : a literal dollar before the closing quote
    return None


_PATTERN_SPECIAL = frozenset("*?[]{},\\!^-.")


def _quote_pattern(text: str) -> str:
    """`text` (quoted in the source) as literal characters of a pattern."""
    if not any(c in _PATTERN_SPECIAL for c in text):
        return text
    return "".join("\\" + c if c in _PATTERN_SPECIAL else c for c in text)


def decode(raw: str, placeholders: dict | None = None) -> Word:
    """Decode one word's source text the way bash performs quote removal.

    `placeholders` maps a placeholder token to its literal text: a single-quoted segment that
    is exactly a placeholder stands for that text (see gateway.shell.heredoc).
    """
    out = []
    pat = []  # the pattern: `out` with the quoted characters escaped
    issues = []
    quoted = False
    i = 0
    n = len(raw)
    assignment_like = False  # tilde after '=' or ':' counts once the word looks like k=v
    while i < n:
        c = raw[i]
        if c == "\\":
            quoted = True
            if i + 1 >= n:
                out.append("\\")  # a trailing backslash stays literal
                pat.append("\\\\")
                i += 1
                continue
            if raw[i + 1] != "\n":  # backslash-newline is a line continuation: removed
                out.append(raw[i + 1])
                pat.append(_quote_pattern(raw[i + 1]))
            i += 2
            continue
        if c == "'":
            quoted = True
            end = raw.find("'", i + 1)
            if end < 0:
                issues.append((UNTERMINATED, raw[i:]))
                out.append(raw[i + 1:])
                pat.append(_quote_pattern(raw[i + 1:]))
                break
            seg = raw[i + 1:end]
            if placeholders and seg in placeholders:
                seg = placeholders[seg]
            out.append(seg)
            pat.append(_quote_pattern(seg))
            i = end + 1
            continue
        if c == '"':
            quoted = True
            before = len(out)
            i = _decode_dq(raw, i + 1, out, issues)
            pat.append(_quote_pattern("".join(out[before:])))
            continue
        if c == "$":
            hit = _dollar_issue(raw, i, False)
            if hit:
                issues.append((hit[0], raw[i:hit[1]]))
            out.append(c)
            pat.append(c)
            i += 1
            continue
        if c == "`":
            issues.append((BACKTICK, raw[i:]))
            out.append(c)
            pat.append(c)
            i += 1
            continue
        if c in "*?" or (c == "[" and "]" in raw[i + 1:]):
            # a [ with no ] after it opens no bracket expression: bash keeps it as is
            # (`[ -f x ]`: the test builtin's name)
            issues.append((GLOB, c))
        elif c == "{":
            if raw != "{}":
                issues.append((BRACE, c))
        elif c == "~":
            prev = raw[i - 1] if i else ""
            if i == 0 or (assignment_like and prev in "=:"):
                issues.append((TILDE, raw[i:]))
        elif c == "!":
            nxt = raw[i + 1] if i + 1 < n else ""
            if nxt and nxt not in _HISTORY_QUIET:
                issues.append((HISTORY, raw[i:i + 2]))
        elif c == "=" and not quoted:
            assignment_like = True
        out.append(c)
        pat.append(c)
        i += 1
    value = "".join(out)
    if placeholders:
        for token in placeholders:
            if token in value:
                issues.append((PLACEHOLDER, token))
    return Word(raw, value, quoted, issues, "".join(pat))


def _decode_dq(raw: str, i: int, out: list, issues: list) -> int:
    """Decode a double-quoted segment starting after its opening quote; return the index
    just past the closing quote."""
    n = len(raw)
    while i < n:
        c = raw[i]
        if c == '"':
            return i + 1
        if c == "\\" and i + 1 < n and raw[i + 1] in _DQ_ESCAPABLE:
            if raw[i + 1] != "\n":
                out.append(raw[i + 1])
            i += 2
            continue
        if c == "$":
            hit = _dollar_issue(raw, i, True)
            if hit:
                issues.append((hit[0], raw[i:hit[1]]))
        elif c == "`":
            issues.append((BACKTICK, raw[i:]))
        # `!` inside double quotes is literal in the client's shell: the Bash tool hands
        # bash (and zsh) the command as a string to evaluate, and history expansion applies
        # only to lines an interactive shell reads. Measured on Claude Code 2.1.330 with
        # `set -H` and `set -o history` in the user's .bashrc (the shell snapshot carried
        # them: $- held H) and with zsh's BANG_HIST: `echo "X!!Y"` printed X!!Y
        # (docs/security.md). An unquoted `!` still asks (GW210).
        out.append(c)
        i += 1
    issues.append((UNTERMINATED, '"'))
    return n
