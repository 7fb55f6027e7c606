"""The SubagentStart hook: the Lead spawned a teammate with the Agent tool -- register it by
the agent type it was spawned as (seed 001 Step 3: implementers are task-worker or
codex-implementer, the reviewer is code-reviewer; Phase 0's plan-analyst and plan-critic are
read-only). The client reports the spawn, so this registration needs no Write from the
teammate (which the client refuses in print mode). Recorded under the subagent's agent_id,
bound to the name ``<agent_id>`` (the Lead assigns an implementer its files with
`gateway breezing register implementer --owns GLOB --name <agent_id>`); a registration that
exists already is kept. An implementer of the other impl_mode (a task-worker in codex mode:
seed 001 forbids it) is registered read-only, as a reviewer.

Only while a breezing team is initialised. The subagent is told its role and name
(additionalContext); nothing is printed otherwise. Never blocks (the event cannot).
"""

from gateway.hooks import _lifecycle as lc

EVENT = "SubagentStart"
MATCHER = None
ON_FAILURE_BLOCK = False
AUDIT = False

#: agent type (without a plugin prefix) -> (role, the impl_mode it belongs to or None)
AGENT_ROLES = {"task-worker": ("implementer", "standard"),
               "codex-implementer": ("implementer", "codex"),
               "code-reviewer": ("reviewer", None), "plan-analyst": ("reviewer", None),
               "plan-critic": ("reviewer", None)}


def role_for(agent_type, impl_mode):
    """(role, why) for an agent type, or None when the type has no breezing role."""
    if not isinstance(agent_type, str):
        return None
    got = AGENT_ROLES.get(agent_type.rsplit(":", 1)[-1].strip().lower())
    if got is None:
        return None
    role, mode = got
    if mode is not None and mode != (impl_mode or "standard"):
        return "reviewer", (f"spawned as {agent_type}, which is not the implementer of "
                            f"impl_mode {impl_mode or 'standard'}: registered read-only")
    return role, None


def decide(raw: bytes, env) -> tuple:
    payload = lc.read(raw, EVENT)
    if payload is None:
        return lc.Outcome(), None
    try:
        agent_id = lc.text(payload, "agent_id", 256)
        agent_type = lc.text(payload, "agent_type", 256)
        if agent_id is None or agent_type is None:
            return lc.Outcome(), payload
        project = lc.project(payload, env)
        if project is None:
            return lc.Outcome(), payload
        import os

        from gateway.state.layout import layout

        if not os.path.lexists(layout(project).active):
            return lc.Outcome(), payload
        from gateway.state import fast
        from gateway.state.store import StateError

        try:
            active = fast.load_active_view(project)
            if active is None or not active.team:
                return lc.Outcome(), payload
            got = role_for(agent_type, active.impl_mode)
            if got is None:
                return lc.Outcome(), payload
            role, why = got
            import re

            name = "breezing-role-" + re.sub(r"[^A-Za-z0-9_.-]", "_", agent_id)[:100] + ".json"
            done = []

            def apply(roles):
                if agent_id in roles:
                    return roles
                roles[agent_id] = fast.role_entry(role, (), agent_type, marker=name)
                done.append(role)
                return roles

            fast.update_session_roles(project, apply)
        except (StateError, ValueError) as exc:
            return lc.Outcome(message=f"gateway: the teammate {agent_id[:64]!r} "
                                      f"({agent_type[:64]}) was not registered: {exc}"), payload
        if not done:
            return lc.Outcome(), payload
        text = (f"gateway: you are registered in the breezing team as {role} (name "
                f"{agent_id[:64]})" + (f"; {why}" if why else "") + ".")
        if role == "implementer":
            text += (" You own no files yet: the Lead assigns them with `gateway breezing "
                     f"register implementer --owns GLOB --name {agent_id[:64]}`.")
        return lc.Outcome(text), payload
    except Exception as exc:
        return lc.internal_error(EVENT, exc), payload


def render(outcome) -> str:
    return lc.render(outcome, EVENT, context_allowed=True)
