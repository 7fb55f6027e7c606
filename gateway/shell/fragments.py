"""Top-level fragments of a command that bashlex cannot parse as a whole, for the deny rules.

bash runs `rm -rf /; time ls` and `rm -rf / & !` although bashlex rejects them (it does not
implement `time`, `[[ ]]`, `case`... and a syntax error on a later line does not stop bash
from running the earlier ones). The whole command is refused anyway (no allow); the deny
rules still get to see what bash would run: the text is split at the list operators (`;`,
`&`, `&&`, `||`, newline; pipelines stay whole) that are outside quotes, `$( )`, backticks and
comments, and each fragment is parsed on its own. A fragment that does not parse is skipped. Splitting only ever finds
*more* to deny, and only in a command that is not allowed in the first place.
"""

_OPERATORS = frozenset(";&|\n")


def _is_list_operator(text: str, i: int) -> bool:
    """Does the operator character at text[i] separate list items (not a pipe `|` or `|&`,
    which keeps a pipeline together, nor the `&` of a redirection: 2>&1, &>, <&-)?"""
    c = text[i]
    prev = text[i - 1] if i else ""
    nxt = text[i + 1] if i + 1 < len(text) else ""
    if c == "|":
        return nxt == "|" or prev == "|"
    if c == "&":
        return prev not in "<>|" and nxt != ">"
    return True


def split(text: str) -> list:
    """The top-level fragments of `text` (operators removed, blank fragments dropped)."""
    out = []
    start = 0
    depth = 0  # $( ... ) and ( ... ) nesting
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "'":
            j = text.find("'", i + 1)
            i = n if j < 0 else j + 1
            continue
        if c == '"':
            i = _skip_double(text, i + 1)
            continue
        if c == "`":
            j = text.find("`", i + 1)
            i = n if j < 0 else j + 1
            continue
        if c == "#" and (i == 0 or text[i - 1] in " \t\n;&|()"):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth = max(0, depth - 1)
        elif c in _OPERATORS and depth == 0 and _is_list_operator(text, i):
            out.append(text[start:i])
            start = i + 1
        i += 1
    out.append(text[start:])
    return [f.strip() for f in out if f.strip()]


def _skip_double(text: str, i: int) -> int:
    """Index after the double-quoted string whose content starts at `i`."""
    n = len(text)
    depth = 0
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if text.startswith("$(", i):
            depth += 1
            i += 2
            continue
        if c == ")" and depth:
            depth -= 1
        elif c == '"' and not depth:
            return i + 1
        i += 1
    return n


#: Words that open or continue a compound command, after which a command follows: in a
#: fragment bashlex rejected (`case x in *) rm -rf / ;; esac`, `select ...; do rm -rf ~`)
#: what follows them is parsed on its own.
_LEADING_KEYWORDS = frozenset(("then", "do", "else", "elif", "if", "while", "until", "{", "!",
                               "time", "coproc"))


def after_keywords(fragment):
    """`fragment` without its leading compound-command words: `then`, `do`, `{`, `time [-p]`,
    `coproc`, `case WORD in`, a case pattern `PAT)`. What is left is what bash runs."""
    text = fragment
    for _ in range(16):
        words = text.split(None, 3)
        if not words:
            return text
        first = words[0]
        if first in _LEADING_KEYWORDS:
            text = text[len(first):].lstrip()
            if first == "time":
                for opt in ("-p", "--"):
                    if text.startswith(opt) and text[2:3] in (" ", "\t"):
                        text = text[2:].lstrip()
            continue
        if first == "case" and len(words) >= 3 and words[2] == "in":
            text = words[3] if len(words) > 3 else ""
            continue
        if first.endswith(")") and first.count(")") == 1 and "$(" not in first \
                and first != ")":
            text = text[len(first):].lstrip()  # a case pattern: `*)`, `a|b)`, `(a)`
            continue
        return text
    return text
