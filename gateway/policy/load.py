"""Find and read the rules layers: built-in, user, project, local.

Errors are located: `rules/default.yaml:12: always_ask[3]: ...`. Rules files are treated as
hostile input: regular files only, read without blocking (gateway.configfile), size-limited,
duplicate keys rejected, YAML aliases refused outside the built-in and user layers, and what
aliases expand to bounded in every layer (gateway.policy.yamlsafe).
"""

import os

from gateway.policy.errors import PolicyError

MAX_RULES_FILE = 512 * 1024
BUILTIN_FILES = ("default.yaml", "catalogue.yaml", "deny.yaml", "effects.yaml", "workflow.yaml")
LAYERS = ("builtin", "user", "project", "local")


def builtin_rules_dir() -> str:
    """The default rules shipped with the package (a wheel holds them in gateway/rules;
    a source checkout keeps them in rules/ beside the package)."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    packaged = os.path.join(here, "rules")
    if os.path.isfile(os.path.join(packaged, BUILTIN_FILES[0])):
        return packaged
    source = os.path.join(os.path.dirname(here), "rules")
    if os.path.isfile(os.path.join(source, BUILTIN_FILES[0])):
        return source
    raise PolicyError([f"the built-in rules are missing (looked in {packaged} and {source}); "
                       "reinstall gateway"])


def user_rules_path(env=None) -> str:
    env = os.environ if env is None else env
    explicit = env.get("GATEWAY_USER_RULES")
    if explicit:
        return explicit
    base = env.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "gateway", "rules.yaml")


def layer_paths(project_dir: str | None, env=None) -> list:
    """[(layer, path)] lowest first; paths that may not exist are included."""
    out = [("builtin", os.path.join(builtin_rules_dir(), name)) for name in BUILTIN_FILES]
    out.append(("user", user_rules_path(env)))
    if project_dir:
        out.append(("project", os.path.join(project_dir, ".claude", "gateway.yaml")))
        out.append(("local", os.path.join(project_dir, ".claude", "gateway.local.yaml")))
    return out


def read_bytes(path: str):
    """The bytes of a rules file, or None when there is none. A FIFO, directory, device,
    dangling link or a file over MAX_RULES_FILE is a located PolicyError, never read and
    never taken as absent (gateway.configfile)."""
    from gateway import configfile

    try:
        return configfile.read(path, MAX_RULES_FILE)
    except configfile.ConfigFileError as exc:
        raise PolicyError([str(exc)]) from None


def read_text(path: str) -> str:
    data = read_bytes(path)
    if data is None:
        raise PolicyError([f"{path}: no such file"])
    return _decode(path, data)


def _decode(path: str, data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PolicyError([f"{path}: not UTF-8 (byte {exc.start})"]) from None


def _yaml_error(path: str, exc) -> PolicyError:
    from gateway.policy.yamlsafe import YamlLimit

    mark = getattr(exc, "problem_mark", None)
    where = f"{path}:{mark.line + 1}" if mark else path
    problem = getattr(exc, "problem", None) or str(exc)
    if isinstance(exc, YamlLimit):
        return PolicyError([f"{where}: {problem}"])
    return PolicyError([f"{where}: invalid YAML: {problem}"])


def parse_yaml(path: str, text: str, allow_aliases: bool):
    """Parse YAML text; return (data, lines) where lines maps a key path tuple to its line.

    Composed once, with bounds on what aliases expand to (gateway.policy.yamlsafe), checked
    (keys, aliases where the layer allows none), then constructed from the same nodes."""
    import yaml

    from gateway.policy.yamlsafe import compose

    try:
        loader, node = compose(text)
    except yaml.YAMLError as exc:
        raise _yaml_error(path, exc) from None
    try:
        if node is None:
            return {}, {}
        lines = {}
        errors = []
        _walk(node, (), lines, errors, path, allow_aliases, set())
        if errors:
            raise PolicyError(errors)
        try:
            data = loader.construct_document(node)
        except yaml.YAMLError as exc:  # composes but does not construct: an unknown !!tag
            raise _yaml_error(path, exc) from None
    finally:
        loader.dispose()
    if not isinstance(data, dict):
        raise PolicyError([f"{path}:1: the top level must be a mapping of keys"])
    return data, lines


def _walk(node, path, lines, errors, fname, allow_aliases, seen):
    lines.setdefault(path, node.start_mark.line + 1)
    if id(node) in seen:
        if not allow_aliases:
            errors.append(f"{fname}:{lines.get(path, node.start_mark.line + 1)}: YAML aliases "
                          "are not allowed in this layer")
        return
    seen.add(id(node))
    kind = node.id
    if kind == "mapping":
        keys = set()
        for knode, vnode in node.value:
            if knode.id != "scalar":
                errors.append(f"{fname}:{knode.start_mark.line + 1}: a key must be a plain "
                              f"string, not a {knode.id}")
                continue
            key = knode.value
            if key in keys:
                errors.append(f"{fname}:{knode.start_mark.line + 1}: duplicate key {key!r}")
            keys.add(key)
            lines.setdefault(path + (key,), knode.start_mark.line + 1)
            _walk(vnode, path + (key,), lines, errors, fname, allow_aliases, seen)
    elif kind == "sequence":
        for i, item in enumerate(node.value):
            _walk(item, path + (i,), lines, errors, fname, allow_aliases, seen)


def locate(fname: str, lines: dict, loc: tuple) -> str:
    """`file:line: key.path` for a pydantic error location."""
    path = tuple(loc)
    while path and path not in lines:
        path = path[:-1]
    line = lines.get(path, 1)
    return f"{fname}:{line}: {format_loc(loc)}"


def format_loc(loc) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "(top level)"


def unknown_key_message(loc) -> str:
    """'unknown key X' with the closest known key, for a key pydantic calls an extra input."""
    import difflib

    known = _keys_at(loc[:-1])
    key = str(loc[-1])
    msg = f"unknown key {key!r}"
    close = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.75) if known else []
    if close:
        return f"{msg}; did you mean {close[0]!r}?"
    if known and len(known) <= 10:
        return f"{msg}; the keys here are " + ", ".join(sorted(known))
    return msg + " (docs/rules.md lists every key)"


def _keys_at(loc) -> set:
    """The keys a mapping at `loc` of a rules file may have (empty when unknown)."""
    import types
    import typing

    from pydantic import BaseModel

    from gateway.policy.models import RulesFile

    def models(tp):
        origin = typing.get_origin(tp)
        if origin in (typing.Union, types.UnionType):
            return [m for a in typing.get_args(tp) for m in models(a)]
        return [tp]

    current = [RulesFile]
    for part in loc:
        nxt = []
        for tp in current:
            for m in models(tp):
                origin = typing.get_origin(m)
                if isinstance(m, type) and issubclass(m, BaseModel) and isinstance(part, str):
                    for name, field in m.model_fields.items():
                        if part in (name, field.alias):
                            nxt.append(field.annotation)
                elif origin is dict and isinstance(part, str):
                    nxt.append(typing.get_args(m)[1])
                elif origin is list and isinstance(part, int):
                    nxt.append(typing.get_args(m)[0])
        current = nxt
    keys = set()
    for tp in current:
        for m in models(tp):
            if isinstance(m, type) and issubclass(m, BaseModel):
                keys.update(f.alias or n for n, f in m.model_fields.items())
    return keys


def read_layer(layer: str, path: str):
    """Read and validate one layer file. Returns (RulesFile, lines) or None if absent."""
    data = read_bytes(path)
    if data is None:
        return None
    from pydantic import ValidationError

    from gateway.policy.models import RulesFile

    text = _decode(path, data)
    data, lines = parse_yaml(path, text, allow_aliases=layer in ("builtin", "user"))
    data = {k: v for k, v in data.items() if not (isinstance(k, str) and k.startswith("x-"))}
    try:
        model = RulesFile.model_validate(data)
    except ValidationError as exc:
        errors = []
        for err in exc.errors():
            loc = err.get("loc", ())
            # pydantic appends the validator kind for function validators; drop non-path parts
            loc = tuple(p for p in loc if not (isinstance(p, str) and p.startswith("function-")))
            msg = err.get("msg", "invalid").removeprefix("Value error, ")
            if err.get("type") == "extra_forbidden" and loc:
                msg = unknown_key_message(loc)
            errors.append(f"{locate(path, lines, loc)}: {msg}")
        raise PolicyError(errors) from None
    return model, lines
