"""A catalogue entry (CommandSpec) and its subcommands, built from plain data: what the
validator (gateway.policy.compiled.Policy.command) and the effects model
(gateway.policy.effects) read about one command. Below both, so neither imports the other.

This module is on the hook path: standard library only, no pydantic, no YAML.
"""


_SHARED_KEYS = ("value_flags", "text_flags", "unsafe_flags", "write_flags", "safe_flags",
                "config_flags")


def with_shared(data: dict, shared) -> dict:
    """A subcommand entry with the options every subcommand of its tool accepts (the
    tool's `shared` block) added: one place in the catalogue for go's build flags or
    cargo's --config, applied to every subcommand (and theirs)."""
    if not shared or data.get("own_options"):
        return data  # another program reads these options (go tool cover)
    out = dict(data)
    if shared.get("flag_style") and not out.get("flag_style"):
        out["flag_style"] = shared["flag_style"]
    for key in _SHARED_KEYS:
        extra = shared.get(key)
        if extra is None:
            continue
        if key == "safe_flags" and out.get("safe_flags") is None:
            continue  # an entry without an allowlist gets none from here
        out[key] = list(out.get(key) or ()) + [f for f in extra if f not in (out.get(key) or ())]
    inner = out.get("shared")
    out["shared"] = dict(shared) if not inner else with_shared(inner, shared)
    return out


class CommandSpec:
    """A catalogue entry (or a subcommand entry) ready for lookups."""

    __slots__ = ("name", "args", "max_positionals", "writes", "edit", "value_flags", "text_flags",
                 "unsafe_flags", "write_flags", "safe_flags", "check", "recursive", "response_files",
                 "revision_paths", "prints_contents", "config_flags", "into_directory", "options",
                 "subcommands", "default_subcommand", "fallback_subcommand",
                 "subcommand_required",
                 "global_value_flags", "global_text_flags", "global_unsafe_flags",
                 "global_cwd_flags", "global_flags", "anywhere_value_flags", "has_global",
                 "optional_flags", "long_options", "info_flags", "names_only", "shared", "formats",
                 "subcommand_help", "effects", "output_flags", "tree_flags", "options_first",
                 "flag_style", "resumes", "dry_run_after_dashes",
                 "plus_commands", "dry_run", "fix_flags", "state_op", "state_op_with",
                 "registers", "surface_op", "delegate", "build_tool", "public_names")

    def __init__(self, name: str, data: dict):
        self.name = name
        self.args = data.get("args", "paths")
        self.max_positionals = data.get("max_positionals")
        self.writes = bool(data.get("writes", False))
        self.edit = bool(data.get("edit", False))
        self.value_flags = frozenset(data.get("value_flags", ()))
        self.text_flags = frozenset(data.get("text_flags", ()))
        self.unsafe_flags = tuple(data.get("unsafe_flags", ()))
        self.write_flags = frozenset(data.get("write_flags", ()))
        # options whose value is only ever glued (-w16, --width=16): never the next word
        self.optional_flags = frozenset(data.get("optional_flags", ()))
        safe = data.get("safe_flags")
        # an allowlist: the options listed, with those taking a value; every long option the
        # entry knows, for resolving GNU abbreviations (--rec is --recursive)
        self.safe_flags = None
        self.long_options = None
        if safe is not None:
            self.safe_flags = (frozenset(safe) | self.value_flags | self.text_flags
                               | self.write_flags | self.optional_flags)
            self.long_options = frozenset(
                o for o in self.safe_flags | frozenset(self.unsafe_flags)
                | frozenset(data.get("config_flags", ())) if o.startswith("--"))
        # a word that alone prints the version or the help (`python3 --version`)
        self.info_flags = frozenset(data.get("info_flags", ("--version", "--help")))
        # `git log --help`: a subcommand and one of these words prints that subcommand's help
        self.subcommand_help = frozenset(data.get("subcommand_help", ()))
        # the positional paths are looked at, not read: names and metadata only (ls, stat)
        self.names_only = data.get("reads") == "names"
        # git's complete list of long options (`--git-completion-helper-all`): abbreviations
        # resolve against it
        self.options = tuple(data.get("options", ()))
        if self.options and self.safe_flags is not None:
            self.long_options = frozenset(o for o in self.options if o.startswith("--"))
        self.check = data.get("check")
        self.recursive = data.get("recursive")
        self.response_files = bool(data.get("response_files", False))
        self.revision_paths = bool(data.get("revision_paths", False))
        self.prints_contents = data.get("prints_contents")
        self.config_flags = tuple(data.get("config_flags", ()))
        self.into_directory = bool(data.get("into_directory", False))
        # options every subcommand accepts (already part of this entry's own lists)
        self.shared = data.get("shared")
        # a formatter's or fixer's file types (base-name globs): what it rewrites in a tree
        self.formats = tuple(data.get("formats", ()))
        # the effects analysis: how it reads this entry (None: not known to be read-only),
        # options whose value is written even where the validator asks for them, and options
        # that make the positional writes cover whole trees
        self.effects = data.get("effects")
        self.output_flags = frozenset(data.get("output_flags", ()))
        self.tree_flags = frozenset(data.get("tree_flags", ()))
        # the options end at the first operand (no GNU permutation: `less a.txt -N` reads a
        # file named -N), and a word `+TEXT` among them is a command the program runs (less)
        self.options_first = bool(data.get("options_first", False))
        # "words": Go's flag package reads every word as one option (`-deps`, `--json`)
        self.flag_style = data.get("flag_style")
        self.plus_commands = bool(data.get("plus_commands", False))
        # options that make the command only print what it would do (git clean -n): a
        # subcommand_ask rule naming just the subcommand leaves that form to this entry
        self.dry_run = frozenset(data.get("dry_run", ()))
        # options that continue or end an operation under way (git rebase --continue): a
        # subcommand_ask rule naming just the subcommand leaves the form `SUB OPTION` here
        self.resumes = frozenset(data.get("resumes", ()))
        self.dry_run_after_dashes = bool(data.get("dry_run_after_dashes", False))
        # options that make a checker rewrite what it checks (prettier --write)
        self.fix_flags = frozenset(data.get("fix_flags", ()))
        # the gateway's own workflow commands (rules/workflow.yaml)
        self.state_op = data.get("state_op")
        self.state_op_with = frozenset(data.get("state_op_with", ()))
        self.registers = bool(data.get("registers", False))
        self.surface_op = data.get("surface_op")
        self.delegate = bool(data.get("delegate", False))
        # a build tool whose words are steps (checks/jvm.py): goals, properties, recipes,
        # wrapper
        self.build_tool = data.get("build_tool")
        self.public_names = tuple(data.get("public_names", ()))
        subs = data.get("subcommands")
        self.subcommands = _SubSpecs(name, subs, self.shared) if subs is not None else None
        self.default_subcommand = data.get("default_subcommand")
        self.fallback_subcommand = data.get("fallback_subcommand")
        self.subcommand_required = bool(data.get("subcommand_required", False))
        g = data.get("global") or {}
        self.has_global = bool(data.get("global"))
        self.global_value_flags = frozenset(g.get("value_flags", ()))
        self.global_text_flags = frozenset(g.get("text_flags", ()))
        self.global_unsafe_flags = tuple(g.get("unsafe_flags", ()))
        self.global_cwd_flags = frozenset(g.get("cwd_flags", ()))
        self.global_flags = frozenset(g.get("flags", ()))
        self.anywhere_value_flags = frozenset(g.get("anywhere_value_flags", ()))

    def __repr__(self) -> str:
        return f"CommandSpec({self.name!r})"


class _SubSpecs:
    """A command's subcommands, read-only, each CommandSpec built on first use: `git` has
    dozens of nested entries and a hook call looks at one of them."""

    __slots__ = ("_name", "_raw", "_built", "_shared")

    def __init__(self, name: str, raw: dict, shared=None):
        self._name = name
        self._raw = raw
        self._built = {}
        self._shared = shared

    def __getitem__(self, key):
        spec = self._built.get(key)
        if spec is None:
            spec = self._built[key] = CommandSpec(f"{self._name} {key}",
                                                  with_shared(self._raw[key], self._shared))
        return spec

    def get(self, key, default=None):
        return self[key] if key in self._raw else default

    def __contains__(self, key) -> bool:
        return key in self._raw

    def __iter__(self):
        return iter(self._raw)

    def __len__(self) -> int:
        return len(self._raw)

    def keys(self):
        return self._raw.keys()

    def items(self):
        return [(k, self[k]) for k in self._raw]

    def values(self):
        return [self[k] for k in self._raw]

    def __repr__(self) -> str:
        return f"<subcommands of {self._name}: {', '.join(self._raw)}>"
