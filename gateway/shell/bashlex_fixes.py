"""Fixes for bashlex 0.18 bugs that hostile (or merely unusual) words run into.

1. Single quotes. `bashlex.subst._expandwordinternal` looks for the closing `'` of a quoted
   string starting *at* the opening quote, so it finds the opening quote itself and reads the
   quoted text as unquoted: `echo a'$x'` gets a parameter node, `echo a'$(id)'` a command
   substitution that bash never performs. Its other shortcut (a word that starts and ends
   with `'` is taken as one quoted string) misses `'a'$(rm -rf /)'b'`, so the deny rules
   never saw that substitution. The wrapper hands bashlex the word with every single-quoted
   and `$'…'` string (found by bash's rules) blanked out to the same length, so bashlex sees
   exactly the expansions bash performs and node positions still point into the real text.
   (The validator decides from that real text, decoded by gateway.shell.words; bashlex's
   `word` attribute is display only.)
2. `${` without a `}`. `_paramexpand` does not check `str.find`'s -1, returns index 0, and
   the expander starts the word over forever, allocating until memory runs out. Every
   expansion that does not move forward is turned into a parse error (GW301, no allow).

3. Here-documents. `heredoc.makeheredoc` compares each line with the delimiter word *as
   written*, so `<<'EOF'` (the usual way to write a literal here-document) waits for a line
   `'EOF'` and every such command failed to parse. bash compares with the word after quote
   removal, and a quoted delimiter means the body is not expanded. The replacement does the
   same, records `quoted` on the heredoc node, and reads on (instead of looping forever)
   when a `<<-` line is all tabs.

All are applied once, by `bashlex_loader`, whichever way bashlex was imported.
"""


def heredoc_delimiter(word: str):
    """(delimiter after quote removal, quoted?) for the word after `<<`, as bash does."""
    out = []
    quoted = False
    i, n = 0, len(word)
    while i < n:
        c = word[i]
        if c == "\\" and i + 1 < n:
            out.append(word[i + 1])
            quoted = True
            i += 2
            continue
        if c == "'":
            j = word.find("'", i + 1)
            j = n if j < 0 else j
            out.append(word[i + 1:j])
            quoted = True
            i = j + 1
            continue
        if c == '"':
            j = i + 1
            while j < n and word[j] != '"':
                if word[j] == "\\" and j + 1 < n and word[j + 1] in '"\\$`':
                    out.append(word[j + 1])
                    j += 2
                    continue
                out.append(word[j])
                j += 1
            quoted = True
            i = j + 1
            continue
        if c == "$" and i + 1 < n and word[i + 1] in "'\"":
            i += 1  # $'...' and $"...": the quotes are removed, the $ with them
            continue
        out.append(c)
        i += 1
    return "".join(out), quoted

_MARK = "_gateway_fixed"


def mask_single_quoted(s: str) -> str:
    """`s` with every single-quoted and ANSI-C (`$'…'`) string, quotes included, replaced by
    `x`s of the same length. Quoting is tracked the way bash does: backslash escapes, double
    quotes (inside which `'` is literal), and a fresh context inside each `$( … )`. An
    unterminated quote is left as it is (bashlex reports it)."""
    if "'" not in s:
        return s
    out = None
    stack = [[False, 0]]  # per $( ) level: [inside double quotes, open parentheses]
    i, n = 0, len(s)
    while i < n:
        c = s[i]
        ctx = stack[-1]
        if c == "\\":
            i += 2
            continue
        if c == "$" and s.startswith("$(", i):
            stack.append([False, 0])
            i += 2
            continue
        if ctx[0]:
            if c == '"':
                ctx[0] = False
            i += 1
            continue
        if c == "'" or (c == "$" and s.startswith("$'", i)):
            j = i + 1 if c == "'" else i + 2
            if c == "'":
                j = s.find("'", j)
            else:
                while j < n and s[j] != "'":
                    j += 2 if s[j] == "\\" else 1
            if j < 0 or j >= n:
                break
            if out is None:
                out = list(s)
            out[i:j + 1] = "x" * (j + 1 - i)
            i = j + 1
            continue
        if c == '"':
            ctx[0] = True
        elif c == "(":
            ctx[1] += 1
        elif c == ")":
            if ctx[1]:
                ctx[1] -= 1
            elif len(stack) > 1:
                stack.pop()
        i += 1
    return s if out is None else "".join(out)


def apply(bashlex) -> None:
    subst = bashlex.subst
    if getattr(subst._paramexpand, _MARK, False):
        return
    error = bashlex.errors.ParsingError
    paramexpand = subst._paramexpand
    expandwordinternal = subst._expandwordinternal

    def _paramexpand(parserobj, string, sindex):
        node, zindex = paramexpand(parserobj, string, sindex)
        if zindex <= sindex:
            raise error("bad substitution: no closing '}'", string, sindex)
        return node, zindex

    def _expandwordinternal(parserobj, wordtoken, *args):
        value = wordtoken.value
        masked = mask_single_quoted(value)
        if masked is value:
            return expandwordinternal(parserobj, wordtoken, *args)
        wordtoken.value = masked
        try:
            parts, _ = expandwordinternal(parserobj, wordtoken, *args)
        finally:
            wordtoken.value = value
        from gateway.shell.words import decode

        return parts, decode(value).value

    ast = bashlex.ast

    def makeheredoc(tokenizer, redirnode, lineno, killleading):
        word = redirnode.output.word
        delim, quoted = heredoc_delimiter(word)
        document = []
        startpos = tokenizer._shell_input_line_index
        fullline = tokenizer.readline(False)
        while fullline:
            line = fullline.lstrip("\t") if killleading else fullline
            if line.rstrip("\n") == delim and (line.endswith("\n") or line == delim):
                break  # (bashlex kept the delimiter line in the value; the body is without)
            if delim and line.startswith(delim):
                # inside $( ) bash 5 ends the here-document here too (`EOF)`) and runs the
                # rest as commands; outside it does not: not parsed either way
                raise error(f"here-document line {line.rstrip()!r} starts with its delimiter "
                            f"{delim!r}", tokenizer._shell_input_line,
                            tokenizer._shell_input_line_index)
            document.append(line)
            fullline = tokenizer.readline(False)
        if not fullline:
            raise error(f"here-document at line {lineno} delimited by end-of-file (wanted "
                        f"{delim!r})", tokenizer._shell_input_line,
                        tokenizer._shell_input_line_index)
        document = "".join(document)
        endpos = tokenizer._shell_input_line_index - 1
        redirnode.heredoc = ast.node(kind="heredoc", value=document, pos=(startpos, endpos),
                                     quoted=quoted)
        if redirnode.pos[1] + 1 == startpos:
            redirnode.pos = (redirnode.pos[0], endpos)
        return document

    for fn in (_paramexpand, _expandwordinternal, makeheredoc):
        setattr(fn, _MARK, True)
    subst._paramexpand = _paramexpand
    subst._expandwordinternal = _expandwordinternal
    bashlex.heredoc.makeheredoc = makeheredoc
