"""The orchestration hooks in the real Claude Code client (pinned 2.1.330, scripted mock API).

A **true compaction**, not a stand-in: session 1 (`--session-id`) runs the project's
`/breezing` command; session 2 resumes it with `-p /compact`, which makes the client summarise
the conversation through the mock and fire PreCompact (trigger `manual`) and SessionStart
(source `compact`); session 3 resumes again and its first request to the "model" is inspected:
the SessionStart context the gateway returned at compaction ("Context was compacted: you are
the Lead ...") is in the conversation the model receives. The gateway is installed with
`gateway install` (lean launch line) into a temporary project with a private HOME, state and
config, so nothing of the machine's own setup takes part.

Texts asserted here are the gateway's own; the client's framing ("SessionStart hook additional
context: ", "UserPromptSubmit hook additional context: ") is 2.1.330 wording
(claude-code-hooks.md §6, §7).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .client import require_client, run_session
from .mock_api import bash, text, tool_use, write

pytestmark = pytest.mark.realclient

CLAUDE = require_client()

GATEWAY = Path(sys.executable).parent / "gateway"
if not (GATEWAY.is_file() and os.access(GATEWAY, os.X_OK)):
    _msg = (f"GATEWAY CONSOLE SCRIPT MISSING - realclient orchestration tests were NOT run: "
            f"no {GATEWAY}; install the package into this venv (pip install -e .)")
    if os.environ.get("GATEWAY_REALCLIENT_REQUIRED") == "1":
        pytest.fail(_msg, pytrace=False)
    pytest.skip(_msg, allow_module_level=True)

REPO = Path(__file__).resolve().parents[2]
SPEC = REPO / "tests" / "orchestration" / "data" / "seed002-spec.md"
SPEC_ID = "ed37057f-b8e2-499d-b564-505254a0c509"
SUMMARY = "<analysis>the user ran /breezing</analysis>\n<summary>1. /breezing ran.</summary>"


class Project:
    def __init__(self, tmp: Path):
        self.dir = (tmp / "proj").resolve()
        self.home = tmp / "home"
        self.state = self.dir / ".claude" / "state"
        for d in (self.dir, self.home, self.state):
            d.mkdir(parents=True, exist_ok=True)
        self.env = {"XDG_STATE_HOME": str(tmp / "xdg-state"),
                    "XDG_CACHE_HOME": str(tmp / "cache"),
                    "XDG_CONFIG_HOME": str(tmp / "config"),
                    "GATEWAY_USER_RULES": str(tmp / "no-user-rules.yaml"),
                    "GATEWAY_TASKS_DIR": str(tmp / "tasks")}
        commands = self.dir / ".claude" / "commands"
        commands.mkdir(parents=True)
        (commands / "breezing.md").write_text("---\ndescription: breezing\n---\n"
                                              "Run the breezing workflow: $ARGUMENTS\n")
        p = subprocess.run([str(GATEWAY), "install", "--scope", "project", "--project",
                            str(self.dir)], cwd=self.dir, capture_output=True, text=True,
                           env={"HOME": str(self.home), "PATH": os.environ.get("PATH", ""),
                                **self.env}, timeout=120)
        assert p.returncode == 0, p.stdout + p.stderr
        assert "add    SessionStart (session-start): matcher 'startup|resume|clear|compact'" in p.stdout

    def active(self, **kw):
        data = {"session_id": "breezing-20260206-0300", "started_at": "2026-02-06T03:00:00Z",
                "team_name": "breezing-auth-feature", "impl_mode": "codex",
                "task_range": "認証機能からユーザー管理まで",
                "plans_md_mapping": {"task-1": "4.1", "task-2": "4.2", "task-3": "4.3"},
                "team": {"implementer_count": 2, "reviewer_count": 1, "model": "sonnet"},
                "review": {"retake_count": 0, "max_retakes": 3}, **kw}
        (self.state / "breezing-active.json").write_text(json.dumps(data, ensure_ascii=False))

    def run(self, prompt, replies, *args):
        res = run_session(CLAUDE, self.dir, home=self.home, prompt=prompt,
                          script=[[text(r)] for r in replies], extra_args=list(args),
                          env_extra=self.env)
        assert not res.timed_out and res.returncode == 0, res.describe()
        return res


def _first_agent_messages(res) -> str:
    bodies = [r.body for r in res.requests if isinstance(r.body, dict) and r.body.get("tools")]
    assert bodies, res.describe()
    return json.dumps(bodies[0].get("messages"), ensure_ascii=False)


def _compact(p: Project, sid: str, skill_args: str):
    p.run(f"/breezing {skill_args}", ["Starting the breezing workflow."], "--session-id", sid)
    p.run("/compact", [SUMMARY], "--resume", sid)


def test_compaction_restores_the_leads_instruction(tmp_path: Path) -> None:
    p = Project(tmp_path)
    p.active(impl_mode="codex")
    specs = p.dir / ".cc-craft-kit" / "specs"
    specs.mkdir(parents=True)
    shutil.copy(SPEC, specs / f"{SPEC_ID}.md")
    sid = "8c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f"
    _compact(p, sid, "--codex 全部やって")
    # PreCompact ran through the real client and saved the spec workflow position
    assert (p.state / "gateway-workflow.sqlite3").is_file()
    res = p.run("what next?", ["Rebuilding the team."], "--resume", sid)
    msgs = _first_agent_messages(res)
    assert ("SessionStart hook additional context: gateway: a /breezing session is recorded "
            "in this project (session breezing-20260206-0300, team breezing-auth-feature, "
            "started 2026-02-06T03:00:00Z). Context was compacted: you are the Lead. Do not "
            "implement tasks yourself.") in msgs
    assert ("implementers are subagent_type claude-code-harness:codex-implementer, never "
            "claude-code-harness:task-worker") in msgs
    assert "spawn 2 implementer(s) (claude-code-harness:codex-implementer)" in msgs
    assert ("- Current task 1 of 13 «schema.ts に WorkflowStateTable 型定義を追加» (issue "
            "#541): next action task_start") in msgs
    assert "MODE MISMATCH" not in msgs       # /breezing --codex with impl_mode codex


def test_compaction_warns_of_a_mode_mismatch(tmp_path: Path) -> None:
    p = Project(tmp_path)
    p.active(impl_mode="standard")
    sid = "9d2e3f4a-5b6c-4d7e-8f9a-0b1c2d3e4f5a"
    _compact(p, sid, "--codex 続きやって")     # the skill runs --codex, the state says standard
    res = p.run("what next?", ["Asking the user."], "--resume", sid)
    msgs = _first_agent_messages(res)
    assert ("- MODE MISMATCH: the running skill is /breezing --codex but breezing-active.json "
            "has impl_mode standard: ask the user which mode to continue in before spawning "
            "any implementer.") in msgs


def test_a_broken_state_file_is_reported_not_obeyed_after_compaction(tmp_path: Path) -> None:
    p = Project(tmp_path)
    (p.state / "breezing-active.json").write_text('{"session_id": "breezing-1", "impl_')
    sid = "0e3f4a5b-6c7d-4e8f-9a0b-1c2d3e4f5a6b"
    _compact(p, sid, "全部やって")
    res = p.run("what next?", ["Telling the user."], "--resume", sid)
    msgs = _first_agent_messages(res)
    assert ("SessionStart hook additional context: gateway: the /breezing session state "
            "cannot be used: .claude/state/breezing-active.json ends early") in msgs
    assert "task-worker" not in msgs and "codex-implementer" not in msgs


def test_progress_signals_reach_the_lead_on_its_next_prompt(tmp_path: Path) -> None:
    p = Project(tmp_path)
    p.active()
    (p.state / "breezing-signals.jsonl").write_text(json.dumps(
        {"signal": "partial_review_recommended", "session_id": "breezing-20260206-0300",
         "completed": 2, "total": 3, "timestamp": "2026-02-06T03:20:00Z"}) + "\n")
    res = p.run("how is the team doing?", ["Asking the reviewer."])
    msgs = _first_agent_messages(res)
    assert ("UserPromptSubmit hook additional context: gateway: breezing signals for session "
            "breezing-20260206-0300") in msgs
    assert "- partial_review_recommended: 2 of 3 tasks completed." in msgs
    consumed = json.loads((p.state / "breezing-signals.jsonl").read_text())
    assert consumed["consumed_at"]


# --- issue 27 item 14: roles register where teams actually run (print mode) ------------------

def _team(p: Project):
    """An initialised team whose Lead is another session: the session under test is a
    teammate without a role."""
    p.active(impl_mode="standard")
    (p.state / "breezing-session-roles.json").write_text(json.dumps(
        {"lead-session": {"role": "lead", "owns": []}}))
    (p.dir / "src").mkdir(exist_ok=True)


def _results(res):
    return [(r.is_error, r.text) for r in res.tool_results]


def test_a_teammate_registers_through_the_command_in_print_mode(tmp_path: Path) -> None:
    """The client refuses a role marker Write into .claude/state/ in print mode (a sensitive
    file), so a teammate registers with `gateway breezing register`: PreToolUse allows the
    catalogued command, it runs, and PostToolUse binds the role to the session -- after which
    its owns decide, before which it may only read (GW821)."""
    p = Project(tmp_path)
    _team(p)
    sid = "5f4e3d2c-1b0a-4c9d-8e7f-6a5b4c3d2e1f"
    marker = str(p.state / "breezing-role-impl-1.json")
    res = run_session(
        CLAUDE, p.dir, home=p.home, prompt="register",
        env_extra={**p.env, "PATH": f"{GATEWAY.parent}:{os.environ.get('PATH', '')}"},
        extra_args=["--session-id", sid, "--permission-mode", "acceptEdits"],
        script=[[write(str(p.dir / "src" / "early.py"), "x = 1\n")],
                [write(marker, '{"role": "implementer", "owns": ["src/**"]}')],
                [bash("gateway breezing register implementer --owns 'src/**' --name impl-1")],
                [write(str(p.dir / "src" / "a.py"), "x = 1\n")],
                [write(str(p.dir / "docs" / "x.md"), "# x\n")],
                [text("done")]])
    assert not res.timed_out and res.returncode == 0, res.describe()
    got = _results(res)
    assert len(got) == 5, res.describe()
    # before it registers: a member of the team without a role (GW821)
    assert got[0][0] and "gateway GW821" in got[0][1], got[0]
    # the marker Write: not written by the client in print mode, nothing registered by it
    assert got[1][0] and "which is a sensitive file" in got[1][1], got[1]
    assert not os.path.exists(marker)
    # the command channel works
    assert not got[2][0] and "gateway: registration requested: implementer owning src/**" \
        in got[2][1], got[2]
    roles = json.loads((p.state / "breezing-session-roles.json").read_text())
    assert roles[sid]["role"] == "implementer" and roles[sid]["owns"] == ["src/**"]
    assert roles[sid]["marker"] == "breezing-role-impl-1.json"
    # its owns decide now
    assert not got[3][0] and (p.dir / "src" / "a.py").read_text() == "x = 1\n", got[3]
    assert got[4][0] and "gateway GW803" in got[4][1], got[4]
    assert not (p.dir / "docs" / "x.md").exists()


def test_the_clients_task_events_and_spawn_are_recorded(tmp_path: Path) -> None:
    """Issue 27: the Agent Teams events of the real client reach the gateway's hooks. The
    Lead's TaskCreate fires TaskCreated (the task and the Plans.md section its subject names),
    TaskUpdate to completed fires TaskCompleted (the progress record, the timeline), and an
    Agent-tool teammate spawned as task-worker is registered as an implementer by
    SubagentStart -- no Write into .claude/state/ needed. 2.1.330 keeps the session's tasks in
    ~/.claude/tasks/<session id>/, which the gateway finds from the TaskCreated record."""
    p = Project(tmp_path)
    p.active(impl_mode="standard", plans_md_mapping={"task-1": "1"})
    (p.dir / "Plans.md").write_text("# Plans.md\n\n1. 機能01の実装 `cc:TODO`\n", encoding="utf-8")
    agents = p.dir / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "task-worker.md").write_text("---\nname: task-worker\ndescription: implements a "
                                           "task\n---\nImplement the task.\n")
    sid = "6a5b4c3d-2e1f-4a0b-9c8d-7e6f5a4b3c2d"
    env = {**p.env, "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS": "1",
           "CLAUDE_CODE_ENABLE_TODO_TOOLS": "1"}
    env.pop("GATEWAY_TASKS_DIR")                       # the client's own task lists
    res = run_session(
        CLAUDE, p.dir, home=p.home, prompt="work", env_extra=env,
        extra_args=["--session-id", sid],
        script=[[tool_use("TaskCreate", {"subject": "1. 機能01の実装",
                                         "description": "Plans.md 1"})],
                [tool_use("TaskUpdate", {"taskId": "1", "status": "completed"})],
                [tool_use("Agent", {"description": "implement", "prompt": "work",
                                    "subagent_type": "task-worker"})],
                [text("done")], [text("done")], [text("done")]])
    assert not res.timed_out and res.returncode == 0, res.describe()
    rec = json.loads((p.state / "gateway-breezing-progress.json").read_text())
    assert rec["created"]["1"]["section"] == "1" and rec["completed"]["1"]["section"] == "1"
    assert rec["lists"] == [sid]
    timeline = [json.loads(x) for x in (p.state / "breezing-timeline.jsonl").read_text()
                .splitlines()]
    assert [(e["event"], e["task_id"], e["subject"]) for e in timeline] == [
        ("task_completed", "1", "1. 機能01の実装")]
    roles = json.loads((p.state / "breezing-session-roles.json").read_text())
    (agent_id, entry), = roles.items()
    assert entry["role"] == "implementer" and entry["agent_type"] == "task-worker"
    assert entry["owns"] == [] and entry["marker"] == f"breezing-role-{agent_id}.json"
    st = subprocess.run([str(GATEWAY), "breezing", "status", "--json"], cwd=p.dir,
                        capture_output=True, text=True,
                        env={**os.environ, "HOME": str(p.home),
                             "CLAUDE_CONFIG_DIR": str(p.home / ".claude"), **env})
    status = json.loads(st.stdout)
    assert status["completed"] == 1 and status["unfinished"] == [] and \
        status["task_list"] == str(p.home / ".claude" / "tasks" / sid)
