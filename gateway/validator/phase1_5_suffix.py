"""Phase 1.5: strip harmless suffixes (` 2>&1`, ` 2>/dev/null`, ` || true`,
` || echo 'text'`, ` && echo "text"`) from the end of the command, repeatedly.

Only literal text exactly as the rules list it is stripped (one space before the operator).
The remainder is then checked by every later phase, so a suffix that was not really an
operator (inside an unclosed quote, say) only leaves a remainder that fails to parse.
"""

PHASE = "1.5"
_ECHO_FORBIDDEN = frozenset("$`()\\\"")


def _echo_suffix(text: str, op: str):
    """Length of a trailing ` <op> echo "X"` / ` <op> echo 'X'` with plain X, or 0."""
    if not text or text[-1] not in "'\"":
        return 0
    quote = text[-1]
    start = text.rfind(quote, 0, len(text) - 1)
    if start < 0:
        return 0
    body = text[start + 1:-1]
    if quote == "'" and "'" in body:
        return 0
    if quote == '"' and any(c in _ECHO_FORBIDDEN for c in body):
        return 0
    if "\n" in body:
        return 0
    head = f" {op} echo "
    if text[:start].endswith(head):
        return len(head) + len(body) + 2
    return 0


def strip(text: str, literals, echo_ops):
    """Return (remainder, [stripped suffixes])."""
    stripped = []
    changed = True
    while changed:
        changed = False
        for lit in literals:
            if text.endswith(lit) and len(text) > len(lit):
                stripped.append(lit)
                text = text[:-len(lit)]
                changed = True
                break
        if changed:
            continue
        for op in echo_ops:
            n = _echo_suffix(text, op)
            if n and len(text) > n:
                stripped.append(text[-n:])
                text = text[:-n]
                changed = True
                break
    return text, stripped


def run(ctx):
    pol = ctx.policy
    text, stripped = strip(ctx.command, pol.suffix_literals, pol.suffix_echo_ops)
    if stripped:
        ctx.text = text
        ctx.step(PHASE, "info", "GW150", "stripped " + ", ".join(repr(s) for s in stripped))
    else:
        ctx.step(PHASE, "pass")
    return None
