"""Spec task sync (seed 002 C案/E案): a checked task of the spec's task list becomes a due done
step in workflow_state; `gateway spec start|done` run the steps through the issue-tracker
interface (a recording fake, and a fake `gh` on PATH: no network)."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from gateway.orchestration import specsteps, specsync, trackers, workflow

SEED_SPEC = os.path.join(os.path.dirname(__file__), "data", "seed002-spec.md")
SPEC_ID = "ed37057f-b8e2-499d-b564-505254a0c509"
GATEWAY = os.path.join(os.path.dirname(sys.executable), "gateway")
T1 = "schema.ts に WorkflowStateTable 型定義を追加"
T2 = "workflow_state テーブル作成マイグレーションを追加"


@pytest.fixture()
def project(tmp_path):
    d = tmp_path / "proj" / ".cc-craft-kit" / "specs"
    d.mkdir(parents=True)
    shutil.copy(SEED_SPEC, d / f"{SPEC_ID}.md")
    return tmp_path / "proj"


def spec_path(project):
    return project / ".cc-craft-kit" / "specs" / f"{SPEC_ID}.md"


def check(project, title, issue):
    p = spec_path(project)
    p.write_text(p.read_text().replace(f"- [ ] {title} (#{issue})", f"- [x] {title} (#{issue})"))


# --- detection --------------------------------------------------------------------------

def test_an_edit_that_checks_a_task():
    ti = {"old_string": f"- [ ] {T1} (#541)", "new_string": f"- [x] {T1} (#541)"}
    assert specsync.detect("Edit", ti, {}) == [(T1, 541)]


def test_unchanged_or_unchecked_items_are_not_flips():
    assert specsync.flipped_titles("- [x] a (#1)", "- [x] a (#1)") == []
    assert specsync.flipped_titles("- [x] a (#1)", "- [ ] a (#1)") == []
    assert specsync.flipped_titles("- [ ] a (#1)", "- [X] a (#2)") == []     # another task
    assert specsync.flipped_titles("x", "- [x] a (#1)") == []               # a new item


def test_multi_edit_and_write():
    edits = [{"old_string": "- [ ] a (#1)\n- [ ] b (#2)", "new_string": "- [x] a (#1)\n"
              "- [ ] b (#2)"}, {"old_string": "- [ ] c", "new_string": "- [x] c"}, "junk"]
    assert specsync.detect("MultiEdit", {"edits": edits}, {}) == [("a", 1), ("c", None)]
    ti = {"content": "- [x] a (#1)\n- [x] b (#2)\n"}
    assert specsync.detect("Write", ti, {"originalFile": "- [x] a (#1)\n- [ ] b (#2)\n"}) == \
        [("b", 2)]
    assert specsync.detect("Write", ti, {"originalFile": None}) == []       # a new file
    assert specsync.detect("Write", ti, {}) == []
    assert specsync.detect("Read", ti, {}) == []


def test_spec_files(project, tmp_path):
    p = str(spec_path(project))
    assert specsync.spec_file(str(project), p) == p
    assert specsync.spec_file(str(project), f".cc-craft-kit/specs/{SPEC_ID}.md",
                              str(project)) == p
    assert specsync.spec_file(str(project), str(project / "specs" / "x.md")) is not None
    for no in (str(project / "README.md"), str(project / ".cc-craft-kit" / "specs" / "sub" /
                                               "x.md"), p[:-3] + ".txt", "",
               str(tmp_path / "other" / ".cc-craft-kit" / "specs" / "x.md")):
        assert specsync.spec_file(str(project), no) is None


# --- recording --------------------------------------------------------------------------

def test_a_checked_task_is_recorded_as_due_with_the_position(project):
    check(project, T1, 541)
    done = specsync.record(str(project), str(spec_path(project)), [(T1, 541)], "sess-1")
    assert [t.number for t in done.tasks] == [1] and done.problem is None
    assert done.next_task.issue == 542
    with workflow.open_store(project) as st:
        row = st.get(SPEC_ID)
    assert row.done_due == [{"task": 1, "issue": 541, "title": T1}]
    assert (row.current_task_number, row.next_action, row.github_issue_number) == \
        (2, "task_start", 542)
    text, _ = workflow.restore(project)
    assert text.split("\n")[1] == (f"- DUE FIRST: task 1 «{T1}» is checked but its done step "
                                   f"has not run: run the task done step for issue #541 now "
                                   f"(`gateway spec done 541`).")


def test_a_flip_that_is_not_in_the_file_is_not_recorded(project):
    done = specsync.record(str(project), str(spec_path(project)), [(T1, 541)])
    assert done.tasks == [] and not os.path.exists(workflow.db_path(project))


def test_an_acceptance_criterion_is_not_a_task(project):
    p = spec_path(project)
    crit = "セッション再開後も、実行中のタスクに関する状態が復元される"
    p.write_text(p.read_text().replace(f"- [ ] {crit}", f"- [x] {crit}"))
    assert specsync.record(str(project), str(p), [(crit, None)]).tasks == []


def test_a_spec_not_in_implementation_records_nothing(project):
    p = spec_path(project)
    p.write_text(p.read_text().replace("**フェーズ:** implementation", "**フェーズ:** design"))
    check(project, T1, 541)
    assert specsync.record(str(project), str(p), [(T1, 541)]).tasks == []


def test_a_broken_store_is_a_problem_not_a_crash(project):
    check(project, T1, 541)
    db = workflow.db_path(project)
    os.makedirs(os.path.dirname(db))
    with open(db, "w") as fh:
        fh.write("not sqlite " * 100)
    done = specsync.record(str(project), str(spec_path(project)), [(T1, 541)])
    assert done.tasks == [] and done.problem.startswith("the due done step could not be "
                                                        "recorded: ")


# --- the steps, through the tracker interface ------------------------------------------

def test_start_then_done_through_the_recording_tracker(project):
    rec = trackers.RecordingTracker()
    out = specsteps.run_step(project, "start", 541, rec)
    assert (out["task"], out["next_action"]) == (1, "task_done")
    with pytest.raises(specsteps.StepError, match="is not checked in"):
        specsteps.run_step(project, "done", 541, rec)
    check(project, T1, 541)
    specsync.record(str(project), str(spec_path(project)), [(T1, 541)])
    out = specsteps.run_step(project, "done", 541, rec)
    assert out["done_due"] == [] and out["next_task"]["issue"] == 542
    assert rec.calls == [("start", 541), ("done", 541)]
    with pytest.raises(specsteps.StepError, match="the current task .* is task 2 \\(#542\\)"):
        specsteps.run_step(project, "start", 543, rec)


def test_a_failing_tracker_records_nothing(project):
    check(project, T1, 541)
    specsync.record(str(project), str(spec_path(project)), [(T1, 541)])
    with pytest.raises(specsteps.StepError) as e:
        specsteps.run_step(project, "done", 541, trackers.RecordingTracker(fail="done"))
    assert "did not happen: recorded failure of done for issue #541; nothing was recorded" \
        in str(e.value)
    with workflow.open_store(project) as st:
        assert st.get(SPEC_ID).done_due[0]["issue"] == 541


def test_unknown_issue(project):
    with pytest.raises(specsteps.StepError) as e:
        specsteps.run_step(project, "start", 9999, trackers.RecordingTracker())
    assert e.value.exit_code == 2


# --- the command, with a fake gh on PATH -------------------------------------------------

@pytest.fixture()
def fake_gh(tmp_path):
    d = tmp_path / "bin"
    d.mkdir()
    (d / "gh").write_text('#!/bin/sh\necho "$@" >> "$GH_LOG"\nexit ${GH_EXIT:-0}\n')
    (d / "gh").chmod(0o755)
    return {**os.environ, "PATH": f"{d}:/usr/bin:/bin", "GH_LOG": str(tmp_path / "gh.log"),
            "GATEWAY_AUDIT_LOG": "off"}


def spec_cli(project, env, *args):
    return subprocess.run([GATEWAY, "spec", *args, "--project", str(project)],
                          capture_output=True, text=True, env=env, timeout=60)


def test_the_spec_command_with_gh(project, fake_gh, tmp_path):
    p = spec_cli(project, fake_gh, "start", "541", "--tracker", "gh")
    assert p.returncode == 0 and "GitHub issues have no In Progress state" in p.stdout
    check(project, T1, 541)
    p = spec_cli(project, fake_gh, "done", "#541", "--tracker", "gh")
    assert p.returncode == 0, p.stderr
    assert p.stdout.split("\n")[:2] == [
        f"task 1 (#541) «{T1}» done: ran `gh issue close 541 --reason completed`",
        f"next: task 2 (#542) «{T2}»: gateway spec start 542"]
    assert (tmp_path / "gh.log").read_text() == "issue close 541 --reason completed\n"
    fake_gh["GH_EXIT"] = "1"
    check(project, T2, 542)
    p = spec_cli(project, fake_gh, "done", "542", "--tracker", "gh")
    assert p.returncode == 1 and "`gh issue close 542 --reason completed` failed (exit 1)" \
        in p.stderr
    p = spec_cli(project, fake_gh, "done", "54x")
    assert p.returncode == 2 and "is not an issue number" in p.stderr


def test_the_tracker_from_the_environment(project, fake_gh, tmp_path):
    fake_gh["GATEWAY_SPEC_TRACKER"] = "gh"
    check(project, T1, 541)
    assert spec_cli(project, fake_gh, "done", "541").returncode == 0
    assert (tmp_path / "gh.log").read_text() == "issue close 541 --reason completed\n"


def test_craft_kit_tracker_needs_the_projects_command(project, fake_gh):
    p = spec_cli(project, fake_gh, "start", "541", "--tracker", "craft-kit")
    assert p.returncode == 1
    assert ".cc-craft-kit/commands/task/start.ts does not exist in the project" in p.stderr


def test_spec_status_command(project, fake_gh):
    check(project, T1, 541)
    specsync.record(str(project), str(spec_path(project)), [(T1, 541)])
    p = spec_cli(project, fake_gh, "status")
    assert p.stdout.split("\n")[:3] == [
        f"«セッション再開時にワークフロー状態が引き継がれない» ({SPEC_ID}): 1 of 13 tasks checked",
        "  DUE: task 1 (#541) is checked; its done step has not run: gateway spec done 541",
        f"  current: task 2 (#542) «{T2}»: next action task_start (gateway spec start 542)"]
    out = json.loads(spec_cli(project, fake_gh, "status", "--json").stdout)
    assert out["specs"][0]["done_due"] == [{"task": 1, "issue": 541, "title": T1}]
