"""What the analyzer's handlers share with its core (issue 26: below both, so the handler
modules git.py, programs.py and wrappers.py never import _core): the result (`Effects`,
`Write`), the word (`_W`) and environment (`_Env`) of a command, recorded writes (`_write`),
options read against a catalogue entry (`_flags`, `options_known`, `parse_options`), the
program checks (`trusted_program`, `may_write`), and `DISPATCH`, through which a handler has
the core analyse the commands it runs (a wrapper's command, find -exec's, a shell's -c
text)."""

import os
import posixpath

from gateway.paths import SPECIAL_OK, lexical, physical


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


def default_model():
    """The effects model of the built-in and user rules (for callers without a policy); the
    empty model, where nothing is known (fail closed), when the rules cannot be loaded."""
    from gateway.policy.effects import empty

    try:
        from gateway.policy.cache import load_policy

        return load_policy(None).effects
    except Exception:
        return empty()


#: Variables that decide where a later cd (or popd) lands.
_CD_VARS = frozenset(("CDPATH", "HOME", "OLDPWD", "DIRSTACK", "PWD"))


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


def _literal(eff, words, what) -> bool:
    bad = [w for w in words if not w.literal]
    if bad:
        eff.unknown.append(f"{what} has a computed argument {bad[0].raw!r}")
        return False
    return True


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


#: Handlers whose arguments are the files written (their computed words are targets).
_WRITING_KINDS = frozenset(("copy", "move", "link", "install", "dd"))


def writes_arguments(spec) -> bool:
    """Does the entry write the files its arguments name (rm, cp, tee, mkdir, dd...)?"""
    return spec is not None and (spec.effects in _WRITING_KINDS or (
        spec.effects == "flags" and (spec.writes or spec.edit)))


def may_write(model, name) -> bool:
    """May the program `name` write files its arguments name, with some option (sed -i,
    sort -o, perl -i as well as the writers)? Unknown programs count as such."""
    spec = model.program(name)
    if spec is None:
        return True
    return writes_arguments(spec) or bool(spec.write_flags or spec.output_flags) \
        or spec.effects in ("sed", "awk", "find", "xxd", "uniq")


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

    if spec.flag_style == "words":
        return argvmod.parse_words(words, spec.value_flags | spec.output_flags)
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


class _Dispatch:
    """The core's entry points for the handlers: `argv` (a simple command's words) and
    `analyze` (a command string), set by gateway.guards.effects._core when it is imported.
    A handler only ever runs from the core's dispatch, so both are set by then."""

    __slots__ = ("argv", "analyze")

    def __init__(self):
        self.argv = None
        self.analyze = None


DISPATCH = _Dispatch()
