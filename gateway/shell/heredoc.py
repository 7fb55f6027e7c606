"""Claude Code's commit-message form: `"$(cat <<'EOF' ... EOF\n)"` as literal text.

bashlex cannot parse a quoted here-doc inside a command substitution, yet this is how Claude
Code writes every multi-line commit message. A quoted here-doc fed only to `cat` is literal
text, so each such span is replaced by a single-quoted placeholder before parsing, and the
word decoder puts the text back (see gateway.shell.words.decode). A placeholder that does not
come back as one whole single-quoted segment of a word makes the command not allowable, so a
span that only looked like the form (inside other quotes, say) can never change a decision
towards allow.
"""

_OPEN = '"$(cat'


def _delimiter(text: str, i: int):
    """Parse `<<'DELIM'` (optional blanks around) at text[i:]; return (delim, index after the
    newline that ends the line) or None."""
    n = len(text)
    while i < n and text[i] in " \t":
        i += 1
    if not text.startswith("<<", i) or text.startswith("<<<", i) or text.startswith("<<-", i):
        return None
    i += 2
    while i < n and text[i] in " \t":
        i += 1
    if i >= n or text[i] != "'":
        return None
    end = text.find("'", i + 1)
    if end < 0:
        return None
    delim = text[i + 1:end]
    if not delim or not (delim[0].isalpha() or delim[0] == "_") or not delim.isascii() \
            or not all(ch.isalnum() or ch == "_" for ch in delim):
        return None
    j = end + 1
    while j < n and text[j] in " \t":
        j += 1
    if j >= n or text[j] != "\n":
        return None
    return delim, j + 1


def extract(text: str):
    """Replace every commit-form span with a placeholder.

    Returns (new_text, placeholders) where placeholders maps each token to the literal text
    the command substitution produces (the here-doc body without trailing newlines).
    """
    if _OPEN not in text:
        return text, {}
    nonce = 0
    while f"GWHEREDOC{nonce}X" in text:
        nonce += 1
    out = []
    placeholders = {}
    pos = 0
    start = text.find(_OPEN)
    while start >= 0:
        parsed = _delimiter(text, start + len(_OPEN))
        span = None
        if parsed:
            delim, body_start = parsed
            lines_end = body_start
            body_lines = []
            while lines_end <= len(text):
                nl = text.find("\n", lines_end)
                line = text[lines_end:] if nl < 0 else text[lines_end:nl]
                if line == delim:
                    after = len(text) if nl < 0 else nl + 1
                    k = after
                    while k < len(text) and text[k] in " \t\n":
                        k += 1
                    if text.startswith(')"', k):
                        span = (start, k + 2, "\n".join(body_lines).rstrip("\n"))
                    break
                if nl < 0 or line.startswith(delim):
                    # inside $( ) bash 5 also ends the here-document at a line that only
                    # starts with the delimiter (`EOF)"`, `EOFX)`), and runs what follows
                    # as commands: such a body is not the literal form
                    break
                body_lines.append(line)
                lines_end = nl + 1
        if span:
            token = f"GWHEREDOC{nonce}X{len(placeholders)}"
            out.append(text[pos:span[0]])
            out.append(f"'{token}'")
            placeholders[token] = span[2]
            pos = span[1]
            start = text.find(_OPEN, pos)
        else:
            start = text.find(_OPEN, start + 1)
    out.append(text[pos:])
    return "".join(out), placeholders


def _match_paren(text, k):
    """Index of the `)` closing a `$(` whose contents start at text[k] (len(text) if none)."""
    depth, n = 1, len(text)
    while k < n:
        c = text[k]
        if c == "\\":
            k += 2
            continue
        if c in "'\"":
            j = text.find(c, k + 1)
            k = n if j < 0 else j + 1
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return k
        k += 1
    return n


def substitutions(body):
    """The commands of the `$(...)` and `` `...` `` in an unquoted here-document body, which
    bash runs when it expands the body (`cat <<EOF` / `$(rm -rf /)` / `EOF`)."""
    i, n = 0, len(body)
    while i < n:
        c = body[i]
        if c == "\\":
            i += 2
            continue
        if body.startswith("$(", i):
            j = _match_paren(body, i + 2)
            yield body[i + 2:j]
            i = j + 1
            continue
        if c == "`":
            j = i + 1
            while j < n and body[j] != "`":
                j += 2 if body[j] == "\\" else 1
            yield body[i + 1:j]
            i = j + 1
            continue
        i += 1
