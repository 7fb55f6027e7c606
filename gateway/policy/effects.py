"""The effects model: what the rules say about what commands do, in the form the guards'
analyzer (gateway.effects.analysis) reads. Built from the same compiled policy the validator
uses (rules/catalogue.yaml, rules/default.yaml, rules/effects.yaml), once per Policy.

A command word is routed by the data alone:

* a runner (never read-only itself, the command it runs is analysed): the `wrappers` of
  default.yaml marked `runner: true`, and effects.yaml's `runners`;
* a wrapper (runs the command after its own options): the other `wrappers`;
* a program with an `effects` field: the catalogue's entry, else effects.yaml's `programs`
  (a name is described in one of them, never both: tests/agreement/test_drift.py);
* a code builtin (`shell_builtins` of default.yaml and effects.yaml's `code_builtins`);
* a shell (effects.yaml `shells`), an interpreter (the `interpreters` table's names and
  aliases, effects.yaml `interpreters` and `interpreter_prefixes`);
* anything else is unknown: never read-only.

This module is on the hook path: standard library only, no pydantic, no YAML.
"""

from gateway.policy.spec import CommandSpec


class Model:
    """The effects model of one Policy."""

    __slots__ = ("policy", "programs", "wrappers", "runners", "shells", "interpreters",
                 "interpreter_prefixes", "code_builtins", "agents", "agent_info",
                 "version_words", "system_dirs", "git_commands", "git_commits",
                 "git_publishes", "git_commit_words", "git_worktree",
                 "git_global_value", "git_global_flags",
                 "git_global_risky", "git_global_optional", "git_global_cwd", "_git_subs", "_git_data",
                 "_specs")

    def __init__(self, policy):
        data = policy.data
        eff = data.get("effects") or {}
        self.policy = policy
        self.programs = eff.get("programs") or {}
        wrappers = data.get("wrappers") or {}
        runners = dict(eff.get("runners") or {})
        runners.update((n, w) for n, w in wrappers.items() if w.get("runner"))
        #: name -> (options taking a value, whether the arguments are joined as shell code)
        self.runners = {n: (frozenset(w.get("value_flags", ())), bool(w.get("joined")))
                        for n, w in runners.items()}
        #: name -> options taking a value
        self.wrappers = {n: frozenset(w.get("value_flags", ())) for n, w in wrappers.items()
                         if not w.get("runner")}
        self.shells = frozenset(eff.get("shells", ()))
        interps = set(eff.get("interpreters", ()))
        for name, spec in (data.get("interpreters") or {}).items():
            interps.add(name)
            interps.update(spec.get("aliases", ()))
        self.interpreters = frozenset(interps - self.shells)
        self.interpreter_prefixes = tuple(eff.get("interpreter_prefixes", ()))
        self.code_builtins = frozenset(data.get("shell_builtins", ())) | frozenset(
            eff.get("code_builtins", ()))
        self.agents = frozenset(eff.get("agents", ()))
        self.agent_info = tuple(list(a) for a in eff.get("agent_info", ()))
        self.version_words = frozenset(eff.get("version_words", ()))
        self.system_dirs = frozenset(d.rstrip("/") or "/"
                                     for d in data.get("system_bin_dirs", ()))
        git = eff.get("git") or {}
        self.git_commands = frozenset(git.get("commands", ()))
        self.git_commits = frozenset(git.get("commits", ()))
        self.git_publishes = frozenset(git.get("publishes", ()))
        self.git_commit_words = self.git_commits | self.git_publishes
        self.git_worktree = frozenset(git.get("worktree", ()))
        self.git_global_optional = frozenset(git.get("global_optional_flags", ()))
        self._git_data = git.get("subcommands") or {}
        self._git_subs = {}
        spec = policy.command("git")
        extra = frozenset(git.get("global_value_flags", ()))
        flags = frozenset(git.get("global_flags", ()))
        #: global options that change git's directory (git -C DIR)
        self.git_global_cwd = spec.global_cwd_flags if spec is not None else frozenset()
        if spec is not None:
            self.git_global_risky = frozenset(spec.global_unsafe_flags)
            self.git_global_value = spec.global_value_flags | self.git_global_risky | extra
            self.git_global_flags = spec.global_flags | flags
        else:
            self.git_global_risky = frozenset()
            self.git_global_value = extra
            self.git_global_flags = flags
        self._specs = {}

    def program(self, name):
        """The entry describing `name`'s effects (a CommandSpec with `effects` set), or
        None: the catalogue's entry when it has one, else effects.yaml's."""
        spec = self.policy.command(name)
        if spec is not None:
            return spec if spec.effects else None
        spec = self._specs.get(name)
        if spec is None:
            raw = self.programs.get(name)
            if raw is None:
                return None
            spec = self._specs[name] = CommandSpec(name, raw)
        return spec if spec.effects else None

    def git_forms(self, sub):
        """What rules/effects.yaml's `git.subcommands` say of `git SUB` (a GitSubcommand),
        or None; built on first use."""
        got = self._git_subs.get(sub)
        if got is None and sub in self._git_data:
            raw = self._git_data[sub]
            if isinstance(raw, str):  # as the cache keeps it (gateway.policy.cache)
                from gateway import _fastjson as json

                raw = json.loads(raw)
                if not isinstance(raw, dict):
                    raise ValueError(f"git subcommand {sub!r} is not a mapping")
            got = self._git_subs[sub] = GitSubcommand(self, sub, raw)
        return got

    def git_sub(self, sub):
        """The catalogue's entry for `git SUB` when it has `effects`, else None."""
        git = self.policy.command("git")
        if git is None or git.subcommands is None or sub not in git.subcommands:
            return None
        spec = git.subcommands[sub]
        return spec if spec.effects else None


class GitSubcommand:
    """One git subcommand's forms (rules/effects.yaml `git.subcommands`), ready to match."""

    __slots__ = ("name", "options_first", "implied", "implied_before_options",
                 "runs_command", "unmatched", "outputs", "forms", "value_flags", "options",
                 "plain_keys")

    def __init__(self, model, name, data):
        self.name = name
        self.options_first = bool(data.get("options_first"))
        self.implied = data.get("implied")
        self.implied_before_options = bool(data.get("implied_before_options"))
        self.runs_command = frozenset(data.get("runs_command", ()))
        self.unmatched = data.get("unmatched")
        out = data.get("outputs") or {}
        #: file options, tree options, the options that stop the write into the current
        #: directory (None: there is none), the scope options -> file, the default file
        self.outputs = (frozenset(out.get("file", ())), frozenset(out.get("tree", ())),
                        frozenset(out["cwd_unless"]) if out.get("cwd_unless") else None,
                        dict(out.get("scopes") or {}), out.get("default"))
        #: configuration keys whose value runs nothing and leads to no code (user.name):
        #: setting one in the repository's config is a human's call, not a hard deny
        self.plain_keys = frozenset(k.lower() for k in out.get("plain_keys", ()))
        entry = _catalogue_entry(model.policy, [name])
        base_values = entry.value_flags if entry is not None else frozenset()
        own = data.get("options")
        if own is None and entry is not None and entry.options:
            own = entry.options
        self.options = _git_longs(own) if own else None
        self.forms = tuple(GitForm(model, self, f, base_values) for f in data.get("forms", ()))
        #: every option taking the next word in some form (and the outputs'), to parse the
        #: arguments when no form matches
        values = set(base_values)
        for f in self.forms:
            values |= f.value_flags
        self.value_flags = frozenset(values | self.outputs[0] | self.outputs[1])


    def unlisted(self, args):
        """The first option in `args` (as git resolves it) that no form whose first word
        fits lists, or None (the arguments fail the forms otherwise: operands, a first
        word)."""
        from gateway.shell import argv as argvmod

        words = list(args)
        forms = [f for f in self.forms if f.first is None]
        if words and not words[0].startswith("-"):
            fits = [f for f in self.forms if f.first is not None and words[0] in f.first]
            if fits:
                forms, words = fits, words[1:]
        listed = set()
        for f in forms:
            listed |= f.safe or set()
        parsed = argvmod.parse(words, self.value_flags, self.options, frozenset(),
                               self.options_first)
        return next((o.name for o in parsed.options if o.name not in listed), None)


class GitForm:
    """A form of a git subcommand: an allowlist of its first word, options and operands."""

    __slots__ = ("effect", "first", "bare", "safe", "value_flags", "optional_flags",
                 "requires", "max_positionals", "min_positionals", "after_dashdash",
                 "plain_values", "fallback", "options", "options_first")

    def __init__(self, model, sub, data, base_values):
        self.effect = data["effect"]
        first = data.get("first")
        self.first = frozenset(first) if first is not None else None
        self.bare = bool(data.get("bare"))
        safe = set(data.get("safe_flags", ()))
        values = set(data.get("value_flags", ())) | set(base_values)
        optional = set(data.get("optional_flags", ()))
        options = data.get("options")
        like = data.get("like")
        if like:
            entry = _catalogue_entry(model.policy, like)
            if entry is None:  # fail closed: the form cannot match
                safe = None
            else:
                values |= entry.value_flags | entry.output_flags
                optional |= entry.optional_flags
                if entry.safe_flags is not None:
                    safe |= (entry.safe_flags - frozenset(entry.unsafe_flags)
                             - entry.output_flags - entry.write_flags)
                if options is None and entry.options:
                    options = entry.options
        if safe is not None:
            safe -= set(data.get("unsafe_flags", ()))
        #: None: the form never matches (its `like` entry is missing)
        self.safe = frozenset(safe) if safe is not None else None
        self.value_flags = frozenset(values)
        self.optional_flags = frozenset(optional)
        self.requires = frozenset(data.get("requires", ()))
        self.max_positionals = data.get("max_positionals")
        self.min_positionals = data.get("min_positionals", 0)
        self.after_dashdash = bool(data.get("after_dashdash"))
        self.plain_values = bool(data.get("plain_values"))
        self.fallback = data.get("fallback", "worktree")
        if options is None:
            options = sub.options
        self.options = _git_longs(options) if options else None
        self.options_first = sub.options_first

    def parse(self, args):
        """The arguments read with this form's option arities, whatever the options are
        (for the files a use outside every form still names)."""
        from gateway.shell import argv as argvmod

        words = list(args)
        if self.first is not None and words and words[0] in self.first:
            words = words[1:]
        return argvmod.parse(words, self.value_flags, self.options, self.optional_flags,
                             self.options_first)

    def match(self, args):
        """The arguments (after the subcommand) parsed as this form reads them
        (gateway.shell.argv.Args, the first word left out), or None when they are not
        this form: a first word not listed, an option not listed (a long option written
        shorter is resolved against the complete list, as git does, when there is one), a
        required option missing, too many or too few operands."""
        from gateway.shell import argv as argvmod

        if self.safe is None:
            return None
        words = list(args)
        if self.first is not None:
            if not words:
                return argvmod.Args() if self.bare else None
            if words[0] not in self.first:
                return None
            words = words[1:]
        parsed = argvmod.parse(words, self.value_flags, self.options, self.optional_flags,
                               self.options_first)
        for opt in parsed.options:
            if opt.name not in self.safe:
                return None
            if self.plain_values and opt.name in self.value_flags and (
                    not opt.value or opt.value.startswith("-")):
                return None
        if self.requires and not any(o.name in self.requires for o in parsed.options):
            return None
        n = len(parsed.positionals)
        if self.after_dashdash:
            if parsed.rest is None:
                return None
            n -= len(parsed.rest)
        if n < self.min_positionals or (self.max_positionals is not None
                                        and n > self.max_positionals):
            return None
        return parsed


def _git_longs(options):
    """The long options git's parser accepts, for resolving abbreviations: the complete list
    (`--git-completion-helper-all`) and the negations it does not print: an option named
    `no-X` is also given as `--no-no-X` (`git apply --no-n` is ambiguous: --no-numstat or
    --no-no-add). A name too many only makes more prefixes ambiguous: never resolved."""
    longs = {o for o in options if o.startswith("--")}
    longs |= {"--no-" + o[2:] for o in longs if o.startswith("--no-")}
    return frozenset(longs)


def _catalogue_entry(policy, path):
    """The catalogue's `git A B` entry (a CommandSpec) for path [A, B], or None."""
    spec = policy.command("git")
    for word in path:
        if spec is None or spec.subcommands is None or word not in spec.subcommands:
            return None
        spec = spec.subcommands[word]
    return spec


class _Empty:
    """Stands for a policy when the rules cannot be loaded: nothing is known (fail closed)."""

    data = {}

    def command(self, name):
        return None


EMPTY = None


def empty() -> Model:
    global EMPTY
    if EMPTY is None:
        EMPTY = Model(_Empty())
    return EMPTY
