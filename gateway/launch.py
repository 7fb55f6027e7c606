"""A lean command line for registering a hook: `python -I -S -c ... hook NAME`.

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

Measured with `gateway bench` (docs/performance.md). `gateway install` may use
`hook_argv(name)` in place of `[<venv>/bin/gateway, "hook", name]`; the paths are absolute and
taken from the running installation, like the console script's own shebang.
"""

import os
import sys

#: Packages whose directories the hook may need: the gateway, its parser, and what the
#: rules compiler imports on a cache miss.
_PACKAGES = ("gateway", "bashlex", "pydantic", "pydantic_core", "annotated_types",
             "typing_extensions", "typing_inspection", "yaml", "_yaml")


def search_path() -> list:
    """The directories holding the gateway and its dependencies, in sys.path order."""
    wanted = set()
    for name in _PACKAGES:
        try:
            module = __import__(name)
        except ImportError:
            continue
        where = getattr(module, "__file__", None)
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


def hook_argv(name: str, python=None) -> list:
    """argv of a lean hook command for hook `name` (e.g. "permission-request")."""
    code = (f"import sys; sys.path.extend({search_path()!r}); "
            "from gateway._entry import main; sys.exit(main())")
    return [os.path.abspath(python or sys.executable), "-I", "-S", "-c", code, "hook", name]


def hook_command(name: str, python=None) -> str:
    """hook_argv() as one shell command string (for settings.json `command`)."""
    import shlex

    return " ".join(shlex.quote(a) for a in hook_argv(name, python))
