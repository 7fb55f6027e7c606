"""bashlex adapter: a command string becomes a `Script` of pipelines of simple commands.

The validator never looks at raw text to decide; it looks at what this module extracts:
the top-level list (pipelines and the operators between them), each simple command's words
(decoded by gateway.shell.words), assignments and redirections, every structural construct
phase 2 must stop (subshells, compound commands, functions, substitutions, here-docs,
background jobs), and every simple command anywhere in the tree (for the deny rules, which
must see inside substitutions and subshells too).
"""

from gateway.shell.words import NAME_CHARS, NAME_START, decode

# Structural constructs (each maps to a phase-2 reason code).
SUBSHELL = "subshell"
GROUP = "group"
COMPOUND = "compound"  # if / for / while / until / case
FUNCTION = "function"
BACKGROUND = "background"
PROCSUB = "procsub"
CMDSUB_NODE = "cmdsub_node"
HEREDOC = "heredoc"


class ShellParseError(Exception):
    """bashlex rejected the text, or could not represent all of it."""

    def __init__(self, message: str, unsupported: bool = False):
        super().__init__(message)
        self.unsupported = unsupported  # a construct bashlex does not implement


class Redirect:
    """One redirection: `op` as written (>, >>, <, <>, >&, <&, &>, >|, <<, <<-, <<<)."""

    __slots__ = ("op", "fd", "target", "target_fd", "heredoc")

    def __init__(self, op, fd, target, target_fd, heredoc=None):
        self.op = op
        self.fd = fd  # source descriptor as written, or None
        self.target = target  # a Word (file name / here-string), or None
        self.target_fd = target_fd  # for duplications like 2>&1, else None
        # << and <<-: (body, quoted); a body whose delimiter was not quoted is expanded
        # (its $(...) and `...` run) before the command reads it
        self.heredoc = heredoc

    def __repr__(self) -> str:
        tgt = self.target.value if self.target is not None else self.target_fd
        return f"Redirect({self.fd}{self.op}{tgt})"


class Command:
    """One simple command: assignments, words, redirections, and its source span."""

    __slots__ = ("words", "assignments", "redirects", "start", "end", "text")

    def __init__(self, words, assignments, redirects, start, end, text):
        self.words = words
        self.assignments = assignments
        self.redirects = redirects
        self.start = start
        self.end = end
        self.text = text

    @property
    def argv(self) -> list:
        return [w.value for w in self.words]

    def __repr__(self) -> str:
        return f"Command({self.text!r})"


class Pipeline:
    """Commands joined by `|` (a single command is a pipeline of one). `None` stands for a
    compound command in the pipeline (recorded as a construct)."""

    __slots__ = ("commands", "pipes", "negated", "loop")

    def __init__(self, commands, pipes, negated=False, loop=None):
        self.commands = commands
        self.pipes = pipes  # "|" or "|&" between consecutive commands
        self.negated = negated  # `! pipeline`: its exit status is inverted
        self.loop = loop  # the ForLoop when the pipeline is exactly one `for` loop


class ForLoop:
    """A `for NAME in WORDS; do BODY; done` (gateway.shell.loops unrolls it).

    `name` is the variable's source text, `words` the list's Words (None: no `in`, the
    positional parameters), `body` the body's simple commands in source order, `shape` None
    when the body is a list of simple commands and pipelines only, else what it holds
    (a nested compound command, a background job), `redirects` whether the loop itself has
    redirections (`done > out`)."""

    __slots__ = ("name", "words", "body", "body_start", "body_end", "start", "end", "shape",
                 "redirects")

    def __init__(self, name, words, body, body_start, body_end, start, end, shape,
                 redirects):
        self.name = name
        self.words = words
        self.body = body
        self.body_start = body_start
        self.body_end = body_end
        self.start = start
        self.end = end
        self.shape = shape
        self.redirects = redirects

    def __repr__(self) -> str:
        return f"ForLoop({self.name!r}, {len(self.words or ())} word(s))"


class Script:
    """A parsed command string."""

    __slots__ = ("text", "items", "constructs", "all_commands", "all_pipelines", "functions",
                 "placeholders", "loops")

    def __init__(self, text, items, constructs, all_commands, all_pipelines, functions,
                 placeholders, loops=()):
        self.text = text  # the text bashlex parsed (here-doc spans replaced)
        self.items = items  # [(Pipeline, operator after it or None)]
        self.constructs = constructs  # [(kind, detail)]
        self.all_commands = all_commands  # every simple command, nested ones included
        self.all_pipelines = all_pipelines  # every pipeline of 2+ commands, nested included
        self.functions = functions  # [(name, start, end)] function definitions
        self.placeholders = placeholders
        self.loops = loops  # every `for NAME in` loop (ForLoop), nested ones included

    @property
    def simple(self) -> bool:
        """Exactly one simple command and nothing else."""
        return (len(self.items) == 1 and len(self.items[0][0].commands) == 1
                and self.items[0][0].commands[0] is not None and not self.constructs)


def _bashlex():
    from gateway.shell import bashlex_fixes as _fixes
    from gateway.shell.bashlex_loader import bashlex

    _fixes.apply(bashlex)  # once; later calls return at the first check
    return bashlex


def untimed(text: str) -> str:
    """`text` with bash's `time` reserved word (and its -p) before the line's first pipeline
    blanked out: `time go build ./...` runs the pipeline and prints how long it took on the
    shell's standard error (its format, TIMEFORMAT, expands nothing), so the pipeline is
    what is judged. Blanks keep every offset. Anything else is left as it is: `time` with
    another option or nothing to time, and `time` after `&&`, `;` or `|` (there a later
    pipeline's `time`, or a program named time) reach bashlex, which refuses it (GW302)."""
    i = 0
    while i < len(text) and text[i] in " \t":
        i += 1
    if not text.startswith("time", i):
        return text
    n = i + 4
    if n >= len(text) or text[n] not in " \t":
        return text
    while n < len(text) and text[n] in " \t":
        n += 1
    if text.startswith("-p", n) and n + 2 < len(text) and text[n + 2] in " \t":
        n += 2
        while n < len(text) and text[n] in " \t":
            n += 1
    if n >= len(text) or text[n] in "-\n;&|)#":
        return text
    return text[:i] + " " * (n - i) + text[n:]


def parse(text: str) -> Script:
    """Parse `text`; raise ShellParseError when bashlex cannot represent all of it. A `time`
    before the first pipeline is read as bash reads it: the pipeline is what runs
    (untimed)."""
    text = untimed(text)
    script = _plain(text)
    if script is not None:
        return script
    new_text, placeholders = _prepare(text)
    if placeholders:
        # Claude Code's commit-message form: once its spans are placeholders, the rest is
        # often plain words
        script = _plain(new_text, placeholders)
        if script is not None:
            _check_placeholders(placeholders, script.all_commands)
            return script
    return _parse_prepared(new_text, placeholders)


def parse_bashlex(text: str) -> Script:
    """`parse` without the plain-word shortcut: always through bashlex."""
    return _parse_prepared(*_prepare(untimed(text)))


def _prepare(text: str):
    """(text, placeholders): the commit-message forms replaced by placeholders
    (gateway.shell.heredoc), then the line continuations removed, as bash reads them."""
    from gateway.shell import continuation as _continuation  # (not for plain words)
    from gateway.shell import heredoc as _heredoc

    new_text, placeholders = _heredoc.extract(text)
    return _continuation.remove(new_text), placeholders


def _parse_prepared(new_text: str, placeholders) -> Script:
    bashlex = _bashlex()
    try:
        trees = bashlex.parse(new_text)
    except NotImplementedError as exc:
        raise ShellParseError(f"unsupported shell construct: {exc}", unsupported=True) from None
    except RecursionError:
        raise ShellParseError("command nests too deeply to parse") from None
    except Exception as exc:  # bashlex raises ParsingError and, on odd input, anything else
        raise ShellParseError(f"{type(exc).__name__}: {exc}") from None
    _check_coverage(new_text, trees)
    b = _Builder(new_text, placeholders)
    items = []
    for idx, tree in enumerate(trees):
        b.top(tree, items)
        if items and items[-1][1] is None and idx < len(trees) - 1:
            items[-1] = (items[-1][0], "\n")
    b.collect(trees)
    if placeholders:
        _check_placeholders(placeholders, b.all_commands)
    return Script(new_text, items, b.constructs, b.all_commands, b.all_pipelines, b.functions,
                  placeholders, b.loops)


# What bash reads as a reserved word when it starts a command (bashlex's
# valid_reserved_first_command, plus coproc): a plain parse never takes them.
_RESERVED_FIRST = frozenset(("if", "then", "else", "elif", "fi", "case", "esac", "for", "select",
                             "while", "until", "do", "done", "in", "function", "time", "{", "}",
                             "!", "[[", "]]", "coproc"))
# Unquoted characters a plain parse leaves to bashlex: expansions and escapes ($ ` \),
# subshells and groups (redirections are read by _plain_redirect).
_PLAIN_STOP = frozenset("$`\\()")


def _plain(text: str, placeholders=None):
    """The Script of a command made only of plain words, or None (bashlex parses it).

    Plain: printable ASCII; simple commands joined by `|`, `&&`, `||` and `;`, each of words
    and simple redirections. A word is unquoted characters other than the shell's special
    ones, plain parameter expansions (`$NAME`, `${NAME}`, `$?`, `$1`, ...: no operator,
    no substitution), `'...'` and `"..."` with no backquote, backslash, `<(`, `>(` or other
    `$` form inside; no reserved word starting a command, no word that could be an
    assignment (a name, then `=`) before the command's name, no `{` or `}` word, no
    comment, no trailing operator. A redirection is `>`, `>>`
    or `<` with a plain word, or `>&` with a descriptor number or `-`, each with an optional
    one-digit descriptor before it (`2>/dev/null`, `2>&1`, `>>log`); any other form
    (here-documents, `&>`, `<>`, `>|`, `{NAME}>`, a word glued before the operator) goes
    to bashlex. That subset parses the same with or without bashlex (tests/shell/
    test_plain_parse.py proves it against bashlex over generated commands), and skipping
    bashlex saves its import on most everyday commands."""
    if not text.isascii() or not text.replace("\t", " ").isprintable():
        return None
    n = len(text)
    tokens = []  # (kind, start, end, redirection): kind None for a word, "<" / ">" for a
    i = 0  # redirection, else the operator
    while i < n:
        c = text[i]
        if c == " " or c == "\t":
            i += 1
            continue
        if c == "|" or c == "&" or c == ";":
            op = text[i:i + 2]
            if op not in ("||", "&&"):
                op = c
                if c == "&" or text[i + 1:i + 2] in ("&", ";"):
                    return None  # a background job, |&, ;; or ;&
            tokens.append((op, i, i + len(op), None))
            i += len(op)
            continue
        if c == "#":
            return None  # a comment
        start = i
        i = _plain_word(text, i)
        if i is None:
            return None
        if i < n and text[i] in "<>":
            redirect = _plain_redirect(text, start, i, placeholders)
            if redirect is None:
                return None
            i = redirect[0]
            tokens.append((">", start, i, redirect[1]))
            continue
        if i == start:
            return None
        tokens.append((None, start, i, None))
    if not tokens or tokens[-1][0] not in (None, ">"):
        return None
    items, commands, pipelines = [], [], []
    words, redirects, members, pipes = [], [], [], []
    first = last = 0
    tokens.append(("", n, n, None))
    for op, start, end, redirect in tokens:
        if op is None or op == ">":
            if not words and not redirects:
                first = start
            last = end
            if op == ">":
                redirects.append(redirect)
                continue
            raw = text[start:end]
            if not words and "=" in raw and raw[0] != "-":
                return None  # maybe an assignment (NAME=, NAME+=, NAME[i]=) before the name
            words.append(decode(raw, placeholders))
            if len(words) == 1 and raw in _RESERVED_FIRST:
                return None
            if words[-1].value in ("{", "}"):
                return None  # bashlex then takes a reserved word after it as one
            continue
        if not words:
            return None  # an empty command (a syntax error) or only redirections
        cmd = Command(words, [], redirects, first, last, text[first:last])
        commands.append(cmd)
        members.append(cmd)
        words, redirects = [], []
        if op == "|":
            pipes.append(op)
            continue
        items.append((Pipeline(members, pipes), op or None))
        if len(members) > 1:
            pipelines.append(list(members))
        members, pipes = [], []
    pipelines.reverse()  # the order bashlex's tree walk finds them in
    return Script(text, items, [], commands, pipelines, [], placeholders or {}, [])


def _plain_word(text: str, i: int):
    """The end of the plain word at text[i] (i itself when none starts there), or None
    when something there is not plain."""
    n = len(text)
    while i < n:
        c = text[i]
        if c in " \t|&;<>":
            return i
        if c == "'" or c == '"':
            end = text.find(c, i + 1)
            if end < 0:
                return None
            if c == '"':
                inside = text[i + 1:end]
                if "`" in inside or "\\" in inside or "<(" in inside or ">(" in inside:
                    return None  # bashlex reads <( and >( in double quotes as a substitution
                k = inside.find("$")
                while k >= 0:
                    after = _plain_dollar(inside, k)
                    if after is None:
                        return None
                    k = inside.find("$", after)
            i = end + 1
            continue
        if c == "$":
            i = _plain_dollar(text, i)
            if i is None:
                return None
            continue
        if c in _PLAIN_STOP:
            return None
        i += 1
    return i


# (not $$: bashlex reads its second $ afresh, and `"$${"` opens a ${ there)
_SPECIAL_PARAMS = frozenset("?#@*!-0123456789")


def _plain_dollar(text: str, i: int):
    """The end of the plain parameter expansion at text[i] (a `$`): `$NAME`, `${NAME}` or a
    special parameter (`$?`, `$1`, `$@`, ...); None for any other form (`$(`, `$((`, `${X:-y}`,
    `$'...'`, `$"..."`, a lone `$`), which bashlex parses."""
    n = len(text)
    j = i + 1
    if j >= n:
        return None
    c = text[j]
    if c in _SPECIAL_PARAMS:
        return j + 1
    if c == "{":
        k = j + 1
        if k >= n or text[k] not in NAME_START:
            return None
        while k < n and text[k] in NAME_CHARS:
            k += 1
        return k + 1 if k < n and text[k] == "}" else None
    if c not in NAME_START:
        return None
    while j < n and text[j] in NAME_CHARS:
        j += 1
    return j


def _plain_redirect(text: str, start: int, i: int, placeholders=None):
    """(end, Redirect) of the redirection whose operator is at text[i] (text[start:i] its
    descriptor: empty or one digit), or None when it is not a plain form."""
    fd = text[start:i]
    if fd and not (len(fd) == 1 and fd.isdigit()):
        return None  # a word glued to the operator (`a>b`, `{fd}>b`, `"2">b`)
    op = text[i]
    if text[i:i + 2] in (">>", ">&"):
        op = text[i:i + 2]
    elif text[i + 1:i + 2] in ("<", ">", "&", "|", "("):
        return None  # <<, <>, <&, >|, <( ... and friends
    j = i + len(op)
    fd = int(fd) if fd else None
    if op == ">&":
        k = j
        while k < len(text) and text[k].isdigit():
            k += 1
        if k == j and text[j:j + 1] == "-":
            k += 1
        if k == j or k - j > 1 or (k < len(text) and text[k] not in " \t|&;"):
            return None  # >&word, >&12, >&1x: bashlex's other forms
        target = text[j:k]
        return k, Redirect(op, fd, None, target if target == "-" else int(target))
    while j < len(text) and text[j] in " \t":
        j += 1
    if j >= len(text) or text[j] == "#":
        return None
    end = _plain_word(text, j)
    if end is None or end == j or text[end:end + 1] in ("<", ">"):
        return None  # (`> 2>x`: bash reads that 2 as the next one's descriptor)
    word = decode(text[j:end], placeholders)
    if "=" in word.raw or word.value in ("{", "}"):
        return None
    return end, Redirect(op, fd, word, None)


def _check_placeholders(placeholders, commands) -> None:
    """Each commit-form placeholder must come back exactly once, in a word of a command. One
    that vanished (`git #... -m "$(cat <<'EOF'`: the form sat in a comment, and bash runs
    the lines of its "body" as commands) or came back twice means the text was not the
    form: the command is not parsed."""
    raws = [w.raw for c in commands for w in list(c.words) + list(c.assignments)]
    raws += [r.target.raw for c in commands for r in c.redirects if r.target is not None]
    for token in placeholders:
        quoted = f"'{token}'"
        if sum(raw.count(quoted) for raw in raws) != 1:
            raise ShellParseError("a here-document in the commit-message form is not where "
                                  "a word of a command can take it (a comment?)")


def _check_coverage(text: str, trees) -> None:
    """Every character bashlex did not place in a node must be blank or part of a comment;
    otherwise the parse silently dropped text and cannot be trusted."""
    spans = []
    for tree in trees:
        spans.append(tree.pos)
        stack = [tree]
        while stack:
            node = stack.pop()
            if getattr(node, "kind", None) == "heredoc":
                spans.append(node.pos)
            stack.extend(_children(node))
    spans.sort()
    pos = 0
    for start, end in spans:
        if start > pos:
            _check_gap(text, pos, start)
        pos = max(pos, end)
    _check_gap(text, pos, len(text))


def _check_gap(text: str, start: int, end: int) -> None:
    i = start
    while i < end:
        c = text[i]
        if c in " \t\n":
            i += 1
            continue
        if c == "#" and (i == 0 or text[i - 1] in " \t\n;&|"):
            nl = text.find("\n", i)
            i = end if nl < 0 or nl > end else nl
            continue
        if c == "\\" and i + 1 < len(text) and text[i + 1] == "\n":
            i += 2
            continue
        raise ShellParseError(f"the parser skipped text at offset {i}: {text[i:i + 20]!r}")


def _named_fd(text, part, following) -> bool:
    """The word `part` is `{NAME}` written right before a redirection (no space between):
    bash's named-descriptor form, which assigns the descriptor's number to NAME."""
    if not following or following[0].kind != "redirect":
        return False
    s, e = part.pos
    if following[0].pos[0] != e:
        return False
    raw = text[s:e]
    return (len(raw) > 2 and raw[0] == "{" and raw[-1] == "}"
            and not any(c in raw[1:-1] for c in "{}'\"$` \t\n"))


def _is_assignment(raw: str) -> bool:
    """Is a word's source text an assignment (NAME=..., NAME+=...) as bash sees it?"""
    eq = raw.find("=")
    if eq <= 0:
        return False
    name = raw[:eq - 1] if raw[eq - 1] == "+" else raw[:eq]
    return bool(name) and (name[0].isalpha() or name[0] == "_") and name.isascii() and all(
        c.isalnum() or c == "_" for c in name)


def _children(node):
    out = []
    for value in vars(node).values():
        if isinstance(value, list):
            out.extend(v for v in value if hasattr(v, "kind"))
        elif hasattr(value, "kind"):
            out.append(value)
    return out


class _Builder:
    def __init__(self, text, placeholders):
        self.text = text
        self.placeholders = placeholders
        self.constructs = []
        self.all_commands = []
        self.all_pipelines = []
        self.functions = []
        self.loops = []
        self._loop_nodes = []
        self._seen = {}

    def word(self, node):
        s, e = node.pos
        return decode(self.text[s:e], self.placeholders)

    def command(self, node):
        key = id(node)
        if key in self._seen:
            return self._seen[key]
        words, assigns, redirects = [], [], []
        parts = list(node.parts)
        for k, part in enumerate(parts):
            kind = part.kind
            if kind == "word" and _named_fd(self.text, part, parts[k + 1:k + 2]):
                # `{NAME}>file` is bash's redirection to a new descriptor whose number is
                # assigned to NAME (`echo x {PATH}>&2` sets PATH); bashlex reads `{NAME}` as
                # a word
                assigns.append(self.word(part))
            elif kind == "word" and not words and _is_assignment(self.text[part.pos[0]:
                                                                           part.pos[1]]):
                # bash takes NAME=value before the command name as an assignment even after
                # a redirection (`<a.txt x=1`); bashlex only before the first redirection
                assigns.append(self.word(part))
            elif kind == "word":
                words.append(self.word(part))
            elif kind == "assignment":
                assigns.append(self.word(part))
            elif kind == "redirect":
                redirects.append(self.redirect(part))
            else:
                self.constructs.append((COMPOUND, f"{kind} inside a command"))
        s, e = node.pos
        cmd = Command(words, assigns, redirects, s, e, self.text[s:e])
        self._seen[key] = cmd
        self.all_commands.append(cmd)
        return cmd

    def redirect(self, node):
        op = node.type
        out = node.output
        fd = getattr(node, "input", None)
        if op in ("<<", "<<-"):
            self.constructs.append((HEREDOC, self.text[node.pos[0]:node.pos[1]][:40]))
        if isinstance(out, (int, str)):
            # a duplication (2>&1) or a close (2>&-, >&-): bashlex gives the number or the
            # text, not a word node
            return Redirect(op, fd, None, out)
        target = self.word(out) if out is not None else None
        doc = getattr(node, "heredoc", None) if op in ("<<", "<<-") else None
        heredoc = (doc.value, bool(getattr(doc, "quoted", False))) if doc is not None else None
        return Redirect(op, fd, target, None, heredoc)

    def pipeline(self, node):
        kind = node.kind
        if kind == "command":
            return Pipeline([self.command(node)], [])
        if kind == "pipeline":
            cmds, pipes, negated = [], [], False
            for part in node.parts:
                if part.kind == "pipe":
                    pipes.append(part.pipe)
                elif part.kind == "reservedword":
                    negated = not negated if part.word == "!" else negated
                else:
                    cmds.append(self.pipeline_member(part))
            return Pipeline(cmds, pipes, negated)
        member = self.pipeline_member(node)
        return Pipeline([member], [], loop=self._loops_by_node.get(id(node)))

    def pipeline_member(self, node):
        if node.kind == "command":
            return self.command(node)
        self.compound(node)
        return None

    @property
    def _loops_by_node(self):
        return {key: loop for key, loop in self._loop_nodes}

    def for_loop(self, node, fornode):
        """Record the `for` loop of compound `node` (its ForNode `fornode`)."""
        parts = list(fornode.parts)
        if len(parts) < 4 or getattr(parts[1], "kind", None) != "word":
            return
        name = self.text[parts[1].pos[0]:parts[1].pos[1]]
        i = 2
        words = None
        if getattr(parts[i], "kind", None) == "reservedword" and parts[i].word == "in":
            words = []
            i += 1
            while i < len(parts) and parts[i].kind == "word":
                words.append(self.word(parts[i]))
                i += 1
        while i < len(parts) and parts[i].kind == "reservedword" and parts[i].word != "do":
            i += 1  # the `;` or newline before `do`
        if i >= len(parts) or parts[i].kind != "reservedword" or parts[i].word != "do" \
                or parts[-1].kind != "reservedword" or parts[-1].word != "done":
            return
        inner = parts[i + 1:-1]
        if len(inner) != 1:
            return
        shape, body = self._body(inner[0])
        self.loops.append(ForLoop(name, words, body, inner[0].pos[0], inner[0].pos[1],
                                  node.pos[0], node.pos[1], shape,
                                  bool(getattr(node, "redirects", None))))
        self._loop_nodes.append((id(node), self.loops[-1]))

    def _body(self, node):
        """(shape, [Command]) of a loop body: shape None when it is simple commands and
        pipelines of them joined by ; && || and newlines."""
        kind = node.kind
        if kind == "command":
            return None, [self.command(node)]
        if kind == "pipeline":
            cmds = []
            for part in node.parts:
                if part.kind == "command":
                    cmds.append(self.command(part))
                elif part.kind not in ("pipe", "reservedword"):
                    return f"a {part.kind} in a pipeline", []
                elif part.kind == "reservedword":
                    return "a negated pipeline", []
            return None, cmds
        if kind == "list":
            cmds = []
            for part in node.parts:
                if part.kind == "operator":
                    if part.op not in (";", "&&", "||", "\n"):
                        return f"the operator {part.op!r}", []
                    continue
                shape, sub = self._body(part)
                if shape is not None:
                    return shape, []
                cmds.extend(sub)
            return None, cmds
        return "a nested compound command", []

    def compound(self, node):
        kind = node.kind
        if kind == "compound":
            first = node.list[0] if node.list else None
            word = getattr(first, "word", "")
            if word == "(":
                self.constructs.append((SUBSHELL, self.text[node.pos[0]:node.pos[1]][:40]))
            elif word == "{":
                self.constructs.append((GROUP, self.text[node.pos[0]:node.pos[1]][:40]))
            else:
                if getattr(first, "kind", None) == "for":
                    self.for_loop(node, first)
                self.constructs.append((COMPOUND, word or getattr(first, "kind", "") or kind))
        elif kind == "function":
            self.constructs.append((FUNCTION, self.text[node.pos[0]:node.pos[1]][:40]))
        else:
            self.constructs.append((COMPOUND, kind))

    def top(self, tree, items):
        if tree.kind == "list":
            for part in tree.parts:
                if part.kind == "operator":
                    if part.op == "&":
                        self.constructs.append((BACKGROUND, "&"))
                    if items:
                        items[-1] = (items[-1][0], part.op)
                else:
                    items.append((self.pipeline(part), None))
        else:
            items.append((self.pipeline(tree), None))

    def collect(self, trees):
        """Find every simple command and nested construct anywhere in the trees."""
        stack = list(trees)
        while stack:
            node = stack.pop()
            kind = node.kind
            if kind == "command":
                self.command(node)
            elif kind == "commandsubstitution":
                self.constructs.append((CMDSUB_NODE, self.text[node.pos[0]:node.pos[1]][:40]))
            elif kind == "processsubstitution":
                self.constructs.append((PROCSUB, self.text[node.pos[0]:node.pos[1]][:40]))
            elif kind == "pipeline":
                self.all_pipelines.append([self.command(p) if p.kind == "command" else None
                                           for p in node.parts
                                           if p.kind not in ("pipe", "reservedword")])
            elif kind == "function":
                name = getattr(node.name, "word", "") if getattr(node, "name", None) else ""
                self.functions.append((name, node.pos[0], node.pos[1]))
            stack.extend(_children(node))
