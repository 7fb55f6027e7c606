"""gateway.orchestration.resume and `gateway resume`: seed 000's 「続きやって」 flow -- the Step 2
screen exactly, Step 3's state changes, and the 異常状態への対応 table."""

import json
import os
import subprocess
import sys

import pytest

from gateway.orchestration import resume as rs
from gateway.state import fast

from .conftest import SEED_PLANS, SESSION, write_json

SEED_SCREEN = """前回のセッション: breezing-20260206-0300
開始: 2026-02-06 03:00
Team: breezing-auth-feature

TaskList 状態:
✅ task-1 (4.1) ログイン機能の実装
⏸ task-2 (4.2) 認証ミドルウェアの作成 (中断)
⏳ task-3 (4.3) セッション管理

続行しますか？"""

SEED_STATUSES = {"task-1": "completed", "task-2": "in_progress", "task-3": "pending"}
SEED_SUBJECTS = {"task-1": "4.1 ログイン機能の実装", "task-2": "4.2 認証ミドルウェアの作成",
                 "task-3": "4.3 セッション管理"}


@pytest.fixture()
def seed(proj, active, tasks_root):
    active()
    (proj / "Plans.md").write_text(SEED_PLANS, encoding="utf-8")
    tasks_root(statuses=SEED_STATUSES, subjects=SEED_SUBJECTS)
    return proj


def test_step2_screen_is_the_seeds(seed):
    assert rs.screen(rs.inspect(seed)) == SEED_SCREEN


def test_step1_no_session(proj):
    with pytest.raises(rs.ResumeError) as e:
        rs.inspect(proj)
    assert str(e.value) == "前回のセッションが見つかりません" and e.value.exit_code == 1


def test_step3_resets_in_progress_to_pending_and_maps_new_ids(seed):
    state = seed / ".claude" / "state"
    write_json(state / "breezing-session-roles.json",
               {"agent-a": {"role": "implementer", "owns": ["src/**"]}})
    write_json(state / "breezing-role-impl-1.json", {"role": "implementer", "owns": []})
    write_json(state / "breezing-role-reviewer.json", {"role": "reviewer"})
    fast.set_phase(seed, "B")
    report = rs.inspect(seed)
    done = rs.apply(seed, report, now="2026-02-07T09:30:00Z")
    assert done["tasks"] == [
        {"id": "task-1", "section": "4.2", "title": "認証ミドルウェアの作成", "was": "in_progress",
         "status": "pending", "previous_id": "task-2", "blocked_by": [], "owns": []},
        {"id": "task-2", "section": "4.3", "title": "セッション管理", "was": "pending",
         "status": "pending", "previous_id": "task-3", "blocked_by": [], "owns": []}]
    assert done["session_id"] == "breezing-20260207-0930"
    assert done["team_name"] == "breezing-auth-feature-r2"
    assert sorted(done["removed"]) == [".claude/state/breezing-role-impl-1.json",
                                       ".claude/state/breezing-role-reviewer.json",
                                       ".claude/state/breezing-session-roles.json",
                                       ".claude/state/gateway-breezing-phase.json"]
    saved = json.loads((state / "breezing-active.json").read_text())
    assert saved["plans_md_mapping"] == {"task-1": "4.2", "task-2": "4.3"}
    assert saved["completed_sections"] == ["4.1"]          # done by the old team
    assert saved["session_id"] == "breezing-20260207-0930"
    assert saved["resumed_from"] == SESSION
    assert saved["team_name"] == "breezing-auth-feature-r2"
    assert saved["started_at"] == "2026-02-07T09:30:00Z"
    # the rest of the Lead's metadata is kept (implementer count: 前回と同数)
    assert saved["team"] == {"implementer_count": 2, "reviewer_count": 1, "model": "sonnet"}
    assert saved["impl_mode"] == "standard" and saved["review"]["retake_count"] == 0
    assert sorted(os.listdir(state)) == ["breezing-active.json"] or all(
        n.startswith(".") for n in os.listdir(state) if n != "breezing-active.json")


def test_resumed_session_can_be_resumed_again(seed, tasks_root):
    rs.apply(seed, rs.inspect(seed), now="2026-02-07T09:30:00Z")
    tasks_root("breezing-auth-feature-r2", {"task-1": "completed", "task-2": "in_progress"})
    report = rs.inspect(seed)
    # 4.1 was completed by the first team: it is no longer mapped, but it is remembered (and
    # not mistaken for a task added to Plans.md, which still says cc:TODO until Phase C)
    assert rs.screen(report).split("\n") == [
        "前回のセッション: breezing-20260207-0930", "開始: 2026-02-07 09:30",
        "Team: breezing-auth-feature-r2", "", "TaskList 状態:",
        "✅ (4.1) ログイン機能の実装 (前回までのセッションで完了)",
        "✅ task-1 (4.2) 認証ミドルウェアの作成", "⏸ task-2 (4.3) セッション管理 (中断)", "",
        "続行しますか？"]
    assert report.added == []
    done = rs.apply(seed, report, now="2026-02-08T10:00:00Z")
    assert done["team_name"] == "breezing-auth-feature-r3"
    assert [t["section"] for t in done["tasks"]] == ["4.3"]
    assert done["completed_sections"] == ["4.1", "4.2"]
    from gateway.state import files

    active = files.load_active(seed)
    assert rs.completion_sections(active) == ["4.1", "4.2", "4.3"]    # what Phase C marks


def test_apply_refuses_a_state_changed_meanwhile(seed, active):
    report = rs.inspect(seed)
    active(session_id="breezing-other")
    with pytest.raises(rs.ResumeError, match="changed while the resume was prepared"):
        rs.apply(seed, report)
    assert json.loads((seed / ".claude/state/breezing-active.json").read_text())[
        "session_id"] == "breezing-other"


# --- 異常状態への対応 -------------------------------------------------------------------


def test_corrupt_breezing_active_is_reported(proj):
    p = proj / ".claude" / "state" / "breezing-active.json"
    p.write_text('{"session_id": "x", "plans_md_mapping": {')
    with pytest.raises(rs.ResumeError) as e:
        rs.inspect(proj)
    assert e.value.exit_code == 3
    assert str(e.value).startswith(f"gateway: state file {p}: ends early (truncated or "
                                   f"half-written)")
    assert "To repair: fix the reported field(s)" in str(e.value)


@pytest.mark.parametrize("missing,what", [("team_name", "team_name"),
                                          ("plans_md_mapping", "plans_md_mapping")])
def test_missing_required_fields_are_reported(proj, active, missing, what):
    active(**{missing: None})
    with pytest.raises(rs.ResumeError) as e:
        rs.inspect(proj)
    assert e.value.exit_code == 3
    assert f"lacks {what}: the session never finished team initialisation" in str(e.value)


def test_tasklist_gone_states_from_plans_markers(proj, active, tasks_root):
    active()
    (proj / "Plans.md").write_text(SEED_PLANS.replace(
        "4.1 ログイン機能の実装 <!-- cc:TODO -->", "4.1 ログイン機能の実装 <!-- cc:done -->"),
        encoding="utf-8")
    report = rs.inspect(proj)
    lines = rs.screen(report).split("\n")
    assert lines[5:8] == ["✅ task-1 (4.1) ログイン機能の実装", "⏳ task-2 (4.2) 認証ミドルウェアの作成",
                          "⏳ task-3 (4.3) セッション管理"]
    assert lines[9] == (f"⚠️ TaskList ディレクトリ {tasks_root.root}/breezing-auth-feature "
                        f"がありません: 状態は TaskCompleted の記録と Plans.md のマーカーから復元しました")
    assert [e.section for e in report.to_register()] == ["4.2", "4.3"]


def test_a_broken_task_file_is_re_registered_as_pending(seed, tasks_root):
    (tasks_root.root / "breezing-auth-feature" / "task-1.json").write_text("{broken")
    report = rs.inspect(seed)
    e = report.entries[0]
    assert e.status == "pending" and e.note == (
        "タスクファイルが壊れています (is not valid JSON: Expecting property name enclosed in "
        "double quotes at line 1 column 2): pending として再登録")
    assert [x.section for x in report.to_register()] == ["4.1", "4.2", "4.3"]


def test_plans_changed_removed_task_is_skipped(seed):
    (seed / "Plans.md").write_text(SEED_PLANS.replace(
        "### 4.3 セッション管理 <!-- cc:TODO -->\n", ""), encoding="utf-8")
    report = rs.inspect(seed)
    assert rs.screen(report).split("\n")[7] == "⏭ task-3 (4.3) セッション管理 (4.3 は Plans.md にありません: スキップ)"
    assert [e.section for e in report.to_register()] == ["4.2"]


def test_plans_changed_done_task_is_skipped(seed):
    (seed / "Plans.md").write_text(SEED_PLANS.replace(
        "4.3 セッション管理 <!-- cc:TODO -->", "4.3 セッション管理 <!-- cc:done -->"),
        encoding="utf-8")
    report = rs.inspect(seed)
    assert rs.screen(report).split("\n")[7] == "✅ task-3 (4.3) セッション管理 (Plans.md で cc:done: スキップ)"
    assert [e.section for e in report.to_register()] == ["4.2"]


def test_plans_changed_renumbered_section_is_found_by_title(seed):
    # the mapping names 4.2, Plans.md now calls that task 5.1: rebuilt from Plans.md
    (seed / "Plans.md").write_text(SEED_PLANS.replace("### 4.2 認証ミドルウェアの作成",
                                                      "### 5.1 認証ミドルウェアの作成"),
                                   encoding="utf-8")
    report = rs.inspect(seed)
    e = report.entries[1]
    assert (e.section, e.status, e.skip) == ("5.1", "in_progress", False)
    assert e.note == "4.2 は Plans.md で 5.1 になりました (タイトルで照合)"
    done = rs.apply(seed, report, now="2026-02-07T09:30:00Z")
    assert [t["section"] for t in done["tasks"]] == ["5.1", "4.3"]


def test_plans_changed_added_tasks_are_offered(seed):
    (seed / "Plans.md").write_text(SEED_PLANS + "### 4.4 パスワード再設定 <!-- cc:TODO -->\n"
                                   "### 9.1 関係ない別機能 <!-- cc:TODO -->\n", encoding="utf-8")
    report = rs.inspect(seed)
    assert [t.section for t in report.added] == ["4.4"]
    assert rs.screen(report).split("\n")[-3] == ("⚠️ Plans.md に追加されたタスク: 4.4 パスワード再設定 "
                                                 "(含める場合は --include-added)")
    assert [e.section for e in report.to_register()] == ["4.2", "4.3"]
    done = rs.apply(seed, report, include_added=True, now="2026-02-07T09:30:00Z")
    assert [(t["id"], t["section"]) for t in done["tasks"]] == [
        ("task-1", "4.2"), ("task-2", "4.3"), ("task-3", "4.4")]


def test_an_unsafe_team_name_is_refused(proj, active):
    active(team_name="../../home")
    with pytest.raises(rs.ResumeError, match="is not a plain directory name") as e:
        rs.inspect(proj)
    assert e.value.exit_code == 3


def test_batching_registers_the_current_batch_and_keeps_pending_ones(proj, active, tasks_root):
    active(plans_md_mapping={"task-1": "4.1", "task-2": "4.2", "task-3": "4.3"}, batching={
        "enabled": True, "total_tasks": 5, "current_batch": 1, "batches": [
            {"batch": 1, "task_ids": ["task-1", "task-2", "task-3"], "status": "in_progress"},
            {"batch": 2, "task_ids": [], "status": "pending", "sections": ["5.1", "5.2"]}]})
    (proj / "Plans.md").write_text(SEED_PLANS + "\n## 5. ユーザー管理\n### 5.1 一覧 <!-- cc:TODO -->\n"
                                   "### 5.2 編集 <!-- cc:done -->\n", encoding="utf-8")
    tasks_root(statuses=SEED_STATUSES)
    report = rs.inspect(proj)
    assert rs.screen(report).split("\n")[8] == "⏳ (5.1) 一覧 (バッチ 2: 未登録)"
    assert [e.section for e in report.pending] == ["5.1"]           # 5.2 is done already
    done = rs.apply(proj, report, now="2026-02-07T09:30:00Z")
    saved = json.loads((proj / ".claude/state/breezing-active.json").read_text())
    assert saved["batching"]["batches"][0]["task_ids"] == ["task-1", "task-2"]
    assert saved["batching"]["batches"][1] == {"batch": 2, "task_ids": [],
                                               "status": "pending", "sections": ["5.1", "5.2"]}
    assert [t["section"] for t in done["tasks"]] == ["4.2", "4.3"]


def test_next_team_name():
    assert rs.next_team_name("breezing-auth") == "breezing-auth-r2"
    assert rs.next_team_name("breezing-auth-r2") == "breezing-auth-r3"
    assert rs.next_team_name("breezing-auth-r9") == "breezing-auth-r10"


# --- the CLI -------------------------------------------------------------------------------

GATEWAY = os.path.join(os.path.dirname(sys.executable), "gateway")


def _cli(proj, *args):
    env = {**os.environ}
    return subprocess.run([GATEWAY, "resume", "--project", str(proj), *args],
                          capture_output=True, text=True, env=env, timeout=60)


def test_cli_shows_the_seed_screen(seed):
    p = _cli(seed)
    assert p.returncode == 0 and p.stdout == SEED_SCREEN + "\n" and p.stderr == ""


def test_cli_no_session_exit_1(proj):
    p = _cli(proj)
    assert (p.returncode, p.stdout, p.stderr) == (1, "前回のセッションが見つかりません\n", "")
    p = _cli(proj, "--json")
    assert p.returncode == 1 and json.loads(p.stdout) == {
        "found": False, "error": "not_found", "message": "前回のセッションが見つかりません"}


def test_cli_broken_state_exit_3(proj):
    (proj / ".claude/state/breezing-active.json").write_text("not json")
    p = _cli(proj)
    assert p.returncode == 3 and p.stdout == ""
    assert "breezing-active.json: is not valid JSON" in p.stderr and "To repair:" in p.stderr


def test_cli_json_and_yes(seed):
    p = _cli(seed, "--json", "--mode", "codex")
    out = json.loads(p.stdout)
    assert p.returncode == 0 and out["found"] is True and out["impl_mode"] == "standard"
    assert [(t["id"], t["status"]) for t in out["tasks"]] == list(SEED_STATUSES.items())
    assert out["to_register"] == [{"section": "4.2", "title": "認証ミドルウェアの作成",
                                   "was": "in_progress"},
                                  {"section": "4.3", "title": "セッション管理", "was": "pending"}]
    assert out["mode_mismatch"].startswith("MODE MISMATCH: the running skill is /breezing "
                                           "--codex but breezing-active.json has impl_mode "
                                           "standard")
    p = _cli(seed, "--yes", "--team", "breezing-auth-2")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.split("\n")
    assert lines[:9] == SEED_SCREEN.split("\n")[:9]
    assert lines[9].startswith("再開の準備ができました: session breezing-")
    assert lines[9].endswith("(前回 breezing-20260206-0300), Team breezing-auth-2")
    assert lines[10:13] == ["登録するタスク (この順に TaskCreate):",
                            "  task-1 (4.2) 認証ミドルウェアの作成 (前回は中断)",
                            "  task-2 (4.3) セッション管理"]
    assert lines[13] == ("次: Team breezing-auth-2 を作成し、Implementer 2 個 "
                         "(claude-code-harness:task-worker) と Reviewer 1 個 "
                         "(claude-code-harness:code-reviewer) を spawn、delegate mode (gateway "
                         "breezing phase B) で実装サイクルから再開")
    p = _cli(seed, "--yes", "--team", "../x")
    assert p.returncode == 2 and "is not a plain directory name" in p.stderr
