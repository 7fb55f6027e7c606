"""Parameter expansions that are only text: `echo "$HOME"`, `ls "$VIRTUAL_ENV/bin"`.

A word whose only expansions are parameters of this list is expanded with the values the
command will see (the hook runs in the client's environment, which the shell inherits;
$HOME is the payload's, $PWD the directory the segment runs in) and judged as the words bash
passes. Any other parameter may hold a secret (a token in the environment: `echo
$GITHUB_TOKEN`) or is not known: phase 2 asks (GW202). A word that would split into several
words or holds a glob after expansion asks too.
"""

import os

#: Parameters whose values are no secret and are the same in the hook and in the shell.
TEXT_PARAMETERS = frozenset((
    "HOME", "USER", "LOGNAME", "SHELL", "PATH", "PWD", "LANG", "LANGUAGE", "LC_ALL",
    "LC_CTYPE", "TERM", "HOSTNAME", "TMPDIR", "EDITOR", "VISUAL", "PAGER", "VIRTUAL_ENV",
    "CONDA_DEFAULT_ENV", "CONDA_PREFIX", "PYTHONPATH", "NODE_ENV", "GOPATH", "GOROOT",
    "GOBIN", "CARGO_HOME", "RUSTUP_HOME", "JAVA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME",
    "XDG_DATA_HOME", "XDG_STATE_HOME", "SHLVL", "?", "$", "#", "0"))


#: Programs whose operands are only printed: never opened, run, or read as a place
DATA_PROGRAMS = frozenset(("echo", "printf"))


def data_operand(ctx, cmd, k) -> bool:
    """Is word `k` of `cmd` an operand `echo` or `printf` only prints? echo's every
    argument (its options -n/-e/-E change only the output); printf's after a literal
    format (`printf '%s\\n' "$X"`), never the format or an option's value."""
    if k == 0 or not cmd.words or not cmd.words[0].literal:
        return False
    name = cmd.words[0].raw
    if name not in DATA_PROGRAMS:
        return False
    if name == "printf":
        fmt = cmd.words[1] if len(cmd.words) > 1 else None
        return k >= 2 and fmt is not None and fmt.literal and not fmt.value.startswith("-")
    return True


def public_names(ctx):
    """The variables that hold no secret by what they are: printenv's `public_names` in
    the catalogue (one list for both)."""
    spec = ctx.policy.command("printenv")
    return tuple(getattr(spec, "public_names", None) or ()) if spec is not None else ()


def public_data(ctx, cmd, k, word) -> bool:
    """`echo $CARGO_TARGET_DIR`: a word `echo`/`printf` only prints whose parameters are all
    public names (a place or a setting: printenv's public_names). Its value is printed and
    nothing else: no program opens it as a path or reads it as an option."""
    if not data_operand(ctx, cmd, k):
        return False
    from gateway.paths import fnmatchcase

    globs = public_names(ctx)
    names = _names(word)
    return bool(names) and all(any(fnmatchcase(n, g) for g in globs) for n in names)


def data_value(ctx, word, home):
    """The text bash prints for a public_data word (the hook's environment is the shell's),
    or None when it may become a glob (a value with *, ? or [ lists file names)."""
    from gateway.shell import params

    names = _names(word) or set()
    env = {k: v for k, v in ctx.env.items() if k in names}
    vals = params.values(word.raw, env, home)
    if vals is None or any(c in v for v in vals for c in "*?["):
        return None
    return " ".join(vals)


def _names(word):
    from gateway.shell import params
    from gateway.shell import words as sw

    kinds = {k for k, _ in word.issues}
    if sw.PARAM not in kinds or not kinds <= {sw.PARAM, sw.BRACE}:
        return None
    if sw.BRACE in kinds and word.raw.count("{") != word.raw.count("${"):
        return None
    return params.names(word.raw)


def only_text(word) -> bool:
    """Are the word's parameters all in TEXT_PARAMETERS (and nothing else expanded but the
    braces of ${...})?"""
    from gateway.shell import params
    from gateway.shell import words as sw

    kinds = {k for k, _ in word.issues}
    if sw.GLOB in kinds and all(d == "?" for k, d in word.issues if k == sw.GLOB) \
            and word.raw.count("?") == word.raw.count("$?"):
        kinds.discard(sw.GLOB)  # `$?` is a parameter, not a glob
    if sw.PARAM not in kinds or not kinds <= {sw.PARAM, sw.BRACE}:
        return False
    if sw.BRACE in kinds and word.raw.count("{") != word.raw.count("${"):
        return False
    names = params.names(word.raw)
    return names is not None and names <= TEXT_PARAMETERS


def value(word, home, cwd, environ=None):
    """The one word bash passes for `word`, or None (several words, a glob, unknown).
    `environ` is the environment the command runs in (the context's: `gateway serve`'s own
    is not the client's); None is os.environ."""
    from gateway.shell import params

    environ = os.environ if environ is None else environ
    env = {k: v for k, v in environ.items() if k in TEXT_PARAMETERS}
    if home:
        env["HOME"] = home
    env["PWD"] = cwd
    env.update({"?": "0", "$": str(os.getpid()), "#": "0"})
    vals = params.values(word.raw, env, home)
    if not vals or len(vals) != 1 or any(c in vals[0] for c in "*?["):
        return None
    return vals[0]
