"""Adding the generated sandbox block to a settings object, and taking exactly it out again.

Pure functions over plain data (the input is never modified), like gateway.install.merge for
the hooks. What install changed is recorded (`Record`, kept in the gateway's state directory
beside the settings file's backups, gateway.install.backup):

* the flags it set (`enabled`, `failIfUnavailable`, `allowUnsandboxedCommands`) with the value
  each had before (or that it was absent), so uninstall gives back exactly that value;
* the list entries it added to `sandbox.filesystem.denyRead|denyWrite|allowWrite` (entries the
  user already had are not the gateway's and stay);
* the containers it created (`sandbox`, `sandbox.filesystem`, a list), which uninstall
  removes again once empty.

A second install adds what the rules now generate and takes out the entries it had added
before that the rules no longer generate. With no record (a settings file a teammate
committed), uninstall takes out the entries the rules generate for this project and leaves
the flags alone, and says so.
"""

import copy
import json
import os

from gateway.install import InstallError
from gateway.install.merge import Change
from gateway.sandbox.spec import LIST_KEYS, NETWORK_KEY

#: Every list install adds entries to: (container, key in it, name in the Record). The
#: filesystem lists are recorded by their bare key (as records have always been written).
_SLOTS = tuple(("filesystem", k, k) for k in LIST_KEYS) + (
    ("network", NETWORK_KEY.split(".", 1)[1], NETWORK_KEY),)

RECORD_FILE = "sandbox.json"
_MISSING = "<absent>"


class Record:
    """What install changed in one settings file's sandbox block."""

    def __init__(self, flags=None, added=None, created=None):
        self.flags = dict(flags or {})  # key -> previous value, or _MISSING
        self.added = {k: list(v) for k, v in (added or {}).items()}  # key -> [values]
        self.created = list(created or [])  # "sandbox", "filesystem", "filesystem.denyRead"

    def as_dict(self) -> dict:
        return {"flags": self.flags, "added": self.added, "created": self.created}

    @classmethod
    def from_dict(cls, d):
        if not isinstance(d, dict):
            return None
        flags, added, created = d.get("flags", {}), d.get("added", {}), d.get("created", [])
        if not (isinstance(flags, dict) and isinstance(added, dict)
                and isinstance(created, list)):
            return None
        if not all(isinstance(v, list) and all(isinstance(x, str) for x in v)
                   for v in added.values()):
            return None
        return cls(flags, added, [c for c in created if isinstance(c, str)])

    def empty(self) -> bool:
        return not (self.flags or any(self.added.values()) or self.created)


def read_record(settings_path, env=None):
    from gateway.install import backup

    try:
        with open(os.path.join(backup.folder(settings_path, env), RECORD_FILE),
                  encoding="utf-8") as fh:
            return Record.from_dict(json.load(fh))
    except (OSError, ValueError):
        return None


def write_record(settings_path, record, env=None) -> None:
    from gateway.install import backup
    from gateway.install.jsonfile import write_atomic

    d = backup.folder(settings_path, env)
    path = os.path.join(d, RECORD_FILE)
    if record is None or record.empty():
        try:
            os.unlink(path)
        except OSError:
            pass
        return
    os.makedirs(d, mode=0o700, exist_ok=True)
    write_atomic(path, (json.dumps(record.as_dict(), indent=2) + "\n").encode("utf-8"))


def check_shape(settings, path="settings") -> None:
    """Raise InstallError when `sandbox` is not the shape Claude Code reads; never guess."""
    sb = settings.get("sandbox")
    if sb is None:
        return
    if not isinstance(sb, dict):
        raise InstallError(f"{path}: \"sandbox\" must be an object, not "
                           f"{type(sb).__name__}; fix it by hand first")
    for container, key, _name in _SLOTS:
        box = sb.get(container)
        if box is None:
            continue
        if not isinstance(box, dict):
            raise InstallError(f"{path}: sandbox.{container} must be an object; fix it by "
                               "hand first")
        v = box.get(key)
        if v is not None and not (isinstance(v, list) and all(isinstance(x, str) for x in v)):
            raise InstallError(f"{path}: sandbox.{container}.{key} must be a list of strings; "
                               "fix it by hand first")


def _summary(values, n=3, what="path(s)") -> str:
    shown = ", ".join(values[:n])
    return f"{len(values)} {what}: {shown}" + (", ..." if len(values) > n else "")


def install(settings, spec, record=None, path="settings"):
    """(new settings, [Change], Record) with the generated block merged in. `spec` None:
    the sandbox is opted out (`--no-sandbox`): what an earlier install added is taken out."""
    check_shape(settings, path)
    if spec is None:
        new, changes = uninstall(settings, record, None, None)
        return new, changes, None
    new = copy.deepcopy(settings)
    record = Record(record.flags, record.added, record.created) if record else Record()
    changes = []
    sb = new.get("sandbox")
    if sb is None:
        sb = new["sandbox"] = {}
        if "sandbox" not in record.created:
            record.created.append("sandbox")
    for key, value in spec.flags.items():
        have = sb.get(key, _MISSING)
        if have is not _MISSING and json.dumps(have) == json.dumps(value):
            continue
        if key not in record.flags:
            record.flags[key] = have
        sb[key] = value
        changes.append(Change("add" if have is _MISSING else "update", "sandbox", key,
                              json.dumps(value) + ("" if have is _MISSING
                                                   else f" (was {json.dumps(have)})")))
    # a flag install set before and no longer sets (allowUnsandboxedCommands after
    # --allow-unsandboxed): give back what it was
    for key in [k for k in record.flags if k not in spec.flags]:
        _restore_flag(sb, key, record.flags.pop(key), changes)
    for container, key, name in _SLOTS:
        _install_list(sb, container, key, name, spec.values(name), record, changes)
    _drop_empty(new, record, None)
    return new, changes, record


def _install_list(sb, container, key, name, wanted, record, changes):
    """Add the wanted entries of sb[container][key]; take out the ones install had added
    that are no longer wanted."""
    box = sb.get(container)
    if box is None and wanted:
        box = sb[container] = {}
        if container not in record.created:
            record.created.append(container)
    ours = record.added.get(name, [])
    stale = [v for v in ours if v not in wanted]
    if isinstance(box, dict) and stale and isinstance(box.get(key), list):
        box[key] = [v for v in box[key] if v not in stale]
        changes.append(Change("remove", "sandbox", f"{container}.{key}",
                              _summary(stale, what=_noun(container)) + " (no longer generated)"))
    ours = [v for v in ours if v in wanted]
    if not wanted:
        record.added[name] = ours
        return
    lst = box.get(key)
    if lst is None:
        lst = box[key] = []
        if f"{container}.{key}" not in record.created:
            record.created.append(f"{container}.{key}")
    fresh = [v for v in wanted if v not in lst]
    lst.extend(fresh)
    ours += [v for v in fresh if v not in ours]
    record.added[name] = ours
    if fresh:
        changes.append(Change("add", "sandbox", f"{container}.{key}",
                              _summary(fresh, what=_noun(container))))


def _noun(container) -> str:
    return "address(es)" if container == "network" else "path(s)"


def _restore_flag(sb, key, old, changes):
    if old is _MISSING or old == _MISSING:
        if key in sb:
            del sb[key]
            changes.append(Change("remove", "sandbox", key, "set by gateway install"))
    else:
        sb[key] = old
        changes.append(Change("update", "sandbox", key, f"back to {json.dumps(old)}"))


def _drop_empty(new, record, original):
    """Remove the containers install created that are empty now (unless the file before
    the gateway had them, empty)."""
    sb = new.get("sandbox")
    if not isinstance(sb, dict):
        return
    orig_sb = original.get("sandbox") if isinstance(original, dict) else None
    for container in ("filesystem", "network"):
        orig_box = orig_sb.get(container) if isinstance(orig_sb, dict) else None
        box = sb.get(container)
        if not isinstance(box, dict):
            continue
        for c, key, _name in _SLOTS:
            if c == container and box.get(key) == [] and f"{c}.{key}" in record.created \
                    and not (isinstance(orig_box, dict) and orig_box.get(key) == []):
                del box[key]
        if box == {} and container in record.created \
                and not (isinstance(orig_sb, dict) and orig_sb.get(container) == {}):
            del sb[container]
    if sb == {} and "sandbox" in record.created \
            and not (isinstance(original, dict) and original.get("sandbox") == {}):
        del new["sandbox"]


def uninstall(settings, record, original=None, fallback_spec=None):
    """(new settings, [Change]) without what install added. `record` None: the entries
    `fallback_spec` generates are taken out, the flags stay (their earlier values are not
    known)."""
    new = copy.deepcopy(settings)
    changes = []
    sb = new.get("sandbox")
    if not isinstance(sb, dict):
        return new, changes
    if record is None:
        if fallback_spec is None:
            return new, changes
        record = Record(added={name: fallback_spec.values(name) for _c, _k, name in _SLOTS})
        kept = [k for k, v in fallback_spec.flags.items()
                if json.dumps(sb.get(k, _MISSING)) == json.dumps(v)]
        if kept:
            changes.append(Change("keep", "sandbox", ", ".join(kept),
                                  "no record of their earlier values: left as they are"))
    for key, old in record.flags.items():
        _restore_flag(sb, key, old, changes)
    for container, key, name in _SLOTS:
        box = sb.get(container)
        ours = record.added.get(name, [])
        lst = box.get(key) if isinstance(box, dict) else None
        if not ours or not isinstance(lst, list):
            continue
        gone = [v for v in lst if v in ours]
        if gone:
            box[key] = [v for v in lst if v not in ours]
            changes.append(Change("remove", "sandbox", f"{container}.{key}",
                                  _summary(gone, what=_noun(container))))
    _drop_empty(new, record, original)
    return new, changes
