"""A virtual environment's interpreter is its base interpreter.

`python3 -m venv .venv` writes `.venv/bin/python` (and `python3`, `python3.X`) as a symlink
to the interpreter that made it (`/usr/bin/python3.11`, a pyenv or uv build in the home
directory), beside a `pyvenv.cfg` that tells that interpreter to use the environment's
site-packages. Run by path it *is* that interpreter: `.venv/bin/python -m pytest -q` is
`python -m pytest -q` with the project's packages, exactly as `.venv/bin/pytest` is
`pytest` (project_bin_dirs). The link leads outside the project, which phase 5 reads as "a
program outside the project" (GW502) unless it is recognised here.

Recognised only when all of these hold (anything else stays GW502/GW501):

* the word names a file directly in one of the policy's `project_bin_dirs`, inside the
  project, whose name is a Python interpreter's (the `python3` interpreter and its aliases);
* the directory above that bin directory holds a regular `pyvenv.cfg` (it is a venv);
* every link resolved, the file it leads to is a regular, executable file whose own name is
  a Python interpreter's too (a link to `/bin/sh` named `python` is not an interpreter).

Standard library only (the hook path imports it when a program is run by a path that
leads out of the project).
"""

import os
import posixpath
import stat

_PYTHON = "python3"


def base_name(ctx, rel: str, real: str):
    """The interpreter name to judge `rel` (a project-relative path, as resolved lexically)
    by, when it is a virtual environment's interpreter whose link leads to `real`; else
    None."""
    parent = posixpath.dirname(rel)
    if parent not in ctx.policy.project_bin_dirs:
        return None
    names = _python_names(ctx.policy)
    base = posixpath.basename(rel)
    if base not in names or posixpath.basename(real) not in names:
        return None
    venv = posixpath.join(ctx.roots.project, posixpath.dirname(parent), "pyvenv.cfg")
    try:
        cfg = os.lstat(venv)
        st = os.stat(real)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(cfg.st_mode) or not stat.S_ISREG(st.st_mode) \
            or not st.st_mode & 0o111:
        return None
    return base


def _python_names(policy) -> frozenset:
    interp = policy.interpreters.get(_PYTHON)
    if interp is None:
        return frozenset()
    return frozenset(n for n, i in policy.interpreters.items() if i is interp)
