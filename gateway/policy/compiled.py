"""The policy in the form the validator uses: sets and small objects, built from plain data.

This module is on the hook path: standard library only, no pydantic, no YAML.
"""

from gateway.policy.spec import CommandSpec


class Interpreter:
    __slots__ = ("name", "safe_flags", "dangerous_flags", "dangerous_long_flags",
                 "safe_modules", "info_flags", "entry_scripts")

    def __init__(self, name: str, data: dict):
        self.name = name
        self.safe_flags = frozenset(data.get("safe_flags", ()))
        self.dangerous_flags = frozenset(data.get("dangerous_flags", ()))
        self.dangerous_long_flags = tuple(data.get("dangerous_long_flags", ()))
        self.safe_modules = frozenset(data.get("safe_modules", ()))
        self.entry_scripts = dict(data.get("entry_scripts") or {})
        # a command line of exactly one of these prints the version or the help and exits
        self.info_flags = frozenset(data.get("info_flags", ()))


class Policy:
    """The effective policy. `data` is the merged plain form (see gateway.policy.merge)."""

    def __init__(self, data: dict):
        self.data = data
        self.max_command_length = data["limits"]["max_command_length"]
        self.max_segments = data["limits"]["max_segments"]
        self.compound = bool(data["compound"])
        self.suffix_literals = tuple(data["safe_suffixes"]["literal"])
        self.suffix_echo_ops = tuple(data["safe_suffixes"]["echo_after"])
        self.containment_dirs = tuple(d.strip("/") for d in data["containment_dirs"])
        self.project_bin_dirs = tuple(d.strip("/") for d in data["project_bin_dirs"])
        self.system_bin_dirs = frozenset(d.rstrip("/") or "/" for d in data["system_bin_dirs"])
        self.allowed_dirs = tuple(data["allowed_dirs"])
        self.interpreters = {}
        for name, spec in data["interpreters"].items():
            interp = Interpreter(name, spec)
            self.interpreters[name] = interp
            for alias in spec.get("aliases", ()):
                self.interpreters.setdefault(alias, interp)
        self.shell_builtins = frozenset(data["shell_builtins"])
        self.wrappers = data["wrappers"]
        self.always_ask = frozenset(a.lower() for a in data["always_ask"])
        self.subcommand_ask = tuple((r, r.split()) for r in data["subcommand_ask"])
        secrets = data["secrets"]
        self.secret_patterns = tuple(secrets["patterns"])
        self.secret_dirs = frozenset(secrets["directories"])
        self.secret_exceptions = tuple(secrets["exceptions"])
        self.secret_backup_suffixes = tuple(secrets.get("backup_suffixes", ()))
        self.secret_env = secrets.get("env_files") or None
        self.secret_content = secrets.get("content") or None
        self.protected_paths = tuple(data["protected_paths"])
        self.autorun = tuple(data.get("autorun", ()))
        self.remote_arguments = data.get("remote_arguments") or {}
        # variables a command may be given, with the globs of their allowed literal values
        self.inert_env = data.get("inert_env") or {}
        # variables a command's own check judges as its configuration (phase 2, segment)
        self.command_env = frozenset(data.get("command_env") or ())
        # dependency caches outside the project whose files may be read
        # (gateway.validator.caches)
        self.dependency_caches = tuple(data.get("dependency_caches") or ())
        inputs = data.get("state_inputs") or {}
        self.state_input_names = tuple(inputs.get("names", ()))
        self.state_input_tools = inputs.get("tools") or {}
        client = data.get("client_sensitive") or {}
        self.client_dirs = frozenset(d.lower() for d in client.get("directories", ()))
        self.client_names = frozenset(n.lower() for n in client.get("names", ()))
        self.client_paths = tuple(tuple(c.lower() for c in p.split("/") if c)
                                  for p in client.get("paths", ()))
        self._catalogue = data["catalogue"]
        self._specs = {}
        self.deny_rules = tuple(data["deny"])
        self._effects = None

    @property
    def effects(self):
        """The effects model (gateway.policy.effects.Model) of this policy, built once."""
        if self._effects is None:
            from gateway.policy.effects import Model

            self._effects = Model(self)
        return self._effects

    def command(self, name: str):
        """The catalogue entry for `name`, or None when the command is unknown."""
        spec = self._specs.get(name)
        if spec is None:
            raw = self._catalogue.get(name)
            if raw is None:
                return None
            if isinstance(raw, bytes):  # as the cache keeps it (gateway.policy.cache)
                from gateway import _fastjson as json

                raw = json.loads(raw)
                if not isinstance(raw, dict):
                    raise ValueError(f"catalogue entry {name!r} is not a mapping")
            spec = self._specs[name] = CommandSpec(name, raw)
        return spec

    def wrapper_tool(self, rel: str):
        """The catalogue name of the build tool whose wrapper script is the project file
        `rel` (project-relative: `mvnw`), or None."""
        table = self.__dict__.get("_wrapper_tools")
        if table is None:
            table = {}
            for name in self._catalogue:
                spec = self.command(name)
                bt = spec.build_tool if spec is not None else None
                if isinstance(bt, dict) and isinstance(bt.get("wrapper"), str):
                    table[bt["wrapper"]] = name
            self.__dict__["_wrapper_tools"] = table
        return table.get(rel)

    def known_commands(self):
        return self._catalogue.keys()
