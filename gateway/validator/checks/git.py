"""git and gh: the forms that only read, the recoverable local operations, and what they print.

Three questions are asked of git itself (checks/_gitquery.py), never guessed:

* which files' contents a read prints (`git show HEAD~3`, `git log -p -5`, `git diff
  main...x -- src`, `git grep TODO -- src`): a secret among them asks (GW503), a secret
  elsewhere in the repository does not;
* which files a recoverable operation changes in the working tree (checkout or switch of a
  branch, merge, cherry-pick, stash and stash apply/pop): none may be part of the permission
  surface, a script or project tool that runs unasked, a secret or a file that runs later
  (GW741), and no untracked or ignored file may be overwritten (GW743);
* what configuration a read prints (`git config -l`, `git remote -v`, `git var -l`): a
  credential in it (a token in a remote URL, http.extraheader, a password) asks (GW742).

When git cannot answer (a timeout, a partial clone, an unborn HEAD) the command asks (GW740).
Every check is an allowlist: an option not listed asks; a long option written shorter is
resolved against git's complete option list (the catalogue's `options`).
"""

import os
import re

from gateway.paths import is_autorun, is_protected, is_secret, is_within, lexical, physical, real
from gateway.validator import argv as argvmod
from gateway.validator.checks import _gitquery as gq
from gateway.validator.checks._common import _unsafe, revision_secret

PHASE = "7C"

# --- the repository a command works on -------------------------------------------------------


class _Repo:
    """The repository git would use for a command in `cwd`, and how to ask it."""

    __slots__ = ("cwd", "git_dir", "globals", "_top")

    def __init__(self, ctx, cwd):
        from gateway.validator.checks._gitindex import git_dir_of

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
    from gateway.validator.checks._gitindex import tracked_paths

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


def _strategy(ctx, label, args):
    """A merge strategy that is not one of git's own is a program `git-merge-<name>`."""
    for s in args.values("-s", "--strategy"):
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
    verdict = _opts_ok(ctx, label, args, _MERGE_OK, spec) or _strategy(ctx, label, args)
    if verdict:
        return verdict, [], []
    repo = _Repo(ctx, cwd)
    files = args.values("-F", "--file")
    if repo.git_dir is None:
        return None, files, []
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
    verdict = _opts_ok(ctx, label, args, _CP_OK, spec)
    if not verdict and args.values("--strategy"):
        verdict = _strategy(ctx, label, argvmod.parse(
            ["-s" if w == "--strategy" else w for w in words], _CP_VALUE | {"-s"}))
    if verdict:
        return verdict, [], []
    if not args.positionals:
        return None, [], []  # git refuses
    repo = _Repo(ctx, cwd)
    if repo.git_dir is None:
        return None, [], []
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


# --- configuration: reads, and the credentials they print -------------------------------------

_CONFIG_READ = frozenset(("--get", "--get-all", "--get-regexp", "--list", "-l",
                          "--show-origin", "--show-scope", "--name-only", "--null", "-z",
                          "--global", "--system", "--local", "--worktree", "--includes",
                          "--no-includes", "--type", "--default", "--bool", "--int", "--path",
                          "--bool-or-int", "--bool-or-str", "--expiry-date", "--get-urlmatch",
                          "--fixed-value", "--no-type"))
_CONFIG_SCOPE = ("--global", "--system", "--local", "--worktree", "--includes", "--no-includes")
_CONFIG_WRITE_SUBCOMMANDS = frozenset(("set", "unset", "rename-section", "remove-section",
                                       "edit"))
_CONFIG_VALUE = frozenset(("--type", "--default", "--file", "-f", "--blob"))


def _first_operand(words, value_flags) -> int:
    """Index of the first word that is not an option (or an option's value)."""
    i = 0
    while i < len(words):
        w = words[i]
        if w == "--":
            return i + 1
        if not w.startswith("-") or w == "-":
            return i
        i += 2 if w in value_flags else 1
    return i


#: A URL's user information: `scheme://user:secret@host` or `https://<token>@host`.
_USERINFO = re.compile(r"([a-z][a-z0-9+.-]*)://([^/@\s]+)@", re.IGNORECASE)
#: Token prefixes of the big forges (gitleaks' github-pat, gitlab-pat, bitbucket rules).
_TOKEN_PREFIXES = ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "gldt-",
                   "glcbt-", "x-access-token", "x-token-auth", "oauth2", "atbb")
_SECRET_WORDS = ("password", "passwd", "token", "secret", "apikey", "api-key", "api_key",
                 "smtppass", "privatekey", "private-key", "credential")


def credential(key: str, value: str) -> str:
    """Why the configuration entry `key` = `value` holds a credential, or "". Checked: URLs
    with user information in the key (url.<base>.insteadOf) or the value (remote.*.url,
    http.proxy) - a password, or a user name that is a token (trufflehog's uri detector,
    detect-secrets' BasicAuthDetector); http.*.extraHeader (an Authorization header,
    actions/checkout's persisted token); keys named like a password or token."""
    low = key.lower()
    for text in (key, value):
        for m in _USERINFO.finditer(text):
            user, _, password = m.group(2).partition(":")
            if password and not password.startswith("$"):
                return f"{key}: a password in a URL"
            u = user.lower()
            if m.group(1).lower() in ("http", "https", "ftp", "ftps") and (
                    u.startswith(_TOKEN_PREFIXES) or (len(user) >= 20 and " " not in user)):
                return f"{key}: a token in a URL"
    if low.endswith(".extraheader"):
        return f"{key}: an HTTP header sent to the server (a token)"
    name = low.rsplit(".", 1)[-1]
    if value and any(w in name for w in _SECRET_WORDS):
        return f"{key}: named like a password or token"
    if low.startswith("credential.") and re.search(r"(password|token)\s*=\s*[^$\s]", value,
                                                   re.IGNORECASE):
        return f"{key}: a credential helper that prints a password"
    if value and re.search(r"\b(authorization|bearer|basic)\b\s*[:=]?\s*\S{8,}", value,
                           re.IGNORECASE) and "header" in low:
        return f"{key}: an authorization header"
    return ""


def _key_parts(key):
    """(section lower, subsection as written, name lower) of a configuration key."""
    first, _, rest = key.partition(".")
    sub, _, name = rest.rpartition(".")
    return first.lower(), sub, name.lower()


def _config_credentials(ctx, what, repo, entries, keys_only=False):
    if entries is None:
        return _unknown(ctx, what, "git could not list the configuration it prints")
    for key, value in entries:
        why = credential(key, "" if keys_only else value)
        if why:
            return ctx.ask(PHASE, "GW742", f"{what} prints a credential from git's "
                           f"configuration ({why}). Read it yourself if you mean to; to keep "
                           "the token out of the configuration, use a credential helper",
                           rule="git:credential")
    return None


def _selected(entries, mode, pattern):
    """The entries a read prints: all (--list), those of one key (--get), or matching a
    regular expression (--get-regexp; an expression Python cannot read selects all)."""
    if mode == "list" or entries is None:
        return entries
    if mode == "regexp":
        try:
            rx = re.compile(pattern, re.IGNORECASE)
        except re.error:
            return entries
        return [(k, v) for k, v in entries if rx.search(k)]
    if mode == "urlmatch":
        section = pattern.split(".", 1)[0].lower()
        return [(k, v) for k, v in entries if k.split(".", 1)[0].lower() == section]
    want = _key_parts(pattern)
    return [(k, v) for k, v in entries if _key_parts(k) == want]


def git_config(ctx, spec, words, cwd):
    """Reads only (`git config user.name`, `--get`, `--list`, `get`, `list`), and only when
    nothing they print is a credential (GW742). Anything that sets, unsets or edits asks."""
    label = "git config"
    if words and words[0] in ("get", "list"):
        # git 2.46+ subcommands: read-only, but --file/--blob name what is read (an INI-style
        # credentials file)
        args = argvmod.parse(words[1:], frozenset(("--type", "--default", "--file", "-f",
                                                   "--blob", "--value", "--url")))
        blobs = args.values("--blob") + [a for a in args.attached if ":" in a]
        if any(":" not in b for b in args.values("--blob")):
            # an object id or a tag: any blob, a tracked secret among them
            return _unsafe(ctx, "git config --blob", "reads a blob named by id; name it as "
                           "<rev>:<path>"), [], []
        verdict = revision_secret(ctx, "git config", blobs, cwd)
        if verdict is not None:
            return verdict, [], []
        mode = "list" if words[0] == "list" else (
            "regexp" if args.has("--regexp", "--all") and args.has("--regexp") else "key")
        pattern = args.positionals[0] if args.positionals else ""
        if words[0] == "get" and not pattern:
            return _unsafe(ctx, "git config get", "names no key"), [], []
        verdict = _config_read_credentials(ctx, label, words[1:], args, mode, pattern, cwd)
        return verdict, args.values("--file", "-f") + args.attached, []
    if words and words[0] in _CONFIG_WRITE_SUBCOMMANDS:
        # git 2.46+ subcommands; `git config edit` opens .git/config in the editor
        return _unsafe(ctx, f"git config {words[0]}", "changes the configuration"), [], []
    first = _first_operand(words, _CONFIG_VALUE)
    if any(w.startswith("-") for w in words[first:]):
        # git config stops at the key: `git config core.fsmonitor CMD -l` sets the key (the
        # -l is a value pattern), it does not list
        return _unsafe(ctx, "git config " + " ".join(words), "an option after the key is "
                       "a value: this sets the key"), [], []
    args = argvmod.parse(words, _CONFIG_VALUE)
    for opt in args.options:
        if opt.name in ("--file", "-f", "--blob"):
            continue
        if opt.name not in _CONFIG_READ and not argvmod.abbreviates_only(
                opt.name, spec.options, _CONFIG_READ | {"--file", "--blob"}):
            return _unsafe(ctx, f"git config {opt.name}", "changes the configuration"), [], []
    if any(":" not in b for b in args.values("--blob")):
        return _unsafe(ctx, "git config --blob", "reads a blob named by id; name it as "
                       "<rev>:<path>"), [], []
    verdict = revision_secret(ctx, "git config", args.values("--blob"), cwd)
    if verdict is not None:
        return verdict, [], []
    listing = args.has("--list", "-l")
    reading = listing or args.has("--get", "--get-all", "--get-regexp", "--get-urlmatch")
    limit = 0 if listing else (3 if args.has("--get-urlmatch") else (2 if reading else 1))
    if len(args.positionals) > limit or (not listing and not args.positionals):
        return _unsafe(ctx, "git config " + " ".join(words), "sets a value (git config can "
                       "define aliases and hooks that run commands)"), [], []
    if listing:
        mode, pattern = "list", ""
    elif args.has("--get-regexp"):
        mode, pattern = "regexp", args.positionals[0]
    elif args.has("--get-urlmatch"):
        mode, pattern = "urlmatch", args.positionals[0]
    else:
        mode, pattern = "key", args.positionals[0]
    verdict = _config_read_credentials(ctx, label, words, args, mode, pattern, cwd)
    return verdict, args.values("--file", "-f"), []


def _config_read_credentials(ctx, label, words, args, mode, pattern, cwd):
    repo = _Repo(ctx, cwd)
    scope = [w for w in words if w in _CONFIG_SCOPE]
    for name in ("--file", "-f", "--blob"):
        for v in args.values(name):
            scope += ["--blob" if name == "--blob" else "--file", v]
    if repo.git_dir is None and (args.values("--blob") or any(
            w in ("--local", "--worktree") for w in scope)):
        return None  # outside a repository git refuses
    entries = gq.config_entries(cwd, repo.git_dir or cwd, scope, repo.globals)
    keys_only = args.has("--name-only")
    return _config_credentials(ctx, f"{label} {' '.join(words)}".strip(), repo,
                               _selected(entries, mode, pattern), keys_only)


_URL_KEYS = re.compile(r"^(remote\.(.+)\.(url|pushurl)|url\..+\.(insteadof|pushinsteadof))$",
                       re.IGNORECASE)


def git_remote(ctx, spec, words, cwd):
    """`git remote [-v]`, `git remote show [-n] [<name>...]`, `git remote get-url [--push]
    [--all] <name>`: the URLs they print are checked for credentials (a token a clone kept in
    .git/config, an insteadOf base that carries one)."""
    label = "git remote"
    sub = spec.name.split(" ")[2] if spec.name.count(" ") >= 2 else ""
    args = argvmod.parse(words)
    safe = {"": frozenset(("-v", "--verbose", "--no-verbose")),
            "show": frozenset(("-n",)),
            "get-url": frozenset(("--push", "--all", "--no-push", "--no-all"))}[sub]
    verdict = _opts_ok(ctx, f"{label} {sub}".strip(), args, safe, spec)
    if verdict:
        return verdict, [], []
    if not sub and args.positionals:
        return _unsafe(ctx, f"{label} {args.positionals[0]}", "not a read"), [], []
    if not sub and not args.has("-v", "--verbose"):
        return None, [], []  # names only
    names = set(args.positionals)
    # a URL instead of a remote's name is contacted: judged as one (phase 5)
    urls = [p for p in args.positionals if "://" in p or ":" in p.split("/", 1)[0]]
    repo = _Repo(ctx, cwd)
    if repo.git_dir is None or urls:
        return None, urls, []
    entries = gq.config_entries(cwd, repo.git_dir, (), repo.globals)
    if entries is not None:
        entries = [(k, v) for k, v in entries if (m := _URL_KEYS.match(k)) and (
            not names or m.group(2) is None or m.group(2) in names)]
    what = f"{label} {sub} {' '.join(words)}".replace("  ", " ").strip()
    return _config_credentials(ctx, what, repo, entries), [], []


def git_var(ctx, spec, words, cwd):
    """`git var <name>` prints one of git's variables; `git var -l` also the whole
    configuration: checked like `git config --list`."""
    args = argvmod.parse(words)
    verdict = _opts_ok(ctx, "git var", args, frozenset(("-l",)), spec)
    if verdict:
        return verdict, [], []
    if not args.has("-l"):
        return None, [], []
    repo = _Repo(ctx, cwd)
    entries = gq.config_entries(cwd, repo.git_dir or cwd, (), repo.globals)
    return _config_credentials(ctx, "git var -l", repo, entries), [], []


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


# --- what a read prints --------------------------------------------------------------------

#: Options that make git log (and diff-tree, stash show...) print a patch, or lines of the
#: files (--check prints the lines with whitespace errors).
_PATCH_LONG = ("--patch", "--unified", "--cc", "--dd", "--remerge-diff", "--word-diff",
               "--color-words", "--patch-with-stat", "--patch-with-raw", "--function-context",
               "--binary", "--diff-merges", "--combined-all-paths", "--full-diff", "--check",
               "--submodule", "--recurse-submodules")
_PATCH_SHORT = frozenset("pucmUW")
#: Options after which git diff / show print no file contents ...
_NO_CONTENT = frozenset(("--stat", "--numstat", "--shortstat", "--dirstat", "--cumulative",
                         "--dirstat-by-file", "--name-only", "--name-status", "--summary",
                         "--raw", "--no-patch", "--quiet", "-s", "--stat-width",
                         "--stat-name-width", "--stat-graph-width", "--stat-count",
                         "--compact-summary"))
#: ... and options that change nothing about that. Any other option (one that takes a
#: value may swallow the next word: `--src-prefix --stat` is a prefix, not --stat) makes
#: the command count as printing.
_NEUTRAL = frozenset(("--oneline", "--format", "--pretty", "--abbrev-commit",
                      "--no-abbrev-commit", "--abbrev", "--color", "--no-color", "--date",
                      "--decorate", "--no-decorate", "--relative", "-M", "-C",
                      "--find-renames", "--find-copies", "--no-renames", "--full-index", "-z",
                      "--no-ext-diff", "--no-textconv", "--exit-code", "-r", "-t", "--root",
                      "--cached", "--staged", "--merge-base", "-q", "--no-prefix"))
_CAT_FILE_META = frozenset(("-t", "-s", "-e"))
#: Per subcommand, the options with which it prints file contents although it does not
#: otherwise: verbose and interactive forms show the diff of each file.
_SHOWS_DIFF = {
    "status": (frozenset("v"), ("--verbose",)),
    "add": (frozenset("pie"), ("--patch", "--interactive", "--edit")),
    "commit": (frozenset("pv"), ("--patch", "--verbose", "--interactive")),
    "push": (frozenset("p"), ("--patch",)),  # git stash push -p
}
_PLAIN_REV = frozenset("HEAD@~^0123456789")


def _long_in(word, options) -> bool:
    name = word.split("=", 1)[0]
    return any(argvmod.long_matches(name, o) for o in options if o.startswith("--"))


def _patch_option(words) -> bool:
    for w in words:
        if w == "--":
            break
        if w.startswith("--"):
            if _long_in(w, _PATCH_LONG):
                return True
        elif w.startswith("-") and len(w) > 1 and _PATCH_SHORT & set(w[1:]):
            return True  # also inside a cluster or a glued value: rather ask once too often
    return False


def _no_content(words) -> bool:
    """Only content-free options (at least one) and neutral ones: no contents printed."""
    found = False
    for w in words:
        if w == "--":
            break
        if not w.startswith("-") or w == "-":
            continue
        name = w.split("=", 1)[0]
        if name in _NO_CONTENT:
            found = True
        elif name not in _NEUTRAL:
            return False
    return found


def _plain_revision(word) -> bool:
    """HEAD, @, HEAD~2, HEAD^: a commit, never a blob."""
    return word.startswith(("HEAD", "@")) and set(word) <= set("HEAD") | _PLAIN_REV


def prints_contents(label, mode, words) -> bool:
    """Does this git command print the contents of tracked files at all?"""
    sub = label.rsplit(" ", 1)[-1]
    if sub == "cat-file":
        return not (words and words[0] in _CAT_FILE_META)
    if sub == "grep":
        return True  # matching lines; -l/-c/-q still tell whether a guess is in the file
    if sub in _SHOWS_DIFF:
        letters, longs = _SHOWS_DIFF[sub]
        for w in words:
            if w == "--":
                break
            if w.startswith("--") and _long_in(w, longs):
                return True
            if w.startswith("-") and not w.startswith("--") and letters & set(w[1:]):
                return True
        return False
    if sub in ("for-each-ref", "tag", "branch"):
        return any("%(raw" in w or "%(contents" in w for w in words)
    if mode == "patch":
        return _patch_option(words)
    if _patch_option(words) or not _no_content(words):
        return True
    if sub == "show":  # a blob is printed whatever the diff options say
        return any(not _plain_revision(w) for w in words
                   if not w.startswith("-") and w != "--")
    return False


#: What the name queries add to the judged command's own words: names instead of contents,
#: no external diff or text conversion, every rename as a deletion and an addition (both
#: names count), paths from the top of the work tree.
_LOG_NAMES = ("--format=%x00",) + _DIFF_NAMES
#: Options of the judged command left out of the name query: they shape what is printed
#: (formats, --graph), git refuses them next to --name-only (--check, --name-status, -s), or
#: they pair a deleted file with an added one (renames, copies, rewrites): every name counts.
_DROP = frozenset(("--graph", "--check", "--name-status", "-s", "--no-patch", "--quiet",
                   "--format", "--pretty", "--oneline", "--find-renames", "--find-copies",
                   "--find-copies-harder", "--break-rewrites", "--renames", "--follow"))
_DROP_LETTERS = frozenset("MCBs")


def _kept(word):
    if word.startswith("--"):
        return word.split("=", 1)[0] not in _DROP
    if word.startswith("-") and len(word) > 1:
        return not (_DROP_LETTERS & set(word[1:]))
    return True


def _with(words, extra):
    """The name query of a command: `extra` first (git log refuses options after a path),
    then the judged command's words without _DROP (--follow is kept: it needs rename
    detection, so --no-renames is left out then)."""
    end = words.index("--") if "--" in words else len(words)
    follow = "--follow" in words[:end]
    kept = [w for k, w in enumerate(words) if k >= end or _kept(w)]
    if follow:
        extra = [e for e in extra if e != "--no-renames"] + ["--follow"]
    return list(extra) + kept


#: git grep: the options kept from the judged command (which files are searched); every
#: other one (patterns, output) is replaced by "list every non-empty file searched".
_GREP_KEEP = frozenset(("--cached", "--no-index", "--untracked", "--no-exclude-standard",
                        "--exclude-standard", "--max-depth", "-r", "--recursive",
                        "--no-recursive", "--index"))
_GREP_PATTERN = frozenset(("-e", "-f", "--and", "--or", "--not", "(", ")"))


def _revisions(args):
    """The positional words before `--` (revisions, or paths git tells apart itself)."""
    pos = list(args.positionals)
    if args.rest is not None:
        pos = pos[:len(pos) - len(args.rest)]
    return pos


def _blob_by_id(ctx, label, repo, revs):
    """An ask when one of `revs` (not <rev>:<path>, whose path was checked) is a file's
    contents named by id or by a tag: which file it is cannot be known."""
    plain = [r for r in revs if ":" not in r and not r.startswith("-")]
    if not plain:
        return None
    types = gq.object_types(repo.cwd, repo.git_dir, plain, repo.globals)
    if types is None:
        return _unknown(ctx, label, "git could not say what the objects it names are")
    for r in plain:
        if types.get(r) == "blob":
            return ctx.ask(PHASE, "GW744", f"{label} {r!r}: names a file's contents by id (or "
                           "a tag of one), so which file cannot be known; name it as "
                           "<rev>:<path>", rule="git:blob")
    return None


def _printed(ctx, label, spec, words, cwd, repo):
    """(names of the files whose contents the command prints, relative to the work tree, or
    None when git could not say; an ask verdict or None). "fallback" instead of a set: the
    command is judged by the index check (submodules, %(contents) of refs)."""
    sub = label.split(" ", 1)[1] if " " in label else label
    args = argvmod.parse(words, spec.value_flags)
    if any(_long_in(w, ("--submodule", "--recurse-submodules")) for w in words
           if w.startswith("--")) or sub in ("for-each-ref", "tag", "branch", "shortlog"):
        return "fallback", None
    if sub in ("status", "commit"):
        staged = repo.names(["diff", "--cached", *_DIFF_NAMES], ok=(0, 1))
        work = repo.names(["diff", *_DIFF_NAMES], ok=(0, 1))
        return (None if staged is None or work is None else staged | work), None
    if sub == "cat-file":
        obj = [p for p in args.positionals if p][-1:] if args.positionals else []
        return set(), _blob_by_id(ctx, label, repo, obj)
    if sub == "grep":
        return _grep_printed(repo, spec, words, args), None
    if args.has("-L"):
        return set(), None  # only the line ranges of the files -L names (checked)
    revs = _revisions(args)
    if sub == "diff":
        if args.has("--no-index"):
            return set(), None  # two files or trees, judged as paths and walked (phase 5)
        verdict = _blob_by_id(ctx, label, repo, revs)
        if verdict is not None:
            return None, verdict
        if revs and all(":" in r for r in revs):
            return set(), None  # blobs named by path (checked)
        return repo.names(["diff", *_with(words, _DIFF_NAMES)], ok=(0, 1)), None
    if sub in ("diff-tree", "diff-index", "diff-files"):
        extra = _DIFF_NAMES + (("--no-commit-id", "-r") if sub == "diff-tree" else ())
        return repo.names([sub, *_with(words, extra)], ok=(0, 1)), None
    if sub == "show":
        verdict = _blob_by_id(ctx, label, repo, revs)
        if verdict is not None:
            return None, verdict
        # blobs and trees named by path are printed as they are (their path was checked)
        keep = [w for w in words if not (w in revs and ":" in w)]
        if revs and all(":" in r for r in revs):
            return set(), None
        return repo.names(["show", *_with(keep, _LOG_NAMES)], ok=(0, 1)), None
    if sub == "stash show":
        return repo.names(["stash", "show", *_with(words, _DIFF_NAMES)], ok=(0, 1)), None
    if sub == "stash list":
        return repo.names(["stash", "list", *_with(words, _LOG_NAMES)], ok=(0, 1)), None
    if sub == "reflog show":
        return repo.names(["reflog", "show", *_with(words, _LOG_NAMES)], ok=(0, 1)), None
    if sub in ("log", "whatchanged"):
        return repo.names([sub, *_with(words, _LOG_NAMES)], ok=(0, 1)), None
    return "fallback", None


def _grep_printed(repo, spec, words, args):
    """The files `git grep` searches, listed by git: the judged command with its patterns
    replaced by one that matches every line (`-e ''`), its output options by `-l`. Which
    files match the real pattern is not asked: the answer would tell the agent whether a
    secret contains it."""
    if args.has("--no-index"):
        return set()  # the working tree, walked (phase 5)
    pattern_given = any(o.name in ("-e", "-f") or o.name in _GREP_PATTERN
                        for o in args.options)
    kept = []
    for opt in args.options:
        if opt.name in _GREP_KEEP:
            kept.append(opt.name if opt.value is None else f"{opt.name}={opt.value}")
    pos = [p for p in args.positionals if p not in ("(", ")")]
    rest = args.rest
    before = pos[:len(pos) - len(rest)] if rest is not None else pos
    if not pattern_given:
        before = before[1:]
    query = ["grep", "-l", "-z", "--full-name", "--no-color", "-a", "-e", "", *kept, *before]
    if rest is not None:
        query += ["--", *rest]
    out = repo.run(query, ok=(0, 1))
    found = gq.names(out)
    if found is None:
        return None
    # with revisions git prints <rev>:<path>: every suffix after a colon is a candidate
    return {n.split(":", k)[-1] for n in found for k in range(n.count(":") + 1)}


def tracked_secret(ctx, label, mode, words, cwd, rule):
    """Ask (GW503) when the command prints the contents of a file the secret rules name: the
    files it prints are asked of git (the same command with --name-only); GW740 when git
    cannot say, GW744 for a file named by object id."""
    if not prints_contents(label, mode, words):
        return None
    repo = _Repo(ctx, cwd)
    if repo.git_dir is None:
        return None  # no repository here: git refuses, or --no-index is walked (phase 5)
    spec = ctx.policy.command("git")
    for part in label.split(" ")[1:]:
        spec = spec.subcommands[part] if spec is not None and spec.subcommands else spec
    found, verdict = _printed(ctx, label, spec, words, cwd, repo)
    if verdict is not None:
        return verdict
    if found == "fallback":
        return _index_secret(ctx, label, repo, rule)
    if found is None:
        return _unknown(ctx, label, "git could not say which files' contents it prints")
    for name in sorted(found, key=lambda n: (len(n), n)):
        secret = is_secret(("/" + name.lstrip("/"),), ctx.policy)
        if secret:
            return ctx.ask("5", "GW503", f"{label} prints the contents of {name!r}, a secret "
                           f"file ({secret}). Read it yourself if you mean to; leave it out "
                           f"with a pathspec (-- . ':!{name}'), or stop tracking it (git rm "
                           "--cached); if it is not a secret, add it to secrets.exceptions in "
                           "your user rules (docs/rules.md)", rule=f"secrets:{secret}")
    return None


# --- the index check (for what git cannot list: submodules, refs' contents) ---------------------

def _suspects(paths, policy):
    """The tracked paths that may be secrets, in index order: a basename that matches the
    last component of a secret pattern (or does once a backup suffix is taken off), or a
    secret directory among the components. One regex per distinct basename and a substring
    search per secret directory instead of the full check per path (an index of 50,000
    files: ~20 ms instead of ~110 ms); the full check (is_secret) then runs on these only."""
    from gateway.paths import _compile_globs, secret_names

    lasts = sorted({pat.rsplit("/", 1)[-1] for pat in policy.secret_patterns})
    rx = _compile_globs(lasts) if lasts else None
    by_name = {}
    for p in paths:
        by_name.setdefault(p.rpartition(b"/")[2], []).append(p)
    keep = set()
    if rx is not None:
        for name, group in by_name.items():
            if any(rx.match(n) is not None for n in secret_names(os.fsdecode(name), policy)):
                keep.update(group)
    if policy.secret_dirs:
        blob = (b"\0" + b"\0".join(paths) + b"\0").lower()
        for d in policy.secret_dirs:
            needle = os.fsencode(d.lower())
            if b"\0" + needle + b"/" in blob or b"/" + needle + b"/" in blob:
                keep.update(p for p in paths if needle in p.lower())
    return [p for p in paths if p in keep]


_MAX_MODULE_INDEXES = 64


def _index_dirs(git_dir):
    """The git directory and its submodules' (`modules/**` with an index): git reads those
    too (`--recurse-submodules`, `--submodule=diff`, `-C .git/modules/x`)."""
    out = [git_dir]
    modules = os.path.join(git_dir, "modules")
    if os.path.isdir(modules):
        for d, dirs, files in os.walk(modules):
            if "index" in files and "HEAD" in files:
                out.append(d)
                if len(out) > _MAX_MODULE_INDEXES:
                    break
            dirs[:] = [x for x in dirs if x not in ("objects", "refs", "logs", "hooks",
                                                    "info")]
    return out


def _index_secret(ctx, label, repo, rule):
    """Ask (GW503) when the repository's index (or a submodule's) holds a path the secret
    rules name; ask too when an index cannot be read (it may)."""
    from gateway.validator.checks._gitindex import tracked_paths

    git_dir = repo.git_dir
    paths = []
    for index_dir in _index_dirs(git_dir):
        found = tracked_paths(index_dir)
        if found is None:
            return ctx.ask("5", "GW503", f"{label} prints tracked files' contents, and the "
                           f"index {index_dir}/index could not be read to rule out a tracked "
                           "secret (split, sparse or unknown format)", rule=rule)
        paths.extend(found)
    for p in _suspects(paths, ctx.policy):
        rel = os.fsdecode(p)
        secret = is_secret(("/" + rel,), ctx.policy)
        if secret:
            return ctx.ask("5", "GW503", f"{label} prints tracked files' contents, and the "
                           f"repository tracks {rel!r}, a secret file ({secret}): it could be "
                           f"printed. Read it yourself if you mean to, or stop tracking it "
                           f"(git rm --cached {rel}); if it is not a secret, add it to "
                           "secrets.exceptions in your user rules (docs/rules.md)",
                           rule=f"secrets:{secret}")
    return None
