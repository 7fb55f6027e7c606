"""The lean command line `gateway install` registers: `python -I -S -c ... hook NAME`.

pip's console script for `gateway` starts the interpreter with the full `site` machinery
(every .pth file of the environment, setuptools' `_distutils_hack`, sitecustomize) and then
imports `re` before calling main(). A hook runs once per tool call, so that is paid every
time. This command line:

- `-S` skips `site`: the directories the gateway needs (its own package's parent, and those
  of its dependencies) are put on sys.path explicitly, after the standard library, so nothing
  in them can shadow a standard module;
- `-I` (isolated) ignores PYTHON* environment variables and the user site directory and does
  not put the current directory on sys.path: a `json.py` in the agent's project, or a
  PYTHONPATH in its environment, cannot replace the gateway's code;
- `-c` runs `gateway._entry.main` directly, without pip's `import re`.

The paths are absolute and taken from the running installation (the interpreter as the venv
names it, not resolved through symlinks, like the console script's own shebang), so the line
works whatever the agent's cwd, PATH and PYTHONPATH are. Measured with `gateway bench`
(docs/performance.md). `gateway install --launcher script` registers the console script
instead; `parse()` recognises this line for install, uninstall and doctor.
"""

import os
import sys

#: Packages whose directories the hook may need: the gateway, its parser, and what the
#: rules compiler imports on a cache miss.
_PACKAGES = ("gateway", "bashlex", "pydantic", "pydantic_core", "annotated_types",
             "typing_extensions", "typing_inspection", "yaml", "_yaml")

FLAGS = ("-I", "-S")
_HEAD = "import sys; sys.path.extend(["
_TAIL = "]); from gateway._entry import main; sys.exit(main())"
#: Interpreter options a registered line may carry (what FLAGS and `gateway bench`'s -B
#: write); a line with any other option is not recognised as the gateway's.
_KNOWN_FLAGS = frozenset(("-I", "-S", "-B", "-E", "-s"))


def search_path() -> list:
    """The directories holding the gateway and its dependencies, in sys.path order."""
    from importlib.util import find_spec

    wanted = set()
    for name in _PACKAGES:
        try:
            spec = find_spec(name)  # found, not imported: nothing runs, nothing warns
        except (ImportError, ValueError):
            continue
        where = spec.origin if spec is not None and spec.has_location else None
        if not where:
            continue
        where = os.path.abspath(where)
        parent = os.path.dirname(where)
        if os.path.basename(where).startswith("__init__."):
            parent = os.path.dirname(parent)  # a package: its parent directory
        wanted.add(os.path.normpath(parent))
    ordered = [os.path.normpath(os.path.abspath(p)) for p in sys.path if p]
    out = []
    for p in ordered + sorted(wanted):
        if p in wanted and p not in out:
            out.append(p)
    return out


def _literal(path: str) -> str:
    """A Python string literal for `path`: in double quotes when that needs no escape (the
    shell quotes the code in single quotes, and JSON escapes double quotes more readably
    than the shell escapes single ones), else repr()."""
    if all(" " <= c <= "~" for c in path) and '"' not in path and "\\" not in path:
        return f'"{path}"'
    return repr(path)


def code(paths=None) -> str:
    """The -c program: extend sys.path with `paths` (default: search_path()), run main()."""
    paths = search_path() if paths is None else paths
    return _HEAD + ", ".join(_literal(p) for p in paths) + _TAIL


def prefix(python=None, paths=None) -> list:
    """argv of the lean line up to (not including) `hook NAME`."""
    return [os.path.abspath(python or sys.executable), *FLAGS, "-c", code(paths)]


def hook_argv(name: str, python=None) -> list:
    """argv of a lean hook command for hook `name` (e.g. "permission-request")."""
    return prefix(python) + ["hook", name]


def hook_command(name: str, python=None) -> str:
    """hook_argv() as one shell command string (for settings.json `command`)."""
    import shlex

    return " ".join(shlex.quote(a) for a in hook_argv(name, python))


def parse(words):
    """(python, [paths]) when `words` (a command split like a shell would, without the
    trailing `hook NAME`) is a lean line of this module's shape, else None."""
    if len(words) < 3 or words[-2] != "-c":
        return None
    if not all(w in _KNOWN_FLAGS for w in words[1:-2]):
        return None
    program = words[-1]
    if not (program.startswith(_HEAD) and program.endswith(_TAIL)):
        return None
    import ast

    try:
        paths = ast.literal_eval("[" + program[len(_HEAD):-len(_TAIL)] + "]")
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    if not all(isinstance(p, str) for p in paths):
        return None
    return words[0], paths
