"""Write targets: canonical paths, escapes, and the paths no agent may write (any tool).

Used by the Write/Edit/MultiEdit/NotebookEdit guard and, through the Bash analyzer's write
list, for Bash. A target is canonicalised twice (gateway.paths): lexically against the
payload's cwd (`..` removed) and really (every symlink resolved). Decisions:

* GW830  a path with `..` that ends outside the project;
* GW831  a path inside the project whose real target is outside (a symlink escape);
* GW832  the permission surface: the rules' `protected_paths` (Claude Code settings, hook
         files, the gateway's rules, .git/hooks, .git/config...), anything under a `.git`
         directory of the project, the gateway's own rules/cache/audit directories and an
         installed copy of the gateway;
* GW833  (ask, not deny) secrets (the rules' `secrets`, plus `*id_rsa*` and
         `*id_ed25519*`): the user's own `.env` set-up needs a human, never a refusal;
* GW839  (ask, not deny) the repository's own data below `.git` (index, refs, objects, lock
         files: `rm .git/index.lock`), and a plain value in git's configuration
         (`git config user.name bob`);
* GW834  the state files only the gateway writes (breezing-session-roles.json,
         gateway-breezing-phase.json, the workflow state gateway-workflow.sqlite3 and its
         journals, the Phase C records, their lock files) and the orchestrator store
         agent-coord/;
* GW836  (ask, not deny) files whose content runs later without review: the rules'
         `autorun` (sitecustomize.py, *.pth in site-packages, shell start-up files).

A "tree" write (rm -r, mv, find -delete, git clean) also hits when the tree contains such a
path (`rm -rf .claude`, `rm -rf .git`, `mv .claude x`).
"""

import os
import posixpath

from gateway import paths
from gateway.state.layout import PHASE, ROLE_MARKER_GLOB, SESSION_ROLES, STATE_DIR

FILE_TOOLS = {"Write": "file_path", "Edit": "file_path", "MultiEdit": "file_path",
              "NotebookEdit": "notebook_path"}
STATE_REL = STATE_DIR.replace(os.sep, "/")
ACTIVE_REL = STATE_REL + "/breezing-active.json"
#: Written only by the gateway (and their lock files): an agent that could write them could
#: register itself with any role, end delegate mode, or make the team's stores say what it
#: likes (the workflow state of seed 002 -- SQLite with its journal files --, the Phase C
#: records of `gateway breezing verify|finish`).
_DB = "gateway-workflow.sqlite3"
_GATEWAY_WRITTEN = (SESSION_ROLES, PHASE, _DB, "gateway-breezing-verify.json",
                    "gateway-breezing-finish.json", "gateway-breezing-progress.json")
MAINTAINED = tuple(f"{STATE_REL}/{n}" for n in _GATEWAY_WRITTEN) + tuple(
    f"{STATE_REL}/{_DB}{x}" for x in ("-journal", "-wal", "-shm")) + tuple(
    f"{STATE_REL}/.{n}.lock" for n in _GATEWAY_WRITTEN)
#: Directories only the gateway (the orchestrator store of seed 003) writes: every task, run
#: and session file below, and its CAS locks.
MAINTAINED_TREES = ("agent-coord",)
EXTRA_SECRET_GLOBS = ("*id_rsa*", "*id_ed25519*")
#: The surface hit of a file that runs later asks instead of denying: a human may mean it.
AUTORUN_CODE = "GW836"
#: Surface hits a human may approve (ask, not deny): a file that runs later, a secret (the
#: user's own .env set-up), the repository's own data below .git.
ASK_CODES = frozenset((AUTORUN_CODE, "GW833", "GW839", "GW843"))


def rel_to(path, *roots):
    """`path` relative to the first root it is within ("" for the root itself), or None."""
    for root in roots:
        if paths.is_within(path, root):
            return path[len(root):].lstrip("/")
    return None


class Target:
    """A file tool's target, canonical."""

    __slots__ = ("raw", "lex", "real", "rel_lex", "rel_real", "dotdot")

    def __init__(self, raw, cwd, roots):
        self.raw = raw
        self.lex = paths.lexical(raw, cwd)
        self.real = paths.physical(raw, cwd)
        self.rel_lex = rel_to(self.lex, roots.project, roots.project_real)
        self.rel_real = rel_to(self.real, roots.project_real, roots.project)
        self.dotdot = ".." in raw.split("/")

    @property
    def inside(self) -> bool:
        return self.rel_lex is not None and self.rel_real is not None

    @property
    def symlinked(self) -> bool:
        """A symlink on the way (inside the project: the relative paths differ)."""
        if self.rel_lex is not None and self.rel_real is not None:
            return self.rel_lex != self.rel_real or os.path.islink(self.lex)
        return self.lex != self.real

    @property
    def in_state_dir(self) -> bool:
        """Both forms are below the project's .claude/state/."""
        return (self.inside and self.rel_lex.startswith(STATE_REL + "/")
                and self.rel_real.startswith(STATE_REL + "/"))

    @property
    def is_role_marker(self) -> bool:
        """A role marker: .claude/state/breezing-role-*.json directly, with no symlink."""
        return (self.inside and self.rel_lex == self.rel_real
                and posixpath.dirname(self.rel_real) == STATE_REL
                and paths.fnmatchcase(posixpath.basename(self.rel_real), ROLE_MARKER_GLOB)
                and not os.path.islink(self.lex))

    @property
    def names_role_marker(self) -> bool:
        """Named as a role marker (as written, links not followed): the Write meant to
        register; whether it may is for the guards (a link on the way is refused there)."""
        return (self.rel_lex is not None
                and posixpath.dirname(self.rel_lex) == STATE_REL
                and paths.fnmatchcase(posixpath.basename(self.rel_lex), ROLE_MARKER_GLOB))

    @property
    def is_active_file(self) -> bool:
        return any(r is not None and r.lower() == ACTIVE_REL
                   for r in (self.rel_lex, self.rel_real))


def escape(target, roots):
    """(code, message) for a `..` or symlink escape out of the project, else None."""
    inside_lex = roots.lexically_inside(target.lex)
    if target.dotdot and not (inside_lex and roots.really_inside(target.real)):
        return ("GW830", f"{target.raw!r} uses '..' to leave the project (it is {target.lex})")
    if inside_lex and not roots.really_inside(target.real):
        return ("GW831", f"{target.raw!r} is inside the project as written but a symlink "
                         f"leads outside (to {target.real})")
    return None


class Surface:
    """The paths no agent may write, for one request."""

    def __init__(self, roots, policy, env):
        from gateway.ownpaths import own_paths

        self.roots = roots
        self.policy = policy
        self.home = posixpath.normpath(os.path.expanduser("~"))
        # the validator's roots carry the request's environment and keep the list once
        self.gateway_paths = roots.own() if roots.env is env else own_paths(roots, env)
        config = env.get("CLAUDE_CONFIG_DIR")
        self.claude_config = posixpath.normpath(config) if config and config.startswith("/") \
            else None
        self._hooks_dirs = None

    @property
    def hooks_dirs(self):
        """The directories core.hooksPath names (gateway.clientfiles), read once."""
        if self._hooks_dirs is None:
            from gateway.clientfiles import hooks_dirs

            dirs = hooks_dirs(self.roots.project)
            self._hooks_dirs = [f for d in dirs for f in dict.fromkeys((d, paths.real(d)))]
        return self._hooks_dirs

    def _rels(self, p):
        out = []
        r = rel_to(p, self.roots.project, self.roots.project_real)
        if r is not None:
            out.append(r)
        return out

    def check(self, lex, real, tree=False):
        """(code, rule, what) when writing lex/real (or, for a tree write, anything below it)
        touches the surface or a secret; else None."""
        forms = tuple(dict.fromkeys((lex, real)))
        rels = [r for p in forms for r in self._rels(p)]
        # the gateway's own state files
        for r in rels:
            low = r.lower()
            if low in MAINTAINED:
                return ("GW834", low, "written only by the gateway")
            below = next((m for m in MAINTAINED + (ACTIVE_REL,) if low.startswith(m + "/")),
                         None)
            if below:  # a directory in its place would lock everyone out (GW890)
                return ("GW834", below, "a path below the gateway's own state file")
            if tree and any(m.startswith(low + "/") or low == "" for m in MAINTAINED):
                return ("GW834", MAINTAINED[0], "it contains the gateway's role registrations")
            for t in MAINTAINED_TREES:
                if low == t or low.startswith(t + "/") or (
                        tree and (low == "" or t.startswith(low + "/"))):
                    return ("GW834", t + "/", "the orchestrator store, written only by the "
                            "gateway")
        # the project as a whole (rm -rf . / of a parent)
        if tree:
            for p in forms:
                for root in (self.roots.project, self.roots.project_real):
                    if paths.is_within(root, p):
                        return ("GW832", "project", "it contains the whole project (its .git, "
                                "settings and hooks)")
        # .git: its configuration and hooks run code; the rest (index, refs, objects, lock
        # files) is the repository's own data, a human's call (GW839, ask)
        git_internal = None
        for r in rels:
            kind = _git_part(r, tree)
            if kind == "surface":
                return ("GW832", ".git/", "the repository's configuration or hooks (git runs "
                        "what they name)")
            if kind == "internal":
                git_internal = ("GW839", ".git/", "the repository's own data (index, refs, "
                                "objects, lock files)")
        # protected_paths from the rules
        pat = paths.is_protected(forms, self.roots, self.policy)
        if pat:
            return ("GW832", pat, "part of the agent's permission surface")
        if git_internal is not None:
            return git_internal
        if tree:
            for p in forms:
                for r in rels:
                    for pat in self.policy.protected_paths:
                        if not pat.startswith("~/") and paths.holds_pattern(r, pat):
                            return ("GW832", pat, "it contains part of the agent's permission "
                                    "surface")
                if paths.is_within(p, self.home):
                    hr = p[len(self.home):].lstrip("/")
                    for pat in self.policy.protected_paths:
                        if pat.startswith("~/") and paths.holds_pattern(hr, pat[2:]):
                            return ("GW832", pat, "it contains part of the agent's permission "
                                    "surface")
        # the hooks directory the repository's core.hooksPath names: git commit runs it
        for p in forms:
            for d in self.hooks_dirs:
                if paths.is_within(p, d) or (tree and paths.is_within(d, p)):
                    return ("GW832", "core.hooksPath", f"the hooks directory the repository's "
                            f"core.hooksPath names ({d}): git runs the programs in it")
        # the gateway's own files
        for p in forms:
            for g in self.gateway_paths:
                if paths.is_within(p, g) or (tree and paths.is_within(g, p)):
                    return ("GW832", g, "the gateway's own rules, cache or audit log")
        # Claude Code settings and hooks under CLAUDE_CONFIG_DIR
        if self.claude_config:
            for p in forms:
                r = rel_to(p, self.claude_config)
                if r is not None and (paths.glob_match("settings*.json", r)
                                      or paths.glob_match("hooks/**", r) or r == "hooks"
                                      or (tree and (r == "" or paths.holds_pattern(
                                          r, "hooks/**")))):
                    return ("GW832", "$CLAUDE_CONFIG_DIR/" + (r or "."),
                            "Claude Code's own settings or hooks")
        # any other project's Claude Code settings and hooks, any repository's git hooks and
        # config: they run code the next time someone works there
        for p in forms:
            hit = _foreign_surface(p, tree)
            if hit:
                return ("GW832", hit, "another project's Claude Code settings or hooks, or a "
                        "repository's git hooks or config")
        # secrets
        pat = paths.is_secret(forms, self.policy)
        if not pat:
            base = posixpath.basename(lex)
            for g in EXTRA_SECRET_GLOBS:
                if paths.fnmatchcase(base.lower(), g):
                    pat = g
                    break
        if pat:
            return ("GW833", pat, "a secret (keys, credentials, .env files): yours to "
                    "approve, since the agent sees what it writes there")
        pat = paths.is_autorun(forms, self.policy, self.home)
        if pat:
            return (AUTORUN_CODE, pat, "a file whose content runs later without review "
                    "(Python imports it at every start, or a shell runs it)")
        return None


#: Tree writes that only remove what is there: a protected pattern that matches nothing on
#: disk below them is no reason to object. Those that remove everything below the directory
#: they name are denied when something protected is there; those that choose by a filter the
#: gateway does not reproduce (find -delete, find -exec rm, git clean) are asked.
_REMOVE_ALL = ("rm", "rmdir", "unlink", "shred", "mv (source)", "git mv (source)", "git rm")
_REMOVE_FILTERED = ("find -delete", "git clean", "find -exec rm", "find -execdir rm",
                    "find -ok rm", "find -okdir rm")
#: Entries below a tree the on-disk look walks before it gives up (then: not certain).
TREE_WALK_LIMIT = 5000
#: below()'s answer when the walk could not finish.
UNKNOWN = ("", "", "")


def removal(via: str) -> str:
    """"all", "filtered" or "" (not a pure removal: it may create or rewrite files, such as
    cp/mv destinations, ln -s targets, git restore/checkout)."""
    if via in _REMOVE_ALL:
        return "all"
    if via in _REMOVE_FILTERED:
        return "filtered"
    return ""


def below(surface, top: str):
    """The surface hit of the first entry that exists below directory `top` (not following
    links, at most TREE_WALK_LIMIT entries), None when nothing there is protected, UNKNOWN
    when the walk could not finish. A tree write's patterns that match nothing on disk are
    no reason to object to it."""
    if not os.path.isdir(top) or os.path.islink(top):
        return None
    seen = 0
    stack = [top]
    asked = None  # the first hit a human may approve (ASK_CODES); a deny hit wins
    while stack:
        d = stack.pop()
        try:
            with os.scandir(d) as it:
                entries = list(it)
        except OSError:
            return UNKNOWN
        for e in entries:
            seen += 1
            if seen > TREE_WALK_LIMIT:
                return UNKNOWN
            path = e.path
            hit = surface.check(path, paths.real(path))
            if hit and hit[0] == AUTORUN_CODE:
                pass  # removing a file that runs later runs nothing
            elif hit and hit[0] in ASK_CODES:
                asked = asked or hit
            elif hit:
                return hit
            try:
                if e.is_dir(follow_symlinks=False):
                    stack.append(path)
            except OSError:
                return UNKNOWN
    return asked


# --- owns globs --------------------------------------------------------------------------------

_owns_cache = {}


def _owns_regex(pattern):
    """Case-sensitive glob: `*` and `?` stay within a component, `**` spans any number of
    components (also none), `[...]` is a character class; no string-prefix matching."""
    rx = _owns_cache.get(pattern)
    if rx is not None:
        return rx
    import re

    out = []
    i = 0
    n = len(pattern)
    while i < n:
        c = pattern[i]
        if c == "*":
            if pattern.startswith("**", i):
                before_ok = i == 0 or pattern[i - 1] == "/"
                after = pattern[i + 2:i + 3]
                if before_ok and after == "/":
                    out.append("(?:[^/]+/)*")
                    i += 3
                    continue
                if before_ok and after == "":
                    out.append(".*")
                    i += 2
                    continue
            out.append("[^/]*")
            while i < n and pattern[i] == "*":
                i += 1
            continue
        if c == "?":
            out.append("[^/]")
        elif c == "[":
            j = pattern.find("]", i + 2)
            if j < 0:
                out.append(re.escape(c))
            else:
                body = pattern[i + 1:j]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append("(?!/)[" + body.replace("\\", "\\\\") + "]")
                i = j + 1
                continue
        else:
            out.append(re.escape(c))
        i += 1
    try:
        rx = re.compile("".join(out) + r"\Z", re.DOTALL)
    except re.error:
        rx = re.compile(r"(?!)")  # an unusable pattern matches nothing
    if len(_owns_cache) > 512:
        _owns_cache.clear()
    _owns_cache[pattern] = rx
    return rx


def owns_match(patterns, rel, absolute):
    """The `owns` pattern that admits the project-relative path `rel` (absolute path
    `absolute`), or "". A pattern is relative to the project root (a leading ./ is ignored);
    an absolute one is matched against the absolute path; a pattern ending in / or without
    glob characters names a directory too and admits everything below it (component-wise:
    `src/auth` admits src/auth/x, never src/authz/x). Patterns with `..` admit nothing."""
    for pat in patterns:
        if not isinstance(pat, str) or not pat or ".." in pat.split("/"):
            continue
        p = pat
        subject = rel
        if p.startswith("/"):
            subject = absolute
        else:
            while p.startswith("./"):
                p = p[2:]
        if subject is None or not p:
            continue
        if p.endswith("/"):
            p = p + "**"
        elif not any(ch in p for ch in "*?["):
            if subject == p or subject.startswith(p.rstrip("/") + "/"):
                return pat
            continue
        if _owns_regex(p).match(subject):
            return pat
    return ""


# --- owns containment ----------------------------------------------------------------------
#
# An implementer may re-register only with owns it already has (or narrower ones), and a Bash
# command may remove or move a tree only when everything below it is owned. Both need "does
# glob A admit only paths glob B admits?". Decided conservatively on path components: True
# only when it can be shown; anything unusual (character classes, `..`, mixed absolute and
# relative forms) is contained only in an identical pattern.

_STAR = "**"


def _owns_forms(pat):
    """The (absolute, components) forms `pat` stands for in owns_match, or None when it can
    be compared only as an identical string. A component is ("lit", text), ("glob", text) or
    ("**",) (any number of components)."""
    if not isinstance(pat, str) or not pat or ".." in pat.split("/") or "[" in pat \
            or "]" in pat:
        return None
    p = pat
    absolute = p.startswith("/")
    if not absolute:
        while p.startswith("./"):
            p = p[2:]
        if not p:
            return None
    if p.endswith("/"):
        texts = [p + _STAR]
    elif not any(ch in p for ch in "*?"):
        texts = [p, p + "/" + _STAR]  # the path itself and everything below it
    else:
        texts = [p]
    return [(absolute, [_component(c) for c in t.split("/")]) for t in texts]


def _component(text):
    if text == _STAR:
        return (_STAR,)
    return ("glob", text) if any(ch in text for ch in "*?") else ("lit", text)


def _never_empty(comp) -> bool:
    """The component never matches the empty string (a `**` between components stands for
    non-empty components only)."""
    if comp[0] == "lit":
        return comp[1] != ""
    return comp[0] == "glob" and comp[1].replace("*", "") != ""


def _comp_within(a, b) -> bool:
    """Single component a (not **) admits only what component b (not **) admits."""
    if a == b:
        return True
    if b[0] == "glob" and b[1].replace("*", "") == "":
        return True  # `*` admits any one component
    if a[0] == "lit" and b[0] == "glob":
        return bool(_owns_regex(b[1]).match(a[1]))
    return False


def _seq_within(a, b, i=0, j=0, memo=None) -> bool:
    """Every path components a[i:] admit, components b[j:] admit."""
    memo = {} if memo is None else memo
    key = (i, j)
    if key in memo:
        return memo[key]
    memo[key] = False  # (no cycles: every step advances i or j)
    if j == len(b):
        out = i == len(a)
    elif b[j][0] == _STAR and j == len(b) - 1:
        # a trailing ** is ".*": anything after "<prefix>/" (the bare ** anything at all)
        out = j == 0 or i < len(a)
    elif b[j][0] == _STAR:
        # zero or more non-empty components, each followed by "/"
        out = _seq_within(a, b, i, j + 1, memo)
        if not out and i < len(a):
            if a[i][0] == _STAR:
                # a's own ** in the middle fits in b's; a trailing one (".*") does not
                out = i < len(a) - 1 and _seq_within(a, b, i + 1, j, memo)
            elif _never_empty(a[i]):
                out = _seq_within(a, b, i + 1, j, memo)
    elif i == len(a) or a[i][0] == _STAR:
        out = False
    else:
        out = _comp_within(a[i], b[j]) and _seq_within(a, b, i + 1, j + 1, memo)
    memo[key] = out
    return out


def _forms_within(forms, patterns) -> bool:
    others = [f for q in patterns for f in (_owns_forms(q) or ())]
    return all(any(ab == bb and _seq_within(ac, bc) for bb, bc in others)
               for ab, ac in forms)


def owns_within(new, current) -> bool:
    """Glob `new` admits only paths some pattern of `current` admits (conservative: False
    unless it can be shown; an identical pattern always is)."""
    if new in current:
        return True
    forms = _owns_forms(new)
    return forms is not None and _forms_within(forms, current)


def owns_tree(patterns, rel, absolute) -> bool:
    """The path `rel` (project-relative, or None; `absolute` its absolute form) and everything
    below it are admitted by `patterns` (a tree write: rm -r, mv, find -delete)."""
    if not owns_match(patterns, rel, absolute):
        return False
    forms = []
    if rel is not None:
        forms.append((False, ([("lit", c) for c in rel.split("/")] if rel else [])
                      + [(_STAR,)]))
    if absolute:
        forms.append((True, [("lit", c) for c in absolute.split("/")] + [(_STAR,)]))
    return any(_forms_within([f], patterns) for f in forms)


#: Below a git directory: what git runs or follows to code (config, hooks, the files that say
#: where the common directory is), and the directories that hold only data.
_GIT_SURFACE_NAMES = frozenset(("config", "config.worktree", "commondir", "gitdir", "hooks"))
_GIT_DATA_TREES = frozenset(("refs", "objects", "logs", "lfs", "rr-cache", "rebase-merge",
                             "rebase-apply", "sequencer"))


def _git_part(rel: str, tree: bool) -> str:
    """"surface", "internal" or "" for a project-relative path: below a `.git` directory,
    its configuration and hooks (a submodule's and a worktree's included) are the
    permission surface; the rest is the repository's data. A tree holds the surface unless
    it is one of the data directories."""
    parts = rel.lower().split("/")
    if ".git" not in parts:
        return ""
    below = parts[parts.index(".git") + 1:]
    if not below:
        return "surface"  # .git itself (a worktree's .git file names its git directory)
    if any(c in _GIT_SURFACE_NAMES for c in below):
        return "surface"
    if tree and below[0] not in _GIT_DATA_TREES:
        return "surface"
    return "internal"


def _foreign_surface(path: str, tree: bool) -> str:
    """The pattern `path` matches among <dir>/.claude/settings*.json, <dir>/.claude/hooks/**,
    <dir>/.git/hooks/** and <dir>/.git/config, anywhere; with `tree`, also a directory
    holding one. Case-insensitive, like the protected paths. The repositories inside a .git
    directory count too: a submodule's (.git/modules/NAME/hooks/**, .../config) and a
    worktree's (config.worktree)."""
    parts = path.split("/")
    for i, c in enumerate(parts):
        low = c.lower()
        if low not in (".claude", ".git"):
            continue
        rest = "/".join(parts[i + 1:]).lower()
        head = rest.split("/", 1)[0]
        if low == ".claude":
            if paths.glob_match("settings*.json", rest):
                return "*/.claude/settings*.json"
            if head == "hooks" or (tree and rest == ""):
                return "*/.claude/hooks/**"
        elif head == "hooks" or (tree and rest == ""):
            return "*/.git/hooks/**"
        elif rest in ("config", "config.worktree"):
            return "*/.git/config"
        elif head in ("modules", "worktrees"):
            inner = rest.split("/")
            if "hooks" in inner[1:] or (tree and len(inner) <= 2):
                return "*/.git/hooks/**"
            if inner[-1] in ("config", "config.worktree"):
                return "*/.git/config"
    return ""
