"""One command, one evolving state: a segment is judged against what the segments before it
(and beside it, in a pipeline) create.

The phases judge each segment against the disk as it is when the hook runs. Earlier parts of
the same command can change what a later part relies on:

* the code a later part runs: `echo 'rm -rf ~' > scripts/a.sh && bash scripts/a.sh`,
  `mv downloads/run.sh scripts/run.sh && ./scripts/run.sh` (the script is trusted project
  code only as it is on disk now: phase 6);
* the configuration and code a tool reads: `printf '[pytest]\\naddopts = ...' > pytest.ini &&
  pytest`, a Makefile or package.json written, then `make` / `npm test`;
* where a path leads: `ln -s ~/.ssh k && cat k/*`, `cp -r a b && echo x > b/link/f` (a copied
  tree keeps its symbolic links), a name that was moved;
* what a glob lists: `touch ./--pre=sh && rg x *` (a new name read as an option);
* which repository git runs in, and its configuration: `mkdir v && printf ... > v/config &&
  ... && cd v && git status` (a bare repository made in the same command, whose
  core.fsmonitor git runs).

While a segment is judged, the phases record what they relied on (`Relied`: the paths phase 5
resolved, the scripts phase 6 trusted, the directories git ran in, the globs expanded); the
pipeline then compares that with what the earlier segments write (`Earlier`: the effects
analysis' named writes, the writes the validator's own checks found, and whether an earlier
part rewrites files nobody named: git checkout of a branch, xargs...). Where a later segment
relies on something an earlier one changes, or the model cannot follow the change, the later
segment asks (GW781), in both hooks: in the PreToolUse exposure judgement the ask is "what
the command reads cannot be known" (GW840).
"""

import posixpath

from gateway.paths import is_within, lexical

PHASE = "5"
CODE = "GW781"

#: Writers whose named targets end up regular files (or directories) with content from the
#: command itself or from files it reads (which are judged): they cannot put a link, a tree
#: or another place's file where a later part looks. Everything else (cp -r/-P/-a, mv, ln,
#: install, tar and unzip members, git's rewrites) may.
_PLAIN_VIAS = ("redirection", "tee", "touch", "mkdir", "sed -i", "truncate", "chmod", "chown",
               "chgrp", "chattr", "setfacl", "rm", "rmdir", "unlink", "shred", "sort",
               "uniq", "xxd", "dd of=", "awk -i inplace", "find -delete", "find -fprint",
               "install -d", "mkfifo", "mknod", "time -o", "tree -o", "date")
#: Names that make a directory a git repository, or configure one (git's discovery: a
#: `.git` file or directory, or a directory holding HEAD, objects/ and refs/; its config).
_REPO_NAMES = frozenset((".git", "head", "config", "commondir", "gitdir", "objects", "refs",
                         "packed-refs", "index", "info", "hooks", "worktrees", "modules",
                         "config.worktree"))


def _plain(via) -> bool:
    first = via.split(" (", 1)[0]
    return any(first == p or first.startswith(p + " ") or first.startswith(p)
               for p in _PLAIN_VIAS) and "link" not in via


class _W:
    __slots__ = ("paths", "via", "tree", "link", "text")

    def __init__(self, paths, via, tree, link, text):
        self.paths = paths  # absolute (lexical and physical forms)
        self.via = via
        self.tree = tree  # may change a whole tree below the path
        self.link = link  # may leave a link, a moved tree or another place's file there
        self.text = text  # the segment that writes it

    def __repr__(self) -> str:
        return f"_W({self.paths!r}, {self.via!r}, tree={self.tree}, link={self.link})"


class Earlier:
    """What the segments that may run before (or beside) a segment write."""

    def __init__(self):
        self.writes = []
        self.unfollowed = []  # why the model cannot follow what an earlier part writes

    def __bool__(self) -> bool:
        return bool(self.writes or self.unfollowed)

    def add_effects(self, eff, text):
        """The effects analysis of one segment (gateway.effects.analysis)."""
        links = any("link" in w.via for w in eff.writes)
        for w in eff.writes:
            if not w.paths:
                self.unfollowed.append(f"{text!r}: {w.via} writes {w.target!r} in a directory "
                                       "that cannot be known")
                continue
            link = links or w.tree or not _plain(w.via)
            self.writes.append(_W(w.paths, w.via, w.tree, link, text))
        for why in eff.unresolved:
            self.unfollowed.append(f"{text!r}: {why}")
        for why in eff.worktree:
            self.unfollowed.append(f"{text!r}: {why} rewrites files it does not name")

    def add_paths(self, paths, via, text):
        """Writes the validator's own checks found (archive members, side outputs)."""
        if paths:
            self.writes.append(_W(tuple(paths), via, True, True, text))

    # --- questions ------------------------------------------------------------------------

    def through(self, forms):
        """The earlier write a path (its lexical and physical forms) is reached through: a
        strict prefix that was written (a directory a link, a moved or copied tree may now
        be), or the path itself when what was written there may be a link or another
        place's file. None when neither."""
        for w in self.writes:
            if w.via.startswith("mkdir") or w.via == "install -d":
                continue  # a new directory is a directory
            for p in w.paths:
                for f in forms:
                    if f != p and is_within(f, p):
                        return w, p
                    if f == p and w.link:
                        return w, p
        return None

    def touches(self, forms):
        """The earlier write of the path itself or of anything on its way (any writer)."""
        for w in self.writes:
            for p in w.paths:
                for f in forms:
                    if f == p or is_within(f, p) or (w.tree and is_within(p, f)):
                        return w, p
        return None

    def inside(self, directory):
        """An earlier write of something inside `directory` (or of the directory's tree)."""
        for w in self.writes:
            for p in w.paths:
                if is_within(p, directory) or (w.tree and is_within(directory, p)):
                    return w, p
        return None

    def input_write(self, ctx, words):
        """The first earlier write of something a tool reads besides its arguments (the
        rules' state_inputs; anything below a containment directory, the project's own
        scripts), or None. `words`: the later segment's words (its tool's own globs)."""
        from gateway.paths import fnmatchcase

        globs = list(getattr(ctx.policy, "state_input_names", ()))
        tools = getattr(ctx.policy, "state_input_tools", {}) or {}
        name = " ".join(w.rsplit("/", 1)[-1] for w in words[:2])
        globs += tools.get(name, []) + tools.get(name.split(" ")[0], [])
        contained = [f"{root}/{d}" for root in (ctx.roots.project, ctx.roots.project_real)
                     for d in ctx.policy.containment_dirs]
        for w in self.writes:
            if w.via.startswith("mkdir") or w.via == "install -d":
                continue
            for p in w.paths:
                base = p.rsplit("/", 1)[-1]
                if any(fnmatchcase(base, g) for g in globs) or any(
                        is_within(p, c) or (w.tree and is_within(c, p)) for c in contained):
                    return w, p
                if w.tree and not base:
                    return w, p
        return None


class Relied:
    """What the phases relied on while judging one segment."""

    __slots__ = ("paths", "scripts", "git", "globs")

    def __init__(self):
        self.paths = []  # (as written, lexical, physical)
        self.scripts = []  # (as written, lexical, physical)
        self.git = []  # directories git ran in
        self.globs = []  # directories a glob listed


def relied(ctx):
    """The recorder of the segment being judged, or None when nothing earlier writes."""
    return getattr(ctx, "relied", None)


def note_path(ctx, cand, lex, real):
    r = relied(ctx)
    if r is not None:
        r.paths.append((cand, lex, real))


def note_script(ctx, cand, lex, real):
    r = relied(ctx)
    if r is not None:
        r.scripts.append((cand, lex, real))


def note_git(ctx, *dirs):
    r = relied(ctx)
    if r is not None:
        r.git.extend(d for d in dirs if d)


def note_globs(ctx, words, cwd):
    """The directories the globs and braces among `words` list (their literal prefix)."""
    r = relied(ctx)
    if r is None:
        return
    for w in words:
        text = w.value if w.value is not None else w.raw
        cut = min((i for i, c in enumerate(text) if c in "*?[{"), default=len(text))
        head = posixpath.dirname(text[:cut]) or "."
        r.globs.append(lexical(head, cwd))


# --- judgement ---------------------------------------------------------------------------------

def judge(ctx, earlier, rel, unknown, verdict, words=()):
    """The ask for a segment (judged `verdict`; `unknown`: why the effects analysis cannot
    follow what it does, as for code it runs; `words`: its words) that relies on what
    `earlier` segments change, or None."""
    from gateway.decision import ALLOW

    if verdict.decision is not ALLOW or not earlier:
        return None
    for cand, lex, real in rel.scripts:
        hit = earlier.touches((lex, real))
        if hit is not None:
            return _ask(ctx, f"it runs {cand!r}, which an earlier part of the command writes",
                        hit)
        if earlier.unfollowed:
            return _unfollowed(ctx, f"it runs {cand!r}", earlier)
    if unknown:
        # it runs code (the project's, a tool's) that reads the project's files and
        # configuration: judged as they are now, not as the earlier parts leave them
        hit = earlier.input_write(ctx, list(words))
        if hit is not None:
            return _ask(ctx, "it runs code that reads the project's configuration and scripts "
                        f"({unknown[0]}), and an earlier part of the command changes them", hit)
        if earlier.unfollowed:
            return _unfollowed(ctx, "it runs code that reads the project's files", earlier)
    for cand, lex, real in rel.paths:
        hit = earlier.through((lex, real))
        if hit is not None:
            return _ask(ctx, f"{cand!r} is reached through what an earlier part of the "
                        "command creates (a link, a moved or copied tree may be there)", hit)
    for d in rel.globs:
        hit = earlier.inside(d)
        if hit is not None:
            return _ask(ctx, f"a glob lists {d}, where an earlier part of the command "
                        "creates names (they could be read as options or lead elsewhere)", hit)
        if earlier.unfollowed:
            return _unfollowed(ctx, f"a glob lists {d}", earlier)
    for d in rel.git:
        hit = _repository(earlier, d)
        if hit is not None:
            return _ask(ctx, f"git runs in {d}, and an earlier part of the command writes "
                        "where git finds its repository and configuration (a repository made "
                        "there runs the programs its configuration names)", hit)
        if earlier.unfollowed:
            return _unfollowed(ctx, f"git runs in {d}", earlier)
    return None


def _repository(earlier, d):
    """An earlier write that can make `d` (or a directory above it) a repository or change
    its configuration: a repository name in it or above it (`v/HEAD`, `v/config`,
    `.git`), a write below a `.git` there, or a tree or link put there."""
    ancestors = set()
    p = d
    while True:
        ancestors.add(p)
        parent = posixpath.dirname(p)
        if parent == p:
            break
        p = parent
    for w in earlier.writes:
        for path in w.paths:
            if posixpath.dirname(path) in ancestors and \
                    posixpath.basename(path).lower() in _REPO_NAMES:
                return w, path
            if (w.tree or w.link) and path in ancestors:
                return w, path
            parts = path.split("/")
            for k, c in enumerate(parts):
                if c.lower() == ".git" and ("/".join(parts[:k]) or "/") in ancestors:
                    return w, path
    return None


def _ask(ctx, why, hit):
    w, p = hit
    return ctx.ask(PHASE, CODE, f"{why}: {w.text!r} ({w.via}) writes {p}; the gateway judges "
                   "each part against the disk as it is before the command runs. Run the "
                   "parts as separate commands, so each is judged against what the one "
                   "before it left", rule=f"state:{w.via}")


def _unfollowed(ctx, why, earlier):
    return ctx.ask(PHASE, CODE, f"{why}, and what an earlier part of the command writes "
                   f"cannot be followed ({earlier.unfollowed[0]}). Run the parts as "
                   "separate commands", rule="state:unfollowed")


def segment_effects(ctx, cmd, cwds):
    """The effects analysis of one segment where it may run (None when it fails)."""
    from gateway.effects.analysis import analyze

    try:
        return [analyze(cmd.text, cwd, home=ctx.home, policy=ctx.policy) for cwd in cwds]
    except Exception:  # the analysis never raises; kept fail-closed all the same
        return None
