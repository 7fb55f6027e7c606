"""The team the hook harness's projects are set up with, and PreToolUse payloads for the
guards (seeds for the corpus). `{PROJECT}` and `{CODEX}` are replaced by the harness with the
sample project (standard mode) and the codex-mode project."""

import json
import os

LEAD = "11111111-1111-4111-8111-111111111111"  # the Lead's session id
IMPLEMENTER = "agent-impl-1"  # owns src/**
REVIEWER = "agent-rev-1"
ACTIVE = {"session_id": "breezing-20260206-0300", "started_at": "2026-02-06T03:00:00Z"}


def setup_team(project: str, impl_mode: str) -> None:
    """breezing-active.json in `impl_mode` and the three registered roles, written the way
    the gateway writes them."""
    from gateway.state import fast

    state = os.path.join(project, ".claude", "state")
    os.makedirs(state, exist_ok=True)
    with open(os.path.join(state, "breezing-active.json"), "w") as fh:
        json.dump(dict(ACTIVE, impl_mode=impl_mode), fh)
    stamp = "2026-02-06T03:00:01Z"
    fast.update_session_roles(project, lambda roles: {
        **roles,
        LEAD: fast.role_entry("lead", (), registered_at=stamp),
        IMPLEMENTER: fast.role_entry("implementer", ("src/**",), registered_at=stamp),
        REVIEWER: fast.role_entry("reviewer", (), registered_at=stamp),
    })


def _payload(tool, tool_input, who=None, root="{PROJECT}", cwd="", mode="default"):
    data = {"session_id": LEAD, "transcript_path": "/tmp/t.jsonl",
            "cwd": root + ("/" + cwd if cwd else ""), "permission_mode": mode,
            "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": tool_input,
            "tool_use_id": "toolu_1"}
    if who is not None:
        data["agent_id"] = who
        data["agent_type"] = "general-purpose"
    return data


def guard_payloads() -> list:
    out = []
    for who in (None, IMPLEMENTER, REVIEWER):
        for root in ("{PROJECT}", "{CODEX}"):
            for path in ("src/new.py", "README.md", ".claude/settings.json",
                         ".claude/settings.local.json", ".git/hooks/pre-commit", ".git/config",
                         ".env", "lnk/passwd", "../outside.txt", "/etc/passwd", "notes.md",
                         ".claude/state/breezing-role-me.json",
                         ".claude/state/breezing-session-roles.json",
                         ".claude/state/breezing-active.json", "src/../.claude/hooks/h.sh",
                         "scripts/tmplink/x", "keys/server.pem"):
                full = path if path.startswith("/") else f"{root}/{path}"
                out.append(_payload("Write", {"file_path": full, "content": "x"}, who, root))
            out.append(_payload("Edit", {"file_path": f"{root}/src/app.py", "old_string": "a",
                                         "new_string": "b"}, who, root))
            out.append(_payload("MultiEdit", {"file_path": f"{root}/src/app.py", "edits": [
                {"old_string": "a", "new_string": "b"}]}, who, root))
            out.append(_payload("NotebookEdit", {"notebook_path": f"{root}/n.ipynb",
                                                 "new_source": "x"}, who, root))
            out.append(_payload("Write", {
                "file_path": f"{root}/.claude/state/breezing-role-x.json",
                "content": json.dumps({"role": "lead"})}, who, root))
            out.append(_payload("Write", {
                "file_path": f"{root}/.claude/state/breezing-role-y.json",
                "content": json.dumps({"role": "implementer", "owns": ["**"]})}, who, root))
            for cmd in ("git commit -m x", "/usr/bin/git -c a=b commit -m x", "git push",
                        "touch src/x", "sed -i s/a/b/ src/app.py", "echo x > notes.md",
                        "ls -la", "cat README.md", "rm -rf /", "tee .claude/settings.json",
                        "gateway state clean", "cp a.txt .git/hooks/pre-commit",
                        "python3 scripts/foo.py", "git log --oneline | head -5"):
                out.append(_payload("Bash", {"command": cmd}, who, root))
            for tool in ("Task", "Agent", "TaskCreate", "SendMessage", "Read", "Glob", "Grep",
                         "WebFetch", "TeamCreate"):
                out.append(_payload(tool, {"prompt": "x", "file_path": f"{root}/README.md",
                                           "pattern": "*"}, who, root))
    for tool in ("TaskList", "Write", "Bash", "Task"):
        out.append(_payload(tool, {"command": "ls", "file_path": "{PROJECT}/a.txt",
                                   "content": "x"}, mode="delegate"))
    return out
