"""A member of the breezing team without a role of its own (GW821).

Once a team is initialised (breezing-active.json has a team_name), a caller that is not the
Lead and has no registration of its own -- an unregistered subagent, a subagent that only
shares the Lead's session, or an unregistered main thread while another session is the
registered Lead (a teammate that started late) -- gets no more than a registered role: it
may read, use the task and message tools, and register
(`gateway breezing register implementer|reviewer`, or a role marker Write). It may not
write files, run commands that are not read-only, start agents or use MCP tools that write
or run. Before, an unregistered subagent had no restriction at all and an unregistered
teammate session counted as the Lead.
"""

PHASE = "guard:member"
SPAWN_TOOLS = ("Agent", "Task")


def _who(state) -> str:
    if not state.agent_id:
        return "this session is not the Lead of the breezing team and has no role yet"
    if state.role is not None:
        return "this subagent only shares the Lead's session and has no role of its own"
    return "this subagent has no role in the breezing team yet"


def _deny(req, state, what):
    return req.deny(PHASE, "GW821", f"{_who(state)}: until it registers it may only read and "
                    f"coordinate, so {what} is refused. Register first with one Bash command, "
                    "`gateway breezing register implementer` (or `reviewer`); the Lead then "
                    "assigns its files (`gateway breezing register implementer --owns GLOB "
                    "--name NAME`)", rule="member:unregistered")


def check_tool(req, state):
    """Spawning and MCP tools that write or run."""
    if not state.unregistered_member:
        return None
    if req.tool in SPAWN_TOOLS:
        return _deny(req, state, f"starting an agent ({req.tool})")
    if req.tool.startswith("mcp__"):
        from gateway.guards.role import FILE_VERBS, RUN_VERBS, tool_words

        words = tool_words(req.tool)
        if words & FILE_VERBS or words & RUN_VERBS:
            return _deny(req, state, f"{req.tool} (it may change files or run commands)")
    return None


def check_write(req, state, target):
    """A file tool: only a role marker (registration) may be written."""
    if not state.unregistered_member or target.is_role_marker:
        return None
    return _deny(req, state, f"writing {target.raw!r}")


def check_bash(req, state, effects, registration=False):
    """Bash: a read-only command or a registration."""
    if not state.unregistered_member or registration:
        return None
    reasons = effects.reasons()
    if not reasons:
        req.step(PHASE, "pass", "", "unregistered member: the command only reads")
        return None
    return _deny(req, state, f"a command that is not read-only ({reasons[0]})")
