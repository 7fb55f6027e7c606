"""The sandbox block `gateway install` writes: generated from the gateway's own rules.

One source: what a sandboxed command may not read is the policy's secrets (rules/default.yaml
`secrets`), what it may not write is the policy's `autorun` files found in the project's
virtual environments, the project's configured git hooks directory, the gateway's own files
(gateway.ownpaths) and the run-later files of rules/sandbox.yaml; what it may write besides
the project and its temporary directory is the toolchain caches of rules/sandbox.yaml whose
files the project has. Nothing is kept by hand in two places.

How the client reads the paths (Claude Code 2.1.330 on Linux, measured: docs/client-behaviour.md
"The Bash sandbox"): in a project's settings file (`.claude/settings.json` or
`settings.local.json`) a relative path or glob is relative to the project (`**/.env`,
`.envrc`); in the user's settings it is relative to ~/.claude, so there only `~/...` and
absolute (`//...`) paths are written; `~/` is the home directory. denyRead takes globs
(`**/x` at any depth, applied again before every command, so a file created later is hidden
too; brace alternatives `{a,b}` have no effect). denyWrite takes concrete paths only: a glob
there has no effect, so every write entry is a path (a missing file gets a placeholder).
Each glob costs time on every Bash call (the client walks the project for it: about 2 ms
per glob per 5,000 files), so home-directory secrets are written as concrete paths.

`generate()` returns a Spec: the block for the settings file and, for every entry, why it is
there (`gateway install --dry-run` and `gateway doctor` print them).
"""

import os
import posixpath
import subprocess

from gateway.sandbox.globs import (  # noqa: F401 - spec is where install looks
    client_credentials,
    home_form,
    home_secrets,
    hooks_only_secrets,
    secret_globs,
    template_globs,
)

#: The scalar keys install sets, with their values. allowUnsandboxedCommands is left out when
#: the user opts out (`--allow-unsandboxed`).
FLAGS = (("enabled", True), ("failIfUnavailable", True), ("allowUnsandboxedCommands", False))
LIST_KEYS = ("denyRead", "allowRead", "denyWrite", "allowWrite")
#: The one network list install writes: `gateway serve`'s loopback address and port, when
#: the hooks are http (`gateway install --http`). Claude Code sends http hooks through its
#: sandbox's network proxy, which refuses (403) a host that is not allowed; the entry names
#: the port, so no other loopback service is opened to sandboxed commands.
NETWORK_KEY = "network.allowedDomains"
#: Where a virtual environment keeps the files Python imports at start-up.
_SITE_DIRS = ("site-packages", "dist-packages")
_VENV_SEARCH_DEPTH = 2  # pyvenv.cfg at <project>/<dir>/ or <project>/<dir>/<dir>/


class Entry:
    """One value of sandbox.filesystem.<key>, with where it comes from and why."""

    __slots__ = ("key", "value", "origin", "why")

    def __init__(self, key, value, origin, why):
        self.key = key  # denyRead | denyWrite | allowWrite
        self.value = value  # as written in the settings file
        self.origin = origin  # "secrets", "home", "client", "autorun", "hooks", "own", ...
        self.why = why

    def __repr__(self) -> str:
        return f"Entry({self.key!r}, {self.value!r}, {self.origin!r})"


class Spec:
    """The generated sandbox settings: flags, entries, and notes for the user."""

    def __init__(self):
        self.flags = {}
        self.entries = []
        self.notes = []
        self.toolchains = []  # names of the toolchain presets written

    def add(self, key, value, origin, why):
        if not any(e.key == key and e.value == value for e in self.entries):
            self.entries.append(Entry(key, value, origin, why))

    def values(self, key) -> list:
        return [e.value for e in self.entries if e.key == key]

    def block(self) -> dict:
        """The "sandbox" object as install writes it (keys in the client's documented order)."""
        out = dict(self.flags)
        fs = {k: self.values(k) for k in LIST_KEYS if self.values(k)}
        if fs:
            out["filesystem"] = fs
        if self.values(NETWORK_KEY):
            out["network"] = {"allowedDomains": self.values(NETWORK_KEY)}
        return out


# --- writes -----------------------------------------------------------------------------


def site_dirs(project) -> list:
    """Project-relative site-packages directories of the virtual environments in the project
    (a directory with pyvenv.cfg, at most two levels down; .tox's environments included)."""
    out = []
    for venv in _venvs(project):
        for lib in ("lib", "lib64"):
            base = os.path.join(venv, lib)
            try:
                pys = sorted(os.listdir(base))
            except OSError:
                continue
            for py in pys:
                if not py.startswith(("python", "pypy")):
                    continue
                for site in _SITE_DIRS:
                    d = os.path.join(base, py, site)
                    if os.path.isdir(d) and not os.path.islink(d):
                        out.append(os.path.relpath(d, project))
    return sorted(set(out))


def _venvs(project):
    found = []
    level = [project]
    for _depth in range(_VENV_SEARCH_DEPTH):
        nxt = []
        for d in level:
            try:
                with os.scandir(d) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except OSError:
                continue
            for e in entries:
                if e.name in (".git", "node_modules") or not e.is_dir(follow_symlinks=False):
                    continue
                if os.path.isfile(os.path.join(e.path, "pyvenv.cfg")):
                    found.append(e.path)
                else:
                    nxt.append(e.path)
        level = nxt
    return found


def autorun_writes(policy, project) -> list:
    """[(project-relative path, rule)]: the `autorun` files of the policy in the project's
    virtual environments: every site-packages directory's start-up modules (named in the
    rules without a directory: sitecustomize.py, usercustomize.py), whether or not they exist
    yet, and its existing `*.pth` files (a new .pth cannot be named in advance: the hooks ask
    for a write they see, GW836)."""
    import fnmatch

    out = []
    names = [p for p in policy.autorun if "/" not in p and not any(c in "*?[" for c in p)
             and p not in _SITE_DIRS]
    globs = [p.split("/", 1)[1] for p in policy.autorun
             if "/" in p and p.split("/", 1)[0] in _SITE_DIRS]
    for sd in site_dirs(project):
        for name in names:
            out.append((f"{sd}/{name}", name))
        try:
            present = sorted(os.listdir(os.path.join(project, sd)))
        except OSError:
            present = []
        for g in globs:
            for f in present:
                if fnmatch.fnmatchcase(f, g) and f not in names:
                    out.append((f"{sd}/{f}", f"{sd.rsplit('/', 1)[-1]}/{g}"))
    return out


def hooks_dir(project) -> str | None:
    """The project's configured git hooks directory (core.hooksPath in the repository's own
    configuration), project-relative, when it lies inside the project and is not .git/hooks
    (which the client protects); else None."""
    cfg = os.path.join(project, ".git", "config")
    if not os.path.isfile(cfg):
        return None
    try:
        p = subprocess.run(["git", "config", "--file", cfg, "--get", "core.hooksPath"],
                           capture_output=True, text=True, timeout=10,
                           stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    value = p.stdout.strip()
    if p.returncode != 0 or not value:
        return None
    path = os.path.expanduser(value)
    if not os.path.isabs(path):
        path = os.path.join(project, path)
    path = posixpath.normpath(path)
    rel = os.path.relpath(path, project)
    if rel == "." or rel.startswith("..") or rel in (".git", ".git/hooks") \
            or rel.startswith(".git/hooks/"):
        return None
    return rel


def own_writes(project, env) -> list:
    """The gateway's own files (its rules, installed code, caches, audit log directory), as
    gateway.ownpaths lists them for the hooks: no sandboxed command may write them."""
    from gateway import paths
    from gateway.ownpaths import own_paths

    out = []
    for p in own_paths(paths.Roots(project), env):
        form = home_form(p, env)
        if form not in out:
            out.append(form)
    return out


# --- the whole block --------------------------------------------------------------------


def load_extras():
    """rules/sandbox.yaml, validated: (deny_write entries, toolchain presets)."""
    from gateway.sandbox import extras

    return extras.load()


def generate(policy, project, *, scope="project", env=None, allow_unsandboxed=False,
             toolchains=True) -> Spec:
    """The sandbox block for `project` (absolute) in a settings file of `scope`."""
    env = dict(os.environ if env is None else env)
    spec = Spec()
    for key, value in FLAGS:
        if key == "allowUnsandboxedCommands" and allow_unsandboxed:
            continue
        spec.flags[key] = value
    per_project = scope in ("project", "local")
    deny_write, presets = load_extras()
    if per_project:
        for glob, rule in secret_globs(policy):
            spec.add("denyRead", glob, "secrets", f"a secret by the rules ({rule})")
        for glob in template_globs(policy):
            spec.add("allowRead", glob, "secrets", "a template, not a secret by the rules "
                     "(re-opened below the denyRead globs)")
    for path, rule in home_secrets(policy):
        spec.add("denyRead", path, "home", f"a credential store in the home directory ({rule})")
    for path in client_credentials(env):
        spec.add("denyRead", path, "client", "Claude Code's own credentials")
    if per_project:
        for path, rule in autorun_writes(policy, project):
            spec.add("denyWrite", path, "autorun", f"Python runs it at every start ({rule})")
        hd = hooks_dir(project)
        if hd:
            spec.add("denyWrite", hd, "hooks", "git runs the hooks in it (core.hooksPath)")
        for item in deny_write:
            if os.path.lexists(os.path.join(project, item.path)):
                spec.add("denyWrite", item.path, "rules/sandbox.yaml", item.why)
    for path in own_writes(project, env):
        spec.add("denyWrite", path, "own", "the gateway's own files (rules, code, cache, "
                 "audit log)")
    if toolchains and per_project:
        for preset in presets:
            hit = next((f for f in preset.detect
                        if os.path.lexists(os.path.join(project, f))), None)
            if hit is None:
                continue
            spec.toolchains.append(preset.name)
            for path in preset.allow_write:
                spec.add("allowWrite", path, f"toolchain:{preset.name}",
                         f"{preset.why} ({hit} is in the project)")
    if not per_project:
        spec.notes.append("user scope: the project's own secrets are not written (a relative "
                          "path in the user's settings is relative to ~/.claude, and a glob "
                          "over every project would walk the disk on every command); run "
                          "`gateway install --scope local` in a project to hide its secrets "
                          "from sandboxed commands")
    return spec
