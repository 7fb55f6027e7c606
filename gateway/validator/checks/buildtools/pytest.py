"""pytest: its configuration files (pytest.ini, pyproject.toml, tox.ini, setup.cfg),
PYTEST_ADDOPTS and addopts, the rootdir's cache and the collected tests' __pycache__.

Part of gateway.validator.checks.buildtools (see its docstring)."""

import os
import posixpath

from gateway.paths import lexical
from gateway.validator.checks.buildtools._shared import (
    ConfigError,
    Surface,
    _after,
    _ancestors,
    _any_outside,
    _ask,
    _ini,
    _inside,
    _refuse,
    _side_output,
    _surface_verdict,
    _toml,
    generic,
)

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


def settings_module(ctx, module, cwd):
    """Why the Django settings module `module` (DJANGO_SETTINGS_MODULE, pytest --ds), which
    pytest-django imports, is not the project's own code as HEAD holds it; None when it is.
    Its dotted name is looked up from the working directory and the project's root (where
    pytest-django and manage.py put the project on sys.path): it must be found, as a file
    inside the project, and that file and every package __init__.py it imports on the way
    must be what the repository's HEAD commit holds (gateway.validator.trusted_code, the
    trust manage.py has). A name of the standard library (`antigravity`, `this`) or one
    found nowhere in the project (an installed package's module) asks."""
    import sys

    from gateway.validator import trusted_code

    parts = module.split(".")
    if not all(p.isidentifier() for p in parts):
        return f"{module!r} is not a dotted module name"
    if parts[0] in getattr(sys, "stdlib_module_names", ()):
        return f"{module!r} is a module of Python's standard library, not the project's"
    found = False
    for base in dict.fromkeys((cwd, ctx.roots.project)):
        files = [posixpath.join(base, *parts[:k], "__init__.py") for k in range(1, len(parts))]
        leaf = posixpath.join(base, *parts)
        if os.path.isfile(leaf + ".py"):
            files.append(leaf + ".py")
        elif os.path.isfile(posixpath.join(leaf, "__init__.py")):
            files.append(posixpath.join(leaf, "__init__.py"))
        else:
            continue
        found = True
        for f in files:
            if not os.path.lexists(f):
                continue  # a namespace package: no code runs for it
            if not _inside(ctx, f) or os.path.islink(f) or not os.path.isfile(f):
                return f"{module!r} is {f}, which is not a regular file of the project"
            why = trusted_code.unseen(os.path.realpath(f), ctx.roots.project_real)
            if why is not None:
                return f"{module!r} runs {f}, but {why}: it is not code a human has seen"
    if not found:
        return f"{module!r} is not a module file of the project (from {cwd} or the " \
            "project's root): it would be imported from wherever Python finds it"
    return None


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
    # the Django settings module pytest-django imports: --ds, else the environment's
    given_ds = [o.value for o in args.options if o.name == "--ds"]
    if given_ds and given_ds[-1]:
        why = settings_module(ctx, given_ds[-1], cwd)
        if why:
            return _refuse(_ask(ctx, "GW760", f"{label} --ds", why + " (pytest-django "
                                "imports the settings module, running its code)",
                                rule="catalogue:pytest:--ds"))
    elif _depth == 0 and ctx.env.get("DJANGO_SETTINGS_MODULE"):
        why = settings_module(ctx, ctx.env["DJANGO_SETTINGS_MODULE"], cwd)
        if why:
            return _refuse(_ask(ctx, "GW761", label, "DJANGO_SETTINGS_MODULE: " + why +
                                " (pytest-django imports the settings module, running its "
                                "code)"))
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
