"""`gateway breezing start | abort | next` (seed 001 Step 0 and Phase A), through the installed
command: the seed's confirmation screen exactly, Step 0 written at once, the environment
check's message, the early-abort cleanup on every failure path, Step 3's state, claim order."""

import json
import os
import subprocess
import sys

import pytest

from gateway.orchestration import prepare as pr
from gateway.state import fast, files

from .conftest import write_json

GATEWAY = os.path.join(os.path.dirname(sys.executable), "gateway")

# seed 001 2. 範囲確認 -- the screen, verbatim
SEED_SCREEN = """🏇 Breezing - 範囲を確認させてください

指定: 「認証機能からユーザー管理まで」

対象タスク:
├── 3. ログイン機能の実装 (cc:TODO)
├── 4. 認証ミドルウェアの作成 (cc:TODO)
└── 5. セッション管理 (cc:TODO)

Team 構成:
├── Lead: 調整専念 (Phase B で delegate mode)
├── Implementer: 2 個 (独立タスク数に基づく)
└── Reviewer: 1 個

計 3 タスクを Implementer 2 並列で完走します。

これで合っていますか？"""

# seed 001 1. 環境チェック -- 未設定時のメッセージ, verbatim
SEED_NOT_ENABLED = """⚠️ Agent Teams が有効化されていません。

以下を settings.json に追加してください:
{
  "env": {
    "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS": "1"
  }
}

Agent Teams なしで実行する場合は `/work all` を使用してください。"""

PLANS = """# Plans.md

## 認証機能

3. ログイン機能の実装 `cc:TODO`
   owns: src/auth/login.ts
4. 認証ミドルウェアの作成 `cc:TODO`
   owns: src/middleware.ts

## ユーザー管理

5. セッション管理 `cc:TODO`
   owns: src/session.ts

## その他

6. ダッシュボード `cc:TODO`
"""


@pytest.fixture()
def env(tmp_path):
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    e = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "LANG": "C.UTF-8", "GATEWAY_LANG": "ja",
         "CLAUDE_CONFIG_DIR": str(home / ".claude"), "GATEWAY_TASKS_DIR": str(tmp_path / "t"),
         "GATEWAY_AUDIT_LOG": "off"}
    return e


@pytest.fixture()
def app(proj, env):
    (proj / "Plans.md").write_text(PLANS, encoding="utf-8")
    env["CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS"] = "1"
    return proj


def run(proj, env, *args):
    return subprocess.run([GATEWAY, "breezing", *args, "--project", str(proj)],
                          capture_output=True, text=True, env=env, timeout=60)


def active_file(proj):
    return proj / ".claude" / "state" / "breezing-active.json"


def test_the_seed_confirmation_screen(app, env):
    p = run(app, env, "start", "--range", "認証機能からユーザー管理まで", "--parallel", "2")
    assert p.returncode == 0, p.stderr
    assert p.stdout == SEED_SCREEN + "\n"
    assert p.stderr == ("Phase 0 (Planner + Critic, 最大 3 ラウンド) の後に確認してください。\n"
                        "承認: gateway breezing start --range 認証機能からユーザー管理まで "
                        "--parallel 2 --yes   中止: gateway breezing abort\n")


def test_step0_is_written_at_once_with_impl_mode(app, env):
    p = run(app, env, "start", "--range", "全部やって", "--codex", "--no-discuss")
    assert p.returncode == 0, p.stderr
    data = json.loads(active_file(app).read_text())
    assert data["impl_mode"] == "codex" and data["task_range"] == "全部やって"
    assert data["session_id"].startswith("breezing-") and data["started_at"].endswith("Z")
    assert "team_name" not in data                 # Step 3's fields come after the yes
    assert "codex-implementer" in p.stdout
    p = run(app, env, "start", "--range", "全部やって")
    assert json.loads(active_file(app).read_text())["impl_mode"] == "standard"


def test_agent_teams_not_enabled_prints_the_seed_message_and_removes_step0(proj, env):
    (proj / "Plans.md").write_text(PLANS, encoding="utf-8")
    p = run(proj, env, "start", "--range", "全部やって")
    assert p.returncode == 1 and p.stdout == ""
    assert p.stderr == SEED_NOT_ENABLED + "\n\n(breezing-active.json was removed: early " \
                                          "abort; run `gateway breezing start` again once it " \
                                          "is fixed)\n"
    assert not active_file(proj).exists()
    p = run(proj, env, "start", "--range", "全部やって", "--json")
    out = json.loads(p.stdout)
    assert (p.returncode, out["error"], out["aborted"]) == (1, "agent_teams_disabled", True)


@pytest.mark.parametrize("where,value,ok", [
    ("project", "1", True), ("local", "1", True), ("user", "true", True),
    ("project", "0", False),
])
def test_agent_teams_from_settings_files(proj, env, where, value, ok):
    path = {"project": proj / ".claude" / "settings.json",
            "local": proj / ".claude" / "settings.local.json",
            "user": os.path.join(env["CLAUDE_CONFIG_DIR"], "settings.json")}[where]
    write_json(str(path), {"env": {"CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS": value}})
    check = pr.check_agent_teams(proj, env)
    assert check.ok is ok and check.source == str(path)


def test_the_local_settings_win_over_the_project_ones(proj, env):
    write_json(str(proj / ".claude" / "settings.json"),
               {"env": {"CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS": "1"}})
    write_json(str(proj / ".claude" / "settings.local.json"),
               {"env": {"CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS": "0"}})
    assert pr.check_agent_teams(proj, env).ok is False


def test_an_unreadable_settings_file_is_named(proj, env):
    (proj / ".claude" / "settings.json").write_text("{ not json")
    check = pr.check_agent_teams(proj, env)
    assert check.ok is False
    assert check.problems[0].startswith(str(proj / ".claude" / "settings.json") + " ")


@pytest.mark.parametrize("args,code,err", [
    (["--range", "決済から認証まで"], 2, "no task in Plans.md matches 「決済」"),
    (["--range", "その他から認証まで"], 2, "comes before"),
    (["--range", "全部やって", "--team", "../x", "--yes"], 2, "is not a plain directory name"),
])
def test_every_early_abort_removes_step0(app, env, args, code, err):
    p = run(app, env, "start", *args)
    assert p.returncode == code and err in p.stderr, p.stderr
    assert p.stderr.rstrip().endswith("(breezing-active.json was removed: early abort; run "
                                      "`gateway breezing start` again once it is fixed)")
    assert not active_file(app).exists()


def test_missing_plans_md_aborts(proj, env):
    env["CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS"] = "1"
    p = run(proj, env, "start", "--range", "全部やって")
    assert p.returncode == 3 and "Plans.md does not exist" in p.stderr
    assert not active_file(proj).exists()


def test_an_empty_range_writes_nothing(app, env):
    p = run(app, env, "start", "--range", " ")
    assert p.returncode == 2 and "the range is empty" in p.stderr
    assert not (app / ".claude" / "state" / "breezing-active.json").exists()


def test_a_running_session_is_never_overwritten_or_removed(app, env, active):
    data = active()                         # the seed's session, with a team
    p = run(app, env, "start", "--range", "全部やって")
    assert p.returncode == 3 and "a breezing session is already recorded" in p.stderr
    assert json.loads(active_file(app).read_text()) == data
    p = run(app, env, "abort")
    assert p.returncode == 3 and json.loads(active_file(app).read_text()) == data


def test_the_user_says_no(app, env):
    run(app, env, "start", "--range", "全部やって")
    state = app / ".claude" / "state"
    (state / "breezing-role-impl-1.json").write_text('{"role": "implementer"}')
    p = run(app, env, "abort")
    assert p.returncode == 0
    assert p.stdout == ("中止しました: .claude/state/breezing-active.json, "
                        ".claude/state/breezing-role-impl-1.json\n")
    assert not active_file(app).exists()
    assert run(app, env, "abort").stdout == "中止しました: 削除するファイルはありません\n"


def test_yes_initialises_the_team(app, env):
    assert run(app, env, "start", "--range", "認証機能からユーザー管理まで", "--parallel",
               "2").returncode == 0
    sid = json.loads(active_file(app).read_text())["session_id"]
    state = app / ".claude" / "state"
    (state / "breezing-session-roles.json").write_text('{"old": {"role": "reviewer"}}')
    p = run(app, env, "start", "--range", "認証機能からユーザー管理まで", "--parallel", "2",
            "--yes", "--team", "breezing-auth-feature", "--model", "sonnet", "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["session_id"] == sid                  # the confirmed Step 0 file is kept
    assert out["plans_md_mapping"] == {"task-1": "3", "task-2": "4", "task-3": "5"}
    assert [(e["id"], e["subject"], e["activeForm"]) for e in out["register"]] == [
        ("task-1", "3. ログイン機能の実装", "ログイン機能を実装中"),
        ("task-2", "4. 認証ミドルウェアの作成", "認証ミドルウェアを作成中"),
        ("task-3", "5. セッション管理", "セッション管理を実行中")]
    assert out["removed"] == [".claude/state/breezing-session-roles.json"]
    a = files.load_active(app)
    assert (a.team_name, a.impl_mode, a.task_range) == ("breezing-auth-feature", "standard",
                                                        "認証機能からユーザー管理まで")
    assert a.options.parallel == 2 and a.options.codex_review is False
    assert (a.team.implementer_count, a.team.reviewer_count, a.team.model) == (2, 1, "sonnet")
    assert (a.review.retake_count, a.review.max_retakes) == (0, 3)
    assert fast.effective_phase(app).phase == "A"
    # a second start now finds a running session
    assert run(app, env, "start", "--range", "全部やって").returncode == 3


def test_yes_human_screen_lists_what_to_register(app, env):
    p = run(app, env, "start", "--range", "ログイン", "--yes", "--codex")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.split("\n")
    assert lines[1:4] == ["登録するタスク (この順に TaskCreate):",
                          "  task-1: 3. ログイン機能の実装",
                          "      activeForm: ログイン機能を実装中; owns: src/auth/login.ts"]
    assert "subagent_type claude-code-harness:codex-implementer" in p.stdout


def test_file_conflicts_on_the_screen(app, env):
    (app / "Plans.md").write_text(PLANS.replace("owns: src/middleware.ts",
                                                "owns: src/auth/login.ts"), encoding="utf-8")
    p = run(app, env, "start", "--range", "認証機能からユーザー管理まで")
    assert "├── 4. 認証ミドルウェアの作成 (cc:TODO) ← 3 の後" in p.stdout
    assert ("タスク品質チェック:\n🔧 [V5] 4 and 3 both touch src/auth/login.ts: 4 waits for 3 "
            "(blockedBy task-1, added) (自動付与)\n⚠️ [V3] 3 and 4 share 1 of their owns "
            "(src/auth/login.ts): they run one after the other; consider merging them\n\n"
            "計 3 タスク") in p.stdout
    # 2 independent tasks (3 and 5): 2 implementers
    assert "├── Implementer: 2 個 (独立タスク数に基づく)" in p.stdout


# seed 001 Implementer 数の自動決定, 計算例 (independent, --parallel, planner_max_parallel)
@pytest.mark.parametrize("independent,parallel,planner,expected", [
    (5, None, None, 3), (5, 2, None, 2), (8, 5, 4, 4), (1, 5, None, 1), (20, 10, None, 5)])
def test_the_seed_implementer_table_through_start(proj, env, independent, parallel, planner,
                                                  expected):
    (proj / "Plans.md").write_text("".join(f"- [ ] {i} task {i} `cc:TODO`\n"
                                           for i in range(1, independent + 1)))
    env["CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS"] = "1"
    args = ["start", "--range", "全部やって", "--json"]
    if parallel:
        args += ["--parallel", str(parallel)]
    if planner:
        args += ["--planner-max-parallel", str(planner)]
    out = json.loads(run(proj, env, *args).stdout)
    assert out["team"]["independent_tasks"] == independent
    assert out["team"]["implementer_count"] == expected


def test_more_than_8_tasks_register_batch_1(proj, env):
    (proj / "Plans.md").write_text("".join(f"- [ ] {i} task {i} `cc:TODO`\n"
                                           for i in range(1, 12)))
    env["CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS"] = "1"
    out = json.loads(run(proj, env, "start", "--range", "全部やって", "--yes", "--json").stdout)
    assert len(out["register"]) == 8
    b = out["batching"]
    assert (b["total_tasks"], b["current_batch"]) == (11, 1)
    assert [x["status"] for x in b["batches"]] == ["in_progress", "pending"]
    assert b["batches"][0]["task_ids"] == [f"task-{i}" for i in range(1, 9)]
    assert b["batches"][1]["sections"] == ["9", "10", "11"]
    assert files.load_active(proj).batching.batches[1].status == "pending"


def test_json_screen_for_skills(app, env):
    p = run(app, env, "start", "--range", "認証機能からユーザー管理まで", "--json")
    out = json.loads(p.stdout)
    assert out["step"] == "confirm" and out["understood_as"] == "「認証」〜「ユーザー管理」を含むタスク"
    assert [t["section"] for t in out["tasks"]] == ["3", "4", "5"]
    assert out["phase0"] == {"run": True, "max_rounds": 3}
    assert out["team"]["implementer_agent"] == "claude-code-harness:task-worker"
    assert out["next"][0].startswith("Phase 0: spawn the Planner")
    assert out["next"][-1].startswith("yes: gateway breezing start --range "
                                      "認証機能からユーザー管理まで --yes")


def test_zokki_yatte_is_gateway_resume(proj, env, active, tasks_root):
    from .conftest import SEED_PLANS
    from .test_resume import SEED_SCREEN, SEED_STATUSES, SEED_SUBJECTS

    active()
    (proj / "Plans.md").write_text(SEED_PLANS, encoding="utf-8")
    tasks_root(statuses=SEED_STATUSES, subjects=SEED_SUBJECTS)
    env["GATEWAY_TASKS_DIR"] = str(tasks_root.root)
    p = run(proj, env, "start", "--range", "続きやって")
    assert (p.returncode, p.stdout) == (0, SEED_SCREEN + "\n")
    p = run(proj, env, "start", "--range", "続きやって", "--codex")
    assert "MODE MISMATCH" in p.stderr
    (proj / ".claude/state/breezing-active.json").unlink()
    p = run(proj, env, "start", "--range", "続きやって")
    assert (p.returncode, p.stdout) == (1, "前回のセッションが見つかりません\n")


def test_next_is_the_claim_order(proj, env, active, tasks_root):
    active()
    env["GATEWAY_TASKS_DIR"] = str(tasks_root.root)
    d = tasks_root()
    write_json(str(d / "task-1.json"), {"id": "task-1", "status": "in_progress",
                                        "subject": "4.1 ログイン機能の実装"})
    write_json(str(d / "task-2.json"), {"id": "task-2", "status": "pending",
                                        "blockedBy": ["task-1"]})
    write_json(str(d / "task-3.json"), {"id": "task-3", "status": "pending",
                                        "subject": "4.3 セッション管理"})
    p = run(proj, env, "next")
    assert (p.returncode, p.stdout) == (0, "task-3 4.3 セッション管理\n")
    write_json(str(d / "task-3.json"), {"id": "task-3", "status": "in_progress"})
    p = run(proj, env, "next")
    assert p.returncode == 1 and p.stderr == ("nothing to claim: every pending task waits for "
                                              "a task that is not completed\n")
    write_json(str(d / "task-1.json"), {"id": "task-1", "status": "completed"})
    assert json.loads(run(proj, env, "next", "--json").stdout)["next"] == "task-2"


def test_the_screens_name_no_permission_mode_and_say_why(app, env):
    # issue 25: the screen told the Lead to spawn teammates with `mode bypassPermissions`
    # without saying why; the client ignores the Agent tool's mode (2.1.212) and the guards
    # keep the roles in every mode
    p = run(app, env, "start", "--range", "認証機能からユーザー管理まで", "--json")
    out = json.loads(p.stdout)
    assert "bypassPermissions" not in json.dumps(out)
    assert "teammates inherit the Lead's" in out["next"][0]
    p = run(app, env, "start", "--range", "ログイン", "--yes", "--codex")
    assert p.returncode == 0, p.stderr
    assert "bypassPermissions" not in p.stdout
    assert "teammates inherit the Lead's" in p.stdout and "2.1.212" in p.stdout
