"""The spec task sync through the installed hook command (`gateway hook post-tool-use`), fed
PostToolUse JSON as Claude Code sends it after an Edit, MultiEdit or Write of a spec: the due
done step is recorded and the model told; every other write stays silent; the SessionStart
restore names the due step after a compaction."""

import json
import os
import shutil

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SEED_SPEC = os.path.join(os.path.dirname(HERE), "orchestration", "data", "seed002-spec.md")
SPEC_ID = "ed37057f-b8e2-499d-b564-505254a0c509"
T1 = "schema.ts に WorkflowStateTable 型定義を追加"
T2 = "workflow_state テーブル作成マイグレーションを追加"
TITLE = "セッション再開時にワークフロー状態が引き継がれない"


@pytest.fixture()
def proj(tmp_path_factory):
    root = tmp_path_factory.mktemp("spec") / "proj"
    d = root / ".cc-craft-kit" / "specs"
    d.mkdir(parents=True)
    (root / ".claude").mkdir()
    shutil.copy(SEED_SPEC, d / f"{SPEC_ID}.md")
    return str(root)


def spec(proj):
    return os.path.join(proj, ".cc-craft-kit", "specs", f"{SPEC_ID}.md")


def edit(proj, old, new, path=None, tool="Edit", response=None):
    """Apply the edit to the file (as the client does), return the PostToolUse payload."""
    path = path or spec(proj)
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    if old in text:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text.replace(old, new))
    ti = {"file_path": path, "old_string": old, "new_string": new}
    if tool == "MultiEdit":
        ti = {"file_path": path, "edits": [{"old_string": old, "new_string": new}]}
    return {"session_id": "s-1", "transcript_path": "/x.jsonl", "cwd": proj,
            "permission_mode": "default", "hook_event_name": "PostToolUse", "tool_name": tool,
            "tool_input": ti, "tool_use_id": "toolu_1",
            "tool_response": response if response is not None else {"filePath": path}}


def context(proc):
    assert proc.returncode == 0, proc.stderr
    obj = json.loads(proc.stdout)
    assert list(obj) == ["hookSpecificOutput"]
    assert obj["hookSpecificOutput"]["hookEventName"] == "PostToolUse"
    return obj["hookSpecificOutput"]["additionalContext"]


def silent(proc):
    return proc.returncode == 0 and proc.stdout == b""


@pytest.mark.parametrize("tool", ["Edit", "MultiEdit"])
def test_checking_a_task_records_its_done_step(run_hook, proj, tool):
    data = edit(proj, f"- [ ] {T1} (#541)", f"- [x] {T1} (#541)", tool=tool)
    text = context(run_hook("post-tool-use", data))
    assert text == (f"gateway GW950: spec «{TITLE}»: task 1 «{T1}» (issue #541) checked; its "
                    f"done step (the issue goes to Done) is now due: run `gateway spec done "
                    f"541`; then task 2 «{T2}» is next (`gateway spec start 542`).")
    import sqlite3
    db = sqlite3.connect(os.path.join(proj, ".claude", "state", "gateway-workflow.sqlite3"))
    (due, current), = db.execute("SELECT done_due, current_task_number FROM workflow_state")
    assert json.loads(due) == [{"task": 1, "issue": 541, "title": T1}] and current == 2


def test_a_write_of_the_spec_compares_with_the_file_before(run_hook, proj):
    with open(spec(proj), encoding="utf-8") as fh:
        before = fh.read()
    after = before.replace(f"- [ ] {T1} (#541)", f"- [x] {T1} (#541)").replace(
        f"- [ ] {T2} (#542)", f"- [x] {T2} (#542)")
    with open(spec(proj), "w", encoding="utf-8") as fh:
        fh.write(after)
    data = {"cwd": proj, "hook_event_name": "PostToolUse", "tool_name": "Write",
            "tool_input": {"file_path": spec(proj), "content": after},
            "tool_response": {"type": "update", "filePath": spec(proj), "content": after,
                              "originalFile": before, "structuredPatch": []}}
    text = context(run_hook("post-tool-use", data))
    assert "run `gateway spec done N` for each of #541, #542" in text


def test_everything_else_is_silent(run_hook, proj):
    readme = os.path.join(proj, "README.md")
    with open(readme, "w") as fh:
        fh.write("- [ ] x (#1)\n")
    assert silent(run_hook("post-tool-use", edit(proj, "- [ ] x (#1)", "- [x] x (#1)",
                                                 path=readme)))
    # an edit of the spec that checks no task; an acceptance criterion; unchecking
    assert silent(run_hook("post-tool-use", edit(proj, "## 2. 対象ユーザー", "## 2. 利用者")))
    crit = "セッション再開後も、実行中のタスクに関する状態が復元される"
    assert silent(run_hook("post-tool-use", edit(proj, f"- [ ] {crit}", f"- [x] {crit}")))
    assert silent(run_hook("post-tool-use", edit(proj, f"- [ ] {T1} (#541)",
                                                 f"- [x] {T1} (#541)",
                                                 response={"error": "failed"})))
    assert not os.path.exists(os.path.join(proj, ".claude", "state",
                                           "gateway-workflow.sqlite3"))
    assert silent(run_hook("post-tool-use", b"\xff garbage"))
    assert silent(run_hook("post-tool-use", {"tool_name": "Edit", "tool_input": "x"}))


def test_a_broken_workflow_store_is_told(run_hook, proj):
    state = os.path.join(proj, ".claude", "state")
    os.makedirs(state)
    with open(os.path.join(state, "gateway-workflow.sqlite3"), "w") as fh:
        fh.write("not a database " * 100)
    text = context(run_hook("post-tool-use", edit(proj, f"- [ ] {T1} (#541)",
                                                  f"- [x] {T1} (#541)")))
    assert text.startswith("gateway GW951: the due done step could not be recorded: ")
    assert text.endswith("check the spec's done steps with `gateway spec status`")


def test_the_restore_after_compaction_names_the_due_step(run_hook, proj):
    run_hook("post-tool-use", edit(proj, f"- [ ] {T1} (#541)", f"- [x] {T1} (#541)"))
    p = run_hook("session-start", {"hook_event_name": "SessionStart", "cwd": proj,
                                   "source": "compact"})
    text = json.loads(p.stdout)["hookSpecificOutput"]["additionalContext"]
    lines = text.split("\n")
    assert lines[1] == (f"- DUE FIRST: task 1 «{T1}» is checked but its done step has not "
                        f"run: run the task done step for issue #541 now (`gateway spec done "
                        f"541`).")
    assert lines[2].startswith(f"- Current task 2 of 13 «{T2}» (issue #542): next action "
                               f"task_start: run the task start step (`gateway spec start 542`")


def test_the_sync_is_audited_with_its_code(run_hook, proj, hook_env):
    run_hook("post-tool-use", edit(proj, f"- [ ] {T1} (#541)", f"- [x] {T1} (#541)"))
    with open(hook_env["GATEWAY_AUDIT_LOG"]) as fh:
        entries = [json.loads(line) for line in fh]
    assert [(e["event"], e["code"], e["phase"], e["command"]) for e in entries] == \
        [("PostToolUse", "GW950", "spec-sync", spec(proj))]


@pytest.mark.parametrize("name", ["src/app.py", "README.md", "docs/x.md"])
def test_other_edits_cost_one_path_comparison(proj, name):
    """The hook runs for every Write/Edit: for a file that is not a spec it imports neither
    the SQLite store nor anything the hook path must not load."""
    import subprocess
    import sys

    payload = json.dumps({"cwd": proj, "hook_event_name": "PostToolUse", "tool_name": "Edit",
                          "tool_input": {"file_path": os.path.join(proj, name),
                                         "old_string": "- [ ] a (#1)",
                                         "new_string": "- [x] a (#1)"}, "tool_response": {}})
    probe = ("import io, sys\nsys.stdin = io.TextIOWrapper(io.BytesIO(sys.argv[1].encode()))\n"
             "from gateway._entry import main\nmain(['hook', 'post-tool-use'])\n"
             "sys.stderr.write('MODULES ' + ' '.join(sorted(sys.modules)))\n")
    p = subprocess.run([sys.executable, "-c", probe, payload], capture_output=True, text=True,
                       env={**os.environ, "GATEWAY_AUDIT_LOG": "off", "GATEWAY_RESIDENT": "off"})
    assert p.returncode == 0 and p.stdout == ""
    modules = set(p.stderr.split("MODULES ", 1)[1].split())
    assert not modules & {"sqlite3", "click", "pydantic", "yaml", "gateway.orchestration.workflow",
                          "gateway.guards.engine"}, modules


def test_a_failed_write_of_another_file_says_nothing_about_roles(run_hook, proj):
    """Before: any Write whose response carried an error was told 'the role marker was
    written but no role was registered' (GW806), marker or not."""
    data = {"cwd": proj, "hook_event_name": "PostToolUse", "tool_name": "Write",
            "tool_input": {"file_path": os.path.join(proj, "src", "app.py"), "content": "x"},
            "tool_response": {"success": False}}
    assert silent(run_hook("post-tool-use", data))
