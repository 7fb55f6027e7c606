"""A Claude Code team run driven through the real entry points, for the orchestration
tests: raw JSON payloads on the stdin of `gateway hook ...` and the `gateway` commands, each
Bash command judged by PreToolUse, run, then shown to PostToolUse, as Claude Code does."""

from __future__ import annotations

import json
import shlex
import subprocess

TEAM = "breezing-long"


class Run:
    """The project, the hook runner and the Claude Code sessions of one run."""

    def __init__(self, tmp_path, gateway_exe, hook_env, plans, lang="ja"):
        self.dir = tmp_path / "proj"
        self.dir.mkdir()
        self.exe = gateway_exe
        self.tasks_root = tmp_path / "tasks"
        self.env = dict(hook_env, CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS="1",
                        GATEWAY_TASKS_DIR=str(self.tasks_root), GATEWAY_LANG=lang,
                        # the audit log's directory is the gateway's own: not the project's
                        GATEWAY_AUDIT_LOG=str(tmp_path / "audit" / "audit.jsonl"),
                        GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@e", GIT_COMMITTER_NAME="t",
                        GIT_COMMITTER_EMAIL="t@e")
        (self.dir / "Plans.md").write_text(plans, encoding="utf-8")
        self.git("init", "-q")
        self.git("add", "-A")
        self.git("commit", "-qm", "chore: plans")
        self.next_client_id = 1      # Claude Code numbers the tasks it creates

    def git(self, *args):
        subprocess.run(["git", *args], cwd=self.dir, env=self.env, check=True,
                       capture_output=True)

    # --- hooks --------------------------------------------------------------------------------

    def hook(self, event, payload):
        p = subprocess.run([self.exe, "hook", event], input=json.dumps(payload).encode(),
                           capture_output=True, env=self.env, cwd=self.dir, timeout=120)
        assert p.returncode == 0, p.stderr
        out = p.stdout.decode().strip()
        return json.loads(out) if out else {}

    def payload(self, event, session, agent_id=None, **fields):
        d = {"session_id": session, "transcript_path": f"/tmp/{session}.jsonl",
             "cwd": str(self.dir), "hook_event_name": event, **fields}
        if agent_id:
            d["agent_id"] = agent_id
            d.setdefault("agent_type", "claude-code-harness:task-worker")
        return d

    def pre(self, session, tool, tool_input, agent_id=None):
        out = self.hook("pre-tool-use", self.payload("PreToolUse", session, agent_id,
                                                     permission_mode="default",
                                                     tool_name=tool, tool_input=tool_input,
                                                     tool_use_id="toolu_1"))
        hso = out.get("hookSpecificOutput") or {}
        return hso.get("permissionDecision"), hso.get("permissionDecisionReason") or ""

    def post(self, session, tool, tool_input, response, agent_id=None):
        out = self.hook("post-tool-use", self.payload("PostToolUse", session, agent_id,
                                                      permission_mode="default",
                                                      tool_name=tool, tool_input=tool_input,
                                                      tool_response=response,
                                                      tool_use_id="toolu_1"))
        return (out.get("hookSpecificOutput") or {}).get("additionalContext") or ""

    def bash(self, session, command, agent_id=None, expect=("allow", None)):
        """One Bash call as Claude Code makes it: PreToolUse, the command, PostToolUse.
        Returns (decision, stdout, PostToolUse context)."""
        ti = {"command": command, "description": "step"}
        decision, reason = self.pre(session, "Bash", ti, agent_id)
        assert decision in expect, (command, decision, reason)
        if decision in ("deny", "ask"):
            return decision, reason, ""
        p = subprocess.run([self.exe, *shlex.split(command)[1:]], capture_output=True,
                           env=self.env, cwd=self.dir, timeout=120)
        assert p.returncode == 0, (command, p.stdout.decode(), p.stderr.decode())
        self.last_stderr = p.stderr.decode()
        ctx = self.post(session, "Bash", ti, {"stdout": p.stdout.decode(),
                                               "stderr": p.stderr.decode(),
                                               "interrupted": False}, agent_id)
        return decision, p.stdout.decode(), ctx

    def write(self, session, path, content="x = 1\n", agent_id=None):
        return self.pre(session, "Write", {"file_path": str(self.dir / path),
                                           "content": content}, agent_id)

    # --- the team -----------------------------------------------------------------------------

    def create_tasks(self, session, register):
        """The Lead's TaskCreate of each task `gateway breezing start|batch|resume` listed:
        Claude Code numbers them; TaskCreated fires; the team's task list gets the file."""
        ids = {}
        for e in register:
            tid = str(self.next_client_id)
            self.next_client_id += 1
            ids[e["section"]] = tid
            subject = e["subject"]
            assert self.pre(session, "TaskCreate", {"subject": subject,
                                                    "description": e["description"]})[0] \
                in (None, "allow")
            self.hook("task-created", self.payload("TaskCreated", session, task_id=tid,
                                                   task_subject=subject,
                                                   task_description=e["description"],
                                                   team_name=TEAM))
            self.task_file(tid, subject, "pending")
        return ids

    def fix_task(self, session, subject):
        tid = str(self.next_client_id)
        self.next_client_id += 1
        self.hook("task-created", self.payload("TaskCreated", session, task_id=tid,
                                               task_subject=subject, team_name=TEAM))
        self.task_file(tid, subject, "pending")
        return tid

    def task_file(self, tid, subject, status):
        d = self.tasks_root / self.team_name()
        d.mkdir(parents=True, exist_ok=True)
        (d / f"{tid}.json").write_text(json.dumps({"id": tid, "subject": subject,
                                                   "status": status}))

    def team_name(self):
        return self.active()["team_name"]

    def complete(self, session, tid, subject, teammate):
        self.task_file(tid, subject, "completed")
        out = self.hook("task-completed", self.payload("TaskCompleted", session, task_id=tid,
                                                       task_subject=subject,
                                                       teammate_name=teammate,
                                                       team_name=TEAM))
        assert "systemMessage" not in out, out

    def active(self):
        return json.loads((self.dir / ".claude/state/breezing-active.json").read_text())

    def cli(self, *args):
        p = subprocess.run([self.exe, *args], capture_output=True, env=self.env, cwd=self.dir,
                           timeout=120)
        return p.returncode, p.stdout.decode(), p.stderr.decode()




def subjects(register):
    return {e["section"]: e["subject"] for e in register}
