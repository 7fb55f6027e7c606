"""Build, test and package tools: go, cargo, the npm family, pip/uv/poetry, pytest, the
formatters and linters, tsc, the JS test runners.

Three things are judged here besides each entry's option allowlist (the catalogue):

* **shared options**: options every subcommand of a build tool accepts live once in the
  catalogue (`shared:`) and are merged into each subcommand; the unsafe ones among them ask
  with GW760 wherever they appear (go -toolexec, cargo --config, npm --script-shell);
* **configuration is an effect**: what a tool reads from files or the environment as part
  of its command line is judged like its command line (GOFLAGS and the go env file,
  pytest's ini and PYTEST_ADDOPTS, .npmrc and npm_config_*, .cargo/config.toml and CARGO_*,
  ruff's fix/cache-dir/output-file/extend, tsconfig.json's outputs); a file that cannot be
  read asks (GW761); configuration found outside the project asks (GW762);
* **side outputs**: caches, reports and binaries written besides the named files (a go
  binary named after its package, .pytest_cache in the rootdir, __pycache__ beside the
  collected tests, .mypy_cache, .eslintcache, tsc's .js beside its .ts) are judged as
  writes: on the permission surface or outside the project they ask (GW763).

Formatters and fixers rewrite the files of their type below the directories they are
given: such a file on the permission surface asks (GW765); a protected pattern that matches
no file of that type on disk is no reason to ask. Runners of the project's own scripts
(npm test, npm run X, yarn X) have the trust of `make test`; runners of an installed tool
(npx tsc, uv run pytest, poetry run mypy, yarn eslint) are judged as that tool; whatever
downloads code the project does not pin asks (GW764).

Each check returns (verdict or None, path candidates, written candidates[, (argv, cwd) of
a command judged as itself]).
"""

import os
import posixpath

from gateway.paths import fnmatchcase, is_protected, is_secret, is_within, lexical, physical, real
from gateway.validator import argv as argvmod
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


# --- go --------------------------------------------------------------------------------------

_GO_VALUES_OK = {"-mod": ("readonly", "vendor"), "-buildmode": ("default", "exe", "pie"),
                 "-covermode": ("set", "count", "atomic"), "-buildvcs": ("true", "false", "auto")}
#: -ldflags / -gcflags: the linker's and compiler's own options that only change the output
_LDFLAGS_OK = ("-s", "-w", "-X", "-buildid")
_GCFLAGS_OK = ("-N", "-l", "-m", "-B", "-C", "-d=checkptr", "-race", "-S", "-e", "-std",
               "-wb")


def _go_words(spec, words, test=False):
    """go's flags: whole words, one or two dashes, -name=value or -name VALUE (the value
    flags of the entry); for go test, -test.name is -name. Returns (flags, positionals,
    args after -args) with flags as (name, value, word)."""
    flags = []
    pos = []
    rest = None
    i = 0
    while i < len(words):
        w = words[i]
        i += 1
        if w == "--":
            pos.extend(words[i:])
            break
        if w.startswith("-") and len(w) > 1:
            body = w.lstrip("-")
            name, eq, value = body.partition("=")
            if test and name.startswith("test."):
                name = name[5:]
            name = "-" + name
            if test and name == "-args":
                rest = list(words[i:])
                break
            if not eq and name in spec.value_flags and i < len(words):
                value = words[i]
                i += 1
                eq = "="
            flags.append((name, value if eq else None, w))
            continue
        pos.append(w)
    return flags, pos, rest


def _go_inner_flags(which, value):
    """Why -ldflags/-gcflags VALUE is not safe, or "" (each word an allowed option of the
    linker or compiler, optionally after pattern=)."""
    import shlex

    if "=" in value.split(" ", 1)[0] and not value.startswith("-"):
        value = value.split("=", 1)[1]  # -gcflags=all=-N -l
    try:
        parts = shlex.split(value)
    except ValueError:
        return "its value cannot be split into words"
    allowed = _LDFLAGS_OK if which == "-ldflags" else _GCFLAGS_OK
    k = 0
    while k < len(parts):
        p = parts[k]
        name = p.split("=", 1)[0]
        if name not in allowed:
            return f"{p!r} is not among the options allowed there ({', '.join(allowed)})"
        if name == "-X" and "=" not in p:
            k += 1  # -X importpath.name=value
        k += 1
    return ""


def _go_flags_verdict(ctx, spec, flags, label, source=""):
    """Judge go's flags against the entry (command line or GOFLAGS). Returns (verdict,
    written, outputdir)."""
    shared = _shared_unsafe(spec)
    code = "GW761" if source else None
    where = f" (from {source})" if source else ""
    written = []
    outdir = None
    for name, value, _word in flags:
        if name in spec.unsafe_flags:
            return ctx.ask(PHASE, code or ("GW760" if name in shared else "GW704"),
                           f"{label} {name}{where}: runs another program, fetches code or "
                           "writes outside the places the command names",
                           rule=f"catalogue:{spec.name}:{name}"), [], None
        if spec.safe_flags is not None and name not in spec.safe_flags:
            return ctx.ask(PHASE, code or "GW704", f"{label} {name}{where} is not among its "
                           "known options", rule=f"catalogue:{spec.name}"), [], None
        if name in _GO_VALUES_OK and value is not None and value not in _GO_VALUES_OK[name]:
            why = ("fetches and adds modules the project does not pin" if name == "-mod"
                   else "writes other outputs")
            return ctx.ask(PHASE, code or "GW760", f"{label} {name}={value}{where}: {why}",
                           rule=f"catalogue:{spec.name}:{name}"), [], None
        if name in ("-ldflags", "-gcflags") and value is not None:
            why = _go_inner_flags(name, value)
            if why:
                return ctx.ask(PHASE, code or "GW760", f"{label} {name}{where}: {why} (the "
                               "linker's and compiler's other options run programs or write "
                               "files)", rule=f"catalogue:{spec.name}:{name}"), [], None
        if name in spec.write_flags:
            if value is None:
                return ctx.ask(PHASE, "GW704", f"{label} {name} without a file"), [], None
            if name == "-outputdir":
                outdir = value
            written.append((name, value))
    return None, written, outdir


def _goflags(ctx):
    """(text, where) of GOFLAGS: the environment's, else the go env file's."""
    value = ctx.env.get("GOFLAGS")
    if value:
        return value, "GOFLAGS in the environment"
    path = ctx.env.get("GOENV")
    if path == "off":
        return "", ""
    if not path:
        base = ctx.env.get("XDG_CONFIG_HOME") or (
            posixpath.join(_home(ctx), ".config") if _home(ctx) else None)
        if not base:
            return "", ""
        path = posixpath.join(base, "go", "env")
    text = _read(path)
    if text is None:
        raise ConfigError(f"the go env file {path} cannot be read")
    for line in text.splitlines():
        key, eq, val = line.strip().partition("=")
        if eq and key.strip() == "GOFLAGS":
            return val.strip(), f"GOFLAGS in {path}"
    return "", ""


def _go_module(start, project):
    """(module root, module path) of the go.mod at or above `start` (inside the project)."""
    for d in _ancestors(start):
        text = _read(posixpath.join(d, "go.mod"))
        if text:
            for line in text.splitlines():
                parts = line.split()
                if len(parts) >= 2 and parts[0] == "module":
                    return d, parts[1].strip('"')
            return d, ""
        if d == project or not is_within(d, project):
            break
    return None, ""


def _go_binary_names(ctx, pos, cwd):
    """The file names `go build` (one main package, no -o) writes into the working
    directory: after the first .go file, or the package's last import path element."""
    files = [p for p in pos if p.endswith(".go")]
    if files:
        return [posixpath.basename(files[0])[:-3]]
    pkgs = [p for p in pos]
    if len(pkgs) > 1 or any("..." in p for p in pkgs):
        return []  # several packages: built and discarded
    target = pkgs[0] if pkgs else "."
    names = set()
    if target.startswith((".", "/")):
        d = lexical(target, cwd)
        root, mod = _go_module(d, ctx.roots.project)
        if root is not None and d == root and mod:
            names.add(_last_element(mod))
        names.add(posixpath.basename(d.rstrip("/")) or d)
    else:
        names.add(_last_element(target))
    return sorted(n for n in names if n)


def _last_element(importpath):
    parts = [p for p in importpath.split("/") if p]
    if len(parts) > 1 and parts[-1].startswith("v") and parts[-1][1:].isdigit():
        parts = parts[:-1]  # example.com/x/v2 builds x
    return parts[-1] if parts else ""


def _go_environment(ctx, spec, label, cwd, test=False):
    """go's configuration from outside the command line: GOFLAGS (environment or go env
    file) judged against `spec` like the command line, and a go.work above the project.
    Returns (verdict, written, outputdir) of the GOFLAGS."""
    try:
        goflags, where = _goflags(ctx)
    except ConfigError as exc:
        return _ask(ctx, "GW761", label, str(exc)), [], None
    written, outdir = [], None
    if goflags:
        gflags, gpos, _ = _go_words(spec, goflags.split(), test)
        if gpos:
            return _ask(ctx, "GW761", label, f"{where} holds {gpos[0]!r}, which is not a "
                        "flag"), [], None
        verdict, written, outdir = _go_flags_verdict(ctx, spec, gflags, label, where)
        if verdict is not None:
            return verdict, [], None
    return _go_work(ctx, label, cwd), written, outdir


def go(ctx, spec, words, cwd):
    """go build/test/run/vet/list/fmt/...: every option against the entry's allowlist (the
    build flags are the entry's shared options), -mod, -buildmode, -ldflags and -gcflags by
    value, GOFLAGS (environment or go env file) judged like the command line; packages are
    import paths or directories and .go files inside the project; pkg@version downloads;
    the binary `go build` writes into the working directory, go test -c's test binary and
    the profiles are writes."""
    sub = spec.name.split()[-1]
    label = spec.name
    test = sub == "test"
    flags, pos, rest = _go_words(spec, words, test)
    verdict, written, outdir = _go_flags_verdict(ctx, spec, flags, label)
    if verdict is not None:
        return _refuse(verdict)
    verdict, gwritten, goutdir = _go_environment(ctx, spec, label, cwd, test)
    if verdict is not None:
        return _refuse(verdict)
    written += gwritten
    outdir = outdir or goutdir
    cands = []
    program_args = []
    if sub == "run":
        # go run [flags] package|files... [arguments]: the arguments are the program's
        k = 0
        if pos and pos[0].endswith(".go"):
            while k < len(pos) and pos[k].endswith(".go"):
                k += 1
        else:
            k = min(1, len(pos))
        pos, program_args = pos[:k], pos[k:]
    for p in pos:
        if "@" in p and sub not in ("doc", "version", "env"):
            return _refuse(_ask(ctx, "GW764", f"{label} {p}", "downloads a module to build "
                                "or run it", rule=f"catalogue:{label}"))
        if p.startswith(("/", ".")) or p.endswith(".go") or sub == "version":
            cands.append(p.replace("/...", "") if p.endswith("/...") else p)
    verdict = _secret_args(ctx, label, program_args + (rest or []), cwd)
    if verdict is not None:
        return _refuse(verdict)
    if test and rest:
        tflags, _tpos, _ = _go_words(spec, [w for w in rest if w.startswith("-test.")], True)
        verdict, twritten, _ = _go_flags_verdict(ctx, spec, tflags, f"{label} -args")
        if verdict is not None:
            return _refuse(verdict)
        written += twritten
    writes = []
    for name, value in written:
        if name == "-o" or name == "-outputdir":
            writes.append(value)
        else:
            writes.append(value)
            if outdir and not value.startswith("/"):
                writes.append(posixpath.join(outdir, value))
    names = []
    if not any(n == "-o" for n, _ in written):
        if sub == "build":
            names = _go_binary_names(ctx, pos, cwd)
        elif test and any(n == "-c" for n, _v, _w in flags):
            names = [n + ".test" for n in _go_binary_names(ctx, pos or ["."], cwd)]
    later = [lambda n=n: _side_output(ctx, label, n, f"the binary {n!r}", cwd) for n in names]
    if sub == "fmt":
        later.append(lambda: _gofmt_tree(ctx, label, pos or ["."], cwd))
    return None, cands + writes, writes, _after(later)


#: Bounds of the //go:generate scan: files looked at, bytes per file, directives judged.
_GENERATE_MAX_FILES = 2000
_GENERATE_MAX_BYTES = 1 << 20
_GENERATE_MAX_DIRECTIVES = 64


def _generate_files(ctx, label, pos, cwd):
    """([.go file], verdict): the files go generate scans for the packages `pos` (relative
    directories, `dir/...`, or .go files inside the project). A superset: every .go file of
    a `...` tree, build constraints, nested modules, testdata and vendor included (go skips
    some of them: more directives are judged, never fewer)."""
    files = []
    for p in pos or ["."]:
        if not (p.startswith((".", "/")) or p.endswith(".go")) or "@" in p:
            return [], _ask(ctx, "GW770", f"{label} {p}", "an import path: the files whose "
                            "directives would run are not looked up", rule=f"catalogue:{label}")
        tree = p.endswith("/...") or p == "..."
        base = lexical(p[:-4] if p.endswith("/...") else ("." if p == "..." else p), cwd)
        if not _inside(ctx, base):
            return [], None  # phase 5 asks for the path outside the project
        if p.endswith(".go"):
            files.append(base)
            continue
        if not os.path.isdir(base):
            continue  # no such package: go generate fails, nothing runs
        for d, dirs, names in os.walk(base) if tree else [(base, [], os.listdir(base))]:
            dirs[:] = sorted(x for x in dirs if not os.path.islink(os.path.join(d, x)))
            files.extend(os.path.join(d, n) for n in sorted(names) if n.endswith(".go"))
            if len(files) > _GENERATE_MAX_FILES:
                return [], _ask(ctx, "GW770", label, f"more than {_GENERATE_MAX_FILES} Go "
                                "files to scan for //go:generate lines",
                                rule=f"catalogue:{label}")
    return files, None


def _generate_words(line):
    """The words of a //go:generate line as go generate splits them, or None when the line
    uses what is not modelled: $ expansions, escapes in quoted strings, `-command` aliases."""
    words = []
    rest = line.strip()
    while rest:
        if rest[0] == '"':
            end = rest.find('"', 1)
            if end < 0 or "\\" in rest[1:end]:
                return None
            words.append(rest[1:end])
            rest = rest[end + 1:]
            if rest and rest[0] not in " \t":
                return None
        else:
            cut = min([i for i in (rest.find(" "), rest.find("\t")) if i >= 0] or [len(rest)])
            if '"' in rest[:cut]:
                return None
            words.append(rest[:cut])
            rest = rest[cut:]
        rest = rest.lstrip(" \t")
    if not words or any("$" in w for w in words) or words[0] == "-command":
        return None
    return words


def go_generate(ctx, spec, words, cwd):
    """go generate runs the commands of the //go:generate lines of the packages' files: the
    project's own commands, as make runs the Makefile's. Each directive is judged as itself
    (in its package's directory) and decides; `-n` only prints them. A line the model does
    not split exactly ($ expansions, escapes, -command aliases), more than 64 directives, or
    an import path asks."""
    label = spec.name
    flags, pos, _rest = _go_words(spec, words)
    verdict, _written, _outdir = _go_flags_verdict(ctx, spec, flags, label)
    if verdict is not None:
        return _refuse(verdict)
    verdict, _w, _o = _go_environment(ctx, spec, label, cwd)
    if verdict is not None:
        return _refuse(verdict)
    cands = [p[:-4] if p.endswith("/...") else p for p in pos if p != "..."]
    if any(name == "-n" for name, _v, _w in flags):
        return None, cands, [], None  # prints the commands; runs none
    files, verdict = _generate_files(ctx, label, pos, cwd)
    if verdict is not None:
        return _refuse(verdict)
    directives = []
    for path in files:
        try:
            with open(path, "rb") as fh:
                data = fh.read(_GENERATE_MAX_BYTES + 1)
        except OSError as exc:
            return _refuse(_ask(ctx, "GW770", label, f"{path} cannot be read for its "
                                f"//go:generate lines ({exc.strerror})"))
        if len(data) > _GENERATE_MAX_BYTES:
            return _refuse(_ask(ctx, "GW770", label, f"{path} is larger than "
                                f"{_GENERATE_MAX_BYTES >> 20} MB"))
        for n, raw in enumerate(data.split(b"\n"), 1):
            if not raw.startswith(b"//go:generate"):
                continue
            line = raw[len(b"//go:generate"):].rstrip(b"\r").decode("utf-8", "replace")
            if line and line[0] not in " \t":
                continue  # //go:generated... is not a directive
            where_ = f"{os.path.relpath(path, cwd)}:{n}"
            argv = _generate_words(line)
            if argv is None:
                return _refuse(_ask(ctx, "GW770", label, f"the directive at {where_} "
                                    f"({line.strip()!r}) uses $ expansions, escapes or "
                                    "-command aliases, which are not modelled",
                                    rule=f"catalogue:{label}"))
            directives.append((argv, os.path.dirname(path), where_))
            if len(directives) > _GENERATE_MAX_DIRECTIVES:
                return _refuse(_ask(ctx, "GW770", label, f"more than "
                                    f"{_GENERATE_MAX_DIRECTIVES} //go:generate lines",
                                    rule=f"catalogue:{label}"))

    def judge_directives():
        from gateway.decision import ALLOW
        from gateway.validator.segment import judge_argv

        for argv, d, where_ in directives:
            if argv[:2] == ["go", "generate"]:
                return _ask(ctx, "GW770", label, f"the directive at {where_} runs go "
                            "generate again", rule=f"catalogue:{label}")
            text = " ".join(argv)
            ctx.step(PHASE, "info", "", f"{label}: {where_} runs {text!r}: judging it")
            v = judge_argv(ctx, list(argv), d, text, (), 2)
            if v.decision is not ALLOW:
                return ctx.ask(PHASE, v.code, f"{label} runs {text!r} ({where_}): "
                               f"{v.message}", rule=v.rule or f"catalogue:{label}") \
                    if v.decision.name == "ASK" else v
        return None

    return None, cands, [], judge_directives


def _go_flag_words(spec, words):
    """Go's flag package: one or two dashes, -name=value or -name VALUE (the entry's value
    flags), and the options end at the first word that is not one (or at `--`). Returns
    (flags as (name, value, word), positionals)."""
    flags = []
    i = 0
    while i < len(words):
        w = words[i]
        if w == "--":
            return flags, list(words[i + 1:])
        if not w.startswith("-") or w == "-":
            break
        i += 1
        name, eq, value = w.lstrip("-").partition("=")
        name = "-" + name
        if not eq and name in spec.value_flags and i < len(words):
            value, eq = words[i], "="
            i += 1
        flags.append((name, value if eq else None, w))
    return flags, list(words[i:])


def go_cover(ctx, spec, words, cwd):
    """`go tool cover`: reads a coverage profile and prints (-func) or writes (-html with
    -o) a report, or annotates one source file (-mode, -var). The profile and the source are
    read (paths, secrets asked); -o is a write; -html without -o opens a browser. To find the
    packages' sources it runs `go list`, which reads GOFLAGS: judged as for go list."""
    label = spec.name
    flags, pos = _go_flag_words(spec, words)
    names = [n for n, _v, _w in flags]
    for name, value, word in flags:
        if spec.safe_flags is None or name not in spec.safe_flags:
            return _refuse(ctx.ask(PHASE, "GW704", f"{label} {word} is not among its known "
                                   "options", rule=f"catalogue:{label}"))
        if name in spec.value_flags and value is None:
            return _refuse(ctx.ask(PHASE, "GW704", f"{label} {word} without a value",
                                   rule=f"catalogue:{label}"))
    if "-html" in names and "-o" not in names:
        return _refuse(ctx.ask(PHASE, "GW704", f"{label} -html without -o opens a web "
                               "browser", rule=f"catalogue:{label}:-html"))
    go = ctx.policy.command("go")
    listing = go.subcommands.get("list") if go is not None and go.subcommands else None
    if listing is None:
        return _refuse(ctx.ask(PHASE, "GW704", f"{label}: runs go list, which the catalogue "
                               "does not describe", rule=f"catalogue:{label}"))
    verdict, _w, _o = _go_environment(ctx, listing, label, cwd)
    if verdict is not None:
        return _refuse(verdict)
    written = [v for n, v, _w in flags if n in spec.write_flags]
    reads = [v for n, v, _w in flags if n in ("-func", "-html")]
    return None, reads + written + pos, written


def _go_work(ctx, label, cwd):
    """A go.work above the project puts modules from elsewhere into the build."""
    if ctx.env.get("GOWORK") == "off":
        return None
    if ctx.env.get("GOWORK"):
        p = lexical(ctx.env["GOWORK"], cwd)
        if not _inside(ctx, p):
            return _ask(ctx, "GW762", label, f"GOWORK names {p}, outside the project")
        return None
    for d in _ancestors(cwd):
        if os.path.exists(posixpath.join(d, "go.work")) and not _inside(ctx, d):
            return _ask(ctx, "GW762", label, f"{posixpath.join(d, 'go.work')} (outside the "
                        "project) makes modules from elsewhere part of the build")
    return None


def _gofmt_tree(ctx, label, pkgs, cwd):
    """go fmt rewrites the .go files of the packages it names (./... skips directories
    starting with . or _ and testdata)."""
    for p in pkgs:
        recurse = p.endswith("...")
        top = p[:-3].rstrip("/") or "." if recurse else p
        if not top.startswith((".", "/")):
            continue  # an import path: a package of the module or the standard library
        surface = Surface(ctx, ("*.go",), skip=("testdata",), dot_dirs=False,
                          recurse=recurse, follow=False)
        verdict = _surface_verdict(ctx, label, surface, [top], cwd)
        if verdict is not None:
            return verdict
    return None


def gofmt(ctx, spec, words, cwd):
    """gofmt prints; with -w it rewrites the .go files it is given and every .go file below
    the directories (dot directories included)."""
    verdict, args, cands, written = generic(ctx, spec, words)
    if verdict is not None:
        return _refuse(verdict)
    if not args.has("-w"):
        return None, cands, written
    targets = list(args.positionals)
    surface = Surface(ctx, spec.formats or ("*.go",), follow=False)
    return None, cands, written, _after([lambda: _surface_verdict(ctx, "gofmt -w", surface,
                                                                  targets, cwd)])


# --- cargo -----------------------------------------------------------------------------------

_RUSTFMT_OK = {"--check", "-v", "--verbose", "-q", "--quiet", "-l", "--files-with-diff"}
_RUSTFMT_VALUE = {"--edition", "--color"}
_RUSTC_LINTS = {"-D", "-W", "-A", "-F", "--deny", "--warn", "--allow", "--forbid",
                "--force-warn", "--cap-lints"}
_TEST_HARNESS_FLAGS = {"--nocapture", "--no-capture", "--test-threads", "--exact", "--ignored",
                       "--include-ignored", "--skip", "--list", "--show-output", "-q",
                       "--quiet", "--color", "--format", "--bench", "--test", "-Z",
                       "unstable-options", "--shuffle", "--shuffle-seed"}
_TEST_HARNESS_VALUE = {"--test-threads", "--skip", "--color", "--format", "--shuffle-seed"}


def _passthrough_problem(sub, rest):
    """Why the words after `cargo SUB --` (handed to rustfmt, clippy-driver or the test
    harness) are not safe, or ""."""
    i = 0
    while i < len(rest):
        w = rest[i]
        i += 1
        name = w.split("=", 1)[0]
        if sub == "fmt":
            if w in _RUSTFMT_OK:
                continue
            if name in _RUSTFMT_VALUE:
                i += 0 if "=" in w else 1
                continue
            # --config-path reads any file (its lines are shown on a parse error),
            # --print-config writes one
            return f"{w!r} is not among the rustfmt options allowed here"
        if sub == "clippy":
            if name in _RUSTC_LINTS:
                i += 0 if "=" in w else 1
                continue
            if w[:2] in ("-D", "-W", "-A", "-F") and len(w) > 2:
                continue
            # rustc options write files (--emit, -o), run programs (-C linker=) or read
            # argument files (@path)
            return f"{w!r} is not a lint level option for clippy"
        if sub == "run":
            continue  # the program's own arguments (checked for secrets)
        # test, bench: the test harness; --logfile writes the results to any file
        if name.startswith("--log"):
            return f"{w!r} makes the test harness write a file"
        if w.startswith("-") and name not in _TEST_HARNESS_FLAGS:
            return f"{w!r} is not among the test harness options allowed here"
        if name in _TEST_HARNESS_VALUE and "=" not in w:
            i += 1
    return ""


#: .cargo/config.toml: the tables and keys that change only how the build runs
_CARGO_CONFIG_OK = {
    "build": {"jobs", "target", "incremental", "pipelining", "rustflags", "rustdocflags",
              "target-dir", "rustc-wrapper", "rustc-workspace-wrapper", "rustc", "rustdoc"},
    "term": None, "net": {"retry", "git-fetch-with-cli", "offline"}, "profile": None,
    "alias": None, "cargo-new": None, "future-incompat-report": None, "http": None,
    "registry": {"default"}, "target": None, "cache": None, "resolver": None,
}
_CARGO_PROGRAM_KEYS = ("rustc-wrapper", "rustc-workspace-wrapper", "rustc", "rustdoc",
                       "linker", "ar")
_RUSTFLAGS_OK_PREFIX = ("-D", "-W", "-A", "-F", "--cfg", "-Copt-level", "-Ctarget-cpu",
                        "-Ctarget-feature", "-Cdebuginfo", "-Ccodegen-units",
                        "-Cforce-frame-pointers", "-Coverflow-checks", "-Cdebug-assertions",
                        "-Cincremental", "-Cstrip", "-Cpanic", "-Clto", "-Cembed-bitcode")


def _rustflags_problem(flags):
    if isinstance(flags, str):
        flags = flags.split()
    if not isinstance(flags, list):
        return "rustflags is not a list"
    words = []
    k = 0
    while k < len(flags):
        f = str(flags[k])
        if f in ("-C", "--codegen", "-D", "-W", "-A", "-F", "--cfg") and k + 1 < len(flags):
            words.append((f if f != "--codegen" else "-C") + str(flags[k + 1]))
            k += 2
            continue
        words.append(f)
        k += 1
    for w in words:
        if not w.startswith(_RUSTFLAGS_OK_PREFIX):
            return f"rustflags {w!r} may run a program or write files (-C linker=, -o...)"
    return ""


def _cargo_config_problem(ctx, data, path, base):
    for table, value in data.items():
        if table not in _CARGO_CONFIG_OK:
            return f"[{table}] in {path} is not a table the gateway knows to be safe"
        keys = _CARGO_CONFIG_OK[table]
        if not isinstance(value, dict):
            continue
        if keys is not None:
            for k in value:
                if k not in keys:
                    return f"{table}.{k} in {path} is not a key the gateway knows to be safe"
        if table == "build":
            for k in _CARGO_PROGRAM_KEYS:
                if k in value and not _program_ok(ctx, value[k], base):
                    return (f"build.{k} = {value[k]!r} in {path} runs a program that is "
                            "neither a system program nor the project's")
            for k in ("rustflags", "rustdocflags"):
                if k in value:
                    why = _rustflags_problem(value[k])
                    if why:
                        return f"build.{why} in {path}"
        if table == "target":
            for triple, tv in value.items():
                if not isinstance(tv, dict):
                    continue
                for k, v in tv.items():
                    if k in ("linker", "ar") and _program_ok(ctx, v, base):
                        continue
                    if k == "rustflags" and not _rustflags_problem(v):
                        continue
                    return (f"target.{triple}.{k} in {path} runs programs or changes how "
                            "the build runs them")
    return ""


def _cargo_configs(ctx, cwd):
    """The .cargo/config(.toml) files cargo reads from `cwd`: each directory up to /, then
    $CARGO_HOME. Returns [(path, inside_project_or_cargo_home)]."""
    seen = []
    cargo_home = ctx.env.get("CARGO_HOME") or (
        posixpath.join(_home(ctx), ".cargo") if _home(ctx) else None)
    dirs = list(_ancestors(cwd))
    for d in dirs:
        for name in ("config.toml", "config"):
            p = posixpath.join(d, ".cargo", name)
            if os.path.exists(p):
                seen.append((p, _inside(ctx, p) or (
                    cargo_home is not None and posixpath.dirname(p) == cargo_home)))
    if cargo_home and cargo_home not in [posixpath.join(d, ".cargo") for d in dirs]:
        for name in ("config.toml", "config"):
            p = posixpath.join(cargo_home, name)
            if os.path.exists(p):
                seen.append((p, True))
    return seen


_CARGO_ENV_PROGRAMS = ("RUSTC_WRAPPER", "RUSTC_WORKSPACE_WRAPPER", "RUSTC", "RUSTDOC",
                       "CARGO_BUILD_RUSTC", "CARGO_BUILD_RUSTC_WRAPPER",
                       "CARGO_BUILD_RUSTC_WORKSPACE_WRAPPER", "CARGO_BUILD_RUSTDOC")
_CARGO_ENV_FLAGS = ("RUSTFLAGS", "CARGO_BUILD_RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS")


def _cargo_environment(ctx, label, cwd):
    """Judge cargo's configuration (environment, config files): (verdict, target dirs)."""
    env = ctx.env
    for key in _CARGO_ENV_PROGRAMS:
        if env.get(key) and not _program_ok(ctx, env[key], cwd):
            return _ask(ctx, "GW761", label, f"{key}={env[key]!r} in the environment runs a "
                        "program that is neither a system program nor the project's"), []
    for key in _CARGO_ENV_FLAGS:
        if env.get(key):
            value = env[key].split("\x1f") if key == "CARGO_ENCODED_RUSTFLAGS" else env[key]
            why = _rustflags_problem(value)
            if why:
                return _ask(ctx, "GW761", label, f"{key} in the environment: {why}"), []
    for key in env:
        if key.startswith("CARGO_TARGET_") and key.endswith(("_LINKER", "_RUNNER", "_AR")) \
                and key != "CARGO_TARGET_DIR":
            if key.endswith("_RUNNER") or not _program_ok(ctx, env[key], cwd):
                return _ask(ctx, "GW761", label, f"{key} in the environment runs a program "
                            "around the build or its binaries"), []
    dirs = [env[k] for k in ("CARGO_TARGET_DIR", "CARGO_BUILD_TARGET_DIR") if env.get(k)]
    for path, trusted in _cargo_configs(ctx, cwd):
        if not trusted:
            return _ask(ctx, "GW762", label, f"{path} (outside the project) configures the "
                        "build (it can name a rustc wrapper or a linker)"), []
        try:
            data = _toml(path)
        except ConfigError as exc:
            return _ask(ctx, "GW761", label, str(exc)), []
        if not data:
            continue
        base = posixpath.dirname(posixpath.dirname(path))
        why = _cargo_config_problem(ctx, data, path, base)
        if why:
            return _ask(ctx, "GW761", label, why), []
        td = (data.get("build") or {}).get("target-dir") if isinstance(
            data.get("build"), dict) else None
        if isinstance(td, str):
            dirs.append(lexical(td, base))
    toolchain = _rust_toolchain(ctx, label, cwd)
    if toolchain is not None:
        return toolchain, []
    return None, dirs


def _rust_toolchain(ctx, label, cwd):
    """rust-toolchain.toml may name a toolchain by path (rustup runs its cargo)."""
    for d in _ancestors(cwd):
        for name in ("rust-toolchain.toml", "rust-toolchain"):
            p = posixpath.join(d, name)
            if not os.path.exists(p):
                continue
            if not _inside(ctx, p):
                return _ask(ctx, "GW762", label, f"{p} (outside the project) chooses the "
                            "toolchain that runs")
            text = _read(p)
            if text is None:
                return _ask(ctx, "GW761", label, f"{p} cannot be read")
            if "path" in text:
                try:
                    data = _toml(p) if name.endswith(".toml") or "[" in text else None
                except ConfigError as exc:
                    return _ask(ctx, "GW761", label, str(exc))
                tc = (data or {}).get("toolchain") if isinstance(data, dict) else None
                if isinstance(tc, dict) and "path" in tc and not _inside(
                        ctx, lexical(str(tc["path"]), d)):
                    return _ask(ctx, "GW761", label, f"{p} runs the toolchain at "
                                f"{tc['path']!r}, outside the project")
            return None
        if d == ctx.roots.project:
            return None
    return None


def _cargo_unpinned(ctx, label, cwd, manifest):
    """Dependencies declared with no Cargo.lock: cargo resolves and downloads the newest
    versions (code the project does not pin)."""
    start = posixpath.dirname(lexical(manifest, cwd)) if manifest else cwd
    manifests = []
    for d in _ancestors(start):
        if not is_within(d, ctx.roots.project):
            break
        p = posixpath.join(d, "Cargo.toml")
        if os.path.exists(p):
            manifests.append(d)
    if not manifests:
        return None
    root = manifests[-1]
    if os.path.exists(posixpath.join(root, "Cargo.lock")) or os.path.exists(
            posixpath.join(manifests[0], "Cargo.lock")):
        return None
    try:
        data = _toml(posixpath.join(manifests[0], "Cargo.toml")) or {}
    except ConfigError as exc:
        return _ask(ctx, "GW761", label, str(exc))
    deps = any(data.get(k) for k in ("dependencies", "dev-dependencies", "build-dependencies"))
    deps = deps or any(isinstance(v, dict) and v.get("dependencies")
                       for v in (data.get("target") or {}).values())
    if deps or (data.get("workspace") or {}).get("members"):
        return _ask(ctx, "GW764", label, "the project has dependencies but no Cargo.lock: "
                    "cargo resolves and downloads versions the project does not pin "
                    "(run `cargo generate-lockfile` with the human first)")
    return None


def cargo(ctx, spec, words, cwd):
    """cargo SUB: the entry's options (the shared ones included: --config and -Z ask with
    GW760), the words after `--` for rustfmt, clippy-driver, the test harness or the
    program, cargo's configuration (environment, .cargo/config.toml here and above,
    rust-toolchain.toml) judged, --target-dir and --artifact-dir as writes, unpinned
    dependencies (no Cargo.lock) as a download; fmt and clippy --fix rewrite .rs files."""
    label = spec.name
    sub = label.split()[-1]
    args = parse(spec, words)
    verdict, written = allowlist(ctx, spec, args, words, label)
    if verdict is not None:
        return _refuse(verdict)
    why = _passthrough_problem(sub, args.rest or [])
    if why:
        return _refuse(_ask(ctx, "GW704", f"{label} --", why))
    if sub in ("run", "test", "bench"):
        verdict = _secret_args(ctx, label, args.rest or [], cwd)
        if verdict is not None:
            return _refuse(verdict)
    verdict, target_dirs = _cargo_environment(ctx, label, cwd)
    if verdict is not None:
        return _refuse(verdict)
    if sub == "doc" and args.has("--open"):
        # the documentation opens in $BROWSER (cargo's doc.browser: CARGO_DOC_BROWSER or a
        # [doc] table, which _cargo_environment refuses), else the desktop's opener
        for key in ("CARGO_DOC_BROWSER", "BROWSER"):
            value = ctx.env.get(key)
            if value and not all(_program_ok(ctx, v, cwd) for v in value.split(":") if v):
                return _refuse(_ask(ctx, "GW761", f"{label} --open", f"{key}={value!r} in "
                                    "the environment runs a program that is neither a "
                                    "system program nor the project's"))
    later = [lambda td=td: _side_output(ctx, label, td, "the build's target directory", cwd,
                                        as_dir=True) for td in target_dirs]
    manifest = next((o.value for o in args.options if o.name == "--manifest-path"), None)
    if sub in ("build", "check", "test", "bench", "run", "clippy", "doc", "tree", "metadata"):
        verdict = _cargo_unpinned(ctx, label, cwd, manifest)
        if verdict is not None:
            return _refuse(verdict)
    if sub == "fmt" and "--check" not in (args.rest or []) or (
            sub == "clippy" and args.has("--fix")):
        top = posixpath.dirname(lexical(manifest, cwd)) if manifest else ctx.roots.project
        surface = Surface(ctx, ("*.rs",), skip=("target", ".git"), follow=False)
        later.append(lambda: _surface_verdict(ctx, label, surface, [top], cwd))
    cands = [o.value for o in args.options if o.value is not None
             and o.name not in spec.text_flags] + list(args.attached)
    for o in args.options:
        if o.name == "--target" and o.value and not o.value.endswith(".json"):
            cands.remove(o.value)  # a target triple, not a file
    return None, cands, written, _after(later)


def _cargo_target_dirs(ctx, label, cwd, manifest):
    """The target directories `cargo clean` may remove when no --target-dir is given and the
    configuration names none: `target` beside each Cargo.toml from the manifest's directory
    up to the project root (the workspace root is one of them). A manifest above the project
    (a workspace there may hold this package), none inside, or a package.workspace that
    points out: (ask verdict, [])."""
    start = posixpath.dirname(lexical(manifest, cwd)) if manifest else cwd
    dirs = []
    for d in _ancestors(start):
        if not is_within(d, ctx.roots.project):
            if os.path.exists(posixpath.join(d, "Cargo.toml")):
                return _ask(ctx, "GW762", label, f"{posixpath.join(d, 'Cargo.toml')} (outside "
                            "the project) may be the workspace whose target directory it "
                            "removes"), []
            continue
        p = posixpath.join(d, "Cargo.toml")
        if os.path.exists(p):
            try:
                data = _toml(p) or {}
            except ConfigError as exc:
                return _ask(ctx, "GW761", label, str(exc)), []
            pkg = data.get("package") if isinstance(data.get("package"), dict) else {}
            ws = pkg.get("workspace")
            if ws is not None and not (isinstance(ws, str)
                                       and _inside(ctx, lexical(ws, d))):
                return _ask(ctx, "GW762", label, f"{p}: package.workspace {ws!r} names a "
                            "workspace outside the project"), []
            dirs.append(posixpath.join(d, "target"))
    if not dirs:
        return _ask(ctx, "GW762", label, "no Cargo.toml in the project at or above "
                    f"{start}: cargo would look for one outside the project"), []
    return None, dirs


def cargo_clean(ctx, spec, words, cwd):
    """`cargo clean` removes the target directory (or the part -p, --release, --profile,
    --doc and --target select: judged as the whole directory), which --target-dir,
    CARGO_TARGET_DIR, build.target-dir or build.build-dir of the configuration may move:
    each is a tree removal that must stay inside the project and hold nothing protected (the
    guards' judgement of write targets). An edit (acceptEdits); --dry-run (-n) deletes
    nothing."""
    label = spec.name
    args = parse(spec, words)
    verdict, written = allowlist(ctx, spec, args, words, label)
    if verdict is not None:
        return _refuse(verdict)
    if args.positionals:
        return _refuse(ctx.ask(PHASE, "GW712", f"{label} takes no arguments (got "
                               f"{args.positionals[0]!r})", rule=f"catalogue:{label}"))
    verdict, config_dirs = _cargo_environment(ctx, label, cwd)
    if verdict is not None:
        return _refuse(verdict)
    build_dirs = _cargo_build_dirs(ctx, label, cwd)
    if isinstance(build_dirs, tuple):
        return _refuse(build_dirs[0])
    manifest = next((o.value for o in args.options if o.name == "--manifest-path"), None)
    # --target-dir wins over the environment and the configuration, which win over target/
    removed = list(written) or [d for d in config_dirs if d]
    if not removed:
        verdict, removed = _cargo_target_dirs(ctx, label, cwd, manifest)
        if verdict is not None:
            return _refuse(verdict)
    removed += build_dirs
    dry = args.has("-n", "--dry-run")
    if not dry and not ctx.exposure:
        from gateway.validator import modes

        if not modes.accepts_edits(ctx.mode):
            return _refuse(ctx.ask(PHASE, "GW721", f"{label} removes the build's target "
                                   f"directory; in {modes.normalize(ctx.mode)} mode edits are "
                                   "the human's (acceptEdits allows them inside the project)",
                                   rule=f"catalogue:{label}:edit"))
    later = [] if ctx.exposure else [
        lambda d=d: _removed_tree(ctx, label, d, cwd) for d in dict.fromkeys(removed)]
    cands = [o.value for o in args.options if o.value is not None
             and o.name not in spec.text_flags and o.name not in spec.write_flags]
    return None, cands + list(written), list(written), _after(later)


def _cargo_build_dirs(ctx, label, cwd):
    """build.build-dir of cargo's configuration files (the intermediate artifacts, which
    cargo clean removes too): a list of directories, or (ask verdict,) when it is a
    template the gateway does not expand ({workspace-path-hash}...)."""
    out = []
    for path, _trusted in _cargo_configs(ctx, cwd):
        try:
            data = _toml(path)
        except ConfigError as exc:
            return (_ask(ctx, "GW761", label, str(exc)),)
        build = data.get("build") if isinstance(data, dict) else None
        bd = build.get("build-dir") if isinstance(build, dict) else None
        if bd is None:
            continue
        if not isinstance(bd, str) or "{" in bd:
            return (_ask(ctx, "GW761", label, f"{path}: build.build-dir {bd!r} is a "
                         "directory the gateway does not place"),)
        out.append(lexical(bd, posixpath.dirname(posixpath.dirname(path))))
    env = ctx.env.get("CARGO_BUILD_BUILD_DIR")
    if env and "{" in env:
        return (_ask(ctx, "GW761", label, f"CARGO_BUILD_BUILD_DIR {env!r} is a directory "
                     "the gateway does not place"),)
    return out


def _removed_tree(ctx, label, path, cwd):
    """A directory the command removes with everything below it: inside the project,
    through no symlink that leads out, and holding nothing the guards protect (the
    permission surface, .git, the gateway's state, the project itself)."""
    from gateway.guards.files import Surface

    p = lexical(path, cwd)
    rp = physical(path, cwd)
    if not ctx.roots.lexically_inside(p) or not ctx.roots.really_inside(rp):
        return ctx.ask(PHASE, "GW763", f"{label} removes {p}, outside the project",
                       rule=f"catalogue:{label}")
    surface = ctx.__dict__.get("_surface")
    if surface is None:
        surface = ctx.__dict__["_surface"] = Surface(ctx.roots, ctx.policy, ctx.env)
    hit = surface.check(p, rp, tree=True)
    if hit:
        code, rule, why = hit
        return ctx.ask(PHASE, "GW763", f"{label} removes {p}: {why} ({rule}) [{code}]",
                       rule=f"protected:{rule}")
    return None


# --- the npm family ----------------------------------------------------------------------------

#: .npmrc keys (and npm_config_* variables) that only change how npm talks, prints or
#: resolves; the others (script-shell, node-options, prefix, userconfig, git, cache...)
#: run programs or move where npm works: ask
_NPMRC_OK = frozenset("""
registry always-auth save save-exact save-prefix save-dev save-optional engine-strict fund
audit audit-level loglevel legacy-peer-deps package-lock progress strict-ssl cafile ca
auto-install-peers shamefully-hoist node-linker strict-peer-dependencies
prefer-workspace-packages link-workspace-packages public-hoist-pattern hoist-pattern
resolution-mode lockfile update-notifier color unicode timing usage fetch-retries
fetch-retry-mintimeout fetch-retry-maxtimeout fetch-timeout maxsockets offline prefer-offline
prefer-online include omit optional production dedupe-peer-dependents
enable-pre-post-scripts ignore-scripts install-links workspaces-update
strict-dep-builds save-workspace-protocol git-tag-version sign-git-tag message
init-author-name init-author-email init-license init-version prefer-frozen-lockfile
frozen-lockfile recursive-install node-version use-node-version engine-strict
prefix
""".split())
# (`prefix` in a configuration file moves only the global installs; on the command line it
# moves where every command runs: --prefix is one of npm's shared unsafe options)
_NPMRC_OK_PREFIX = ("//", "@")


def _npmrc_problem(key):
    k = key.strip().lower().replace("_", "-")
    if k.startswith(_NPMRC_OK_PREFIX) or k in _NPMRC_OK:
        return ""
    if k.startswith(("auth", "_auth", "email", "username", "password", "cert", "key",
                     "https-proxy", "proxy", "noproxy", "no-proxy")):
        return ""
    return f"{key.strip()!r} is not a setting the gateway knows to be safe (script-shell, " \
           "node-options, prefix, userconfig, git and the like run programs or move where " \
           "npm works)"


def _npm_config(ctx, label, cwd):
    """npm's configuration: npm_config_* in the environment, the project's .npmrc, the
    user's ~/.npmrc (or $NPM_CONFIG_USERCONFIG)."""
    for key in ctx.env:
        if key.lower().startswith("npm_config_"):
            why = _npmrc_problem(key[11:])
            if why:
                return _ask(ctx, "GW761", label, f"{key} in the environment: {why}")
    files = []
    d = _npm_prefix(ctx, cwd)
    files.append(posixpath.join(d, ".npmrc"))
    home = _home(ctx)
    user = ctx.env.get("NPM_CONFIG_USERCONFIG") or ctx.env.get("npm_config_userconfig") or (
        posixpath.join(home, ".npmrc") if home else None)
    if user:
        files.append(user)
    for path in files:
        text = _read(path)
        if text is None:
            return _ask(ctx, "GW761", label, f"{path} cannot be read")
        for line in text.splitlines():
            line = line.strip()
            if not line or line.startswith(("#", ";")) or "=" not in line:
                continue
            why = _npmrc_problem(line.split("=", 1)[0])
            if why:
                return _ask(ctx, "GW761", label, f"{path}: {why}")
    return None


def _npm_prefix(ctx, cwd):
    """npm's project directory: the nearest directory at or above `cwd` (inside the
    project) with a package.json or node_modules, else `cwd`."""
    for d in _ancestors(cwd):
        if not is_within(d, ctx.roots.project):
            break
        if os.path.exists(posixpath.join(d, "package.json")) or os.path.isdir(
                posixpath.join(d, "node_modules")):
            return d
    return cwd


def _local_bin(ctx, cwd, name):
    """The project's installed command `name` (node_modules/.bin/NAME at npm's project
    directory), or None."""
    if not name or "/" in name or "@" in name or name.startswith("."):
        return None
    p = posixpath.join(_npm_prefix(ctx, cwd), "node_modules", ".bin", name)
    if os.path.lexists(p) and _inside(ctx, p):
        return p
    return None


def _package_scripts(ctx, cwd):
    from gateway import _fastjson

    path = posixpath.join(_npm_prefix(ctx, cwd), "package.json")
    text = _read(path)
    if not text:
        return {}
    try:
        data = _fastjson.loads(text)
    except (ValueError, RecursionError):
        return {}
    scripts = data.get("scripts") if isinstance(data, dict) else None
    return scripts if isinstance(scripts, dict) else {}


def _yarnrc(ctx, label, cwd):
    """yarn runs the release its configuration names (yarnPath, yarn-path) and loads the
    plugins it lists: they must be files of the project."""
    d = _npm_prefix(ctx, cwd)
    for name, keys in ((".yarnrc.yml", ("yarnPath:",)), (".yarnrc", ("yarn-path",))):
        path = posixpath.join(d, name)
        text = _read(path)
        if text is None:
            return _ask(ctx, "GW761", label, f"{path} cannot be read")
        for line in text.splitlines():
            s = line.strip()
            for k in keys:
                if s.startswith(k):
                    value = s[len(k):].strip().strip("'\"")
                    if not value or not _inside(ctx, lexical(value, d)):
                        return _ask(ctx, "GW761", label, f"{path} runs yarn from {value!r}, "
                                    "which is not a file of the project")
            if s.startswith("- path:") or s.startswith("path:"):
                value = s.split(":", 1)[1].strip().strip("'\"")
                if not _inside(ctx, lexical(value, d)):
                    return _ask(ctx, "GW761", label, f"{path} loads the plugin {value!r}, "
                                "which is not a file of the project")
    return None


def _tool_name(spec):
    return spec.name.split()[0]


def npm(ctx, spec, words, cwd):
    """A read-only npm/pnpm/yarn subcommand (ls, view, outdated, why...): its options
    against the allowlist, its arguments are names (text), the configuration judged."""
    verdict, args, _cands, written = generic(ctx, spec, words, positionals=False)
    if verdict is not None:
        return _refuse(verdict)
    verdict = _npm_config(ctx, spec.name, cwd)
    if verdict is not None:
        return _refuse(verdict)
    return None, [o.value for o in args.options if o.value is not None
                  and o.name not in spec.text_flags] + list(args.attached), written


def npm_script(ctx, spec, words, cwd):
    """npm test / npm run X / pnpm X / yarn X: the project's own script, with the trust of
    `make test` (npm's options are judged, the arguments handed to the script may not be
    secrets). yarn and pnpm run an installed command of that name when the project has no
    such script: it is judged as itself."""
    tool = _tool_name(spec)
    sub = spec.name.split()[-1]
    label = spec.name
    # npm reads every option up to `--` as its own (also after the script's name)
    opts = []
    script_args = []
    name = sub if sub not in ("run", "run-script", "rum", "urn", "x") else None
    i = 0
    while i < len(words):
        w = words[i]
        i += 1
        if w == "--":
            script_args.extend(words[i:])
            break
        if w.startswith("-") and len(w) > 1:
            opts.append(w)
            if w.split("=", 1)[0] in spec.value_flags and "=" not in w and i < len(words) \
                    and not w.startswith("--no-"):
                opts.append(words[i])
                i += 1
            continue
        if name is None:
            name = w
            label = f"{spec.name} {w}"
            continue
        script_args.append(w)
    verdict, args, cands, written = generic(ctx, spec, opts, label)
    if verdict is not None:
        return _refuse(verdict)
    cands = [c for c in cands if c not in args.positionals]
    verdict = _npm_config(ctx, label, cwd) or (
        _yarnrc(ctx, label, cwd) if tool == "yarn" else None)
    if verdict is not None:
        return _refuse(verdict)
    if name is None:
        return None, cands, written  # npm run: lists the scripts
    if tool in ("yarn", "pnpm") and name not in _package_scripts(ctx, cwd):
        if _local_bin(ctx, cwd, name):
            return None, cands, written, ([name] + script_args, cwd)
        return _refuse(_ask(ctx, "GW705", f"{tool} {name}", "neither a script of "
                            "package.json nor a command the project has installed",
                            rule=f"catalogue:{spec.name}"))
    verdict = _secret_args(ctx, label, script_args, cwd) or _trusted_recipe(
        ctx, label, posixpath.join(_npm_prefix(ctx, cwd), "package.json"), "its scripts")
    if verdict is not None:
        return _refuse(verdict)
    ctx.step(PHASE, "info", "", f"{label}: runs the project's own script (the trust of "
             "`make test`)")
    return None, cands, written


def _trusted_recipe(ctx, label, path, what):
    from gateway.validator import trusted_code

    return trusted_code.recipe(ctx, label, path, what)


def npm_exec(ctx, spec, words, cwd):
    """npx CMD / npm exec CMD / pnpm exec CMD / yarn exec CMD: the project's installed
    command is judged as itself; anything else (a package to download, a version, -c shell
    code) asks."""
    tool = _tool_name(spec)
    label = spec.name
    opts = []
    i = 0
    while i < len(words):
        w = words[i]
        if w == "--":
            i += 1
            break
        if not w.startswith("-") or len(w) == 1:
            break
        opts.append(w)
        i += 1
        if w.split("=", 1)[0] in spec.value_flags and "=" not in w and i < len(words):
            opts.append(words[i])
            i += 1
    cmd = words[i:]
    verdict, args, cands, written = generic(ctx, spec, opts, label)
    if verdict is not None:
        return _refuse(verdict)
    if args.has("-p", "--package") or any(o.name.startswith("--package") for o in args.options):
        return _refuse(_ask(ctx, "GW764", f"{label} --package", "installs a package to run "
                            "it", rule=f"catalogue:{spec.name}"))
    verdict = _npm_config(ctx, label, cwd)
    if verdict is not None:
        return _refuse(verdict)
    if not cmd:
        return _refuse(ctx.ask(PHASE, "GW712", f"{label} without a command",
                               rule=f"catalogue:{spec.name}"))
    if _local_bin(ctx, cwd, cmd[0]) is None:
        return _refuse(_ask(ctx, "GW764", f"{label} {cmd[0]}", "not installed in the project: "
                            f"{tool} would download the package and run it",
                            rule=f"catalogue:{spec.name}"))
    return None, cands, written, (list(cmd), cwd)


def bare_install(ctx, spec, words, cwd):
    """`yarn` alone installs; `yarn --version` and `yarn --help` only print."""
    if words and all(w in (spec.safe_flags or ()) for w in words):
        return None, [], []
    return downloads(ctx, spec, words, cwd)


def downloads(ctx, spec, words, cwd):
    """Subcommands that install, download, publish or change the installed packages."""
    return _refuse(ctx.ask(PHASE, "GW764", f"{spec.name} installs, downloads or publishes "
                           "packages (code the project does not pin runs or lands in the "
                           "environment)", rule=f"catalogue:{spec.name}"))


# --- pip, uv, poetry ---------------------------------------------------------------------------

def pip(ctx, spec, words, cwd):
    """pip list/show/freeze/check/...: the options against the allowlist; package names are
    text, option values are paths (--path, -r), --python names the interpreter pip runs
    (a project file or a system program)."""
    verdict, args, cands, written = generic(ctx, spec, words, positionals=False)
    if verdict is not None:
        return _refuse(verdict)
    for o in args.options:
        if o.name == "--python" and o.value is not None and not _program_ok(ctx, o.value, cwd):
            return _refuse(_ask(ctx, "GW704", f"{spec.name} --python {o.value}", "runs an "
                                "interpreter that is neither a system program nor the "
                                "project's"))
    return None, [c for c in cands if c not in args.positionals], written


def _uv_sync_problem(ctx, cwd):
    """Why `uv run` would sync (download) first, or "": no uv.lock, a lock older than
    pyproject.toml (re-resolved), no .venv, or a locked package not installed."""
    project = None
    for d in _ancestors(cwd):
        if not is_within(d, ctx.roots.project):
            break
        if os.path.exists(posixpath.join(d, "pyproject.toml")):
            project = d
            break
    if project is None:
        return ""  # no project: uv runs the command in the environment it finds
    lock = posixpath.join(project, "uv.lock")
    if not os.path.exists(lock):
        return "the project has no uv.lock: uv resolves and downloads its dependencies"
    try:
        if os.stat(lock).st_mtime < os.stat(posixpath.join(project, "pyproject.toml")).st_mtime:
            return "pyproject.toml is newer than uv.lock: uv re-resolves (and downloads)"
        data = _toml(lock) or {}
    except (OSError, ConfigError) as exc:
        return f"uv.lock cannot be read ({exc})"
    venv = ctx.env.get("UV_PROJECT_ENVIRONMENT") or posixpath.join(project, ".venv")
    venv = lexical(venv, project)
    import glob

    sites = glob.glob(posixpath.join(glob.escape(venv), "lib", "python*", "site-packages"))
    if not sites:
        return f"{venv} holds no environment: uv creates it and installs the dependencies"
    installed = set()
    for s in sites:
        try:
            for name in os.listdir(s):
                if name.endswith(".dist-info"):
                    installed.add(_dist_key(name[:-10]))
        except OSError:
            return f"{s} cannot be listed"
    own = ((data.get("project") or {}).get("name") if isinstance(data, dict) else None)
    for pkg in data.get("package") or []:
        if not isinstance(pkg, dict):
            continue
        source = pkg.get("source") or {}
        if isinstance(source, dict) and ("editable" in source or "virtual" in source):
            continue  # the project itself (or a member of its workspace)
        name, version = str(pkg.get("name", "")), str(pkg.get("version", ""))
        if name == own:
            continue
        if _dist_key(f"{name}-{version}") not in installed:
            return f"{name} {version} (locked) is not installed: uv downloads it first"
    return ""


def _dist_key(text):
    import re

    name, _, version = text.rpartition("-")
    return re.sub(r"[-_.]+", "-", name).lower() + "-" + version


def _runner_inner(ctx, label, cmd, cwd):
    """The command a runner starts (uv run X, poetry run X): a .py file is run by python."""
    if not cmd:
        return None, _ask(ctx, "GW712", label, "no command to run")
    if cmd[0].endswith(".py"):
        return ["python"] + list(cmd), None
    return list(cmd), None


def pkg_run(ctx, spec, words, cwd):
    """uv run CMD / poetry run CMD / pipx run? (no: downloads): the command is judged as
    itself in the project's environment; uv first syncs the environment to uv.lock, which
    downloads whatever is missing (asks), unless --offline or --no-sync."""
    label = spec.name
    tool = _tool_name(spec)
    opts = []
    i = 0
    while i < len(words):
        w = words[i]
        if w == "--":
            i += 1
            break
        if not w.startswith("-") or len(w) == 1:
            break
        opts.append(w)
        i += 1
        if w.split("=", 1)[0] in (spec.value_flags | spec.write_flags) and "=" not in w \
                and i < len(words):
            opts.append(words[i])
            i += 1
    cmd = words[i:]
    verdict, args, cands, written = generic(ctx, spec, opts, label)
    if verdict is not None:
        return _refuse(verdict)
    if args.has("-m", "--module"):
        module = args.values("-m", "--module")
        cmd = ["python", "-m"] + module + list(cmd)
    inner, verdict = _runner_inner(ctx, label, cmd, cwd)
    if verdict is not None:
        return _refuse(verdict)
    if tool == "uv" and not args.has("--offline", "--no-sync"):
        if ctx.env.get("UV_OFFLINE") not in ("1", "true") and \
                ctx.env.get("UV_NO_SYNC") not in ("1", "true"):
            why = _uv_sync_problem(ctx, cwd)
            if why:
                return _refuse(_ask(ctx, "GW764", label, why + " (--offline or --no-sync "
                                    "run without it)", rule=f"catalogue:{spec.name}"))
    return None, cands, written, (inner, cwd)


# --- formatters and fixers ----------------------------------------------------------------------

#: How each formatter decides to write: (writes unless one of these, or only with these)
_FORMATTERS = {
    "black": ("unless", ("--check", "--diff")),
    "isort": ("unless", ("--check-only", "-c", "--check", "--diff", "--show-files")),
    "prettier": ("with", ("--write", "-w")),
    "rustfmt": ("unless", ("--check",)),
    "ruff format": ("unless", ("--check", "--diff")),
    "ruff check": ("with", ("--fix", "--fix-only", "--unsafe-fixes", "--add-noqa")),
}
#: tools whose walk does not descend into symbolic links to directories (measured: ruff
#: 0.17, prettier 3; black and isort do)
_FORMATTER_NO_FOLLOW = frozenset(("ruff", "prettier", "rustfmt"))
#: directories a tool never walks into unless named
_FORMATTER_SKIP = {
    "black": (".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", ".mypy_cache",
              ".pytest_cache", ".ruff_cache", "__pypackages__", "_build", "buck-out",
              "build", "dist", ".direnv", ".eggs", ".ipynb_checkpoints", ".vscode"),
    "isort": (".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", "node_modules",
              "_build", "buck-out", "build", "dist", ".direnv", ".eggs", ".mypy_cache",
              ".pants.d", ".bzr", "__pypackages__"),
    "prettier": (".git", ".svn", ".hg", ".jj", ".sl", "node_modules"),
    "rustfmt": (),
    "ruff": (".bzr", ".direnv", ".eggs", ".git", ".git-rewrite", ".hg", ".ipynb_checkpoints",
             ".mypy_cache", ".nox", ".pants.d", ".pyenv", ".pytest_cache", ".pytype",
             ".ruff_cache", ".svn", ".tox", ".venv", ".vscode", "__pypackages__", "_build",
             "buck-out", "dist", "node_modules", "site-packages", "venv"),
}


def formatter(ctx, spec, words, cwd):
    """black, isort, prettier, rustfmt, ruff format, ruff check: the options against the
    allowlist; whether it writes (--check and --diff never do); what it rewrites: the files
    it names, and below each directory the files of its type (spec.formats), none of which
    may be on the permission surface; ruff's configuration judged."""
    label = spec.name
    verdict, args, cands, written = generic(ctx, spec, words)
    if verdict is not None:
        return _refuse(verdict)
    tool = label.split()[0]
    how, flags = _FORMATTERS.get(label, _FORMATTERS.get(tool, ("unless", ())))
    given = any(o.name in flags for o in args.options)
    writes = given if how == "with" else not given
    targets = list(args.positionals)
    if _any_outside(ctx, cands, cwd):
        return None, cands, written
    if tool == "ruff":
        verdict, fix, extra = _ruff_config(ctx, label, args, cwd, targets or ["."])
        if verdict is not None:
            return _refuse(verdict)
        written += extra
        cands += extra
        if label == "ruff check" and not args.has("--no-fix", "--diff"):
            writes = writes or fix
        targets = targets or ["."]
    if tool == "prettier":
        for o in args.options:
            if o.name == "--plugin" and o.value and (o.value.startswith((".", "/"))
                                                     or o.value.endswith((".js", ".mjs"))):
                cands.append(o.value)  # a plugin file: code; inside the project only
    surface = Surface(ctx, spec.formats or ("*",), skip=_FORMATTER_SKIP.get(tool, ()),
                      writes=writes, follow=tool not in _FORMATTER_NO_FOLLOW)

    def walk():
        verdict = _surface_verdict(ctx, label, surface, targets, cwd)
        if verdict is None:
            ctx.step(PHASE, "pass", "", f"{label} {'rewrites' if writes else 'reads'} "
                     f"{', '.join(spec.formats) or 'files'} below "
                     f"{', '.join(repr(t) for t in targets[:4])}: no secret"
                     + (", none on the permission surface" if writes else ""))
        return verdict

    return None, cands, written, walk


_RUFF_CONFIGS = ("ruff.toml", ".ruff.toml", "pyproject.toml")
#: `ruff --config KEY=VALUE` keys that only change style or the rules reported
_RUFF_INLINE_OK = ("line-length", "indent-width", "target-version", "preview", "format.",
                   "lint.select", "lint.ignore", "lint.extend-select", "lint.extend-ignore",
                   "lint.per-file-ignores", "lint.extend-per-file-ignores", "lint.preview",
                   "lint.pydocstyle", "lint.isort", "lint.flake8-", "lint.pylint",
                   "lint.mccabe", "lint.pycodestyle")


def _ruff_section(path, data):
    if posixpath.basename(path) == "pyproject.toml":
        tool = data.get("tool") if isinstance(data, dict) else None
        return tool.get("ruff") if isinstance(tool, dict) else None
    return data


def _ruff_config(ctx, label, args, cwd, targets):
    """ruff's configuration: --config FILE, else the nearest ruff.toml/.ruff.toml/
    pyproject.toml [tool.ruff] above each target (then the user's); `extend` chains.
    Returns (verdict, fix, written): fix = true makes `ruff check` rewrite files; cache-dir
    and output-file are writes; a file outside the project asks (GW762)."""
    files = []
    for o in args.options:
        if o.name == "--config" and o.value and "=" in o.value:
            key = o.value.split("=", 1)[0].strip().strip('"')
            if not key.startswith(_RUFF_INLINE_OK):
                return _ask(ctx, "GW761", f"{label} --config {o.value!r}", "inline "
                            "configuration other than style and rule selection can name "
                            "caches, reports and files anywhere, or turn fixes on"), False, []
    explicit = [o.value for o in args.options if o.name == "--config" and o.value
                and "=" not in o.value]
    if args.has("--isolated"):
        explicit, starts = [], []
    else:
        starts = [] if explicit else [lexical(t, cwd) for t in targets] + [cwd]
    for e in explicit:
        files.append(lexical(e, cwd))
    for s in starts:
        d = s if os.path.isdir(s) else posixpath.dirname(s)
        for a in _ancestors(d):
            found = None
            for name in _RUFF_CONFIGS:
                p = posixpath.join(a, name)
                if not os.path.exists(p):
                    continue
                try:
                    data = _toml(p)
                except ConfigError as exc:
                    return _ask(ctx, "GW761", label, str(exc)), False, []
                if _ruff_section(p, data) is not None or name != "pyproject.toml":
                    found = p
                    break
            if found:
                files.append(found)
                break
    fix = False
    written = []
    env_cache = ctx.env.get("RUFF_CACHE_DIR")
    if env_cache:
        written.append(lexical(env_cache, cwd))
    if ctx.env.get("RUFF_OUTPUT_FILE"):
        written.append(lexical(ctx.env["RUFF_OUTPUT_FILE"], cwd))
    seen = set()
    while files:
        p = files.pop()
        if p in seen or len(seen) > 16:
            continue
        seen.add(p)
        if not _inside(ctx, p):
            return _ask(ctx, "GW762", label, f"its configuration {p} is outside the project "
                        "(it can name caches, reports and fixes anywhere)"), False, []
        try:
            data = _toml(p)
        except ConfigError as exc:
            return _ask(ctx, "GW761", label, str(exc)), False, []
        section = _ruff_section(p, data) or {}
        if not isinstance(section, dict):
            continue
        base = posixpath.dirname(p)
        lint = section.get("lint") if isinstance(section.get("lint"), dict) else {}
        if section.get("fix") is True or section.get("unsafe-fixes") is True or \
                lint.get("fix") is True:
            fix = True
        for key in ("cache-dir", "output-file"):
            if isinstance(section.get(key), str):
                written.append(lexical(section[key], base))
        ext = section.get("extend")
        if isinstance(ext, str):
            files.append(lexical(os.path.expanduser(ext), base))
    return None, fix, written


# --- pytest --------------------------------------------------------------------------------

_PYTEST_INIS = (("pytest.toml", "pytest"), (".pytest.toml", "pytest"),  # pytest >= 9 first
                ("pytest.ini", "pytest"), (".pytest.ini", "pytest"),
                ("pyproject.toml", None), ("tox.ini", "pytest"), ("setup.cfg", "tool:pytest"))
#: ini keys whose value is a file or directory pytest writes, or code it finds
_PYTEST_WRITE_KEYS = ("cache_dir", "log_file")
_PYTEST_PATH_KEYS = ("pythonpath", "testpaths", "confcutdir")


def _pytest_ini(path, section):
    """The ini options of one candidate file, or None when it is not pytest's."""
    base = posixpath.basename(path)
    if base in ("pytest.toml", ".pytest.toml") or (base.endswith(".toml") and
                                                   base != "pyproject.toml"):
        # pytest 9: its own TOML files (and a `-c` file ending .toml) read the [pytest]
        # table, native TOML values; pytest.toml is the configuration even when empty
        data = _toml(path)
        table = data.get("pytest") if isinstance(data, dict) else None
        tool = data.get("tool") if isinstance(data, dict) else None
        if table is None and isinstance(tool, dict) and base not in ("pytest.toml",
                                                                      ".pytest.toml"):
            table = tool.get("pytest")
            if isinstance(table, dict) and "ini_options" in table:
                table = table["ini_options"]
        if isinstance(table, dict):
            return table
        if table is not None:
            raise ConfigError(f"{path}: its [pytest] table is not a table")
        return {} if base in ("pytest.toml", ".pytest.toml") else None
    if base == "pyproject.toml":
        data = _toml(path)
        tool = (data or {}).get("tool") if isinstance(data, dict) else None
        if not isinstance(tool, dict):
            return None
        opts = tool.get("pytest")
        if isinstance(opts, dict) and "ini_options" in opts:
            opts = opts["ini_options"]
        return opts if isinstance(opts, dict) else None
    cp = _ini(path)
    if cp is None:
        return None
    if not cp.has_section(section):
        return {} if posixpath.basename(path) in ("pytest.ini", ".pytest.ini") else None
    return dict(cp.items(section))


def _pytest_find_ini(ctx, args_dirs, explicit):
    """(inifile, options, rootdir) the way pytest finds them."""
    if explicit:
        for name, section in _PYTEST_INIS:
            if posixpath.basename(explicit) == name:
                return explicit, _pytest_ini(explicit, section) or {}, posixpath.dirname(
                    explicit)
        return explicit, _pytest_ini(explicit, "pytest") or {}, posixpath.dirname(explicit)
    common = posixpath.commonpath(args_dirs) if args_dirs else ctx.cwd
    for d in _ancestors(common):
        for name, section in _PYTEST_INIS:
            p = posixpath.join(d, name)
            if os.path.isfile(p):
                opts = _pytest_ini(p, section)
                if opts is not None:
                    return p, opts, d
    for d in _ancestors(common):
        if os.path.isfile(posixpath.join(d, "setup.py")):
            return None, {}, d
    return None, {}, common


# What shlex.split (POSIX mode, no comments) treats specially besides its whitespace: a text
# without them, whose only white space is shlex's own, splits as str.split() splits it.
_SHLEX_SPECIAL = frozenset("'\"\\")
_SHLEX_BLANK = frozenset(" \t\r\n")


def _ini_list(value):
    if isinstance(value, list):
        return [str(v) for v in value]
    if not isinstance(value, str):
        return [str(value)]
    if not any(c in _SHLEX_SPECIAL or (c.isspace() and c not in _SHLEX_BLANK) for c in value):
        return value.split()  # the same words, without importing shlex (and re)
    import shlex

    try:
        return shlex.split(value)
    except ValueError:
        raise ConfigError(f"{value!r} cannot be split into words") from None


def pytest(ctx, spec, words, cwd, _depth=0):
    """pytest: the options against the allowlist; its configuration (the ini file found
    from the arguments upwards, PYTEST_ADDOPTS, addopts, -o) judged like the command line;
    an ini file, rootdir or conftest.py outside the project asks (GW762); the reports
    (--junitxml, --html, --cov-report TYPE:DEST, log_file) are writes; .pytest_cache in
    the rootdir and __pycache__ beside the collected tests are side outputs (GW763)."""
    label = "pytest"
    extra = []
    if _depth == 0 and ctx.env.get("PYTEST_ADDOPTS"):
        try:
            extra = _ini_list(ctx.env["PYTEST_ADDOPTS"])
        except ConfigError as exc:
            return _refuse(_ask(ctx, "GW761", label, f"PYTEST_ADDOPTS: {exc}"))
    all_words = extra + list(words)
    verdict, args, cands, written = generic(ctx, spec, all_words, label)
    if verdict is not None:
        if extra and verdict.code == "GW704":
            return _refuse(_ask(ctx, "GW761", label, f"PYTEST_ADDOPTS in the environment: "
                                f"{verdict.message}"))
        return _refuse(verdict)
    paths = [p.split("::", 1)[0] for p in args.positionals]
    cands = [c for c in cands if c not in args.positionals] + paths
    ini_opts = {}
    for o in args.options:
        if o.name in ("-o", "--override-ini") and o.value:
            k, eq, v = o.value.partition("=")
            if not eq:
                return _refuse(_ask(ctx, "GW704", f"pytest -o {o.value}", "not KEY=VALUE"))
            ini_opts[k.strip()] = v
        if o.name == "--cov-report" and o.value and ":" in o.value:
            dest = o.value.split(":", 1)[1]
            if dest:
                written.append(dest)
                cands.append(dest)
    if _depth:
        return None, cands, written, args
    if _any_outside(ctx, cands, cwd):
        return None, cands, written
    explicit = next((o.value for o in args.options if o.name in ("-c", "--config-file")
                     and o.value), None)
    arg_dirs = []
    for p in paths:
        lp = lexical(p, cwd)
        arg_dirs.append(lp if os.path.isdir(lp) else posixpath.dirname(lp))
    try:
        inifile, opts, rootdir = _pytest_find_ini(ctx, arg_dirs, explicit and lexical(
            explicit, cwd))
    except ConfigError as exc:
        return _refuse(_ask(ctx, "GW761", label, str(exc)))
    given_root = next((o.value for o in args.options if o.name == "--rootdir" and o.value),
                      None)
    if given_root:
        rootdir = lexical(given_root, cwd)
    if inifile and not _inside(ctx, inifile):
        return _refuse(_ask(ctx, "GW762", label, f"its configuration {inifile} is outside "
                            "the project (pytest looks for it from the arguments upwards): "
                            "its addopts, plugins and conftest.py would apply"))
    if not _inside(ctx, rootdir):
        return _refuse(_ask(ctx, "GW762", label, f"its rootdir {rootdir} is outside the "
                            "project: conftest.py files and the cache there apply"))
    if inifile is None:
        for d in _ancestors(posixpath.dirname(ctx.roots.project)):
            if os.path.exists(posixpath.join(d, "conftest.py")):
                return _refuse(_ask(ctx, "GW762", label, f"{d}/conftest.py lies above the "
                                    "project and the project has no pytest configuration to "
                                    "stop the search there: it would run"))
    opts = dict(opts or {})
    opts.update(ini_opts)
    if "addopts" in opts:
        try:
            add = _ini_list(opts["addopts"])
        except ConfigError as exc:
            return _refuse(_ask(ctx, "GW761", label, f"addopts in {inifile}: {exc}"))
        result = pytest(ctx, spec, add, rootdir, _depth=1)
        if result[0] is not None:
            return _refuse(_ask(ctx, "GW761", label, f"addopts in {inifile} "
                                f"({' '.join(add)[:80]!r}): {result[0].message}"))
        _v, acands, awritten, aargs = result
        cands += [lexical(c, rootdir) for c in acands]
        written += [lexical(w, rootdir) for w in awritten]
        args.options.extend(aargs.options)
    for key in _PYTEST_WRITE_KEYS:
        if isinstance(opts.get(key), str) and opts[key].strip():
            value = lexical(opts[key].strip(), rootdir)
            written.append(value)
            cands.append(value)
    for key in _PYTEST_PATH_KEYS:
        if key in opts:
            try:
                values = _ini_list(opts[key])
            except ConfigError as exc:
                return _refuse(_ask(ctx, "GW761", label, f"{key}: {exc}"))
            cands += [lexical(v, rootdir) for v in values]
    cache_off = any(o.name == "-p" and o.value in ("no:cacheprovider",) for o in args.options)
    later = []
    if not cache_off and "cache_dir" not in opts:
        later.append(lambda: _side_output(ctx, label, posixpath.join(rootdir, ".pytest_cache"),
                                          "its cache (.pytest_cache, in the rootdir)", cwd))
    # __pycache__ beside every test module collected: tests on the permission surface
    targets = paths or [posixpath.relpath(lexical(t, rootdir), cwd) for t in
                        _ini_list(opts.get("testpaths", "")) or []] or ["."]
    norecurse = opts.get("norecursedirs")
    dot_dirs = norecurse is not None and ".*" not in _ini_list(norecurse)
    surface = Surface(ctx, ("*.py",), dot_dirs=dot_dirs, follow=True)
    later.append(lambda: _surface_verdict(ctx, label, surface, targets, cwd, code="GW763"))
    return None, cands + written, written, _after(later)


# --- mypy, pyright, eslint, the JS test runners ---------------------------------------------------

_MYPY_INIS = (("mypy.ini", "mypy"), (".mypy.ini", "mypy"), ("pyproject.toml", None),
              ("setup.cfg", "mypy"))
_MYPY_WRITE_KEYS = ("cache_dir", "junit_xml", "any_exprs_report", "cobertura_xml_report",
                    "html_report", "linecount_report", "linecoverage_report",
                    "lineprecision_report", "txt_report", "xml_report", "lineprecision_report")


def mypy(ctx, spec, words, cwd):
    """mypy: the options against the allowlist (reports and the cache directory are
    writes); its configuration (--config-file, else mypy.ini, .mypy.ini, pyproject.toml,
    setup.cfg from the working directory up to the repository) judged: cache_dir and the
    reports are writes, plugins must be modules or files of the project,
    python_executable runs a program; .mypy_cache lands in the working directory."""
    label = "mypy"
    verdict, args, cands, written = generic(ctx, spec, words, label)
    if verdict is not None:
        return _refuse(verdict)
    if _any_outside(ctx, cands, cwd):
        return None, cands, written
    explicit = next((o.value for o in args.options if o.name == "--config-file" and o.value),
                    None)
    found = None
    options = {}
    try:
        if explicit:
            found = lexical(explicit, cwd)
            options = _mypy_section(found) or {}
        else:
            for d in _ancestors(cwd):
                for name, _section in _MYPY_INIS:
                    p = posixpath.join(d, name)
                    if os.path.isfile(p):
                        sec = _mypy_section(p)
                        if sec is not None:
                            found, options = p, sec
                            break
                if found or os.path.exists(posixpath.join(d, ".git")) or \
                        d == ctx.roots.project:
                    break
    except ConfigError as exc:
        return _refuse(_ask(ctx, "GW761", label, str(exc)))
    if found and not _inside(ctx, found):
        return _refuse(_ask(ctx, "GW762", label, f"its configuration {found} is outside the "
                            "project"))
    base = posixpath.dirname(found) if found else cwd
    if "python_executable" in options:
        return _refuse(_ask(ctx, "GW761", label, f"python_executable in {found} runs a "
                            "program"))
    for key in _MYPY_WRITE_KEYS:
        v = options.get(key)
        if isinstance(v, str) and v.strip():
            written.append(lexical(v.strip(), base))
    plugins = options.get("plugins")
    if plugins:
        items = plugins if isinstance(plugins, list) else str(plugins).replace(
            "\n", ",").split(",")
        for item in items:
            item = str(item).strip().split(":", 1)[0]
            if item.endswith(".py") or "/" in item:
                cands.append(lexical(item, base))
    later = []
    if "cache_dir" not in options and not any(o.name == "--cache-dir" for o in args.options):
        later.append(lambda: _side_output(ctx, label, ".mypy_cache", "its cache (.mypy_cache, "
                                          "in the working directory)", cwd))
    return None, cands + written, written, _after(later)


def _mypy_section(path):
    if posixpath.basename(path) == "pyproject.toml":
        data = _toml(path)
        tool = (data or {}).get("tool") if isinstance(data, dict) else None
        sec = tool.get("mypy") if isinstance(tool, dict) else None
        return sec if isinstance(sec, dict) else None
    cp = _ini(path)
    if cp is None or not cp.has_section("mypy"):
        return None if posixpath.basename(path) == "setup.cfg" else {}
    return dict(cp.items("mypy"))


def pyright(ctx, spec, words, cwd):
    """pyright reads and reports; --pythonpath names the interpreter it runs to find the
    search paths (a project file or a system program)."""
    verdict, args, cands, written = generic(ctx, spec, words)
    if verdict is not None:
        return _refuse(verdict)
    for o in args.options:
        if o.name == "--pythonpath" and o.value and not _program_ok(ctx, o.value, cwd):
            return _refuse(_ask(ctx, "GW704", f"pyright --pythonpath {o.value}", "runs an "
                                "interpreter that is neither a system program nor the "
                                "project's"))
    return None, cands, written


def eslint(ctx, spec, words, cwd):
    """eslint reads and reports; --fix rewrites the files it lints below its targets (any
    type its configuration lints: every file on the surface counts); --cache writes
    .eslintcache in the working directory; -o and --cache-location are writes; -c, -f and
    --rulesdir name code, which must be the project's."""
    label = "eslint"
    verdict, args, cands, written = generic(ctx, spec, words, label)
    if verdict is not None:
        return _refuse(verdict)
    for o in args.options:
        if o.name in ("-f", "--format") and o.value and not (
                o.value.startswith((".", "/")) or o.value.endswith((".js", ".cjs", ".mjs"))):
            cands.remove(o.value)  # a formatter's name (stylish, json...)
    later = []
    if args.has("--cache") and not any(o.name == "--cache-location" for o in args.options):
        later.append(lambda: _side_output(ctx, label, ".eslintcache", "its cache "
                                          "(.eslintcache)", cwd))
    targets = list(args.positionals) or ["."]
    if _any_outside(ctx, cands + targets, cwd):
        return None, cands, written
    later.append(lambda: _surface_verdict(ctx, label, Surface(
        ctx, _ESLINT_READS, skip=(".git", "node_modules"), writes=False), targets, cwd))
    if args.has("--fix"):
        # the file types it lints (and fixes) are its configuration's: any file counts
        later.append(lambda: _surface_verdict(ctx, "eslint --fix", Surface(
            ctx, ("*",), skip=(".git", "node_modules")), targets, cwd, secrets=False))
    return None, cands, written, _after(later)


#: the files eslint reads (and may show in its messages): JavaScript and its relatives
_ESLINT_READS = ("*.js", "*.jsx", "*.mjs", "*.cjs", "*.ts", "*.tsx", "*.mts", "*.cts", "*.vue",
                 "*.json", "*.jsonc", "*.json5", "*.md", "*.yaml", "*.yml")


def js_test(ctx, spec, words, cwd):
    """vitest, jest: the project's tests (its own code, the trust of `make test`); the
    options against the allowlist (reports, coverage and cache directories are writes,
    --config and the roots must be the project's); the filters are text."""
    label = spec.name
    words = list(words)
    sub = ""
    if spec.name == "vitest" and words and words[0] in ("run", "watch", "dev", "related",
                                                         "bench", "list"):
        sub = words.pop(0)
    verdict, args, cands, written = generic(ctx, spec, words, label, positionals=False)
    if verdict is not None:
        return _refuse(verdict)
    if sub == "related":
        cands += list(args.positionals)
    verdict = _secret_args(ctx, label, list(args.positionals), cwd)
    if verdict is not None:
        return _refuse(verdict)
    return None, cands, written


def venv(ctx, spec, words, cwd):
    """python -m venv DIR: creates an environment in DIR (a write inside the project; the
    bundled pip is installed from the standard library, nothing is downloaded)."""
    verdict, args, cands, written = generic(ctx, spec, words)
    if verdict is not None:
        return _refuse(verdict)
    if not args.positionals:
        return _refuse(ctx.ask(PHASE, "GW712", "venv without a directory"))
    return None, cands, written + list(args.positionals)


# --- tsc -------------------------------------------------------------------------------------

_TS_SOURCES = ("*.ts", "*.tsx", "*.mts", "*.cts")
_TS_OUT_KEYS = ("outDir", "outFile", "out", "declarationDir", "tsBuildInfoFile")


def _tsconfig(ctx, path, depth=0):
    """compilerOptions of a tsconfig with its `extends` chain (inside the project)."""
    data = _jsonc(path)
    if data is None:
        raise ConfigError(f"{path} does not exist")
    opts = {}
    base = posixpath.dirname(path)
    ext = data.get("extends")
    for e in ([ext] if isinstance(ext, str) else ext if isinstance(ext, list) else []):
        if depth > 8 or not isinstance(e, str):
            raise ConfigError(f"{path}: `extends` nests too deeply")
        if e.startswith((".", "/")):
            target = lexical(e, base)
        else:
            target = posixpath.join(_npm_prefix(ctx, base), "node_modules", e)
        if os.path.isdir(target):
            target = posixpath.join(target, "tsconfig.json")
        elif not target.endswith(".json"):
            target += ".json"
        if not _inside(ctx, target):
            raise _Outside(f"{path} extends {target}, outside the project")
        parent, pbase = _tsconfig(ctx, target, depth + 1)
        for k, v in parent.items():
            if k in _TS_OUT_KEYS and isinstance(v, str):
                v = lexical(v, pbase)
            opts[k] = v
    own = data.get("compilerOptions")
    if isinstance(own, dict):
        for k, v in own.items():
            if k in _TS_OUT_KEYS and isinstance(v, str):
                v = lexical(v, base)
            opts[k] = v
    return opts, base


class _Outside(ConfigError):
    pass


def tsc(ctx, spec, words, cwd):
    """tsc reads options its own way: one or two dashes, names in any case (--OUTDIR is
    --outDir), the value in the next word, `@file` reads more arguments from a file. Every
    word that is not an option is a path. Its tsconfig.json (-p, else the nearest one from
    the working directory up) is judged too: its output directories are writes, an
    `extends` outside the project asks, and without an output directory the .js beside
    each .ts on the permission surface is a side output."""
    writes_opt = {w.lstrip("-").lower() for w in spec.write_flags}
    cands = []
    written = []
    files = []
    project = None
    no_emit = None
    i = 0
    while i < len(words):
        w = words[i]
        i += 1
        if w.startswith("-") and len(w) > 1:
            name = w[2:] if w.startswith("--") else w[1:]
            name = name.lower()
            if "=" in name:
                return _refuse(_ask(ctx, "GW704", f"tsc {w}", "tsc takes no --option=value"))
            if name in ("p", "project") and i < len(words):
                if words[i] == "-" or lexical(words[i], cwd).startswith(("/dev/", "/proc/")):
                    return _refuse(ctx.ask(PHASE, "GW710", f"tsc {w} {words[i]}: reads its "
                                           "configuration from standard input or a device"))
                project = words[i]
            if name == "noemit":
                no_emit = not (i < len(words) and words[i] == "false")
            if name in ("b", "build"):
                return _refuse(_ask(ctx, "GW704", f"tsc {w}", "builds every referenced "
                                    "project (their configurations are not judged here)"))
            if name in writes_opt:
                if i >= len(words):
                    return _refuse(_ask(ctx, "GW704", f"tsc {w}", "writes a file it does "
                                        "not name"))
                written.append(words[i])
            continue
        cands.append(w)
        files.append(w)
    cands = cands + written
    if _any_outside(ctx, cands, cwd):
        return None, cands, written
    if files and project is None:
        return None, cands, written  # tsc FILES ignores tsconfig.json
    try:
        if project is not None:
            path = lexical(project, cwd)
            if os.path.isdir(path):
                path = posixpath.join(path, "tsconfig.json")
        else:
            path = None
            for d in _ancestors(cwd):
                if os.path.isfile(posixpath.join(d, "tsconfig.json")):
                    path = posixpath.join(d, "tsconfig.json")
                    break
        if path is None or not os.path.exists(path):
            return None, cands, written  # no configuration: tsc stops or compiles nothing
        if not _inside(ctx, path):
            return _refuse(_ask(ctx, "GW762", "tsc", f"its configuration {path} is outside "
                                "the project"))
        opts, base = _tsconfig(ctx, path)
    except _Outside as exc:
        return _refuse(_ask(ctx, "GW762", "tsc", str(exc)))
    except ConfigError as exc:
        return _refuse(_ask(ctx, "GW761", "tsc", str(exc)))
    if no_emit is None:
        no_emit = opts.get("noEmit") is True
    outs = [opts[k] for k in _TS_OUT_KEYS if isinstance(opts.get(k), str)]
    if no_emit:
        outs = [opts[k] for k in ("tsBuildInfoFile",) if isinstance(opts.get(k), str)]
    written += outs
    cands += outs
    if not no_emit and not any(isinstance(opts.get(k), str) for k in ("outDir", "outFile",
                                                                       "out")):
        surface = Surface(ctx, _TS_SOURCES, skip=("node_modules",))
        return None, cands, written, _after([lambda: _surface_verdict(
            ctx, "tsc", surface, [base], cwd, code="GW763")])
    return None, cands, written
