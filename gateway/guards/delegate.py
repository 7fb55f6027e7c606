"""Delegate-mode guard (seed 001 Phase B): the Lead coordinates and does nothing else.

Delegate mode is on when the payload's permission_mode is "delegate" (Claude Code up to
2.1.45 had the mode) or when the gateway's state records Phase B for the running breezing
session (`gateway breezing phase B`; current clients removed the mode, so the gateway
provides it; Phase C, `gateway state clean` or the end of breezing-active.json lift it).

It restricts the Lead only: a main thread registered as lead or unregistered (no agent_id),
or a subagent registered as lead under its own agent_id (not one that merely shares the
Lead's session_id). Teammates and subagents are not restricted (old clients' teammates inheriting
the mode was a bug, anthropics/claude-code#25037).

Allowed: TaskCreate, TaskUpdate, TaskList, TaskGet, SendMessage, and the Write of a role
marker a registered teammate registered from (the Lead assigning it its owns: nothing else
through that Write, role.register checks it again inside the lock); with an old client's
delegate mode also its team tools TeamCreate, TeamDelete and Task (Agent is the same tool
under its current name). In Phase B the Lead may also run, as one Bash command, the gateway's
own coordination steps (rules/workflow.yaml `delegate: true`): `gateway breezing phase C` to
end the phase, `review` to record a verdict, `batch` to register the next batch, `status`,
`next`, `register`, and `gateway resume` when the team is gone after a compaction.
"""

import posixpath

PHASE = "guard:delegate"
TOOLS = ("TaskCreate", "TaskUpdate", "TaskList", "TaskGet", "SendMessage")
OLD_CLIENT_TOOLS = ("TeamCreate", "TeamDelete", "Task", "Agent")


def delegate_command(req):
    """The workflow command the Lead may run in Phase B (rules/workflow.yaml `delegate`:
    coordination -- the phase, the review verdict, the next batch, the progress, a
    registration, the resume of a team that is gone), or None. Exactly one `gateway ...`,
    literal words, the installed gateway (gateway.effects.workflowcmd.single)."""
    from gateway.effects import workflowcmd

    ti = req.tool_input
    got = workflowcmd.of_command(ti.get("command") if isinstance(ti, dict) else None,
                                 req.policy)
    return got if got is not None and got.spec.delegate else None


def is_assignment(req) -> bool:
    """A Write of a role marker another identity registered from (an assignment)."""
    from gateway.effects import files
    from gateway.guards import role
    from gateway.guards.context import PATH_MAX

    ti = req.tool_input
    raw = ti.get("file_path") if isinstance(ti, dict) else None
    if not isinstance(raw, str) or not raw.strip() or "\x00" in raw or len(raw) > PATH_MAX:
        return False
    target = files.Target(raw, req.cwd, req.roots)
    if not target.is_role_marker:
        return False
    from gateway.state import fast
    from gateway.state.store import StateError

    try:
        roles = fast.load_session_roles(req.project)
    except StateError:
        return False  # the Write is then refused (GW820)
    return bool(role.bound_to_other(req, roles, posixpath.basename(target.rel_real)))


def check(req, state):
    by_mode = req.permission_mode == "delegate"
    by_phase = state.phase is not None and state.phase.phase == "B"
    if not (by_mode or by_phase):
        req.step(PHASE, "pass", "", "not in delegate mode")
        return None
    source = ("permission_mode delegate" if by_mode else
              "breezing Phase B (recorded by `gateway breezing phase B`)")
    # the Lead: the main thread (registered as lead or unregistered), or a subagent registered
    # as lead under its own agent_id -- not a subagent that only shares the Lead's session_id
    if not state.is_lead or (req.agent_id and state.role_key != req.agent_id):
        req.step(PHASE, "pass", "", f"{source}: restricts the Lead only")
        return None
    allowed = TOOLS + (OLD_CLIENT_TOOLS if by_mode else ())
    if req.tool == "Write" and is_assignment(req):
        # the Lead hands a registered teammate its owns (seed 001: at its first task claim,
        # which is in Phase B); role.register refuses it unless it is exactly that
        req.assign_only = True
        req.step(PHASE, "pass", "", f"{source}: a role marker Write that assigns a registered "
                 "teammate its role and owns")
        return None
    if req.tool in allowed:
        req.step(PHASE, "pass", "", f"{source}: {req.tool} is a delegate tool")
        return None
    if by_phase and not by_mode and req.tool == "Bash":
        got = delegate_command(req)
        if got is not None:
            if got.spec.registers:
                req.assign_only = True  # the Lead registers no role of its own in Phase B
            req.step(PHASE, "pass", "", f"Phase B: `{got.label}` is coordination (a delegate "
                     "step of rules/workflow.yaml)")
            return None
    leave = ("when every task is completed and approved, run `gateway breezing phase C` "
             "(the gateway's coordination steps -- `gateway breezing status|review|batch|"
             "register`, `gateway resume` -- are allowed as one Bash command)"
             if by_phase and not by_mode else "leave delegate mode (Shift+Tab) first")
    return req.deny(PHASE, "GW820", f"delegate mode ({source}): the Lead coordinates only and "
                    f"may use {', '.join(allowed)}; {req.tool} is not allowed. Hand the work "
                    f"to a teammate with TaskCreate/SendMessage, or {leave}",
                    rule=f"delegate:{req.tool}")
