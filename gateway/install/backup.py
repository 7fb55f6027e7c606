"""Backups of settings files, and the record of each file as it was before the gateway.

Kept in the gateway's state directory, not beside the settings file (a project's .claude/ is
usually committed): $XDG_STATE_HOME/gateway/install/<key>/ (~/.local/state/...), one folder
per settings file, where <key> is a digest of the file's real path.

  backup-<UTC time>.json  the file's bytes before each change install or uninstall makes
  original.json           the file before the gateway was first installed into it
  record.json             {"settings": path, "original": "original.json" | null (the file did
                          not exist), "created_dirs": [...], "installed": time, "mode": the
                          file's permission bits then (absent in records of older releases)}

Uninstall uses the record to give back the original bytes exactly when nothing but the
gateway's entries changed since, and to remove a file and folders that install created.
"""

import json
import os
import time

try:
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - non-CPython
    from hashlib import blake2b

from gateway.install.jsonfile import write_atomic


def state_root(env=None) -> str:
    env = os.environ if env is None else env
    base = env.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(base, "gateway", "install")


def folder(settings_path: str, env=None) -> str:
    key = blake2b(os.path.realpath(settings_path).encode("utf-8", "surrogatepass"),
                  digest_size=10).hexdigest()
    return os.path.join(state_root(env), key)


def _stamp() -> str:
    t = time.time()
    return time.strftime("%Y%m%dT%H%M%S", time.gmtime(t)) + f".{int(t * 1000) % 1000:03d}Z"


def save_backup(settings_path: str, raw: bytes, env=None) -> str:
    """Write a backup of `raw` (the file's current bytes); return its path."""
    d = folder(settings_path, env)
    os.makedirs(d, mode=0o700, exist_ok=True)
    path = os.path.join(d, f"backup-{_stamp()}.json")
    n = 1
    while os.path.exists(path):
        path = os.path.join(d, f"backup-{_stamp()}-{n}.json")
        n += 1
    write_atomic(path, raw)
    return path


class Record:
    """What the gateway knows about a settings file's state before it was installed."""

    __slots__ = ("settings", "original", "created_dirs", "installed", "folder", "mode")

    def __init__(self, settings, original, created_dirs, installed, folder_, mode=None):
        self.settings = settings
        self.original = original  # bytes, or None when the file did not exist
        self.created_dirs = created_dirs  # folders install created for the file, deepest last
        self.installed = installed
        self.folder = folder_
        self.mode = mode  # the file's permission bits before the gateway, or None (unknown)


def read_record(settings_path: str, env=None):
    """The Record for this file, or None (never installed here, or the record is unusable)."""
    d = folder(settings_path, env)
    try:
        with open(os.path.join(d, "record.json"), encoding="utf-8") as fh:
            meta = json.load(fh)
        original = None
        if meta.get("original"):
            with open(os.path.join(d, meta["original"]), "rb") as fh:
                original = fh.read()
        dirs = [x for x in meta.get("created_dirs", []) if isinstance(x, str)]
        if os.path.realpath(meta.get("settings", "")) != os.path.realpath(settings_path):
            return None
        mode = meta.get("mode")
        if not isinstance(mode, int) or isinstance(mode, bool) or not 0 <= mode <= 0o7777:
            mode = None
        return Record(meta["settings"], original, dirs, meta.get("installed"), d, mode)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def write_record(settings_path: str, original, created_dirs, env=None, mode=None) -> Record:
    """Remember the file as it was before the gateway (`original` bytes, None if absent, and
    its permission bits `mode`)."""
    d = folder(settings_path, env)
    os.makedirs(d, mode=0o700, exist_ok=True)
    meta = {"settings": os.path.abspath(settings_path), "original": None,
            "created_dirs": list(created_dirs),
            "installed": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    if original is not None:
        write_atomic(os.path.join(d, "original.json"), original)
        meta["original"] = "original.json"
        if mode is not None:
            meta["mode"] = mode
    write_atomic(os.path.join(d, "record.json"),
                 (json.dumps(meta, indent=2) + "\n").encode("utf-8"))
    return Record(meta["settings"], original, meta["created_dirs"], meta["installed"], d,
                  meta.get("mode"))


def drop_record(settings_path: str, env=None) -> None:
    d = folder(settings_path, env)
    for name in ("record.json", "original.json"):
        try:
            os.unlink(os.path.join(d, name))
        except OSError:
            pass
