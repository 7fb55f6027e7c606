"""gateway.orchestration.crew: seed 004's plan table, checkpoint resume from
execution_log.yaml, cascade skip messages, and the wave progress messages with their ETA."""

import pytest

from gateway.orchestration import crew
from gateway.orchestration.crew import CrewError

# the decomposer template's table
PLAN = """---
generated_by: "claude-crew v1.0"
date: "2026-02-07"
cmd_id: "cmd_042"
---

# Execution Plan
**Status**: success

## Summary
x

## Tasks
| # | Task | Persona | Model | Depends On | Output |
|---|------|---------|-------|------------|--------|
| 1 | survey | worker_researcher (keyword) | haiku | - | `results/result_1.md` |
| 2 | code | worker_coder (output) | sonnet | - | `results/result_2.md` |
| 3 | more code | worker_coder | sonnet | - | `results/result_3.md` |
| 4 | docs | worker_writer (keyword) | haiku | 1, 2 | `results/result_4.md` |
| 5 | review | worker_reviewer | sonnet | 4 | `results/result_5.md` |

## Execution Order
- Wave 1 (parallel): 1, 2, 3
"""


def test_plan_table_and_waves():
    tasks = crew.parse_plan(PLAN)
    assert [(t.id, t.persona, t.model, t.depends) for t in tasks] == [
        ("1", "researcher", "haiku", []), ("2", "coder", "sonnet", []),
        ("3", "coder", "sonnet", []), ("4", "writer", "haiku", ["1", "2"]),
        ("5", "reviewer", "sonnet", ["4"])]
    assert tasks[0].output == "results/result_1.md"
    assert crew.waves(tasks) == [["1", "2", "3"], ["4"], ["5"]]


@pytest.mark.parametrize("row,msg", [
    ("| 4 | x | worker_coder | haiku | 9 | o |", "task 4 depends on 9, which is not a task"),
    ("| 4 | x | worker_coder | haiku | 5 | o |\n| 5 | y | worker_coder | haiku | 4 | o |",
     "dependency cycle: 4 -> 5 -> 4"),
    ("| four | x | worker_coder | haiku | - | o |", "the task number 'four' is not a number"),
    ("| 4 | x | worker_coder | haiku | 1 or 2 | o |", "is not a list of task numbers"),
])
def test_bad_plans_are_named(row, msg):
    text = ("| # | Task | Persona | Model | Depends On | Output |\n|---|---|---|---|---|---|\n"
            + row + "\n")
    with pytest.raises(CrewError, match=msg):
        crew.parse_plan(text, "work/cmd_001/plan.md")


def test_a_plan_without_a_task_table():
    with pytest.raises(CrewError, match="no task table"):
        crew.parse_plan("# Execution Plan\n\nnothing\n")


# --- checkpoints ----------------------------------------------------------------------------

# seed 004's execution_log.yaml example (decomposer, task_1 success, task_2 running, ...)
SEED_LOG = """
cmd_id: cmd_xxx
started: "2026-02-07 10:00:00"
finished: null
status: running
base_commit: "cfa49a0"

tasks:
  - id: 1
    role: decomposer
    task: null
    model: sonnet
    started: "2026-02-07 10:00:00"
    finished: "2026-02-07 10:01:30"
    duration_sec: 90
    status: success
    error: null
    retries: 0
    metadata_issues: []
  - id: 2
    role: worker_coder
    task: task_1
    model: sonnet
    started: "2026-02-07 10:02:00"
    finished: "2026-02-07 10:05:00"
    duration_sec: 180
    status: success
    error: null
    retries: 0
    metadata_issues: []
  - id: 3
    role: worker_researcher
    task: task_2
    model: haiku
    started: "2026-02-07 10:02:00"
    finished: null
    duration_sec: null
    status: running
    error: null
    retries: 0
    metadata_issues: []
"""

TWO = [crew.PlanTask("1", "a", "coder", None, [], None),
       crew.PlanTask("2", "b", "researcher", None, [], None),
       crew.PlanTask("3", "c", "writer", None, ["1", "2"], None)]


def _results(tmp_path, *ns):
    d = tmp_path / "results"
    d.mkdir(exist_ok=True)
    for n in ns:
        (d / f"result_{n}.md").write_text("---\nstatus: success\n---\n")
    return d


def test_seed_log_running_task_without_result_is_rerun(tmp_path):
    log = crew.parse_log(SEED_LOG)
    cp = crew.checkpoint(TWO, log, _results(tmp_path, 1))
    assert (cp.resume_wave, cp.done, cp.run) == (1, ["1"], ["2", "3"])
    assert cp.why["2"] == "was running and has no result file: run again"
    assert cp.why["3"] == "not started"


def test_seed_log_running_task_with_result_counts_as_done(tmp_path):
    cp = crew.checkpoint(TWO, crew.parse_log(SEED_LOG), _results(tmp_path, 1, 2))
    assert (cp.resume_wave, cp.done, cp.run) == (2, ["1", "2"], ["3"])
    assert cp.why["2"] == "was running and its result file exists: done"


def test_success_without_its_result_file_is_not_done(tmp_path):
    cp = crew.checkpoint(TWO, crew.parse_log(SEED_LOG), _results(tmp_path))
    assert cp.resume_wave == 1 and cp.run == ["1", "2", "3"]
    assert cp.why["1"] == "success in the log but results/result_1.md is missing"


@pytest.mark.parametrize("status,done", [("pending", False), ("failure", False),
                                         ("timeout", False), ("retrying", False),
                                         ("partial", True), ("skipped", True)])
def test_checkpoint_statuses(tmp_path, status, done):
    log = {"tasks": [{"task": "task_1", "status": "success"},
                     {"task": "task_2", "status": status},
                     {"task": "task_3", "status": "pending"}]}
    cp = crew.checkpoint(TWO, log, _results(tmp_path, 1, 2))
    assert ("2" in cp.done) is done
    if status == "partial":     # 手順 4g: the dependant of a partial task is skipped
        assert cp.resume_wave is None and cp.cascaded == {"3": "dependency task_2 failed"}
    else:
        assert cp.resume_wave == (2 if done else 1)


@pytest.mark.parametrize("status,retries,final", [("failure", 2, "failure"),
                                                  ("timeout", 2, "partial"),
                                                  ("failure", 1, None), ("timeout", 3, "partial")])
def test_the_retry_limit_makes_a_failure_final_and_cascades(tmp_path, status, retries, final):
    """Issue 27 item 9: at max_retries a failure is final (a timeout partial: 手順 6c), not run
    again, and its dependants are skipped (手順 4g)."""
    log = {"tasks": [{"task": "task_1", "status": "success"},
                     {"task": "task_2", "status": status, "retries": retries}]}
    cp = crew.checkpoint(TWO, log, _results(tmp_path, 1), max_retries=2)
    if final is None:
        assert cp.run == ["2", "3"] and cp.resume_wave == 1 and cp.final == {}
    else:
        assert cp.final == {"2": final} and cp.run == [] and cp.resume_wave is None
        assert cp.cascaded == {"3": "dependency task_2 failed"}


def test_no_log_runs_from_the_start(tmp_path):
    cp = crew.checkpoint(TWO, None, tmp_path / "results")
    assert (cp.resume_wave, cp.run) == (1, ["1", "2", "3"])


def test_everything_done(tmp_path):
    log = {"tasks": [{"task": f"task_{i}", "status": "success"} for i in (1, 2, 3)]}
    cp = crew.checkpoint(TWO, log, _results(tmp_path, 1, 2, 3))
    assert (cp.resume_wave, cp.run) == (None, [])


def test_later_log_entries_win(tmp_path):
    log = {"tasks": [{"task": "task_1", "status": "failure"},
                     {"task": "task_1", "status": "success"}]}
    assert "1" in crew.checkpoint(TWO, log, _results(tmp_path, 1)).done


@pytest.mark.parametrize("text,msg", [
    ("tasks:\n  - task: task_1\n    status: done\n", "tasks\\[0\\].status 'done' is not one of"),
    ("tasks:\n  - task: 1\n    status: success\n", "tasks\\[0\\].task '1' is not task_N"),
    ("- a\n- b\n", "must be a mapping"),
    ("tasks: [\n", "not valid YAML"),
])
def test_bad_logs_are_named(text, msg):
    with pytest.raises(CrewError, match=msg):
        crew.parse_log(text, "work/cmd_001/execution_log.yaml")


# --- ETA and messages ---------------------------------------------------------------------


@pytest.mark.parametrize("seconds,text", [
    (0, "~1 min"), (89, "~1 min"), (90, "~2 min"), (150, "~2 min"), (151, "~3 min"),
    (209, "~3 min"), (210, "~4 min"), (600, "~10 min"),
])
def test_eta_rounding(seconds, text):
    assert crew.format_eta(seconds) == text


def test_seed_wave_message_with_the_fallback_estimates():
    # 3 tasks (coder 120 + coder 120 + researcher 60) / max_parallel 3 = 100 s → ~2 min
    eta = crew.wave_eta_seconds(["coder", "coder", "researcher"], None, 0, 3)
    assert eta == 100
    assert crew.wave_start_message(1, 3, 3, eta) == "Wave 1/3: 3 tasks running (~2 min est.)"
    assert crew.wave_start_message(1, 3, 3, None) == "Wave 1/3: 3 tasks running"
    assert crew.wave_start_message(1, 3, 3, eta, background=True) == \
        "Wave 1/3: 3 tasks running (background)"
    assert crew.wave_start_message(2, 3, 1, 45) == "Wave 2/3: 1 task running (~1 min est.)"


def test_unknown_persona_without_data_has_no_eta():
    assert crew.wave_eta_seconds(["coder", "designer"], None, 0, 2) is None
    assert crew.wave_eta_seconds([], None, 0, 2) is None


def _past_logs(n, coder_secs):
    return [{"tasks": [{"role": "worker_coder", "status": "success", "duration_sec": s},
                       {"role": "worker_coder", "status": "failure", "duration_sec": 9999},
                       {"role": "decomposer", "status": "success", "duration_sec": 9999}]}
            for s in coder_secs[:n]]


def test_statistics_from_ten_or_more_logs():
    stats, n = crew.persona_stats(_past_logs(10, [300] * 5 + [500] * 5))
    assert (stats, n) == ({"coder": 400.0}, 10)
    # coder from the statistics, writer from the fallback; / max_parallel 2
    assert crew.wave_eta_seconds(["coder", "writer"], stats, n, 2) == (400 + 90) / 2
    stats9, n9 = crew.persona_stats(_past_logs(9, [300] * 9))
    assert crew.wave_eta_seconds(["coder"], stats9, n9, 1) == 120   # < 10 logs: fallback


def test_completion_messages():
    assert crew.wave_done_message(1, 3, 3, 3) == "Wave 1/3 完了 (3/3 success)"
    assert crew.phase_done_message(5, 5) == "Phase 2 完了: 5/5 タスク success"
