"""What a git read prints: the files whose contents it shows, asked of git (GW503, GW740,
GW744).

`git diff`, `git show`, `git log -p`, `git grep`, `git stash show -p`, `git cat-file` print
the contents of files a secret may be among (a committed .env, a deploy key committed once
and removed since). Which files, git says: the same command with its output replaced by the
names it would print (`--name-only -z`, renames split into a deletion and an addition, no
external diff or text conversion); `git grep` lists every file it searches (its pattern is
replaced by one that matches every line: which files match the real one would tell the agent
whether a secret contains it). A secret among them asks; a secret elsewhere in the repository
(another commit, a path a pathspec leaves out) does not. What git cannot list (submodules'
contents, refs' %(contents)) is judged by the index check: ask when the index (or a
submodule's) tracks a secret.
"""

import os

from gateway.paths import is_secret
from gateway.shell import argv as argvmod
from gateway.tools import gitquery as gq
from gateway.validator.checks.git import _DIFF_NAMES, PHASE, _unknown, stale

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


def _by_path(repo, revs):
    """({revisions that name a blob by path: <rev>:<path>, :<path>}, {those naming a tree:
    word -> its path}), asked of git; (None, None) when git cannot say. A word with a colon
    is not always <rev>:<path>: `:/text` is the newest commit whose message matches,
    `HEAD@{2024-01-01 12:00}` a commit by date."""
    colon = [r for r in revs if ":" in r and not r.startswith("-")]
    if not colon:
        return set(), {}
    types = gq.object_types(repo.cwd, repo.git_dir, colon, repo.globals, peel=False)
    if types is None:
        return None, None
    blobs = {r for r in colon if types.get(r) == "blob"}
    trees = {r: r.split(":", 1)[1] if not r.startswith(":/") else ""
             for r in colon if types.get(r) == "tree"}
    return blobs, trees


def _under(found, trees):
    """Names git printed for a diff of trees are relative to each tree: the tree's own path
    is put before them too (a secret directory, deploy/.ssh, counts by its whole path)."""
    if found is None or not trees:
        return found
    out = set(found)
    for path in trees.values():
        path = path.strip("/")
        if path and path != ".":
            out.update(f"{path}/{n}" for n in found)
    return out


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
        by_path, trees = _by_path(repo, revs)
        if by_path is None:
            return None, None
        if revs and all(r in by_path for r in revs):
            return set(), None  # blobs named by path (checked)
        found = repo.names(["diff", *_with(words, _DIFF_NAMES)], ok=(0, 1))
        return _under(found, trees), None
    if sub in ("diff-tree", "diff-index", "diff-files"):
        extra = _DIFF_NAMES + (("--no-commit-id", "-r") if sub == "diff-tree" else ())
        return repo.names([sub, *_with(words, extra)], ok=(0, 1)), None
    if sub == "show":
        verdict = _blob_by_id(ctx, label, repo, revs)
        if verdict is not None:
            return None, verdict
        # blobs named by path are printed as they are (their path was checked), trees as a
        # list of names; anything else with a colon (`:/text`, a commit found by its message;
        # `HEAD@{12:00}`) is a commit whose diff is printed
        by_path, trees = _by_path(repo, revs)
        if by_path is None:
            return None, None
        by_path = by_path | set(trees)
        keep = [w for w in words if w not in by_path]
        if revs and all(r in by_path for r in revs):
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
    from gateway.validator.checks.gitcontent import Recording, content_secret, grep_content

    repo = Recording(ctx, cwd)
    if repo.git_dir is None:
        return None  # no repository here: git refuses, or --no-index is walked (phase 5)
    verdict = stale(ctx, label)
    if verdict:
        return verdict
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
    if label == "git grep":
        return (_grep_secrets(ctx, label, words, cwd, repo, found)
                or grep_content(ctx, label, words, cwd, repo, found))
    for name in sorted(found, key=lambda n: (len(n), n)):
        secret = is_secret(("/" + name.lstrip("/"),), ctx.policy)
        if secret:
            return ctx.ask("5", "GW503", f"{label} prints the contents of {name!r}, a secret "
                           f"file ({secret}). Read it yourself if you mean to; leave it out "
                           f"with a pathspec (-- . ':!{name}'), or stop tracking it (git rm "
                           "--cached); if it is not a secret, add it to secrets.exceptions in "
                           "your user rules (docs/rules.md)", rule=f"secrets:{secret}")
    # names decide nothing more: the versions printed, by content (issue 24: git's objects
    # are containers)
    return content_secret(ctx, label, words, repo, found)


def _grep_secrets(ctx, label, words, cwd, repo, found):
    """git grep prints only the lines that match: the secrets among the files it searches
    are searched by git itself with the same pattern and options (searchprobe.py); ask only
    when it lists one of them (GW503), or cannot say (GW509)."""
    secrets = {}
    for name in sorted(found, key=lambda n: (len(n), n)):
        secret = is_secret(("/" + name.lstrip("/"),), ctx.policy)
        if secret:
            secrets[name] = secret
    if not secrets:
        return None
    top = repo.toplevel()
    if top is None:
        return _unknown(ctx, label, "git could not say where its work tree is")
    files = {os.path.join(top, n.lstrip("/")): n for n in secrets}
    from gateway.validator import searchprobe

    try:
        hit = searchprobe.git_grep(ctx, words, list(files), cwd, repo)
    except searchprobe.Unknown as exc:
        name = next(iter(secrets))
        return ctx.ask("5", "GW509", f"{label} searches {name!r}, a secret file "
                       f"({secrets[name]}), and whether lines of it match the pattern could "
                       f"not be checked: {exc}. Leave it out with a pathspec (-- . "
                       f"':!{name}')", rule=f"secrets:{secrets[name]}")
    if not hit:
        ctx.step("5", "pass", "", f"{label} searches the secret(s) "
                 f"{', '.join(repr(n) for n in list(secrets)[:4])}; git, asked with the same "
                 "pattern, lists none: no line of theirs is printed")
        return None
    name = files[hit]
    return ctx.ask("5", "GW503", f"{label}: lines of {name!r}, a secret file "
                   f"({secrets[name]}), match the pattern and would be printed. Read it "
                   f"yourself if you mean to; leave it out with a pathspec (-- . "
                   f"':!{name}'), or stop tracking it (git rm --cached); if it is not a "
                   "secret, add it to secrets.exceptions in your user rules (docs/rules.md)",
                   rule=f"secrets:{secrets[name]}")


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
    from gateway.secrets.names import env_grammar

    grammar = env_grammar(policy)
    if grammar is not None:
        # the env-file grammar (gateway.secrets.names) applies to every component
        keep.update(p for p in paths if b"env" in p.lower() and any(
            grammar.form(c) for c in os.fsdecode(p).split("/")))
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
    from gateway.tools.gitindex import tracked_paths

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
