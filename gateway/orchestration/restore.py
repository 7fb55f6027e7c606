"""What the Lead must be told after compaction or a resume (seed 000 Compaction 復元フロー).

After compaction the Lead keeps little more than "finish the tasks" and starts implementing
itself. ``breezing_context`` re-reads ``breezing-active.json`` (the compaction restore key is
``impl_mode``), the recorded phase and the team's task list, and returns a short instruction:
rebuild or resume *the right* team (task-worker for standard, codex-implementer for codex),
stay in delegate mode in Phase B, never implement directly. A mode mismatch between the skill
that is running and ``impl_mode`` is a warning to ask the user (seed 000: ユーザーに確認).

A state file that cannot be read never turns into an instruction built from guesses: the text
then says which file is broken, that nothing may be rebuilt or implemented from memory, and how
to repair it; ``warning`` carries the same for the user.

Everything taken from the files is reduced to safe characters or escaped and shortened.
"""

from __future__ import annotations

import os
import re

from gateway.state import fast, files, store
from gateway.state.layout import layout

__all__ = ["IMPLEMENTER_AGENT", "REVIEWER_AGENT", "Restored", "breezing_context",
           "skill_mode_from_transcript", "mode_mismatch"]

IMPLEMENTER_AGENT = {"standard": "claude-code-harness:task-worker",
                     "codex": "claude-code-harness:codex-implementer"}
REVIEWER_AGENT = "claude-code-harness:code-reviewer"
TRANSCRIPT_TAIL = 2 << 20

_SAFE = re.compile(r"[^A-Za-z0-9_.:+-]")
_CMD = re.compile(rb"<command-name>/?(?:[\w.-]+:)?breezing</command-name>")
_ARGS = re.compile(rb"<command-args>(.*?)</command-args>", re.S)


def _s(value, limit: int = 80) -> str:
    return _SAFE.sub("?", str(value))[:limit]


class Restored:
    """``context`` for the model (or None), ``warning`` for the user (or None)."""

    __slots__ = ("context", "warning")

    def __init__(self, context=None, warning=None):
        self.context, self.warning = context, warning


def skill_mode_from_transcript(path) -> str | None:
    """``"codex"`` or ``"standard"`` from the last ``/breezing`` invocation in the session's
    transcript (its ``<command-args>``), or None when it cannot be told."""
    if not isinstance(path, str) or not os.path.isabs(path):
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        import stat

        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None
        start = max(0, st.st_size - TRANSCRIPT_TAIL)
        data = os.pread(fd, min(st.st_size, TRANSCRIPT_TAIL), start)
    except OSError:
        return None
    finally:
        os.close(fd)
    last = None
    for m in _CMD.finditer(data):
        last = m
    if last is None:
        return None
    a = _ARGS.search(data, last.end(), min(len(data), last.end() + 4096))
    if a is None:
        before = list(_ARGS.finditer(data, max(0, last.start() - 4096), last.start()))
        a = before[-1] if before else None
    args = a.group(1).decode("utf-8", "replace").replace("\\n", " ") if a else ""
    return "codex" if "--codex" in args.split() else "standard"


def mode_mismatch(impl_mode: str | None, skill_mode: str | None) -> str | None:
    """The seed's mismatch check: a sentence, or None when they agree or the skill is
    unknown. ``impl_mode`` None is standard (backward compatible)."""
    if skill_mode is None:
        return None
    mode = impl_mode or "standard"
    if mode == skill_mode:
        return None
    skill = "/breezing --codex" if skill_mode == "codex" else "/breezing (without --codex)"
    return (f"MODE MISMATCH: the running skill is {skill} but breezing-active.json has "
            f"impl_mode {mode}: ask the user which mode to continue in before spawning any "
            f"implementer")


def _broken(path: str, err: store.StateError, what: str) -> Restored:
    rel = ".claude/state/" + os.path.basename(path)
    text = (f"gateway: the /breezing session state cannot be used: {rel} {err.problem}. Do "
            f"not rebuild the team, spawn teammates or implement tasks from memory: {what}. "
            f"Tell the user; to repair: {err.repair}")
    return Restored(text, f"gateway: {err}")


def breezing_context(project_dir, source: str, env=None, transcript_path=None) -> Restored:
    """The instruction for SessionStart ``compact`` or ``resume`` (empty Restored when no
    breezing session is recorded)."""
    lay = layout(project_dir)
    if not os.path.lexists(lay.active):
        return Restored()
    try:
        active = files.load_active(lay)
    except store.StateError as e:
        return _broken(lay.active, e, "the session's mode and team cannot be known")
    if active is None:
        return Restored()
    try:
        phase = fast.effective_phase(lay)
    except store.StateError as e:
        return _broken(lay.phase, e, "whether the Lead is in delegate mode cannot be known")
    mode = active.impl_mode or "standard"
    agent = IMPLEMENTER_AGENT[mode]
    other = IMPLEMENTER_AGENT["codex" if mode == "standard" else "standard"]
    n_impl = active.team.implementer_count if active.team and \
        active.team.implementer_count else None
    head = {"compact": "Context was compacted", "resume": "This session was resumed"}.get(
        source, "The session restarted")
    lines = [f"gateway: a /breezing session is recorded in this project (session "
             f"{_s(active.session_id)}"
             + (f", team {_s(active.team_name)}" if active.team_name else "")
             + (f", started {_s(active.started_at, 40)}" if active.started_at else "")
             + f"). {head}: you are the Lead. Do not implement tasks yourself."]
    lines.append(f"- Mode: impl_mode {mode}"
                 + (" (unset: standard, backward compatible)" if active.impl_mode is None
                    else "")
                 + f": implementers are subagent_type {agent}, never {other}; the reviewer is "
                   f"{REVIEWER_AGENT}.")
    if phase is not None and phase.phase == "B":
        lines.append("- Phase B (delegate): use only TaskCreate, TaskUpdate, TaskList, TaskGet "
                     "and SendMessage, and the gateway's coordination steps as one Bash command "
                     "each (`gateway breezing status|review|batch|register|phase C`, `gateway "
                     "resume`); no Write, Edit or other Bash of your own.")
    elif phase is not None:
        lines.append(f"- Phase {phase.phase} is recorded"
                     + (" (finishing: integration check, Plans.md, commit, cleanup)."
                        if phase.phase == "C" else " (preparing the team)."))
    spawn = (f"spawn {n_impl} implementer(s)" if n_impl else "spawn the implementers") + \
        f" ({agent}) and 1 reviewer ({REVIEWER_AGENT})"
    if not active.team_name:
        lines.append("- The session is still being prepared (Step 0 written, no team yet): "
                     "continue the /breezing preparation (range confirmation, team "
                     "initialisation); do not implement directly.")
    else:
        try:
            from .progress import team_list

            team = team_list(lay.project_dir, active, env)
        except ValueError as e:
            return _broken(lay.active, store.StateInvalid(lay.active, str(e)),
                           "the team's task list cannot be located")
        mapped = len(active.plans_md_mapping)
        if source == "resume":
            lines.append("- Teammates do not survive a resumed session. To continue: "
                         "`gateway resume` shows the previous session; after the user "
                         "approves, `gateway resume --yes` resets the state for a new team; "
                         f"then create the team, register the unfinished tasks, {spawn}.")
        elif team.exists and team.problem is None:
            c = team.counts()
            unfinished = c["pending"] + c["in_progress"]
            lines.append(f"- Team task list ({len(team.tasks)} task(s)): {c['completed']} "
                         f"completed, {c['in_progress']} in progress, {c['pending']} pending. "
                         + ("Check TaskList and resume the implement/review cycle with the "
                            "existing team." if unfinished else
                            "Every task is completed: ask the Reviewer for the final review "
                            "(Phase C follows an APPROVE)."))
        else:
            why = f" ({team.problem})" if team.problem else ""
            from . import progress as _progress

            try:
                rec = _progress.load(lay, active.session_id)
                seen = len(rec["completed"]) + len(rec["created"])
            except store.StateError:
                seen = 0
            check = (f" The hooks saw {seen} task event(s) of this session: check TaskList "
                     "first; if the team's tasks are there, resume the cycle with the existing "
                     "team." if seen else "")
            rebuild = (f"run `gateway resume --yes` (allowed in delegate mode: it keeps the "
                       f"completed tasks, gives the unfinished ones new task ids and returns "
                       f"the session to Phase A), create the tasks it lists (TaskCreate), "
                       f"{spawn}, then `gateway breezing phase B` again"
                       if phase is not None and phase.phase == "B" else
                       f"re-register the unfinished tasks of the {mapped} mapped Plans.md "
                       f"task(s) (`gateway resume` lists them, `gateway resume --yes` "
                       f"records the new team), {spawn}, then resume the cycle")
            lines.append(f"- The team's task list {team.path} is not there{why}.{check} If the "
                         f"team is gone: {rebuild}.")
    if active.review is not None:
        lines.append(f"- Retakes so far: {active.review.retake_count} of "
                     f"{active.review.max_retakes}; beyond that, escalate to the user.")
    mismatch = mode_mismatch(active.impl_mode, skill_mode_from_transcript(transcript_path))
    if mismatch:
        lines.append(f"- {mismatch}.")
        return Restored("\n".join(lines), f"gateway: {mismatch}")
    lines.append("- If the skill you are running does not match impl_mode (/breezing --codex "
                 "with standard, or /breezing with codex), ask the user before continuing.")
    return Restored("\n".join(lines))
