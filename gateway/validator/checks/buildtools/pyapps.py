"""Python application CLIs that run the project's own code: Flask's `flask` (the app the
--app option names, the dev server, Flask-Migrate's read-only `db` queries) and Alembic's
read-only queries (the migration environment, env.py, is the project's code: the trust of
its test runner). What they load must be the project's: the --app module a file of the
project, Alembic's script_location and prepend_sys_path inside the project.

Part of gateway.validator.checks.buildtools (see its docstring)."""

import os
import posixpath

from gateway.paths import is_within, lexical
from gateway.validator.checks.buildtools._shared import (
    ConfigError,
    _ask,
    _ini,
    _refuse,
    generic,
)


def _global(ctx, *names):
    """The value of the tool's global option among `names` (before the subcommand), or
    None; phase 7C keeps those words in ctx.global_words."""
    words = list(getattr(ctx, "global_words", ()) or ())
    value = None
    for k, w in enumerate(words):
        name, eq, v = w.partition("=")
        if name in names:
            value = v if eq else (words[k + 1] if k + 1 < len(words) else "")
        elif any(w.startswith(n) and len(w) > len(n) and not n.startswith("--")
                 for n in names):
            value = w[2:]
    return value


def _project_file(ctx, path) -> bool:
    real = os.path.realpath(path)
    return (os.path.isfile(real) and is_within(lexical(path, ctx.cwd), ctx.roots.project)
            and is_within(real, ctx.roots.project_real))


def _dotenv_keys(ctx, cwd):
    """{key: file} of the variables the dotenv files Flask loads define: .flaskenv and .env
    from the working directory up to the project's root (python-dotenv looks upwards), and
    the --env-file file."""
    from gateway.validator.checks.buildtools._shared import _read

    files = []
    d = cwd
    while True:
        files += [posixpath.join(d, ".flaskenv"), posixpath.join(d, ".env")]
        if d == ctx.roots.project or not is_within(d, ctx.roots.project):
            break
        d = posixpath.dirname(d)
    extra = _global(ctx, "--env-file", "-e")
    if extra:
        files.append(lexical(extra, cwd))
    keys = {}
    for f in files:
        if not os.path.lexists(f):
            continue
        text = _read(f)
        if text is None:  # a FIFO, a directory, too big, unreadable: fail closed
            keys.setdefault("", f)
            continue
        for line in (text or "").splitlines():
            line = line.strip()
            if line.startswith("export "):
                line = line[7:].strip()
            if "=" in line and not line.startswith("#"):
                keys.setdefault(line.split("=", 1)[0].strip(), f)
    return keys


def _flask_app_problem(ctx, cwd, sub):
    """Why the app --app (or FLASK_APP) names is not a module of the project, or ""."""
    keys = _dotenv_keys(ctx, cwd)
    if "" in keys:
        return f"{keys['']} cannot be read, and Flask loads the variables it sets"
    if sub == "run":
        for key in ("FLASK_RUN_HOST", "FLASK_RUN_CERT", "FLASK_RUN_KEY"):
            if key in keys:
                return (f"{keys[key]} sets {key}, which Flask reads as run's --host, --cert "
                        "or --key (a server reachable from the network, with --debug its "
                        "debugger's console)")
    value = _global(ctx, "--app", "-A")
    if value is None:
        if "FLASK_APP" in keys:
            return (f"{keys['FLASK_APP']} sets FLASK_APP: the app Flask imports is chosen by "
                    "a file, not the command line; name it with --app")
        value = ctx.env.get("FLASK_APP")
        if value is None:
            # flask imports wsgi.py or app.py from the working directory
            return ""
    module = value.split(":", 1)[0]
    if not module:
        return f"--app {value!r} names no module"
    if module.endswith(".py") or "/" in module:
        candidates = [lexical(module, cwd)]
    else:
        if not all(part.isidentifier() for part in module.split(".")):
            return f"--app {value!r} is not a module name"
        rel = module.replace(".", "/")
        candidates = [posixpath.join(cwd, rel + ".py"), posixpath.join(cwd, rel, "__init__.py")]
    if any(_project_file(ctx, c) for c in candidates):
        return ""
    return (f"--app {value!r} is not a module file of the project (Flask imports it and may "
            "call a function it names: a module found elsewhere on sys.path is not the "
            "project's code)")


def flask(ctx, spec, words, cwd):
    """flask routes / run / db current|history|heads|branches|show|check: the options
    against the entry's allowlist; the app must be the project's (_flask_app_problem)."""
    verdict, args, cands, written = generic(ctx, spec, words)
    if verdict is not None:
        return _refuse(verdict)
    why = _flask_app_problem(ctx, cwd, spec.name.split()[-1])
    if why:
        return _refuse(_ask(ctx, "GW704", spec.name, why, rule=f"catalogue:{spec.name}"))
    return None, cands, written


def _alembic_problem(ctx, cwd):
    """Why the Alembic configuration may load code from outside the project, or ""."""
    config = _global(ctx, "-c", "--config") or ctx.env.get("ALEMBIC_CONFIG") or "alembic.ini"
    path = lexical(config, cwd)
    if not _project_file(ctx, path):
        return f"its configuration {config!r} is not a file of the project"
    try:
        data = _ini(path)
    except ConfigError as exc:
        return f"{config} cannot be read ({exc})"
    section = _global(ctx, "-n", "--name") or "alembic"
    if data is None or not data.has_section(section):
        return f"{config} has no [{section}] section the gateway can read"
    sect = data[section]
    here = posixpath.dirname(path)
    location = str(sect.get("script_location", "")).replace("%(here)s", here)
    if not location or ":" in location:
        return (f"{config}'s script_location {location!r} is not a directory of the project "
                "(a package resource is found on sys.path)")
    if not is_within(lexical(location, cwd), ctx.roots.project) or not is_within(
            os.path.realpath(lexical(location, cwd)), ctx.roots.project_real):
        return f"{config}'s script_location {location!r} lies outside the project"
    raw = str(sect.get("prepend_sys_path", "")).replace("%(here)s", here)
    for entry in raw.replace(os.pathsep, " ").split():
        target = lexical(entry, cwd)
        if not is_within(target, ctx.roots.project) or not is_within(
                os.path.realpath(target), ctx.roots.project_real):
            return f"{config}'s prepend_sys_path puts {entry!r} (outside the project) on sys.path"
    return ""


def alembic(ctx, spec, words, cwd):
    """alembic current / history / heads / branches / show / check: they run the project's
    migration environment (env.py) and read the database; the configuration must keep what
    they load inside the project (_alembic_problem)."""
    verdict, args, cands, written = generic(ctx, spec, words, positionals=False)
    if verdict is not None:
        return _refuse(verdict)
    why = _alembic_problem(ctx, cwd)
    if why:
        return _refuse(_ask(ctx, "GW762", spec.name, why, rule=f"catalogue:{spec.name}"))
    return None, cands, written
