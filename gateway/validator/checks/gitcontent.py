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
