"""`.claude/settings.local.json` stays out of git, as Claude Code keeps it out.

When Claude Code writes a project's settings.local.json it adds the line
`**/.claude/settings.local.json` to the user's global git excludes file (core.excludesFile,
else $XDG_CONFIG_HOME/git/ignore, else ~/.config/git/ignore); it never edits the project's
.gitignore (measured on 2.1.330, docs/client-behaviour.md). `gateway install --scope local`
does the same when git would otherwise see the file, and says so.
"""

import os
import subprocess

LINE = "**/.claude/settings.local.json"


def _git(args, cwd, env):
    try:
        return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True,
                              text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None


def excludes_file(cwd, env) -> str:
    """The global excludes file git reads (the one Claude Code writes to)."""
    p = _git(["config", "--global", "--get", "core.excludesFile"], cwd, env)
    if p is not None and p.returncode == 0 and p.stdout.strip():
        return os.path.expanduser(p.stdout.strip())
    xdg = (env or os.environ).get("XDG_CONFIG_HOME")
    base = xdg if xdg and xdg.startswith("/") else os.path.join(
        os.path.expanduser("~"), ".config")
    return os.path.join(base, "git", "ignore")


#: The note, in an install's record folder, that this install added LINE (uninstall takes
#: it out again when no other install's note remains).
NOTE = "git-excludes.json"


def ensure_ignored(settings_path, env=None, record_dir=None) -> str:
    """Make git ignore `settings_path` (a project's .claude/settings.local.json) if it does
    not already; the sentence to tell the user, or "" when nothing was needed. When LINE is
    added, `record_dir` (the install's record folder) notes it for uninstall."""
    env = dict(os.environ if env is None else env)
    project = os.path.dirname(os.path.dirname(settings_path))
    inside = _git(["rev-parse", "--is-inside-work-tree"], project, env)
    if inside is None or inside.returncode != 0 or inside.stdout.strip() != "true":
        return ""  # not a git work tree (or no git): nothing would commit it
    check = _git(["check-ignore", "-q", "--", settings_path], project, env)
    if check is None or check.returncode == 0:
        return ""
    if check.returncode != 1:
        return (f"git could not say whether it ignores {settings_path} "
                f"({(check.stderr or '').strip()[:200]}); make sure it is not committed")
    path = excludes_file(project, env)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        text = ""
        if os.path.exists(path):
            with open(path, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
        if LINE not in text.splitlines():
            with open(path, "a", encoding="utf-8") as fh:
                fh.write(("" if not text or text.endswith("\n") else "\n") + LINE + "\n")
            if record_dir:
                _note(record_dir, path, created=not text)
    except OSError as exc:
        return (f"{settings_path} is not ignored by git and {path} cannot be written "
                f"({exc.strerror or exc}): add {LINE} to your git excludes yourself")
    return (f"git now ignores .claude/settings.local.json: added {LINE} to {path}, as Claude "
            "Code does for this file")


def _note(record_dir, path, created):
    import json

    from gateway.install.jsonfile import write_atomic

    os.makedirs(record_dir, mode=0o700, exist_ok=True)
    write_atomic(os.path.join(record_dir, NOTE),
                 (json.dumps({"file": path, "line": LINE, "created": created}) + "\n")
                 .encode("utf-8"))


def release(settings_path, env=None, record_dir=None, records_root=None) -> str:
    """Uninstall's half of ensure_ignored: when this install added LINE, take it out of
    the excludes file again, unless another local install's note still relies on it or
    the line is gone already (the file is removed when it held only that line and install
    created it). The sentence to tell the user, or ""."""
    import json

    if not record_dir:
        return ""
    note_path = os.path.join(record_dir, NOTE)
    try:
        with open(note_path, encoding="utf-8") as fh:
            note = json.load(fh)
        path = note["file"]
        created = bool(note.get("created"))
    except (OSError, ValueError, KeyError, TypeError):
        return ""
    try:
        os.unlink(note_path)
    except OSError:
        pass
    if records_root and os.path.isdir(records_root):
        for other in os.listdir(records_root):
            if os.path.exists(os.path.join(records_root, other, NOTE)):
                return ""  # another project's local install still relies on the line
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            lines = fh.read().splitlines(keepends=True)
    except OSError:
        return ""
    kept = [x for x in lines if x.rstrip("\r\n") != LINE]
    if len(kept) == len(lines):
        return ""
    try:
        if not kept and created:
            os.unlink(path)
        else:
            with open(path, "w", encoding="utf-8") as fh:
                fh.write("".join(kept))
    except OSError as exc:
        return (f"could not take {LINE} out of {path} ({exc.strerror or exc}); remove it "
                "yourself if nothing else needs it")
    return f"took {LINE} out of {path} again (install had added it)"
