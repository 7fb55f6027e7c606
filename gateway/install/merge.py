"""Adding and removing the gateway's handlers in a parsed settings object.

Pure functions over plain data; the input is never modified. Everything that is not a
gateway handler -- other keys, other hooks, their order -- is kept as it was.

Install keeps a gateway group where it already is when it can (a group holding only a
gateway handler for that hook), so running it twice changes nothing the second time; a
gateway handler elsewhere (another event, a duplicate, a hook the gateway no longer has, a
group shared with other handlers) is taken out. Uninstall takes every gateway handler out,
then the groups, event lists and "hooks" object that this left empty -- unless the file as it
was before the gateway had that empty container too.
"""

import copy

from gateway.install import InstallError
from gateway.install.entries import display_command, owned_hook_name


class Change:
    """One line of what install or uninstall did, for the user."""

    __slots__ = ("action", "event", "hook", "detail")

    def __init__(self, action, event, hook, detail=""):
        self.action = action  # "add", "update", "remove", "keep"
        self.event = event
        self.hook = hook
        self.detail = detail

    def __str__(self) -> str:
        return f"{self.action:6} {self.event} ({self.hook}){': ' + self.detail if self.detail else ''}"

    def __repr__(self) -> str:
        return f"Change({self.action!r}, {self.event!r}, {self.hook!r})"


def check_shape(settings: dict, path: str) -> None:
    """Raise InstallError when "hooks" is not the shape Claude Code reads; never guess."""
    hooks = settings.get("hooks")
    if hooks is None:
        return
    if not isinstance(hooks, dict):
        raise InstallError(f"{path}: \"hooks\" must be an object of event names, not "
                           f"{type(hooks).__name__}; fix it by hand first")
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            raise InstallError(f"{path}: hooks.{event} must be a list of matcher groups; "
                               "fix it by hand first")
        for i, g in enumerate(groups):
            if not isinstance(g, dict) or not isinstance(g.get("hooks", []), list):
                raise InstallError(f"{path}: hooks.{event}[{i}] must be an object with a "
                                   "\"hooks\" list; fix it by hand first")


def owned(settings: dict) -> list:
    """[(event, group index, handler index, hook name, handler)] for every gateway handler."""
    out = []
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return out
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            continue
        for gi, g in enumerate(groups):
            if not isinstance(g, dict) or not isinstance(g.get("hooks"), list):
                continue
            for hi, h in enumerate(g["hooks"]):
                name = owned_hook_name(h)
                if name is not None:
                    out.append((event, gi, hi, name, h))
    return out


def _own_group(g, event, name) -> bool:
    """A group holding exactly one handler, the gateway's for `name`."""
    return (isinstance(g, dict) and isinstance(g.get("hooks"), list) and len(g["hooks"]) == 1
            and owned_hook_name(g["hooks"][0]) == name)


def install(settings: dict, wanted: list, path: str = "settings") -> tuple:
    """(new settings, [Change]) with exactly the `wanted` gateway groups registered.

    `wanted` is [(HookSpec, group dict)] (see entries.group). Idempotent: install(install(s))
    == install(s), and a settings object that already has them is returned unchanged."""
    check_shape(settings, path)
    new = copy.deepcopy(settings)
    changes = []
    hooks = new.get("hooks")
    keep = set()  # (event, id(group)) of the gateway groups kept or added
    for spec, want in wanted:
        groups = hooks.get(spec.event, []) if isinstance(hooks, dict) else []
        found = next((g for g in groups if _own_group(g, spec.event, spec.name)), None)
        if found is not None:
            if found != want:
                changes.append(Change("update", spec.event, spec.name, _describe(want, spec.event)))
                found.clear()
                found.update(copy.deepcopy(want))
            else:
                changes.append(Change("keep", spec.event, spec.name, _describe(want, spec.event)))
            keep.add(id(found))
            continue
        if hooks is None:
            hooks = new["hooks"] = {}
        g = copy.deepcopy(want)
        hooks.setdefault(spec.event, []).append(g)
        keep.add(id(g))
        changes.append(Change("add", spec.event, spec.name, _describe(want, spec.event)))
    if isinstance(hooks, dict):
        for event in list(hooks):
            groups = hooks[event]
            emptied = False
            for g in list(groups):
                if id(g) in keep or not isinstance(g, dict):
                    continue
                handlers = g.get("hooks")
                if not isinstance(handlers, list):
                    continue
                touched = False
                for h in list(handlers):
                    name = owned_hook_name(h)
                    if name is not None:
                        handlers.remove(h)
                        touched = True
                        why = "replaced" if any(s.name == name for s, _ in wanted) else \
                            "not a hook this gateway has"
                        changes.append(Change("remove", event, name, why))
                if touched and not handlers:
                    groups.remove(g)
                    emptied = True
            if emptied and not groups:
                del hooks[event]
    return new, changes


def uninstall(settings: dict, original=None) -> tuple:
    """(new settings, [Change]) without any gateway handler. `original`: the settings as they
    were before the gateway was first installed, if known (decides which empty containers
    were the user's)."""
    new = copy.deepcopy(settings)
    changes = []
    hooks = new.get("hooks")
    if not isinstance(hooks, dict):
        return new, changes
    orig_hooks = original.get("hooks") if isinstance(original, dict) else None
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        emptied_list = False
        for g in list(groups):
            if not isinstance(g, dict) or not isinstance(g.get("hooks"), list):
                continue
            touched = False
            for h in list(g["hooks"]):
                name = owned_hook_name(h)
                if name is not None:
                    g["hooks"].remove(h)
                    touched = True
                    changes.append(Change("remove", event, name, _describe_handler(h)))
            if touched and not g["hooks"]:
                groups.remove(g)
                emptied_list = True
        if emptied_list and not groups:
            had = isinstance(orig_hooks, dict) and orig_hooks.get(event) == []
            if not had:
                del hooks[event]
    if changes and not hooks:
        had = isinstance(original, dict) and original.get("hooks") == {}
        if not had:
            del new["hooks"]
    return new, changes


#: Events whose matcher is over tool names; the others (SessionStart, PreCompact, ...) have
#: their own matcher or none at all.
_TOOL_EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest")


def _describe(g, event=None) -> str:
    h = g["hooks"][0]
    every = "every tool" if event is None or event in _TOOL_EVENTS else "every time"
    where = f"matcher {g['matcher']!r}" if "matcher" in g else every
    return f"{where}, {_describe_handler(h)}"


def _describe_handler(h) -> str:
    target = display_command(h)
    extra = ", onFailure block" if h.get("onFailure") == "block" else ""
    return f"{target}{extra}"
