"""Globs and braces in a segment's arguments: the words bash really passes, judged.

`wc -l src/*.py` reads the files the glob matches where the command runs; phase 2 lets a
word through whose only expansions are braces and globs (in an argument, not the command
name, a `cd` target or a redirection), and here it is expanded against the file system in
each directory the segment may run in (gateway.shell.expand).

bash's result depends on shell options the gateway cannot see (gateway.shell.expand): the
real expansion lies between the `strict` reading (bash's defaults) and the `wide` one
(dotglob, nocaseglob, globstar and no globskipdots at once), and where the strict reading
matches nothing, bash may pass the pattern itself or, with nullglob, nothing. The order of
the names follows the locale. So the segment is judged once per variant, and the strictest
verdict stands:

* every glob as its wide expansion, in C order, and reversed (a name's role may depend on
  its position: the first word of `grep` is the pattern, the first of `sed` the program);
* every glob as its strict expansion; where that is empty, the pattern itself, and
  nothing at all.

A name the expansion finds that starts with `-` would be read as an option (a file called
`-rf`): that asks (GW730), as does an expansion too large to read or produce (GW731).
"""

from gateway.shell.words import BRACE, GLOB, TILDE, _quote_pattern

PHASE = "2"
_EXPANDABLE = frozenset((GLOB, BRACE))


def expandable(word) -> bool:
    """Does the word hold a glob or a brace expansion (and nothing phase 2 refuses)?"""
    return any(kind in _EXPANDABLE for kind, _ in word.issues)


def variants(ctx, words, cwd, values):
    """(list of argv, None) to judge for the simple command `words` in `cwd`, or ([], an
    ask verdict). `values` are the words' values where they need no expansion."""
    from gateway.shell import expand as ex  # only for a command with a glob or brace
    if expandable(words[0]):
        return [], ctx.ask(PHASE, "GW207", f"glob in the command name {words[0].raw!r}")
    if values and values[0] == "cd":
        bad = next(w for w in words[1:] if expandable(w)) if any(
            expandable(w) for w in words[1:]) else None
        if bad is not None:
            return [], ctx.ask(PHASE, "GW207", f"glob in the cd target {bad.raw!r}")
    budget = ex.Budget()
    slots = []
    try:
        for word, value in zip(words, values, strict=True):
            if not expandable(word):
                slots.append(("lit", value))
                continue
            pattern = _pattern(ctx, word)
            if pattern is None:
                return [], ctx.ask(PHASE, "GW209", f"tilde expansion in {word.raw!r}")
            for p in ex.braces(pattern, budget):
                if p.startswith("~"):
                    # brace expansion put a tilde at the start (`{~,x}/.bashrc`): bash
                    # expands it after the braces
                    home = ctx.home if ctx.exposure else None
                    if not (home and home.startswith("/") and (len(p) == 1 or p[1] == "/")):
                        return [], ctx.ask(PHASE, "GW209", f"tilde expansion in {word.raw!r} "
                                           f"(brace expansion makes {ex.unescape(p)!r})")
                    p = _quote_pattern(home.rstrip("/")) + p[1:] if len(p) > 1 else \
                        _quote_pattern(home)
                if not ex.has_glob(p):
                    slots.append(("lit", ex.unescape(p)))
                    continue
                strict = ex.expand(p, cwd, False, budget)
                wide = ex.expand(p, cwd, True, budget)
                for name in wide:
                    if name.startswith("-"):
                        return [], ctx.ask(PHASE, "GW730", f"{word.raw!r} matches {name!r}, "
                                           "which the command would read as an option")
                slots.append(("glob", ex.unescape(p), strict, wide))
                ctx.step(PHASE, "info", "", f"{word.raw!r} in {cwd}: {len(strict)} name(s) "
                         f"with bash's default options, up to {len(wide)} with the options a "
                         "user may set")
    except ex.TooLarge as exc:
        return [], ctx.ask(PHASE, "GW731", f"the globs and braces of this command expand too "
                           f"far to judge ({exc})")
    except ex.Unsupported as exc:
        return [], ctx.ask(PHASE, "GW207", f"a glob with syntax the gateway does not model "
                           f"({exc})")
    out = []
    seen = set()

    def add(argv):
        key = tuple(argv)
        if key not in seen:
            seen.add(key)
            out.append(argv)

    add(_build(slots, lambda s: s[3] or [s[1]]))
    if any(len(s[3]) > 1 for s in slots if s[0] == "glob"):
        add(_build(slots, lambda s: list(reversed(s[3])) or [s[1]]))
    add(_build(slots, lambda s: s[2] or [s[1]]))
    add(_build(slots, lambda s: s[2]))
    return out, None


def _build(slots, pick):
    argv = []
    for s in slots:
        if s[0] == "lit":
            argv.append(s[1])
        else:
            argv.extend(pick(s))
    return argv


def _pattern(ctx, word):
    """The word's pattern; in exposure mode with a leading `~` (or `~/`) written as the home
    directory. None for any other tilde."""
    if not any(kind == TILDE for kind, _ in word.issues):
        return word.pattern
    home = ctx.home if ctx.exposure else None
    if home is None:
        # a `~/` below a dependency cache (gateway.validator.caches) is expanded in both hooks
        from gateway.validator import caches

        if caches.home_word(ctx, word) is not None:
            home = ctx.home
    p = word.pattern
    if home and home.startswith("/") and p.startswith("~") and (len(p) == 1 or p[1] == "/") \
            and sum(1 for kind, _ in word.issues if kind == TILDE) == 1:
        return _quote_pattern(home.rstrip("/")) + p[1:]
    return None
