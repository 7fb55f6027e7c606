"""The team's stores are written only by the gateway (issue 15's leftover): the workflow state
(.claude/state/gateway-workflow.sqlite3 and its SQLite journals), the Phase C records of
`gateway breezing verify|finish` and the orchestrator store agent-coord/. Raw PreToolUse JSON
on stdin of the real `gateway hook pre-tool-use`: a Write, an Edit or a Bash command that
writes, removes or moves one of them is denied (GW834 for the file tools, GW835 naming GW834
for Bash), for the Lead (no agent_id) and for a teammate alike; reading them is not."""

import os

import pytest

from tests.e2e.test_hook_pre_tool_use import (  # noqa: F401  (fixtures)
    bash,
    denied,
    event,
    hook,
    policy_cache,
    proj,
    silent,
    write,
)

DB = ".claude/state/gateway-workflow.sqlite3"

FILES = [DB, DB + "-journal", DB + "-wal", DB + "-shm", ".claude/state/.gateway-workflow"
         ".sqlite3.lock", ".claude/state/gateway-breezing-verify.json",
         ".claude/state/gateway-breezing-finish.json", "agent-coord/tasks/task-7682b3a8-1.json",
         "agent-coord/planner-sessions/planner-7682b3a8-1c1e-4f6a-9d57-3a3c2b1d0e9f.json",
         "agent-coord/runs/run-0b5e2c1a-7d3f-4e8a-9c21-5f6a7b8c9d01.json",
         "agent-coord/.locks/task-7682b3a8-1/x", "Agent-Coord/tasks/t.json"]


@pytest.mark.parametrize("agent_id", [None, "agent-a"])
@pytest.mark.parametrize("rel", FILES)
def test_a_write_or_edit_of_a_store_file_is_denied(hook, proj, rel, agent_id):
    path = os.path.join(proj, rel)
    reason = denied(hook(write(path, proj, agent_id=agent_id)), "GW834")
    assert reason.startswith(f"gateway GW834: {path!r} is protected: ")
    assert not os.path.exists(path)
    denied(hook(event("Edit", {"file_path": path, "old_string": "a", "new_string": "b"}, proj,
                      agent_id=agent_id)), "GW834")


@pytest.mark.parametrize("agent_id", [None, "agent-a"])
@pytest.mark.parametrize("command, target, what", [
    (f"rm {DB}", DB, "written only by the gateway"),
    (f"rm -f {DB}-wal", DB + "-wal", "written only by the gateway"),
    (f"echo x > {DB}", DB, "written only by the gateway"),
    (f": > {DB}-journal", DB + "-journal", "written only by the gateway"),
    (f"cp /dev/null {DB}", DB, "written only by the gateway"),
    ("echo '{}' > .claude/state/gateway-breezing-finish.json",
     ".claude/state/gateway-breezing-finish.json", "written only by the gateway"),
    ("rm -rf agent-coord", "agent-coord", "the orchestrator store, written only by the gateway"),
    ("mv agent-coord old", "agent-coord", "the orchestrator store, written only by the gateway"),
    ("echo '{\"state\": \"DONE\"}' > agent-coord/tasks/task-7682b3a8-1.json",
     "agent-coord/tasks/task-7682b3a8-1.json",
     "the orchestrator store, written only by the gateway"),
    ("cd agent-coord && rm -rf .locks", ".locks",
     "the orchestrator store, written only by the gateway"),
])
def test_bash_writing_a_store_is_denied(hook, proj, command, target, what, agent_id):
    reason = denied(hook(bash(command, proj, agent_id=agent_id)), "GW835")
    assert f" writes {target!r} " in reason, reason
    assert f": {what} (" in reason and reason.endswith("[GW834]"), reason


def test_a_tree_holding_the_stores_is_denied(hook, proj):
    os.makedirs(os.path.join(proj, ".claude", "state"), exist_ok=True)
    with open(os.path.join(proj, DB), "wb") as fh:
        fh.write(b"SQLite format 3\0")
    reason = denied(hook(bash("rm -rf .claude/state", proj, agent_id="agent-a")), "GW835")
    assert reason.endswith("[GW834]") and "gateway-workflow.sqlite3" in reason, reason
    os.makedirs(os.path.join(proj, "agent-coord", "tasks"))
    with open(os.path.join(proj, "agent-coord", "tasks", "task-7682b3a8-1.json"), "w") as fh:
        fh.write("{}")
    reason = denied(hook(bash("rm -rf agent-coord", proj)), "GW835")
    assert reason.endswith("[GW834]") and "agent-coord" in reason, reason
    reason = denied(hook(bash("rm -rf ./*", proj)), "GW835")
    assert "[GW83" in reason


@pytest.mark.parametrize("command", [
    "ls -la .claude/state agent-coord/tasks", "cat agent-coord/tasks/task-7682b3a8-1.json",
    "gateway orch status", "gateway spec status"])
def test_reading_the_stores_is_not_refused(hook, proj, command):
    out = hook(bash(command, proj, agent_id="agent-a"))
    assert out.returncode == 0
    assert b'"deny"' not in out.stdout, out.stdout


def test_a_name_that_only_starts_like_a_store_is_not_protected(hook, proj):
    assert silent(hook(write(os.path.join(proj, "agent-coordinator/notes.md"), proj)))
    assert silent(hook(write(os.path.join(proj, "src/agent-coord/x.py"), proj)))
