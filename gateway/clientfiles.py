"""What the client protects on its own, and the hooks directory git is configured to run.

* `sensitive(path, policy)`: the rule of the client's own sensitive files (the rules'
  `client_sensitive`, read from Claude Code 2.1.330 and measured with it): it asks before it
  edits them, even in acceptEdits. A hook's allow overrides that dialog, so the gateway never
  allows a Bash write of such a path (GW783): the gateway must never loosen the client.
* `hooks_dirs(project)`: the directory the project's repository names in `core.hooksPath`
  (husky sets `.husky/_`; teams use `.githooks`): `git commit` runs the programs in it, so it
  is part of the permission surface like `.git/hooks/` (gateway.effects.files, GW832).

Standard library only: the hook path imports it.
"""

import os
import posixpath

#: Bytes of a repository configuration file read at most.
_CONFIG_MAX = 1 << 20


def sensitive(path, policy) -> str:
    """The `client_sensitive` entry the absolute `path` matches, or ""."""
    dirs = getattr(policy, "client_dirs", frozenset())
    names = getattr(policy, "client_names", frozenset())
    runs = getattr(policy, "client_paths", ())
    parts = [c.lower() for c in path.split("/") if c]
    if not parts:
        return ""
    if parts[-1] in names:
        return parts[-1]
    for c in parts:
        if c in dirs:
            return c + "/"
    for run in runs:
        n = len(run)
        for i in range(len(parts) - n + 1):
            if tuple(parts[i:i + n]) == run:
                return "/".join(run)
    return ""


def _config_values(text, section, key):
    """The values of `key` in `[section]` of a git configuration file's text (a minimal
    reading: no includes, no continuation lines; enough for the common spelling)."""
    out = []
    current = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            current = line[1:line.find("]")].strip().split()[0].lower() if "]" in line else None
            line = line[line.find("]") + 1:].strip() if "]" in line else ""
            if not line:
                continue
        if current != section or "=" not in line:
            continue
        name, _, value = line.partition("=")
        if name.strip().lower() != key:
            continue
        value = value.strip()
        for mark in (" #", " ;", "\t#", "\t;"):
            if mark in value and not value.startswith('"'):
                value = value.split(mark, 1)[0].strip()
        if len(value) >= 2 and value[0] == value[-1] == '"':
            value = value[1:-1]
        out.append(value)
    return out


def _read(path):
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if st.st_mode & 0o170000 != 0o100000 or st.st_size > _CONFIG_MAX:
            return None
        return os.read(fd, _CONFIG_MAX).decode("utf-8", "replace")
    finally:
        os.close(fd)


def hooks_dirs(project) -> list:
    """The absolute directories `core.hooksPath` names in the configuration of the project's
    repository (found from the project upwards), [] when none."""
    from gateway.tools.gitindex import git_dir_of

    try:
        git_dir = git_dir_of(project, "/")
    except OSError:
        return []
    if git_dir is None:
        return []
    top = posixpath.dirname(git_dir) if posixpath.basename(git_dir) == ".git" else project
    out = []
    for name in ("config", "config.worktree"):
        text = _read(os.path.join(git_dir, name))
        if not text:
            continue
        for value in _config_values(text, "core", "hookspath"):
            if not value:
                continue
            if value.startswith("~/"):
                value = os.path.expanduser(value)
            # a relative core.hooksPath is relative to where the hooks run: the work tree
            out.append(posixpath.normpath(posixpath.join(top, value)))
    return list(dict.fromkeys(out))
