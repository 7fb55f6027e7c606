"""Test-environment managers' listings: `tox -l` / `tox list` and `nox -l`. Listing the
environments a project defines changes nothing, unless the tool first builds itself an
environment to run in, which installs packages from the network (GW764):

- tox provisions a newer tox (and the plugins the configuration `requires`) into
  .tox/.tox when its configuration names `requires` or a `min_version`: `tox -l` with
  `requires = tox>=4.99` ran `pip install` (tox 4.67, measured);
- nox installs the dependencies a noxfile declares in an inline script block (`# ///
  script`, PEP 723) into .nox/_nox_script_mode before it reads the file (nox 2026.10,
  measured), unless --script-mode none.

Running the environments (`tox`, `tox -e py312`, `nox -s tests`) creates them and installs
their dependencies: it asks (GW764). `nox -l` imports the noxfile, which is the project's
code: it runs only as the repository's HEAD commit holds it (GW782), like manage.py.

Part of gateway.validator.checks.buildtools (see its docstring)."""

import os
import posixpath

from gateway.validator.checks.buildtools._shared import (
    ConfigError,
    _ask,
    _ini,
    _read,
    _refuse,
    _toml,
    generic,
)

_TOX_LISTS = {"-l", "--listenvs", "-a", "--listenvs-all"}
_TOX_QUIET = {"--version", "-h", "--help"}
#: configuration keys that make tox provision itself (tox 4: `requires`, `min_version`,
#: its alias `minversion`)
_TOX_PROVISION = {"requires", "min_version", "minversion"}


def _tox_files(cwd):
    """The files tox 4 may take its configuration from, from the working directory up to
    the root (it searches the parents when the directory has none)."""
    out = []
    d = cwd
    while True:
        out += [posixpath.join(d, n) for n in ("tox.ini", "setup.cfg", "pyproject.toml",
                                               "tox.toml")]
        parent = posixpath.dirname(d)
        if parent == d:
            return out
        d = parent


def _ini_provisions(cp, section):
    if cp is None or not cp.has_section(section):
        return ""
    keys = {k.strip().lower().replace("-", "_") for k in cp.options(section)}
    found = sorted(keys & _TOX_PROVISION)
    return found[0] if found else ""


def _tox_problem(cwd):
    """Why listing would provision (a key that names what tox installs first), or ""."""
    for path in _tox_files(cwd):
        name = posixpath.basename(path)
        if not os.path.lexists(path):
            continue
        if name == "tox.ini":
            key = _ini_provisions(_ini(path), "tox")
        elif name == "setup.cfg":
            key = _ini_provisions(_ini(path), "tox:tox")
        else:
            data = _toml(path) or {}
            table = data if name == "tox.toml" else (data.get("tool") or {}).get("tox") or {}
            if not isinstance(table, dict):
                raise ConfigError(f"{path}: [tool.tox] is not a table")
            keys = {str(k).lower().replace("-", "_") for k in table}
            key = next(iter(sorted(keys & _TOX_PROVISION)), "")
            legacy = table.get("legacy_tox_ini")
            if not key and legacy is not None:
                if not isinstance(legacy, str):
                    raise ConfigError(f"{path}: legacy_tox_ini is not a string")
                import configparser

                cp = configparser.RawConfigParser(strict=False)
                try:
                    cp.read_string(legacy, source=path)
                except (configparser.Error, ValueError) as exc:
                    raise ConfigError(f"{path}: legacy_tox_ini cannot be parsed ({exc})") \
                        from None
                key = _ini_provisions(cp, "tox")
        if key:
            return f"{path} sets `{key}`: tox first installs itself and those packages " \
                "from the network into .tox/.tox (provisioning), then lists"
    return ""


def tox(ctx, spec, words, cwd):
    """`tox -l` / `tox -a` / `tox list`: the environments the configuration defines, read
    only when the configuration does not make tox provision itself. Any other form runs
    environments (creates them, installs their dependencies): GW764."""
    verdict, args, cands, written = generic(ctx, spec, words, positionals=False)
    if verdict is not None:
        return _refuse(verdict)
    names = {o.name for o in args.options}
    listing = spec.name != "tox" or names & _TOX_LISTS
    if not listing and not (names & _TOX_QUIET):
        return _refuse(_ask(ctx, "GW764", "tox", "runs the project's test environments: it "
                            "creates them and installs their dependencies from the network "
                            "(`tox -l` lists them)", rule="catalogue:tox"))
    if listing:
        try:
            why = _tox_problem(cwd)
        except ConfigError as exc:
            return _refuse(_ask(ctx, "GW761", "tox", f"{exc}: what tox installs before it "
                                "lists cannot be known", rule="catalogue:tox"))
        if why:
            return _refuse(_ask(ctx, "GW764", "tox -l", why, rule="catalogue:tox"))
    return None, cands, written


def nox(ctx, spec, words, cwd):
    """`nox -l`: the sessions the noxfile defines. nox imports the noxfile (the project's
    code: only as the HEAD commit holds it, GW782) and first installs the dependencies of
    its inline script block (GW764)."""
    verdict, args, cands, written = generic(ctx, spec, words, positionals=False)
    if verdict is not None:
        return _refuse(verdict)
    opts = {o.name: o.value for o in args.options}
    if not ({"-l", "--list", "--list-sessions"} & set(opts)):
        if {"--version", "-h", "--help"} & set(opts):
            return None, cands, written
        return _refuse(_ask(ctx, "GW764", "nox", "runs the noxfile's sessions: it creates "
                            "their environments and installs their dependencies from the "
                            "network (`nox -l` lists them)", rule="catalogue:nox"))
    noxfile = next((opts[k] for k in ("-f", "--noxfile") if opts.get(k)), "noxfile.py")
    if "$" in noxfile or noxfile.startswith("~"):
        # nox expands variables in the name (os.path.expandvars)
        return _refuse(_ask(ctx, "GW704", "nox", f"the noxfile {noxfile!r} is named through "
                            "a variable nox expands", rule="catalogue:nox"))
    path = posixpath.join(cwd, noxfile)
    from gateway.paths import resolve

    res = resolve(noxfile, cwd, ctx.roots)
    if res.status != "inside" or os.path.islink(res.lex) or not os.path.isfile(res.real):
        return _refuse(_ask(ctx, "GW601", "nox", f"{noxfile!r} is not a regular file of the "
                            "project (nox imports it: it is the project's code only as the "
                            "project's own file)", rule="catalogue:nox"))
    from gateway.validator import trusted_code

    why = trusted_code.unseen(res.real, ctx.roots.project_real)
    if why is not None:
        return _refuse(ctx.ask(trusted_code.PHASE, trusted_code.CODE,
                               f"nox imports {noxfile!r}, but {why}: it is not code a human "
                               "has seen (it runs unasked only as the repository's HEAD "
                               "commit holds it). Read it, then approve it",
                               rule="trusted_code:noxfile"))
    script_mode = ctx.env.get("NOX_SCRIPT_MODE", "") or opts.get("--script-mode") or ""
    if script_mode != "none":
        text = _read(path)
        if text is None:
            return _refuse(_ask(ctx, "GW761", "nox", f"{noxfile} cannot be read",
                                rule="catalogue:nox"))
        if any(line.rstrip("\r").startswith("# ///") for line in text.splitlines()):
            return _refuse(_ask(ctx, "GW764", "nox -l", f"{noxfile} declares an inline "
                                "script block (# /// script): nox first installs its "
                                "dependencies from the network into .nox/_nox_script_mode "
                                "(--script-mode none lists without them)",
                                rule="catalogue:nox"))
    return None, cands + [noxfile], written
