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

#: Every file of the breezing workflow kept in the state directory (role markers: the glob).
KNOWN_FILES = (ACTIVE, SESSION_ROLES, SIGNALS, TIMELINE, REVIEW_RESULT, PHASE)

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
_REPAIR_HINT = "`gateway state repair` removes it (the breezing session continues)"
_REPAIR = {
    ACTIVE: "fix the reported field(s) in {path} by hand, or end the breezing session with "
            + _CLEAN_HINT,
    SESSION_ROLES: "this file is written only by the gateway; " + _REPAIR_HINT
                   + " and the teammates register again (role marker writes)",
    ROLE_MARKER_GLOB: 'rewrite {path} as {{"role": "implementer"|"reviewer"|"lead", '
                      '"owns": [globs]}} or remove it',
    REVIEW_RESULT: 'rewrite {path} as {{"verdict": "APPROVE"|"REQUEST_CHANGES"|"REJECT"|"STOP", '
                   '"commit_hash": ..., "session_id": ...}} or remove it (the Phase C fast path '
                   'is then skipped and the normal confirmation runs)',
    PHASE: "record the phase again with `gateway breezing phase A|B|C`, or "
           + _REPAIR_HINT + " and no phase is in effect until one is recorded",
    SIGNALS: "`gateway state repair` moves the listed lines to {path}.unreadable (the other "
             "lines are intact), or delete or fix them in {path}",
    TIMELINE: "`gateway state repair` moves the listed lines to {path}.unreadable (the other "
              "lines are intact), or delete or fix them in {path}",
    "temp": "the gateway's next write to the state directory removes it; "
            "`gateway state repair` removes it now (the breezing session continues)",
    "coord-temp": "the next write to the orchestrator store removes it; `gateway state "
                  "repair` removes it now",
}


def repair_hint(kind: str, path) -> str:
    """The repair sentence for a file kind (one of the names above) at ``path``."""
    return _REPAIR[kind].format(path=os.fspath(path))


def is_role_marker_name(basename: str) -> bool:
    """True if a file name is a role marker name (``breezing-role-*.json``, case-sensitive)."""
    from fnmatch import fnmatchcase  # `re` only when a name is matched

    return fnmatchcase(basename, ROLE_MARKER_GLOB)


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
        except FileNotFoundError:
            return []
        except OSError as exc:      # a file or no permission: never "no files"
            from .errors import StateError

            raise StateError(self.dir, f"cannot be listed: {exc.strerror}",
                             "run `gateway state validate` for the repair",
                             noun="state directory") from None
        from fnmatch import fnmatchcase

        return [self.path(n) for n in sorted(names)
                if not n.startswith(".") and fnmatchcase(n, pattern)]

    def role_markers(self) -> list[str]:
        return self.matching(ROLE_MARKER_GLOB)

    def __repr__(self) -> str:
        return f"StateLayout({self.project_dir!r})"


def _kind(mode: int) -> str:
    import stat

    for test, name in ((stat.S_ISREG, "a regular file"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISLNK, "a symbolic link")):
        if test(mode):
            return name
    return "not a directory"


def check_state_dir(project_dir) -> bool:
    """Is there breezing state in this project? The one answer for the PreToolUse guards
    (GW890) and every ``gateway state`` command.

    False: ``.claude/state`` does not exist (no breezing state). True: it is a real directory,
    reached from the project without a symbolic link. Anything else raises ``StateUnsafe``
    naming the path, what is there and the repair: ``.claude`` or ``.claude/state`` is a
    symbolic link (the roles would come from, and a cleanup would delete in, wherever it
    points), or a file, FIFO, socket or device where a directory must be. Something that
    exists but is not what it must be is broken state, never "no state". ``.claude`` being a
    link with nothing behind it at ``state`` is no state (there is nothing to read), but no
    state directory is ever created through it (``prepare_state_dir``).

    Standard library only and nothing imported on the common paths: the guards call it on
    every PreToolUse call."""
    base = os.fspath(project_dir)
    claude = os.path.join(base, ".claude")
    state = os.path.join(base, STATE_DIR)
    try:
        st = os.lstat(claude)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise _unusable(claude, f"cannot be examined: {exc.strerror}",
                        f"check the permissions of {base}", noun="path") from None
    import stat

    if stat.S_ISLNK(st.st_mode):
        if not os.path.lexists(state):
            return False
        raise _unsafe(state, f"is reached through the symbolic link {claude} (to "
                             f"{os.path.realpath(claude)}); the breezing state is read only "
                             f"from a real directory in the project",
                      f"replace the link {claude} by a real directory (the files it points "
                      f"to are not touched), then start the breezing session again")
    if not stat.S_ISDIR(st.st_mode):
        raise _unsafe(claude, f"is {_kind(st.st_mode)}, not a directory, so the breezing "
                              f"state cannot be read",
                      f"look at what {claude} holds, move it away (mv {claude} "
                      f"{claude}.bak), and let Claude Code re-create the directory",
                      noun="path")
    try:
        st = os.lstat(state)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise _unusable(state, f"cannot be examined: {exc.strerror}",
                        f"check the permissions of {claude}") from None
    if stat.S_ISLNK(st.st_mode):
        raise _unsafe(state, f"is a symbolic link (to {os.path.realpath(state)}); the "
                             "breezing state is read only from a real directory in the project",
                      f"remove the link (rm {state}) and start the breezing session again, so "
                      "that the workflow re-creates the directory")
    if not stat.S_ISDIR(st.st_mode):
        raise _unsafe(state, f"is {_kind(st.st_mode)}, not a directory, so the breezing state "
                             "cannot be read",
                      f"look at what {state} holds, then remove it (rm {state}); the workflow "
                      "re-creates the directory")
    return True


def prepare_check(project_dir) -> None:
    """Raise ``StateUnsafe`` when a state directory that does not exist yet would be created
    through a link (``.claude`` is a symbolic link)."""
    claude = os.path.join(os.fspath(project_dir), ".claude")
    if os.path.islink(claude):
        raise _unsafe(claude, f"is a symbolic link (to {os.path.realpath(claude)}); the "
                              "breezing state is kept only in a real directory in the project",
                      f"replace the link {claude} by a real directory", noun="path")


def _unsafe(path, problem, repair, noun="state directory"):
    from .errors import StateUnsafe

    return StateUnsafe(path, problem, repair, noun=noun)


def _unusable(path, problem, repair, noun="state directory"):
    from .errors import StateError

    return StateError(path, problem, repair, noun=noun)


def layout(project_dir) -> StateLayout:
    """Accept a project dir (str/Path) or a ``StateLayout``."""
    return project_dir if isinstance(project_dir, StateLayout) else StateLayout(project_dir)
