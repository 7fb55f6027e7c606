"""Parameter expansion as bash performs it, for a word whose only expansions are parameters
(`"${HOME:?}"`, `${HOME%/}`, `"$HOME"/.cache`, `${X:-/}`), with the values a command
would see.

`values(raw, env)` returns the strings the word may become, or None when it holds something
this module does not evaluate (a command substitution, arithmetic, indirection, a
transformation): the caller then falls back to what it knows. A variable missing from `env`
is unset (the empty string where it is used). Where bash splits an unquoted expansion into
several words, each of them is among the strings, as is the unsplit text. Used by the deny
rules (a catastrophic target spelled through a parameter) and by the validator for words
that are only text.
"""

from gateway.paths import fnmatchcase  # fnmatch.fnmatchcase, imported when a glob needs it
from gateway.shell.words import NAME_CHARS, NAME_START

#: How many strings one word may become before the evaluation gives up.
MAX_VALUES = 64
_SPECIAL = "@*#?-$!0123456789"
_DQ_ESCAPABLE = '$`"\\\n'


class _Unsupported(Exception):
    pass


def values(raw, env, home=None):
    """The strings the word `raw` (its source text) may become, or None."""
    try:
        out = _word(raw, env, home)
    except (_Unsupported, RecursionError, IndexError, ValueError):
        return None
    if len(out) > MAX_VALUES:
        return None
    return out


class _Recorder(dict):
    """An environment that records which parameters are looked up."""

    def __init__(self):
        super().__init__()
        self.seen = set()

    def get(self, key, default=None):
        self.seen.add(key)
        return default


def names(raw):
    """The parameters the word `raw` expands (`"${HOME%/}/x"`: {"HOME"}), or None when it
    holds something values() does not evaluate."""
    rec = _Recorder()
    if values(raw, rec) is None:
        return None
    return rec.seen


def _word(raw, env, home):
    # parts: list of (text, unquoted_expansion)
    results = [("", False)]
    i = 0
    n = len(raw)
    if home and raw.startswith("~") and (n == 1 or raw[1] == "/"):
        results = [(home.rstrip("/") or "/", False)]
        i = 1
    while i < n:
        c = raw[i]
        if c == "'":
            end = raw.find("'", i + 1)
            if end < 0:
                raise _Unsupported("unterminated quote")
            results = _append(results, [raw[i + 1:end]], False)
            i = end + 1
            continue
        if c == '"':
            i = _double(raw, i + 1, env, home, results)
            results = i[1]
            i = i[0]
            continue
        if c == "\\":
            if i + 1 < n:
                if raw[i + 1] != "\n":
                    results = _append(results, [raw[i + 1]], False)
                i += 2
            else:
                results = _append(results, ["\\"], False)
                i += 1
            continue
        if c == "`":
            raise _Unsupported("command substitution")
        if c == "$":
            vals, i = _dollar(raw, i, env, home)
            results = _append(results, vals, True)
            continue
        results = _append(results, [c], False)
        i += 1
    out = []
    for text, split in results:
        if text not in out:
            out.append(text)
        if split:
            for field in text.split():
                if field not in out:
                    out.append(field)
    return out


def _append(results, vals, unquoted):
    out = []
    for text, split in results:
        for v in vals:
            out.append((text + v, split or (unquoted and any(ch.isspace() for ch in v))))
            if len(out) > MAX_VALUES:
                raise _Unsupported("too many values")
    return out


def _double(raw, i, env, home, results):
    n = len(raw)
    while i < n:
        c = raw[i]
        if c == '"':
            return i + 1, results
        if c == "\\" and i + 1 < n and raw[i + 1] in _DQ_ESCAPABLE:
            if raw[i + 1] != "\n":
                results = _append(results, [raw[i + 1]], False)
            i += 2
            continue
        if c == "`":
            raise _Unsupported("command substitution")
        if c == "$":
            if i + 1 < n and raw[i + 1] == '"':
                results = _append(results, ["$"], False)
                i += 1
                continue
            vals, i = _dollar(raw, i, env, home)
            results = _append(results, vals, False)
            continue
        results = _append(results, [c], False)
        i += 1
    raise _Unsupported("unterminated double quote")


def _dollar(raw, i, env, home):
    """Values of the expansion at raw[i] == '$' and the index after it."""
    n = len(raw)
    if i + 1 >= n:
        return ["$"], i + 1
    c = raw[i + 1]
    if c == "(" or c == "[":
        raise _Unsupported("command substitution or arithmetic")
    if c == "{":
        end = _closing_brace(raw, i + 2)
        return _braced(raw[i + 2:end], env, home), end + 1
    if c in _SPECIAL:
        return [_get(c, env) or ""], i + 2
    if c in NAME_START:
        j = i + 1
        while j < n and raw[j] in NAME_CHARS:
            j += 1
        return [_get(raw[i + 1:j], env) or ""], j
    if c in "'\"":
        raise _Unsupported("$'...' or $\"...\"")
    return ["$"], i + 1


def _closing_brace(raw, i):
    depth = 1
    n = len(raw)
    while i < n:
        c = raw[i]
        if c == "\\":
            i += 2
            continue
        if c == "'":
            i = raw.index("'", i + 1) + 1
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise _Unsupported("unterminated ${")


def _get(name, env):
    """The value of a parameter, or None when unset."""
    if name == "0":
        return "bash"
    return env.get(name)


def _braced(body, env, home):
    if not body:
        raise _Unsupported("bad substitution")
    if body[0] == "#" and len(body) > 1 and body[1] != "}":
        if body[1:] and all(ch in NAME_CHARS for ch in body[1:]):
            return [str(len(_get(body[1:], env) or ""))]
        raise _Unsupported("length of something else")
    if body[0] == "!":
        raise _Unsupported("indirection")
    if body[0] in _SPECIAL:
        name, rest = body[0], body[1:]
    else:
        k = 0
        while k < len(body) and body[k] in NAME_CHARS:
            k += 1
        name, rest = body[:k], body[k:]
        if not name or name[0].isdigit() and not name.isdigit():
            raise _Unsupported("bad name")
    value = _get(name, env)
    if not rest:
        return [value or ""]
    for op in (":-", ":=", ":?", ":+", "-", "=", "?", "+"):
        if rest.startswith(op):
            word = rest[len(op):]
            empty_counts = op.startswith(":")
            missing = value is None or (empty_counts and value == "")
            if op[-1] in "-=":
                return _sub(word, env, home) if missing else [value]
            if op[-1] == "?":
                return [] if missing else [value]  # unset: bash fails, nothing runs
            return [] + (_sub(word, env, home) if not missing else [""])
    value = value or ""
    for op in ("##", "#", "%%", "%"):
        if rest.startswith(op):
            pats = _sub(rest[len(op):], env, home)
            return [_remove(value, p, op) for p in pats]
    if rest.startswith("/"):
        body2 = rest[1:]
        mode = ""
        if body2[:1] in ("/", "#", "%"):
            mode, body2 = body2[0], body2[1:]
        cut = 0
        while cut < len(body2) and body2[cut] != "/":
            cut += 2 if body2[cut] == "\\" else 1
        pat, rep = body2[:cut], body2[cut + 1:]
        out = []
        for p in _sub(pat, env, home):
            for r in _sub(rep, env, home):
                out.append(_replace(value, p, r, mode))
        return out
    if rest in ("^^", "^", ",,", ","):
        if rest == "^^":
            return [value.upper()]
        if rest == ",,":
            return [value.lower()]
        if rest == "^":
            return [value[:1].upper() + value[1:]]
        return [value[:1].lower() + value[1:]]
    if rest.startswith(":"):
        parts = rest[1:].split(":")
        try:
            off = int(parts[0].strip() or "0")
            length = int(parts[1].strip()) if len(parts) > 1 else None
        except ValueError:
            raise _Unsupported("substring with arithmetic") from None
        s = value[off:] if off >= 0 else value[max(0, len(value) + off):]
        if length is not None:
            s = s[:length] if length >= 0 else s[:max(0, len(s) + length)]
        return [s]
    raise _Unsupported(f"operator {rest[:2]!r}")


def _sub(word, env, home):
    """Values of the word inside ${...} after an operator (expanded like a double-quoted
    word's contents, tilde included)."""
    return _word(word, env, home) if word else [""]


def _remove(value, pattern, op):
    if op in ("#", "##"):
        rng = range(len(value) + 1) if op == "#" else range(len(value), -1, -1)
        for k in rng:
            if fnmatchcase(value[:k], pattern):
                return value[k:]
        return value
    rng = range(len(value), -1, -1) if op == "%" else range(len(value) + 1)
    for k in rng:
        if fnmatchcase(value[k:], pattern):
            return value[:k]
    return value


def _replace(value, pattern, rep, mode):
    if not pattern:
        return value
    n = len(value)
    if mode == "#":
        for k in range(n, -1, -1):
            if fnmatchcase(value[:k], pattern):
                return rep + value[k:]
        return value
    if mode == "%":
        for k in range(n + 1):
            if fnmatchcase(value[k:], pattern):
                return value[:k] + rep
        return value
    out = []
    i = 0
    done = False
    while i < n:
        if not done:
            for k in range(n, i, -1):
                if fnmatchcase(value[i:k], pattern):
                    out.append(rep)
                    i = k
                    done = mode != "/"
                    break
            else:
                out.append(value[i])
                i += 1
            continue
        out.append(value[i])
        i += 1
    return "".join(out)
