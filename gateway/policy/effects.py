"""The effects model: what the rules say about what commands do, in the form the guards'
analyzer (gateway.guards.effects) reads. Built from the same compiled policy the validator
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

from gateway.policy.compiled import CommandSpec


class Model:
    """The effects model of one Policy."""

    __slots__ = ("policy", "programs", "wrappers", "runners", "shells", "interpreters",
                 "interpreter_prefixes", "code_builtins", "agents", "agent_info",
                 "version_words", "system_dirs", "git_commands", "git_commits",
                 "git_publishes", "git_commit_words", "git_worktree", "git_read",
                 "git_unsafe_options", "git_output_options", "git_global_value", "git_global_flags",
                 "git_global_risky", "_specs")

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
        self.git_read = frozenset(git.get("read", ()))
        self.git_unsafe_options = tuple(git.get("unsafe_options", ()))
        self.git_output_options = tuple(git.get("output_options", ()))
        spec = policy.command("git")
        extra = frozenset(git.get("global_value_flags", ()))
        flags = frozenset(git.get("global_flags", ()))
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

    def git_sub(self, sub):
        """The catalogue's entry for `git SUB` when it has `effects`, else None."""
        git = self.policy.command("git")
        if git is None or git.subcommands is None or sub not in git.subcommands:
            return None
        spec = git.subcommands[sub]
        return spec if spec.effects else None


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
