"""Merge the layers into one policy, enforcing who may change what.

Built-in and user layers may shape the policy; project and local layers (which a repository
can ship) may only tighten it: add to ALWAYS_ASK, subcommand_ask, the deny rules, secrets,
protected paths and wrappers, lower the limits, or switch compound commands off. Floors are
never removed. The result is plain data (see gateway.policy.compiled for the fast form).
"""

from gateway.policy.errors import PolicyError
from gateway.policy.load import layer_paths, read_layer

# Keys a project or local layer may not set, with the reason shown to the user.
_LOOSENING = {
    "safe_suffixes": "adds text that is stripped before checking",
    "containment_dirs": "adds directories whose scripts run without asking",
    "project_bin_dirs": "adds directories whose programs run without asking",
    "system_bin_dirs": "adds directories whose programs run without asking",
    "allowed_dirs": "adds directories outside the project",
    "interpreters": "changes interpreter flag tables",
    "catalogue": "adds commands that run without asking",
    "floors": "changes the security floors",
    "remove": "removes entries",
    "effects": "changes what commands are known to write",
    "remote_arguments": "changes which arguments are known to reach the network",
    "client_sensitive": "changes which files the client protects",
    "inert_env": "adds environment variables a command may be given",
    "command_env": "adds environment variables judged as a tool's configuration",
    "dependency_caches": "adds directories outside the project whose files may be read",
}
#: secrets.env_files (gateway.secrets.names): every key, and those that make fewer names
#: secrets (user layer only).
_ENV_KEYS = ("names", "prefixes", "suffixes", "plain_prefixes", "source_extensions",
             "template_words")
_ENV_LOOSENING = ("source_extensions", "template_words")


def empty() -> dict:
    return {
        "limits": {"max_command_length": 32768, "max_segments": 50},
        "compound": True,
        "safe_suffixes": {"literal": [], "echo_after": []},
        "containment_dirs": [],
        "project_bin_dirs": [],
        "system_bin_dirs": [],
        "allowed_dirs": [],
        "interpreters": {},
        "shell_builtins": [],
        "wrappers": {},
        "always_ask": [],
        "floors": {"always_ask": [], "subcommand_ask": []},
        "subcommand_ask": [],
        "secrets": {"patterns": [], "directories": [], "exceptions": [],
                    "backup_suffixes": [],
                    "env_files": {k: [] for k in _ENV_KEYS},
                    "content": {"plugins": [], "max_bytes": None, "timeout_ms": None,
                                "full_scan_extensions": []}},
        "protected_paths": [],
        "autorun": [],
        "client_sensitive": {"directories": [], "names": [], "paths": []},
        "remote_arguments": {},
        "state_inputs": {"names": [], "tools": {}},
        "inert_env": {},
        "command_env": [],
        "dependency_caches": [],
        "catalogue": {},
        "deny": [],
        "effects": {"programs": {}, "runners": {}, "shells": [], "interpreters": [],
                    "interpreter_prefixes": [], "code_builtins": [], "agents": [],
                    "agent_info": [], "version_words": [],
                    "git": {"commands": [], "commits": [], "publishes": [], "worktree": [],
                            "global_value_flags": [],
                            "global_flags": [], "global_optional_flags": [],
                            "subcommands": {}}},
    }


class Merged:
    """The merged policy plus where each entry came from and the examples to check."""

    def __init__(self):
        self.policy = empty()
        self.provenance = {}  # "always_ask:curl" -> "project (/p/.claude/gateway.yaml)"
        self.examples = []  # (origin, kind, command, expected, layer) kind: catalogue|deny
        # layer -> the policy as it stood when that layer was done: a rule's examples are
        # checked against it, so a stricter layer above (always_ask: [make]) does not break
        # the built-in catalogue's "make is allowed" example
        self.example_policies = {}
        self.sources = []  # [(layer, path)] files that exist


def _union(target: list, items, key: str, origin: str, prov: dict, fold=False):
    have = {x.lower() if fold else x for x in target}
    for item in items:
        k = item.lower() if fold else item
        if k not in have:
            target.append(item)
            have.add(k)
            prov[f"{key}:{item}"] = origin


def _apply(m: Merged, layer: str, path: str, model, lines) -> list:
    errors = []
    p = m.policy
    origin = f"{layer} ({path})"
    trusted = layer in ("builtin", "user")
    fields = model.model_fields_set

    def where(key):
        return f"{path}:{lines.get((key,), 1)}: {key}"

    if not trusted:
        for key in sorted(fields):
            if key in _LOOSENING:
                errors.append(f"{where(key)}: a {layer} layer can only tighten the policy and "
                              f"this key {_LOOSENING[key]}; put it in the user layer instead")
        if model.secrets is not None and model.secrets.exceptions:
            errors.append(f"{where('secrets')}.exceptions: a {layer} layer cannot add secret "
                          "exceptions (that would expose secrets); use the user layer")
        env = model.secrets.env_files if model.secrets is not None else None
        for key in _ENV_LOOSENING:
            if env is not None and getattr(env, key):
                errors.append(f"{where('secrets')}.env_files.{key}: a {layer} layer cannot "
                              "make fewer names secrets; use the user layer")
        content = model.secrets.content if model.secrets is not None else None
        if content is not None and content.model_fields_set - {"plugins"}:
            errors.append(f"{where('secrets')}.content: a {layer} layer may only add "
                          "plugins; use the user layer")
    if "floors" in fields and layer != "builtin":
        if trusted:
            errors.append(f"{where('floors')}: floors are fixed by the built-in rules")
    if errors:
        return errors

    if model.limits is not None:
        for key in ("max_command_length", "max_segments"):
            if key in model.limits.model_fields_set:
                new = getattr(model.limits, key)
                if not trusted and new > p["limits"][key]:
                    errors.append(f"{where('limits')}.{key}: a {layer} layer may only lower "
                                  f"this limit (now {p['limits'][key]})")
                    continue
                p["limits"][key] = new
                m.provenance[f"limits:{key}"] = origin
    if model.compound is not None and "enabled" in model.compound.model_fields_set:
        if not trusted and model.compound.enabled and not p["compound"]:
            errors.append(f"{where('compound')}.enabled: a {layer} layer cannot switch "
                          "compound commands back on")
        else:
            p["compound"] = model.compound.enabled
            m.provenance["compound:enabled"] = origin
    if model.safe_suffixes is not None:
        p["safe_suffixes"] = model.safe_suffixes.model_dump()
        m.provenance["safe_suffixes"] = origin
    for key in ("containment_dirs", "project_bin_dirs", "system_bin_dirs", "allowed_dirs"):
        value = getattr(model, key)
        if value is not None:
            _union(p[key], [v.rstrip("/") for v in value], key, origin, m.provenance)
    if model.interpreters is not None:
        for name, interp in model.interpreters.items():
            p["interpreters"][name] = interp.model_dump()
            m.provenance[f"interpreters:{name}"] = origin
    if model.shell_builtins is not None:
        _union(p["shell_builtins"], model.shell_builtins, "shell_builtins", origin, m.provenance)
    if model.wrappers is not None:
        for name, w in model.wrappers.items():
            if name in p["wrappers"] and not trusted:
                continue  # a project layer may add wrappers, not redefine them
            if w.transparent and not trusted:
                errors.append(f"{where('wrappers')}.{name}: a {layer} layer cannot make a "
                              "wrapper transparent (its command would be judged as the one "
                              "it runs); put it in the user layer instead")
                continue
            p["wrappers"][name] = w.model_dump()
            m.provenance[f"wrappers:{name}"] = origin
    if model.floors is not None:
        p["floors"] = model.floors.model_dump()
    if model.always_ask is not None:
        _union(p["always_ask"], model.always_ask, "always_ask", origin, m.provenance, fold=True)
    if model.subcommand_ask is not None:
        norm = [" ".join(r.split()) for r in model.subcommand_ask]
        _union(p["subcommand_ask"], norm, "subcommand_ask", origin, m.provenance)
    if model.secrets is not None:
        for key in ("patterns", "directories", "exceptions", "backup_suffixes"):
            _union(p["secrets"][key], getattr(model.secrets, key), f"secrets.{key}", origin,
                   m.provenance)
        if model.secrets.content is not None:
            c = model.secrets.content
            dest = p["secrets"]["content"]
            _union(dest["plugins"], c.plugins, "secrets.content.plugins", origin, m.provenance)
            _union(dest["full_scan_extensions"], c.full_scan_extensions,
                   "secrets.content.full_scan_extensions", origin, m.provenance)
            for key in ("max_bytes", "timeout_ms"):
                if getattr(c, key) is not None:
                    dest[key] = getattr(c, key)
        if model.secrets.env_files is not None:
            for key in _ENV_KEYS:
                _union(p["secrets"]["env_files"][key], getattr(model.secrets.env_files, key),
                       f"secrets.env_files.{key}", origin, m.provenance)
    if model.protected_paths is not None:
        _union(p["protected_paths"], model.protected_paths, "protected_paths", origin,
               m.provenance)
    if model.autorun is not None:
        _union(p["autorun"], model.autorun, "autorun", origin, m.provenance)
    if model.state_inputs is not None:
        _union(p["state_inputs"]["names"], model.state_inputs.names, "state_inputs.names",
               origin, m.provenance)
        for tool, globs in model.state_inputs.tools.items():
            key = " ".join(tool.split())
            _union(p["state_inputs"]["tools"].setdefault(key, []), globs,
                   f"state_inputs.tools.{key}", origin, m.provenance)
    if model.inert_env is not None:
        for name, values in model.inert_env.items():
            _union(p["inert_env"].setdefault(name, []), values, f"inert_env.{name}", origin,
                   m.provenance)
    if model.command_env is not None:
        _union(p["command_env"], model.command_env, "command_env", origin, m.provenance)
    if model.dependency_caches is not None:
        have = {c["name"] for c in p["dependency_caches"]}
        for cache in model.dependency_caches:
            if cache.name not in have:
                p["dependency_caches"].append(cache.model_dump())
                m.provenance[f"dependency_caches:{cache.name}"] = origin
    if model.remote_arguments is not None:
        for name, entry in model.remote_arguments.items():
            key = " ".join(name.split())
            p["remote_arguments"][key] = entry.model_dump()
            m.provenance[f"remote_arguments:{key}"] = origin
    if model.client_sensitive is not None:
        for key in ("directories", "names", "paths"):
            _union(p["client_sensitive"][key], getattr(model.client_sensitive, key),
                   f"client_sensitive.{key}", origin, m.provenance)
    if model.catalogue is not None:
        for name, entry in model.catalogue.items():
            data = entry.model_dump(by_alias=True, exclude_none=True)
            _collect_examples(m, layer, name, data, path=path)
            p["catalogue"][name] = data
            m.provenance[f"catalogue:{name}"] = origin
    if model.effects is not None:  # built-in and user layers only (_LOOSENING)
        eff = p["effects"]
        fields = model.effects.model_fields_set
        for name, entry in model.effects.programs.items():
            data = entry.model_dump(by_alias=True, exclude_none=True)
            data.pop("examples", None)
            eff["programs"][name] = data
            m.provenance[f"effects.programs:{name}"] = origin
        for name, w in model.effects.runners.items():
            eff["runners"][name] = w.model_dump()
        for key in ("shells", "interpreters", "interpreter_prefixes", "code_builtins",
                    "agents", "version_words"):
            if key in fields:
                _union(eff[key], getattr(model.effects, key), f"effects.{key}", origin,
                       m.provenance)
        for info in model.effects.agent_info:
            if info not in eff["agent_info"]:
                eff["agent_info"].append(list(info))
        if "git" in fields:
            for key, value in model.effects.git.model_dump().items():
                if key == "subcommands":  # a layer describes a subcommand whole
                    for sub, entry in model.effects.git.subcommands.items():
                        eff["git"][key][sub] = entry.model_dump(exclude_none=True)
                        m.provenance[f"effects.git.subcommands:{sub}"] = origin
                    continue
                _union(eff["git"][key], value, f"effects.git.{key}", origin, m.provenance)
    if model.deny is not None:
        ids = {r["id"] for r in p["deny"]}
        for i, rule in enumerate(model.deny):
            if rule.id in ids:
                errors.append(f"{path}:{lines.get(('deny', i), 1)}: deny[{i}].id: "
                              f"{rule.id!r} is already defined by a lower layer")
                continue
            data = rule.model_dump(exclude_none=True)
            ex = data.pop("examples", None) or {}
            for cmd in ex.get("match", []):
                m.examples.append((f"{origin} deny {rule.id}", "deny", cmd, True, layer))
            for cmd in ex.get("not_match", []):
                m.examples.append((f"{origin} deny {rule.id}", "deny", cmd, False, layer))
            p["deny"].append(data)
            ids.add(rule.id)
            m.provenance[f"deny:{rule.id}"] = origin
    if model.remove is not None:
        floors = p["floors"]
        for key in ("always_ask", "subcommand_ask"):
            for item in getattr(model.remove, key):
                norm = " ".join(item.split()) if key == "subcommand_ask" else item.lower()
                floor = {(" ".join(f.split()) if key == "subcommand_ask" else f.lower())
                         for f in floors[key]}
                if norm in floor:
                    errors.append(f"{where('remove')}.{key}: {item!r} is a security floor "
                                  "and cannot be removed")
                    continue
                before = len(p[key])
                p[key] = [x for x in p[key]
                          if (" ".join(x.split()) if key == "subcommand_ask" else x.lower())
                          != norm]
                if len(p[key]) == before:
                    errors.append(f"{where('remove')}.{key}: {item!r} is not in the policy")
                else:
                    m.provenance[f"{key}:{item}"] = f"removed by {origin}"
        for name in model.remove.catalogue:
            if p["catalogue"].pop(name, None) is None:
                errors.append(f"{where('remove')}.catalogue: {name!r} is not in the catalogue")
            else:
                m.provenance[f"catalogue:{name}"] = f"removed by {origin}"
                m.examples = [e for e in m.examples if e[0] != f"catalogue:{name}"]
    return errors


def _collect_examples(m: Merged, layer: str, name: str, data: dict, prefix: str = "",
                      path: str = ""):
    ex = data.pop("examples", None) or {}
    label = f"catalogue:{(prefix + ' ' + name).strip()}"
    for cmd in ex.get("allow", []):
        m.examples.append((label, "catalogue", cmd, True, layer, path))
    for cmd in ex.get("ask", []):
        m.examples.append((label, "catalogue", cmd, False, layer, path))
    for sub, sdata in (data.get("subcommands") or {}).items():
        _collect_examples(m, layer, sub, sdata, (prefix + " " + name).strip(), path)


def merge(project_dir: str | None, env=None) -> Merged:
    """Read every layer that exists and merge them. Raises PolicyError with every problem."""
    m = Merged()
    errors = []
    previous = None
    for layer, path in layer_paths(project_dir, env):
        if previous is not None and layer != previous:
            _snapshot(m, previous)
        previous = layer
        try:
            read = read_layer(layer, path)
        except PolicyError as exc:
            errors.extend(exc.errors)
            continue
        if read is None:
            if layer == "builtin":
                errors.append(f"{path}: built-in rules file missing; reinstall gateway")
            continue
        m.sources.append((layer, path))
        errors.extend(_apply(m, layer, path, *read))
    _apply_floors(m.policy)
    if errors:
        raise PolicyError(errors)
    return m


def _apply_floors(p: dict) -> None:
    for floor in p["floors"]["always_ask"]:
        if floor.lower() not in {a.lower() for a in p["always_ask"]}:
            p["always_ask"].append(floor)
    for floor in p["floors"]["subcommand_ask"]:
        if floor not in p["subcommand_ask"]:
            p["subcommand_ask"].append(floor)


def _snapshot(m: Merged, layer: str) -> None:
    """Keep the policy as it stands after `layer`, if that layer brought examples."""
    if any(e[4] == layer for e in m.examples):
        import json

        snap = json.loads(json.dumps(m.policy))
        _apply_floors(snap)
        m.example_policies[layer] = snap
