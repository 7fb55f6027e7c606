"""Phase A of /breezing as code (seed 001 Step 0 and 準備ステージ): what ``gateway breezing
start`` does before the team works.

1. **Step 0** (``step0``): ``breezing-active.json`` is written at once -- session id,
   ``started_at``, ``impl_mode`` (``codex`` with ``--codex``, else ``standard``) and the range
   text -- so a compaction during the preparation still knows the mode (seed 000).
2. **Environment check** (``check_agent_teams``): Agent Teams must be enabled
   (``CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS`` in the environment or in the ``env`` of a Claude
   Code settings file); otherwise the seed's message (``NOT_ENABLED``).
3. **Range** (``gateway.orchestration.rangesel``) and the **registration rules**
   (``gateway.orchestration.registration``): the confirmation screen (``screen``) shows the
   tasks, the team (implementer count of ``team.implementer_count``) and the findings.
4. **Step 3** (``initialise``, after the user said yes): breezing-active.json gets the team
   name, ``plans_md_mapping``, options, team, review counter and -- above 8 tasks -- the
   ``batching`` state; Phase A is recorded; stale role files of an earlier session go. The
   Lead then creates the tasks (TaskCreate, in the listed order) and spawns the team.

Early abort (seed 001 早期中断時のクリーンアップ): when a step after Step 0 fails -- the environment
check, the range, the validation, the initialisation -- or the user says no (``abort``),
breezing-active.json (and the phase and role files) are removed, so 「続きやって」 never
restores a half-prepared session. A recorded session that already has a team is never
overwritten or removed by ``start``: it is resumed (``gateway resume``) or ended
(``gateway state clean``).
"""

from __future__ import annotations

import os

from gateway.state import fast, files, store
from gateway.state.layout import EARLY_ABORT_FILES, ROLE_MARKER_GLOB, SESSION_ROLES, layout
from gateway.state.models import BreezingActive

from . import plans as _plans
from . import rangesel, registration
from . import team as _team
from .restore import IMPLEMENTER_AGENT, REVIEWER_AGENT

__all__ = ["AGENT_TEAMS_VAR", "NOT_ENABLED", "StartError", "EnvCheck", "check_agent_teams",
           "step0", "abort", "Prepared", "prepare", "screen", "as_json", "initialise", "confirm_command",
           "CRITIC_AGENT", "PLANNER_AGENT", "MAX_DISCUSS_ROUNDS"]

AGENT_TEAMS_VAR = "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS"
NOT_ENABLED = """⚠️ Agent Teams が有効化されていません。

以下を settings.json に追加してください:
{
  "env": {
    "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS": "1"
  }
}

Agent Teams なしで実行する場合は `/work all` を使用してください。"""
NOT_ENABLED_EN = """⚠️ Agent Teams is not enabled.

Add this to settings.json:
{
  "env": {
    "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS": "1"
  }
}

To run without Agent Teams, use `/work all`."""


def not_enabled(env=None) -> str:
    """The seed's message (Japanese locale or GATEWAY_LANG=ja), else its English version."""
    from gateway.i18n import text

    return text(NOT_ENABLED, NOT_ENABLED_EN, env)


PLANNER_AGENT = "claude-code-harness:plan-analyst"
CRITIC_AGENT = "claude-code-harness:plan-critic"
MAX_DISCUSS_ROUNDS = 3
_TRUE = ("1", "true", "yes", "on")

ABORTED_TAIL = ("\n\n(breezing-active.json was removed: early abort; run `gateway breezing "
                "start` again once it is fixed)")
EXIT_ABORTED = 1        # the environment check failed / nothing was prepared
EXIT_BAD_RANGE = 2      # the range or the tasks cannot be used
EXIT_STATE = 3          # a state file or Plans.md cannot be used


class StartError(Exception):
    """``start`` cannot go on. ``code`` for machines, ``exit_code`` for the CLI, ``aborted``:
    the Step 0 file was removed (early abort)."""

    def __init__(self, code: str, message: str, exit_code: int, aborted: bool = False):
        self.code, self.exit_code, self.aborted = code, exit_code, aborted
        super().__init__(message)


class EnvCheck:
    """``ok``; ``source``: where the setting was found ("environment" or a settings file);
    ``problems``: settings files that could not be read."""

    __slots__ = ("ok", "source", "problems")

    def __init__(self, ok, source=None, problems=()):
        self.ok, self.source, self.problems = ok, source, list(problems)

    def as_dict(self) -> dict:
        return {"ok": self.ok, "source": self.source, "problems": self.problems}


def check_agent_teams(project_dir, env=None) -> EnvCheck:
    """Agent Teams enabled? The environment first, then the settings files from the highest
    precedence down (managed, project local, project, user local, user): the first that sets
    the variable decides. ``1``/``true``/``yes``/``on`` enable it."""
    from gateway.settings import settings_paths

    env = os.environ if env is None else env
    value = env.get(AGENT_TEAMS_VAR)
    if value is not None and value.strip().lower() in _TRUE:
        return EnvCheck(True, "environment")
    paths = settings_paths(os.fspath(project_dir), env)
    order = paths[:2] + paths[::-1][:2] + paths[2:4][::-1]     # managed, local, project, user
    problems = []
    for path in order:
        try:
            doc = store.read_json(path, max_bytes=4 << 20)
        except store.StateMissing:
            continue
        except store.StateError as e:
            problems.append(f"{path} {e.problem}")
            continue
        envs = doc.get("env") if isinstance(doc, dict) else None
        if isinstance(envs, dict) and AGENT_TEAMS_VAR in envs:
            v = envs[AGENT_TEAMS_VAR]
            ok = v is True or (not isinstance(v, bool) and str(v).strip().lower() in _TRUE)
            return EnvCheck(ok, path, problems)
    return EnvCheck(False, None, problems)


def _session_id(now: str) -> str:
    dt = fast.parse_iso(now)
    return f"breezing-{dt:%Y%m%d-%H%M}" if dt else "breezing-session"


def _running(active: BreezingActive) -> StartError:
    return StartError(
        "session_exists",
        f"gateway: a breezing session is already recorded (session "
        f"{store.safe_text(active.session_id, 60)}, team {store.safe_text(active.team_name, 60)})"
        f": continue it with `gateway breezing start --range 続きやって` (or `gateway resume`), or "
        f"end it with `gateway state clean`. Nothing was changed.", EXIT_STATE)


def step0(project_dir, *, range_text: str, codex: bool, now: str | None = None,
          keep: bool = False) -> BreezingActive:
    """Write Step 0's breezing-active.json. ``keep``: reuse a Step 0 file already there (its
    session id and start), as the confirmed second call does. Refuses (``StartError``) when a
    session with a team is recorded; a Step 0 file alone (a preparation that never finished)
    is replaced."""
    now = now or fast.now_iso()

    def fn(current):
        if current is not None and current.team_name:
            raise _running(current)
        if current is not None and keep:
            return current.model_copy(update={"impl_mode": "codex" if codex else "standard",
                                              "task_range": range_text})
        return BreezingActive(session_id=_session_id(now), started_at=now,
                              impl_mode="codex" if codex else "standard", task_range=range_text)

    try:
        return files.update_active(project_dir, fn)
    except store.StateError as e:
        raise StartError("active_unusable", f"gateway: {e}", EXIT_STATE) from None


def abort(project_dir, session_id: str | None = None) -> list[str]:
    """Early abort: remove breezing-active.json, the phase record and the role files. With
    ``session_id``, only if the recorded session is that one (another session is never
    touched); a session that already has a team is never removed here."""
    lay = layout(project_dir)
    existed = []

    def fn(current):
        if current is None:
            return None
        existed.append(lay.active)
        if session_id is not None and current.session_id != session_id:
            raise StartError("other_session", "gateway: breezing-active.json belongs to "
                             "another session; it was not removed", EXIT_STATE)
        if current.team_name:
            raise _running(current)
        return None

    files.update_active(lay, fn)
    removed = existed + files.remove_files(lay, EARLY_ABORT_FILES)
    removed += files.remove_files(lay, ("gateway-breezing-verify.json",))
    return [os.path.relpath(p, lay.project_dir) for p in removed]


def _abort_quietly(project_dir, session_id):
    try:
        abort(project_dir, session_id)
        return True
    except (StartError, store.StateError):
        return False


class Prepared:
    """Everything the confirmation screen shows and Step 3 writes."""

    def __init__(self, active, env_check, selection, reg, implementers, parallel,
                 planner_max_parallel, discuss, batches, plans_path):
        self.active: BreezingActive = active
        self.env_check: EnvCheck = env_check
        self.selection: rangesel.Selection = selection
        self.registration: registration.Registration = reg
        self.implementers: int = implementers
        self.parallel = parallel
        self.planner_max_parallel = planner_max_parallel
        self.discuss: bool = discuss
        self.batches: list[list[str]] = batches
        self.plans_path = plans_path

    @property
    def mode(self) -> str:
        return self.active.impl_mode or "standard"


def prepare(project_dir, range_text: str, *, codex: bool = False, parallel: int | None = None,
            planner_max_parallel: int | None = None, discuss: bool = True, env=None,
            plans_path: str | None = None, confirmed: bool = False,
            now: str | None = None) -> Prepared:
    """Step 0, the environment check, the range and the registration rules. Raises
    ``StartError`` (after removing the Step 0 file: ``aborted``). ``confirmed``: the second
    call after the user's yes (the Step 0 file of the first call is kept)."""
    project = os.fspath(project_dir)
    spec = rangesel.parse_range(range_text)          # RangeError before anything is written
    if spec.kind == "resume":
        raise ValueError("続きやって is gateway resume")
    for name, v in (("--parallel", parallel), ("--planner-max-parallel", planner_max_parallel)):
        _team._positive(name, v)
    active = step0(project, range_text=spec.text, codex=codex, now=now, keep=confirmed)
    sid = active.session_id

    def fail(code, message, exit_code):
        aborted = _abort_quietly(project, sid)
        tail = ABORTED_TAIL if aborted else ""
        return StartError(code, message + tail, exit_code, aborted)

    try:
        env_check = check_agent_teams(project, env)
        if not env_check.ok:
            raise fail("agent_teams_disabled", not_enabled(env), EXIT_ABORTED)
        path = plans_path or os.path.join(project, "Plans.md")
        try:
            plans = _plans.load(path)
        except _plans.PlansError as e:
            raise fail("plans_unusable", f"gateway: {e}", EXIT_STATE) from None
        try:
            selection = rangesel.select(plans, spec)
        except rangesel.RangeError as e:
            raise fail(f"range_{e.code}", f"gateway: {e}", EXIT_BAD_RANGE) from None
        reg = registration.build(selection.tasks, plans)
        errors = reg.errors()
        if errors:
            raise fail("tasks_invalid", "gateway: the tasks cannot be registered: "
                       + "; ".join(f.message for f in errors), EXIT_BAD_RANGE)
        independent = len(reg.independent())
        implementers = _team.implementer_count(independent, parallel, planner_max_parallel)
        batches = _team.plan_batches(reg.deps())
    except StartError:
        raise
    except BaseException:
        _abort_quietly(project, sid)
        raise
    return Prepared(active, env_check, selection, reg, implementers, parallel,
                    planner_max_parallel, discuss, batches, path)


# --------------------------------------------------------------------------------------------
# The confirmation screen
# --------------------------------------------------------------------------------------------

def _label(section: str) -> str:
    return f"{section}." if section.isdigit() else section


def _tree(lines: list[str]) -> list[str]:
    return [("└── " if i == len(lines) - 1 else "├── ") + x for i, x in enumerate(lines)]


def screen(p: Prepared, env=None) -> str:
    """Seed 001's range confirmation screen (Japanese exactly; English outside a Japanese
    locale, gateway.i18n); findings, notes and batching only when there are any."""
    from gateway.i18n import is_ja

    ja = is_ja(env)
    t = store.safe_text
    reg = p.registration
    by_section = reg.by_section()
    ids = {e.id: e.section for e in reg.entries}
    rows = []
    for task in p.selection.tasks:
        e = by_section[task.section]
        wait = ""
        if e.blocked_by:
            after = ", ".join(t(ids[b], 20) for b in e.blocked_by)
            wait = f" ← {after} の後" if ja else f" ← after {after}"
        rows.append(f"{t(_label(task.section), 20)} {t(task.title, 120)} "
                    f"({t(task.marker, 20)}){wait}")
    n_tasks, n_impl = len(reg.entries), p.implementers
    if ja:
        impl = f"Implementer: {n_impl} 個 (独立タスク数に基づく)"
        if p.mode == "codex":
            impl = f"Implementer: {n_impl} 個 (独立タスク数に基づく, codex-implementer)"
        lines = ["🏇 Breezing - 範囲を確認させてください", "",
                 f"指定: 「{t(p.active.task_range or '', 200)}」", "", "対象タスク:", *_tree(rows),
                 "", "Team 構成:",
                 *_tree(["Lead: 調整専念 (Phase B で delegate mode)", impl, "Reviewer: 1 個"]), ""]
    else:
        impl = f"Implementer: {n_impl} (from the independent tasks" + (
            ", codex-implementer)" if p.mode == "codex" else ")")
        lines = ["🏇 Breezing - please confirm the range", "",
                 f"Range: \"{t(p.active.task_range or '', 200)}\"", "", "Tasks:", *_tree(rows),
                 "", "Team:",
                 *_tree(["Lead: coordinates only (delegate mode in Phase B)", impl,
                         "Reviewer: 1"]), ""]
    if reg.findings:
        lines.append("タスク品質チェック:" if ja else "Task quality checks:")
        for f in reg.findings:
            mark = "🔧" if f.level == "repaired" else "⚠️"
            tail = (" (自動付与)" if ja else " (added)") if f.level == "repaired" else ""
            lines.append(f"{mark} [{f.check}] {t(f.message, 300)}{tail}")
        lines.append("")
    for _code, message in p.selection.notes:
        lines.append(f"ℹ️ {t(message, 300)}")
    if p.selection.notes:
        lines.append("")
    if len(p.batches) > 1:
        first = len(p.batches[0])
        lines += [f"Progressive Batch: {n_tasks} タスクを {len(p.batches)} バッチで登録 "
                  f"(Batch 1: {first} タスク、次のバッチは 60% 完了で)" if ja else
                  f"Progressive Batch: {n_tasks} tasks in {len(p.batches)} batches (batch 1: "
                  f"{first} tasks; the next one at 60 % done)", ""]
    if ja:
        lines += [f"計 {n_tasks} タスクを Implementer {n_impl} 並列で完走します。", "",
                  "これで合っていますか？"]
    else:
        lines += [f"{n_tasks} task(s), {n_impl} implementer(s) in parallel.", "",
                  "Is this right?"]
    return "\n".join(lines)


#: Why the spawn steps name no permission mode: the seed asked for bypassPermissions
#: (teammates cannot answer a dialog), but Claude Code ignores the Agent tool's `mode` since
#: 2.1.212 (subagents inherit the Lead's mode), and the roles are kept by the gateway's
#: PreToolUse guards, which run in every mode.
SPAWN_MODE_NOTE = ("no permission mode is given: teammates inherit the Lead's (Claude Code "
                   "ignores the Agent tool's `mode` since 2.1.212) and the gateway's PreToolUse "
                   "guards keep each role in every mode")


def _spawn_steps(mode: str, n: int) -> list[str]:
    return [f"spawn {n} implementer(s) at once: subagent_type {IMPLEMENTER_AGENT[mode]} (an "
            f"Agent-tool teammate is registered by the gateway's SubagentStart hook); a "
            f"teammate that runs as a session of its own registers first with one Bash "
            f"command: `gateway breezing register implementer --name impl-{{N}}` "
            f"(N = 1..{n}); then assign each its files: `gateway breezing register "
            f"implementer --owns GLOB --name impl-{{N}}`",
            f"spawn 1 reviewer: subagent_type {REVIEWER_AGENT}; as a session of its own it "
            f"registers with `gateway breezing register reviewer --name reviewer` "
            f"({SPAWN_MODE_NOTE})",
            "`gateway breezing phase B` (delegate mode: the Lead only coordinates; `gateway "
            "breezing status` shows the progress and what is next)"]


def _q(word: str) -> str:
    import re
    import shlex

    return word if re.fullmatch(r"[^\s'\"\\$`!*?\[\]{}()<>|&;#~=]+", word) else \
        shlex.quote(word)


def confirm_command(p: Prepared) -> str:
    """The command line of the confirmed call: the same range and options, with --yes."""
    words = ["gateway", "breezing", "start", "--range", p.active.task_range or ""]
    if p.mode == "codex":
        words.append("--codex")
    if p.parallel:
        words += ["--parallel", str(p.parallel)]
    if p.planner_max_parallel:
        words += ["--planner-max-parallel", str(p.planner_max_parallel)]
    if not p.discuss:
        words.append("--no-discuss")
    return " ".join(_q(w) for w in words) + " --yes"


def as_json(p: Prepared) -> dict:
    reg = p.registration
    nxt = []
    if p.discuss:
        nxt.append(f"Phase 0: spawn the Planner ({PLANNER_AGENT}) and the Critic "
                   f"({CRITIC_AGENT}) ({SPAWN_MODE_NOTE}); at most "
                   f"{MAX_DISCUSS_ROUNDS} rounds; show the refined plan, then shut both down")
    nxt.append("show the confirmation screen and ask the user")
    nxt.append(f"yes: {confirm_command(p)} (add --planner-max-parallel N from Phase 0); no: "
               f"gateway breezing abort")
    return {
        "step": "confirm", "session_id": p.active.session_id, "impl_mode": p.mode,
        "agent_teams": p.env_check.as_dict(),
        **p.selection.as_dict(),
        "team": {"lead": 1, "implementer_count": p.implementers, "reviewer_count": 1,
                 "independent_tasks": len(reg.independent()),
                 "implementer_agent": IMPLEMENTER_AGENT[p.mode],
                 "reviewer_agent": REVIEWER_AGENT,
                 "parallel": p.parallel, "planner_max_parallel": p.planner_max_parallel},
        "registration": [e.as_dict() for e in reg.entries],
        "findings": [f.as_dict() for f in reg.findings],
        "batches": p.batches if len(p.batches) > 1 else None,
        "phase0": {"run": p.discuss, "max_rounds": MAX_DISCUSS_ROUNDS},
        "next": nxt,
    }


# --------------------------------------------------------------------------------------------
# Step 3
# --------------------------------------------------------------------------------------------

def initialise(project_dir, p: Prepared, *, team: str | None = None, model: str | None = None,
               codex_review: bool = False) -> dict:
    """Step 3's state changes (see the module docstring); returns what to register, in
    order. Raises ``StartError`` (the Step 0 file is then removed: early abort)."""
    from . import tasklist

    project = os.fspath(project_dir)
    lay = layout(project)
    sid = p.active.session_id
    team = team or sid
    if not tasklist.safe_team_name(team):
        _abort_quietly(project, sid)
        raise StartError("team_unsafe", f"gateway: --team {store.safe_text(team, 60)!r} is not "
                         f"a plain directory name (letters, digits, '.', '_', '-')"
                         + ABORTED_TAIL, EXIT_BAD_RANGE, True)
    entries = p.registration.entries
    batching = None
    if len(p.batches) > 1:
        first = set(p.batches[0])
        tasks = [t for t in p.selection.tasks if t.section in first]
        entries = registration.build(tasks).entries
        batching = _team.batching_state(p.batches, None, {e.section: e.id for e in entries})
    mapping = {e.id: e.section for e in entries}
    from .review import git_head

    base = git_head(project)

    def fn(current):
        if current is None or current.session_id != sid or current.team_name:
            raise StartError("changed", "gateway: breezing-active.json changed while the "
                             "session was prepared; nothing was written. Run `gateway breezing "
                             "start` again", EXIT_STATE)
        data = current.model_dump(mode="json", exclude_none=True)
        data.update({
            "team_name": team, "plans_md_mapping": mapping,
            "options": {"codex_review": bool(codex_review), "parallel": p.parallel}
            if p.parallel else {"codex_review": bool(codex_review)},
            "team": {"implementer_count": p.implementers, "reviewer_count": 1,
                     **({"model": model} if model else {})},
            "review": {"retake_count": 0, "max_retakes": 3}})
        if batching is not None:
            data["batching"] = batching
        if base:
            data["base_commit"] = base
        return BreezingActive.model_validate(data)

    try:
        files.update_active(lay, fn)
        removed = files.remove_files(lay, (SESSION_ROLES, ROLE_MARKER_GLOB))
        fast.set_phase(lay, "A", sid)
    except StartError as e:
        raise e
    except (store.StateError, ValueError) as e:
        aborted = _abort_quietly(project, sid)
        raise StartError("write_failed", f"gateway: the team could not be initialised: {e}"
                         + (ABORTED_TAIL if aborted else ""), EXIT_STATE, aborted) from None
    n = p.implementers
    return {
        "step": "initialized", "session_id": sid, "team_name": team, "impl_mode": p.mode,
        "implementer_count": n, "reviewer_count": 1,
        "implementer_agent": IMPLEMENTER_AGENT[p.mode], "reviewer_agent": REVIEWER_AGENT,
        "plans_md_mapping": mapping,
        "register": [e.as_dict() for e in entries],
        "batching": batching,
        "base_commit": base,
        "removed": [os.path.relpath(x, project) for x in removed],
        "next": ["TaskCreate each task of `register` in order (subject, description, "
                 "activeForm); then TaskUpdate addBlockedBy as listed",
                 *_spawn_steps(p.mode, n)],
    }
