"""Phase 2: shell syntax that must never be auto-allowed, found in the parse.

The command is parsed once here (gateway.shell.parse); if bashlex cannot parse it, phase 3
reports that. Otherwise every construct bash would evaluate beyond plain words is looked for
anywhere in the tree (inside quotes, substitutions and subshells too): substitutions,
expansions of every kind, assignments, here-docs, redirections that write, background jobs,
subshells and compound commands. Lists and pipelines are not refused here when compound
commands are enabled: each segment is judged on its own later.
"""

from gateway.shell import parse as shell
from gateway.shell import words as w
from gateway.validator import redirects

PHASE = "2"

_WORD_CODES = {
    w.CMDSUB: ("GW201", "command substitution"),
    w.BACKTICK: ("GW201", "backtick command substitution"),
    w.PARAM: ("GW202", "parameter expansion"),
    w.ANSI_C: ("GW203", "ANSI-C quoting $'...'"),
    w.LOCALE: ("GW203", "locale quoting $\"...\""),
    w.ARITH: ("GW204", "arithmetic expansion"),
    w.GLOB: ("GW207", "glob"),
    w.BRACE: ("GW208", "brace expansion"),
    w.TILDE: ("GW209", "tilde expansion"),
    w.HISTORY: ("GW210", "history expansion"),
    w.UNTERMINATED: ("GW216", "unterminated quote"),
    w.PLACEHOLDER: ("GW212", "here-document text outside its own quotes"),
}

_CONSTRUCT_CODES = {
    shell.SUBSHELL: ("GW206", "subshell"),
    shell.GROUP: ("GW206", "command group { ...; }"),
    shell.COMPOUND: ("GW206", "compound command"),
    shell.FUNCTION: ("GW206", "function definition"),
    shell.BACKGROUND: ("GW214", "background job (&)"),
    shell.PROCSUB: ("GW205", "process substitution"),
    shell.CMDSUB_NODE: ("GW201", "command substitution"),
    shell.HEREDOC: ("GW212", "here-document"),
}

_OUTPUT_OPS = frozenset((">", ">>", ">|", "&>", "&>>", "<>", ">&"))
_DEV_NULL = "/dev/null"


# Parses of recent texts, for long-running callers (`check --batch`, `serve`): a Script is a
# pure function of the text and nothing downstream mutates it, and bashlex is most of the cost
# of a decision. Bounded in entries and in the length of the texts it keeps; a longer text
# (up to the hooks' MAX_COMMAND) is kept in a slot of its own, the last two only, so that one
# hook call that judges it twice (PreToolUse: the validator, then the guards' analysis) parses
# it once.
_MEMO = {}
_MEMO_ENTRIES = 1024
_MEMO_MAX_TEXT = 2048
_MEMO_LONG = {}
_MEMO_LONG_ENTRIES = 2


def memo_get(text):
    """The kept parse of exactly this text (a Script or a ShellParseError), or None."""
    hit = _MEMO.get(text)
    return hit if hit is not None else _MEMO_LONG.get(text)


def parse(ctx):
    """Parse ctx.text once; the result (or the error) stays on ctx."""
    if ctx.script is None and ctx.parse_error is None:
        text = ctx.text
        hit = memo_get(text)
        if hit is None:
            try:
                hit = shell.parse(text)
            except shell.ShellParseError as exc:
                hit = exc
                # only its message and kind are used: keep no parser frames alive
                hit.__traceback__ = hit.__context__ = hit.__cause__ = None
            memo, limit = ((_MEMO, _MEMO_ENTRIES) if len(text) <= _MEMO_MAX_TEXT
                           else (_MEMO_LONG, _MEMO_LONG_ENTRIES))
            if len(memo) >= limit:
                memo.pop(next(iter(memo)), None)  # the oldest entry
            memo[text] = hit
        if isinstance(hit, shell.ShellParseError):
            ctx.parse_error = hit
        else:
            ctx.script = hit
    return ctx.script


def _redirect_finding(r):
    """Why a redirection is not acceptable, or None. Reads from files are judged as paths
    later (phase 5); here-strings are literal text."""
    if r.target is None:  # descriptor duplication: 2>&1, >&2, <&0
        return None
    if r.op in ("<", "<<<"):
        return None
    if r.op in _OUTPUT_OPS:
        if r.target.literal and r.target.value == _DEV_NULL:
            return None
        return f"output redirection {r.op} {r.target.raw}"
    return f"redirection {r.op}"


#: Programs whose standard input is data they copy or print, never code or arguments:
#: a here-document with a quoted delimiter (its text taken literally) feeding one of them is
#: plain input (`cat > notes.md <<'EOF'`), judged as the command it feeds.
DATA_STDIN = frozenset(("cat", "tee"))


def _data_heredocs(script) -> bool:
    """Is every here-document of the line one whose text is literal (a quoted delimiter:
    no expansion or substitution runs in it) on the standard input of a DATA_STDIN program
    named as written?"""
    found = False
    for cmd in script.all_commands:
        for r in cmd.redirects:
            if r.op not in ("<<", "<<-"):
                continue
            if r.heredoc is None or not r.heredoc[1] or not cmd.words \
                    or not cmd.words[0].literal or cmd.words[0].raw not in DATA_STDIN:
                return False
            found = True
    return found


def _edit_hint(ctx, r):
    """What would allow a plain `> FILE` / `>> FILE` (a write like `tee FILE`): acceptEdits."""
    if r.op not in redirects.MODELLED_OPS or not r.target.literal:
        return ""
    from gateway.validator import modes

    return (f": it writes {r.target.value!r}; in {modes.normalize(ctx.mode)} mode edits are "
            "the human's (acceptEdits allows it into a file of the project)")


def _word(ctx, word, argument=False, cache_ok=False):
    """The ask for an expansion in `word`, or None. In exposure mode a tilde whose expansion
    is known ($HOME) is no reason: segment judging expands it; neither are globs and braces
    in a command's argument (`argument`), which segment judging expands on the file system
    (gateway.validator.globs), nor parameters whose values are no secret
    (gateway.validator.textparams)."""
    if argument and any(kind == w.PARAM for kind, _ in word.issues):
        from gateway.validator import textparams

        if textparams.only_text(word):
            return None  # segment judging expands it (gateway.validator.textparams)
    globbed = argument and any(kind in (w.GLOB, w.BRACE) for kind, _ in word.issues)
    for kind, _detail in word.issues:
        if kind == w.TILDE and ctx.exposure and (
                w.expand_tilde(word, ctx.home) is not None
                or globbed and word.pattern.startswith("~")):
            continue
        if kind == w.TILDE and cache_ok and not ctx.exposure and _cache_word(ctx, word):
            continue  # `~/` below a dependency cache: segment judging expands it
        if globbed and kind in (w.GLOB, w.BRACE):
            continue
        if kind == w.TILDE:
            secret = _tilde_secret(ctx, word)
            if secret:
                return secret
        code, title = _WORD_CODES[kind]
        return ctx.ask(PHASE, code, f"{title} in {word.raw!r}")
    return None


def _cache_word(ctx, word) -> bool:
    """A `~/...` argument below a dependency cache (gateway.validator.caches): judged as the
    path it is, read or written, like any absolute path."""
    from gateway.validator import caches

    return caches.home_word(ctx, word) is not None


def _tilde_secret(ctx, word):
    """The ask that names the real reason for a `~/...` word whose value is known: a secret
    file (`cat ~/.ssh/id_ed25519`: "a secret file", not "tilde expansion"), or a path outside
    the project (`head ~/.bashrc`). None when neither is so (the project below $HOME): the
    tilde itself is the reason then. The decision is the same ask either way."""
    value = w.expand_tilde(word, ctx.home)
    if not value or not value.startswith("/"):
        return None
    import os

    from gateway.paths import is_secret, resolve

    res = resolve(value, "/", ctx.roots)
    secret = is_secret((res.lex, res.real), ctx.policy)
    if secret and not os.path.isdir(res.real):
        return ctx.ask("5", "GW503", f"{word.raw!r} is a secret file ({secret})",
                       rule=f"secrets:{secret}")
    if res.status not in ("inside", "special"):
        return ctx.ask("5", "GW501", f"{word.raw!r} resolves outside the project ({res.lex})")
    return None


#: characters an inert variable's value may hold: a word of plain text, nothing the shell or
#: the program reads as a path list, an option or code
_INERT_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.,=:-")


def _inert(ctx, word) -> bool:
    """An assignment before a command that changes only what the command prints
    (rules: inert_env): a literal value matching one of the variable's globs."""
    if not word.literal or "=" not in word.value:
        return False
    name, value = word.value.split("=", 1)
    globs = ctx.policy.inert_env.get(name)
    if not globs or not value or not set(value) <= _INERT_CHARS or value.startswith("-"):
        return False
    from gateway.paths import fnmatchcase

    return any(fnmatchcase(value, g) for g in globs)


def command_env(ctx, word):
    """(name, value) of an assignment before a command that is the tool's configuration
    (rules: command_env), judged by the command's check as if the hook's environment held it
    (gateway.validator.segment); None for any other assignment, or a value that is not a
    literal."""
    if not word.literal or "=" not in word.value:
        return None
    name, value = word.value.split("=", 1)
    if name not in ctx.policy.command_env or "\x00" in value:
        return None
    return name, value


def run(ctx):
    script = parse(ctx)
    if script is None:
        ctx.step(PHASE, "skip", "", "not parsed; phase 3 decides")
        return None
    data_docs = None
    for kind, detail in script.constructs:
        if ctx.exposure and kind == shell.BACKGROUND:
            continue  # `cmd &` reads what cmd reads: the command is judged below
        if kind == shell.HEREDOC:
            if data_docs is None:
                data_docs = _data_heredocs(script)
            if data_docs:
                continue  # literal text on the standard input of cat or tee: data
        code, title = _CONSTRUCT_CODES[kind]
        return ctx.ask(PHASE, code, f"{title}: {detail}")
    from gateway.shell import shellstate

    last = shellstate.last_command(script)
    ctx.shell_last = last if shellstate.kind(last) is not None else None
    for cmd in script.all_commands:
        state = shellstate.kind(cmd)
        if cmd is ctx.shell_last and state == shellstate.ASSIGN:
            ctx.step(PHASE, "info", "", f"{cmd.text!r} is the last command: its assignments "
                     "reach no command")
            continue
        for a in cmd.assignments:
            if cmd.words and _inert(ctx, a):
                ctx.step(PHASE, "info", "", f"{a.raw}: changes only what the command prints "
                         "(inert_env)")
                continue
            if cmd.words and command_env(ctx, a) is not None:
                ctx.step(PHASE, "info", "", f"{a.raw}: the command's configuration, judged "
                         "with it (command_env)")
                continue
            if not cmd.words:
                return ctx.ask(PHASE, "GW211", f"variable assignment {a.raw}: it changes the "
                               "environment of the commands after it, as an assignment before "
                               "a command does (FOO=1 cmd)")
            return ctx.ask(PHASE, "GW211", f"variable assignment {a.raw}")
        if len(cmd.words) > 1 and cmd.words[0].raw == "export" and \
                not cmd.words[1].value.startswith("-") and cmd is not ctx.shell_last:
            return ctx.ask(PHASE, "GW211", f"{cmd.text[:60]!r} changes the environment of the "
                           "commands after it, as an assignment before a command does (FOO=1 "
                           "cmd)", rule="export")
        # a tilde below a dependency cache is expanded in a command's arguments, not in a
        # directory change's (`cd ~/.cargo && ...` asks as before)
        cache_ok = bool(cmd.words) and cmd.words[0].raw not in ("cd", "pushd", "popd")
        for k, word in enumerate(cmd.words):
            if k and any(kind == w.PARAM for kind, _ in word.issues):
                from gateway.validator import textparams

                if textparams.public_data(ctx, cmd, k, word):
                    continue  # `echo $CARGO_TARGET_DIR`: printed (segment judging)
            verdict = _word(ctx, word, argument=k > 0, cache_ok=k > 0 and cache_ok)
            if verdict is not None:
                return verdict
        for r in cmd.redirects:
            if r.target is None:
                continue
            if data_docs and r.op in ("<<", "<<-"):
                continue  # a literal here-document feeding cat or tee (_data_heredocs)
            if ctx.exposure and r.op in _OUTPUT_OPS:
                continue  # a write, not a read: the guards judge what it writes
            verdict = _word(ctx, r.target)
            if verdict is not None:
                return verdict
            why = None if ctx.exposure else _redirect_finding(r)
            if why and not redirects.modelled(r, ctx.mode):
                return ctx.ask(PHASE, "GW213", why + _edit_hint(ctx, r))
    segments = sum(len(p.commands) for p, _ in script.items)
    if segments > 1 and not ctx.policy.compound:
        return ctx.ask(PHASE, "GW215", "lists and pipelines are not allowed by this policy "
                       "(compound.enabled: false)")
    if segments > ctx.policy.max_segments:
        return ctx.ask(PHASE, "GW217", f"{segments} segments; the limit is "
                       f"{ctx.policy.max_segments} (limits.max_segments)")
    ctx.step(PHASE, "pass")
    return None
