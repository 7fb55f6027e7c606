"""Formatters and fixers (ruff, black, prettier, rustfmt, isort ...): the files of their type
below the directories they are given, ruff's configuration.

Part of gateway.validator.checks.buildtools (see its docstring)."""

import os
import posixpath

from gateway.paths import lexical
from gateway.validator.checks._common import PHASE
from gateway.validator.checks.buildtools._shared import (
    ConfigError,
    Surface,
    _ancestors,
    _any_outside,
    _ask,
    _inside,
    _refuse,
    _surface_verdict,
    _toml,
    generic,
)

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
