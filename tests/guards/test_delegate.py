"""Delegate-mode guard (SPEC §5, seed 001 Phase B, claude-code-hooks §8): in delegate mode the
Lead may use only TaskCreate, TaskUpdate, TaskList, TaskGet and SendMessage (plus TeamCreate,
TeamDelete and Task from the clients that had the mode). Delegate mode is on when the
payload's permission_mode is "delegate" (clients up to 2.1.45) or when the gateway's state
records Phase B; breezing-active.json's lifecycle clears it."""

import os

import pytest

from tests.guards.support import (
    LEAD_SESSION,
    denied,
    no_objection,
    register,
    set_active,
    set_phase,
    silent,
    write,
)

DELEGATE_TOOLS = ["TaskCreate", "TaskUpdate", "TaskList", "TaskGet", "SendMessage"]
OLD_CLIENT_TOOLS = ["TeamCreate", "TeamDelete", "Task"]
OTHER_TOOLS = ["Bash", "Write", "Edit", "MultiEdit", "NotebookEdit", "Read", "Grep", "Glob",
               "WebFetch", "WebSearch", "TodoWrite", "Skill", "mcp__github__create_issue"]


def _input(proj, tool):
    if tool == "Bash":
        return {"command": "ls"}
    if tool in ("Write", "Edit", "MultiEdit", "Read"):
        return {"file_path": os.path.join(proj, "src/app.py"), "content": "x",
                "old_string": "a", "new_string": "b", "edits": []}
    if tool == "NotebookEdit":
        return {"notebook_path": os.path.join(proj, "a.ipynb"), "new_source": "x"}
    return {"subject": "s", "description": "d", "prompt": "p"}


@pytest.fixture()
def phase_b(proj):
    set_active(proj)
    set_phase(proj, "B")
    return proj


# --- permission_mode "delegate" (older clients) ---------------------------------------------

@pytest.mark.parametrize("tool", DELEGATE_TOOLS + OLD_CLIENT_TOOLS)
def test_old_client_delegate_tools_pass(guard, proj, tool):
    v = guard(tool, _input(proj, tool), permission_mode="delegate")
    assert silent(v), (tool, v.code, v.message)


@pytest.mark.parametrize("tool", OTHER_TOOLS)
def test_old_client_delegate_mode_denies_everything_else(guard, proj, tool):
    v = guard(tool, _input(proj, tool), permission_mode="delegate")
    assert denied(v, "GW820"), (tool, v.code, v.message)
    assert tool in v.message and "TaskCreate" in v.message


def test_delegate_mode_does_not_need_breezing_state(guard, proj):
    os.rmdir(os.path.join(proj, ".claude", "state"))
    v = guard("Bash", {"command": "git status"}, permission_mode="delegate")
    assert denied(v, "GW820")


@pytest.mark.parametrize("mode", ["default", "acceptEdits", "plan", "bypassPermissions",
                                  "dontAsk", "auto", None, "Delegate"])
def test_other_permission_modes_are_not_delegate(guard, proj, mode):
    v = guard("Bash", {"command": "ls"}, permission_mode=mode)
    assert silent(v), (mode, v.code, v.message)


# --- Phase B recorded by the gateway (current clients) --------------------------------------

@pytest.mark.parametrize("tool", DELEGATE_TOOLS)
def test_phase_b_delegate_tools_pass(guard, phase_b, tool):
    assert silent(guard(tool, _input(phase_b, tool)))


@pytest.mark.parametrize("tool", OTHER_TOOLS + ["TeamCreate", "TeamDelete", "Task", "Agent"])
def test_phase_b_denies_everything_else(guard, phase_b, tool):
    v = guard(tool, _input(phase_b, tool))
    assert denied(v, "GW820"), (tool, v.code, v.message)
    assert "gateway breezing phase C" in v.message


def test_phase_b_restricts_a_registered_lead(guard, phase_b):
    register(phase_b, LEAD_SESSION, "lead")
    assert denied(guard("Bash", {"command": "ls"}), "GW820")
    register(phase_b, "agent-lead", "lead")
    assert denied(guard("Read", {"file_path": "x"}, agent_id="agent-lead"), "GW820")


def test_phase_b_lead_may_end_the_phase(guard, phase_b):
    assert no_objection(guard("Bash", {"command": "gateway breezing phase C"}))


@pytest.mark.parametrize("command", [
    "gateway breezing status", "gateway breezing review REQUEST_CHANGES",
    "gateway breezing batch", "gateway breezing next", "gateway resume", "gateway resume --yes",
    "gateway breezing phase B"])
def test_phase_b_lead_may_coordinate_through_the_gateway(guard, phase_b, command):
    """rules/workflow.yaml marks the coordination steps `delegate: true`."""
    assert no_objection(guard("Bash", {"command": command})), command


def test_phase_b_lead_assigns_through_the_register_command_but_registers_no_role(guard, phase_b):
    from gateway.state import fast

    fast.update_session_roles(phase_b, lambda r: {**r, "agent-impl": fast.role_entry(
        "implementer", (), marker="breezing-role-impl-1.json")})
    assert no_objection(guard("Bash", {"command": "gateway breezing register implementer "
                                                  "--owns 'src/**' --name impl-1"}))
    v = guard("Bash", {"command": "gateway breezing register implementer --owns 'src/**'"})
    assert denied(v, "GW820") and "assign a registered teammate" in v.message


@pytest.mark.parametrize("command", [
    "gateway breezing phase C && rm -rf src", "gateway breezing phase C; ls",
    "gateway breezing verify", "gateway breezing start --range x --yes", "./gateway breezing phase C",
    "src/gateway breezing phase C", "gateway breezing phase C > out.txt",
    "X=1 gateway breezing phase C", "gateway breezing phase $P", "gateway state clean",
    "echo gateway breezing phase C",
])
def test_phase_b_allows_only_the_gateways_coordination_commands(guard, phase_b, command):
    v = guard("Bash", {"command": command})
    assert denied(v, "GW820"), (command, v.code, v.message)


@pytest.mark.parametrize("phase", ["A", "C"])
def test_phases_a_and_c_keep_the_users_mode(guard, proj, phase):
    set_active(proj)
    set_phase(proj, phase)
    assert silent(guard("Bash", {"command": "ls"}))
    assert silent(guard("Write", write(proj, "src/app.py")))


def test_lifecycle_clears_phase_b(guard, phase_b):
    """Early abort and Phase C delete breezing-active.json: a left-over Phase B record is
    not delegate mode."""
    assert denied(guard("Bash", {"command": "ls"}), "GW820")
    os.unlink(os.path.join(phase_b, ".claude/state/breezing-active.json"))
    assert silent(guard("Bash", {"command": "ls"}))


def test_phase_b_of_an_earlier_breezing_session_is_stale(guard, phase_b):
    set_active(phase_b, session_id="breezing-20260207-0900")
    assert silent(guard("Bash", {"command": "ls"}))


def test_phase_c_lifts_it(guard, phase_b):
    assert denied(guard("Bash", {"command": "ls"}), "GW820")
    set_phase(phase_b, "C")
    assert silent(guard("Bash", {"command": "ls"}))


# --- only the Lead ---------------------------------------------------------------------------

@pytest.mark.parametrize("by", ["mode", "phase"])
def test_teammates_and_subagents_are_not_restricted(guard, proj, by):
    """Teammates inheriting the restriction was a client bug (anthropics/claude-code#25037)."""
    kw = {"permission_mode": "delegate"} if by == "mode" else {}
    if by == "phase":
        set_active(proj)
        set_phase(proj, "B")
    v = guard("Write", write(proj, "src/app.py"), agent_id="agent-sub", **kw)
    assert silent(v), (v.code, v.message)
    register(proj, "agent-impl", "implementer", ["src/**"])
    assert silent(guard("Write", write(proj, "src/app.py"), agent_id="agent-impl", **kw))
    register(proj, "44444444-4444-4444-8444-444444444444", "reviewer")
    v = guard("Bash", {"command": "git status"},
              session_id="44444444-4444-4444-8444-444444444444", **kw)
    assert silent(v)


@pytest.mark.parametrize("by", ["mode", "phase"])
def test_the_leads_subagents_are_not_restricted_by_its_registration(guard, proj, by):
    """Reproducer: with the Lead registered as lead under its session_id, its subagents
    (same session_id, their own agent_id) inherited "lead" and were held to the delegate
    tools too (the client bug anthropics/claude-code#25037, made by the gateway)."""
    kw = {"permission_mode": "delegate"} if by == "mode" else {}
    if by == "phase":
        set_active(proj)
        set_phase(proj, "B")
    register(proj, LEAD_SESSION, "lead")
    assert denied(guard("Bash", {"command": "ls"}, **kw), "GW820")  # the Lead itself
    v = guard("Write", write(proj, "src/app.py"), agent_id="agent-helper", **kw)
    assert silent(v), (v.code, v.message)
    assert silent(guard("Bash", {"command": "ls"}, agent_id="agent-helper", **kw))


def test_delegate_restricts_before_other_guards(guard, phase_b):
    # a hard-denied command is still denied, under delegate's code
    assert denied(guard("Bash", {"command": "rm -rf /"}), "GW820")
    assert denied(guard("Write", write(phase_b, ".claude/settings.json")), "GW820")


def test_phase_record_cannot_be_forged_by_a_write(guard, phase_b):
    v = guard("Write", write(phase_b, ".claude/state/gateway-breezing-phase.json", "{}"),
              agent_id="agent-sub")
    assert denied(v, "GW834")
    v = guard("Bash", {"command": "rm .claude/state/gateway-breezing-phase.json"},
              agent_id="agent-sub")
    assert denied(v, "GW835")
    v = guard("Bash", {"command": "gateway breezing phase C"}, agent_id="agent-sub")
    assert denied(v, "GW807")


def test_unreadable_phase_record_denies(guard, phase_b):
    with open(os.path.join(phase_b, ".claude/state/gateway-breezing-phase.json"), "w") as fh:
        fh.write('{"phase": "B", ')
    v = guard("TaskList", {})
    assert denied(v, "GW890")
    assert "gateway-breezing-phase.json" in v.message
