"""Python packaging: pip, uv sync, the runners of installed tools (uv run, poetry run, pipx run
...) and venv.

Part of gateway.validator.checks.buildtools (see its docstring)."""

import os
import posixpath

from gateway.paths import is_within, lexical
from gateway.validator.checks._common import PHASE
from gateway.validator.checks.buildtools._shared import (
    ConfigError,
    _ancestors,
    _ask,
    _program_ok,
    _refuse,
    _toml,
    generic,
)
from gateway.validator.checks.buildtools.npm import _tool_name

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


def venv(ctx, spec, words, cwd):
    """python -m venv DIR: creates an environment in DIR (a write inside the project; the
    bundled pip is installed from the standard library, nothing is downloaded)."""
    verdict, args, cands, written = generic(ctx, spec, words)
    if verdict is not None:
        return _refuse(verdict)
    if not args.positionals:
        return _refuse(ctx.ask(PHASE, "GW712", "venv without a directory"))
    return None, cands, written + list(args.positionals)
