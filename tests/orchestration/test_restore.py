"""gateway.orchestration.restore: what the Lead is told after compaction or a resume (seed 000
Compaction 復元フロー): the team for impl_mode, delegate mode, the team's state, the mode
mismatch check; a broken state file never becomes a guessed instruction."""

import json

import pytest

from gateway.orchestration import restore
from gateway.state import fast

from .conftest import SESSION


def _ctx(proj, source="compact", transcript=None):
    return restore.breezing_context(proj, source, transcript_path=transcript)


def test_nothing_without_a_breezing_session(proj):
    r = _ctx(proj)
    assert r.context is None and r.warning is None


@pytest.mark.parametrize("mode,agent,never", [
    ("standard", "claude-code-harness:task-worker", "claude-code-harness:codex-implementer"),
    ("codex", "claude-code-harness:codex-implementer", "claude-code-harness:task-worker"),
    (None, "claude-code-harness:task-worker", "claude-code-harness:codex-implementer"),
])
def test_the_team_is_rebuilt_for_impl_mode(proj, active, tasks_root, mode, agent, never):
    active(impl_mode=mode)
    r = _ctx(proj)
    lines = r.context.split("\n")
    assert lines[0] == (f"gateway: a /breezing session is recorded in this project (session "
                        f"{SESSION}, team breezing-auth-feature, started 2026-02-06T03:00:00Z). "
                        f"Context was compacted: you are the Lead. Do not implement tasks "
                        f"yourself.")
    unset = " (unset: standard, backward compatible)" if mode is None else ""
    assert lines[1] == (f"- Mode: impl_mode {mode or 'standard'}{unset}: implementers are "
                        f"subagent_type {agent}, never {never}; the reviewer is "
                        f"claude-code-harness:code-reviewer.")
    assert r.warning is None


def test_team_gone_means_a_new_team_with_the_same_make_up(proj, active, tasks_root):
    active(impl_mode="codex")
    lines = _ctx(proj).context.split("\n")
    assert lines[2] == (f"- The team's task list {tasks_root.root}/breezing-auth-feature is "
                        f"not there. If the team is gone: re-register the unfinished tasks of "
                        f"the 3 mapped Plans.md task(s) (`gateway resume` lists them, `gateway "
                        f"resume --yes` records the new team), spawn 2 implementer(s) "
                        f"(claude-code-harness:codex-implementer) and 1 reviewer "
                        f"(claude-code-harness:code-reviewer), then resume the cycle.")
    assert lines[3] == "- Retakes so far: 0 of 3; beyond that, escalate to the user."


def test_team_exists_means_resume_the_cycle(proj, active, tasks_root):
    active()
    tasks_root(statuses={"task-1": "completed", "task-2": "in_progress", "task-3": "pending"})
    lines = _ctx(proj).context.split("\n")
    assert lines[2] == ("- Team task list (3 task(s)): 1 completed, 1 in progress, 1 pending. "
                        "Check TaskList and resume the implement/review cycle with the "
                        "existing team.")


def test_every_task_completed_means_the_final_review(proj, active, tasks_root):
    active()
    tasks_root(statuses={"task-1": "completed"})
    assert "ask the Reviewer for the final review" in _ctx(proj).context


def test_phase_b_keeps_the_lead_in_delegate_mode(proj, active, tasks_root):
    active()
    fast.set_phase(proj, "B")
    lines = _ctx(proj).context.split("\n")
    assert lines[2] == ("- Phase B (delegate): use only TaskCreate, TaskUpdate, TaskList, "
                        "TaskGet and SendMessage, and the gateway's coordination steps as one "
                        "Bash command each (`gateway breezing status|review|batch|register|"
                        "phase C`, `gateway resume`); no Write, Edit or other Bash of your own.")


def test_phase_b_with_the_team_gone_tells_the_lead_what_it_can_do(proj, active, tasks_root):
    """Issue 27 item 3: the restore names `gateway resume --yes`, which the delegate guard
    lets the Lead run in Phase B, and the hooks' record of this session's task events."""
    from gateway.orchestration import progress

    a = active()
    fast.set_phase(proj, "B")
    progress.record_created(proj, files_load(proj), task_id="1", subject="4.1 x")
    text = _ctx(proj).context
    assert ("The hooks saw 1 task event(s) of this session: check TaskList first; if the "
            "team's tasks are there, resume the cycle with the existing team. If the team is "
            "gone: run `gateway resume --yes` (allowed in delegate mode: it keeps the completed "
            "tasks, gives the unfinished ones new task ids and returns the session to Phase A)"
            ) in text
    assert a["session_id"] in text


def files_load(proj):
    from gateway.state import files

    return files.load_active(proj)


def test_a_session_still_in_preparation(proj, active):
    active(team_name=None, plans_md_mapping=None, team=None, review=None, options=None)
    lines = _ctx(proj).context.split("\n")
    assert lines[2] == ("- The session is still being prepared (Step 0 written, no team yet): "
                        "continue the /breezing preparation (range confirmation, team "
                        "initialisation); do not implement directly.")


def test_resume_source_points_to_the_resume_flow(proj, active, tasks_root):
    active()
    tasks_root(statuses={"task-1": "pending"})
    r = _ctx(proj, "resume")
    assert "This session was resumed: you are the Lead." in r.context
    assert ("- Teammates do not survive a resumed session. To continue: `gateway resume` "
            "shows the previous session") in r.context


@pytest.mark.parametrize("content,problem", [
    ('{"session_id": "s", "impl_mode": "turbo"', "ends early"),
    ('{"session_id": "s", "impl_mode": "turbo"}', "does not match the breezing-active.json "
                                                   "schema: impl_mode"),
    ('[]', "does not match the breezing-active.json schema"),
])
def test_a_broken_breezing_active_is_reported_never_guessed(proj, content, problem):
    (proj / ".claude" / "state" / "breezing-active.json").write_text(content)
    r = _ctx(proj)
    assert r.context.startswith("gateway: the /breezing session state cannot be used: "
                                ".claude/state/breezing-active.json ")
    assert problem in r.context
    assert ("Do not rebuild the team, spawn teammates or implement tasks from memory: the "
            "session's mode and team cannot be known. Tell the user; to repair: ") in r.context
    assert "task-worker" not in r.context and "codex-implementer" not in r.context
    assert r.warning.startswith("gateway: state file ") and "To repair:" in r.warning


def test_a_broken_phase_record_is_reported(proj, active):
    active()
    (proj / ".claude" / "state" / "gateway-breezing-phase.json").write_text('{"phase": "Z"}')
    r = _ctx(proj)
    assert "gateway-breezing-phase.json" in r.context
    assert "whether the Lead is in delegate mode cannot be known" in r.context
    assert "task-worker" not in r.context


def test_an_unsafe_team_name_is_refused(proj, active):
    active(team_name="../../etc")
    r = _ctx(proj)
    assert "team_name '../../etc' is not a plain directory name" in r.context
    assert r.warning


# --- the mode mismatch ---------------------------------------------------------------------


def _transcript(tmp_path, args):
    lines = [{"type": "user", "message": {"role": "user", "content": "hello"}},
             {"type": "user", "message": {"role": "user", "content":
              f"<command-message>breezing is running…</command-message>\n"
              f"<command-name>/breezing</command-name>\n<command-args>{args}</command-args>"}},
             {"type": "assistant", "message": {"role": "assistant", "content": "ok"}}]
    p = tmp_path / "t.jsonl"
    p.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines))
    return str(p)


@pytest.mark.parametrize("args,mode", [("--codex 全部やって", "codex"), ("全部やって", "standard"),
                                       ("--parallel 2 ログイン機能", "standard")])
def test_skill_mode_from_the_transcript(tmp_path, args, mode):
    assert restore.skill_mode_from_transcript(_transcript(tmp_path, args)) == mode


def test_skill_mode_unknown_without_a_breezing_command(tmp_path):
    p = tmp_path / "t.jsonl"
    p.write_text('{"message": {"content": "/work all"}}\n')
    assert restore.skill_mode_from_transcript(str(p)) is None
    assert restore.skill_mode_from_transcript(str(tmp_path / "none.jsonl")) is None
    assert restore.skill_mode_from_transcript("relative.jsonl") is None
    assert restore.skill_mode_from_transcript(None) is None


@pytest.mark.parametrize("impl,skill,expected", [
    ("codex", "codex", None), ("standard", "standard", None), (None, "standard", None),
    ("standard", None, None),
    ("standard", "codex", "the running skill is /breezing --codex but breezing-active.json "
                          "has impl_mode standard"),
    ("codex", "standard", "the running skill is /breezing (without --codex) but "
                          "breezing-active.json has impl_mode codex"),
])
def test_mode_mismatch(impl, skill, expected):
    got = restore.mode_mismatch(impl, skill)
    if expected is None:
        assert got is None
    else:
        assert got == (f"MODE MISMATCH: {expected}: ask the user which mode to continue in "
                       f"before spawning any implementer")


def test_a_mismatch_is_in_the_context_and_warned(proj, active, tasks_root, tmp_path):
    active(impl_mode="standard")
    r = _ctx(proj, transcript=_transcript(tmp_path, "--codex 続きやって"))
    assert "- MODE MISMATCH: the running skill is /breezing --codex but breezing-active.json " \
           "has impl_mode standard" in r.context
    assert r.warning.startswith("gateway: MODE MISMATCH")
    r = _ctx(proj, transcript=_transcript(tmp_path, "続きやって"))
    assert r.warning is None and "MISMATCH" not in r.context
    assert r.context.endswith("- If the skill you are running does not match impl_mode "
                              "(/breezing --codex with standard, or /breezing with codex), "
                              "ask the user before continuing.")
