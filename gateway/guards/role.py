"""Role guard (seeds 000/001, /breezing): Lead, Implementer, Reviewer.

Roles live in .claude/state/breezing-session-roles.json, keyed by agent_id first, then
session_id (gateway.state.fast.lookup_role). A caller without an entry is unregistered: an
unregistered main thread is the Lead; an unregistered subagent has no role restrictions.

Registration: a Write of `.claude/state/breezing-role-*.json` (directly in the state
directory, no symlink) whose content is `{"role": "lead"|"implementer"|"reviewer",
"owns": [globs]}`. The gateway records it under the caller's agent_id when there is one
(a subagent never changes the Lead's role: they share the session_id), else under the
session_id. No self-escalation: the new role may not rank above the caller's current
effective role (reviewer < implementer < lead), checked again inside the file lock, and a
subagent (a call with an agent_id) may never register as lead. A
re-registration at the same rank replaces `owns` (the Lead hands an implementer its globs
at its first task claim).

* Reviewer: Write/Edit/MultiEdit/NotebookEdit only below .claude/state/ (canonical path,
  GW801); Bash only when it is read-only (gateway.guards.effects, GW802).
* Implementer: writes only to paths its `owns` globs admit, plus its role marker (GW803);
  no git commit/push in any spelling (GW804).
* Reviewers and implementers may not start agents (Agent/Task, or `claude` from Bash, GW808):
  a subagent has its own agent_id, a new session its own session_id; neither would inherit
  the role (an unregistered session is taken for the Lead).
* Only the Lead changes the breezing state: breezing-active.json, `gateway breezing phase`,
  `gateway state clean`, `gateway hook` (GW807).
"""

from gateway.guards import files

PHASE = "guard:role"
SPAWN_TOOLS = ("Agent", "Task")


def check_spawn(req, state):
    role = state.role_name
    if req.tool in SPAWN_TOOLS and role in ("reviewer", "implementer"):
        return req.deny(PHASE, "GW808", f"a {role} may not start agents ({req.tool}): the new "
                        "agent would have its own identity and not inherit the role",
                        rule=f"role:{role}:spawn")
    return None


def check_lead_only_file(req, state, target):
    if target.is_active_file and not state.is_lead:
        who = state.role_name or "an unregistered subagent"
        return req.deny(PHASE, "GW807", f"breezing-active.json is the Lead's file; {who} may "
                        "not write it", rule="role:lead-only")
    return None


def check_write(req, state, target):
    role = state.role_name
    if role == "reviewer":
        if not target.in_state_dir:
            return req.deny(PHASE, "GW801", f"a reviewer is read-only: it may write only below "
                            f".claude/state/, not {target.raw!r} (which is {target.real})",
                            rule="role:reviewer:write")
        req.step(PHASE, "pass", "", "reviewer: a state file")
        return None
    if role == "implementer":
        if target.is_role_marker:
            req.step(PHASE, "pass", "", "implementer: its role marker")
            return None
        owns = state.role.owns
        pat = files.owns_match(owns, target.rel_real, target.real) if target.inside else ""
        if not pat:
            what = ("owns nothing yet (owns: [])" if not owns
                    else "owns " + ", ".join(owns[:5]) + (" ..." if len(owns) > 5 else ""))
            return req.deny(PHASE, "GW803", f"this implementer {what}; {target.raw!r} "
                            f"(canonical {target.rel_real or target.real}) is not among its "
                            "files. Ask the Lead to assign it", rule="role:implementer:owns")
        req.step(PHASE, "pass", "", f"implementer: owns {pat!r}")
        return None
    req.step(PHASE, "pass", "", f"{role or 'unregistered'}: no role restriction on writes")
    return None


def check_gateway_ops(req, state, effects):
    if state.is_lead:
        return None
    if effects.gateway_ops:
        return req.deny(PHASE, "GW807", f"only the Lead changes the breezing state "
                        f"(gateway {effects.gateway_ops[0]})", rule="role:lead-only")
    # breezing-active.json through Bash, as through the file tools (check_lead_only_file)
    roots = req.roots
    for w in effects.writes:
        for p in w.paths:
            rel = files.rel_to(p, roots.project, roots.project_real)
            if rel is not None and rel.lower() == files.ACTIVE_REL:
                who = state.role_name or "an unregistered subagent"
                return req.deny(PHASE, "GW807", f"breezing-active.json is the Lead's file; "
                                f"{who} may not change it ({w.via} writes {w.target!r})",
                                rule="role:lead-only")
    return None


def check_bash(req, state, effects):
    role = state.role_name
    if role == "reviewer":
        reasons = effects.reasons()
        if reasons:
            return req.deny(PHASE, "GW802", "a reviewer runs only read-only commands; "
                            + "; ".join(reasons[:3]), rule="role:reviewer:bash")
        req.step(PHASE, "pass", "", "reviewer: the command only reads")
        return None
    if role == "implementer":
        if effects.agents:
            return req.deny(PHASE, "GW808", f"an implementer may not start agents: "
                            f"{effects.agents[0]}, which would have no role (a session of its "
                            "own is treated as the Lead)", rule="role:implementer:spawn")
        found = effects.commit_push + effects.commit_push_maybe
        if found:
            return req.deny(PHASE, "GW804", "an implementer does not commit or push (the Lead "
                            "commits after review): " + "; ".join(found[:2]),
                            rule="role:implementer:git")
        req.step(PHASE, "pass", "", "implementer: no commit or push")
        return None
    req.step(PHASE, "pass", "", f"{role or 'unregistered'}: no role restriction on Bash")
    return None


class _Escalation(Exception):
    pass


def _effective(roles, agent_id, session_id):
    for k in (agent_id, session_id):
        if k and k in roles:
            return roles[k]
    return None


def register(req, state, target, record=True):
    """The role-marker Write: validate, refuse escalation, record. Returns a deny verdict or
    None (the Write itself then gets no decision)."""
    from gateway.state import fast
    from gateway.state.store import StateError

    if req.tool != "Write":
        return req.deny(PHASE, "GW806", f"role markers are registered from a Write of the whole "
                        f"file; {req.tool} cannot register a role. Write {target.raw!r} again "
                        "with the complete JSON", rule="role:register")
    content = req.tool_input.get("content")
    if not isinstance(content, str):
        return req.deny(PHASE, "GW806", "the role marker Write has no text content",
                        rule="role:register")
    try:
        marker = fast.parse_role_marker(content, target.lex)
    except StateError as exc:
        return req.deny(PHASE, "GW806", f"cannot register this role marker: {exc}",
                        rule="role:register")
    key = req.agent_id or req.session_id
    if not key:
        return req.deny(PHASE, "GW806", "cannot register a role: the call has neither an "
                        "agent_id nor a session_id", rule="role:register")
    rank = fast.ROLE_RANK

    def escalation(current):
        if current is not None and rank[marker.role] > rank[current.role]:
            return (f"a registered {current.role} may not re-register as {marker.role} (no "
                    "self-escalation)")
        return ""

    why = escalation(state.role)
    if not why and req.agent_id and marker.role == "lead":
        # the Lead is the main thread (no agent_id); an unregistered subagent has no role
        # restrictions but is not the Lead (GW807), and must not make itself one
        why = ("a subagent (agent_id) may not register as lead: the Lead is the main "
               "session; register as implementer or reviewer")
    if why:
        return req.deny(PHASE, "GW805", why, rule="role:escalation")
    where = "agent_id" if req.agent_id else "session_id"
    if not record:
        req.step(PHASE, "info", "", f"dry run: would register {where} {key} as {marker.role}")
        return None
    agent_type = req.agent_type if req.agent_type and len(req.agent_type) <= 256 else None

    def apply(roles):
        problem = escalation(_effective(roles, req.agent_id, req.session_id))
        if problem:
            raise _Escalation(problem)
        roles[key] = fast.role_entry(marker.role, marker.owns, agent_type)
        return roles

    try:
        fast.update_session_roles(req.project, apply)
    except _Escalation as exc:
        return req.deny(PHASE, "GW805", str(exc), rule="role:escalation")
    except ValueError as exc:
        return req.deny(PHASE, "GW806", f"cannot register this role: {exc}",
                        rule="role:register")
    except StateError as exc:
        return req.deny("guard:state", "GW890", f"cannot record the role registration: {exc}")
    req.step(PHASE, "info", "", f"registered {where} {key} as {marker.role}"
             + (f" owning {', '.join(marker.owns[:5])}" if marker.owns else ""))
    return None
