"""Issue 27, item by item: every state transition a seed describes is performed by the hook
or the command that observes it -- tested through the real entry points (raw JSON on the
stdin of `gateway hook ...`, the `gateway` command line), each with its exact outcome. The
whole run together is tests/e2e/test_long_run.py."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from .teamrun import TEAM, Run, subjects


def plans(n=4):
    return "# Plans.md\n\n## 認証機能\n\n" + "".join(
        f"{i}. 機能{i:02d}の実装 `cc:TODO`\n   owns: src/f{i:02d}.py\n" for i in range(1, n + 1))


@pytest.fixture()
def run(tmp_path, gateway_exe, hook_env):
    return Run(tmp_path, gateway_exe, hook_env, plans())


def start(r, lead="lead-1", extra="", n=None):
    r.bash(lead, "gateway breezing start --range 全部やって --no-discuss" + extra)
    _, out, _ = r.bash(lead, f"gateway breezing start --range 全部やって --no-discuss{extra} "
                             f"--yes --team {TEAM} --json")
    started = json.loads(out)
    return started, r.create_tasks(lead, started["register"]), subjects(started["register"])


# --- item 2: the gateway's own workflow commands, catalogued ---------------------------------

@pytest.mark.parametrize("mode", ["default", "bypassPermissions", "dontAsk", "plan"])
@pytest.mark.parametrize("command", ["gateway breezing phase B", "gateway resume --list",
                                     "gateway crew status", "gateway spec status"])
def test_the_gateways_own_commands_are_not_asked(run, mode, command):
    """Before: PreToolUse asked GW840 for every one of them in every mode (a refusal in -p).
    Now their reads and writes are known (rules/workflow.yaml): the early allow."""
    (run.dir / ".claude" / "state").mkdir(parents=True)
    (run.dir / ".claude/state/breezing-active.json").write_text('{"session_id": "s"}')
    out = run.hook("pre-tool-use", run.payload("PreToolUse", "lead-1", permission_mode=mode,
                                               tool_name="Bash",
                                               tool_input={"command": command}))
    if mode == "dontAsk" or (mode == "plan" and command == "gateway breezing phase B"):
        # the user's mode pre-approves nothing / plan mode changes nothing: no decision, and
        # never the gateway's own ask
        assert out == {}
        return
    hso = out["hookSpecificOutput"]
    assert hso["permissionDecision"] == "allow", hso
    assert hso["permissionDecisionReason"].startswith("gateway GW700: the validator allows it: "
                                                      "gateway ")


@pytest.mark.parametrize("mode", ["default", "acceptEdits", "bypassPermissions"])
@pytest.mark.parametrize("command", ["gateway breezing phase B", "gateway resume --list",
                                     "gateway crew status", "gateway spec status",
                                     "gateway breezing status", "gateway breezing batch",
                                     "gateway breezing review REQUEST_CHANGES",
                                     "gateway breezing register implementer --name impl-1",
                                     "gateway orch claim w1", "gateway spec done 541"])
def test_the_permission_request_hook_allows_them_too(run, mode, command):
    """The dialog's own hook (PermissionRequest, when the client would show the dialog):
    the same catalogue, the same answer -- no dialog for the gateway's own steps."""
    (run.dir / ".claude" / "state").mkdir(parents=True)
    (run.dir / ".claude/state/breezing-active.json").write_text('{"session_id": "s"}')
    out = run.hook("permission-request", run.payload("PermissionRequest", "lead-1",
                                                     permission_mode=mode, tool_name="Bash",
                                                     tool_input={"command": command}))
    assert out == {"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                                          "decision": {"behavior": "allow"}}}, out


def test_with_the_users_allow_rule_nothing_asks(run):
    """`Bash(gateway:*)` in the user's settings: the workflow step that runs the project's
    checks is left to the client (no ask of the gateway's own), which then allows it."""
    claude = run.dir / ".claude"
    claude.mkdir()
    (claude / "settings.json").write_text(json.dumps(
        {"permissions": {"allow": ["Bash(gateway:*)"]}}))
    decision, reason = run.pre("lead-1", "Bash", {"command": "gateway breezing finish --approved"})
    assert decision in (None, "allow"), reason


def test_a_workflow_step_that_changes_the_state_is_the_leads(run):
    start(run)
    run.hook("subagent-start", run.payload("SubagentStart", "lead-1", agent_id="rev-1",
                                           agent_type="code-reviewer"))
    decision, reason = run.pre("lead-1", "Bash", {"command": "gateway breezing phase B"},
                               agent_id="rev-1")
    assert decision == "deny" and reason.startswith("gateway GW807: only the Lead changes the "
                                                    "breezing state (gateway breezing phase B)")


# --- item 1: batching advances -----------------------------------------------------------------

def test_batches_advance_and_finish_waits_for_every_batch(tmp_path, gateway_exe, hook_env):
    r = Run(tmp_path, gateway_exe, hook_env, plans(10))
    started, ids, sub = start(r)
    assert [e["id"] for e in started["register"]] == [f"task-{i}" for i in range(1, 9)]
    r.bash("lead-1", "gateway breezing phase B")
    for i in range(1, 9):
        r.complete("tm", ids[str(i)], sub[str(i)], "implementer-1")
    active = r.active()
    assert [b["status"] for b in active["batching"]["batches"]] == ["completed", "pending"]
    _, out, _ = r.bash("lead-1", "gateway breezing status")
    assert "Plans.md tasks: 8 of 10 completed" in out
    assert "next: register the next batch: `gateway breezing batch` (batch 2)" in out
    # Phase C cannot skip the batch that was never registered
    r.bash("lead-1", "gateway breezing review APPROVE")
    r.bash("lead-1", "gateway breezing phase C")
    code, _, err = r.cli("breezing", "finish")
    assert code == 1 and "batch 2 (9, 10) was never registered: run `gateway breezing batch`" \
        in err
    assert "cc:done" not in (r.dir / "Plans.md").read_text()
    r.bash("lead-1", "gateway breezing phase B")
    _, out, _ = r.bash("lead-1", "gateway breezing batch --json")
    b2 = json.loads(out)
    assert [(e["id"], e["section"]) for e in b2["register"]] == [("task-9", "9"),
                                                                ("task-10", "10")]
    assert r.active()["batching"]["current_batch"] == 2
    code, _, err = r.cli("breezing", "batch")
    assert code == 1 and "no batch is waiting" in err


# --- items 4 and 14: registration where teams run; no more than a registered role ----------

def test_phase_b_says_who_has_not_registered(run):
    start(run)
    code, out, err = run.cli("breezing", "phase", "B")
    assert code == 0 and ("gateway: not every teammate is registered yet (implementer 0/3, "
                          "reviewer 0/1)") in err


def test_registration_through_a_bash_command_binds_the_callers_identity(run):
    start(run)
    # a subagent registers: bound to its agent_id, not to the Lead's session
    _, out, ctx = run.bash("lead-1", "gateway breezing register implementer --name i1",
                           agent_id="agent-7")
    assert out.startswith("gateway: registration requested: implementer under the name i1")
    roles = json.loads((run.dir / ".claude/state/breezing-session-roles.json").read_text())
    assert roles["agent-7"]["role"] == "implementer" and roles["agent-7"]["owns"] == []
    assert roles["lead-1"]["role"] == "lead"            # recorded when the Lead ran Step 0/3
    # no self-escalation through the channel either
    decision, reason = run.pre("lead-1", "Bash", {"command": "gateway breezing register lead"},
                               agent_id="agent-7")
    assert decision == "deny" and "GW805" in reason
    # the Lead assigns the files
    run.bash("lead-1", "gateway breezing register implementer --owns 'src/**' --name i1")
    assert run.write("lead-1", "src/f01.py", agent_id="agent-7") == (None, "")
    decision, reason = run.write("lead-1", "docs/x.md", agent_id="agent-7")
    assert decision == "deny" and "GW803" in reason


def test_a_teammate_without_a_role_gets_no_more_than_a_registered_one(run):
    start(run)
    for who in ({"agent_id": "agent-x"}, {}):        # a subagent; a session of its own
        session = "lead-1" if who else "teammate-9"
        decision, reason = run.write(session, "src/f01.py", **who)
        assert decision == "deny" and reason.startswith("gateway GW821: "), reason
        decision, reason = run.pre(session, "Bash", {"command": "touch src/x"}, **who)
        assert decision == "deny" and "GW821" in reason
        decision, _ = run.pre(session, "Agent", {"prompt": "x", "description": "d"}, **who)
        assert decision == "deny"
        decision, _ = run.pre(session, "Bash", {"command": "git status"}, **who)
        assert decision in (None, "allow")             # reading is fine
    # the Lead is not affected
    assert run.pre("lead-1", "Bash", {"command": "touch src/x"})[0] != "deny"


# --- item 5: the retake counter -----------------------------------------------------------------

def test_a_review_result_write_is_observed_and_escalates_after_three_retakes(run):
    start(run)
    path = str(run.dir / ".claude/state/review-result.json")
    contexts = []
    for n in range(1, 5):
        body = json.dumps({"verdict": "REQUEST_CHANGES", "session_id": run.active()["session_id"],
                           "timestamp": f"2026-02-06T0{n}:00:00Z"})
        (run.dir / ".claude/state/review-result.json").write_text(body)
        contexts.append(run.post("lead-1", "Write", {"file_path": path, "content": body},
                                 {"type": "create"}, agent_id="rev-1"))
    assert contexts[0].startswith("gateway GW952: verdict REQUEST_CHANGES recorded: retake; "
                                  "retakes 1 of 3.")
    assert "retakes 3 of 3" in contexts[2]
    assert contexts[3].startswith("gateway GW952: verdict REQUEST_CHANGES recorded: escalate; "
                                  "retakes 3 of 3. Next: the retake limit is reached: "
                                  "escalate to the user")
    # the same review seen again counts once
    again = run.post("lead-1", "Write", {"file_path": path, "content": "x"}, {"type": "update"})
    assert "(recorded already: counted once)" in again
    assert run.active()["review"]["retake_count"] == 3


# --- item 8: rotation never loses the running session's completions -----------------------

def test_timeline_rotation_keeps_the_sessions_completions(run):
    start(run)
    sub = {str(i): f"{i}. 機能{i:02d}の実装" for i in range(1, 5)}
    run.complete("tm", "1", sub["1"], "implementer-1")
    for n in range(560):                 # many idle events (each teammate at most every 5 s)
        run_idle(run, f"implementer-{n}")
    run.complete("tm", "2", sub["2"], "implementer-2")
    lines = (run.dir / ".claude/state/breezing-timeline.jsonl").read_text().splitlines()
    assert len(lines) <= 500
    done = [json.loads(x)["task_id"] for x in lines if '"task_completed"' in x]
    assert done == ["1", "2"]
    sig = (run.dir / ".claude/state/breezing-signals.jsonl").read_text()
    assert '"partial_review_recommended"' in sig and '"completed":2,"total":4' in sig


def run_idle(r, teammate):
    from gateway.orchestration import signals

    signals.record_teammate_idle(str(r.dir), teammate=teammate, team=TEAM)


# --- item 10: finish checks every task, the fix tasks too --------------------------------------

def test_finish_waits_for_a_fix_task_created_after_request_changes(run):
    started, ids, sub = start(run)
    for s, tid in ids.items():
        run.complete("tm", tid, sub[s], "implementer-1")
    run.bash("lead-1", "gateway breezing review REQUEST_CHANGES")
    fix = run.fix_task("lead-1", "Fix: the login form")
    run.bash("lead-1", "gateway breezing review APPROVE")
    run.bash("lead-1", "gateway breezing phase C")
    code, _, err = run.cli("breezing", "finish")
    assert code == 1 and f"not completed: {fix} (Fix: the login form): completed" not in err
    assert f"{fix} (Fix: the login form): pending" in err or \
        f"{fix} (Fix: the login form): not completed" in err
    run.complete("tm", fix, "Fix: the login form", "implementer-1")
    code, out, err = run.cli("breezing", "finish")
    assert code == 0, err


def test_an_open_fix_task_survives_a_resume_and_finish_waits_for_it(run):
    """REQUEST_CHANGES, a fix task, then the team's task list is gone and the Lead resumes:
    the resume lists the fix task to create again (its subject), and Phase C waits for it
    until it is created again and completed -- the Reviewer's findings are never dropped."""
    started, ids, sub = start(run)
    run.bash("lead-1", "gateway breezing phase B")
    for s, tid in ids.items():
        run.complete("tm", tid, sub[s], "implementer-1")
    run.bash("lead-1", "gateway breezing review REQUEST_CHANGES")
    fix = run.fix_task("lead-1", "Fix: the login form")
    import shutil

    shutil.rmtree(run.tasks_root / TEAM)
    env = dict(run.env, GATEWAY_LANG="en")
    p = subprocess.run([run.exe, "resume"], cwd=run.dir, env=env, capture_output=True,
                       text=True)
    assert f"⏳ {fix} Fix: the login form (a fix task after REQUEST_CHANGES: create it again " \
           "with this subject)" in p.stdout.splitlines()
    _, out, _ = run.bash("lead-1", "gateway resume --yes")
    assert "  Fix: the login form (REQUEST_CHANGES の修正タスク: この件名で TaskCreate)" in \
        out.splitlines()
    run.bash("lead-1", "gateway breezing review APPROVE")
    run.bash("lead-1", "gateway breezing phase C")
    code, _, err = run.cli("breezing", "finish")
    assert code == 1 and ("not completed: «Fix: the login form» (a fix task open before the "
                          "resume): not created again: create it with this subject "
                          "(TaskCreate)") in err
    fix2 = run.fix_task("lead-1", "Fix: the login form")
    code, _, err = run.cli("breezing", "finish")
    assert code == 1 and f"not completed: {fix2} (Fix: the login form): not completed" in err
    run.complete("tm", fix2, "Fix: the login form", "implementer-1")
    code, out, err = run.cli("breezing", "finish")
    assert code == 0, err
    assert (run.dir / "Plans.md").read_text().count("`cc:done`") == 4


# --- items 6 and 7: seed 002's done step; SessionEnd -----------------------------------------

SPEC_ID = "ed37057f-b8e2-499d-b564-505254a0c509"


def _spec(r):
    specs = r.dir / ".cc-craft-kit" / "specs"
    specs.mkdir(parents=True)
    (specs / f"{SPEC_ID}.md").write_text(
        "# spec\n**仕様書 ID:** " + SPEC_ID + "\n**フェーズ:** implementation\n\n"
        "## 8. 実装タスクリスト\n- [ ] first (#541)\n- [ ] second (#542)\n- [ ] third\n",
        encoding="utf-8")
    return specs / f"{SPEC_ID}.md"


def test_a_task_checked_by_bash_keeps_its_done_step_through_compaction(run):
    path = _spec(run)
    run.bash("lead-1", "gateway spec start 541")
    # the box is checked by Bash (no PostToolUse of a spec Write sees it), then compaction
    subprocess.run(["sed", "-i", "s/- \\[ \\] first/- [x] first/", str(path)], check=True)
    run.hook("pre-compact", run.payload("PreCompact", "lead-1", trigger="auto",
                                        custom_instructions=None))
    out = run.hook("session-start", run.payload("SessionStart", "lead-1", source="compact"))
    text = out["hookSpecificOutput"]["additionalContext"]
    assert ("- DUE FIRST: task 1 «first» is checked but its done step has not run: run the "
            "task done step for issue #541 now (`gateway spec done 541`).") in text
    _, out, _ = run.bash("lead-1", "gateway spec status")
    assert "  DUE: task 1 (#541) is checked; its done step has not run: gateway spec done 541" \
        in out
    run.bash("lead-1", "gateway spec done 541")
    _, out, _ = run.bash("lead-1", "gateway spec status")
    assert "DUE" not in out


@pytest.mark.parametrize("how", ["Edit", "MultiEdit", "Write", "Bash", "by hand"])
@pytest.mark.parametrize("save,source", [("pre-compact", "compact"), ("session-end", "resume")])
def test_the_done_step_survives_every_path_that_checks_a_task(run, how, save, source):
    """Seed 002's lost done step: task 1 is started, its box is checked -- by an Edit, a
    MultiEdit or a Write the PostToolUse hook sees, by Bash, or by hand in an editor -- then
    the next task is started and the session is saved (PreCompact or SessionEnd) and
    restored: the restore names the due done step first, and `spec status` until it ran."""
    path = _spec(run)
    run.bash("lead-1", "gateway spec start 541")
    before = path.read_text()
    old_line, new_line = "- [ ] first (#541)", "- [x] first (#541)"
    after = before.replace(old_line, new_line)
    if how in ("Edit", "MultiEdit", "Write"):
        tool_input = {"file_path": str(path)}
        response = {"filePath": str(path)}
        if how == "Edit":
            tool_input.update(old_string=old_line, new_string=new_line)
        elif how == "MultiEdit":
            tool_input["edits"] = [{"old_string": old_line, "new_string": new_line}]
        else:
            tool_input["content"] = after
            response.update(type="update", content=after, originalFile=before,
                            structuredPatch=[])
        assert run.pre("lead-1", how, tool_input)[0] != "deny"
        path.write_text(after)
        ctx = run.post("lead-1", how, tool_input, response)
        assert "run `gateway spec done 541`" in ctx, ctx
    elif how == "Bash":
        command = f"sed -i 's/- \\[ \\] first/- [x] first/' {path}"
        ti = {"command": command, "description": "check the task"}
        assert run.pre("lead-1", "Bash", ti)[0] != "deny"
        subprocess.run(["bash", "-c", command], check=True, cwd=run.dir)
        run.post("lead-1", "Bash", ti, {"stdout": "", "stderr": "", "interrupted": False})
        assert path.read_text() == after
    else:
        path.write_text(after)
    run.bash("lead-1", "gateway spec start 542")        # the next task, the done step forgotten
    event = "PreCompact" if save == "pre-compact" else "SessionEnd"
    extra = {"trigger": "auto", "custom_instructions": None} if save == "pre-compact" \
        else {"reason": "prompt_input_exit"}
    run.hook(save, run.payload(event, "lead-1", **extra))
    out = run.hook("session-start", run.payload("SessionStart", "lead-2", source=source))
    text = out["hookSpecificOutput"]["additionalContext"]
    assert ("- DUE FIRST: task 1 «first» is checked but its done step has not run: run the "
            "task done step for issue #541 now (`gateway spec done 541`).") in text
    _, out, _ = run.bash("lead-2", "gateway spec status")
    assert "  DUE: task 1 (#541) is checked; its done step has not run: gateway spec done 541" \
        in out
    run.bash("lead-2", "gateway spec done 541")
    _, out, _ = run.bash("lead-2", "gateway spec status")
    assert "DUE" not in out


def test_a_task_without_an_issue_is_named_by_its_position(run):
    path = _spec(run)
    for t in ("first", "second"):
        path.write_text(path.read_text().replace(f"- [ ] {t}", f"- [x] {t}"))
    _, out, _ = run.bash("lead-1", "gateway spec status")
    assert "(#None)" not in out
    assert "  current: task 3 (no issue) «third»: next action task_start (gateway spec start " \
           "--task 3)" in out
    _, out, _ = run.bash("lead-1", "gateway spec start --task 3")
    assert out.startswith("task 3 (no issue) «third» started: no issue number: the step is "
                          "recorded")


def test_session_end_saves_what_a_resumed_session_restores(run):
    _spec(run)
    run.hook("session-end", run.payload("SessionEnd", "lead-1", reason="prompt_input_exit"))
    assert (run.dir / ".claude/state/gateway-workflow.sqlite3").is_file()
    out = run.hook("session-start", run.payload("SessionStart", "lead-2", source="resume"))
    assert ("- Current task 1 of 3 «first» (issue #541): next action task_start"
            in out["hookSpecificOutput"]["additionalContext"])


def test_session_end_of_the_lead_lets_the_next_session_lead(run):
    start(run)
    run.bash("lead-1", "gateway breezing phase B")
    decision, _ = run.pre("lead-2", "Bash", {"command": "gateway resume --yes"})
    assert decision == "deny"                      # another session is the Lead
    run.hook("session-end", run.payload("SessionEnd", "lead-1", reason="other"))
    decision, reason = run.pre("lead-2", "Bash", {"command": "gateway resume --yes"})
    assert decision in (None, "allow"), reason


# --- item 3: compaction in Phase B with the task list gone -------------------------------------

def test_phase_b_after_compaction_the_lead_can_rebuild_the_team(run):
    started, ids, sub = start(run)
    run.bash("lead-1", "gateway breezing phase B")
    run.complete("tm", ids["1"], sub["1"], "implementer-1")
    import shutil

    shutil.rmtree(run.tasks_root / TEAM)
    out = run.hook("session-start", run.payload("SessionStart", "lead-1", source="compact"))
    assert "run `gateway resume --yes` (allowed in delegate mode" in \
        out["hookSpecificOutput"]["additionalContext"]
    assert run.pre("lead-1", "Agent", {"prompt": "x", "description": "d"})[0] == "deny"
    _, out, _ = run.bash("lead-1", "gateway resume --yes --json")
    assert [t["section"] for t in json.loads(out)["tasks"]] == ["2", "3", "4"]
    # Phase A again: the Lead may spawn the new team
    assert run.pre("lead-1", "Agent", {"prompt": "x", "description": "d",
                                       "subagent_type": "claude-code-harness:task-worker"})[0] \
        != "deny"


# --- item 9: crew status honours max_retries and cascades (through the hooks) ---------------

CREW_PLAN = "\n".join([
    "# Execution Plan", "", "## Tasks",
    "| # | Task | Persona | Model | Depends On | Output |",
    "|---|------|---------|-------|------------|--------|",
    "| 1 | 調査 | worker_researcher | haiku | - | `results/result_1.md` |",
    "| 2 | 実装 | worker_coder | sonnet | - | `results/result_2.md` |",
    "| 3 | 実装 | worker_coder | sonnet | - | `results/result_3.md` |",
    "| 4 | 文書 | worker_writer | haiku | 1, 2 | `results/result_4.md` |",
    "| 5 | レビュー | worker_reviewer | sonnet | 4 | `results/result_5.md` |", ""])


def _crew_log(retries):
    return "\n".join([
        "cmd_id: cmd_001", "status: running", 'started: "2026-02-07 10:00:00"', "tasks:",
        "  - {id: 1, role: worker_researcher, task: task_1, status: success}",
        "  - {id: 2, role: worker_coder, task: task_2, status: failure, "
        f"retries: {retries}, error: \"型エラー解消不能\"}}",
        "  - {id: 3, role: worker_coder, task: task_3, status: success}", ""])


def test_crew_a_failure_at_its_retry_limit_cascades(run):
    """Seed 004 手順 4e-4g through `gateway crew status` as the parent runs it (PreToolUse
    allows it, it runs, PostToolUse sees it): task 2 failed at max_retries (2) is final, tasks
    4 and 5 (after it) are skipped, nothing is left to run; with a retry left they run."""
    _, out, _ = run.bash("lead-1", "gateway crew new")
    assert out == "cmd_001\n"
    cmd = run.dir / "work" / "cmd_001"
    (cmd / "plan.md").write_text(CREW_PLAN, encoding="utf-8")
    (cmd / "execution_log.yaml").write_text(_crew_log(2), encoding="utf-8")
    for n in (1, 3):
        (cmd / "results" / f"result_{n}.md").write_text("x\n")
    _, out, _ = run.bash("lead-1", "gateway crew status")
    lines = out.splitlines()
    assert lines[1:11] == [
        "Phase 2: nothing left to run (5 task(s) settled; 1 failed at the retry limit, 2 "
        "skipped after them)",
        "  task_2 (coder): failure — failure at the retry limit (2 of max_retries 2): recorded "
        "as failure, not run again",
        "  task_4 (writer): skipped — dependency task_2 failed",
        "  task_5 (reviewer): skipped — dependency task_2 failed",
        "Wave 1/3 完了 (2/3 success)", "Wave 2/3 完了 (0/1 success)",
        "Wave 3/3 完了 (0/1 success)", "Phase 2 完了: 2/5 タスク success",
        "⚠️ Phase 2 completed with failures:",
        "- Task 2 (coder): failure — 型エラー解消不能"]
    # one retry left: task 2 runs again, and the tasks after it
    (cmd / "execution_log.yaml").write_text(_crew_log(1), encoding="utf-8")
    _, out, _ = run.bash("lead-1", "gateway crew status")
    assert out.splitlines()[1] == "Resume: Wave 1/3; to run: task_2, task_4, task_5; done: " \
                                  "task_1, task_3"
    assert "完了" not in out


# --- item 12: the orchestrator store from the command line ------------------------------------

def test_the_orchestrator_store_is_driven_from_the_cli(run):
    code, sid, _ = run.cli("orch", "new", "ユーザー認証機能を実装して")
    sid = sid.strip()
    short = sid.split("-")[1]
    assert run.cli("orch", "task", sid)[1] == f"task-{short}-1 READY v0\n"
    assert run.cli("orch", "task", sid, "--depends", f"task-{short}-1")[1] == \
        f"task-{short}-2 READY v0\n"
    code, out, _ = run.cli("orch", "claim", "w1", "--json")
    assert json.loads(out)["id"] == f"task-{short}-1" and json.loads(out)["version"] == 1
    code, _, err = run.cli("orch", "claim", "w2")
    assert code == 1 and "nothing can be claimed now" in err         # task 2 waits
    code, _, err = run.cli("orch", "transition", f"task-{short}-1", "DONE", "--version", "0")
    assert code == 1 and "expected version 0, found 1" in err        # compare-and-swap
    assert run.cli("orch", "transition", f"task-{short}-1", "DONE", "--owner", "w1")[0] == 0
    code, _, err = run.cli("orch", "transition", f"task-{short}-1", "BLOCKED", "--version", "2")
    assert code == 1 and "a final state: it does not change any more" in err
    code, out, _ = run.cli("orch", "resume", sid, "--claim", "w3")
    assert code == 0 and out == f"task-{short}-2 RUNNING for w3, version 1\n"
    code, _, err = run.cli("orch", "claim", "w4", "--task", "../../etc/passwd")
    assert code == 2 and "is not a valid task id" in err


# --- item 15: English, and Japanese for a Japanese locale ----------------------------------------

def _lang(run, **env):
    e = {k: v for k, v in run.env.items() if k not in ("GATEWAY_LANG", "LANG", "LC_ALL")}
    e.update(env)
    return e


@pytest.mark.parametrize("env,expected", [
    ({"LANG": "C.UTF-8"}, "No previous session was found (no .claude/state/breezing-active.json"
                          "): start a new run with `gateway breezing start --range ...`"),
    ({"LANG": "ja_JP.UTF-8"}, "前回のセッションが見つかりません"),
    ({"LANG": "C.UTF-8", "GATEWAY_LANG": "ja"}, "前回のセッションが見つかりません"),
    ({"LANG": "ja_JP.UTF-8", "GATEWAY_LANG": "en"}, "No previous session was found"),
])
def test_resume_without_a_session_speaks_the_users_language(run, env, expected):
    p = subprocess.run([run.exe, "resume"], cwd=run.dir, env=_lang(run, **env),
                       capture_output=True, text=True)
    assert p.returncode == 1 and p.stdout.startswith(expected)


def test_the_range_screen_in_english_with_english_range_words(run):
    env = _lang(run, LANG="en_US.UTF-8")
    p = subprocess.run([run.exe, "breezing", "start", "--range", "2 through 3", "--no-discuss"],
                       cwd=run.dir, env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split("\n")[:8] == [
        "🏇 Breezing - please confirm the range", "", 'Range: "2 through 3"', "", "Tasks:",
        "├── 2. 機能02の実装 (cc:TODO)", "└── 3. 機能03の実装 (cc:TODO)", ""]
    assert p.stdout.rstrip().endswith("2 task(s), 2 implementer(s) in parallel.\n\nIs this "
                                      "right?")
    assert "yes: gateway breezing start --range '2 through 3' --no-discuss --yes" in p.stderr
    r = subprocess.run([run.exe, "breezing", "start", "--range", "all", "--json"], cwd=run.dir,
                       env=env, capture_output=True, text=True)
    assert json.loads(r.stdout)["understood_as"] == "every unfinished task of Plans.md"
    assert os.path.exists(run.dir / ".claude/state/breezing-active.json")


def test_spec_errors_say_what_to_do_next(run):
    """Item 15: every error says what to do next -- the spec steps too."""
    code, out, _ = run.cli("spec", "status")
    assert code == 0 and out == ("no spec in the implementation phase (a Markdown file in "
                                 ".cc-craft-kit/specs/ or specs/ with **フェーズ:** "
                                 "implementation): nothing to track\n")
    _spec(run)
    code, _, err = run.cli("spec", "done", "999")
    assert code == 2 and err == ("gateway: no task of a spec in implementation has issue #999: "
                                 "`gateway spec status` lists the tasks (a task without an issue "
                                 "is started and done with --task N)\n")
