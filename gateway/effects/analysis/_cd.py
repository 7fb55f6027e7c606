"""Where commands run: cd, pushd and popd followed through a script (`_follow_cd`, and
the `&&` chains whose later commands run only where the cd succeeded), what unsettles that
(CDPATH, eval, an assignment inside an expansion), and `~` in a word (`_home_value`). Part of
the effects analyzer's core (gateway.effects.analysis._core), which imports it."""

import os

from gateway.effects.analysis._base import _CD_VARS
from gateway.paths import lexical, physical

_MAX_CWDS = 16


_DIR_BUILTINS = ("cd", "pushd", "popd")
#: cd's own options (also in clusters: -Pe); pushd takes -n, +N and -N.
_CD_OPTION_LETTERS = frozenset("LPe@")


def _name_index(words):
    """Index of the command name after `builtin` / `command` prefixes (with -p and --), or
    None when a prefix has another option (`command -v cd` prints, it does not move)."""
    i, n = 0, len(words)
    while i < n and words[i].literal and words[i].value in ("builtin", "command"):
        prefix = words[i].value
        i += 1
        while i < n and words[i].literal and (words[i].value == "--" or (
                prefix == "command" and words[i].value == "-p")):
            i += 1
        if i < n and words[i].literal and words[i].value.startswith("-"):
            return None
    return i if i < n else None


def _dir_change(cmd):
    """The words from cd/pushd/popd on when `cmd` runs one (also behind `builtin` or
    `command`), else None. A non-literal command name is None too: it unsettles (below)."""
    words = cmd.words
    i = _name_index(words)
    if i is not None and words[i].literal and words[i].value in _DIR_BUILTINS:
        return words[i:]
    return None
#: Builtins that run code in the current shell (which may cd) or make it expand aliases.
_MOVES_UNSEEN = frozenset(("eval", "source", ".", "trap", "enable", "fc", "alias", "coproc",
                           "function"))
#: Builtins that set the variables their arguments name.
_SETS_VARS = frozenset(("declare", "typeset", "local", "readonly", "export", "read", "printf",
                        "mapfile", "readarray", "shopt", "getopts", "unset", "set"))


def _var_name(text):
    """The variable an assignment or a name argument sets: `CDPATH[0]+=x` -> CDPATH."""
    return text.split("=", 1)[0].split("[", 1)[0].rstrip("+")


def _assigns_in_expansion(raw):
    """Does the text assign a variable while it is expanded: `${CDPATH:=..}`,
    `${X=..}`, `$(( DIRSTACK[1]=5 ))`? (Any `=` inside `${...}` or `$((...))`.)"""
    for opener, closer in (("${", "}"), ("$((", "))")):
        start = raw.find(opener)
        while start >= 0:
            end = raw.find(closer, start + len(opener))
            if "=" in raw[start:len(raw) if end < 0 else end]:
                return True
            start = raw.find(opener, start + 1)
    return False


def _unsettles_cd(cmd):
    """True when `cmd` may move the shell or change where a later cd lands in a way not
    followed here: code run in the current shell (eval, source, a trap, a mapfile callback),
    a computed command name, or a change to CDPATH/HOME/OLDPWD/DIRSTACK (assignment,
    export/declare/read/printf -v, a nameref, a `${VAR:=...}` expansion, PS4 under set -x)
    or to cdable_vars/expand_aliases. What runs after it is in an unknown directory."""
    for a in cmd.assignments:
        if _var_name(a.raw) in _CD_VARS or _var_name(a.raw) == "PS4" \
                or _assigns_in_expansion(a.raw):
            return True
    raws = [w.raw for w in cmd.words] + [r.target.raw for r in cmd.redirects
                                         if r.target is not None]
    raws += [r.heredoc[0] for r in cmd.redirects if r.heredoc and not r.heredoc[1]]
    if any(_assigns_in_expansion(raw) for raw in raws):
        return True
    words = cmd.words
    if not words:
        return False
    i = _name_index(words)
    if i is None:
        return True
    first = words[i]
    if not first.literal and first.raw != "[":
        return True
    name = first.value
    if name in _MOVES_UNSEEN:
        return True
    args = words[i + 1:]
    for w in args:
        if w.literal and (_var_name(w.value) in _CD_VARS
                          or w.value in ("cdable_vars", "expand_aliases")):
            return True
    if name in ("mapfile", "readarray") and any(
            w.literal and w.value.startswith("-") and "C" in w.value for w in args):
        return True  # -C CALLBACK runs in this shell
    if name in ("declare", "typeset", "local") and any(
            w.literal and w.value[:1] in "-+" and "n" in w.value for w in args):
        return True  # a nameref: assigning to it assigns to the variable it names
    if name in _SETS_VARS:
        return any(not w.literal for w in args)
    return False


def _cd_args(words):
    """(operand words, no_move) of a cd/pushd/popd: the options removed. no_move: pushd -n."""
    name = words[0].value
    out = []
    no_move = False
    options = True
    for w in words[1:]:
        v = w.value if w.literal else None
        if options and v == "--":
            options = False
            continue
        if options and v is not None and v.startswith("-") and len(v) > 1 \
                and not v[1:].isdigit():
            if name == "cd" and set(v[1:]) <= _CD_OPTION_LETTERS:
                continue
            if name in ("pushd", "popd") and v == "-n":
                no_move = True
                continue
        out.append(w)
    return out, no_move


def _cd_targets(cmd, words, dirs, home, moved):
    """Where the cd/pushd/popd `words` (of `cmd`) may land from any of `dirs`: [] when it
    stays among the directories this script has been in, or fails; None when unknown.
    `moved`: an earlier cd of this script ran, so $OLDPWD and the directory stack hold only
    directories of this script (before that, $OLDPWD is wherever the shell was). A pushd -n
    does not move, but a later popd may land where it pointed: its target counts."""
    if cmd.assignments:
        return None  # CDPATH=... cd x, HOME=... cd
    name = words[0].value
    args, _no_move = _cd_args(words)
    if name == "popd":
        return []  # back to a directory pushed by this script (the stack starts with $PWD)
    if not args:
        return [home] if name == "cd" else []
    value = args[0].value if args[0].literal else _home_value(args[0], home)
    if value is None:
        return None  # cd "$D": not known
    if value == "-":
        return [] if moved else None
    if name == "pushd" and value[:1] in "+-" and value[1:].isdigit():
        return []  # rotates the directory stack, which holds only this script's directories
    if value.startswith("-") and len(value) > 1:
        return []  # an unknown option: the cd fails
    if os.environ.get("CDPATH") and not value.startswith(("/", "./", "../")) \
            and value not in (".", ".."):
        return None  # searched in $CDPATH (inherited by the agent's shell) first
    # bash's cd is logical by default and physical with -P (or when the logical path does
    # not exist): both are possible
    return [t for d in dirs for t in (lexical(value, d), physical(value, d))]


#: Constructs a plain `&&` chain may contain: they run in a subshell or feed input and
#: cannot move the shell the chain runs in.
_CHAIN_CONSTRUCTS = frozenset(("cmdsub_node", "procsub", "heredoc"))


def _and_chain_cwds(script, cwds, home):
    """[(command, directories it may run in)] for a script that is a plain `&&` chain
    (`cd src/auth && make && echo x > y`, a trailing `;` allowed): no subshell, group,
    compound command, function, background job or other operator. There a command after
    `cd X &&` runs only when the cd succeeded, so in X -- not also where the script started,
    as the union of _follow_cd must assume. pushd/popd and `cd -` are followed with their
    history; a command substitution runs where its command does. None when the script is
    not such a chain (or a move cannot be followed)."""
    if cwds is None or script.functions or any(
            kind not in _CHAIN_CONSTRUCTS for kind, _ in script.constructs):
        return None
    items = script.items
    if any(op != "&&" for _, op in items[:-1]) or items[-1][1] not in (None, ";", "\n"):
        return None
    dirs, prev, stack = tuple(cwds), None, []
    out = []
    top = set()
    for pipeline, _ in items:
        cmds = pipeline.commands
        if any(c is None for c in cmds) or pipeline.negated:
            return None  # `! cd x && ...` goes on exactly when the cd failed
        for c in cmds:
            out.append((c, dirs))
            top.add(id(c))
            if dirs is not None and _unsettles_cd(c):
                dirs = None  # every later command runs in an unknown directory
        if dirs is None:
            continue
        if len(cmds) != 1:
            if any(_dir_change(c) is not None for c in cmds):
                return None  # the last part may run in this shell (lastpipe): use the union
            continue
        words = _dir_change(cmds[0])
        if words is None:
            continue
        if cmds[0].assignments:
            return None
        name = words[0].value
        args, no_move = _cd_args(words)
        if no_move:
            return None
        if name == "popd":
            if args or not stack:
                return None
            prev, dirs = dirs, stack.pop()
            continue
        if args and args[0].literal and args[0].value == "-" and name == "cd":
            if prev is None:
                return None  # $OLDPWD from before this script
            prev, dirs = dirs, prev
            continue
        targets = _cd_targets(cmds[0], words, dirs, home, False)
        if not targets:
            return None  # unknown, or a move that needs more history: use the union
        if name == "pushd":
            stack.append(dirs)
        prev, dirs = dirs, tuple(dict.fromkeys(targets))
        if len(dirs) > _MAX_CWDS:
            return None
    # commands inside substitutions run where the command holding them runs
    nested = [c for c in script.all_commands if id(c) not in top]
    for n in nested:
        if _dir_change(n) is not None or _unsettles_cd(n):
            return None  # it moves the rest of its substitution: use the union
        holder = next((where for c, where in out if id(c) in top
                       and c.start <= n.start < c.end), False)
        if holder is False:
            return None
        out.append((n, holder))
    return out


def _follow_cd(script, commands, cwds, home):
    """Every directory a command of this script may run in. A cd can fail, and subshells,
    groups and functions make the order uncertain, so the union is used: each cd (in source
    order) adds its target relative to every directory known before it. A cd inside a loop
    or a function may run any number of times: unknown. None = unknown."""
    if cwds is None:
        return None
    dirs = list(cwds)
    moved = False
    loops = any(kind in ("compound", "function") for kind, _ in script.constructs) \
        or script.functions
    for cmd in commands:
        if _unsettles_cd(cmd):
            return None
        words = _dir_change(cmd)
        if words is None:
            continue
        if loops:
            return None
        targets = _cd_targets(cmd, words, dirs, home, moved)
        if targets is None:
            return None
        moved = True
        for t in targets:
            if t not in dirs:
                dirs.append(t)
        if len(dirs) > _MAX_CWDS:
            return None
    return tuple(dirs)


def _home_value(word, home):
    """The value of a word whose only expansion is a leading `~` or `$HOME`/`${HOME}` (the
    home directory: `~/.claude/settings.json`, "$HOME/.claude"), `~+` or `$PWD` (the
    directory the command runs in: `./...`), or `$"text"`; else None."""
    issues = getattr(word, "issues", None)
    if not issues or not home.startswith("/") \
            or any(c in home for c in " \t\n*?[]{}~$`\"'\\"):
        return None
    kinds = [k for k, _ in issues]
    value = word.value
    raw = word.raw
    if kinds == ["tilde"]:
        if raw[:1] == "~" and (value == "~" or value.startswith("~/")):
            return home + value[1:]
        if raw[:2] == "~+" and (value == "~+" or value.startswith("~+/")):
            return "." + value[2:]  # $PWD: where the command runs
        return None
    if kinds == ["locale"] and raw.startswith('$"') and value.startswith("$") \
            and not any(c in value[1:] for c in "$`\\"):
        return value[1:]  # $"text": text, translated by a message catalogue (there is none)
    # ${HOME} unquoted also reports its brace
    if value.count("$") != 1 or not (kinds == ["param"] or (
            kinds == ["param", "brace"] and value.count("{") == 1)):
        return None
    for form, base in (("${HOME}", home), ("$HOME", home), ("${PWD}", "."), ("$PWD", ".")):
        rest = value[len(form):]
        if value.startswith(form) and raw.lstrip('"').startswith(form) \
                and not (rest[:1].isalnum() or rest[:1] == "_"):
            return base + rest
    return None
