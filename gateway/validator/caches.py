"""Dependency caches outside the project: places whose files may be read (issue 25).

`ls ~/.cargo/registry/src/`, `sed -n 1,80p $(go env GOMODCACHE)/github.com/x/y@v1/mux.go`,
`du -sh ~/.m2/repository`: the downloaded, checksum-verified package sources a toolchain
keeps, which agents read to learn an API. The places come from the rules
(`dependency_caches`, built-in and user layers only) and from the toolchains' own
configuration as the hook sees it: CARGO_HOME, GRADLE_USER_HOME, Go's GOMODCACHE/GOCACHE
(gateway.tools.goenv), else the defaults under $HOME.

A path counts as in a cache only when both its lexical form and its real form (every symlink
resolved) are below the same cache place: a link inside the cache to ~/.ssh does not. It is
a read, never a write (phase 5 passes only the candidates it reads); `reads: names` places
(Go's build cache) let only metadata through. A place that would take in the home directory
itself or a directory above it, or that is itself a secret, is no place at all.
The secret rules still apply to every file below a cache: a name the rules call a secret
asks (GW503), and a file read is scanned for credentials like any other (GW510).
"""

import posixpath

from gateway.paths import is_secret, is_within, real


def places(ctx):
    """[(name, lexical root, real root, reads)] for this request, computed once."""
    got = ctx.__dict__.get("_dependency_caches")
    if got is None:
        got = ctx.__dict__["_dependency_caches"] = _places(ctx)
    return got


def _places(ctx):
    env = ctx.env
    home = env.get("HOME") or ""
    if not home.startswith("/"):
        return []
    home = posixpath.normpath(home)
    out = []
    for entry in getattr(ctx.policy, "dependency_caches", ()):
        roots = []
        if entry.get("go_env"):
            from gateway.tools import goenv

            got = goenv.value(entry["go_env"], env)
            if got:
                roots.append(got)
        else:
            base = None
            var = entry.get("env")
            if var and env.get(var):
                base = env[var] if env[var].startswith("/") else None
                if base is None:
                    continue  # a relative value: the tool's own idea of it is not ours
            elif entry.get("dir"):
                base = home + entry["dir"][1:]
            if base is None:
                continue
            for below in entry.get("below") or [""]:
                roots.append(posixpath.join(base, below) if below else base)
        for root in roots:
            lex = "/" + posixpath.normpath(root).lstrip("/")
            rp = real(lex)
            if not _usable(ctx, lex, rp, home):
                continue
            out.append((entry.get("name", "?"), lex, rp, entry.get("reads") or "contents"))
    return out


def _usable(ctx, lex, rp, home) -> bool:
    """A cache place may not take in the home directory (or a directory above it), the
    project, or be a secret itself (GOMODCACHE=~/.ssh)."""
    for p in (lex, rp):
        if p == "/" or is_within(home, p) or is_within(real(home), p):
            return False
        if is_within(ctx.roots.project, p) or is_within(ctx.roots.project_real, p):
            return False
    return not is_secret((lex, rp), ctx.policy)


def place(ctx, lex, rp, names_only=False):
    """The name of the cache the path (lexical `lex`, real `rp`) is read from, or None."""
    for name, root_lex, root_real, reads in places(ctx):
        if reads == "names" and not names_only:
            continue
        if (is_within(lex, root_lex) or is_within(lex, root_real)) and is_within(rp, root_real):
            return name
    return None


def home_word(ctx, word):
    """The value of an argument word starting with `~/` (bash's tilde expansion: the word's
    only expansion is that leading `~`, or globs after it) when it names a path below a
    dependency cache; else None."""
    home = ctx.home
    if not home or not home.startswith("/"):
        return None
    from gateway.shell import words as w

    tildes = [d for k, d in word.issues if k == w.TILDE]
    if len(tildes) != 1 or not word.raw.startswith("~/"):
        return None
    if any(k not in (w.TILDE, w.GLOB) for k, _ in word.issues):
        return None
    value = home.rstrip("/") + word.value[1:] if word.value.startswith("~/") else None
    if value is None:
        return None
    # the directory part before any glob character: what bash's expansion stays below
    fixed = value
    for i, c in enumerate(value):
        if c in "*?[":
            fixed = value[:i].rsplit("/", 1)[0] or "/"
            break
    lex = "/" + posixpath.normpath(fixed).lstrip("/")
    for _name, root_lex, root_real, _reads in places(ctx):
        if is_within(lex, root_lex) or is_within(lex, root_real):
            return value
    return None
