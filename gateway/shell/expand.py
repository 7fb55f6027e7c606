"""Brace and pathname expansion as bash performs them, for words whose only expansions are
braces and globs (`src/*.py`, `docs/{a,b}.md`, `tests/**/test_*.py`).

A word's *pattern* (gateway.shell.words.Word.pattern) is its value with every quoted
character escaped (`\\*`), so that `"*".py` stays a literal star. Brace expansion comes first
(`{a,b}`, `{1..3}`, `{a..e..2}`, nested), then pathname expansion of each result against the
file system.

What bash matches depends on shell options the gateway cannot see: Claude Code sources a
snapshot of the user's shell, `shopt -p` included, before every command, so dotglob,
nocaseglob, globstar, nullglob and failglob may be on, and bash before 5.2 (no
globskipdots) lets `.*` match `.` and `..`. Two readings are therefore computed:

* ``strict``  bash's defaults (5.2): case-sensitive, hidden names only for a pattern that
  starts with a literal dot, `.` and `..` never, `**` is `*`;
* ``wide``    every option that widens a match at once: case-insensitive, hidden names for
  every pattern, `.` and `..` for a pattern that starts with a literal dot, `**` matching
  any number of directories (globstar).

Whatever bash really matches lies between the two (`strict` <= real <= `wide`); where
`strict` matches nothing, bash may pass the pattern itself (the default), nothing
(nullglob) or fail (failglob). The validator judges every such variant
(gateway.validator.globs).

Both readings are bounded: at most MAX_ENTRIES directory entries are read per command and
at most MAX_WORDS words produced; past a bound the expansion is "too large" (TooLarge).
"""

import os
import re

#: Directory entries one command's globs may read (a `/*/*/*` walks the whole system).
MAX_ENTRIES = 20000
#: Words one command's braces and globs may produce.
MAX_WORDS = 4096

_CLASSES = {
    "alpha": "a-zA-Z", "digit": "0-9", "alnum": "a-zA-Z0-9", "upper": "A-Z", "lower": "a-z",
    "xdigit": "0-9A-Fa-f", "word": "a-zA-Z0-9_", "blank": " \\t", "space": " \\t\\n\\r\\f\\v",
    "punct": re.escape("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"), "cntrl": "\\x00-\\x1f\\x7f",
    "print": "\\x20-\\x7e", "graph": "\\x21-\\x7e",
}


class TooLarge(Exception):
    """The expansion reads or produces more than its bounds allow."""


class Unsupported(Exception):
    """Pattern syntax this module does not model (`[[=a=]]`, `[[.a.]]`)."""


class Budget:
    __slots__ = ("entries", "words")

    def __init__(self, entries=MAX_ENTRIES, words=MAX_WORDS):
        self.entries = entries
        self.words = words

    def spend_entries(self, n=1):
        self.entries -= n
        if self.entries < 0:
            raise TooLarge(f"more than {MAX_ENTRIES} directory entries to read")

    def spend_words(self, n=1):
        self.words -= n
        if self.words < 0:
            raise TooLarge(f"more than {MAX_WORDS} words")


# --- brace expansion ----------------------------------------------------------------------

_SEQ = re.compile(r"^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?$")


def _unescaped(pattern, i) -> bool:
    """Is pattern[i] not preceded by an escaping backslash?"""
    k = i - 1
    n = 0
    while k >= 0 and pattern[k] == "\\":
        n += 1
        k -= 1
    return n % 2 == 0


def _brace_at(pattern, start):
    """(end, alternatives) for a valid brace expression opening at `start`, else None."""
    depth = 0
    commas = []
    i = start
    n = len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                body = pattern[start + 1:i]
                if commas:
                    cuts = [start] + commas + [i]
                    return i, [pattern[a + 1:b] for a, b in zip(cuts, cuts[1:], strict=False)]
                seq = _sequence(body)
                if seq is not None:
                    return i, seq
                return None
        elif c == "," and depth == 1:
            commas.append(i)
        i += 1
    return None


def _sequence(body):
    m = _SEQ.match(body)
    if m is None:
        return None
    a, b, step = m.group(1), m.group(2), m.group(3)
    step = abs(int(step)) if step else 1
    step = step or 1
    if a.lstrip("-").isdigit() and b.lstrip("-").isdigit():
        x, y = int(a), int(b)
        width = max(len(a), len(b)) if (a.lstrip("-").startswith("0") and len(a.lstrip("-")) > 1
                                        or b.lstrip("-").startswith("0")
                                        and len(b.lstrip("-")) > 1) else 0
        if abs(y - x) // step > MAX_WORDS:
            raise TooLarge(f"the sequence {{{body}}} has too many words")
        rng = range(x, y + 1, step) if x <= y else range(x, y - 1, -step)
        return [str(v).zfill(width) if v >= 0 else "-" + str(-v).zfill(width - 1)
                for v in rng]
    if len(a) == 1 and len(b) == 1 and a.isalpha() and b.isalpha():
        x, y = ord(a), ord(b)
        rng = range(x, y + 1, step) if x <= y else range(x, y - 1, -step)
        # bash escapes the characters between Z and a that are special (`[`, `\`, ...)
        return [_escape_char(chr(v)) for v in rng]
    return None


def _escape_char(c):
    return "\\" + c if c in "*?[]{},\\!^-." else c


def braces(pattern, budget=None):
    """The patterns bash's brace expansion makes of `pattern` (itself when it has none)."""
    budget = budget or Budget()
    i = 0
    n = len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if c == "{" and not (i and pattern[i - 1] == "$" and _unescaped(pattern, i - 1)):
            hit = _brace_at(pattern, i)
            if hit is not None:
                end, alternatives = hit
                prefix = pattern[:i]
                out = []
                rests = braces(pattern[end + 1:], budget)
                for alt in alternatives:
                    for a in braces(alt, budget):
                        for r in rests:
                            budget.spend_words()
                            out.append(prefix + a + r)
                return out
        i += 1
    return [pattern]


# --- pathname expansion -------------------------------------------------------------------

def has_glob(pattern) -> bool:
    """Does the pattern hold an unescaped `*`, `?` or a `[` with a closing `]`?"""
    i = 0
    n = len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if c in "*?":
            return True
        if c == "[" and _bracket_end(pattern, i) is not None:
            return True
        i += 1
    return False


def unescape(pattern) -> str:
    """The literal text of a pattern (its escapes removed): what bash passes for a pattern
    that matched nothing."""
    out = []
    i = 0
    n = len(pattern)
    while i < n:
        if pattern[i] == "\\" and i + 1 < n:
            out.append(pattern[i + 1])
            i += 2
            continue
        out.append(pattern[i])
        i += 1
    return "".join(out)


def _bracket_end(pattern, i):
    """Index of the `]` that closes the bracket expression opening at pattern[i], or None."""
    j = i + 1
    n = len(pattern)
    if j < n and pattern[j] in "!^":
        j += 1
    if j < n and pattern[j] == "]":
        j += 1
    while j < n:
        c = pattern[j]
        if c == "\\":
            j += 2
            continue
        if c == "[" and j + 1 < n and pattern[j + 1] in ":.=":
            close = pattern.find(pattern[j + 1] + "]", j + 2)
            if close < 0:
                return None
            j = close + 2
            continue
        if c == "]":
            return j
        if c == "/":
            return None  # a bracket expression never spans a slash
        j += 1
    return None


def _component_regex(comp, fold):
    """A compiled regex for one path component of a pattern."""
    out = []
    i = 0
    n = len(comp)
    while i < n:
        c = comp[i]
        if c == "\\":
            if i + 1 < n:
                out.append(re.escape(comp[i + 1]))
            i += 2
            continue
        if c == "*":
            out.append(".*")
        elif c == "?":
            out.append(".")
        elif c == "[" and _bracket_end(comp, i) is not None:
            end = _bracket_end(comp, i)
            out.append(_bracket_regex(comp[i + 1:end]))
            i = end + 1
            continue
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out) + r"\Z", re.DOTALL | (re.IGNORECASE if fold else 0))


def _bracket_regex(body):
    negate = body[:1] in ("!", "^")
    if negate:
        body = body[1:]
    parts = []
    i = 0
    n = len(body)
    while i < n:
        c = body[i]
        if c == "[" and i + 1 < n and body[i + 1] == ":":
            close = body.find(":]", i + 2)
            cls = _CLASSES.get(body[i + 2:close])
            if cls is None:
                raise Unsupported(f"[:{body[i + 2:close]}:]")
            parts.append(cls)
            i = close + 2
            continue
        if c == "[" and i + 1 < n and body[i + 1] in ".=":
            raise Unsupported(f"[{body[i + 1]}...{body[i + 1]}]")
        if c == "\\" and i + 1 < n:
            c = body[i + 1]
            i += 1
        if i + 2 < n and body[i + 1] == "-" and body[i + 2] != "]":
            hi = body[i + 2]
            step = 3
            if hi == "\\" and i + 3 < n:
                hi = body[i + 3]
                step = 4
            if ord(hi) >= ord(c):
                parts.append(re.escape(c) + "-" + re.escape(hi))
            i += step
            continue
        parts.append(re.escape(c))
        i += 1
    if not parts:
        return "(?!)" if not negate else "."
    return "[" + ("^" if negate else "") + "".join(parts) + "]"


def _starts_with_dot(comp) -> bool:
    return comp.startswith(".") or comp.startswith("\\.")


def expand(pattern, cwd, wide, budget):
    """The names `pattern` (relative to `cwd`, or absolute) matches in one reading, in C
    order, written as bash writes them (relative patterns give relative names)."""
    absolute = pattern.startswith("/")
    comps = pattern.split("/")
    if absolute:
        comps = comps[1:]
        bases = [("/", "/")]  # (real directory, text so far)
    else:
        bases = [(cwd, "")]
    for k, comp in enumerate(comps):
        last = k == len(comps) - 1
        if comp == "" :
            if last:  # a trailing slash: directories only
                bases = [(d, t if t.endswith("/") else t + "/") for d, t in bases
                         if os.path.isdir(d)]
            continue
        if not has_glob(comp):
            lit = unescape(comp)
            nxt = []
            for d, t in bases:
                path = os.path.join(d, lit)
                if last:
                    if os.path.lexists(path):
                        nxt.append((path, _join_text(t, lit)))
                elif os.path.isdir(path):
                    nxt.append((path, _join_text(t, lit)))
            bases = nxt
            continue
        if comp == "**" and wide:
            nxt = []
            for d, t in bases:
                nxt.extend(_globstar(d, t, last, budget))
            bases = nxt
            continue
        rx = _component_regex(comp, fold=wide)
        dot = _starts_with_dot(comp)
        nxt = []
        for d, t in bases:
            names = _listdir(d, budget)
            if wide and dot:
                names = names + [".", ".."]
            for name in names:
                if name.startswith(".") and not (wide or dot):
                    continue
                if name in (".", "..") and not wide:
                    continue
                if rx.match(name) is None:
                    continue
                path = os.path.join(d, name)
                if not last and not os.path.isdir(path):
                    continue
                budget.spend_words()
                nxt.append((path, _join_text(t, name)))
        bases = nxt
        if not bases:
            return []
    out = sorted({t for _d, t in bases}, key=lambda s: s.encode("utf-8", "surrogateescape"))
    return out


def _join_text(t, name):
    if not t:
        return name
    return t + name if t.endswith("/") else t + "/" + name


def _listdir(d, budget):
    try:
        with os.scandir(d) as it:
            names = []
            for entry in it:
                budget.spend_entries()
                names.append(entry.name)
            return names
    except OSError:
        return []


def _globstar(d, t, last, budget):
    """`**` with globstar: zero or more directories below `d` (every name below it when it is
    the last component); symbolic links to directories are not entered."""
    out = [(d, t)] if not last else ([(d, t)] if t else [])
    stack = [(d, t)]
    while stack:
        cur, text = stack.pop()
        try:
            with os.scandir(cur) as it:
                entries = list(it)
        except OSError:
            continue
        budget.spend_entries(len(entries))
        for entry in entries:
            path = os.path.join(cur, entry.name)
            name_text = _join_text(text, entry.name)
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            if is_dir:
                budget.spend_words()
                out.append((path, name_text))
                stack.append((path, name_text))
            elif last:
                budget.spend_words()
                out.append((path, name_text))
    return out
