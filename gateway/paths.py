"""Canonical paths and containment: lexical normalisation plus symlink resolution.

A path is inside the project only when both its lexical form (against the real working
directory) and its real form (every symlink resolved) are inside: a link that points out is
caught, and so is text like `/proj_evil` that merely starts with the project's name.
"""

import os
import posixpath

SPECIAL_OK = frozenset(("/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/zero",
                        "/dev/random", "/dev/urandom", "/dev/tty"))


def project_dir(payload_cwd, env=None) -> str:
    """CLAUDE_PROJECT_DIR, else the payload's cwd walked up to the nearest .claude/, else cwd.
    The home directory and / are never found by the walk: ~/.claude is Claude Code's user
    configuration, and taking home (or /) for the project would put every file in it
    "inside"."""
    env = os.environ if env is None else env
    explicit = env.get("CLAUDE_PROJECT_DIR")
    if explicit and os.path.isabs(explicit):
        return posixpath.normpath(explicit)
    cwd = payload_cwd if payload_cwd and os.path.isabs(payload_cwd) else os.getcwd()
    cwd = posixpath.normpath(cwd)
    home = env.get("HOME") or os.path.expanduser("~")
    skip = {"/", posixpath.normpath(home)} if os.path.isabs(home) else {"/"}
    probe = cwd
    while True:
        if probe not in skip and os.path.isdir(os.path.join(probe, ".claude")):
            return probe
        parent = posixpath.dirname(probe)
        if parent == probe:
            return cwd
        probe = parent


def usable(path) -> bool:
    """Can `path` name a file at all? A string without NUL that the OS can encode (a JSON
    "\\ud800" escape gives a lone surrogate, which it cannot)."""
    if not isinstance(path, str) or "\x00" in path:
        return False
    try:
        os.fsencode(path)
    except UnicodeError:
        return False
    return True


def is_within(path: str, root: str) -> bool:
    """path == root or path is below root (component-wise, not a string prefix)."""
    if root == "/":
        return path.startswith("/")
    return path == root or path.startswith(root + "/")


def joined(path: str, cwd: str) -> str:
    """`path` made absolute against `cwd`, with nothing normalised: what the kernel walks."""
    if path.startswith("/"):
        return path
    return (cwd.rstrip("/") or "") + "/" + path


def lexical(path: str, cwd: str) -> str:
    """The absolute path with `.` and `..` removed textually (as bash's logical `cd` does)."""
    norm = posixpath.normpath(joined(path, cwd))
    if norm.startswith("//"):
        norm = "/" + norm.lstrip("/")
    return norm


def physical(path: str, cwd: str) -> str:
    """Where the kernel lands for `path` opened from `cwd`: each symlink is resolved *before*
    the `..` that follows it (`lnk/..` with lnk -> /etc is `/`, not the directory holding
    lnk), so this is `real()` of the un-normalised path, never of the lexical one."""
    return real(joined(path, cwd))


_O_PATH = getattr(os, "O_PATH", None)
_PROC_FD = "/proc/self/fd/"
_kernel_realpath = _O_PATH is not None and os.path.isdir(_PROC_FD)


def real(path: str) -> str:
    """Every symlink resolved (os.path.realpath, non-strict).

    Fast path on Linux: open the path with O_PATH (no read, no side effect) and ask the kernel
    for the fd's path: the kernel resolves the whole path at once, with the same result as
    realpath's walk, several times faster. Anything unusual (the path does not exist, a
    loop, no permission, a result that is not an absolute path) takes realpath's own walk.
    """
    if _kernel_realpath and path.startswith("/"):
        try:
            fd = os.open(path, _O_PATH | os.O_CLOEXEC)
        except (OSError, ValueError):
            pass
        else:
            try:
                resolved = os.readlink(_PROC_FD + str(fd))
            except OSError:
                resolved = ""
            finally:
                os.close(fd)
            if resolved.startswith("/") and not resolved.endswith(" (deleted)"):
                return resolved
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return path


class Roots:
    """The directories that count as inside: the project and any allowed extra directories,
    each in lexical and real form."""

    __slots__ = ("project", "project_real", "extra", "env", "own_paths", "_own")

    def __init__(self, project: str, allowed_dirs=()):
        self.project = posixpath.normpath(project)
        self.project_real = real(self.project)
        extra = []
        for d in allowed_dirs:
            d = os.path.expanduser(d) if d.startswith("~") else d
            d = posixpath.normpath(d)
            extra.append((d, real(d)))
        self.extra = tuple(extra)
        # the request's environment and gateway.ownpaths.own_paths, set by the validator
        # (gateway.validator.context: this module sits below ownpaths and does not import
        # it): is_protected then counts the gateway's own files, computed once when first
        # needed
        self.env = None
        self.own_paths = None
        self._own = None

    def own(self) -> list:
        """The gateway's own files (gateway.ownpaths) for this request; [] without env."""
        if self.env is None or self.own_paths is None:
            return []
        if self._own is None:
            self._own = self.own_paths(self, self.env)
        return self._own

    def lexically_inside(self, lex: str) -> bool:
        if is_within(lex, self.project) or is_within(lex, self.project_real):
            return True
        return any(is_within(lex, d) or is_within(lex, r) for d, r in self.extra)

    def really_inside(self, rp: str) -> bool:
        if is_within(rp, self.project_real):
            return True
        return any(is_within(rp, r) for _, r in self.extra)


class Resolved:
    __slots__ = ("arg", "lex", "real", "status")

    def __init__(self, arg, lex, rp, status):
        self.arg = arg  # as given
        self.lex = lex  # lexical absolute form
        self.real = rp  # every symlink resolved
        self.status = status  # "inside", "outside", "symlink_out", "special"

    def __repr__(self) -> str:
        return f"Resolved({self.arg!r}, {self.status}, real={self.real!r})"


def _path_max() -> int:
    try:
        return min(4096, os.pathconf("/", "PC_PATH_MAX"))
    except (OSError, ValueError, AttributeError):
        return 1024


_PATH_MAX = _path_max()


def resolve(arg: str, cwd: str, roots: Roots) -> Resolved:
    lex = lexical(arg, cwd)
    if lex in SPECIAL_OK:
        return Resolved(arg, lex, lex, "special")
    try:
        size = len(os.fsencode(joined(arg, cwd)))
    except UnicodeError:  # a lone surrogate names no file the kernel could open
        size = _PATH_MAX
    if size >= _PATH_MAX:
        # too long for the kernel to resolve from / (ENAMETOOLONG), so symlinks along it
        # cannot be resolved here; the command, relative to its working directory, can
        # still follow them: not proven inside
        return Resolved(arg, lex, lex, "outside")
    rp = physical(arg, cwd)
    if not roots.lexically_inside(lex):
        return Resolved(arg, lex, rp, "outside")
    if not roots.really_inside(rp):
        return Resolved(arg, lex, rp, "symlink_out")
    return Resolved(arg, lex, rp, "inside")


# --- pattern matching for secrets and protected paths ------------------------------------

def fnmatchcase(name: str, pattern: str) -> bool:
    """fnmatch.fnmatchcase, importing fnmatch (and `re`) only when a glob is matched: most
    hook calls match none, and that import was a tenth of their CPU. A pattern whose only
    wildcard is `*` (no `?`, no `[`) is answered without it, as fnmatch reads it (its `*`
    matches any text, `/` and newlines included): the text before the first `*` starts the
    name, the text after the last ends it, and the pieces between are found in order, each
    as early as it can be (`*.py`, `.env*`, `*secret*`)."""
    if "?" not in pattern and "[" not in pattern:
        pieces = pattern.split("*")
        if len(pieces) == 1:
            return name == pattern
        first, last = pieces[0], pieces[-1]
        end = len(name) - len(last)
        if end < len(first) or not name.startswith(first) or not name.endswith(last):
            return False
        pos = len(first)
        for piece in pieces[1:-1]:
            if piece:
                pos = name.find(piece, pos, end)
                if pos < 0:
                    return False
                pos += len(piece)
        return True
    from fnmatch import fnmatchcase as match

    return match(name, pattern)


_regex_cache = {}


def _glob_body(pattern: str) -> str:
    """The regular expression (unanchored) for a glob; see glob_match."""
    import re
    out = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "*":
            if pattern.startswith("**", i):
                out.append(".*")
                i += 2
                if i < len(pattern) and pattern[i] == "/":
                    out[-1] = "(?:.*/)?"
                    i += 1
                continue
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def _compile_globs(patterns):
    """One regex that matches (whole string) exactly when any of `patterns` does."""
    import re
    body = "|".join("(?:" + _glob_body(p) + ")" for p in patterns)
    return re.compile("(?:" + body + r")\Z", re.IGNORECASE | re.DOTALL)


_LIT, _ONE, _STAR, _DSTAR, _DSLASH = range(5)


class _Globs:
    """match(text) exactly like `_compile_globs(patterns).match(text)`, without `re`.

    For ASCII text against ASCII patterns (IGNORECASE is then lower-casing) the globs run as
    one small automaton: a state is (pattern, position), `*` stays on [^/], `**` on
    anything, `**/` is an optional `.*/` (it keeps an inner state until a `/`), `?` takes a
    non-`/`. Any other text goes to the compiled regex. Importing `re` (and with it
    `enum`, `functools`, `collections`) was a sixth of a hook call's CPU on a plain command,
    for the one or two such patterns a call meets (tests/property/test_secret_matcher.py
    compares both)."""

    __slots__ = ("patterns", "programs", "start", "_rx")

    def __init__(self, patterns):
        self.patterns = tuple(patterns)
        self._rx = None
        self.programs = None
        if all(p.isascii() for p in self.patterns):
            self.programs = tuple(_glob_program(p.lower()) for p in self.patterns)
            self.start = self._closure([(k, 0) for k in range(len(self.programs))])

    def _closure(self, states):
        out = set(states)
        stack = list(states)
        while stack:
            k, i = stack.pop()
            prog = self.programs[k]
            if i >= 0 and i < len(prog) and prog[i][0] != _LIT and prog[i][0] != _ONE:
                nxt = (k, i + 1)  # * ** **/ may match nothing
                if nxt not in out:
                    out.add(nxt)
                    stack.append(nxt)
        return out

    def match(self, text):
        if self.programs is None or not text.isascii():
            if self._rx is None:
                self._rx = _compile_globs(self.patterns)
            return self._rx.match(text)
        states = self.start
        for c in text.lower():
            new = []
            for k, i in states:
                prog = self.programs[k]
                if i < 0:  # inside `**/`: anything, and a `/` may end it
                    new.append((k, i))
                    if c == "/":
                        new.append((k, -i))
                    continue
                if i == len(prog):
                    continue
                kind, lit = prog[i]
                if kind == _LIT:
                    if c == lit:
                        new.append((k, i + 1))
                elif kind == _ONE:
                    if c != "/":
                        new.append((k, i + 1))
                elif kind == _STAR:
                    if c != "/":
                        new.append((k, i))
                elif kind == _DSTAR:
                    new.append((k, i))
                else:  # _DSLASH: `.*/` begins (or is just this `/`)
                    new.append((k, -(i + 1)))
                    if c == "/":
                        new.append((k, i + 1))
            if not new:
                return None
            states = self._closure(new)
        return True if any(i == len(self.programs[k]) for k, i in states) else None


def _glob_program(pattern: str):
    """The steps of one glob (see _glob_body): (kind, character)."""
    out = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "*" and pattern.startswith("**", i):
            i += 2
            if i < len(pattern) and pattern[i] == "/":
                out.append((_DSLASH, ""))
                i += 1
            else:
                out.append((_DSTAR, ""))
            continue
        out.append((_STAR, "") if c == "*" else (_ONE, "") if c == "?" else (_LIT, c))
        i += 1
    return tuple(out)


def _glob_regex(pattern: str):
    rx = _regex_cache.get(pattern)
    if rx is None:
        rx = _regex_cache[pattern] = _Globs((pattern,))
    return rx


def glob_match(pattern: str, path: str) -> bool:
    """Case-insensitive glob where * stays within a component and ** spans components."""
    return _glob_regex(pattern).match(path) is not None


class _GroupMatcher:
    """match(text) like one compiled regex of `patterns` (case-insensitive, whole string),
    with the patterns that hold no wildcard looked up in a set: most secret names are
    literal, and compiling them into the regex cost several ms of every hook call."""

    __slots__ = ("literal", "split", "rx")

    def __init__(self, patterns):
        self.literal = frozenset(p.lower() for p in patterns if "*" not in p and "?" not in p)
        # one `*` (not `**`), no `?`: a prefix and a suffix around a part without "/"
        self.split = tuple(tuple(p.lower().split("*")) for p in patterns
                           if p.count("*") == 1 and "?" not in p)
        globs = [p for p in patterns if ("*" in p or "?" in p)
                 and not (p.count("*") == 1 and "?" not in p)]
        self.rx = _Globs(globs) if globs else None

    def match(self, text):
        low = text.lower()
        if low in self.literal:
            return True
        n = len(low)
        for pre, suf in self.split:
            if (n >= len(pre) + len(suf) and low.startswith(pre) and low.endswith(suf)
                    and "/" not in low[len(pre):n - len(suf)]):
                return True
        return None if self.rx is None else self.rx.match(text)


def _secret_prefilter(policy):
    """((n, regex) per number of trailing components, lower-cased secret dirs), built once per
    policy object: one regex match per path instead of one per pattern. It only answers
    "might this path be a secret?"; a yes runs the exact per-pattern loop, so the result
    (and the pattern reported) is the same as without it."""
    patterns, dirs = policy.secret_patterns, policy.secret_dirs
    cached = getattr(policy, "_gw_secret_prefilter", None)
    # keyed by the very objects it was built from: a policy whose lists were replaced
    # gets a new prefilter, never a stale one
    if cached is not None and cached[0] is patterns and cached[1] is dirs:
        return cached[2]
    groups = {}
    for pat in patterns:
        # 0: a pattern with ** matches any trailing part of the path (.git/**/config)
        groups.setdefault(0 if "**" in pat else pat.count("/") + 1, []).append(pat)
    fast = (tuple((n, _GroupMatcher(pats)) for n, pats in sorted(groups.items())),
            frozenset(d.lower() for d in dirs))
    try:
        policy._gw_secret_prefilter = (patterns, dirs, fast)
    except AttributeError:  # a policy object that takes no attributes: no prefilter
        return None
    return fast


def secret_names(base: str, policy) -> list:
    """`base` and its names without the rules' backup suffixes (gateway.secrets.names)."""
    from gateway.secrets.names import backup_names

    return backup_names(base, policy)


def is_secret(paths, policy) -> str:
    """The rule one of `paths` (absolute) is a secret by its name, or "" (the name grammar
    of gateway.secrets.names: secret directories, env files in every spelling, the rules'
    patterns, backup copies)."""
    from gateway.secrets.names import classify

    fast = _secret_prefilter(policy)
    return classify(paths, policy, prefilter=None if fast is None else fast[0],
                    glob_match=glob_match)


def is_autorun(paths, policy, home) -> str:
    """The `autorun` pattern one of `paths` (absolute) matches, or "": a file whose content
    runs later without review (rules/default.yaml, autorun)."""
    home = home.rstrip("/") if home and home.startswith("/") else None
    for p in paths:
        parts = [c for c in p.split("/") if c]
        if not parts:
            continue
        for pat in policy.autorun:
            if pat.startswith("~/"):
                if home and is_within(p, home) and p != home \
                        and glob_match(pat[2:], p[len(home):].lstrip("/")):
                    return pat
            elif "/" in pat:
                n = pat.count("/") + 1
                if len(parts) >= n and glob_match(pat, "/".join(parts[-n:])):
                    return pat
            elif glob_match(pat, parts[-1]):
                return pat
    return ""


def holds_pattern(rel: str, pattern: str) -> bool:
    """Could a path matching glob `pattern` lie strictly below directory `rel` ("" is the
    root)? Component by component, case-insensitively like glob_match."""
    rparts = [p for p in rel.split("/") if p]
    pparts = [p for p in pattern.split("/") if p]
    for i, comp in enumerate(rparts):
        if i >= len(pparts):
            return False
        if pparts[i] == "**":
            return True
        if not glob_match(pparts[i], comp):
            return False
    return len(rparts) < len(pparts)


def is_protected(paths, roots: Roots, policy, as_dir=False) -> str:
    """The protected-path pattern one of `paths` matches, or "". With `as_dir`, a directory
    that holds a protected path counts too (a build's output directory, `.claude`). Where
    `roots` carries the request's environment (the validator's), the gateway's own files
    count too (gateway.ownpaths: the one list the PreToolUse guards deny writes of, GW832);
    their path is then what is returned."""
    for p in paths:
        for own in roots.own():
            if is_within(p, own) or (as_dir and is_within(own, p)):
                return own
    home = posixpath.normpath(os.path.expanduser("~"))
    for p in paths:
        rels = []
        for root in (roots.project, roots.project_real):
            if is_within(p, root) and p != root:
                rels.append(("", p[len(root):].lstrip("/")))
        if is_within(p, home) and p != home:
            rels.append(("~/", p[len(home):].lstrip("/")))
        if as_dir and p in (roots.project, roots.project_real):
            rels.append(("", ""))
        if as_dir and p == home:
            rels.append(("~/", ""))
        for pat in policy.protected_paths:
            for prefix, rel in rels:
                if pat.startswith("~/"):
                    if prefix == "~/" and (glob_match(pat[2:], rel) or
                                           as_dir and holds_pattern(rel, pat[2:])):
                        return pat
                elif prefix == "" and (glob_match(pat, rel) or as_dir and holds_pattern(rel, pat)):
                    return pat
    return ""
