"""sed's program text: whether a script only reads and prints (sed_program_problem names
what else it does). One reading for the validator's sed check (gateway.validator.checks.
programs) and the effects analysis (gateway.effects.analysis.programs)."""


_SED_SIMPLE = set("pPdDnNgGhHxlz=F")


def _skip_regex(s, i, delim, brackets=True):
    """Index just past the closing delimiter of a regex starting at s[i] (after the opening
    delimiter), or -1. GNU sed skips bracket expressions in regexes (`s/[/]/x/`) but not in
    the operands of `y`, which are plain characters (`brackets=False`)."""
    n = len(s)
    while i < n:
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == "\n":
            return -1
        if c == delim:
            return i + 1
        if c == "[" and delim != "[" and brackets:
            j = i + 1
            if j < n and s[j] == "^":
                j += 1
            if j < n and s[j] == "]":
                j += 1
            while j < n and s[j] != "]":
                if s[j] == "[" and j + 1 < n and s[j + 1] in ":.=":
                    close = s.find(s[j + 1] + "]", j + 2)
                    if close < 0:
                        return -1
                    j = close + 2
                    continue
                j += 1
            if j >= n:
                return -1
            i = j + 1
            continue
        i += 1
    return -1


def _sed_address(s, i):
    """Skip one address at s[i]; return the new index (unchanged if none), or -1."""
    n = len(s)
    if i < n and s[i].isdigit():
        while i < n and (s[i].isdigit() or s[i] == "~"):
            i += 1
        return i
    if i < n and s[i] == "$":
        return i + 1
    if i < n and s[i] in "/\\":
        if s[i] == "\\":
            if i + 1 >= n:
                return -1
            delim = s[i + 1]
            i += 2
        else:
            delim = "/"
            i += 1
        i = _skip_regex(s, i, delim)
        if i < 0:
            return -1
        while i < n and s[i] in "IM":
            i += 1
        return i
    return i


def sed_program_problem(s: str) -> str:
    """Why a sed program is not read-only (w/W/e/r/R commands, s///w or s///e), or ""."""
    i = 0
    n = len(s)
    depth = 0
    while i < n:
        c = s[i]
        if c in " \t\n;":
            i += 1
            continue
        if c == "#":
            nl = s.find("\n", i)
            i = n if nl < 0 else nl + 1
            continue
        if c == "}":
            depth -= 1
            if depth < 0:
                return "unbalanced }"
            i += 1
            continue
        j = _sed_address(s, i)
        if j < 0:
            return "cannot read an address"
        if j > i:
            i = j
            if i < n and s[i] == ",":
                i += 1
                if i < n and s[i] in "+~":
                    i += 1
                    while i < n and s[i].isdigit():
                        i += 1
                else:
                    j = _sed_address(s, i)
                    if j <= i:
                        return "cannot read the second address"
                    i = j
        while i < n and s[i] in " \t":
            i += 1
        if i < n and s[i] == "!":
            i += 1
            while i < n and s[i] in " \t":
                i += 1
        if i >= n:
            return "an address without a command"
        c = s[i]
        if c == "{":
            depth += 1
            i += 1
            continue
        if c in _SED_SIMPLE:
            i += 1
            if c == "l":
                while i < n and s[i].isdigit():
                    i += 1
            continue
        if c in "qQ":
            i += 1
            while i < n and (s[i].isdigit() or s[i] in " \t"):
                i += 1
            continue
        if c in "bBtT:":
            # GNU sed ends a label at whitespace or `;` (`:a e id` is the label a, then the
            # command e); other seds read to the end of the line. The commands after the
            # shortest label are checked, which covers both readings
            i += 1
            while i < n and s[i] in " \t":
                i += 1
            while i < n and s[i] not in " \t\n;}":
                i += 1
            continue
        if c in "aic":
            # the text runs to the first newline not escaped by a backslash; `\\` is an
            # escaped backslash, so `a foo\\<newline>w /tmp/x` ends the text and writes
            i += 1
            while i < n and s[i] != "\n":
                i += 2 if s[i] == "\\" else 1
            i += 1
            continue
        if c == "s":
            if i + 1 >= n or s[i + 1] in "\n\\":
                return "bad s command"
            delim = s[i + 1]
            j = _skip_regex(s, i + 2, delim)
            if j < 0:
                return "unterminated s command"
            k = j
            while k < n and s[k] != delim:
                if s[k] == "\\":
                    k += 1
                k += 1
            if k >= n:
                return "unterminated s replacement"
            k += 1
            while k < n and s[k] not in " \t\n;}":
                if s[k] in "wWe":
                    return f"the s command flag {s[k]!r} writes a file or runs a command"
                if not (s[k] in "gpiImM" or s[k].isdigit()):
                    return f"unknown s flag {s[k]!r}"
                k += 1
            i = k
            continue
        if c == "y":
            if i + 1 >= n:
                return "bad y command"
            delim = s[i + 1]
            j = _skip_regex(s, i + 2, delim, brackets=False)
            if j < 0:
                return "unterminated y command"
            k = _skip_regex(s, j, delim, brackets=False)
            if k < 0:
                return "unterminated y command"
            i = k
            continue
        if c in "wWrRe":
            return f"the {c!r} command reads or writes files or runs commands"
        return f"unknown command {c!r}"
    if depth:
        return "unbalanced {"
    return ""
