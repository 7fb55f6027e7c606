"""install and uninstall: find the settings file, change it, back it up, write it safely.

Round trip: the first install into a file records the file's exact bytes (backup.py).
Uninstall removes every gateway handler; when what is left equals the recorded original, the
original bytes are written back, so install + uninstall gives the file back byte for byte --
whatever its formatting -- and a file (or .claude/ folder) that install created is removed
again. When the user changed other things in between, their changes stay and the file is
written in its own formatting (jsonfile.detect_style).
"""

import difflib
import json
import os
import re

from gateway.install import InstallError, backup, entries, jsonfile, merge
from gateway.install.project import find_project

SCOPES = ("project", "local", "user")


def user_config_dir(env=None) -> str:
    env = os.environ if env is None else env
    explicit = env.get("CLAUDE_CONFIG_DIR")
    if explicit:
        return explicit
    home = env.get("HOME") or os.path.expanduser("~")
    return os.path.join(home, ".claude")


def settings_path(scope: str, project=None, env=None) -> str:
    """The Claude Code settings file of a scope."""
    if scope == "user":
        return os.path.join(user_config_dir(env), "settings.json")
    project = project or find_project(env=env)
    if scope == "project":
        return os.path.join(project, ".claude", "settings.json")
    if scope == "local":
        return os.path.join(project, ".claude", "settings.local.json")
    raise InstallError(f"unknown scope {scope!r}; use one of {', '.join(SCOPES)}")


class Result:
    """What install or uninstall did (or, with dry_run, would do)."""

    def __init__(self, path):
        self.path = path
        self.changes = []  # [merge.Change]
        self.changed = False  # the file is (or would be) different
        self.dry_run = False
        self.backup = None  # path of the backup written, if any
        self.diff = ""  # unified diff of the change
        self.restored = False  # uninstall wrote the recorded original bytes back
        self.removed_file = False  # uninstall deleted a file install had created
        self.removed_dirs = []
        self.notes = []


_TOKEN = re.compile(r"(Bearer )[A-Za-z0-9_\-]{16,}")


def _diff(path, old: str, new: str) -> str:
    old, new = _TOKEN.sub(r"\1<token>", old), _TOKEN.sub(r"\1<token>", new)
    return "".join(difflib.unified_diff(old.splitlines(keepends=True),
                                        new.splitlines(keepends=True),
                                        fromfile=f"{path} (now)", tofile=f"{path} (new)"))


def _same(a, b) -> bool:
    """The same JSON, strictly: Python's == calls 1, 1.0 and true equal, and a settings file
    where the user changed one into another has changed."""
    return json.dumps(a, ensure_ascii=False) == json.dumps(b, ensure_ascii=False)


def _mode(path):
    """The permission bits of the file `path` names (through a symlink), or None."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        return None


def _text(raw) -> str:
    return raw.decode("utf-8", "replace") if raw else ""


def _missing_dirs(path: str) -> list:
    out = []
    d = os.path.dirname(os.path.abspath(path))
    while not os.path.exists(d):
        out.append(d)
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    return list(reversed(out))


def _created_by_sibling_installs(path: str, env) -> list:
    """Folders an install of the other settings file beside `path` created (settings.json
    and settings.local.json share .claude/): whichever of the two is uninstalled last may
    take the folder away again, once it is empty."""
    here = os.path.dirname(os.path.abspath(path))
    out = []
    for name in ("settings.json", "settings.local.json"):
        other = os.path.join(here, name)
        if other == os.path.abspath(path):
            continue
        record = backup.read_record(other, env)
        if record is not None:
            out += [d for d in record.created_dirs if here == d or here.startswith(d + "/")]
    return out


def _resolve(scope, project, settings_file, env):
    if settings_file:
        return os.path.abspath(settings_file)
    return settings_path(scope, project, env)


def install(scope="project", project=None, settings_file=None, dry_run=False, http=False,
            port=None, gateway_path=None, env=None, launcher=None, early_allow=True,
            sandbox=None) -> Result:
    """Register every implemented hook in the settings file of `scope` (or `settings_file`).

    With `http`, every hook is registered as an http handler answered by `gateway serve`
    (PreToolUse with "onFailure": "block": while the server is down every call is blocked,
    never let through unguarded). Their bearer token is written into the file for the local
    and user scopes (the file is then made private to the user); a project's settings file is
    committed, so there the handler reads $GATEWAY_SERVE_TOKEN instead.
    `launcher` is how command handlers start the gateway (entries.gateway_command): "lean"
    (the default, gateway.launch's line) or "script" (the console script, or `gateway_path`).
    `early_allow=False` writes GATEWAY_EARLY_ALLOW=0 into the PreToolUse command (see
    gateway.guards.reads). `sandbox` is a gateway.sandbox.configure.Choice (None: no
    change to the file's sandbox block). Raises InstallError with a message for the user."""
    path = _resolve(scope, project, settings_file, env)
    res = Result(path)
    res.dry_run = dry_run
    loaded = jsonfile.load(path)
    specs = entries.hook_specs()
    if not specs:
        raise InstallError("this gateway implements no hooks (gateway/hooks/ is empty); "
                           "reinstall the package")
    if launcher is None:
        launcher = "script" if gateway_path else "lean"
    prefix = entries.gateway_command(gateway_path, launcher)
    groups = {s.name: entries.group(s, prefix, entries.handler_env(s, early_allow))
              for s in specs}
    private = False
    if http:
        committed = scope == "project" and not settings_file
        pinned = None if scope == "user" and not settings_file else \
            os.path.abspath(project or find_project(env=env))
        over_http = entries.http_groups(specs, port, pinned, committed, env, early_allow)
        groups.update(over_http)
        private = bool(over_http) and not committed
        if committed and over_http and not dry_run:
            from gateway import server

            server.read_token(env, create=True)  # the file the note below exports from
        if committed and over_http:
            res.notes.append("The http handlers read the token from $GATEWAY_SERVE_TOKEN "
                             "(this file is committed): export GATEWAY_SERVE_TOKEN=\"$(cat "
                             "~/.local/state/gateway/serve-token)\" before starting Claude Code.")
    wanted = [(s, groups[s.name]) for s in specs]
    new, res.changes = merge.install(loaded.data, wanted, path)
    sandbox_record = None
    if sandbox is not None and http:
        from gateway import server

        sandbox.hook_server = f"{server.DEFAULT_HOST}:{int(port or server.DEFAULT_PORT)}"
        # where the server's bearer token is: its own file, and this settings file unless
        # the handlers read it from the environment (a committed file)
        from gateway.ownpaths import credential_places

        sandbox.token_files = credential_places(env, real_forms=False) + ([path] if private else [])
    if sandbox is not None:
        from gateway.sandbox import configure

        new, more, sandbox_record = configure.install(new, sandbox, scope, project, path, env,
                                                      res.notes)
        res.changes += more
    res.changed = (new != loaded.data) or not loaded.exists
    if not res.changed:
        return res
    new_text = _keep_layout(loaded, new)
    res.diff = _diff(path, _text(loaded.raw), new_text)
    if dry_run:
        return res
    created = _missing_dirs(path) + _created_by_sibling_installs(path, env)
    created = sorted(set(created), key=len)  # deepest last, as uninstall removes them
    if not merge.owned(loaded.data):
        # The file as it is before the gateway: what uninstall gives back. A file that
        # already holds gateway handlers keeps the record of an earlier install (or has
        # none, if a teammate committed it; uninstall then only takes the handlers out).
        backup.write_record(path, loaded.raw, created, env,
                            _mode(path) if loaded.exists else None)
    if loaded.exists:
        res.backup = backup.save_backup(path, loaded.raw, env)
    _write(path, new_text, new, private)
    if sandbox is not None:
        from gateway.sandbox import install as sandbox_install

        sandbox_install.write_record(path, sandbox_record, env)
    if scope == "local" and not settings_file:
        from gateway.install import gitignore

        note = gitignore.ensure_ignored(path, env, backup.folder(path, env))
        if note:
            res.notes.append(note)
    return res


def _keep_layout(loaded, new) -> str:
    """The new file's text: when only the top-level "hooks" member differs, the old text
    with just that member replaced (the rest keeps the user's layout, inline arrays and
    all: gateway.install.splice); else the whole file in its detected style."""
    old = loaded.data if loaded.exists else None
    if isinstance(old, dict) and isinstance(new, dict) and loaded.raw and \
            {k: v for k, v in old.items() if k != "hooks"} == \
            {k: v for k, v in new.items() if k != "hooks"}:
        from gateway.install import splice

        text = _text(loaded.raw)
        bom = text.startswith(jsonfile.BOM)
        out = splice.replace_member(text[1:] if bom else text, "hooks", new.get("hooks"),
                                    new, loaded.style)
        if out is not None:
            return (jsonfile.BOM if bom else "") + out
    return jsonfile.dumps(new, loaded.style)


def uninstall(scope="project", project=None, settings_file=None, dry_run=False,
              env=None) -> Result:
    """Remove every gateway handler from the settings file of `scope`."""
    path = _resolve(scope, project, settings_file, env)
    res = Result(path)
    res.dry_run = dry_run
    loaded = jsonfile.load(path)
    if not loaded.exists:
        res.notes.append(f"{path} does not exist; nothing to uninstall"
                         + _elsewhere(scope, project, settings_file, env))
        return res
    merge.check_shape(loaded.data, path)
    record = backup.read_record(path, env)
    original = None
    if record is not None and record.original is not None:
        try:
            original, _ = jsonfile.parse(record.original, path)
        except InstallError:
            record = None
    new, res.changes = merge.uninstall(loaded.data, original)
    from gateway.sandbox import configure

    new, more = configure.uninstall(new, original, scope, project, path, env, res.notes)
    res.changes += more
    if not res.changes:
        res.notes.append(f"no gateway hooks in {path}" + _elsewhere(scope, project,
                                                                   settings_file, env))
        if not dry_run and record is not None:
            backup.drop_record(path, env)
        return res
    res.changed = True
    delete = False
    if record is not None and record.original is None and new == {}:
        delete = True  # install created this file: take it away again
        new_raw = b""
    elif record is not None and record.original is not None and _same(new, original):
        new_raw = record.original
        res.restored = True
    else:
        new_raw = _keep_layout(loaded, new).encode("utf-8")
    res.diff = _diff(path, _text(loaded.raw), "" if delete else _text(new_raw))
    if dry_run:
        res.removed_file = delete
        return res
    res.backup = backup.save_backup(path, loaded.raw, env)
    if delete:
        os.unlink(os.path.realpath(path))
        res.removed_file = True
        for d in reversed(record.created_dirs):
            try:
                os.rmdir(d)  # only when empty
                res.removed_dirs.append(d)
            except OSError:
                break
    else:
        jsonfile.write_atomic(path, new_raw)
        if res.restored:
            _restore_mode(path, record.mode)
    if scope == "local" and not settings_file:
        from gateway.install import gitignore

        note = gitignore.release(path, env, backup.folder(path, env), backup.state_root(env))
        if note:
            res.notes.append(note)
    backup.drop_record(path, env)
    from gateway.sandbox import install as sandbox_install

    sandbox_install.write_record(path, None, env)
    return res


def _elsewhere(scope, project, settings_file, env) -> str:
    """Where else the gateway's hooks are, with the command that takes them out: "" when
    no other scope's settings file holds them."""
    if settings_file:
        return ""
    found = []
    for other in SCOPES:
        if other == scope:
            continue
        try:
            other_path = settings_path(other, project, env)
            data = jsonfile.load(other_path)
        except (InstallError, OSError):
            continue
        if data.exists and isinstance(data.data, dict) and merge.owned(data.data):
            found.append((other, other_path))
    if not found:
        return ""
    return "; the gateway's hooks are in " + ", ".join(
        f"{p} (`gateway uninstall --scope {o}`)" for o, p in found)


def _restore_mode(path, original) -> None:
    """Give back the permission bits an http install took away (see _write's `private`):
    only when the file is exactly as private as the gateway made it, never looser than the
    user set it themselves."""
    now = _mode(path)
    if original is None or now is None or now == original or now != original & 0o700:
        return
    try:
        os.chmod(os.path.realpath(path), original)
    except OSError:
        pass


def _write(path, text, expected, private=False) -> None:
    try:
        jsonfile.write_atomic(path, text.encode("utf-8"), private)
    except OSError as exc:
        raise InstallError(f"{path}: cannot write: {exc.strerror or exc}; nothing was "
                           "changed") from None
    again = jsonfile.load(path)
    if again.data != expected:
        raise InstallError(f"{path}: re-reading the written file gave something else; "
                           "restore it from the backup and report this")
