"""Helpers for the guard tests: PreToolUse payloads as Claude Code builds them, and state put
on disk the way the workflow (and the gateway) leaves it."""

import json
import os

from gateway.state import fast
from gateway.state.layout import ACTIVE, SESSION_ROLES

LEAD_SESSION = "11111111-1111-4111-8111-111111111111"


def payload(tool, tool_input, cwd, *, agent_id=None, session_id=LEAD_SESSION,
            permission_mode="default", agent_type=None):
    data = {"session_id": session_id, "transcript_path": "/tmp/t.jsonl", "cwd": cwd,
            "permission_mode": permission_mode, "hook_event_name": "PreToolUse",
            "tool_name": tool, "tool_input": tool_input, "tool_use_id": "toolu_1"}
    if agent_id is not None:
        data["agent_id"] = agent_id
        data["agent_type"] = agent_type or "general-purpose"
    if session_id is None:
        del data["session_id"]
    if permission_mode is None:
        del data["permission_mode"]
    return data


def write(proj, rel, content="x\n"):
    return {"file_path": rel if rel.startswith("/") else os.path.join(proj, rel),
            "content": content}


def marker(proj, name, role, owns=None):
    body = {"role": role} if owns is None else {"role": role, "owns": list(owns)}
    return write(proj, f".claude/state/breezing-role-{name}.json", json.dumps(body))


def register(proj, key, role, owns=()):
    fast.update_session_roles(proj, lambda roles: {**roles, key: fast.role_entry(role, owns)})


def set_active(proj, impl_mode="standard", session_id="breezing-20260206-0300"):
    data = {"session_id": session_id, "started_at": "2026-02-06T03:00:00Z",
            "impl_mode": impl_mode}
    os.makedirs(os.path.join(proj, ".claude", "state"), exist_ok=True)
    with open(os.path.join(proj, ".claude", "state", ACTIVE), "w") as fh:
        json.dump(data, fh)


def set_phase(proj, phase):
    fast.set_phase(proj, phase)


def roles_on_disk(proj):
    path = os.path.join(proj, ".claude", "state", SESSION_ROLES)
    if not os.path.exists(path):
        return {}
    with open(path) as fh:
        return json.load(fh)


def denied(verdict, code=None):
    if str(verdict.decision) != "deny":
        return False
    return code is None or verdict.code == code


def silent(verdict):
    """No decision: the guards never allow; a pass is decision ask with GW800."""
    return str(verdict.decision) == "ask" and verdict.code == "GW800"


def no_objection(verdict):
    """The role, codex, delegate and file guards let the call through: what remains is no
    decision (GW800) or the reads guard's ask, for a command whose reads cannot be proven
    free of secrets (GW840) or that reads one (GW503/GW506). Used where a test is about the
    team guards, not about what a command reads."""
    return str(verdict.decision) != "deny" and (
        verdict.code == "GW800" or (verdict.phase == "guard:reads"
                                    and verdict.code in ("GW840", "GW503", "GW506")))
