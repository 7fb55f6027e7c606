"""go: the go command (build, test, run, install, vet, generate, tool cover, work), its flags,
GOFLAGS and the go env file, the binaries it writes, go generate's directives, gofmt.

Part of gateway.validator.checks.buildtools (see its docstring)."""

import os
import posixpath

from gateway.paths import is_protected, is_secret, is_within, lexical
from gateway.validator.checks._common import PHASE
from gateway.validator.checks.buildtools._shared import (
    ConfigError,
    Surface,
    _after,
    _ancestors,
    _ask,
    _home,
    _inside,
    _read,
    _refuse,
    _secret_args,
    _shared_unsafe,
    _side_output,
    _surface_verdict,
    _toml,
    generic,
)

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
        if "GOFLAGS" in getattr(ctx.env, "given", ()):
            return value, "GOFLAGS given before the command"
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
        pgo = next((v for n, v, _w in gflags if n == "-pgo" and v
                    and v not in ("auto", "off", "default")), None)
        if pgo is not None:
            return _ask(ctx, "GW761", label, f"{where} holds -pgo={pgo}: a file go reads "
                        "(give it on the command line, where its path is judged)"), [], None
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
    # -pgo=FILE reads a profile: a path, judged as every read is (red team: a secret was
    # taken as the profile); auto/off/default name none
    for name, value, _word in flags:
        if name == "-pgo" and value and value not in ("auto", "off", "default"):
            cands.append(value)
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
    return None, cands, written, _after([lambda: _surface_verdict(ctx, f"{spec.name} -w",
                                                                  surface, targets, cwd)])


def go_clean(ctx, spec, words, cwd):
    """go clean -testcache: the cached test results expire (one file in GOCACHE, as
    `go test -count=1` bypasses them). Without -testcache go clean removes files: the
    package's binaries and test binaries in the project, with -i the installed ones, with
    -cache, -modcache or -fuzzcache whole caches outside it (the entry's allowlist asks)."""
    label = spec.name
    flags, pos, _ = _go_words(spec, words)
    verdict, _w, _o = _go_flags_verdict(ctx, spec, flags, label)
    if verdict is not None:
        return _refuse(verdict)
    if pos:
        return _refuse(_ask(ctx, "GW704", f"{label} {pos[0]}", "removes the files it builds "
                            "for the packages it names"))
    if not any(name == "-testcache" for name, _v, _word in flags):
        return _refuse(_ask(ctx, "GW704", label, "without -testcache it removes the binaries "
                            "and files go build left in the package's directory"))
    verdict, _w, _o = _go_environment(ctx, spec, label, cwd)
    if verdict is not None:
        return _refuse(verdict)
    return None, [], []


def go_mod_download(ctx, spec, words, cwd):
    """go mod download (and go mod tidy -diff): the modules go.mod requires, at the versions
    it pins, each checked against go.sum, into GOMODCACHE; no code runs (what `go build`
    fetches on its own). A module@version argument, a module without a go.sum, and go mod
    tidy without -diff (it adds a module for an import go.mod does not pin, at a version the
    network chooses, whose code later builds run) ask (GW764)."""
    label = spec.name
    sub = label.split()[-1]
    flags, pos, _ = _go_words(spec, words)
    verdict, _w, _o = _go_flags_verdict(ctx, spec, flags, label)
    if verdict is not None:
        return _refuse(verdict)
    if sub == "tidy" and not any(name == "-diff" for name, _v, _word in flags):
        return _refuse(_ask(ctx, "GW764", label, "adds to go.mod a module for every import it "
                            "does not pin yet, at a version the network chooses, and later "
                            "builds and tests run that module's code (-diff only prints)",
                            rule=f"catalogue:{label}"))
    for p in pos:
        if "@" in p or sub == "tidy":
            return _refuse(_ask(ctx, "GW764", f"{label} {p}", "downloads a module at a "
                                "version go.mod does not pin", rule=f"catalogue:{label}"))
    root, _mod = _go_module(cwd, ctx.roots.project)
    if root is None or not _inside(ctx, root):
        return _refuse(_ask(ctx, "GW764", label, "no go.mod of the project above the working "
                            "directory: what it downloads is not what the project pins"))
    gomod = _read(posixpath.join(root, "go.mod")) or ""
    requires = any(line.split()[:1] == ["require"] for line in gomod.splitlines())
    sums = _read(posixpath.join(root, "go.sum"))
    if requires and not sums:
        return _refuse(_ask(ctx, "GW764", label, f"{posixpath.join(root, 'go.sum')} is "
                            "missing or empty: what it downloads is checked against no "
                            "pinned checksum"))
    verdict, _w, _o = _go_environment(ctx, spec, label, cwd)
    if verdict is not None:
        return _refuse(verdict)
    return None, [], []


# --- Go linters: golangci-lint, staticcheck, govulncheck; goimports ---------------------------

#: golangci-lint's configuration file names, looked for in the working directory, every
#: directory above it, then the home directory (the first found is used)
_GOLANGCI_CONFIGS = (".golangci.yml", ".golangci.yaml", ".golangci.toml", ".golangci.json")
_GOLANGCI_DOWNLOAD_OK = ("readonly", "vendor", "")


def _golangci_config(ctx, label, args, cwd):
    """(verdict, path) of the configuration golangci-lint reads: -c/--config's file, else the
    first of its names in the working directory and above, then in the home directory; one
    outside the project asks (GW761: it picks the linters, their settings and plugins)."""
    if args.has("--no-config"):
        return None, None
    named = args.values("-c", "--config")
    if named:
        return None, lexical(named[-1], cwd)  # a path candidate: phase 5 judges it
    dirs = list(_ancestors(cwd))
    home = _home(ctx)
    if home:
        dirs.append(home)
    for d in dirs:
        for name in _GOLANGCI_CONFIGS:
            p = posixpath.join(d, name)
            if os.path.lexists(p):
                if not _inside(ctx, p):
                    return _ask(ctx, "GW761", label, f"it reads its configuration from {p}, "
                                "outside the project (it chooses the linters, their settings "
                                "and plugins)"), None
                return None, p
    return None, None


def _golangci_file_key(keys) -> bool:
    """A setting whose value is a file golangci-lint reads or writes: an output's path
    (output.formats), a `*-path` / `*-file` setting (goheader's template-path, a rules
    file); not the regular expressions of file names in exclusion rules, not path-prefix."""
    last = keys[-1]
    if last == "path-prefix" or any(k in ("exclude-rules", "exclusions", "exclude-files",
                                          "exclude-dirs", "skip-files", "skip-dirs")
                                    for k in keys):
        return False
    return (last == "path" and "output" in keys) or last.endswith(("-path", "-file"))


def _golangci_settings_problem(ctx, data, path, cwd):
    """Why golangci-lint's configuration (parsed) is not safe to run without a human, or "":
    a plugin (custom linters: a Go plugin or module it loads and runs), modules fetched
    unpinned (modules-download-mode), a file named outside the project or on the
    permission surface (an output path, a template or rules file it reads)."""
    base = posixpath.dirname(path)
    stack = [((), data)]
    seen = 0
    while stack:
        keys, node = stack.pop()
        seen += 1
        if seen > 20000:
            return "it is too large to judge"
        if isinstance(node, dict):
            for k, v in node.items():
                k = str(k)
                if k in ("custom", "plugins") or k.startswith("custom"):
                    return f"{'.'.join(keys + (k,))}: a linter plugin it loads and runs"
                if k == "modules-download-mode" and str(v) not in _GOLANGCI_DOWNLOAD_OK:
                    return (f"{'.'.join(keys + (k,))}: {v}: modules the project does not pin "
                            "are fetched")
                stack.append((keys + (k,), v))
        elif isinstance(node, list):
            stack.extend((keys, v) for v in node)
        elif isinstance(node, str) and keys and _golangci_file_key(keys):
            if node in ("stdout", "stderr", ""):
                continue
            if node.startswith(("~", "$")):
                return f"{'.'.join(keys)}: {node!r} is a file outside the project"
            p = lexical(node, base)
            secret = is_secret((p, p), ctx.policy)
            if secret:
                return f"{'.'.join(keys)}: {node!r} is a secret file ({secret})"
            if not _inside(ctx, p):
                return f"{'.'.join(keys)}: {node!r} is outside the project"
            prot = is_protected((p, p), ctx.roots, ctx.policy)
            if prot:
                return f"{'.'.join(keys)}: {node!r} is on the permission surface ({prot})"
    return ""


def _golangci_load(path):
    text = _read(path)
    if text is None:
        raise ConfigError(f"{path} cannot be read")
    if not text.strip():
        return {}
    if path.endswith(".toml"):
        return _toml(path) or {}
    if path.endswith(".json"):
        from gateway import _fastjson

        try:
            return _fastjson.loads(text)
        except (ValueError, RecursionError) as exc:
            raise ConfigError(f"{path} is not valid JSON ({exc})") from None
    import yaml

    try:
        return yaml.safe_load(text)
    except (yaml.YAMLError, RecursionError, ValueError) as exc:
        raise ConfigError(f"{path} is not valid YAML ({str(exc).splitlines()[0]})") from None


def golangci_lint(ctx, spec, words, cwd):
    """golangci-lint run: loads the packages (go list: GOFLAGS and a go.work above are
    judged as for go) and runs the linters its configuration enables; that configuration
    is found in the working directory, every directory above it and the home directory: one
    outside the project asks, and inside it a plugin, unpinned module downloads or a file
    named outside the project ask (GW761). --fix rewrites the .go files of the packages, as
    a formatter does (the project's linters and their settings choose the text)."""
    label = spec.name
    verdict, args, cands, written = generic(ctx, spec, words)
    if verdict is not None:
        return _refuse(verdict)
    mode = args.values("--modules-download-mode")
    if mode and mode[-1] not in _GOLANGCI_DOWNLOAD_OK:
        return _refuse(_ask(ctx, "GW764", f"{label} --modules-download-mode={mode[-1]}",
                            "fetches modules the project does not pin"))
    verdict, path = _golangci_config(ctx, label, args, cwd)
    if verdict is not None:
        return _refuse(verdict)
    if path is not None and _inside(ctx, path):
        try:
            data = _golangci_load(path)
        except ConfigError as exc:
            return _refuse(_ask(ctx, "GW761", label, str(exc)))
        why = _golangci_settings_problem(ctx, data, path, cwd)
        if why:
            return _refuse(_ask(ctx, "GW761", label, f"its configuration {path}: {why}"))
    elif path is not None:
        cands = cands + [path]
    go_spec = ctx.policy.command("go")
    build = go_spec.subcommands["build"] if go_spec and go_spec.subcommands else None
    if build is not None:
        verdict, _w, _o = _go_environment(ctx, build, label, cwd)
        if verdict is not None:
            return _refuse(verdict)
    later = []
    if args.has("--fix"):
        targets = [p[:-3].rstrip("/") or "." if p.endswith("...") else p
                   for p in args.positionals] or ["."]
        surface = Surface(ctx, ("*.go",), skip=("testdata", "vendor"), dot_dirs=False,
                          follow=False)
        later.append(lambda: _surface_verdict(ctx, f"{label} --fix", surface, targets, cwd))
    pkgs = [p[:-3].rstrip("/") or "." if p.endswith("...") else p for p in args.positionals]
    return None, [c for c in cands if c not in args.positionals] + pkgs, written, _after(later)


def go_analyzer(ctx, spec, words, cwd):
    """staticcheck and govulncheck: they load the packages they are given (go list: GOFLAGS
    and a go.work above are judged as for go) and print findings. staticcheck's
    staticcheck.conf only selects checks; govulncheck asks the Go vulnerability database
    (vuln.go.dev, or $GOVULNDB) which known vulnerabilities affect the modules go.mod pins: a
    network read, nothing is sent but the requests for the database's own files."""
    label = spec.name
    verdict, flags_pos = None, _go_words(spec, words)
    flags, pos, _ = flags_pos
    verdict, written, _o = _go_flags_verdict(ctx, spec, flags, label)
    if verdict is not None:
        return _refuse(verdict)
    for name, value, _w in flags:
        if name == "-mode" and value not in ("source", None):
            return _refuse(_ask(ctx, "GW704", f"{label} -mode={value}", "reads a binary or "
                                "writes a blob; only the source mode is modelled"))
    go_spec = ctx.policy.command("go")
    build = go_spec.subcommands["build"] if go_spec and go_spec.subcommands else None
    if build is not None:
        verdict, _w, _o = _go_environment(ctx, build, label, cwd)
        if verdict is not None:
            return _refuse(verdict)
    for p in pos:
        if "@" in p:
            return _refuse(_ask(ctx, "GW764", f"{label} {p}", "downloads a module to analyse "
                                "it", rule=f"catalogue:{label}"))
    cands = [p[:-3].rstrip("/") or "." if p.endswith("...") else p for p in pos
             if p.startswith((".", "/")) or p.endswith(".go")]
    return None, cands + [v for _n, v in written], [v for _n, v in written]
