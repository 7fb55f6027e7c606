"""git and gh: the recoverable local operations and the forms that only read.

Which files a checkout or switch of a branch, a merge, a cherry-pick, a stash or a stash
apply/pop changes in the working tree is asked of git itself (tools/gitquery.py), never
guessed: none may be part of the permission surface, a script or project tool that runs
unasked, a secret or a file that runs later (GW741), and no untracked or ignored file may be
overwritten (GW743); when git cannot answer (a timeout, a partial clone, an unborn HEAD) the
command asks (GW740). What a read prints is judged in gitprint.py, what git config, remote
and var print in gitconfig.py.

Every check is an allowlist: an option not listed asks; a long option written shorter is
resolved against git's complete option list (the catalogue's `options`).
"""

import os

from gateway.paths import is_autorun, is_protected, is_secret, is_within, lexical, physical, real
from gateway.shell import argv as argvmod
from gateway.tools import gitquery as gq
from gateway.validator.checks._common import _unsafe

PHASE = "7C"

# --- the repository a command works on -------------------------------------------------------


class _Repo:
    """The repository git would use for a command in `cwd`, and how to ask it."""

    __slots__ = ("cwd", "git_dir", "globals", "_top")

    def __init__(self, ctx, cwd):
        from gateway.tools.gitindex import git_dir_of

        self.cwd = cwd
        words = list(getattr(ctx, "git_globals", ()) or ())
        self.globals = gq.passed_globals(words)
        git_dir = None
        for k, w in enumerate(words):
            if w == "--git-dir" and k + 1 < len(words):
                git_dir = physical(words[k + 1], cwd)
            elif w.startswith("--git-dir="):
                git_dir = physical(w.split("=", 1)[1], cwd)
        self.git_dir = git_dir or git_dir_of(real(cwd), "/")
        self._top = False

    def run(self, args, stdin=None, ok=(0,)):
        return gq.run(self.cwd, self.git_dir, args, self.globals, stdin, ok)

    def names(self, args, ok=(0,)):
        return gq.names(self.run(args, ok=ok))

    def toplevel(self):
        """The work tree's root (names git prints are relative to it), or None."""
        if self._top is False:
            out = self.run(["rev-parse", "--show-toplevel"])
            top = os.fsdecode(out).strip() if out else ""
            self._top = top if top.startswith("/") else None
        return self._top


def _opts_ok(ctx, label, args, safe, spec, why="not one of its safe options"):
    """An ask for the first option not in `safe` (a prefix counts when every option of the
    subcommand's complete list it can stand for is safe), else None."""
    for opt in args.options:
        if opt.name in safe:
            continue
        if argvmod.abbreviates_only(opt.name, getattr(spec, "options", ()), safe):
            continue
        return _unsafe(ctx, f"{label} {opt.name}", why)
    return None


def _unknown(ctx, what, why="git could not say which files it involves"):
    return ctx.ask(PHASE, "GW740", f"{what}: {why} (a timeout, a partial clone whose objects "
                   "would be fetched, an unborn branch or an unknown revision), so it cannot be "
                   "shown to be safe")


def stale(ctx, what):
    """An ask when an earlier segment of the same command line may change the repository
    (`git restore -S -s pr -- x && git commit -qm x && git stash`, `git fetch origin pr &&
    git checkout FETCH_HEAD`): what git says now is not what the segment will meet."""
    if not getattr(ctx, "git_changed", False):
        return None
    return ctx.ask(PHASE, "GW745", f"{what}: an earlier part of this command line changes "
                   "the repository (a commit, a stash, a fetch...), and what git says about "
                   "it now is not what this part will meet. Run them as separate commands",
                   rule="git:sequence")


# --- which files a recoverable operation changes ---------------------------------------------

def _guarded(ctx, path):
    """Why writing, replacing or deleting `path` (absolute) needs the human, or ""."""
    policy = ctx.policy
    parts = [c.lower() for c in path.split("/") if c]
    if ".git" in parts:
        return "git's own files"
    if ".claude" in parts:
        return "Claude Code's settings, hooks, agents or commands"
    pat = is_protected((path,), ctx.roots, policy)
    if pat:
        return f"part of the agent's permission surface ({pat})"
    for root in (ctx.roots.project, ctx.roots.project_real):
        if is_within(path, root) and path != root:
            rel = path[len(root):].lstrip("/")
            for d in policy.containment_dirs:
                if rel == d or rel.startswith(d + "/"):
                    return f"a script under {d}/ runs without a prompt"
            for d in policy.project_bin_dirs:
                if rel.startswith(d + "/"):
                    return f"{d}/ holds the project's tools, run without a prompt"
    pat = is_autorun((path,), policy, os.path.expanduser("~"))
    if pat:
        return f"a file whose content runs later ({pat})"
    pat = is_secret((path,), policy)
    if pat:
        return f"a secret file ({pat}) would be replaced"
    return ""


def _changes(ctx, what, repo, names, untracked=True):
    """The ask when the files `names` (relative to the work tree) that an operation rewrites
    include a guarded one or, with `untracked`, an untracked or ignored file it would
    overwrite; None when none does."""
    from gateway.tools.gitindex import tracked_paths

    if names is None:
        return _unknown(ctx, what)
    top = repo.toplevel()
    if top is None:
        return _unknown(ctx, what, "git could not name the work tree")
    hits = []
    for n in sorted(names):
        why = _guarded(ctx, os.path.normpath(os.path.join(top, n)))
        if why:
            hits.append((n, why))
    if hits:
        n, why = hits[0]
        more = f" (and {len(hits) - 1} more: " + ", ".join(repr(h[0]) for h in hits[1:4]) \
            + (" ..." if len(hits) > 4 else "") + ")" if len(hits) > 1 else ""
        return ctx.ask(PHASE, "GW741", f"{what} changes {n!r}: {why}{more}. Look at the "
                       "change first (git diff --stat HEAD <target>), then run it yourself if "
                       "it is what you expect", rule="git:protected")
    if untracked and names:
        tracked = tracked_paths(repo.git_dir) if repo.git_dir else None
        if tracked is None:
            return _unknown(ctx, what, "the index could not be read to tell untracked files")
        tracked = set(tracked)
        for n in sorted(names):
            p = os.path.join(top, n)
            if os.path.lexists(p) and os.fsencode(n) not in tracked:
                return ctx.ask(PHASE, "GW743", f"{what} would write {n!r}, which exists but is "
                               "not tracked: an ignored file is overwritten without a word "
                               "(git refuses only for untracked ones). Move it away first",
                               rule="git:untracked")
    return None


_DIFF_NAMES = ("--name-only", "-z", "--no-renames", "--no-ext-diff", "--no-textconv",
               "--no-color", "--no-relative")


def _tree_names(repo, a, b):
    """Files that differ between commits `a` and `b` (`a...b`: since their merge base)."""
    if b is None:
        return repo.names(["diff", *_DIFF_NAMES, a, "--"], ok=(0, 1))
    return repo.names(["diff", *_DIFF_NAMES, a, b, "--"], ok=(0, 1))


def _guess_remote(repo, name):
    """`git checkout x` / `git switch x` with no branch x: the one remote-tracking branch
    refs/remotes/*/x that git would create it from, or None."""
    if not name or name.startswith("-") or any(c in name for c in "*?[\\:^~ "):
        return None
    out = repo.run(["for-each-ref", "--format=%(refname)", f"refs/remotes/*/{name}"])
    refs = [r for r in os.fsdecode(out or b"").splitlines() if r]
    return refs[0] if len(refs) == 1 else None


def _moves_tree(ctx, label, target, cwd, guess):
    """`label` replaces the working tree's files with commit `target`'s: allowed when the
    files that differ from HEAD are no guarded path and overwrite no untracked file."""
    repo = _Repo(ctx, cwd)
    if repo.git_dir is None:
        return None  # no repository: git refuses
    verdict = stale(ctx, f"{label} {target}")
    if verdict:
        return verdict
    names = _tree_names(repo, "HEAD", target)
    if names is None and guess:
        remote = _guess_remote(repo, target)
        if remote is not None:
            names = _tree_names(repo, "HEAD", remote)
    return _changes(ctx, f"{label} {target}", repo, names)


# --- checkout / switch ---------------------------------------------------------------------

_CHECKOUT_UNSAFE = ("-f", "--force", "-p", "--patch", "--ours", "--theirs", "-m", "--merge",
                    "--conflict", "--overwrite-ignore", "--pathspec-from-file", "-B",
                    "--orphan", "--pathspec-file-nul", "--recurse-submodules",
                    "--ignore-skip-worktree-bits", "--overlay", "--no-overlay")
# -t/--track take no separate value (`--track=direct` only): `git checkout -t origin/x`
# names the commit to move to, it is not the option's value
_CHECKOUT_VALUE = frozenset(("-b", "-B", "--orphan", "--conflict"))
_CHECKOUT_OK = frozenset(("-b", "-t", "--track", "--no-track", "-q", "--quiet", "--no-quiet",
                          "--detach", "--progress", "--no-progress", "--guess", "--no-guess",
                          "--ignore-other-worktrees", "--no-ignore-other-worktrees",
                          "--no-recurse-submodules", "--no-force", "--no-merge",
                          "--no-overwrite-ignore"))


def _target(word):
    return "@{-1}" if word == "-" else word


def git_checkout(ctx, spec, words, cwd):
    if "--" in words:
        return _unsafe(ctx, "git checkout -- <paths>", "discards uncommitted changes"), [], []
    args = argvmod.parse(words, _CHECKOUT_VALUE)
    bad = argvmod.first_unsafe(args, _CHECKOUT_UNSAFE)
    if bad:
        return _unsafe(ctx, f"git checkout {bad}", "can discard uncommitted changes or "
                       "rewrite files it does not name"), [], []
    verdict = _opts_ok(ctx, "git checkout", args, _CHECKOUT_OK, spec)
    if verdict:
        return verdict, [], []
    pos = args.positionals
    if len(pos) > 1:
        return _unsafe(ctx, "git checkout <ref> <paths>", "restores files from a commit, "
                       "discarding changes"), [], []
    if not pos:
        return None, [], []  # a new branch at HEAD, --detach at HEAD: no file changes
    target = pos[0]
    if target in (".", "..") or (target != "-" and os.path.lexists(lexical(target, cwd))):
        return _unsafe(ctx, f"git checkout {target}", "names a file: restoring it "
                       "discards uncommitted changes"), [], []
    guess = not (args.has("-b", "--detach", "--no-guess"))
    return _moves_tree(ctx, "git checkout", _target(target), cwd, guess), [], []


_SWITCH_VALUE = frozenset(("-c", "--create", "-C", "--force-create", "--orphan", "--conflict"))
_SWITCH_OK = frozenset(("-c", "--create", "-t", "--track", "--no-track", "-q", "--quiet",
                        "--no-quiet", "--progress", "--no-progress", "--guess", "--no-guess",
                        "--detach", "--ignore-other-worktrees", "--no-ignore-other-worktrees",
                        "--no-recurse-submodules", "--no-force", "--no-merge",
                        "--no-discard-changes", "--no-overwrite-ignore"))


def git_switch(ctx, spec, words, cwd):
    """`git switch [-c NAME] [--detach] <branch or commit>`: the files that change are asked
    of git; -C, --orphan, --discard-changes, -f and -m lose or overwrite work: they ask."""
    args = argvmod.parse(words, _SWITCH_VALUE)
    verdict = _opts_ok(ctx, "git switch", args, _SWITCH_OK, spec,
                       "can lose uncommitted changes or rewrite a branch")
    if verdict:
        return verdict, [], []
    creates = args.has("-c", "--create")
    if len(args.positionals) > 1:
        return _unsafe(ctx, "git switch " + " ".join(args.positionals), "takes one branch "
                       "or commit"), [], []
    if not args.positionals:
        return None, [], []  # -c NAME: a new branch at HEAD; no name: git refuses
    target = _target(args.positionals[0])
    guess = not (creates or args.has("--detach", "--no-guess"))
    return _moves_tree(ctx, "git switch", target, cwd, guess), [], []


# --- merge / cherry-pick -------------------------------------------------------------------

_SEQUENCER = ("--abort", "--continue", "--quit", "--skip")
_STRATEGIES = frozenset(("ort", "recursive", "resolve", "octopus", "ours", "subtree"))
_MERGE_VALUE = frozenset(("-m", "--message", "-F", "--file", "-s", "--strategy", "-X",
                          "--strategy-option", "--into-name", "--cleanup"))
_MERGE_OK = frozenset(("--ff", "--no-ff", "--ff-only", "--commit", "--no-commit", "--squash",
                       "--no-squash", "--no-edit", "--stat", "-n", "--no-stat", "--summary",
                       "--no-summary", "--log", "--no-log", "--signoff", "--no-signoff", "-m",
                       "--message", "-F", "--file", "--into-name", "-q", "--quiet",
                       "--no-quiet", "-v", "--verbose", "--no-verbose", "--progress",
                       "--no-progress", "--autostash", "--no-autostash", "--no-verify",
                       "--verify", "--rerere-autoupdate", "--no-rerere-autoupdate", "-s",
                       "--strategy", "-X", "--strategy-option", "--cleanup",
                       "--allow-unrelated-histories", "--no-allow-unrelated-histories",
                       "--no-gpg-sign", "--no-overwrite-ignore"))


def _strategy(ctx, label, values):
    """A merge strategy that is not one of git's own is a program `git-merge-<name>`."""
    for s in values:
        if s not in _STRATEGIES:
            return _unsafe(ctx, f"{label} -s {s}", "not one of git's merge strategies: git "
                           f"runs a program named git-merge-{s}")
    return None


def git_merge(ctx, spec, words, cwd):
    """`git merge [options] <commit>...`: the files the merge changes (each commit's changes
    since the merge base) are asked of git; --abort/--continue/--quit ask."""
    label = "git merge"
    args = argvmod.parse(words, _MERGE_VALUE)
    bad = argvmod.first_unsafe(args, _SEQUENCER)
    if bad:
        return _unsafe(ctx, f"{label} {bad}", "ends or resumes a merge in progress (--abort "
                       "can lose uncommitted changes)"), [], []
    verdict = (_opts_ok(ctx, label, args, _MERGE_OK, spec)
               or _strategy(ctx, label, args.values("-s", "--strategy")))
    if verdict:
        return verdict, [], []
    repo = _Repo(ctx, cwd)
    files = args.values("-F", "--file")
    if repo.git_dir is None:
        return None, files, []
    verdict = stale(ctx, label)
    if verdict:
        return verdict, files, []
    targets = args.positionals or ["@{upstream}"]
    names = set()
    for t in targets:
        found = repo.names(["diff", *_DIFF_NAMES, f"HEAD...{t}", "--"], ok=(0, 1))
        if found is None:
            return _unknown(ctx, f"{label} {t}", "git could not say which files it changes "
                            "(no merge base, or an unknown commit)"), [], []
        names |= found
    return _changes(ctx, f"{label} {' '.join(targets)}", repo, names), files, []


_CP_VALUE = frozenset(("-m", "--mainline", "--strategy", "-X", "--strategy-option",
                       "--cleanup"))
_CP_OK = frozenset(("-n", "--no-commit", "--commit", "-x", "--ff", "--no-ff", "--allow-empty",
                    "--no-allow-empty", "--allow-empty-message", "--no-allow-empty-message",
                    "--keep-redundant-commits", "--no-keep-redundant-commits", "-s",
                    "--signoff", "--no-signoff", "-m", "--mainline", "--strategy", "-X",
                    "--strategy-option", "--cleanup", "--rerere-autoupdate",
                    "--no-rerere-autoupdate", "--no-edit", "--no-gpg-sign"))


def git_cherry_pick(ctx, spec, words, cwd):
    """`git cherry-pick [options] <commit or range>...`: the files those commits change
    (against every parent of a merge) are asked of git."""
    label = "git cherry-pick"
    args = argvmod.parse(words, _CP_VALUE)
    bad = argvmod.first_unsafe(args, _SEQUENCER)
    if bad:
        return _unsafe(ctx, f"{label} {bad}", "ends or resumes a cherry-pick in progress "
                       "(--abort resets to where it began)"), [], []
    verdict = (_opts_ok(ctx, label, args, _CP_OK, spec)
               or _strategy(ctx, label, args.values("--strategy")))
    if verdict:
        return verdict, [], []
    if not args.positionals:
        return None, [], []  # git refuses
    repo = _Repo(ctx, cwd)
    if repo.git_dir is None:
        return None, [], []
    verdict = stale(ctx, label)
    if verdict:
        return verdict, [], []
    names = repo.names(["log", "--no-walk=unsorted", "-m", "--root", "--format=%x00",
                        *_DIFF_NAMES, *args.positionals, "--"])
    return _changes(ctx, f"{label} {' '.join(args.positionals)}", repo, names), [], []


# --- fetch ---------------------------------------------------------------------------------

_FETCH_VALUE = frozenset(("--depth", "--deepen", "--shallow-since", "--shallow-exclude", "-j",
                          "--jobs", "-o", "--server-option", "--negotiation-tip", "--filter",
                          "--refmap", "--recurse-submodules-default", "--submodule-prefix",
                          "--upload-pack"))
#: --set-upstream writes the branch's remote into .git/config
_FETCH_UNSAFE = ("--upload-pack", "--refmap", "--set-upstream")
#: --stdin reads more refspecs (`x:refs/stash`) than the command shows; --update-head-ok lets a
#: refspec move the checked-out branch (`-u origin x:main`: the next `git stash` leaves x's
#: files in the working tree).
_FETCH_HIDDEN = ("--stdin", "-u", "--update-head-ok")
_FETCH_OK = frozenset(("--all", "--no-all", "-a", "--append", "--no-append", "--atomic",
                       "--depth", "--deepen", "--shallow-since", "--shallow-exclude",
                       "--unshallow", "--update-shallow", "--dry-run", "-f", "--force", "-k",
                       "--keep", "--multiple", "-p", "--prune", "--no-prune", "-P",
                       "--prune-tags", "-n", "--no-tags", "-t", "--tags", "--refetch",
                       "--recurse-submodules", "--no-recurse-submodules", "-j", "--jobs",
                       "-q", "--quiet", "-v", "--verbose", "--progress", "--no-progress",
                       "--show-forced-updates", "--no-show-forced-updates", "-4", "--ipv4",
                       "-6", "--ipv6", "--write-fetch-head", "--no-write-fetch-head",
                       "--auto-maintenance", "--no-auto-maintenance", "--auto-gc",
                       "--no-auto-gc", "--write-commit-graph", "--no-write-commit-graph",
                       "-o", "--server-option", "--negotiation-tip", "--porcelain"))


def git_fetch(ctx, spec, words, cwd):
    """Fetching is reading, unless a refspec stores into a ref that something else then
    trusts: refs/stash (which `git stash pop` applies) or any ref outside heads, tags and
    remotes."""
    args = argvmod.parse(words, _FETCH_VALUE)
    bad = argvmod.first_unsafe(args, _FETCH_UNSAFE, words)
    if bad:
        return _unsafe(ctx, f"git fetch {bad}", "runs or redirects what git fetches with"), [], []
    bad = argvmod.first_unsafe(args, _FETCH_HIDDEN)
    if bad:
        return _unsafe(ctx, f"git fetch {bad}", "may store into refs the command does not show "
                       "(refspecs read from stdin, or the checked-out branch itself)"), [], []
    verdict = _opts_ok(ctx, "git fetch", args, _FETCH_OK, spec)
    if verdict:
        return verdict, [], []
    repo = args.positionals[0] if args.positionals else ""
    if "://" in repo or (":" in repo.split("/", 1)[0]):
        # a URL (or host:path) instead of a configured remote: the network, with whatever
        # the URL carries; a path is judged as one (phase 5)
        return ctx.ask("5", "GW505", f"git fetch {repo!r}: fetches from a URL, not from a "
                       "configured remote"), [], []
    for spec_ in args.positionals[1:]:
        dst = spec_.split(":", 1)[1] if ":" in spec_ else ""
        # a short name is refs/heads/<name> for fetch; stash, replace and notes are asked about
        # anyway (an over-ask: the names say what the author meant)
        if dst and not dst.startswith("refs/") and \
                dst.split("/")[0].lower() in ("stash", "replace", "notes", "head"):
            dst = "refs/" + dst
        if dst.startswith("refs/") and not dst.startswith(("refs/heads/", "refs/tags/",
                                                           "refs/remotes/")):
            return _unsafe(ctx, f"git fetch ... {spec_}", f"stores into {dst} (refs/stash is "
                           "what `git stash pop` applies)"), [], []
    # a remote's name is a word; anything that could be a path (../other, /tmp/x) must be
    # one inside the project
    return None, ([repo] if repo and ("/" in repo or repo.startswith(".")) else []), []


# --- stash ---------------------------------------------------------------------------------

def _stash_ref(ref: str) -> bool:
    """stash@{N} or N."""
    if ref.startswith("stash@{") and ref.endswith("}"):
        ref = ref[7:-1]
    return ref.isascii() and ref.isdigit()


def git_stash_apply(ctx, spec, words, cwd):
    """`git stash apply|pop [-q] [--index] [stash@{N}|N]`: the stash is changes made here,
    applied when the files it changes (its working-tree, index and untracked parts) are no
    guarded path. Any other commit (`git stash apply FETCH_HEAD`) is applied as if it were
    one: it asks."""
    args = argvmod.parse(words)
    verdict = _opts_ok(ctx, "git stash apply", args, frozenset(
        ("-q", "--quiet", "--no-quiet", "--index", "--no-index")), spec)
    if verdict:
        return verdict, [], []
    if len(args.positionals) > 1:
        return _unsafe(ctx, "git stash apply", "takes one stash"), [], []
    for ref in args.positionals:
        if not _stash_ref(ref):
            return _unsafe(ctx, f"git stash apply {ref}", "applies a commit that is not one "
                           "of this repository's stashes (stash@{N})"), [], []
    ref = args.positionals[0] if args.positionals else "0"
    ref = ref if ref.startswith("stash@{") else f"stash@{{{ref}}}"
    repo = _Repo(ctx, cwd)
    if repo.git_dir is None:
        return None, [], []
    what = f"git stash apply {ref}"
    verdict = stale(ctx, what)
    if verdict:
        return verdict, [], []
    out = repo.run(["rev-list", "--parents", "-n", "1", ref, "--"])
    if out is None:
        return None, [], []  # no such stash: git refuses
    commits = os.fsdecode(out).split()
    if len(commits) < 3:
        return _unknown(ctx, what, "it is not a stash git made"), [], []
    names = _tree_names(repo, commits[1], commits[0])
    if names is not None and args.has("--index"):
        more = _tree_names(repo, commits[1], commits[2])
        names = None if more is None else names | more
    if names is not None and len(commits) > 3:  # the untracked files' commit
        more = repo.names(["ls-tree", "-r", "--name-only", "-z", commits[3], "--"])
        names = None if more is None else names | more
    return _changes(ctx, what, repo, names), [], []


_PUSH_UNSAFE = ("-u", "--include-untracked", "-a", "--all", "-p", "--patch",
                "--pathspec-from-file")
_PUSH_OK = frozenset(("-q", "--quiet", "--no-quiet", "-m", "--message", "--no-message", "-k",
                      "--keep-index", "--no-keep-index", "-S", "--staged", "--no-staged",
                      "--no-include-untracked", "--no-all", "--no-patch"))


def git_stash_push(ctx, spec, words, cwd):
    """`git stash [push] [-k] [-m MSG] [-- <paths>]` and `git stash save [-k] [MSG]`: the
    changes are saved and the files reset to HEAD's version (with -k, the staged one). Which
    files, git says; a guarded one asks (HEAD's version of a script or of the settings may be
    one the agent staged from another ref and committed: `git restore -S -s <ref> -- x &&
    git commit && git stash`). -u/-a put untracked and ignored files (a .env never tracked)
    into a commit that git show stash^3 prints; -p shows the diff: they ask."""
    save = spec.name.endswith(" save")
    label = "git stash save" if save else "git stash"
    args = argvmod.parse(words, frozenset(("-m", "--message")))
    bad = argvmod.first_unsafe(args, _PUSH_UNSAFE)
    if bad:
        return _unsafe(ctx, f"{label} {bad}", "puts untracked or ignored files (secrets among "
                       "them) into a commit, or shows the diff"), [], []
    verdict = _opts_ok(ctx, label, args, _PUSH_OK, spec)
    if verdict:
        return verdict, [], []
    paths = [] if save else list(args.positionals)  # save: the words are the message
    repo = _Repo(ctx, cwd)
    if repo.git_dir is None:
        return None, paths, []
    verdict = stale(ctx, label)
    if verdict:
        return verdict, paths, []
    worktree = repo.names(["diff", *_DIFF_NAMES, "HEAD", "--", *paths], ok=(0, 1))
    staged = repo.names(["diff", "--cached", *_DIFF_NAMES, "HEAD", "--", *paths], ok=(0, 1))
    names = None if worktree is None or staged is None else worktree | staged
    return _changes(ctx, label, repo, names, untracked=False), paths, []


# --- restore / reset -----------------------------------------------------------------------

_RESTORE_OK = frozenset(("-S", "--staged", "-q", "--quiet", "--no-quiet", "-s", "--source",
                         "--progress", "--no-progress", "--no-worktree"))


def git_restore(ctx, spec, words, cwd):
    args = argvmod.parse(words, frozenset(("-s", "--source", "--pathspec-from-file")))
    staged = args.has("-S", "--staged")
    if not staged or args.has("-W", "--worktree") or args.has("--pathspec-from-file"):
        return _unsafe(ctx, "git restore", "restoring the working tree discards uncommitted "
                       "changes (only --staged is auto-allowed)"), [], []
    verdict = _opts_ok(ctx, "git restore", args, _RESTORE_OK, spec, "not a read-only form")
    if verdict:
        return verdict, [], []
    if args.has("-s", "--source") and any(p.startswith(":") or any(c in p for c in "*?[")
                                          for p in args.positionals):
        # `git restore -S -s <empty tree> -- '*env'` takes a tracked secret out of the index,
        # past the tracked-secret check of git diff/show/log -p
        return _unsafe(ctx, "git restore --source", "a glob or magic pathspec may take any "
                       "file out of the index; name the files"), [], []
    return None, list(args.positionals), []


def git_clean(ctx, spec, words, cwd):
    """`git clean -n`: a dry run prints the names of the untracked files it would remove and
    removes nothing (-n wins over -f; the last of -n/--dry-run and --no-dry-run counts).
    Every other form deletes, or is interactive (-i): the subcommand_ask floor asks for it
    (7B2), and so does this check. The pathspecs are names, looked at."""
    from gateway.validator.phase7b2_subcommands import only_prints

    args = argvmod.parse(words, spec.value_flags, spec.long_options, spec.optional_flags)
    verdict = _opts_ok(ctx, "git clean", args, spec.safe_flags, spec, "not a dry run")
    if verdict:
        return verdict, [], []
    if not only_prints(spec, words):
        return _unsafe(ctx, "git clean", "removes untracked files (only the dry run, -n, "
                       "is auto-allowed)"), [], []
    return None, list(args.positionals), []


def git_reset(ctx, spec, words, cwd):
    """`git reset [-q] [HEAD] [[--] <paths>]`: unstaging moves no branch and changes no file.
    A commit other than HEAD moves the branch; --hard/--keep/--merge rewrite files."""
    if "--" in words:
        head, tail = words[:words.index("--")], words[words.index("--") + 1:]
    else:
        head, tail = words, []
    args = argvmod.parse(head)
    verdict = _opts_ok(ctx, "git reset", args, frozenset(("-q", "--quiet", "--no-quiet")),
                       spec, "moves the branch or discards changes")
    if verdict:
        return verdict, [], []
    pos = list(args.positionals)
    if pos and pos[0] in ("HEAD", "@"):
        pos = pos[1:]
    for p in pos:
        # git takes a word for a path only when it is not a revision (both: it refuses)
        if not os.path.lexists(lexical(p, cwd)):
            return _unsafe(ctx, f"git reset {p}", "may move the branch to another commit (only "
                           "`git reset [HEAD] [--] <paths>`, which unstages, is "
                           "auto-allowed)"), [], []
    return None, pos + tail, []


# --- gh --------------------------------------------------------------------------------------

_GH_API_VALUE = frozenset(("-X", "--method", "-H", "--header", "-q", "--jq", "-t",
                           "--template", "--hostname", "--cache", "-p", "--preview"))
_GH_API_FLAGS = frozenset(("--paginate", "-i", "--include", "--silent", "--verbose",
                           "--slurp"))


def gh_api(ctx, spec, words, cwd):
    args = argvmod.parse(words, _GH_API_VALUE)
    for opt in args.options:
        if opt.name in ("-X", "--method"):
            if (opt.value or "").upper() not in ("GET", "HEAD"):
                return _unsafe(ctx, f"gh api {opt.name} {opt.value}", "changes data on "
                               "GitHub"), [], []
        elif opt.name in ("-f", "-F", "--field", "--raw-field", "--input"):
            return _unsafe(ctx, f"gh api {opt.name}", "sends data (the request becomes a "
                           "POST)"), [], []
        elif opt.name not in _GH_API_VALUE and opt.name not in _GH_API_FLAGS:
            return _unsafe(ctx, f"gh api {opt.name}", "unknown option"), [], []
    if len(args.positionals) != 1:
        return _unsafe(ctx, "gh api", "expects exactly one endpoint"), [], []
    return None, [], []




# --- rebase: continuing or ending one under way ----------------------------------------------

#: the todo list's commands that only apply, reword, stop at or drop a commit (their commit
#: is the line's second word); every other (exec runs a command, merge/label/reset/
#: update-ref rebuild history as the list says) asks
_TODO_PICKS = {"pick": "pick", "p": "pick", "reword": "pick", "r": "pick", "edit": "pick",
               "e": "pick", "squash": "pick", "s": "pick", "fixup": "pick", "f": "pick",
               "drop": "drop", "d": "drop", "break": "none", "b": "none", "noop": "none"}


def _rebase_todo(ctx, label, state):
    """(commits the rest of the todo list applies, verdict) of the rebase in `state`
    (.git/rebase-merge)."""
    try:
        with open(os.path.join(state, "git-rebase-todo"), "rb") as fh:
            text = fh.read(1 << 20).decode("utf-8", "replace")
    except FileNotFoundError:
        return [], None
    except OSError:
        return [], _unknown(ctx, label, "the rebase's todo list cannot be read")
    commits = []
    for line in text.splitlines():
        parts = line.split()
        if not parts or parts[0].startswith("#"):
            continue
        kind = _TODO_PICKS.get(parts[0])
        if kind is None:
            return [], ctx.ask(PHASE, "GW707", f"{label}: the rebase's todo list holds "
                               f"{line.strip()[:60]!r}, which runs a command or rebuilds "
                               "history in a way the gateway does not follow; continue it "
                               "yourself", rule="subcommand_ask:git rebase")
        if kind == "pick":
            sha = parts[2] if parts[1:2] in (["-C"], ["-c"]) and len(parts) > 2 else \
                parts[1] if len(parts) > 1 else ""
            if not sha or not all(c in "0123456789abcdef" for c in sha.lower()):
                return [], _unknown(ctx, label, f"the todo line {line.strip()[:60]!r} names "
                                    "no commit")
            commits.append(sha)
    return commits, None


def git_rebase(ctx, spec, words, cwd):
    """`git rebase --continue | --abort | --quit | --show-current-patch`: a rebase already
    under way (starting one asks: subcommand_ask). --continue commits what is staged and
    applies the rest of the todo list: the files those commits change are asked of git as a
    cherry-pick's are, and a todo line that runs a command (exec) or rebuilds history
    (merge, reset, label) asks. --abort puts the branch back where it was: the files that
    differ are asked of git, and uncommitted changes (a conflict being resolved) would be
    lost for good: it asks then. --quit leaves HEAD and the files as they are."""
    label = "git rebase"
    args = argvmod.parse(words, frozenset())
    if len(args.options) != 1 or args.positionals or args.options[0].name not in spec.resumes:
        return ctx.ask(PHASE, "GW707", f"{label} {' '.join(words)[:60]}: starts a rebase "
                       "(it rewrites history)", rule="subcommand_ask:git rebase"), [], []
    op = args.options[0].name
    label = f"{label} {op}"
    repo = _Repo(ctx, cwd)
    if repo.git_dir is None or op in ("--quit", "--show-current-patch"):
        return None, [], []
    verdict = stale(ctx, label)
    if verdict:
        return verdict, [], []
    merge_state = os.path.join(repo.git_dir, "rebase-merge")
    apply_state = os.path.join(repo.git_dir, "rebase-apply")
    if os.path.isdir(apply_state):
        return ctx.ask(PHASE, "GW707", f"{label}: the rebase under way applies mailbox "
                       "patches (the apply backend), which the gateway does not follow",
                       rule="subcommand_ask:git rebase"), [], []
    if not os.path.isdir(merge_state):
        return None, [], []  # no rebase under way: git refuses
    if op == "--continue":
        commits, verdict = _rebase_todo(ctx, label, merge_state)
        if verdict:
            return verdict, [], []
        if not commits:
            return None, [], []
        names = repo.names(["log", "--no-walk=unsorted", "-m", "--root", "--format=%x00",
                            *_DIFF_NAMES, *commits, "--"])
        return _changes(ctx, label, repo, names), [], []
    # --abort
    status = repo.run(["status", "--porcelain", "-z", "--untracked-files=no",
                       "--ignore-submodules=none"])
    if status is None:
        return _unknown(ctx, label, "git could not list the uncommitted changes"), [], []
    if status.strip(b"\0"):
        return ctx.ask(PHASE, "GW707", f"{label}: the uncommitted changes (a conflict being "
                       "resolved, an edit at a stop) would be lost for good; commit or stash "
                       "them first, or abort it yourself", rule="subcommand_ask:git rebase"), \
            [], []
    try:
        with open(os.path.join(merge_state, "orig-head"), encoding="ascii") as fh:
            orig = fh.read(100).strip()
    except (OSError, UnicodeDecodeError):
        return _unknown(ctx, label, "the rebase's starting point cannot be read"), [], []
    return _changes(ctx, label, repo, _tree_names(repo, "HEAD", orig)), [], []
