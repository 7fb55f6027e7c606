"""The project's store directories are never reached through a link: the one check every
writer makes (stdlib only, hot path).

The stores live in fixed places of the project: the breezing state and the workflow database
in ``.claude/state/``, the orchestrator store in ``agent-coord/`` (and its ``planner-sessions/``,
``tasks/``, ``runs/``). The PreToolUse guards refuse a ``.claude`` or ``.claude/state`` that is
a symbolic link or not a directory (GW890, ``layout.check_state_dir``): the roles would come
from, and a write would land in, wherever it points, outside the project and outside the
protected paths. ``store.ensure_dir`` -- which every lock, atomic write and append of the
stores goes through before it creates anything -- asks ``guard`` here, so that every writer
(the hooks, the CLI verbs, the SQLite workflow store, the signals, the timeline, the review
result, the orchestrator store) refuses exactly what the guards refuse, with the guards'
sentence, and nothing is created, written or locked outside the project.

A directory is recognised by its last components: ``<project>/.claude/state`` and
``<project>/agent-coord[/<sub>]``. Anything else (a test's scratch directory, the policy
cache) is not a store of the project and is only checked by ``ensure_dir`` itself.
"""

import os

from .layout import STATE_DIR

COORD_DIR = "agent-coord"
_STATE_PARTS = tuple(STATE_DIR.split(os.sep))


def guard(directory: str) -> None:
    """Raise ``StateUnsafe`` when ``directory`` is one of the project's store directories and
    it, or a directory of the store above it, is a symbolic link or not a directory; for
    ``.claude/state`` also when it is absent and ``.claude`` is a link (it would be created
    through the link)."""
    parts = os.path.abspath(directory).split(os.sep)
    n = len(_STATE_PARTS)
    if len(parts) > n and tuple(parts[-n:]) == _STATE_PARTS:
        from .layout import check_state_dir, prepare_check

        project = os.sep.join(parts[:-n]) or os.sep
        if not check_state_dir(project):
            prepare_check(project)
        return
    for depth in (1, 2):
        if len(parts) > depth and parts[-depth] == COORD_DIR:
            check_coord_dir(os.sep.join(parts[:-depth]) or os.sep, parts[-depth + 1:]
                            if depth == 2 else ())
            return


def coord_problem(path: str, st) -> str | None:
    """Why ``path`` (examined with ``lstat``: ``st``) cannot be a directory of the orchestrator
    store, or None."""
    import stat

    if stat.S_ISLNK(st.st_mode):
        return "is a symbolic link; the store is never followed through links"
    if not stat.S_ISDIR(st.st_mode):
        return "is not a directory"
    return None


def check_coord_dir(project: str, subs=()) -> bool:
    """``agent-coord/`` (and ``subs`` below it) of ``project``: False when it does not exist,
    True when it is a real directory reached without a link. Raises ``StateUnsafe`` naming
    the path (the sentence ``gateway state validate`` and the store's own refusals give)."""
    from .errors import StateError, StateUnsafe

    path = os.path.join(project, COORD_DIR)
    for sub in ("",) + tuple(subs):
        if sub:
            path = os.path.join(path, sub)
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            return False
        except OSError as e:
            raise StateError(path, f"cannot be examined: {e.strerror}",
                             f"check the permissions of {os.path.dirname(path)}",
                             noun="orchestrator store") from None
        problem = coord_problem(path, st)
        if problem is not None:
            raise StateUnsafe(path, problem, f"replace {path} by a real directory (the files it "
                                             f"points to are not touched)",
                              noun="orchestrator store")
    return True
