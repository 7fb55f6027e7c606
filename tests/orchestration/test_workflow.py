"""gateway.orchestration.workflow: seed 002's workflow_state in one SQLite file, with the
original's bugs fixed (seed-origins §C.1, §D.3): ``task_start`` is reachable, the latest state
is the latest ``updated_at``, a stale spec is never restored."""

import os
import shutil
import sqlite3
import subprocess
import sys
import time

import pytest

from gateway.orchestration import workflow
from gateway.state import store

SEED_SPEC = os.path.join(os.path.dirname(__file__), "data", "seed002-spec.md")
SPEC_ID = "ed37057f-b8e2-499d-b564-505254a0c509"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture()
def project(tmp_path):
    d = tmp_path / "proj" / ".cc-craft-kit" / "specs"
    d.mkdir(parents=True)
    shutil.copy(SEED_SPEC, d / f"{SPEC_ID}.md")
    return tmp_path / "proj"


def _spec_path(project):
    return project / ".cc-craft-kit" / "specs" / f"{SPEC_ID}.md"


def _check(project, *numbers, path=None):
    """Tick the boxes of tasks `numbers` in the seed spec's task list."""
    path = path or _spec_path(project)
    lines = path.read_text(encoding="utf-8").split("\n")
    start = lines.index("## 8. 実装タスクリスト")
    n = 0
    for i in range(start, len(lines)):
        if lines[i].startswith("- [ ] ") or lines[i].startswith("- [x] "):
            n += 1
            if n in numbers:
                lines[i] = "- [x] " + lines[i][6:]
    path.write_text("\n".join(lines), encoding="utf-8")
    t = time.time() + 1
    os.utime(path, (t, t))


def test_the_seed_spec_parses():
    spec = workflow.load_spec(SEED_SPEC)
    assert spec.spec_id == SPEC_ID and spec.phase == "implementation"
    assert spec.title == "セッション再開時にワークフロー状態が引き継がれない"
    assert [t.issue for t in spec.tasks] == list(range(541, 554))       # 13 Sub Issues
    assert spec.tasks[0].title == "schema.ts に WorkflowStateTable 型定義を追加"
    assert spec.tasks[12].title == "E2E テストを実行して動作確認"
    assert not any(t.done for t in spec.tasks)
    # the acceptance criteria checkboxes (section 3) are not tasks
    assert all("受け入れ" not in t.title for t in spec.tasks)


def test_first_save_is_task_start_of_the_first_unchecked_task(project):
    row, problems = workflow.save_current(project, "sess-1")
    assert problems == []
    assert (row.spec_id, row.current_task_number, row.next_action, row.github_issue_number) \
        == (SPEC_ID, 1, "task_start", 541)
    assert row.spec_path == f".cc-craft-kit/specs/{SPEC_ID}.md"
    assert row.saved_at == row.updated_at and row.session_id == "sess-1"


def test_task_start_then_task_done_then_the_next_task(project):
    workflow.save_current(project)
    with workflow.open_store(project) as st:
        st.mark_started(SPEC_ID, 1)
    row, _ = workflow.save_current(project)
    assert (row.current_task_number, row.next_action) == (1, "task_done")   # started: done next
    _check(project, 1)
    row, _ = workflow.save_current(project)
    assert (row.current_task_number, row.next_action, row.github_issue_number) == \
        (2, "task_start", 542)
    with workflow.open_store(project) as st:
        assert len(st.all()) == 1                                    # one row per spec
        assert st.get(SPEC_ID).saved_at < st.get(SPEC_ID).updated_at


def test_nothing_is_saved_without_a_spec_in_implementation(tmp_path):
    assert workflow.save_current(tmp_path) == (None, [])
    assert not os.path.exists(tmp_path / ".claude")                 # no database created


def test_a_fully_checked_spec_is_not_saved(project):
    _check(project, *range(1, 14))
    assert workflow.save_current(project) == (None, [])


def _other_spec(project, spec_id="0f0e0d0c-0000-4000-8000-000000000001"):
    text = (f"# 別の仕様\n**仕様書 ID:** {spec_id}\n**フェーズ:** implementation\n\n"
            "## 8. 実装タスクリスト\n- [ ] A (#10)\n- [ ] B (#11)\n")
    p = project / ".cc-craft-kit" / "specs" / f"{spec_id}.md"
    p.write_text(text, encoding="utf-8")
    t = time.time() + 5
    os.utime(p, (t, t))
    return spec_id


def test_the_spec_changed_last_is_the_one_saved(project):
    other = _other_spec(project)
    row, _ = workflow.save_current(project)
    assert row.spec_id == other


def test_restore_takes_the_latest_updated_at_not_the_first_saved(project):
    # upstream (JSON version) sorted by saved_at while an update changed only updated_at
    workflow.save_current(project)                       # spec A saved first
    other = _other_spec(project)
    workflow.save_current(project)                       # spec B saved later
    _check(project, 1)                                   # A changes again (newest mtime)
    t = time.time() + 10
    os.utime(_spec_path(project), (t, t))
    row, _ = workflow.save_current(project)              # A updated: its updated_at is latest
    assert row.spec_id == SPEC_ID
    with workflow.open_store(project) as st:
        rows = st.all()
    assert [r.spec_id for r in rows] == [SPEC_ID, other]
    assert rows[0].saved_at < rows[1].saved_at           # A was *saved* first
    text, _ = workflow.restore(project)
    assert "«セッション再開時にワークフロー状態が引き継がれない»" in text
    assert "Current task 2 of 13" in text


def test_restore_text_for_the_seed_spec(project):
    workflow.save_current(project)
    text, problems = workflow.restore(project)
    assert problems == []
    lines = text.split("\n")
    assert lines[0].startswith("gateway: workflow state restored (saved ")
    assert lines[0].endswith(f"Z): spec «セッション再開時にワークフロー状態が引き継がれない» "
                             f"({SPEC_ID}), phase implementation, 0 of 13 tasks checked.")
    assert lines[1] == ("- Current task 1 of 13 «schema.ts に WorkflowStateTable 型定義を追加» "
                        "(issue #541): next action task_start: run the task start step "
                        "(`gateway spec start 541`; the issue goes to In Progress) before "
                        "implementing it.")
    assert lines[2].startswith("- After each task: check its box, run its done step")


def test_restore_names_a_due_done_step_first(project):
    workflow.save_current(project)
    with workflow.open_store(project) as st:
        st.mark_started(SPEC_ID, 1)
    _check(project, 1)
    with workflow.open_store(project) as st:
        st.record_done_due(SPEC_ID, 1, 541, "schema.ts に WorkflowStateTable 型定義を追加")
    workflow.save_current(project)          # the done-due list survives the save
    text, _ = workflow.restore(project)
    lines = text.split("\n")
    assert lines[1] == ("- DUE FIRST: task 1 «schema.ts に WorkflowStateTable 型定義を追加» is "
                        "checked but its done step has not run: run the task done step for "
                        "issue #541 now (`gateway spec done 541`).")
    assert lines[2].startswith("- Current task 2 of 13 «workflow_state テーブル作成マイグレーション"
                               "を追加» (issue #542): next action task_start")
    with workflow.open_store(project) as st:
        st.clear_done_due(SPEC_ID, 1)
    assert "DUE FIRST" not in workflow.restore(project)[0]


def test_restore_reports_a_task_checked_since_the_save(project):
    workflow.save_current(project)
    with workflow.open_store(project) as st:
        st.mark_started(SPEC_ID, 1)
    _check(project, 1)                      # checked after the last save (no new save)
    text, _ = workflow.restore(project)
    assert ("- DUE FIRST: task 1 «schema.ts に WorkflowStateTable 型定義を追加» was checked "
            "after the state was saved (its box flipped without the gateway seeing its done "
            "step): run the task done step for issue #541 now (`gateway spec done 541`).") in \
        text.split("\n")
    # the new current task starts fresh: never "task_done" for a task nobody started
    assert "Current task 2 of 13" in text and "next action task_start" in text


@pytest.mark.parametrize("change", ["phase", "delete", "other_id"])
def test_a_stale_state_is_never_restored(project, change):
    workflow.save_current(project)
    path = _spec_path(project)
    if change == "phase":
        path.write_text(path.read_text(encoding="utf-8").replace(
            "**フェーズ:** implementation", "**フェーズ:** completed"), encoding="utf-8")
    elif change == "delete":
        path.unlink()
    else:
        path.write_text(path.read_text(encoding="utf-8").replace(SPEC_ID, "other-id"),
                        encoding="utf-8")
    assert workflow.restore(project) == (None, [])


def test_no_database_no_restore(tmp_path):
    assert workflow.restore(tmp_path) == (None, [])


def test_a_row_pointing_outside_the_project_is_ignored(project, tmp_path):
    workflow.save_current(project)
    db = sqlite3.connect(workflow.db_path(project))
    db.execute("UPDATE workflow_state SET spec_path = '../../etc/x.md'")
    db.commit()
    db.close()
    text, problems = workflow.restore(project)
    assert text is None and problems == [f"saved state for spec {SPEC_ID} names a path "
                                         f"outside the project; ignored"]


def test_a_database_that_is_not_sqlite_is_reported_with_the_repair(project):
    path = workflow.db_path(project)
    os.makedirs(os.path.dirname(path))
    with open(path, "wb") as fh:
        fh.write(b"this is not a database" * 100)
    with pytest.raises(store.StateCorrupt) as e:
        workflow.restore(project)
    msg = str(e.value)
    assert msg.startswith(f"state file {path}: is not a usable SQLite database")
    assert (f"To repair: `gateway state repair` sets it aside (renamed to {path}.unusable-"
            f"<time>); the next PreCompact hook writes a new one") in msg
    with pytest.raises(store.StateCorrupt):
        workflow.save_current(project)


def test_another_schema_is_refused(project):
    path = workflow.db_path(project)
    os.makedirs(os.path.dirname(path))
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE workflow_state (id TEXT, spec_id TEXT)")
    db.execute("PRAGMA user_version = 1")
    db.commit()
    db.close()
    with pytest.raises(store.StateCorrupt, match="has a workflow_state table with columns id, "
                                                 "spec_id, not the gateway's"):
        workflow.save_current(project)


def test_a_symlinked_database_is_never_opened(project, tmp_path):
    path = workflow.db_path(project)
    os.makedirs(os.path.dirname(path))
    os.symlink(tmp_path / "elsewhere.sqlite3", path)
    with pytest.raises(store.StateUnsafe, match="is a symbolic link; state files are never "
                                                "followed"):
        workflow.save_current(project)
    assert not (tmp_path / "elsewhere.sqlite3").exists()


def test_invalid_rows_are_reported_not_restored(project):
    workflow.save_current(project)
    db = sqlite3.connect(workflow.db_path(project))
    db.execute("UPDATE workflow_state SET done_due = 'nonsense'")
    db.commit()
    db.close()
    with pytest.raises(store.StateCorrupt, match="unreadable done_due list"):
        workflow.restore(project)


SAVER = r"""
import sys
from gateway.orchestration import workflow
for _ in range(15):
    workflow.save_current(sys.argv[1], sys.argv[2])
print("ok")
"""


def test_concurrent_saves_keep_one_row_per_spec(project):
    env = {**os.environ, "PYTHONPATH": ROOT}
    procs = [subprocess.Popen([sys.executable, "-c", SAVER, str(project), f"s{i}"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=env) for i in range(4)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 and o.strip() == "ok" for p, (o, _e) in zip(procs, outs,
                                                                            strict=True)), outs
    with workflow.open_store(project) as st:
        rows = st.all()
    assert len(rows) == 1 and rows[0].current_task_number == 1
    assert os.stat(workflow.db_path(project)).st_mode & 0o077 == 0
