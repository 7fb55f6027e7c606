"""The state directory ``.claude/state``, created for a write: above the layout (its names and
checks), the store directories' guard and the temp-file sweep, so none of them imports the
others in a circle."""

import os

from . import temps
from .layout import STATE_DIR, check_state_dir, prepare_check
from .locks import ensure_dir


def prepare_state_dir(project_dir) -> str:
    """The state directory, created (mode 0700) when absent; raises like ``check_state_dir``,
    and when ``.claude`` is a symbolic link (no state is ever created through one). Opening
    the state for a write removes the temp files of writers that died (``temps.sweep``)."""
    base = os.fspath(project_dir)
    if check_state_dir(base):
        state = os.path.join(base, STATE_DIR)
    else:
        prepare_check(base)
        state = ensure_dir(os.path.join(base, STATE_DIR))
    temps.sweep(state)
    return state
