"""git checkout / switch / fetch / stash / restore / reset / config and gh api: the forms
that only read, or change no tracked file."""

import os

from gateway.paths import lexical
from gateway.validator import argv as argvmod
from gateway.validator.checks._common import _unsafe, revision_secret

# --- git ---------------------------------------------------------------------------------

_CHECKOUT_UNSAFE = ("-f", "--force", "-p", "--patch", "--ours", "--theirs", "-m", "--merge",
                    "--conflict", "--overwrite-ignore", "--pathspec-from-file", "-B",
                    "--orphan", "--pathspec-file-nul")
# -t/--track take no separate value (`--track=direct` only): `git checkout -t origin/x`
# names the commit to move to, it is not the option's value
_CHECKOUT_VALUE = frozenset(("-b", "-B", "--orphan", "--conflict"))
_CHECKOUT_OK = frozenset(("-b", "-t", "--track", "--no-track", "-q", "--quiet", "--detach",
                          "--progress", "--no-progress", "--guess", "--no-guess",
                          "--recurse-submodules", "--no-recurse-submodules"))


def git_checkout(ctx, spec, words, cwd):
    if "--" in words:
        return _unsafe(ctx, "git checkout -- <paths>", "discards uncommitted changes"), [], []
    args = argvmod.parse(words, _CHECKOUT_VALUE)
    bad = argvmod.first_unsafe(args, _CHECKOUT_UNSAFE)
    if bad:
        return _unsafe(ctx, f"git checkout {bad}", "can discard uncommitted changes"), [], []
    for opt in args.options:
        if opt.name not in _CHECKOUT_OK:
            return _unsafe(ctx, f"git checkout {opt.name}", "unknown option"), [], []
    pos = args.positionals
    if len(pos) > 1:
        return _unsafe(ctx, "git checkout <ref> <paths>", "restores files from a commit, "
                       "discarding changes"), [], []
    if pos:
        target = pos[0]
        if target in (".", "..") or os.path.lexists(lexical(target, cwd)):
            return _unsafe(ctx, f"git checkout {target}", "names a file: restoring it "
                           "discards uncommitted changes"), [], []
        return _unsafe(ctx, f"git checkout {target}", _SWITCHES_TREE), [], []
    return None, [], []


_FETCH_VALUE = frozenset(("--depth", "--deepen", "--shallow-since", "--shallow-exclude", "-j",
                          "--jobs", "-o", "--server-option", "--negotiation-tip", "--filter",
                          "--refmap", "--recurse-submodules-default", "--submodule-prefix"))
#: --set-upstream writes the branch's remote into .git/config
_FETCH_UNSAFE = ("--upload-pack", "--refmap", "--set-upstream")
#: --stdin reads more refspecs (`x:refs/stash`) than the command shows; --update-head-ok lets a
#: refspec move the checked-out branch (`-u origin x:main`: the next `git stash` leaves x's
#: files in the working tree).
_FETCH_HIDDEN = ("--stdin", "-u", "--update-head-ok")


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


#: Why moving the working tree to another commit is not auto-allowed: git keeps uncommitted
#: changes, but every tracked file may change, the agent's own settings and hooks, and the
#: scripts/ that run without a prompt, among them (a fetched pull request can carry both).
_SWITCHES_TREE = ("replaces the project's tracked files with another commit's (the agent's "
                  "settings, hooks and scripts/ among them); only a new branch at HEAD "
                  "(`-b NAME`, `-c NAME`) is auto-allowed")

_SWITCH_VALUE = frozenset(("-c", "--create", "-C", "--force-create", "--orphan", "--conflict"))
_SWITCH_OK = frozenset(("-c", "--create", "-t", "--track", "--no-track", "-q", "--quiet",
                        "--progress", "--no-progress", "--guess", "--no-guess",
                        "--recurse-submodules", "--no-recurse-submodules"))


def git_switch(ctx, spec, words, cwd):
    """`git switch -c NAME` (a new branch at HEAD: no file changes) and nothing else."""
    args = argvmod.parse(words, _SWITCH_VALUE)
    for opt in args.options:
        if opt.name not in _SWITCH_OK:
            return _unsafe(ctx, f"git switch {opt.name}", "not a form that keeps the working "
                           "tree (only `git switch -c NAME` is auto-allowed)"), [], []
    creates = args.has("-c", "--create")
    if args.positionals or not creates:
        what = args.positionals[0] if args.positionals else ""
        return _unsafe(ctx, f"git switch {what}".rstrip(), _SWITCHES_TREE), [], []
    return None, [], []


def _stash_ref(ref: str) -> bool:
    """stash@{N} or N."""
    if ref.startswith("stash@{") and ref.endswith("}"):
        ref = ref[7:-1]
    return ref.isascii() and ref.isdigit()


def git_stash_apply(ctx, spec, words, cwd):
    """`git stash apply|pop [-q] [--index] [stash@{N}|N]`: the stash is changes made here.
    Any other commit (`git stash apply FETCH_HEAD`) is applied as if it were one."""
    args = argvmod.parse(words)
    for opt in args.options:
        if opt.name not in ("-q", "--quiet", "--index"):
            return _unsafe(ctx, f"git stash {opt.name}", "unknown option"), [], []
    for ref in args.positionals:
        if not _stash_ref(ref):
            return _unsafe(ctx, f"git stash apply {ref}", "applies a commit that is not one "
                           "of this repository's stashes (stash@{N})"), [], []
    return None, [], []


def git_restore(ctx, spec, words, cwd):
    args = argvmod.parse(words, frozenset(("-s", "--source", "--pathspec-from-file")))
    staged = args.has("-S", "--staged")
    if not staged or args.has("-W", "--worktree") or args.has("--pathspec-from-file"):
        return _unsafe(ctx, "git restore", "restoring the working tree discards uncommitted "
                       "changes (only --staged is auto-allowed)"), [], []
    ok = {"-S", "--staged", "-q", "--quiet", "-s", "--source", "--progress", "--no-progress"}
    for opt in args.options:
        if opt.name not in ok:
            return _unsafe(ctx, f"git restore {opt.name}", "not a read-only form"), [], []
    if args.has("-s", "--source") and any(p.startswith(":") or any(c in p for c in "*?[")
                                          for p in args.positionals):
        # `git restore -S -s <empty tree> -- '*env'` takes a tracked secret out of the index,
        # past the tracked-secret check of git diff/show/log -p
        return _unsafe(ctx, "git restore --source", "a glob or magic pathspec may take any "
                       "file out of the index; name the files"), [], []
    return None, list(args.positionals), []


def git_reset(ctx, spec, words, cwd):
    if "--" in words:
        head, tail = words[:words.index("--")], words[words.index("--") + 1:]
    else:
        head, tail = words, []
    args = argvmod.parse(head)
    for opt in args.options:
        if opt.name not in ("-q", "--quiet"):
            return _unsafe(ctx, f"git reset {opt.name}", "moves the branch or discards "
                           "changes"), [], []
    if args.positionals:
        return _unsafe(ctx, f"git reset {args.positionals[0]}", "may move the branch to "
                       "another commit (only `git reset` and `git reset -- <paths>`, which "
                       "unstage, are auto-allowed)"), [], []
    return None, tail, []


_CONFIG_READ = frozenset(("--get", "--get-all", "--get-regexp", "--list", "-l",
                          "--show-origin", "--show-scope", "--name-only", "--null", "-z",
                          "--global", "--system", "--local", "--worktree", "--includes",
                          "--no-includes", "--type", "--default", "--bool", "--int", "--path"))


_CONFIG_WRITE_SUBCOMMANDS = frozenset(("set", "unset", "rename-section", "remove-section",
                                       "edit"))


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


def git_config(ctx, spec, words, cwd):
    if words and words[0] in ("get", "list"):
        # read-only, but --file/--blob name what is read (an INI-style credentials file)
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
        return None, args.values("--file", "-f", "--blob") + args.attached, []
    if words and words[0] in _CONFIG_WRITE_SUBCOMMANDS:
        # git 2.46+ subcommands; `git config edit` opens .git/config in the editor
        return _unsafe(ctx, f"git config {words[0]}", "changes the configuration"), [], []
    first = _first_operand(words, ("--type", "--default", "--file", "-f", "--blob"))
    if any(w.startswith("-") for w in words[first:]):
        # git config stops at the key: `git config core.fsmonitor CMD -l` sets the key (the
        # -l is a value pattern), it does not list
        return _unsafe(ctx, "git config " + " ".join(words), "an option after the key is "
                       "a value: this sets the key"), [], []
    args = argvmod.parse(words, frozenset(("--type", "--default", "--file", "-f", "--blob")))
    for opt in args.options:
        if opt.name in ("--file", "-f"):
            continue
        if opt.name not in _CONFIG_READ:
            return _unsafe(ctx, f"git config {opt.name}", "changes the configuration"), [], []
    reading = args.has("--get", "--get-all", "--get-regexp", "--list", "-l")
    limit = 2 if reading else 1
    if len(args.positionals) > limit or (not reading and not args.positionals):
        return _unsafe(ctx, "git config " + " ".join(words), "sets a value (git config can "
                       "define aliases and hooks that run commands)"), [], []
    return None, args.values("--file", "-f"), []


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


# --- tracked secrets ---------------------------------------------------------------------

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
                         "--stat-name-width", "--stat-graph-width", "--stat-count"))
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


def _object_id(word) -> bool:
    """A word that may name a blob by its id (`git show 3f2a91`, `3f2a91^{}`,
    `3f2a91^{blob}`, `<tree>:path`): git show prints a blob whatever the diff options say."""
    base = word.split(":", 1)[0].split("^", 1)[0].split("~", 1)[0].split("@", 1)[0]
    if ":" in word:
        return True
    return len(base) >= 4 and all(c in "0123456789abcdefABCDEF" for c in base)


def _plain_revision(word) -> bool:
    """HEAD, @, HEAD~2, HEAD^: a commit, never a blob."""
    return word.startswith(("HEAD", "@")) and set(word) <= set("HEAD") | _PLAIN_REV


def prints_contents(label, mode, words) -> bool:
    """Does this git command print the contents of tracked files?"""
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


def _suspects(paths, policy):
    """The tracked paths that may be secrets, in index order: a basename that matches the
    last component of a secret pattern, or a secret directory among the components. One
    regex per distinct basename and a substring search per secret directory instead of
    the full check per path (an index of 50,000 files: ~20 ms instead of ~110 ms); the
    full check (is_secret) then runs on these only."""
    from gateway.paths import _compile_globs

    lasts = sorted({pat.rsplit("/", 1)[-1] for pat in policy.secret_patterns})
    rx = _compile_globs(lasts) if lasts else None
    by_name = {}
    for p in paths:
        by_name.setdefault(p.rpartition(b"/")[2], []).append(p)
    keep = set()
    if rx is not None:
        for name, group in by_name.items():
            if rx.match(os.fsdecode(name)) is not None:
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


def tracked_secret(ctx, label, mode, words, cwd, rule):
    """Ask (GW503) when the command prints tracked contents and the repository's index holds
    a path the secret rules name; ask too when the index cannot be read (it may)."""
    from gateway.paths import is_secret, real
    from gateway.validator.checks._gitindex import git_dir_of, tracked_paths

    if not prints_contents(label, mode, words):
        return None
    root = ctx.roots.project_real
    git_dir = git_dir_of(real(cwd), "/")  # as git: above the project too (a monorepo)
    if git_dir is None:
        return None  # no repository here: git refuses, or --no-index is walked (phase 5)
    paths = []
    for index_dir in _index_dirs(git_dir):
        found = tracked_paths(index_dir)
        if found is None:
            return ctx.ask("5", "GW503", f"{label} prints tracked files' contents, and the "
                           f"index {index_dir}/index could not be read to rule out a tracked "
                           "secret (split, sparse or unknown format)", rule=rule)
        paths.extend(found)
    work_tree = os.path.dirname(git_dir) if os.path.basename(git_dir) == ".git" else root
    for p in _suspects(paths, ctx.policy):
        rel = os.fsdecode(p)
        secret = is_secret((os.path.join(work_tree, rel),), ctx.policy)
        if secret:
            return ctx.ask("5", "GW503", f"{label} prints tracked files' contents, and the "
                           f"repository tracks {rel!r}, a secret file ({secret}): it could be "
                           f"printed. Read it yourself if you mean to, or stop tracking it "
                           f"(git rm --cached {rel}); if it is not a secret, add it to "
                           "secrets.exceptions in your user rules (docs/rules.md)",
                           rule=f"secrets:{secret}")
    return None
