"""`gateway crew new | plan | validate-result | status` (seed 004): command directories that
never collide, the waves with the seed's progress and ETA messages, the result checks and
metadata defaults, and where a command stands (checkpoint, failure summary, duration warning,
feedback loop, retrospect mode)."""

import json
import os
import subprocess
import sys
from datetime import datetime

import pytest

from gateway.orchestration import crewdirs, crewresult, crewstatus
from gateway.orchestration.crew import CrewError

from .test_crew import PLAN, SEED_LOG

GATEWAY = os.path.join(os.path.dirname(sys.executable), "gateway")


def cli(root, *args, env=None):
    return subprocess.run([GATEWAY, "crew", *args, "--project", str(root)]
                          if args[0] != "validate-result" else [GATEWAY, "crew", *args],
                          capture_output=True, text=True, timeout=60, cwd=str(root),
                          env=env or {**os.environ, "GATEWAY_AUDIT_LOG": "off"})


# --- crew new ---------------------------------------------------------------------------

def test_new_numbers_directories_with_three_digits(tmp_path):
    assert crewdirs.new_cmd(tmp_path) == "cmd_001"
    assert crewdirs.new_cmd(tmp_path) == "cmd_002"
    assert sorted(os.listdir(tmp_path / "work" / "cmd_001")) == ["results", "tasks"]
    (tmp_path / "work" / "cmd_041").mkdir()
    (tmp_path / "work" / "notes").mkdir()
    assert crewdirs.new_cmd(tmp_path) == "cmd_042"
    (tmp_path / "work" / "cmd_999").mkdir()
    assert crewdirs.new_cmd(tmp_path) == "cmd_1000"


def test_new_prints_the_id(tmp_path):
    p = cli(tmp_path, "new")
    assert (p.returncode, p.stdout) == (0, "cmd_001\n")
    p = cli(tmp_path, "new", "--json")
    assert json.loads(p.stdout) == {"id": "cmd_002", "path": str(tmp_path / "work" / "cmd_002")}


def test_concurrent_callers_never_get_the_same_number(tmp_path):
    """Many processes at once, each `gateway crew new` twice: every id is distinct, every
    caller succeeded, and the numbers are exactly 1..N."""
    n = 12
    script = f"{GATEWAY} crew new --project {tmp_path} && {GATEWAY} crew new --project {tmp_path}"
    procs = [subprocess.Popen(["sh", "-c", script], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(n)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1] for o in outs]
    ids = [line for out, _ in outs for line in out.split()]
    assert len(ids) == 2 * n and len(set(ids)) == 2 * n
    assert sorted(ids) == [f"cmd_{i:03d}" for i in range(1, 2 * n + 1)]


def test_lost_races_are_retried_at_most_5_times(tmp_path, monkeypatch):
    real = os.mkdir
    attempts = []

    def foreign(path, *a, **kw):          # another creator always takes the number first
        if os.path.basename(path).startswith("cmd_"):
            attempts.append(path)
            real(path, *a, **kw)
            raise FileExistsError(path)
        return real(path, *a, **kw)
    monkeypatch.setattr(os, "mkdir", foreign)
    with pytest.raises(CrewError) as e:
        crewdirs.new_cmd(tmp_path)
    assert len(attempts) == 5
    assert "after 5 attempts" in str(e.value)


def test_one_lost_race_takes_the_next_number(tmp_path, monkeypatch):
    real = os.mkdir
    lost = []

    def once(path, *a, **kw):
        if os.path.basename(path) == "cmd_001" and not lost:
            lost.append(path)
            real(path, *a, **kw)
            raise FileExistsError(path)
        return real(path, *a, **kw)
    monkeypatch.setattr(os, "mkdir", once)
    assert crewdirs.new_cmd(tmp_path) == "cmd_002"


def test_work_must_be_a_real_directory(tmp_path):
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", tmp_path / "work")
    p = cli(tmp_path, "new")
    assert p.returncode == 1 and "is not a plain directory" in p.stderr
    assert os.listdir(tmp_path / "elsewhere") == []


# --- crew plan --------------------------------------------------------------------------

@pytest.fixture()
def crewproj(tmp_path):
    (tmp_path / "work" / "cmd_001" / "results").mkdir(parents=True)
    (tmp_path / "work" / "cmd_001" / "plan.md").write_text(PLAN, encoding="utf-8")
    return tmp_path


def test_plan_shows_the_seed_progress_messages(crewproj):
    (crewproj / "config.yaml").write_text("max_parallel: 3\n")
    p = cli(crewproj, "plan", "work/cmd_001/plan.md")
    assert p.returncode == 0, p.stderr
    assert p.stdout.split("\n") == [
        "work/cmd_001/plan.md: 5 task(s) in 3 wave(s); ETA from fallback estimates (0 past "
        "log(s), 10 needed for averages), max_parallel 3",
        "Wave 1/3: 3 tasks running (~2 min est.)",          # the seed's example
        "  task_1 researcher haiku: survey",
        "  task_2 coder sonnet: code",
        "  task_3 coder sonnet: more code",
        "Wave 2/3: 1 task running (~1 min est.)",
        "  task_4 writer haiku: docs after 1, 2",
        "Wave 3/3: 1 task running (~1 min est.)",
        "  task_5 reviewer sonnet: review after 4",
        "Phase 3 (集約): 必須", ""]


def test_plan_defaults_background_and_stats(crewproj):
    view = crewstatus.plan_view(crewproj, crewproj / "work/cmd_001/plan.md")
    assert view["max_parallel"] == 10                   # claude-crew's default
    assert view["waves"][0]["message"] == "Wave 1/3: 3 tasks running (~1 min est.)"
    view = crewstatus.plan_view(crewproj, crewproj / "work/cmd_001/plan.md", background=True)
    assert view["waves"][0]["message"] == "Wave 1/3: 3 tasks running (background)"
    (crewproj / "config.yaml").write_text("background_threshold: 3\nmax_parallel: 1\n")
    view = crewstatus.plan_view(crewproj, crewproj / "work/cmd_001/plan.md")
    assert [w["message"] for w in view["waves"]] == [
        "Wave 1/3: 3 tasks running (background)", "Wave 2/3: 1 task running (~2 min est.)",
        "Wave 3/3: 1 task running (~1 min est.)"]
    for i in range(2, 12):                              # 10 past logs: averages
        d = crewproj / "work" / f"cmd_{i:03d}"
        d.mkdir()
        (d / "execution_log.yaml").write_text(
            "tasks:\n  - {role: worker_writer, task: task_1, status: success, "
            "duration_sec: 600}\n")
    view = crewstatus.plan_view(crewproj, crewproj / "work/cmd_001/plan.md")
    assert view["eta_source"] == "stats" and view["past_logs"] == 10
    assert view["waves"][1]["message"] == "Wave 2/3: 1 task running (~10 min est.)"


# seed 004 フェーズ省略の判断基準: | サブタスク数 | 依存関係 | Phase 3（集約） |
@pytest.mark.parametrize("n,deps,need", [(1, False, "省略可"), (2, False, "任意"),
                                         (3, False, "必須"), (5, False, "必須"),
                                         (2, True, "必須")])
def test_the_phase_skip_table(n, deps, need):
    assert crewstatus.phase3_need(n, deps) == need


def test_plan_errors_exit_2(crewproj):
    (crewproj / "bad.md").write_text("| # | Task | Depends On |\n|---|---|---|\n| 1 | a | 2 |\n")
    p = cli(crewproj, "plan", "bad.md")
    assert p.returncode == 2 and "task 1 depends on 2, which is not a task" in p.stderr
    (crewproj / "config.yaml").write_text("max_parallel: 99\n")
    p = cli(crewproj, "plan", "work/cmd_001/plan.md")
    assert p.returncode == 2 and "max_parallel must be a whole number from 1 to 20" in p.stderr


# --- crew validate-result ------------------------------------------------------------------

def result(tmp_path, header=None, body_lines=25, marker=True, extra=""):
    lines = []
    if header is not None:
        lines += ["---", *header, "---"]
    lines += [f"line {i}" for i in range(body_lines)]
    if extra:
        lines.append(extra)
    if marker:
        lines.append("<!-- COMPLETE -->")
    path = tmp_path / "result_1.md"
    path.write_text("\n".join(lines) + "\n")
    return path


FULL = ["status: success", "quality: GREEN", "completeness: 100"]


# seed 004 手順 4d: the three required fields and their defaults
@pytest.mark.parametrize("header,values,issues,verdict", [
    (FULL, ("success", "GREEN", 100), [], "done"),
    (FULL[1:], ("failure", "GREEN", 100), ["status missing, defaulted to failure"], "retry"),
    ([FULL[0], FULL[2]], ("success", "YELLOW", 100), ["quality missing, defaulted to YELLOW"],
     "done"),
    (FULL[:2], ("success", "GREEN", 0), ["completeness missing, defaulted to 0"], "done"),
    (["status: partial", "quality: RED", "completeness: 40"], ("partial", "RED", 40), [],
     "retry"),
    (["status: ok", "quality: blue", "completeness: lots"], ("failure", "YELLOW", 0),
     ["status 'ok' is not success/partial/failure, treated as failure",
      "quality 'blue' is not GREEN/YELLOW/RED, treated as YELLOW",
      "completeness 'lots' is not 0-100, treated as 0"], "retry"),
])
def test_metadata_defaults(tmp_path, header, values, issues, verdict):
    out = crewresult.check_result(result(tmp_path, header), "writer")
    assert (out["result_status"], out["result_quality"], out["result_completeness"]) == values
    assert out["metadata_issues"] == issues
    assert out["verdict"] == verdict
    assert out["record"] is (verdict == "done" and bool(issues))


def test_a_result_without_a_header_is_judged_by_the_file_checks(tmp_path):
    out = crewresult.check_result(result(tmp_path), "writer")
    assert (out["header"], out["verdict"], out["metadata_issues"]) == (False, "done", [])


@pytest.mark.parametrize("kw,issues", [
    ({"marker": False}, ["the last line is not <!-- COMPLETE -->"]),
    ({"body_lines": 5}, ["fewer than 20 lines (found: 11)"]),
])
def test_file_checks_fail(tmp_path, kw, issues):
    out = crewresult.check_result(result(tmp_path, FULL, **kw), "writer")
    assert (out["status"], out["issues"], out["verdict"]) == ("fail", issues, "retry")


def test_persona_checks_are_warnings(tmp_path):
    out = crewresult.check_result(result(tmp_path, FULL), "researcher")
    assert out["status"] == "pass" and out["has_sources"] is False
    assert out["issues"] == ["warning: no '## Sources' section (researcher)"]
    assert (out["verdict"], out["record"]) == ("done", True)
    out = crewresult.check_result(result(tmp_path, FULL, extra="## Sources"), "researcher")
    assert out["issues"] == [] and out["has_sources"] is True
    out = crewresult.check_result(result(tmp_path, FULL), "worker_coder (output)")
    assert out["persona"] == "coder" and out["issues"] == ["warning: no code block (coder)"]
    out = crewresult.check_result(result(tmp_path, FULL, extra="```py\nx\n```"), "coder")
    assert out["has_code_blocks"] is True and out["issues"] == []


def test_validate_result_command(tmp_path):
    path = result(tmp_path, FULL[:2], extra="```\n```")
    p = cli(tmp_path, "validate-result", str(path), "coder", "--json")
    out = json.loads(p.stdout)
    assert p.returncode == 0
    # the fields of the seed's validate_result.sh JSON, and the metadata defaults
    assert {k: out[k] for k in ("complete_marker", "line_count", "has_sources",
                                "has_code_blocks", "status", "issues")} == {
        "complete_marker": True, "line_count": 32, "has_sources": False,
        "has_code_blocks": True, "status": "pass", "issues": []}
    assert out["metadata_issues"] == ["completeness missing, defaulted to 0"]
    p = cli(tmp_path, "validate-result", str(path), "coder")
    assert p.stdout.split("\n")[:3] == [
        f"{path} (coder): PASS → done (record the issues in metadata_issues)",
        "  metadata: status success, quality GREEN, completeness 0",
        "  - metadata: completeness missing, defaulted to 0"]
    p = cli(tmp_path, "validate-result", str(tmp_path / "result_9.md"), "coder")
    assert p.returncode == 1 and "FAIL → retry" in p.stdout
    p = cli(tmp_path, "validate-result", str(path), "hacker")
    assert p.returncode == 2 and "persona 'hacker' is not one of" in p.stderr
    os.symlink("/etc/passwd", tmp_path / "link.md")
    p = cli(tmp_path, "validate-result", str(tmp_path / "link.md"), "coder")
    assert p.returncode == 2 and "link.md" in p.stderr


# --- crew status ------------------------------------------------------------------------

# seed 004 手順 8: the failure summary's format
def test_failure_summary_format():
    rows = [{"task": "2", "persona": "coder", "status": "failure", "error": "型エラー解消不能"},
            {"task": "4", "persona": "writer", "status": "skipped",
             "error": "dependency task_2 failed"}]
    assert crewstatus.failure_summary(rows, "集約続行 (aggregator gets FAILED_TASKS: [2, 4])") \
        == ("⚠️ Phase 2 completed with failures:\n"
            "- Task 2 (coder): failure — 型エラー解消不能\n"
            "- Task 4 (writer): skipped — dependency task_2 failed\n"
            "Action: 集約続行 (aggregator gets FAILED_TASKS: [2, 4])")


def test_duration_warning_format():
    """seed 004 手順 9: ⚠️ cmd_NNN has exceeded max duration (${elapsed}s > ${max}s)"""
    assert crewstatus.duration_warning("cmd_007", 4000, 1800) == \
        "⚠️ cmd_007 has exceeded max duration (4000s > 1800s)"


@pytest.mark.parametrize("failed,total,retried,state", [
    (2, 4, False, "due"), (1, 4, False, "not_needed"), (3, 5, True, "used"), (0, 0, False,
                                                                              "not_needed")])
def test_feedback_loop(failed, total, retried, state):
    assert crewstatus.feedback_loop(failed, total, retried)["state"] == state


# seed 004 フェーズ4 モード判定
@pytest.mark.parametrize("header,mode", [
    ({"status": "failure"}, "full"), ({"status": "partial"}, "full"),
    ({"status": "success", "quality": "RED"}, "full"),
    ({"status": "success", "quality": "YELLOW", "completeness": 79}, "full"),
    ({"status": "success", "quality": "YELLOW", "completeness": 80}, "light"),
    ({"status": "success", "quality": "GREEN", "failed_tasks": [2]}, "full"),
    ({"status": "success", "quality": "GREEN", "completeness": 100, "failed_tasks": []},
     "light"),
])
def test_retrospect_mode(header, mode):
    assert crewstatus.retrospect_mode(True, header)[0] == mode
    assert crewstatus.retrospect_mode(False, header) == ("skip", ["retrospect.enabled is false"])


LOG = """cmd_id: cmd_001
started: "2026-02-07 10:00:00"
finished: "2026-02-07 11:00:00"
status: partial
tasks:
  - {id: 1, role: decomposer, task: null, status: success}
  - {id: 2, role: worker_researcher, task: task_1, status: success}
  - {id: 3, role: worker_coder, task: task_2, status: failure, error: "型エラー解消不能"}
  - {id: 4, role: worker_coder, task: task_3, status: success}
  - {id: 5, role: worker_writer, task: task_4, status: skipped, error: "dependency task_2 failed"}
  - {id: 6, role: worker_reviewer, task: task_5, status: skipped, error: "dependency task_2 failed"}
"""


def test_status_of_a_command_with_a_failure(crewproj):
    cmd = crewproj / "work" / "cmd_001"
    (cmd / "execution_log.yaml").write_text(LOG)
    for n in (1, 3):
        (cmd / "results" / f"result_{n}.md").write_text("x\n")
    (crewproj / "config.yaml").write_text("max_cmd_duration_sec: 1800\n")
    st = crewstatus.status(crewproj, cmd, now=datetime(2026, 2, 7, 12, 0, 0))
    assert st["phase2_complete"] is True
    assert st["resume"] == {"wave": 1, "of": 3, "run": ["2", "4", "5"], "done": ["1", "3"],
                            "final": {}, "cascaded": {}, "max_retries": 2}
    assert st["summary"] == ("⚠️ Phase 2 completed with failures:\n"
                             "- Task 2 (coder): failure — 型エラー解消不能\n"
                             "- Task 4 (writer): skipped — dependency task_2 failed\n"
                             "- Task 5 (reviewer): skipped — dependency task_2 failed\n"
                             "Action: 集約続行 (aggregator gets FAILED_TASKS: [2, 4, 5])")
    assert st["feedback"]["state"] == "not_needed"          # 1 of 5 failed
    assert st["warnings"] == ["⚠️ cmd_001 has exceeded max duration (3600s > 1800s)"]
    assert st["retrospect"]["mode"] == "pending"
    (cmd / "report_summary.md").write_text("---\nstatus: partial\nquality: YELLOW\n"
                                           "completeness: 60\nfailed_tasks: [2]\n---\n# x\n")
    st = crewstatus.status(crewproj, cmd, now=datetime(2026, 2, 7, 12, 0, 0))
    assert st["retrospect"]["mode"] == "full"


def test_a_failure_at_the_retry_limit_is_final_and_its_dependants_are_skipped(crewproj):
    """Issue 27 item 9: `crew status` honours max_retries and cascades (手順 4e-4g)."""
    cmd = crewproj / "work" / "cmd_001"
    (cmd / "execution_log.yaml").write_text(
        LOG.replace('status: failure, error: "型エラー解消不能"',
                    'status: failure, error: "型エラー解消不能", retries: 2')
           .replace("task: task_4, status: skipped", "task: task_4, status: pending")
           .replace("task: task_5, status: skipped", "task: task_5, status: pending"))
    for n in (1, 3):
        (cmd / "results" / f"result_{n}.md").write_text("x\n")
    st = crewstatus.status(crewproj, cmd, now=datetime(2026, 2, 7, 12, 0, 0))
    assert st["resume"]["run"] == [] and st["resume"]["wave"] is None
    assert st["resume"]["final"] == {"2": "failure"}
    assert st["resume"]["cascaded"] == {"4": "dependency task_2 failed",
                                        "5": "dependency task_2 failed"}
    assert [(t["task"], t["status"], t["error"]) for t in st["tasks"]][1:] == [
        ("2", "failure", "型エラー解消不能"), ("3", "success", None),
        ("4", "skipped", "dependency task_2 failed"), ("5", "skipped", "dependency task_2 failed")]
    assert st["phase2_complete"] is True
    assert st["summary"].startswith("⚠️ Phase 2 completed with failures:\n- Task 2 (coder): "
                                    "failure — 型エラー解消不能\n- Task 4 (writer): skipped — "
                                    "dependency task_2 failed")
    (crewproj / "config.yaml").write_text("max_retries: 3\n")       # one more try allowed
    st = crewstatus.status(crewproj, cmd, now=datetime(2026, 2, 7, 12, 0, 0))
    assert st["resume"]["run"] == ["2", "4", "5"] and st["resume"]["final"] == {}


def test_the_feedback_loop_text_once_it_was_used(crewproj, gateway_cli=None):
    """Issue 27 item 13: after the loop was used the screen says so (not "not needed")."""
    import subprocess
    import sys
    cmd = crewproj / "work" / "cmd_001"
    (cmd / "execution_log.yaml").write_text(
        LOG.replace("task: task_3, status: success", "task: task_3, status: partial")
           .replace("task: task_1, status: success", "task: task_1, status: failure"))
    (cmd / "plan_retry.md").write_text("# retry\n")
    exe = os.path.join(os.path.dirname(sys.executable), "gateway")
    p = subprocess.run([exe, "crew", "status", "cmd_001", "--project", str(crewproj)],
                       capture_output=True, text=True)
    assert "Feedback loop: already used (plan_retry.md exists); 60 % partial/failure again: " \
        "aggregate and record it in report.md" in p.stdout, p.stdout
    assert "not needed" not in p.stdout


def test_half_failed_triggers_the_feedback_loop_once(crewproj):
    cmd = crewproj / "work" / "cmd_001"
    (cmd / "execution_log.yaml").write_text(
        LOG.replace("task: task_3, status: success", "task: task_3, status: partial")
           .replace("task: task_1, status: success", "task: task_1, status: failure"))
    st = crewstatus.status(crewproj, cmd)
    assert st["feedback"] == {"state": "due", "rate": 0.6}
    assert st["summary"].endswith("Action: 再分解 (feedback loop: decomposer re-plans the failed "
                                  "tasks into plan_retry.md, once)")
    (cmd / "plan_retry.md").write_text("retry")
    st = crewstatus.status(crewproj, cmd)
    assert st["feedback"]["state"] == "used"
    assert st["summary"].endswith("Action: 手動介入 (the retry plan failed too; nothing "
                                  "succeeded)")
    (cmd / "execution_log.yaml").write_text(
        LOG.replace("task: task_3, status: success", "task: task_3, status: partial")
           .replace("task: task_4, status: skipped", "task: task_4, status: partial"))
    st = crewstatus.status(crewproj, cmd)
    assert st["feedback"]["state"] == "used"
    assert st["summary"].endswith("Action: 集約続行 (aggregator gets FAILED_TASKS: [2, 3, 4, 5]); "
                                  "feedback loop already used: record it in report.md")


def test_the_seed_log_checkpoint_in_status(crewproj):
    cmd = crewproj / "work" / "cmd_001"
    (cmd / "execution_log.yaml").write_text(SEED_LOG)
    st = crewstatus.status(crewproj, cmd, now=datetime(2026, 2, 7, 10, 10, 0))
    assert st["phase2_complete"] is False and st["summary"] is None
    assert st["resume"]["wave"] == 1 and st["resume"]["run"] == ["1", "2", "3", "4", "5"]
    assert st["elapsed_sec"] == 600 and st["warnings"] == []


def test_status_command(crewproj):
    cmd = crewproj / "work" / "cmd_001"
    (cmd / "execution_log.yaml").write_text(LOG)
    (crewproj / "config.yaml").write_text("max_cmd_duration_sec: null\nretrospect:\n"
                                          "  enabled: false\n")
    p = cli(crewproj, "status")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.split("\n")
    assert lines[0] == ("cmd_001: status partial, started 2026-02-07 10:00:00, finished "
                        "2026-02-07 11:00:00")
    assert lines[1:] == [
        "Resume: Wave 1/3; to run: task_1, task_2, task_3, task_4, task_5",
        "  task_1 (researcher): success — success in the log but results/result_1.md is "
        "missing",
        "  task_2 (coder): failure — 型エラー解消不能",
        "  task_3 (coder): success — success in the log but results/result_3.md is missing",
        "  task_4 (writer): skipped — skipped, and a task it depends on runs again: run again",
        "  task_5 (reviewer): skipped — skipped, and a task it depends on runs again: run again",
        "Wave 1/3 完了 (2/3 success)", "Wave 2/3 完了 (0/1 success)",
        "Wave 3/3 完了 (0/1 success)", "Phase 2 完了: 2/5 タスク success",
        "⚠️ Phase 2 completed with failures:",
        "- Task 2 (coder): failure — 型エラー解消不能",
        "- Task 4 (writer): skipped — dependency task_2 failed",
        "- Task 5 (reviewer): skipped — dependency task_2 failed",
        "Action: 集約続行 (aggregator gets FAILED_TASKS: [2, 4, 5])",
        "Feedback loop: not needed (20 % partial/failure, under 50 %)",
        "Retrospect: skip (retrospect.enabled is false)", ""]
    assert json.loads(cli(crewproj, "status", "1", "--json").stdout)["cmd"] == "cmd_001"
    for bad in ("../../etc", "cmd_1/../x", "/tmp"):
        p = cli(crewproj, "status", bad)
        assert p.returncode == 2 and "is not a command id (cmd_NNN)" in p.stderr
    p = cli(crewproj, "status", "cmd_009")
    assert p.returncode == 2 and "does not exist" in p.stderr
    (cmd / "execution_log.yaml").write_text("tasks: [\n")
    p = cli(crewproj, "status")
    assert p.returncode == 3 and "not valid YAML" in p.stderr
