"""The analyzer's core: `analyze` and its result (`Effects`, `Write`), the tables that route a
command word (read-only programs, wrappers, runners, shells, interpreters, code builtins, the
git words that commit or push), where commands run (cd/pushd/popd followed), redirections,
recorded writes, brace and glob expansion, and `_argv`, which sends each simple command to
its handler. The handler modules are imported when a command first needs them: git.py for
git, programs.py for programs whose effect depends on their arguments (and `gateway`),
wrappers.py for wrappers, runners, shells and interpreters."""

import os
import posixpath

from gateway.paths import SPECIAL_OK, lexical, physical

# --- tables ---------------------------------------------------------------------------------
# The command knowledge (which programs are read-only, what writers write, wrappers, runners,
# shells, interpreters, builtins, git's subcommands) is data: rules/catalogue.yaml,
# rules/default.yaml and rules/effects.yaml, compiled into the policy the validator uses and
# read here through its effects model (gateway.policy.effects.Model). What stays here is
# the shell: redirections, cd following, expansions.

_OUTPUT_OPS = frozenset((">", ">>", ">|", "&>", "&>>", "<>", ">&"))
_MAX_DEPTH = 4
#: Longer commands are not parsed: bashlex needs seconds and hundreds of MB per MB of text
#: (a hook that times out gives no decision). The core asks for them anyway (GW003).
MAX_COMMAND = 65536
_MAX_CWDS = 16


class Write:
    """One write the analyzer can name."""

    __slots__ = ("target", "via", "tree", "paths", "plain", "sources", "listed")

    def __init__(self, target, via, tree, paths, plain=False, sources=None, listed=False):
        self.target = target  # the target as written
        self.via = via  # what writes it: "redirection >", "rm", "sed -i", ...
        self.tree = tree  # a whole tree may be removed or changed (rm -r, mv, find -delete)
        self.paths = paths  # absolute candidates (lexical and physical); () when unknown
        # a plain value in a configuration file (git config user.name): no code follows
        # from it, so a human may approve it (gateway.guards.engine)
        self.plain = plain
        # a copy or move: the absolute sources whose members land in the target (None: not
        # a copy, or the sources cannot be placed)
        self.sources = sources
        # the tree's entries that are written are recorded one by one as writes of their
        # own (find -delete whose selection is listed): the tree is where it works (the role
        # guards), not a write of everything below it (the protected paths)
        self.listed = listed

    def __repr__(self) -> str:
        return f"Write({self.target!r} via {self.via}{', tree' if self.tree else ''})"


class Effects:
    """What a command may change. See the module docstring."""

    __slots__ = ("command", "writes", "unknown", "git", "commit_push", "commit_push_maybe",
                 "gateway_ops", "surface_ops", "agents", "script", "unresolved", "worktree")

    def __init__(self, command=""):
        self.command = command
        self.writes = []
        self.unknown = []
        self.git = []
        self.commit_push = []
        self.commit_push_maybe = []
        self.gateway_ops = []
        self.surface_ops = []
        self.agents = []  # commands that start another agent session (claude -p ...)
        #: known writers whose targets cannot be named (a computed argument or redirection
        #: target, arguments added at run time by xargs, sed -i without files); each also
        #: has an `unknown` entry
        self.unresolved = []
        #: git subcommands that rewrite working-tree files they do not name (checkout of a
        #: branch, reset --hard, stash, apply...); each also has a `git` entry
        self.worktree = []
        self.script = None  # the top-level parse (gateway.shell.parse.Script) or None

    @property
    def readonly(self) -> bool:
        return not (self.writes or self.unknown or self.git or self.gateway_ops
                    or self.surface_ops or self.commit_push or self.commit_push_maybe)

    def reasons(self, include_gateway=True) -> list:
        """Why the command is not read-only, most concrete first."""
        out = [f"{w.via} writes {w.target!r}" for w in self.writes]
        out += [f"{g} changes the repository" for g in self.git]
        out += self.commit_push_maybe + self.surface_ops
        if include_gateway:
            out += [f"gateway {op} changes the workflow state" for op in self.gateway_ops]
        out += self.unknown
        return list(dict.fromkeys(out))

    def writes_anything(self, include_gateway=True) -> bool:
        return bool(self.reasons(include_gateway))

    def merge(self, other):
        for name in ("writes", "unknown", "git", "commit_push", "commit_push_maybe",
                     "gateway_ops", "surface_ops", "agents", "unresolved", "worktree"):
            getattr(self, name).extend(getattr(other, name))

    def as_dict(self) -> dict:
        return {"readonly": self.readonly,
                "writes": [{"target": w.target, "via": w.via, "tree": w.tree,
                            "paths": list(w.paths)} for w in self.writes],
                "unknown": list(self.unknown), "git": list(self.git),
                "commit_push": list(self.commit_push),
                "commit_push_maybe": list(self.commit_push_maybe),
                "gateway_ops": list(self.gateway_ops), "surface_ops": list(self.surface_ops),
                "agents": list(self.agents), "unresolved": list(self.unresolved),
                "worktree": list(self.worktree)}

    def __repr__(self) -> str:
        return f"Effects(readonly={self.readonly}, {self.reasons()[:3]})"


class _Env:
    """Where a command runs and how it was reached."""

    __slots__ = ("cwds", "depth", "extra", "home", "model")

    def __init__(self, cwds, depth=0, extra=False, home="/", model=None):
        self.cwds = cwds  # tuple of absolute directories, or None when unknown
        self.depth = depth
        self.extra = extra  # more arguments arrive at run time (xargs, find -exec)
        self.home = home
        self.model = model  # gateway.policy.effects.Model: what the rules say commands do

    def derive(self, cwds=False, extra=None):
        return _Env(self.cwds if cwds is False else cwds, self.depth,
                    self.extra if extra is None else extra, self.home, self.model)

    def nested(self, cwds=False):
        """The environment of code this command runs (one level deeper)."""
        return _Env(self.cwds if cwds is False else cwds, self.depth + 1, self.extra,
                    self.home, self.model)


_UNSET = object()


def analyze(command, cwd, home=None, _depth=0, _cwds=_UNSET, policy=None,
            _model=None) -> Effects:
    """The effects of running `command` (a Bash command string) in directory `cwd` (None:
    unknown, so relative write targets have no known location), as the rules of `policy`
    (the compiled Policy the validator uses; None: the built-in and user rules) describe
    the commands it runs."""
    eff = Effects(command if isinstance(command, str) else "")
    if not isinstance(command, str):
        eff.unknown.append("the command is not text")
        return eff
    home = home or posixpath.normpath(os.path.expanduser("~"))
    try:
        model = _model or (policy.effects if policy is not None else default_model())
        _analyze(eff, command, cwd, home, _depth, _cwds, model)
    except RecursionError:
        eff.unknown.append("the command nests too deeply to analyse")
        eff.commit_push_maybe.append("the command nests too deeply to analyse, so it may "
                                     "commit or push")
    except Exception as exc:  # fail closed: an analyzer bug never makes a command read-only
        eff.unknown.append(f"analysis failed ({type(exc).__name__}: {exc})")
        eff.commit_push_maybe.append("the command could not be analysed, so it may commit or "
                                     "push")
    return eff


def default_model():
    """The effects model of the built-in and user rules (for callers without a policy); the
    empty model, where nothing is known (fail closed), when the rules cannot be loaded."""
    from gateway.policy.effects import empty

    try:
        from gateway.policy.cache import load_policy

        return load_policy(None).effects
    except Exception:
        return empty()


def _analyze(eff, command, cwd, home, depth, cwds, model):
    from gateway.shell.parse import ShellParseError, parse

    if "\x00" in command:
        eff.unknown.append("the command contains a NUL character")
        return
    if len(command) > MAX_COMMAND:
        eff.unknown.append(f"the command is {len(command)} characters long, too long to "
                           f"analyse (limit {MAX_COMMAND})")
        eff.commit_push_maybe.append("the command is too long to analyse, so it may commit or "
                                     "push")
        return
    script = _validators_parse(command)
    if script is None:
        try:
            script = parse(command)
        except ShellParseError as exc:
            script = exc
    if isinstance(script, ShellParseError):
        note = f"the command cannot be parsed ({script})"
        eff.unknown.append(note)
        if _mentions_commit_push(command, model):
            eff.commit_push_maybe.append("the command cannot be parsed and mentions git and a "
                                         "subcommand that commits or pushes")
        if cwds is _UNSET:
            cwds = (posixpath.normpath(cwd),) if cwd else None
        unresolved = len(eff.unresolved)
        _fragments(eff, command, cwds, home, depth, model)
        if len(eff.unresolved) == unresolved:
            # every fragment was analysed (or is a bare test or a closing keyword): its
            # effects are what the fragments' commands do (`[[ -f x ]] && cat x` reads)
            eff.unknown.remove(note)
        return
    if script.loops and _unrolled(eff, script, cwd, home, depth, cwds, model):
        return
    if depth == 0:
        eff.script = script
    skip = _shell_only_last(script, cwd, cwds, model)
    skips = [skip] + _leading_activations(script, cwd, cwds, model)
    if script.functions:
        eff.unknown.append("the command defines a shell function")
    commands = sorted(script.all_commands, key=lambda c: c.start)
    if cwds is _UNSET:
        cwds = (posixpath.normpath(cwd),) if cwd else None
    chain = _and_chain_cwds(script, cwds, home)
    if chain is not None:
        for cmd, where in chain:
            if any(cmd is k for k in skips):
                continue
            _command(eff, cmd, _Env(where, depth, False, home, model))
        if any("${!" in w.raw or "@P}" in w.raw for c in commands for w in c.words):
            _evaluated_text(eff, [w.value for c in commands for w in c.words if w.literal],
                            _Env(cwds, depth, False, home, model))
        return
    env = _Env(_follow_cd(script, commands, cwds, home), depth, False, home, model)
    for cmd in commands:
        if any(cmd is k for k in skips):
            continue
        _command(eff, cmd, env)
    if any("${!" in w.raw or "@P}" in w.raw for c in commands for w in c.words):
        # the text evaluated is some literal word of the script (`set -- '$(cmd)'`)
        _evaluated_text(eff, [w.value for c in commands for w in c.words if w.literal], env)


def _unrolled(eff, script, cwd, home, depth, cwds, model):
    """A line with `for` loops: its effects are those of the loops' bodies once per value
    (gateway.shell.loops, the same unrolling the validator judges). False when the loops
    are not unrolled: their bodies' words stay computed (unknown)."""
    from gateway.shell import loops

    where = cwd if cwds is _UNSET else (cwds[0] if cwds and len(cwds) == 1 else None)
    unrolled = loops.unroll(script, where, home)
    if not isinstance(unrolled, loops.Unrolled):
        return False
    _analyze(eff, unrolled.text, cwd, home, depth, cwds, model)
    if depth == 0:
        eff.script = script
    return True


def _shell_only_last(script, cwd, cwds, model):
    """The last command of the line when it changes nothing but the shell that ends with
    it (gateway.shell.shellstate): an assignment or export of literal values, or the
    activation of the project's virtual environment (a regular file below where the
    command runs), else None. Its effects are none."""
    from gateway.shell import shellstate

    last = shellstate.last_command(script)
    state = shellstate.kind(last)
    if state in (shellstate.ASSIGN, shellstate.EXPORT):
        return last
    if state != shellstate.SOURCE or len(last.words) != 2:
        return None
    return last if _activation(last, cwd, cwds, model) else None


def _activation(cmd, cwd, cwds, model) -> bool:
    """Is `cmd` the activation of the project's virtual environment (`source
    .venv/bin/activate`, a regular file below where the command runs)? It puts the venv's
    bin directory first on PATH: the commands after it are the project tools judged by
    their names (project_tool), its own effects are none."""
    from gateway.shell import shellstate

    if shellstate.kind(cmd) != shellstate.SOURCE or len(cmd.words) != 2:
        return False
    arg = cmd.words[1].value
    bins = getattr(getattr(model, "policy", None), "project_bin_dirs", ())
    dirs = (posixpath.normpath(cwd),) if cwds is _UNSET and cwd else (
        cwds if cwds is not _UNSET else None)
    if not dirs or not shellstate.activation(arg, bins):
        return False
    for d in dirs:
        real_dir = os.path.realpath(d)
        path = os.path.realpath(os.path.join(d, arg))
        if not (os.path.isfile(path) and path.startswith(real_dir.rstrip("/") + "/")):
            return False
    return True


def _leading_activations(script, cwd, cwds, model) -> list:
    """The venv activations among the first items of the line, before any other command
    (`source .venv/bin/activate && pytest -q`): each has no effects of its own."""
    out = []
    for pipeline, _op in script.items:
        if len(pipeline.commands) != 1 or getattr(pipeline, "negated", False) \
                or not _activation(pipeline.commands[0], cwd, cwds, model):
            break
        out.append(pipeline.commands[0])
    return out


#: Words that, in a fragment that cannot be analysed, may name the permission surface.
_SURFACE_WORDS = (".claude", ".git", "breezing", "gateway", "settings", "hooks")


def _fragments(eff, command, cwds, home, depth, model):
    """A command bashlex cannot parse (`[[ ]]`, `time`, `case`, `for ((...))`): bash still
    runs its parts. Each top-level fragment (gateway.shell.fragments) is parsed on its own,
    after its leading compound-command words (`then`, `do`, `time`...), and its writes are
    recorded; a fragment that does not parse either makes what the command writes unknown
    (an implementer is refused). The fragments may sit in loops, so a cd among them makes
    the directory unknown."""
    from gateway.shell.fragments import after_keywords, split
    from gateway.shell.parse import ShellParseError, parse

    scripts = []
    for fragment in split(command):
        rest = after_keywords(fragment).strip()
        if rest in ("", "fi", "done", "esac", "}", ")", ";;"):
            continue  # the end of a compound command
        if rest.startswith("[[") and rest.endswith("]]") and rest.count("[[") == 1 \
                and not any(t in rest for t in ("$(", "`", "${", "<(", ">(")):
            continue  # `[[ -f x ]]`: a test, no effects (no substitution, no ${x:=y})
        for text in dict.fromkeys((fragment, after_keywords(fragment))):
            if text == command.strip():
                continue  # the whole command: it did not parse
            try:
                scripts.append(parse(text))
                break
            except (ShellParseError, RecursionError):
                continue
        else:
            why = f"a part of the command cannot be parsed ({fragment[:60]!r})"
            eff.unresolved.append(why)
            low = fragment.lower()
            if any(name in low for name in _SURFACE_WORDS):
                # its writes are not visible, and it names the permission surface
                eff.surface_ops.append(f"{why}, and it names the agent's permission "
                                       "surface (.claude, .git, the gateway's state)")
    commands = [c for sc in scripts for c in sorted(sc.all_commands, key=lambda c: c.start)]
    if any(_dir_change(c) is not None or _unsettles_cd(c) for c in commands):
        cwds = None
    env = _Env(cwds, depth, False, home, model)
    for cmd in commands:
        _command(eff, cmd, env)


def _validators_parse(command):
    """The validator's parse of exactly this text (a Script, or the ShellParseError it
    raised) when it made one, else None. The PreToolUse hook runs the validator on the
    command before analysing it, and phase 2 keeps its parses by text: a Script is a pure
    function of its text and nobody mutates it, so parsing the same text again would give
    the same answer (~0.2 ms per call). The validator is not imported for this."""
    import sys

    phase2 = sys.modules.get("gateway.validator.phase2_syntax")
    memo_get = getattr(phase2, "memo_get", None)
    return memo_get(command) if callable(memo_get) else None


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


#: Variables that decide where a later cd (or popd) lands.
_CD_VARS = frozenset(("CDPATH", "HOME", "OLDPWD", "DIRSTACK", "PWD"))
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


# --- one simple command -----------------------------------------------------------------------

def _command(eff, cmd, env):
    for r in cmd.redirects:
        _redirect(eff, r, env)
        if r.heredoc is not None and not r.heredoc[1]:
            _heredoc_substitutions(eff, r.heredoc[0], env)
    if cmd.assignments:
        eff.unknown.append(f"the assignment {cmd.assignments[0].raw!r} changes the environment "
                           "of what runs")
        if any(_var_name(a.raw) in _CD_VARS for a in cmd.assignments):
            env = env.derive(cwds=None)  # `CDPATH=.. bash -c 'cd x && ...'`
    if not cmd.words:
        return
    _argv(eff, list(cmd.words), env)


def _heredoc_substitutions(eff, body, env):
    """An unquoted here-document's `$(...)` and backquotes run when bash expands the body."""
    from gateway.shell.heredoc import substitutions

    for code in substitutions(body):
        eff.unknown.append("a here-document runs a command substitution")
        eff.merge(analyze(code, None, env.home, env.depth + 1, env.cwds, _model=env.model))


def _redirect(eff, r, env):
    if r.target is None or r.op not in _OUTPUT_OPS:
        return
    target = r.target
    if r.op == ">&" and target.literal and (target.value.isdigit() or target.value == "-"):
        return
    if not target.literal:
        value = _home_value(target, env.home)
        expanded = _expand_words([target], env) if value is None else None
        if expanded:
            for v in expanded:
                if v not in SPECIAL_OK:
                    _write(eff, v, f"redirection {r.op}", env)
            return
        if value is None:
            why = f"output redirection {r.op} to a computed target {target.raw!r}"
            eff.unknown.append(why)
            eff.unresolved.append(why)
            return
        return _write(eff, value, f"redirection {r.op}", env)
    if target.value in SPECIAL_OK or target.value.startswith("/dev/fd/"):
        return
    _write(eff, target.value, f"redirection {r.op}", env)


def _write(eff, target, via, env, tree=False, into=(), sources=None, listed=False):
    """Record a write of `target`; `into`: basenames that land inside it when it is a
    directory (cp/mv/ln/install into a directory); `sources`: what is copied there (as
    written, placed in every directory the command may run in)."""
    if target in SPECIAL_OK:
        return  # the devices the validator lets anything write (gateway.paths.SPECIAL_OK)
    if env.cwds is None and not target.startswith("/"):
        eff.writes.append(Write(target, via, tree, ()))
        eff.unknown.append(f"{via} writes {target!r} in a directory that cannot be known")
        return
    paths = []
    for d in (env.cwds or ("/",)):
        # the lexical form, and where the kernel lands (a symlink before a `..` makes them
        # differ: h/../settings.json with h -> .claude/hooks is .claude/settings.json)
        for p in dict.fromkeys((lexical(target, d), physical(target, d))):
            if into and (target.endswith("/") or os.path.isdir(p)):
                paths.extend(posixpath.join(p, b) for b in into)
            else:
                paths.append(p)
    placed = None
    if sources is not None and env.cwds:
        placed = tuple(dict.fromkeys(lexical(s, d) for s in sources for d in env.cwds))
    eff.writes.append(Write(target, via, tree, tuple(dict.fromkeys(paths)), sources=placed,
                            listed=listed))


_MAX_EXPANSIONS = 256


def _brace(text):
    """Bash brace expansion of `text` ({a,b}, nested; {x..y} is not expanded), or None."""
    depth = 0
    start = -1
    for i, c in enumerate(text):
        if c == "{":
            if depth == 0:
                start = i
            depth += 1
        elif c == "}" and depth:
            depth -= 1
            if depth == 0:
                body = text[start + 1:i]
                parts, d, cur = [], 0, ""
                for ch in body:
                    if ch == "," and d == 0:
                        parts.append(cur)
                        cur = ""
                        continue
                    d += ch == "{"
                    d -= ch == "}"
                    cur += ch
                parts.append(cur)
                if len(parts) < 2:
                    if ".." in body:
                        return None
                    continue  # {x} stays as it is
                out = []
                for part in parts:
                    for rest in (_brace(text[:start] + part + text[i + 1:]) or [None]):
                        if rest is None:
                            return None
                        out.append(rest)
                        if len(out) > _MAX_EXPANSIONS:
                            return None
                return out
    return [text]


#: How many directory entries the expansion of one command's globs may look at: `/*/*/*/*`
#: walks the whole file system (/proc included), seconds to hours in a hook.
_MAX_GLOB_ENTRIES = 50000


def _glob(pattern, budget):
    """glob.glob(pattern, include_hidden=True) for an absolute `pattern`, or None once more
    than budget[0] directory entries would be looked at (the budget is shared and spent)."""
    import fnmatch
    import glob as globmod

    dirname, basename = posixpath.split(pattern)
    if not globmod.has_magic(pattern):
        if basename:
            return [pattern] if os.path.lexists(pattern) else []
        return [pattern] if os.path.isdir(dirname) else []
    if dirname != pattern and globmod.has_magic(dirname):
        dirs = _glob(dirname, budget)
        if dirs is None:
            return None
    else:
        dirs = [dirname]
    out = []
    for d in dirs:
        if not basename:  # a trailing slash: directories only
            if os.path.isdir(d):
                out.append(posixpath.join(d, ""))
            continue
        if not globmod.has_magic(basename):
            if os.path.lexists(posixpath.join(d, basename)):
                out.append(posixpath.join(d, basename))
            continue
        names = []
        try:
            with os.scandir(d) as entries:
                for entry in entries:
                    budget[0] -= 1
                    if budget[0] < 0:
                        return None
                    names.append(entry.name)
        except OSError:
            continue
        pattern_py = _bash_bracket(basename)
        if pattern_py is None:
            return None  # a bracket expression not translated: the matches are not known
        out.extend(posixpath.join(d, n) for n in fnmatch.filter(names, pattern_py))
    return out


_POSIX_CLASSES = {"alpha": "a-zA-Z", "digit": "0-9", "alnum": "a-zA-Z0-9", "upper": "A-Z",
                  "lower": "a-z", "xdigit": "0-9A-Fa-f", "word": "a-zA-Z0-9_",
                  "blank": " \t", "space": " \t\n\r\f\v"}


def _bash_bracket(pattern):
    """`pattern` with bash's bracket expressions in fnmatch's spelling: `[^x]` is `[!x]`,
    `[[:alpha:]]` is `[a-zA-Z]`; None for a class fnmatch cannot be given (punct, print...)."""
    if "[" not in pattern:
        return pattern
    out = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c != "[":
            out.append(c)
            i += 1
            continue
        j = i + 1
        body = []
        if j < n and pattern[j] in "!^":
            body.append("!")
            j += 1
        if j < n and pattern[j] == "]":
            body.append("]")
            j += 1
        closed = False
        while j < n:
            if pattern.startswith("[:", j):
                end = pattern.find(":]", j + 2)
                if end < 0:
                    return None
                cls = _POSIX_CLASSES.get(pattern[j + 2:end])
                if cls is None:
                    return None
                body.append(cls)
                j = end + 2
                continue
            if pattern.startswith(("[=", "[."), j):
                return None
            if pattern[j] == "]":
                closed = True
                break
            body.append(pattern[j])
            j += 1
        if not closed:
            out.append("[[]")  # an unclosed [ is a literal [
            i += 1
            continue
        out.append("[" + "".join(body) + "]")
        i = j + 1
    return "".join(out)


def _expand_words(words, env):
    """The words bash passes after brace and pathname expansion (matched on the file system
    now, hidden names too), when every computed word is only a glob or a brace; else None
    (also when matching would look at more than _MAX_GLOB_ENTRIES directory entries)."""
    out = []
    budget = [_MAX_GLOB_ENTRIES]
    computed = False
    for w in words:
        if w.literal:
            out.append(w.value)
            continue
        kinds = {k for k, _ in (getattr(w, "issues", None) or ())}
        if not kinds or not kinds <= {"glob", "brace"} or env.cwds is None:
            return None
        computed = True
        texts = _brace(w.value) if "brace" in kinds else [w.value]
        if texts is None:
            return None
        for t in texts:
            if not any(c in t for c in "*?["):
                out.append(t)
                continue
            matches = []
            for d in env.cwds:
                pattern = t if t.startswith("/") else posixpath.join(d, t)
                try:
                    found = _glob(pattern, budget)
                except (OSError, ValueError):
                    return None
                if found is None:
                    return None
                found.sort()
                for f in found:
                    rel = f if t.startswith("/") else posixpath.relpath(f, d)
                    if rel not in matches:
                        matches.append(rel)
            out.extend(matches or [t])  # no match: bash passes the pattern itself
            if len(out) > _MAX_EXPANSIONS:
                return None
    return out if computed else None


def _literal(eff, words, what) -> bool:
    bad = [w for w in words if not w.literal]
    if bad:
        eff.unknown.append(f"{what} has a computed argument {bad[0].raw!r}")
        return False
    return True


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


_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-")


def _words(text):
    """re.findall(r"[a-z][a-z0-9_-]*", text) without `re`: in each run of [a-z0-9_-], the
    match starts at its first letter and runs to its end."""
    runs = "".join(c if c in _WORD_CHARS else " " for c in text).split()
    return [w for w in (r.lstrip("0123456789_-") for r in runs) if w]


def _mentions_commit_push(text, model) -> bool:
    """Text that names git and a subcommand that commits or pushes (code the analyzer cannot
    see into: an unparseable command, an interpreter's inline code)."""
    if not isinstance(text, str) or "git" not in text.lower():
        return False
    words = set(_words(text.lower()))
    if "git" in words:
        return bool(words & model.git_commit_words)
    return any(w.startswith("git-") and w[4:] in model.git_commit_words for w in words)


def gateway_paths():
    """Absolute paths of the running gateway's own command (trusted as `gateway`)."""
    import sys

    out = {posixpath.join(posixpath.dirname(sys.executable), "gateway")}
    if sys.argv and posixpath.basename(sys.argv[0]) == "gateway" and sys.argv[0].startswith("/"):
        out.add(posixpath.normpath(sys.argv[0]))
    return out


def trusted_program(word, model=None) -> bool:
    """A command word that names a system program (or the gateway itself), not a file an
    agent could have written: a bare name, or an absolute path in a system directory (the
    rules' `system_bin_dirs`)."""
    if "/" not in word:
        return True
    norm = posixpath.normpath(word)
    dirs = (model or default_model()).system_dirs
    return posixpath.dirname(norm) in dirs or norm in gateway_paths()


def project_tool(word, model) -> bool:
    """A project tool run by path (.venv/bin/pytest, node_modules/.bin/tsc; a venv's python,
    a link to its base interpreter): a relative path in one of the rules'
    `project_bin_dirs`, judged by its name as the validator judges it."""
    norm = posixpath.normpath(word)
    return not norm.startswith(("/", "..")) and posixpath.dirname(norm) in getattr(
        getattr(model, "policy", None), "project_bin_dirs", ())


def _argv(eff, words, env):
    if env.depth > _MAX_DEPTH:
        eff.unknown.append("commands nested too deeply")
        eff.commit_push_maybe.append("commands nested too deeply to see whether they commit "
                                     "or push")
        return
    first = words[0]
    if first.raw == "[":
        first = words[0] = _W("[")  # the test builtin, not a glob
    for w in words:
        if "${!" in w.raw or "@P}" in w.raw:
            # indirection and prompt expansion evaluate text as a name with a subscript or
            # as a prompt: a $(...) inside it runs (`set -- '$(cmd)'; echo "${1@P}"`); the
            # text usually sits in a literal word of another command (_evaluated_text)
            why = f"{w.raw!r} evaluates text that may run a command"
            eff.unknown.append(why)
            eff.unresolved.append(why)
            eff.commit_push_maybe.append(why)
            return
    if first.literal and first.value in _SUBSCRIPT_EVALUATORS and any(
            w.literal and "[" in w.value and ("$(" in w.value or "`" in w.value)
            for w in words[1:]):
        # `test -v 'a[$(cmd)]'`, `printf -v 'a[$(cmd)]' x`: bash evaluates the subscript,
        # and its command substitution runs
        why = f"{first.value} evaluates an array subscript that runs a command"
        eff.unknown.append(why)
        eff.unresolved.append(why)
        eff.commit_push_maybe.append(why)
        _evaluated_text(eff, [w.value for w in words[1:] if w.literal], env)
        return
    model = env.model
    if not first.literal:
        eff.unknown.append(f"the command name {first.raw!r} is computed")
        for w in words[1:]:  # `$GIT commit`, `$(echo git) push`
            if w.literal and w.value.lower() in model.git_commit_words:
                eff.commit_push_maybe.append(f"the computed command {first.raw!r} with "
                                             f"{w.value!r} may be git {w.value.lower()}")
                break
        return
    word = first.value
    name = posixpath.basename(word) if "/" in word else word
    lname = name.lower()
    if (lname in model.agents and [w.value for w in words[1:]] not in model.agent_info) or any(
            w.literal and "@anthropic-ai/claude-code" in w.value for w in words[1:]):
        # a new session: no agent_id, its own session_id, so no registered role
        eff.agents.append(f"{name} starts another agent session")
    spec = model.program(lname)
    if spec is None and getattr(model, "policy", None) is not None \
            and model.policy.command(lname) is not None \
            and (trusted_program(word, model) or project_tool(word, model)):
        from gateway.guards.effects import subcommands

        found = subcommands.descend(model, lname, words)
        if found == subcommands.INFO:
            return  # prints its version or help
        if found is not None:
            # a subcommand entry that says how to read it (`pip list`, `cargo tree`)
            spec, rest = found
            words = [_W(spec.name)] + list(rest)
    dashed = None
    if spec is None and lname.startswith("git-") and len(lname) > 4:
        dashed = model.program("git")  # git-commit (a git program run directly) is git commit
        if dashed is not None and dashed.effects == "git":
            spec = dashed
    kind = spec.effects if spec is not None else None
    if kind == "git":
        # a git elsewhere than the system directories is judged as git too (for commit and
        # push) and is never read-only
        from gateway.guards.effects.git import _git

        if not trusted_program(word, model):
            eff.unknown.append(f"{word!r} is not the system git")
        if dashed is None:
            return _git(eff, words, env)
        return _git(eff, [first, _W(name[4:])] + words[1:], env)
    if kind == "gateway":
        from gateway.guards.effects.programs import _gateway

        return _gateway(eff, words, env, trusted_program(word, model), spec)
    if not trusted_program(word, model) and not project_tool(word, model):
        eff.unknown.append(f"{word!r} runs a program that is not a system command (its "
                           "effects are not visible)")
        return
    argv = [lname] + [w.value for w in words[1:]]
    if lname in model.runners:
        from gateway.guards.effects.wrappers import _runner

        return _runner(eff, lname, words, env)
    if lname in model.wrappers:
        from gateway.guards.effects.wrappers import _wrapper

        return _wrapper(eff, lname, words, env)
    if kind == "read":
        return
    if lname in model.code_builtins:
        eff.unknown.append(f"{lname} runs code or changes how later commands run")
        return
    if kind is not None:
        check = _handler(kind)
        writer = writes_arguments(spec)
        expanded = _expand_words(words[1:], env)
        if expanded is not None:  # globs and braces: the words bash will pass
            words = [first] + [_W(v) for v in expanded]
            argv = [lname] + expanded
        if env.extra and not pure(spec):
            eff.unknown.append(f"{lname} gets more arguments at run time (xargs, find -exec)")
        if pure(spec) and not writer:
            # no option of it writes or runs a program: whatever a computed word expands to
            # (`echo "$HOME"`), it reads and prints; its literal options are still judged
            return check(eff, [lname] + [w.value for w in words[1:] if w.literal], env, spec)
        if not _literal(eff, words[1:], lname):
            # a writer (or a command that writes with these options) whose targets may be
            # any of the computed words (an unquoted one may even be several)
            trial = Effects()
            check(trial, [lname] + [w.value if w.literal else _COMPUTED for w in words[1:]],
                  env, spec)
            if writer or trial.writes or trial.unresolved:
                bad = next(w for w in words[1:] if not w.literal)
                eff.unresolved.append(f"{lname} has a computed argument {bad.raw!r}, so what "
                                      "it writes is not known")
            if writer:  # still record the targets that are known
                known = [w.value if w.literal else _home_value(w, env.home) for w in words[1:]]
                check(eff, [lname] + [v for v in known if v is not None], env, spec)
            return
        if env.extra == "xargs":
            trial = Effects()
            check(trial, argv, env, spec)
            eff.merge(trial)
            if writer or trial.writes or trial.unresolved:
                eff.unresolved.append(f"xargs gives {lname} more arguments at run time, so "
                                      "what it writes is not known")
            return
        return check(eff, argv, env, spec)
    if lname in model.shells:
        from gateway.guards.effects.wrappers import _shell

        return _shell(eff, lname, words, env)
    if lname in model.interpreters or lname.startswith(model.interpreter_prefixes):
        from gateway.guards.effects.wrappers import _interpreter

        return _interpreter(eff, lname, words, env)
    eff.unknown.append(f"{name} is not known to be read-only")


#: Handlers whose arguments are the files written (their computed words are targets).
_WRITING_KINDS = frozenset(("copy", "move", "link", "install", "dd"))


def writes_arguments(spec) -> bool:
    """Does the entry write the files its arguments name (rm, cp, tee, mkdir, dd...)?"""
    return spec is not None and (spec.effects in _WRITING_KINDS or (
        spec.effects == "flags" and (spec.writes or spec.edit)))


def pure(spec) -> bool:
    """An entry that no option makes write or run a program: it reads and prints only, so
    arguments added at run time (xargs, find -exec) change nothing of that."""
    return spec.effects == "read" or (
        spec.effects == "flags" and not (spec.writes or spec.edit or spec.write_flags
                                         or spec.output_flags or spec.unsafe_flags))


def may_write(model, name) -> bool:
    """May the program `name` write files its arguments name, with some option (sed -i,
    sort -o, perl -i as well as the writers)? Unknown programs count as such."""
    spec = model.program(name)
    if spec is None:
        return True
    return writes_arguments(spec) or bool(spec.write_flags or spec.output_flags) \
        or spec.effects in ("sed", "awk", "find", "xxd", "uniq")


def _handler(kind):
    if kind == "flags":
        return _flags
    from gateway.guards.effects import programs

    return programs.HANDLERS[kind]


def options_known(eff, spec, args, words) -> bool:
    """Record as unknown an option of `args` (parsed from `words`) the entry marks unsafe
    or does not list in its allowlist; True when every option is described as safe."""
    from gateway.shell import argv as argvmod

    label = spec.name
    checked = argvmod.Args()
    checked.options = [o for o in args.options if o.name not in spec.output_flags]
    bad = argvmod.first_unsafe(checked, spec.unsafe_flags, [
        w for w in words if w.split("=", 1)[0] not in spec.output_flags])
    if bad:
        eff.unknown.append(f"{label} {bad}: not a read-only use of {label}")
        return False
    if spec.safe_flags is not None:
        for opt in args.options:
            if opt.name in spec.output_flags:
                continue
            if opt.name not in spec.safe_flags and not argvmod.abbreviates_only(
                    opt.name, spec.options, spec.safe_flags):
                eff.unknown.append(f"{label} {opt.name}: an option the rules do not "
                                   "describe")
                return False
    return True


def parse_options(spec, words):
    """The words parsed as the entry reads them (output flags take a value too)."""
    from gateway.shell import argv as argvmod

    return argvmod.parse(words, spec.value_flags | spec.output_flags, spec.long_options,
                         spec.optional_flags, spec.options_first, spec.plus_commands)


def _flags(eff, argv, env, spec):
    """An entry whose effects follow from its own lists: the options it writes through
    (write_flags, output_flags), the positional paths it writes (writes/edit, the whole tree
    with a tree_flag), and every option not described as safe (unsafe_flags, outside the
    safe_flags allowlist) unknown."""
    from gateway.shell import argv as argvmod

    label = spec.name
    words = argv[1:]
    if len(words) == 1 and words[0] in spec.info_flags:
        return
    args = parse_options(spec, words)
    outputs = spec.write_flags | spec.output_flags
    for opt in args.options:
        if opt.name in outputs or (opt.name.startswith("--") and any(
                argvmod.long_matches(opt.name, f) for f in outputs if f.startswith("--"))):
            if opt.value is not None:
                _write(eff, opt.value, f"{label} {opt.name}", env)
            else:
                eff.unknown.append(f"{label} {opt.name} writes a file it does not name")
    options_known(eff, spec, args, words)
    pos = args.positionals
    if (spec.args == "none" and pos) or (spec.max_positionals is not None
                                         and len(pos) > spec.max_positionals):
        eff.unknown.append(f"{label} with more arguments than the rules describe")
    if spec.writes or spec.edit:
        targets = pos[1:] if spec.args == "text_then_paths" else pos
        tree = any(o.name in spec.tree_flags for o in args.options)
        for p in targets:
            _write(eff, p, label, env, tree=tree)
        if not targets:
            eff.unknown.append(f"{label} without a target")


def _evaluated_text(eff, values, env):
    """The command substitutions inside literal text that bash will evaluate after all
    (an array subscript, a prompt string), analysed as the commands they are."""
    from gateway.shell.heredoc import substitutions

    for v in values:
        if "$(" in v or "`" in v:
            for code in substitutions(v):
                eff.merge(analyze(code, None, env.home, env.depth + 1, env.cwds, _model=env.model))


#: Builtins that evaluate a name with an array subscript given as an argument.
_SUBSCRIPT_EVALUATORS = frozenset(("test", "[", "printf", "unset", "wait", "declare", "typeset",
                                   "local", "read", "let", "export", "readonly", "mapfile",
                                   "readarray", "getopts", "[[", "builtin", "command"))


#: Stands for a computed word when a command is tried with its literal words only.
_COMPUTED = "\ufffdcomputed\ufffd"


class _W:
    """A literal word made up by the analyzer (git-commit -> git commit)."""

    __slots__ = ("value", "raw")
    literal = True

    def __init__(self, value):
        self.value = value
        self.raw = value


# --- options (shared by the handlers) ---------------------------------------------------------

def _split(argv, value_flags=frozenset()):
    """(options [(name, value)], positionals) in getopt style; `--` ends options. A long
    option is also taken by any prefix of it, as getopt_long does (`--target` is
    --target-directory, `--out` is --output): the prefix of a value flag takes its value."""
    from gateway.shell import argv as argvmod

    longs = [f for f in value_flags if f.startswith("--")]
    if longs:
        words = []
        for k, w in enumerate(argv):
            if w == "--":
                words.extend(argv[k:])
                break
            name, eq, value = w.partition("=")
            if name.startswith("--") and len(name) >= 3 and name not in value_flags:
                full = next((f for f in sorted(longs) if f.startswith(name)), None)
                if full is not None:
                    w = full + eq + value
            words.append(w)
        argv = words
    args = argvmod.parse(argv, frozenset(value_flags))
    return [(o.name, o.value) for o in args.options], list(args.positionals)


def _has(opts, *names):
    return any(o == n or (n.startswith("--") and _long(o, n)) for o, _ in opts for n in names)


def _values(opts, *names):
    return [v for o, v in opts for n in names
            if v is not None and (o == n or (n.startswith("--") and _long(o, n)))]


def _long(opt, name):
    """`opt` is the long option `name` or a prefix of it (getopt_long takes `--r` for
    --recursive when it is unique; taken as a match either way)."""
    o = opt.split("=", 1)[0]
    return o == name or (len(o) >= 3 and o.startswith("--") and name.startswith(o))
