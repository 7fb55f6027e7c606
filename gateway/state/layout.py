"""Where the breezing state files live, what each cleanup removes, and how to repair each file.

Stdlib only (hot path). Paths are plain ``str``.

================================  =============================================================
``breezing-active.json``          team metadata v2 (Lead-written)
``breezing-session-roles.json``   role registrations (written only by the gateway)
``breezing-role-*.json``          role markers: a teammate's request to be registered
``breezing-signals.jsonl``        hook → Lead signals (append-only)
``breezing-timeline.jsonl``       TaskCompleted/TeammateIdle log, rotated >500 → last 400 lines
``review-result.json``            the reviewer's verdict (Lead-written)
``gateway-breezing-phase.json``   the gateway's record of breezing Phase A/B/C
================================  =============================================================

Lock files are ``.<name>.lock`` and temp files ``.<name>.tmp-<pid>-<hex>`` in the same directory;
the leading dot keeps both out of every glob above.
"""

from __future__ import annotations

import fnmatch
import os

STATE_DIR = os.path.join(".claude", "state")
ACTIVE = "breezing-active.json"
SESSION_ROLES = "breezing-session-roles.json"
ROLE_MARKER_GLOB = "breezing-role-*.json"
SIGNALS = "breezing-signals.jsonl"
TIMELINE = "breezing-timeline.jsonl"
REVIEW_RESULT = "review-result.json"
PHASE = "gateway-breezing-phase.json"

TIMELINE_MAX_LINES = 500     # §B.4 rotation: more than 500 lines → keep the last 400
TIMELINE_KEEP_LINES = 400

#: What the seeds delete at Phase C: seed 001 処理 6-7 (active, review-result), signal lifecycle
#: (signals), seed 000 正常完了時 (active, session-roles, role markers); plus the gateway's phase.
PHASE_C_FILES = (ACTIVE, SESSION_ROLES, ROLE_MARKER_GLOB, SIGNALS, REVIEW_RESULT, PHASE)
#: Early abort (seed 001 Step 0 早期中断): breezing-active.json; with it the role files (§B.4
#: lifecycle) and the gateway's phase record -- nothing may outlive the session that made it.
EARLY_ABORT_FILES = (ACTIVE, SESSION_ROLES, ROLE_MARKER_GLOB, PHASE)
#: ``gateway state clean``: seed 000 手動クリーンアップ (active, session-roles, role markers) plus
#: the gateway's phase record (a stale Phase B would keep the Lead locked into the delegate tools).
CLEAN_DEFAULT = (ACTIVE, SESSION_ROLES, ROLE_MARKER_GLOB, PHASE)
#: ``gateway state clean --all``: everything the breezing workflow leaves in the state dir.
CLEAN_ALL = CLEAN_DEFAULT + (SIGNALS, TIMELINE, REVIEW_RESULT)

_CLEAN_HINT = ("`gateway state clean` (removes breezing-active.json, the role files and the "
               "gateway phase record, ending the breezing session)")
_REPAIR = {
    ACTIVE: "fix the reported field(s) in {path} by hand, or end the breezing session with "
            + _CLEAN_HINT,
    SESSION_ROLES: "this file is written only by the gateway; remove it with " + _CLEAN_HINT
                   + " and have the teammates register again (role marker writes)",
    ROLE_MARKER_GLOB: 'rewrite {path} as {{"role": "implementer"|"reviewer"|"lead", '
                      '"owns": [globs]}} or remove it',
    REVIEW_RESULT: 'rewrite {path} as {{"verdict": "APPROVE"|"REQUEST_CHANGES"|"REJECT"|"STOP", '
                   '"commit_hash": ..., "session_id": ...}} or remove it (the Phase C fast path '
                   'is then skipped and the normal confirmation runs)',
    PHASE: "remove it with " + _CLEAN_HINT + ", or record the phase again with "
           "`gateway breezing phase A|B|C`",
    SIGNALS: "run `gateway state validate`; delete or fix the listed lines in {path}",
    TIMELINE: "run `gateway state validate`; delete or fix the listed lines in {path}",
}


def repair_hint(kind: str, path) -> str:
    """The repair sentence for a file kind (one of the names above) at ``path``."""
    return _REPAIR[kind].format(path=os.fspath(path))


def is_role_marker_name(basename: str) -> bool:
    """True if a file name is a role marker name (``breezing-role-*.json``, case-sensitive)."""
    return fnmatch.fnmatchcase(basename, ROLE_MARKER_GLOB)


class StateLayout:
    """Paths (str) of the state files of one project: ``StateLayout(project_dir).active`` etc."""

    __slots__ = ("project_dir", "dir")

    def __init__(self, project_dir):
        self.project_dir = os.fspath(project_dir)
        self.dir = os.path.join(self.project_dir, STATE_DIR)

    def path(self, name: str) -> str:
        return os.path.join(self.dir, name)

    @property
    def active(self) -> str:
        return self.path(ACTIVE)

    @property
    def session_roles(self) -> str:
        return self.path(SESSION_ROLES)

    @property
    def signals(self) -> str:
        return self.path(SIGNALS)

    @property
    def timeline(self) -> str:
        return self.path(TIMELINE)

    @property
    def review_result(self) -> str:
        return self.path(REVIEW_RESULT)

    @property
    def phase(self) -> str:
        return self.path(PHASE)

    def matching(self, pattern: str) -> list[str]:
        """State-dir entries whose name matches ``pattern`` (case-sensitive; hidden names -- temp
        and lock files -- never match), sorted."""
        try:
            names = os.listdir(self.dir)
        except (FileNotFoundError, NotADirectoryError):
            return []
        return [self.path(n) for n in sorted(names)
                if not n.startswith(".") and fnmatch.fnmatchcase(n, pattern)]

    def role_markers(self) -> list[str]:
        return self.matching(ROLE_MARKER_GLOB)

    def __repr__(self) -> str:
        return f"StateLayout({self.project_dir!r})"


def layout(project_dir) -> StateLayout:
    """Accept a project dir (str/Path) or a ``StateLayout``."""
    return project_dir if isinstance(project_dir, StateLayout) else StateLayout(project_dir)
