"""What the build, test and package tools' checks share: the verdict helpers, the reading of
options against the entry's allowlist, the configuration readers (TOML, INI, JSON with
comments), the permission surface of the formatters and fixers, side outputs.

Part of gateway.validator.checks.buildtools (see its docstring)."""

import os
import posixpath

from gateway.paths import fnmatchcase, is_protected, is_secret, is_within, lexical, physical, real
from gateway.shell import argv as argvmod
from gateway.validator.checks._common import PHASE

#: entries per tree walked for a formatter's files or a test runner's collection
WALK_LIMIT = 20000
_CONFIG_MAX = 1 << 20  # configuration files larger than this are not read: ask


# --- verdict helpers ----------------------------------------------------------------------

def _ask(ctx, code, what, why, rule=""):
    return ctx.ask(PHASE, code, f"{what}: {why}", rule=rule)


def _refuse(verdict):
    return verdict, [], []


# --- reading options against the entry's allowlist ------------------------------------------

def _shared_unsafe(spec):
    shared = spec.shared or {}
    return set(shared.get("unsafe_flags", ()))


def allowlist(ctx, spec, args, words, label):
    """The catalogue's reading of parsed options: an unsafe option asks (GW760 when it is
    one of the tool's shared build options), an abbreviation of a write option asks, an
    option the entry does not list asks (GW704). Returns (verdict, written values)."""
    bad = argvmod.first_unsafe(args, spec.unsafe_flags, words)
    if bad:
        code = "GW760" if bad in _shared_unsafe(spec) else "GW704"
        return ctx.ask(PHASE, code, f"{label} {bad}: runs another program, fetches code or "
                       "writes outside the places the command names",
                       rule=f"catalogue:{spec.name}:{bad}"), []
    written = []
    for opt in args.options:
        if opt.name in spec.write_flags:
            if opt.value is None:
                return ctx.ask(PHASE, "GW704", f"{label} {opt.name} writes a file it does "
                               "not name", rule=f"catalogue:{spec.name}"), []
            written.append(opt.value)
        elif opt.name.startswith("--") and opt.name not in (spec.safe_flags or ()) and any(
                argvmod.long_matches(opt.name, w) for w in spec.write_flags):
            return ctx.ask(PHASE, "GW704", f"{label} {opt.name}: an abbreviation of an option "
                           "that writes a file; spell it out",
                           rule=f"catalogue:{spec.name}"), []
    if spec.safe_flags is not None:
        for opt in args.options:
            if opt.name not in spec.safe_flags:
                return ctx.ask(PHASE, "GW704", f"{label} {opt.name} is not among its known "
                               "options (every option of a build tool is listed; an "
                               "unlisted one may run programs or write files)",
                               rule=f"catalogue:{spec.name}"), []
    if spec.args == "none" and args.positionals:
        # `npm audit fix`, `npm version patch`: a word the entry does not take is another
        # action of the tool (phase 7C's rule, for the checks that read options themselves)
        return ctx.ask(PHASE, "GW712", f"{label} takes no arguments here (got "
                       f"{args.positionals[0]!r})", rule=f"catalogue:{spec.name}"), []
    return None, written


def parse(spec, words):
    if spec.flag_style == "words":
        return argvmod.parse_words(words, spec.value_flags | spec.write_flags
                                | frozenset(spec.config_flags))
    return argvmod.parse(words, spec.value_flags | spec.write_flags
                         | frozenset(spec.config_flags))


def candidates(spec, args, positionals=True):
    """Path candidates: positionals, option values that are not text, glued values."""
    cands = list(args.positionals) if positionals else []
    cands += [o.value for o in args.options if o.value is not None
              and o.name not in spec.text_flags]
    cands += args.attached
    return cands


def generic(ctx, spec, words, label=None, positionals=True):
    """(verdict, args, cands, written) for an entry read the getopt way."""
    label = label or spec.name
    args = parse(spec, words)
    verdict, written = allowlist(ctx, spec, args, words, label)
    if verdict is not None:
        return verdict, args, [], []
    return None, args, candidates(spec, args, positionals) + written, written


def _any_outside(ctx, paths, cwd) -> bool:
    """A path argument outside the project: phase 5 asks for it (GW501/GW502), with the
    real reason, before any configuration found from it is judged."""
    from gateway.paths import resolve

    return any(p and resolve(p, cwd, ctx.roots).status in ("outside", "symlink_out")
               for p in paths)


def _secret_args(ctx, label, values, cwd):
    """Arguments handed to the project's own program (a script, a test binary): only a
    secret among them stops the allow (the program may print what it reads)."""
    for v in values:
        for w in (v, v.split("=", 1)[1] if "=" in v else ""):
            if w and not w.startswith("-"):
                secret = is_secret((lexical(w, cwd), physical(w, cwd)), ctx.policy)
                if secret:
                    return ctx.ask("5", "GW503", f"{label} hands {w!r} to the program it "
                                   f"runs: a secret file ({secret})", rule=f"secrets:{secret}")
    return None


# --- the file system: configuration files, the surface ---------------------------------------

def _read(path):
    """The text of a configuration file, "" when there is none, None when it cannot be
    read (too big, not a regular file, unreadable): the caller asks."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return ""
    except OSError:
        return None
    import stat as _stat

    if not _stat.S_ISREG(st.st_mode) or st.st_size > _CONFIG_MAX:
        return None
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except (OSError, UnicodeDecodeError):
        return None


class ConfigError(Exception):
    """A configuration file that cannot be read or parsed: ask (GW761)."""


def _toml(path):
    text = _read(path)
    if text is None:
        raise ConfigError(f"{path} cannot be read")
    if not text:
        return None
    from gateway.validator.checks import tomlcache

    data = tomlcache.lookup(path, text)
    if data is not None:
        return data
    import tomllib

    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError, RecursionError) as exc:
        raise ConfigError(f"{path} is not valid TOML ({exc})") from None
    tomlcache.store(path, text, data)
    return data


def _ini(path):
    text = _read(path)
    if text is None:
        raise ConfigError(f"{path} cannot be read")
    if not text:
        return None
    import configparser

    cp = configparser.RawConfigParser(strict=False)
    try:
        cp.read_string(text, source=path)
    except (configparser.Error, ValueError) as exc:
        raise ConfigError(f"{path} cannot be parsed ({exc})") from None
    return cp


def _jsonc(path):
    """tsconfig-style JSON: comments and trailing commas allowed."""
    text = _read(path)
    if text is None:
        raise ConfigError(f"{path} cannot be read")
    if not text:
        return None
    from gateway import _fastjson

    try:
        data = _fastjson.loads(_jsonc_clean(text))
    except (ValueError, RecursionError) as exc:
        raise ConfigError(f"{path} is not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path} does not hold a JSON object")
    return data


def _jsonc_clean(text):
    """JSON text of a JSONC text: `//` and `/* */` comments and the comma before a closing
    `}` or `]` (blanks and comments between them) removed, strings left as they are."""
    out = []
    comma = None  # index in `out` of a comma followed so far only by blanks and comments
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            comma = None
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        else:
            if c in "}]" and comma is not None:
                out[comma] = ""
            if c == ",":
                comma = len(out)
            elif c not in " \t\r\n":
                comma = None
            out.append(c)
            i += 1
    return "".join(out)


def _ancestors(start):
    """`start` and every directory above it, up to /."""
    d = posixpath.normpath(start)
    while True:
        yield d
        parent = posixpath.dirname(d)
        if parent == d:
            return
        d = parent


def _inside(ctx, path) -> bool:
    return ctx.roots.lexically_inside(path) and ctx.roots.really_inside(real(path))


def _home(ctx):
    home = ctx.env.get("HOME") or ""
    return posixpath.normpath(home) if home.startswith("/") else None


def _program_ok(ctx, value, base) -> bool:
    """A program named in configuration: a name found on PATH, a system program, or a file
    of the project itself."""
    if not isinstance(value, str) or not value.strip() or any(c in value for c in "\n\0"):
        return False
    if "/" not in value:
        return " " not in value.strip()
    p = lexical(value, base)
    if posixpath.dirname(p) in ctx.policy.system_bin_dirs:
        return True
    return _inside(ctx, p)


class Surface:
    """The files of given types below the trees a tool walks: the first one on the
    permission surface (if the tool writes them), the first secret (it reads them, and
    formatters and linters print parts of what they read: a diff, a code frame), and
    whatever keeps the walk from proving either absent (a link out of the project, too
    many files, a directory that cannot be listed)."""

    def __init__(self, ctx, formats, skip=(), dot_dirs=True, follow=True, recurse=True,
                 writes=True):
        self.ctx = ctx
        self.formats = tuple(formats)
        self.skip = frozenset(skip)
        self.dot_dirs = dot_dirs
        self.follow = follow
        self.recurse = recurse
        self.writes = writes
        self.budget = [WALK_LIMIT]
        self.hits = {}  # kind ("protected", "secret", "unproven") -> (path, why)

    def _typed(self, name):
        return any(fnmatchcase(name, f) or fnmatchcase(name.lower(), f.lower())
                   for f in self.formats)

    def _protected(self, path, as_dir=False):
        return is_protected((path, real(path)), self.ctx.roots, self.ctx.policy,
                            as_dir=as_dir)

    def _hit(self, kind, path, why):
        self.hits.setdefault(kind, (path, why))

    def _file(self, path, named=False):
        target = real(path)
        secret = is_secret((path, target), self.ctx.policy)
        if secret:
            self._hit("secret", path, f"a secret file ({secret})")
        if self.writes:
            prot = self._protected(path) or (target != path and self._protected(target))
            if prot:
                self._hit("protected", path, f"it is protected ({prot})")
        if os.path.lexists(path) and not _inside(self.ctx, target):
            self._hit("unproven", path, f"it leads out of the project (to {target})")

    def scan(self, top):
        """Walk below `top` (absolute); the hits are in self.hits."""
        if not os.path.isdir(top):
            # a file named is read and written whatever its type (black formats any file
            # it is given); one that does not exist is neither (the tool stops)
            self._file(top, named=True)
            return
        if os.path.islink(top):
            target = real(top)
            if not _inside(self.ctx, target):
                self._hit("unproven", top, f"a link out of the project (to {target})")
                return
            prot = self._protected(target, as_dir=True)
            if prot and self.writes:
                self._hit("protected", top, f"a link to {target}, on the permission "
                          f"surface ({prot})")
        self._walk(top, 0)

    def _walk(self, d, depth):
        if depth > 64:
            self._hit("unproven", d, "the tree is too deep to check")
            return
        try:
            entries = list(os.scandir(d))
        except OSError:
            self._hit("unproven", d, "a directory cannot be listed")
            return
        self.budget[0] -= len(entries) + 1
        if self.budget[0] < 0:
            self._hit("unproven", d, f"more than {WALK_LIMIT} files to check")
            return
        for e in entries:
            name = e.name
            path = posixpath.join(d, name)
            try:
                is_link = e.is_symlink()
                is_dir = e.is_dir(follow_symlinks=False)
            except OSError:
                self._hit("unproven", path, "it cannot be inspected")
                continue
            if is_link:
                target = real(path)
                if os.path.isdir(target):
                    if not self.follow or not self.recurse or name in self.skip:
                        continue
                    if not _inside(self.ctx, target):
                        self._hit("unproven", path, f"a link out of the project (to {target})")
                        continue
                    prot = self._protected(target, as_dir=True)
                    if prot and self.writes:
                        self._hit("protected", path, f"a link to {target}, on the "
                                  f"permission surface ({prot})")
                    if is_secret((target,), self.ctx.policy):
                        self._hit("secret", path, f"a link to the secret {target}")
                    continue  # the target is walked where it lies in the project
                if self._typed(name) or self._typed(posixpath.basename(target)):
                    self._file(path)
                continue
            if is_dir:
                if not self.recurse or name in self.skip or (
                        not self.dot_dirs and name.startswith(".")):
                    continue
                self._walk(path, depth + 1)
                continue
            if self._typed(name):
                self._file(path)


def _surface_verdict(ctx, label, surface, targets, cwd, code="GW765", secrets=True):
    """Ask for what the walk found: a secret it reads (GW506, in every mode), a file on the
    permission surface it rewrites (`code`; not a read, so not in the exposure judgement),
    a tree it cannot prove free of either (GW507)."""
    for t in targets:
        if any(c in t for c in "*?[{"):
            # a pattern the tool expands itself (prettier, eslint): every file of its types
            # below the part before the first pattern character
            parts = t.split("/")
            k = next(i for i, p in enumerate(parts) if any(c in p for c in "*?[{"))
            t = "/".join(parts[:k]) or ("/" if t.startswith("/") else ".")
        surface.scan(lexical(t, cwd))
    hits = surface.hits

    def rel(path):
        return os.path.relpath(path, ctx.roots.project) if is_within(
            path, ctx.roots.project) else path

    if secrets and "secret" in hits:
        path, why = hits["secret"]
        return ctx.ask("5", "GW506", f"{label} reads the files of its type below "
                       f"{', '.join(repr(t) for t in targets[:3])}, and {rel(path)!r} is "
                       f"{why}", rule="secrets:walk")
    if "unproven" in hits:
        path, why = hits["unproven"]
        return ctx.ask("5", "GW507", f"{label}: what it reads and writes below "
                       f"{', '.join(repr(t) for t in targets[:3])} cannot be proven: "
                       f"{rel(path)!r}: {why}", rule="secrets:walk")
    if "protected" in hits and not ctx.exposure:
        path, why = hits["protected"]
        return ctx.ask(PHASE, code, f"{label} rewrites the files of its type below "
                       f"{', '.join(repr(t) for t in targets[:3])}, and {rel(path)!r} is "
                       f"one: {why}", rule=f"catalogue:{label}")
    return None


def _after(later):
    """What a check leaves for after phase 5 (segment.judge_argv runs it): the first verdict
    of `later` (callables), or None."""
    if not later:
        return None

    def run():
        for judge in later:
            verdict = judge()
            if verdict is not None:
                return verdict
        return None

    return run


def _side_output(ctx, label, path, what, cwd, as_dir=False):
    """A file or directory the command writes besides those it names: on the permission
    surface or outside the project it asks (GW763); not a read (the exposure judgement
    passes it)."""
    if ctx.exposure:
        return None
    p = lexical(path, cwd)
    prot = is_protected((p, physical(path, cwd)), ctx.roots, ctx.policy, as_dir=as_dir)
    if prot:
        return ctx.ask(PHASE, "GW763", f"{label} writes {what} at {p}, on the permission "
                       f"surface ({prot})", rule=f"protected_paths:{prot}")
    if not ctx.roots.lexically_inside(p) or not ctx.roots.really_inside(physical(path, cwd)):
        return ctx.ask(PHASE, "GW763", f"{label} writes {what} at {p}, outside the project",
                       rule=f"catalogue:{label}")
    return None
