"""What a git read prints, judged by content: the versions of files (blobs) and working-tree
files whose contents a git command shows, scanned for credentials (GW510, GW511).

gitprint asks git which files a command prints (`--name-only`) and judges them by name. A
file whose name decides nothing may hold a credential in one of its versions: committed once
and scrubbed since (`git show HEAD~1:deploy/settings.ini`, `git log -p`), or changed in the
working tree (`git diff`). Here the same name queries are asked again with the blob ids
instead of the names (`--raw --no-abbrev`, the options that print patches taken out: they
would print the contents to us too), `<rev>:<path>` words and object ids are resolved to
their blobs, and each blob is judged by gateway.secrets.blobs (cached by id: a blob never
changes); a working-tree side is judged as the file it is (gateway.secrets.content).
"""

import os

from gateway.validator.checks.git import _Repo

#: Options that print patches (their own output would be the contents): left out of the blob
#: query; combined diffs (`--cc`, `-c`) become a diff against each parent (every blob of the
#: combined diff is among them).
_PATCH_DROP = ("--patch", "--unified", "--word-diff", "--color-words", "--patch-with-stat",
               "--patch-with-raw", "--function-context", "--binary", "--check", "--stat",
               "--numstat", "--shortstat", "--dirstat", "--summary", "--compact-summary",
               "--name-status", "--no-patch", "--quiet", "--exit-code")
_COMBINED = ("--cc", "--dd", "--remerge-diff", "--combined-all-paths")
_DROP_LETTERS = frozenset("puWs")


def _long(word, options) -> bool:
    name = word.split("=", 1)[0]
    return any(o.startswith(name) and len(name) > 3 or o == name for o in options)


def _blob_query(args):
    """The raw form of a recorded `--name-only` query: ids instead of names, no patch."""
    out = []
    end = False
    for w in args:
        if end:
            out.append(w)
            continue
        if w == "--":
            end = True
            out.append(w)
        elif w == "--name-only":
            out += ["--raw", "--no-abbrev"]
        elif w.startswith("--"):
            if _long(w, _COMBINED):
                out.append("--diff-merges=separate")
            elif not _long(w, _PATCH_DROP):
                out.append(w)
        elif w.startswith("-U"):
            continue
        elif w.startswith("-") and len(w) > 1:
            letters = w[1:]
            if "c" in letters:
                out.append("--diff-merges=separate")
            rest = "".join(c for c in letters if c not in _DROP_LETTERS and c != "c")
            if rest:
                out.append("-" + rest)
        else:
            out.append(w)
    return out


class Recording(_Repo):
    """A _Repo that remembers the name queries gitprint asked (to ask them again for ids)."""

    __slots__ = ("queries",)

    def __init__(self, ctx, cwd):
        super().__init__(ctx, cwd)
        self.queries = []

    def names(self, args, ok=(0,)):
        self.queries.append((list(args), ok))
        return super().names(args, ok=ok)


def _by_path_words(label, words):
    """`<rev>:<path>` and `:<path>` words (not `:/text`) a show/cat-file/diff/grep names."""
    out = []
    for w in words:
        if w.startswith("-") or ":" not in w or w.startswith(":/"):
            continue
        out.append(w)
    return out


def content_secret(ctx, label, words, repo, found):
    """An ask (GW510/GW511) when a version of a file the command prints holds a credential or
    could not be scanned; None otherwise."""
    from gateway.secrets import blobs, content

    if content.settings(ctx.policy) is None:
        return None
    ids = set()
    worktree = set()
    where = {}  # blob key -> the path it is a version of
    sub = label.split(" ", 1)[1] if " " in label else label
    for args, ok in getattr(repo, "queries", ()):
        if "--name-only" not in args:
            continue
        res = blobs.raw_ids(repo.run(_blob_query(args), ok=ok), where)
        if res is None:
            return _ask_unscanned(ctx, label, "git could not list the versions it prints")
        ids |= res[0]
        worktree |= res[1]
    # blobs named by path or by id (show, cat-file, diff of two blobs, grep in revisions)
    named = _by_path_words(label, words)
    if sub == "grep":
        named += _grep_named(words, found)
        if {"--cached", "--index"} & set(words):
            named += [":" + n for n in (found or ())]
    if sub in ("show", "cat-file", "diff") or sub == "grep":
        named += [w for w in words if blobs.is_id(w) or (len(w) >= 4 and not w.startswith("-")
                                                          and _hexish(w))]
    if named:
        resolved = _resolve(repo, named, where)
        if resolved is None:
            return _ask_unscanned(ctx, label, "git could not say which versions it prints")
        ids |= resolved
    # the working tree's side of a diff, and git grep in the working tree: the files
    if sub == "grep" and not {"--cached", "--index"} & set(words):
        worktree |= set(found or ())  # also when it searches revisions only: rather ask
    top = repo.toplevel() if worktree else None
    if worktree and top is None:
        return _ask_unscanned(ctx, label, "git could not say where its work tree is")
    if worktree:
        found_file = content.check([os.path.join(top, n) for n in sorted(worktree)],
                                   ctx.policy, getattr(ctx, "env", None))
        if found_file is not None:
            return _ask(ctx, label, found_file, os.path.relpath(found_file.path, top))
    if not ids:
        return None

    def git(args, stdin):
        return repo.run(args, stdin=stdin)

    v = blobs.verdict(ids, git, ctx.policy, getattr(ctx, "env", None))
    if v is None:
        return None
    path = where.get(v.path)
    return _ask(ctx, label, v, (f"a version of {path!r} in git's history" if path else
                                "a version of a file in git's objects")
                + f" (blob {v.path[:12]})")


def _hexish(w) -> bool:
    return all(c in "0123456789abcdef" for c in w.lower())


def _grep_named(words, found):
    """git grep in revisions prints <rev>:<path> for every file: the revisions it searches
    (its non-option words that git resolves to a commit or tree) with each file found."""
    end = words.index("--") if "--" in words else len(words)
    revs = [w for w in words[:end] if not w.startswith("-")]
    return [f"{r}:{n}" for r in revs for n in (found or ()) if ":" not in r][:20000]


def _resolve(repo, words, where=None):
    """The blob ids `words` name (others - commits, trees, nothing - are left out), or
    None when git could not say."""
    if any("\n" in w for w in words):
        return None
    out = repo.run(["cat-file", "--batch-check=%(objectname) %(objecttype)"],
                   stdin=("\n".join(words) + "\n").encode())
    if out is None:
        return None
    from gateway.secrets.blobs import key

    ids = set()
    lines = out.decode("ascii", "replace").splitlines()
    for w, line in zip(words, lines, strict=False):
        parts = line.split()
        if len(parts) == 2 and parts[1] == "blob":
            path = w.split(":", 1)[1] if ":" in w else ""
            ids.add(key(parts[0], path))
            if where is not None and path:
                where.setdefault(key(parts[0], path), path)
    return ids


def _ask(ctx, label, verdict, where):
    from gateway.secrets import content

    if verdict.kind == content.SECRET:
        return ctx.ask("5", "GW510", f"{label} prints {where}, which holds a credential: "
                       f"{verdict.detail}. Read it yourself if you mean to (or say yes to let "
                       "the agent see it); leave the file out with a pathspec, or name a "
                       "revision that does not hold it",
                       rule="secrets:content")
    return _ask_unscanned(ctx, label, f"{where}: {verdict.detail}")


def _ask_unscanned(ctx, label, why):
    return ctx.ask("5", "GW511", f"{label} prints file contents that could not be checked "
                   f"for credentials: {why}", rule="secrets:content")


# --- git grep: a search prints only the lines that match -----------------------------------

#: Blobs judged one by one to tell which of the files git grep searches hold a credential.
_MAX_HOLDERS = 256


def grep_content(ctx, label, words, cwd, repo, found):
    """git grep prints the lines that match, not whole files: the files it searches whose
    content (a working-tree file, or a version in a revision or the index) holds a credential
    are searched again by git with the command's own pattern and options (searchprobe.py,
    as grep -r and rg are). Ask (GW510) only when git lists one of them, GW509 when it cannot
    say, GW511 when a file could not be scanned; None when no line of such a file matches."""
    from gateway.secrets import content

    if content.settings(ctx.policy) is None:
        return None
    top = repo.toplevel() if found else None
    if found and top is None:
        return _ask_unscanned(ctx, label, "git could not say where its work tree is")
    holders = {}  # path (relative to the top) -> what the scanner found
    cached = bool({"--cached", "--index"} & set(words))
    env = getattr(ctx, "env", None)
    if found and not cached:
        # the working tree's files (also when it searches revisions only: rather ask)
        paths = {os.path.join(top, n.lstrip("/")): n for n in sorted(found)}
        for v in content.verdicts(list(paths), ctx.policy, env):
            if v.kind != content.SECRET:
                return _ask(ctx, label, v, paths.get(v.path, v.path))
            holders.setdefault(paths.get(v.path, v.path), v.detail)
    # versions in revisions (`git grep TODO HEAD~3`) and in the index (--cached)
    named = {w: w.split(":", 1)[1] for w in _grep_named(words, found)}
    if cached:
        named.update({":" + n: n for n in (found or ())})
    if named:
        keys = _resolve_each(repo, list(named))
        if keys is None:
            return _ask_unscanned(ctx, label, "git could not say which versions it prints")
        by_key = {}
        for w, k in keys.items():
            by_key.setdefault(k, set()).add(named[w])
        verdict = _blob_holders(ctx, repo, by_key, holders)
        if verdict is not None:
            return verdict
    if not holders:
        return None
    from gateway.validator import searchprobe

    files = {os.path.join(top, n.lstrip("/")): n for n in sorted(holders)}
    first = next(iter(files.values()))
    if len(files) > searchprobe.MAX_FILES:
        return ctx.ask("5", "GW509", f"{label} searches {len(files)} files that hold a "
                       f"credential ({first!r}: {holders[first]}), more than the "
                       f"{searchprobe.MAX_FILES} whose lines can be checked",
                       rule="secrets:content")
    try:
        hit = searchprobe.git_grep(ctx, words, list(files), cwd, repo)
    except searchprobe.Unknown as exc:
        return ctx.ask("5", "GW509", f"{label} searches {first!r}, which holds a credential "
                       f"({holders[first]}), and whether lines of it match the pattern could "
                       f"not be checked: {exc}. Leave it out with a pathspec (-- . "
                       f"':!{first}')", rule="secrets:content")
    if not hit:
        ctx.step("5", "pass", "", f"{label} searches file(s) that hold a credential "
                 f"({', '.join(repr(n) for n in list(files.values())[:4])}); git, asked with "
                 "the same pattern, lists none: no line of theirs is printed")
        return None
    name = files.get(hit, first)
    return ctx.ask("5", "GW510", f"{label}: lines of {name!r}, which holds a credential "
                   f"({holders.get(name, holders[first])}), match the pattern and would be "
                   f"printed. Read it yourself if you mean to; leave it out with a pathspec "
                   f"(-- . ':!{name}')", rule="secrets:content")


def _resolve_each(repo, words):
    """{word: blob key} for the `words` (<rev>:<path>) that name blobs; None when git could
    not say."""
    if any("\n" in w for w in words):
        return None
    out = repo.run(["cat-file", "--batch-check=%(objectname) %(objecttype)"],
                   stdin=("\n".join(words) + "\n").encode())
    if out is None:
        return None
    from gateway.secrets.blobs import key

    got = {}
    lines = out.decode("ascii", "replace").splitlines()
    if len(lines) != len(words):
        return None
    for w, line in zip(words, lines, strict=True):
        parts = line.split()
        if len(parts) == 2 and parts[1] == "blob":
            got[w] = key(parts[0], w.split(":", 1)[1])
    return got


def _blob_holders(ctx, repo, by_key, holders):
    """Add to `holders` the paths whose blobs (by_key: blob key -> paths) hold a credential;
    an ask when one could not be scanned or too many do, else None."""
    from gateway.secrets import blobs, content

    def git(args, stdin):
        return repo.run(args, stdin=stdin)

    left = set(by_key)
    for _ in range(_MAX_HOLDERS + 1):
        v = blobs.verdict(left, git, ctx.policy, getattr(ctx, "env", None))
        if v is None:
            return None
        if v.kind != content.SECRET or v.path not in left:
            return _ask(ctx, "git grep", v, f"a version in git's objects (blob {v.path[:12]})")
        left.discard(v.path)
        for n in sorted(by_key[v.path]):
            holders.setdefault(n, v.detail)
    return ctx.ask("5", "GW509", f"git grep searches more than {_MAX_HOLDERS} versions of "
                   "files that hold a credential, too many to check line by line",
                   rule="secrets:content")
