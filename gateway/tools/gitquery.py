"""Asking git itself: which paths a command would print or change, what objects are, and what
the repository's configuration holds.

The catalogue says which options a git command may have; whether `git show HEAD~3` prints a
secret depends on which files that commit changed, which only the repository knows. Rather than
re-implement revision syntax, pathspec magic and rename detection, the checks run the same
command again with its output replaced by the names it would print (`--name-only -z`), in a
hardened form:

* only for the project's own repository (phase 7C asks before it for a repository found
  inside the project, whose configuration could run programs: `_foreign_repository`);
* `-c core.fsmonitor=false` (the one configuration key that runs a program on reads),
  `diff.external` and the pager off, `GIT_OPTIONAL_LOCKS=0` (no index refresh is written),
  no terminal prompt, repository-selecting environment variables removed;
* never in a partial clone (a missing object would be fetched over the network);
* a timeout (TIMEOUT seconds) and an output cap; any failure is "unknown" (None) and the
  caller asks.

Answers are reused only inside a `session()` (the PreToolUse hook judges a command twice,
exposure then the permission mode, and asks git once), keyed by the query and a stamp of the
repository's state; outside one every judgement asks git afresh (a resident server never
answers from a working tree that has changed since).
"""

import os

#: Seconds one git query may take; beyond it the caller asks (a very long history).
TIMEOUT = 2.0
#: Bytes of output read at most (names of a huge history): beyond it the answer is unknown.
MAX_OUTPUT = 16 << 20
_HARDENING = ("-c", "core.fsmonitor=false", "-c", "diff.external=", "-c", "core.pager=cat",
              "-c", "log.showSignature=false", "-c", "diff.relative=false",
              "-c", "color.ui=false", "-c", "core.quotePath=false")
#: Environment variables that select another repository, index or object store than the one
#: git would find from the working directory (the gateway's own view, _gitindex.git_dir_of).
_REPO_ENV = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
             "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_NAMESPACE",
             "GIT_PREFIX", "GIT_EXTERNAL_DIFF", "GIT_PAGER", "GIT_TRACE", "GIT_TRACE2",
             "GIT_TRACE2_EVENT", "GIT_TRACE2_PERF")
_CACHE = {}
_CACHE_MAX = 128
_SESSIONS = [0]
#: What changes when the repository's state does: index, HEAD and its reflog, refs (a ref
#: update renames a lock file into refs/heads/, which changes the directory), the stash.
_STAMPED = ("index", "HEAD", "logs/HEAD", "packed-refs", "refs/heads", "refs/tags",
            "refs/remotes", "refs/stash", "logs/refs/stash", "FETCH_HEAD", "ORIG_HEAD",
            "MERGE_HEAD", "config")
#: Global options passed on from the judged command: they choose the repository, its work
#: tree and how pathspecs are read, so the query sees what the command sees.
PASSED_GLOBALS = frozenset(("--git-dir", "--work-tree", "--namespace", "--bare",
                            "--literal-pathspecs", "--glob-pathspecs", "--noglob-pathspecs",
                            "--icase-pathspecs", "--no-replace-objects"))
_GLOBAL_VALUES = frozenset(("--git-dir", "--work-tree", "--namespace"))


def passed_globals(global_words) -> list:
    """The judged command's global options that the query must repeat (-C is the cwd)."""
    out = []
    i = 0
    while i < len(global_words):
        w = global_words[i]
        name = w.split("=", 1)[0]
        if name in PASSED_GLOBALS:
            out.append(w)
            if name in _GLOBAL_VALUES and "=" not in w and i + 1 < len(global_words):
                out.append(global_words[i + 1])
                i += 1
        elif w == "-C" or name in _GLOBAL_VALUES:
            i += 1  # -C DIR: the query runs in DIR already
        i += 1
    return out


def _env():
    env = {k: v for k, v in os.environ.items() if k not in _REPO_ENV}
    env.update(GIT_OPTIONAL_LOCKS="0", GIT_TERMINAL_PROMPT="0", GIT_PAGER="cat", PAGER="cat",
               LC_ALL="C", GIT_NO_LAZY_FETCH="1", GIT_ASKPASS="/bin/false",
               SSH_ASKPASS="/bin/false")
    return env


def partial_clone(git_dir) -> bool:
    """A repository with promisor packs fetches missing objects over the network on read."""
    packs = os.path.join(git_dir, "objects", "pack")
    try:
        return any(n.endswith(".promisor") for n in os.listdir(packs))
    except OSError:
        return False


class session:
    """Within it, the same query on an unchanged repository is answered once."""

    def __enter__(self):
        _SESSIONS[0] += 1
        return self

    def __exit__(self, *exc):
        _SESSIONS[0] -= 1
        if _SESSIONS[0] <= 0:
            _SESSIONS[0] = 0
            _CACHE.clear()
        return False


def _stamp(git_dir):
    dirs = [git_dir]
    try:
        with open(os.path.join(git_dir, "commondir"), encoding="utf-8") as fh:
            dirs.append(os.path.normpath(os.path.join(git_dir, fh.read().strip())))
    except OSError:
        pass
    out = []
    for d in dirs:
        for rel in _STAMPED:
            try:
                st = os.stat(os.path.join(d, rel))
                out.append((st.st_mtime_ns, st.st_size, st.st_ino))
            except OSError:
                out.append(None)
    return tuple(out)


_LOCALE = ("LC_ALL", "LC_CTYPE", "LANG", "LANGUAGE")


def run(cwd, git_dir, args, globals_=(), stdin=None, ok=(0,), locale=None):
    """git's standard output (bytes) for `git <globals> <args>` in `cwd`, or None when git
    failed (an exit status not in `ok`: git diff --exit-code and git grep exit 1 for
    "differences" and "no match"), timed out, printed too much, or must not be asked (a
    partial clone). `locale`: an environment whose locale variables git is run with instead
    of LC_ALL=C (what `git grep -i` matches depends on it: searchprobe.py)."""
    import subprocess

    caching = _SESSIONS[0] > 0
    loc = None if locale is None else tuple(locale.get(k) for k in _LOCALE)
    key = (cwd, git_dir, tuple(globals_), tuple(args), stdin, ok, loc)
    stamp = _stamp(git_dir) if caching and git_dir is not None else None
    hit = _CACHE.get(key) if caching else None
    if hit is not None and hit[0] == stamp:
        return hit[1]
    out = None
    if git_dir is not None and not partial_clone(git_dir):
        cmd = ["git", *_HARDENING, *globals_, *args]
        try:
            env = _env()
            if loc is not None:
                for k, v in zip(_LOCALE, loc, strict=True):
                    env.pop(k, None)
                    if v is not None:
                        env[k] = v
            proc = subprocess.run(cmd, cwd=cwd, env=env, input=stdin,
                                  stdin=None if stdin is not None else subprocess.DEVNULL,
                                  capture_output=True, timeout=TIMEOUT, check=False)
            if proc.returncode in ok and len(proc.stdout) <= MAX_OUTPUT:
                out = proc.stdout
        except (OSError, subprocess.SubprocessError, ValueError):
            out = None
    if caching:
        if len(_CACHE) >= _CACHE_MAX:
            _CACHE.clear()
        _CACHE[key] = (stamp, out)
    return out


def names(output) -> set:
    """The paths in NUL-separated `--name-only -z` output (commit separators and headers
    dropped; an odd token only adds a name, it never hides one)."""
    if output is None:
        return None
    out = set()
    for tok in output.split(b"\0"):
        tok = tok.lstrip(b"\n")
        if tok:
            out.add(os.fsdecode(tok))
    return out


def object_types(cwd, git_dir, revs, globals_=(), peel=True):
    """{rev: type after peeling tags ("commit", "tree", "blob", "missing")} or None. Without
    `peel` the names are asked as written (after <rev>:<path> or :/<text> a `^{}` would be
    part of the path or the text)."""
    if not revs:
        return {}
    if any("\n" in r for r in revs):
        return None
    data = "".join(f"{r}^{{}}\n" if peel else f"{r}\n" for r in revs).encode()
    out = run(cwd, git_dir, ["cat-file", "--batch-check=%(objecttype)"], globals_, stdin=data)
    if out is None:
        return None
    lines = out.decode("utf-8", "replace").splitlines()
    if len(lines) != len(revs):
        return None
    types = {}
    for rev, line in zip(revs, lines, strict=True):
        types[rev] = "missing" if line.endswith(" missing") or line.endswith(" ambiguous") \
            else line.strip()
    return types


def config_entries(cwd, git_dir, scope=(), globals_=()):
    """[(key, value)] of `git config --list` with the scope options given (--global, --file
    F, --blob B, --includes...), or None."""
    out = run(cwd, git_dir, ["config", "--list", "-z", *scope], globals_)
    if out is None:
        return None
    entries = []
    for rec in out.split(b"\0"):
        if not rec:
            continue
        key, _, value = rec.partition(b"\n")
        entries.append((key.decode("utf-8", "replace"), value.decode("utf-8", "replace")))
    return entries
