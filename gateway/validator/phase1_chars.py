"""Phase 1: control characters, invisible and Unicode whitespace, and the tool name.

Tab and newline are allowed here: newlines separate commands (judged from the parse) and
appear in multi-line commit messages. Everything else below U+0020, DEL, C1 controls,
Unicode whitespace other than the plain space, and invisible format characters (zero-width
spaces, bidi overrides) is refused: bash does not treat them the way they look.
"""

PHASE = "1"
_ALLOWED_CONTROL = frozenset("\t\n")
_BAD_CATEGORIES = frozenset(("Cc", "Cf", "Cs", "Co", "Cn", "Zs", "Zl", "Zp"))


def _first_bad(text: str):
    if text.isascii():
        for i, ch in enumerate(text):
            if (ch < " " and ch not in _ALLOWED_CONTROL) or ch == "\x7f":
                return i, ch, "control"
        return None
    import unicodedata  # only for non-ASCII text: most hook calls never need it

    for i, ch in enumerate(text):
        if ch == " " or ch in _ALLOWED_CONTROL:
            continue
        if ch < " " or ch == "\x7f":
            return i, ch, "control"
        if ord(ch) > 0x7E:
            cat = unicodedata.category(ch)
            if cat in _BAD_CATEGORIES:
                return i, ch, "control" if cat == "Cc" else "unicode"
    return None


def run(ctx):
    bad = _first_bad(ctx.command)
    if bad:
        import unicodedata

        i, ch, kind = bad
        name = unicodedata.name(ch, f"U+{ord(ch):04X}")
        if kind == "control":
            return ctx.ask(PHASE, "GW101", f"control character U+{ord(ch):04X} ({name}) at "
                           f"offset {i}")
        return ctx.ask(PHASE, "GW102", f"invisible or Unicode whitespace U+{ord(ch):04X} "
                       f"({name}) at offset {i}")
    if ctx.tool_name != "Bash":
        shown = "missing" if ctx.tool_name is None else repr(ctx.tool_name)
        return ctx.ask(PHASE, "GW103", f"tool_name is {shown}; only Bash commands are "
                       "validated here")
    ctx.step(PHASE, "pass")
    return None
