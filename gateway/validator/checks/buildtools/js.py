"""JavaScript and TypeScript tools: eslint, the JS test runners (vitest, jest ...), tsc and
tsconfig.json's outputs.

Part of gateway.validator.checks.buildtools (see its docstring)."""

import os
import posixpath

from gateway.paths import lexical
from gateway.validator.checks._common import PHASE
from gateway.validator.checks.buildtools._shared import (
    ConfigError,
    Surface,
    _after,
    _ancestors,
    _any_outside,
    _ask,
    _inside,
    _jsonc,
    _refuse,
    _secret_args,
    _side_output,
    _surface_verdict,
    generic,
)
from gateway.validator.checks.buildtools.npm import _npm_prefix


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


# --- tsc -------------------------------------------------------------------------------------

_TS_SOURCES = ("*.ts", "*.tsx", "*.mts", "*.cts")
_TS_OUT_KEYS = ("outDir", "outFile", "out", "declarationDir", "tsBuildInfoFile",
                "generateTrace")
#: compilerOptions that make `tsc --noEmit` write: the build info (incremental, composite,
#: tsBuildInfoFile) and a trace directory (generateTrace)
_TS_BUILD_INFO = ("incremental", "composite", "tsBuildInfoFile", "generateTrace")
#: tsc's options (lower case) that, with --noEmit, write nothing: plan mode's read-only
#: form (any other, --incremental, --generateTrace, --init, --watch..., is not claimed)
_TS_QUIET = frozenset(("noemit", "p", "project", "pretty", "strict", "skiplibcheck",
                       "listfiles", "listfilesonly", "explainfiles", "extendeddiagnostics",
                       "diagnostics", "noerrortruncation", "version", "v", "help", "h",
                       "all"))


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
    quiet = True  # every option is one that writes nothing with --noEmit (_TS_QUIET)
    i = 0
    while i < len(words):
        w = words[i]
        i += 1
        if w.startswith("-") and len(w) > 1:
            name = w[2:] if w.startswith("--") else w[1:]
            name = name.lower()
            if name not in _TS_QUIET:
                quiet = False
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
        if no_emit and quiet and not written:
            ctx.note_readonly()  # checks the files, writes nothing (no configuration read)
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
            if no_emit and quiet and not written:
                ctx.note_readonly()
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
    if no_emit and quiet and not written and not any(opts.get(k) for k in _TS_BUILD_INFO):
        # --noEmit still writes the build info under incremental/composite (TypeScript
        # 4.0+: tsconfig.tsbuildinfo beside the configuration or in outDir) and a trace
        ctx.note_readonly()
    outs = [opts[k] for k in _TS_OUT_KEYS if isinstance(opts.get(k), str)]
    if no_emit:
        outs = [opts[k] for k in ("tsBuildInfoFile", "generateTrace")
                if isinstance(opts.get(k), str)]
    written += outs
    cands += outs
    if not no_emit and not any(isinstance(opts.get(k), str) for k in ("outDir", "outFile",
                                                                       "out")):
        surface = Surface(ctx, _TS_SOURCES, skip=("node_modules",))
        return None, cands, written, _after([lambda: _surface_verdict(
            ctx, "tsc", surface, [base], cwd, code="GW763")])
    return None, cands, written
