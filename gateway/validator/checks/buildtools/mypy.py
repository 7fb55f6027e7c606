"""mypy and pyright: their configuration files, caches and reports.

Part of gateway.validator.checks.buildtools (see its docstring)."""

import os
import posixpath

from gateway.paths import lexical
from gateway.validator.checks.buildtools._shared import (
    ConfigError,
    _after,
    _ancestors,
    _any_outside,
    _ask,
    _ini,
    _inside,
    _program_ok,
    _refuse,
    _side_output,
    _toml,
    generic,
)

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
