"""Which session is the Lead of the breezing team, as the session lifecycle changes it.

The Lead's session is registered as ``lead`` when it runs a breezing step
(gateway.guards.role.record_lead); from then on another unregistered session is a teammate
(gateway.guards.member). When the Lead's session ends (SessionEnd) its registration goes --
its in-process teammates end with it, and the next session of the user must be able to
resume; a session the user resumes (SessionStart ``resume``) takes the Lead's place when
another session was recorded as the Lead (a Lead that ended without SessionEnd: a crash).
"""

from __future__ import annotations

import os

from gateway.state import fast
from gateway.state.layout import layout

__all__ = ["end", "take_over"]


def end(project_dir, session_id) -> bool:
    """SessionEnd of ``session_id``: drop its lead registration. True when it was the Lead."""
    lay = layout(project_dir)
    if not session_id or not os.path.lexists(lay.session_roles):
        return False
    done = []

    def apply(roles):
        cur = roles.get(session_id)
        if cur is not None and cur.role == "lead":
            del roles[session_id]
            done.append(True)
        return roles

    fast.update_session_roles(lay.project_dir, apply)
    return bool(done)


def take_over(project_dir, session_id) -> str | None:
    """SessionStart ``resume`` of ``session_id``: when another session is registered as the
    Lead and this one has no registration, this session becomes the Lead. Returns the
    previous Lead's session id, or None when nothing changed."""
    lay = layout(project_dir)
    if not session_id or not os.path.lexists(lay.session_roles) or \
            not os.path.lexists(lay.active):
        return None
    before = []

    def apply(roles):
        if session_id in roles:
            return roles
        leads = [k for k, v in roles.items() if v.role == "lead" and not v.agent_type]
        if not leads:
            return roles
        for k in leads:
            del roles[k]
        roles[session_id] = fast.role_entry("lead", ())
        before.extend(leads)
        return roles

    fast.update_session_roles(lay.project_dir, apply)
    return before[0] if before else None
