"""The lifecycle hooks end to end: real hook JSON (the shapes of claude-code-hooks.md §6)
piped through the installed `gateway hook ...` console script, as Claude Code runs them.

A breezing team's life: teammates complete tasks and go idle (TaskCompleted, TeammateIdle),
the Lead gets the progress signals (UserPromptSubmit), the context is compacted (PreCompact
saves the spec workflow position; SessionStart `compact` tells the Lead what to rebuild) and
the session is resumed (SessionStart `resume`). Every hook exits 0 and prints one JSON object
or nothing; broken state files are reported, never turned into instructions."""

import json
import os
import shutil
import signal
import subprocess
import time

import pytest

SPEC = os.path.join(os.path.dirname(os.path.dirname(__file__)), "orchestration", "data",
                    "seed002-spec.md")
SPEC_ID = "ed37057f-b8e2-499d-b564-505254a0c509"
SID = "2f0c2b1e-5f0e-4a4b-9d6c-1b2a3c4d5e6f"
ACTIVE = {"session_id": "breezing-20260206-0300", "started_at": "2026-02-06T03:00:00Z",
          "team_name": "breezing-auth-feature", "impl_mode": "codex",
          "plans_md_mapping": {"task-1": "4.1", "task-2": "4.2", "task-3": "4.3",
                               "task-4": "4.4"},
          "team": {"implementer_count": 2, "reviewer_count": 1},
          "review": {"retake_count": 1, "max_retakes": 3}}


@pytest.fixture()
def project(tmp_path):
    p = tmp_path / "proj"
    (p / ".claude" / "state").mkdir(parents=True)
    return p


@pytest.fixture()
def env(tmp_path, project):
    return {"CLAUDE_PROJECT_DIR": str(project), "GATEWAY_TASKS_DIR": str(tmp_path / "tasks")}


def _base(project, event, **kw):
    return {"session_id": SID, "transcript_path": f"/nonexistent/{SID}.jsonl",
            "cwd": str(project), "hook_event_name": event, **kw}


def _ok(p):
    assert p.returncode == 0, p.stderr.decode()
    out = p.stdout.decode().strip()
    if out:
        assert out.count("\n") == 0
        return json.loads(out)
    return None


def _state(project, name):
    return project / ".claude" / "state" / name


def _jsonl(path):
    return [json.loads(x) for x in path.read_text().splitlines() if x]


def _active(project, **kw):
    _state(project, "breezing-active.json").write_text(json.dumps({**ACTIVE, **kw}))


def _task_completed(project, tid, teammate="implementer-1"):
    return _base(project, "TaskCompleted", permission_mode="default", task_id=tid,
                 task_subject=f"subject of {tid}", task_description="Add login",
                 teammate_name=teammate, team_name="breezing-auth-feature")


def test_a_team_run_through_every_hook(run_hook, project, env, tmp_path):
    _active(project)
    # two teammates complete tasks; one completes the same task again (a retake)
    for tid, who in (("task-1", "impl-1"), ("task-1", "impl-1"), ("task-2", "impl-2")):
        assert _ok(run_hook("task-completed", _task_completed(project, tid, who),
                            env)) is None
    assert _ok(run_hook("teammate-idle", _base(project, "TeammateIdle",
                                                 permission_mode="default",
                                                 teammate_name="impl-1",
                                                 team_name="breezing-auth-feature"),
                        env)) is None
    timeline = _jsonl(_state(project, "breezing-timeline.jsonl"))
    assert [(r["event"], r.get("task_id"), r["teammate"]) for r in timeline] == [
        ("task_completed", "task-1", "impl-1"), ("task_completed", "task-1", "impl-1"),
        ("task_completed", "task-2", "impl-2"), ("teammate_idle", None, "impl-1")]
    sigs = _jsonl(_state(project, "breezing-signals.jsonl"))
    assert [(s["signal"], s["completed"], s["total"]) for s in sigs] == [
        ("partial_review_recommended", 2, 4)]
    # the Lead's next prompt gets the signal, once
    prompt = _base(project, "UserPromptSubmit", permission_mode="default", prompt="status?")
    out = _ok(run_hook("user-prompt-submit", prompt, env))
    ctx = out["hookSpecificOutput"]
    assert ctx["hookEventName"] == "UserPromptSubmit"
    assert ctx["additionalContext"].split("\n")[1] == (
        "- partial_review_recommended: 2 of 4 tasks completed. You may ask the Reviewer for a "
        "partial review (not needed when only one task is left).")
    assert _ok(run_hook("user-prompt-submit", prompt, env)) is None
    # compaction: PreCompact saves the spec position, SessionStart(compact) restores both
    specs = project / ".cc-craft-kit" / "specs"
    specs.mkdir(parents=True)
    shutil.copy(SPEC, specs / f"{SPEC_ID}.md")
    assert _ok(run_hook("pre-compact", _base(project, "PreCompact", trigger="auto",
                                             custom_instructions=None), env)) is None
    assert (project / ".claude" / "state" / "gateway-workflow.sqlite3").is_file()
    out = _ok(run_hook("session-start", _base(project, "SessionStart", source="compact",
                                              model="claude-sonnet-4-5"), env))
    text = out["hookSpecificOutput"]["additionalContext"]
    assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart" and "systemMessage" \
        not in out
    assert text.startswith("gateway: a /breezing session is recorded in this project (session "
                           "breezing-20260206-0300, team breezing-auth-feature")
    assert "Context was compacted: you are the Lead. Do not implement tasks yourself." in text
    assert ("implementers are subagent_type claude-code-harness:codex-implementer, never "
            "claude-code-harness:task-worker") in text
    assert f"The team's task list {tmp_path}/tasks/breezing-auth-feature is not there" in text
    assert ("- Current task 1 of 13 «schema.ts に WorkflowStateTable 型定義を追加» (issue "
            "#541): next action task_start") in text
    # a resumed session is told how to continue
    out = _ok(run_hook("session-start", _base(project, "SessionStart", source="resume",
                                              seconds_since_last_response=2,
                                              context_tokens=15,
                                              prompt_cache_likely_expired=False,
                                              estimated_cache_write_usd=0.0001), env))
    assert "Teammates do not survive a resumed session" in \
        out["hookSpecificOutput"]["additionalContext"]


@pytest.mark.parametrize("source", ["startup", "clear", "fork", None])
def test_session_start_says_nothing_for_other_sources(run_hook, project, env, source):
    _active(project)
    payload = _base(project, "SessionStart")
    if source:
        payload["source"] = source
    assert _ok(run_hook("session-start", payload, env)) is None


def test_a_corrupt_breezing_active_is_reported_not_obeyed(run_hook, project, env):
    _state(project, "breezing-active.json").write_text('{"session_id": "x", "impl_mode": ')
    out = _ok(run_hook("session-start", _base(project, "SessionStart", source="compact"), env))
    text = out["hookSpecificOutput"]["additionalContext"]
    assert text.startswith("gateway: the /breezing session state cannot be used: "
                           ".claude/state/breezing-active.json ends early")
    assert "Do not rebuild the team, spawn teammates or implement tasks from memory" in text
    assert "task-worker" not in text and "codex-implementer" not in text
    assert out["systemMessage"].startswith("gateway: state file ")
    assert "To repair:" in out["systemMessage"]
    out = _ok(run_hook("task-completed", _task_completed(project, "task-1"), env))
    assert out == {"systemMessage": out["systemMessage"]}
    assert out["systemMessage"].startswith("gateway: progress signals were not computed: "
                                           "state file ")
    assert not _state(project, "breezing-signals.jsonl").exists()


def test_a_bad_signals_line_is_reported_to_the_user(run_hook, project, env):
    _active(project)
    path = _state(project, "breezing-signals.jsonl")
    path.write_text('{"signal": "x"\n')
    prompt = _base(project, "UserPromptSubmit", prompt="hi")
    out = _ok(run_hook("user-prompt-submit", prompt, env))
    assert out == {"systemMessage": (
        f"gateway: 1 line(s) of {path} cannot be read and were skipped (line 1); the other "
        f"signals were handed over. To repair: `gateway state repair` sets the unreadable "
        f"lines aside")}
    assert path.read_text() == '{"signal": "x"\n'        # kept, never erased


@pytest.mark.parametrize("event", ["user-prompt-submit", "session-start"])
def test_a_torn_signals_line_does_not_hold_up_the_hand_over(run_hook, project, env, event):
    # a writer killed mid-line (or a truncated copy) leaves a torn line: the signals before
    # and after it are still handed over, the torn line stays in the file, the user is told
    _active(project, plans_md_mapping={"task-1": "4.1", "task-2": "4.2", "task-3": "4.3"})
    path = _state(project, "breezing-signals.jsonl")
    first = json.dumps({"signal": "partial_review_recommended",
                        "session_id": ACTIVE["session_id"], "completed": 2, "total": 3})
    path.write_text(first + "\n" + '{"signal": "next_batch_recomm')
    assert _ok(run_hook("task-completed", _task_completed(project, "task-3"), env)) is None
    if event == "user-prompt-submit":
        data = _base(project, "UserPromptSubmit", prompt="hi")
    else:
        data = _base(project, "SessionStart", source="compact")
    out = _ok(run_hook(event, data, env))
    text = out["hookSpecificOutput"]["additionalContext"]
    assert "- partial_review_recommended: 2 of 3 tasks completed." in text
    assert "next_batch_recomm" not in text
    assert out["systemMessage"].endswith(
        f"gateway: 1 line(s) of {path} cannot be read and were skipped (line 2 (an "
        f"interrupted write)); the other signals were handed over. To repair: `gateway state "
        f"repair` sets the unreadable lines aside")
    lines = path.read_text().split("\n")
    assert lines[1] == '{"signal": "next_batch_recomm' and lines[-1] == ""
    assert json.loads(lines[0])["consumed_at"]
    out = _ok(run_hook(event, data, env))                   # consumed: not handed over twice
    assert "partial_review_recommended" not in json.dumps(out)


def test_a_corrupt_workflow_database_is_reported(run_hook, project, env):
    _state(project, "gateway-workflow.sqlite3").write_bytes(b"garbage" * 200)
    specs = project / ".cc-craft-kit" / "specs"
    specs.mkdir(parents=True)
    shutil.copy(SPEC, specs / f"{SPEC_ID}.md")
    out = _ok(run_hook("pre-compact", _base(project, "PreCompact", trigger="manual",
                                            custom_instructions="keep todos"), env))
    assert out["systemMessage"].startswith("gateway: the workflow position was not saved "
                                           "before compaction: state file ")
    assert "is not a usable SQLite database" in out["systemMessage"]
    out = _ok(run_hook("session-start", _base(project, "SessionStart", source="compact"), env))
    assert "the saved workflow position cannot be read" in \
        out["hookSpecificOutput"]["additionalContext"]


@pytest.mark.parametrize("event", ["task-completed", "teammate-idle", "pre-compact",
                                   "session-start", "user-prompt-submit"])
@pytest.mark.parametrize("data", [b"", b"not json", b"[]", b'{"hook_event_name": "Stop"}',
                                  b"\xff\xfe", b'{"cwd": 5, "source": "compact"}'])
def test_garbage_in_nothing_out(run_hook, project, env, event, data):
    _active(project)
    p = run_hook(event, data, env)
    assert (p.returncode, p.stdout) == (0, b"")
    assert not _state(project, "breezing-timeline.jsonl").exists()


def test_no_state_no_output_and_nothing_written(run_hook, tmp_path):
    proj = tmp_path / "plain"
    proj.mkdir()
    env = {"CLAUDE_PROJECT_DIR": str(proj)}
    for event, payload in (
            ("task-completed", _task_completed(proj, "task-1")),
            ("teammate-idle", _base(proj, "TeammateIdle", teammate_name="a")),
            ("pre-compact", _base(proj, "PreCompact", trigger="auto")),
            ("session-start", _base(proj, "SessionStart", source="compact")),
            ("user-prompt-submit", _base(proj, "UserPromptSubmit", prompt="x"))):
        p = run_hook(event, payload, env)
        assert (p.returncode, p.stdout, p.stderr) == (0, b"", b""), event
    assert os.listdir(proj) == []


def test_lifecycle_hooks_are_not_in_the_audit_log(run_hook, project, env, hook_env):
    _active(project)
    run_hook("task-completed", _task_completed(project, "task-1"), env)
    run_hook("session-start", _base(project, "SessionStart", source="compact"), env)
    assert not os.path.exists(hook_env["GATEWAY_AUDIT_LOG"])


def test_hooks_killed_with_sigkill_leave_readable_files(gateway_exe, hook_env, project, env):
    """40 TaskCompleted hooks at once through the real command, every third SIGKILLed while
    the others run: the files stay readable, no signal is duplicated, and the completions of
    the hooks that finished are all there. (Kills inside the write itself are the subject of
    tests/orchestration/test_kill9.py, which drives the same code in a tight loop.)"""
    _active(project, plans_md_mapping={f"task-{i}": f"4.{i}" for i in range(1, 41)})
    full_env = dict(hook_env, **env)
    finished = []
    procs = []
    for i in range(1, 41):
        data = json.dumps(_task_completed(project, f"task-{i}")).encode()
        p = subprocess.Popen([gateway_exe, "hook", "task-completed"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=full_env)
        p.stdin.write(data)
        p.stdin.close()
        procs.append((i, p))
    # all 40 run at once, contending for the locks; every third is killed
    for i, p in procs:
        if i % 3 == 0:
            time.sleep(0.1)
            p.send_signal(signal.SIGKILL)
    for i, p in procs:
        out, err = p.stdout.read(), p.stderr.read()
        p.wait(timeout=120)
        if p.returncode == 0:
            assert out == b"", err
            finished.append(f"task-{i}")
        else:
            assert p.returncode == -signal.SIGKILL
    from gateway.state import store

    tl = store.read_jsonl(_state(project, "breezing-timeline.jsonl"))
    assert tl.errors == [] or all(e.torn for e in tl.errors)
    ids = {r["task_id"] for r in tl.records}
    assert set(finished) <= ids
    assert len(finished) >= 27                  # the hooks that were not killed
    sg = store.read_jsonl(_state(project, "breezing-signals.jsonl"))
    assert sg.errors == []
    names = [r["signal"] for r in sg.records]
    assert names.count("partial_review_recommended") <= 1
    if len(ids) >= 20:
        assert names == ["partial_review_recommended"]
