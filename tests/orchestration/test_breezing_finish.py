"""`gateway breezing finish` (seed 001 完了ステージ, seed 000 クリーンアップ): the fast path, the
integration check, Plans.md cc:done in one write, the cleanup in the seed's order, and the
completion report exactly in the seed's format."""

import json
import os
import subprocess
import sys
import time

import pytest

from gateway.orchestration import finish as fin
from gateway.state import fast

from .conftest import SESSION, write_json

GATEWAY = os.path.join(os.path.dirname(sys.executable), "gateway")

# seed 001 完了レポート, verbatim
SEED_REPORT = """🏇 Breezing Complete!

## Summary
- 対象: 認証機能からユーザー管理まで (3 タスク)
- 所要時間: 15 分
- Implementer: 2 並列
- リテイク: 1 回

## Tasks
✅ 3. ログイン機能の実装
✅ 4. 認証ミドルウェアの作成
✅ 5. セッション管理

## Team Activity (TaskCompleted/TeammateIdle Hook - 実装済み)
| Teammate | 完了タスク | 完了時刻 |
|----------|-----------|---------|
| Implementer #1 | #1, #3 | 14:32, 14:45 |
| Implementer #2 | #2 | 14:38 |
| Reviewer | (レビュー完了) | 14:50 |

## Review
- 判定: APPROVE (Grade: A)
- Codex Review: N/A

## Build & Test
- ビルド: ✅ 成功
- テスト: ✅ 12/12 通過

## Commit
- abc1234: feat: implement auth flow (login, middleware, session)

楽勝でした 🐎💨"""

PLANS = """# Plans.md

## 認証機能

3. ログイン機能の実装 `cc:TODO`
4. 認証ミドルウェアの作成 `cc:TODO`

## ユーザー管理

5. セッション管理 `cc:TODO`
"""
MAPPING = {"task-1": "3", "task-2": "4", "task-3": "5"}
GIT = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t", "-c",
       "commit.gpgsign=false"]


def test_render_is_the_seed_report():
    report = {
        "range": "認証機能からユーザー管理まで", "task_count": 3, "duration_min": 15,
        "implementers": 2, "retakes": 1,
        "tasks": [{"section": "3", "title": "ログイン機能の実装", "done": True},
                  {"section": "4", "title": "認証ミドルウェアの作成", "done": True},
                  {"section": "5", "title": "セッション管理", "done": True}],
        "activity": [{"teammate": "Implementer #1", "tasks": ["#1", "#3"],
                      "times": ["14:32", "14:45"]},
                     {"teammate": "Implementer #2", "tasks": ["#2"], "times": ["14:38"]},
                     {"teammate": "Reviewer", "tasks": [], "times": ["14:50"], "review": True}],
        "review": {"verdict": "APPROVE", "grade": "A", "codex_review": "N/A"},
        "build": {"status": "passed"}, "tests": {"status": "passed", "passed": 12, "total": 12},
        "commits": [{"hash": "abc1234",
                     "subject": "feat: implement auth flow (login, middleware, session)"}]}
    assert fin.render(report) == SEED_REPORT


@pytest.mark.parametrize("name,label", [("implementer-1", "Implementer #1"),
                                        ("impl_2", "Implementer #2"),
                                        ("Implementer 3", "Implementer #3"),
                                        ("reviewer", "Reviewer"), ("qa-bot", "qa-bot"),
                                        (None, "(unknown)")])
def test_teammate_labels(name, label):
    assert fin.teammate_label(name) == label


# --- a finished team in a sample project ------------------------------------------------------

@pytest.fixture()
def utc(monkeypatch):
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture()
def team(proj, active, tasks_root, tmp_path):
    """The seed's session after its team finished: every task completed, the timeline of the
    report, one retake, a commit with the implementation since the session started."""
    subprocess.run(["git", "init", "-q", str(proj)], check=True)
    (proj / "Plans.md").write_text(PLANS, encoding="utf-8")
    (proj / "go.mod").write_text("module sample\n")
    subprocess.run([*GIT, "-C", str(proj), "add", "-A"], check=True)
    subprocess.run([*GIT, "-C", str(proj), "commit", "-qm", "init"], check=True)
    base = subprocess.run(["git", "-C", str(proj), "rev-parse", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.strip()
    active(started_at="2026-02-06T14:35:00Z", plans_md_mapping=MAPPING,
           review={"retake_count": 1, "max_retakes": 3}, base_commit=base)
    tasks_root(statuses=dict.fromkeys(MAPPING, "completed"))
    state = proj / ".claude" / "state"
    with open(state / "breezing-timeline.jsonl", "w") as fh:
        for tid, who, at in (("task-1", "implementer-1", "14:32"), ("task-2", "implementer-2",
                                                                      "14:38"),
                             ("task-3", "implementer-1", "14:45"),
                             ("task-4", "implementer-1", "14:46")):
            sid = SESSION if tid != "task-4" else "breezing-other"    # another session
            fh.write(json.dumps({"event": "task_completed", "task_id": tid, "teammate": who,
                                 "timestamp": f"2026-02-06T{at}:00Z", "session_id": sid}) + "\n")
    (proj / "src").mkdir()
    (proj / "src" / "auth.go").write_text("package auth\n")
    subprocess.run([*GIT, "-C", str(proj), "add", "-A"], check=True)
    subprocess.run([*GIT, "-C", str(proj), "commit", "-qm",
                    "feat: implement auth flow (login, middleware, session)"], check=True)
    head = subprocess.run(["git", "-C", str(proj), "rev-parse", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.strip()
    write_json(str(state / "review-result.json"),
               {"verdict": "APPROVE", "grade": "A", "commit_hash": head, "session_id": SESSION,
                "timestamp": "2026-02-06T14:50:00Z", "reviewer": "reviewer"})
    (state / "breezing-session-roles.json").write_text('{"a": {"role": "reviewer"}}')
    (state / "breezing-role-reviewer.json").write_text('{"role": "reviewer"}')
    (state / "breezing-signals.jsonl").write_text("")
    fast.set_phase(proj, "C")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    go = bin_dir / "go"
    go.write_text('#!/bin/sh\necho "$@" >> "$GO_LOG"\necho "ok  \tsample\t0.01s"\n'
                  'exit ${GO_EXIT:-0}\n')
    go.chmod(0o755)
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "GO_LOG": str(tmp_path / "go.log"),
           "GATEWAY_TASKS_DIR": str(tasks_root.root), "HOME": str(tmp_path), "LANG": "C.UTF-8", "GATEWAY_LANG": "ja",
           "TZ": "UTC", "GATEWAY_AUDIT_LOG": "off"}
    return proj, env, head


def state_files(proj):
    return sorted(os.listdir(proj / ".claude" / "state"))


def test_complete_marks_plans_done_after_the_fast_path_and_the_check(team):
    proj, env, head = team
    out = fin.complete(proj, env=env)
    assert out["approved_by"] == "fast_path" and out["fast_path"]["ok"] is True
    assert out["plans_done"] == ["3", "4", "5"]
    assert "`cc:done`" in (proj / "Plans.md").read_text() and "cc:TODO" not in \
        (proj / "Plans.md").read_text()
    assert open(env["GO_LOG"]).read() == "test ./...\n"
    rec = json.loads((proj / ".claude/state/gateway-breezing-finish.json").read_text())
    assert (rec["session_id"], rec["head"]) == (SESSION, head)


def test_the_completion_report_from_the_state(team, utc):
    proj, env, head = team
    fin.complete(proj, env=env)
    # the test step of the recorded check: 12/12 (go test reports no count; pytest would)
    rec_path = proj / ".claude/state/gateway-breezing-verify.json"
    rec = json.loads(rec_path.read_text())
    rec["steps"][6]["tests"] = {"passed": 12, "total": 12}
    rec["steps"][1].update(applies=True, status="passed")      # a consistency check ran
    rec_path.write_text(json.dumps(rec))
    report = fin.build_report(proj, now="2026-02-06T14:50:00Z")
    assert report["activity"][0] == {"teammate": "Implementer #1", "tasks": ["#1", "#3"],
                                     "times": ["14:32", "14:45"]}   # task-4: other session
    assert fin.render(report) == SEED_REPORT.replace("abc1234", head[:7])


def test_cleanup_removes_the_state_in_the_seed_order_and_keeps_the_timeline(team):
    proj, env, _ = team
    p = subprocess.run([GATEWAY, "breezing", "finish", "--cleanup", "--project", str(proj)],
                       capture_output=True, text=True, env=env)
    assert p.returncode == 1 and "have not run for session" in p.stderr
    assert "breezing-active.json" in state_files(proj)            # nothing removed
    fin.complete(proj, env=env)
    # seed 001: the Lead commits (step 5) before the cleanup (steps 6-7): not before
    with pytest.raises(fin.FinishError) as e:
        fin.cleanup(proj)
    assert e.value.code == "not_committed" and "commit the implementation and Plans.md " \
        "first" in str(e.value) and "breezing-active.json" in state_files(proj)
    report = fin.cleanup(proj, no_commit=True)
    assert report["removed"] == [".claude/state/breezing-active.json",
                                 ".claude/state/review-result.json",
                                 ".claude/state/breezing-session-roles.json",
                                 ".claude/state/breezing-role-reviewer.json",
                                 ".claude/state/breezing-signals.jsonl",
                                 ".claude/state/gateway-breezing-phase.json",
                                 ".claude/state/gateway-breezing-verify.json",
                                 ".claude/state/gateway-breezing-finish.json"]
    assert [f for f in state_files(proj) if not f.startswith(".")] == \
        ["breezing-timeline.jsonl"]


def test_not_in_phase_c(team):
    proj, env, _ = team
    fast.set_phase(proj, "B")
    with pytest.raises(fin.FinishError) as e:
        fin.complete(proj, env=env)
    assert e.value.code == "not_phase_c"
    assert "(phase B is recorded)" in str(e.value) and "gateway breezing phase C" in str(e.value)


def test_every_task_must_be_completed(team, tasks_root):
    proj, env, _ = team
    tasks_root(statuses={"task-2": "in_progress"})
    with pytest.raises(fin.FinishError) as e:
        fin.complete(proj, env=env)
    assert e.value.detail == ["task-2 (4): in_progress"]
    assert "cc:TODO" in (proj / "Plans.md").read_text()


def test_without_the_fast_path_the_user_confirms(team):
    proj, env, _ = team
    (proj / "x").write_text("after the review")
    subprocess.run([*GIT, "-C", str(proj), "add", "x"], check=True)
    subprocess.run([*GIT, "-C", str(proj), "commit", "-qm", "later"], check=True)
    with pytest.raises(fin.FinishError) as e:
        fin.complete(proj, env=env)
    assert e.value.code == "not_approved"
    assert "commits were made after the review" in str(e.value)
    assert "gateway breezing finish --approved" in str(e.value)
    out = fin.complete(proj, env=env, approved=True)
    assert out["approved_by"] == "user"


def test_reject_or_stop_stops(team):
    proj, env, head = team
    write_json(str(proj / ".claude/state/review-result.json"),
               {"verdict": "REJECT", "commit_hash": head, "session_id": SESSION})
    with pytest.raises(fin.FinishError) as e:
        fin.complete(proj, env=env, approved=True)
    assert e.value.code == "review_stopped"


def test_a_failing_check_changes_nothing(team):
    proj, env, _ = team
    env["GO_EXIT"] = "1"
    with pytest.raises(fin.FinishError) as e:
        fin.complete(proj, env=env)
    assert e.value.code == "verify_failed"
    assert str(e.value) == ("gateway: the integration check failed at step 7 (go test ./...: "
                            "failed); Plans.md was not changed. Fix it, then run `gateway "
                            "breezing finish` again")
    assert "cc:TODO" in (proj / "Plans.md").read_text()
    assert not (proj / ".claude/state/gateway-breezing-finish.json").exists()


def test_no_session(proj):
    with pytest.raises(fin.FinishError) as e:
        fin.complete(proj)
    assert e.value.code == "no_session"


def test_the_command_end_to_end(team):
    proj, env, head = team
    p = subprocess.run([GATEWAY, "breezing", "finish", "--project", str(proj)],
                       capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.split("\n")
    assert lines[:3] == ["Phase C (seed 001 完了ステージ):",
                         f"2. APPROVE fast path: yes (APPROVE of HEAD {head[:12]} in this "
                         f"session: straight to the integration check)",
                         "3. integration check:"]
    assert lines[9:13] == ["   7. go.mod: go test ./...", f"      go is {env['PATH'].split(':')[0]}"
                           "/go", "      ✅ passed", "   ✅ 1 step(s) passed"]
    assert lines[13] == "4. Plans.md: cc:done 3, 4, 5"
    p = subprocess.run([GATEWAY, "breezing", "finish", "--cleanup", "--project", str(proj)],
                       capture_output=True, text=True, env=env)
    assert p.returncode == 1 and "no commit since `gateway breezing finish`" in p.stderr
    subprocess.run([*GIT, "-C", str(proj), "commit", "-qam", "docs: Plans.md done"],
                   check=True)
    p = subprocess.run([GATEWAY, "breezing", "finish", "--cleanup", "--json", "--project",
                        str(proj)], capture_output=True, text=True, env=env)
    report = json.loads(p.stdout)
    assert p.returncode == 0 and report["task_count"] == 3 and report["retakes"] == 1
    assert report["commits"][1:] == [{"hash": head[:7], "subject": "feat: implement auth flow "
                                                                  "(login, middleware, "
                                                                  "session)"}]
    assert report["commits"][0]["subject"] == "docs: Plans.md done"
    p = subprocess.run([GATEWAY, "breezing", "finish", "--project", str(proj)],
                       capture_output=True, text=True, env=env)
    assert p.returncode == 1 and "no breezing session" in p.stderr
