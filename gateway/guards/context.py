"""One PreToolUse request as the guards see it: the checked payload, who is calling (role,
lead or not), the breezing state, the trace, and verdict helpers.

Stdlib only (hook path): the policy is loaded on first use through the `judge` the caller
hands in (gateway.runtime: the compiled cache, never YAML or pydantic). The guards and the
validator are siblings that do not import each other: the hooks wire the validator in.
"""

import os

from gateway.decision import ALLOW, ASK, DENY, Step, Verdict

PASS_CODE = "GW800"
#: Longer paths name nothing the kernel opens (ENAMETOOLONG) and are refused before any
#: resolution: realpath and the walk up to .claude/ are quadratic in the number of components
#: (a 600 KB path took 10-40 s, past the hook's timeout).
PATH_MAX = 4096


def check_path_length(value, what):
    if len(value) > PATH_MAX or len(value.encode("utf-8", "surrogatepass")) > PATH_MAX:
        raise GuardError("GW892", f"{what} is longer than {PATH_MAX} bytes (PATH_MAX): no file "
                         "system call accepts it", "guard:input")


class GuardError(Exception):
    """A guard cannot decide (bad input, unreadable rules): the call is denied."""

    def __init__(self, code, message, phase="guard", rule=""):
        super().__init__(message)
        self.code = code
        self.message = message
        self.phase = phase
        self.rule = rule


def _text(payload, key):
    value = payload.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise GuardError("GW892", f"{key} is not a string", "guard:input")
    if "\x00" in value:
        raise GuardError("GW892", f"{key} contains a NUL character", "guard:input")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise GuardError("GW892", f"{key} contains an unpaired surrogate (a JSON \\ud800-style "
                         "escape): not a usable name", "guard:input") from None
    return value


class Request:
    """The parts of a PreToolUse payload the guards use, checked."""

    def __init__(self, payload, env=None, project=None, *, judge):
        from gateway import paths

        #: the validator's entry, wired in by the caller (gateway.runtime): get_policy(project,
        #: env) and judge_bash(...)
        self.judge = judge

        if not isinstance(payload, dict):
            raise GuardError("GW892", "the input is not a JSON object", "guard:input")
        self.payload = payload
        self.env = os.environ if env is None else env
        tool = payload.get("tool_name")
        if not isinstance(tool, str) or not tool:
            raise GuardError("GW892", "tool_name is missing or not a string", "guard:input")
        self.tool = tool
        ti = payload.get("tool_input")
        self.tool_input = ti if isinstance(ti, dict) else None
        self.agent_id = _text(payload, "agent_id")
        self.session_id = _text(payload, "session_id")
        self.agent_type = _text(payload, "agent_type")
        self.permission_mode = _text(payload, "permission_mode")
        cwd = _text(payload, "cwd")
        if cwd is not None:
            check_path_length(cwd, "cwd")
        if cwd is not None and not cwd.startswith("/"):
            cwd = None  # a relative cwd means nothing; judge from the project root
        self.project = os.path.normpath(project) if project else paths.project_dir(cwd, self.env)
        self.cwd = os.path.normpath(cwd) if cwd else self.project
        self.roots = paths.Roots(self.project)
        self.trace = []
        self.subject = ""  # the command or file path, for the audit log
        self.assign_only = False  # delegate mode let a role marker Write through (assignment)
        if self.tool_input is not None:
            for key in ("command", "file_path", "notebook_path"):
                if isinstance(self.tool_input.get(key), str):
                    self.subject = self.tool_input[key]
                    break
        self._policy = None

    # --- policy ----------------------------------------------------------------------------

    @property
    def policy(self):
        if self._policy is None:
            from gateway.policy.errors import PolicyError

            try:
                self._policy = self.judge.get_policy(self.project, self.env)
            except PolicyError as exc:
                first = exc.errors[0] if exc.errors else "unknown problem"
                raise GuardError("GW891", f"the rules cannot be loaded, so nothing can be "
                                 f"checked and every call asks until they are fixed: {first}. "
                                 "Run `gateway rules validate`", "guard:rules") from None
        return self._policy

    def input_dict(self) -> dict:
        if self.tool_input is None:
            raise GuardError("GW892", "tool_input is missing or not an object", "guard:input")
        return self.tool_input

    # --- verdicts ----------------------------------------------------------------------------

    def step(self, phase, status, code="", message=""):
        self.trace.append(Step(phase, status, code, message))

    def deny(self, phase, code, message, rule="") -> Verdict:
        self.step(phase, "deny", code, message)
        return Verdict(DENY, phase, code, rule, message)

    def ask(self, phase, code, message, rule="") -> Verdict:
        """A PreToolUse "ask": the dialog in interactive sessions, a refusal in -p."""
        self.step(phase, "ask", code, message)
        return Verdict(ASK, phase, code, rule, message)

    def allow(self, phase, code, message, rule="") -> Verdict:
        """A PreToolUse "allow" (only with early allow, gateway.guards.reads.early_allow)."""
        self.step(phase, "allow", code, message)
        return Verdict(ALLOW, phase, code, rule, message)

    def passed(self, message="no guard objects: the client's own permission flow "
               "decides") -> Verdict:
        self.step("guard", "pass", PASS_CODE, message)
        return Verdict(ASK, "guard", PASS_CODE, "", message)


class State:
    """The breezing state a decision depends on, read once per request."""

    __slots__ = ("role", "role_key", "active", "phase", "agent_id", "lead_known")

    def __init__(self, role=None, role_key=None, active=None, phase=None, agent_id=None,
                 lead_known=False):
        self.role = role  # gateway.state.fast.RoleView or None (unregistered)
        self.role_key = role_key  # the agent_id or session_id it was found under
        self.active = active  # ActiveView or None
        self.phase = phase  # the effective PhaseView or None
        self.agent_id = agent_id
        #: a session is registered as the Lead (recorded when the Lead ran a breezing step:
        #: gateway.hooks.post_tool_use): then another unregistered main thread is a teammate
        self.lead_known = lead_known

    @property
    def role_name(self):
        return self.role.role if self.role is not None else None

    @property
    def is_lead(self) -> bool:
        """The Lead: registered as lead, or an unregistered main thread (no agent_id) while no
        session is registered as the Lead."""
        if self.role is not None:
            return self.role.role == "lead"
        return not self.agent_id and not self.other_lead

    @property
    def other_lead(self) -> bool:
        """Another session is the registered Lead of an initialised team."""
        return self.lead_known and self.active is not None and getattr(self.active, "team",
                                                                        False)

    @property
    def unregistered_member(self) -> bool:
        """A member of an initialised breezing team without a role of its own: an
        unregistered subagent (or one that only shares the Lead's session), or an unregistered
        main thread while another session is the registered Lead. It may only read,
        coordinate and register (gateway.guards.member), never more than a registered role."""
        if self.active is None or not getattr(self.active, "team", False):
            return False
        if self.agent_id:
            return self.role is None or (self.role_key != self.agent_id
                                         and self.role.role == "lead")
        return self.role is None and self.other_lead

    @property
    def codex(self) -> bool:
        return self.active is not None and self.active.is_codex

    def describe(self) -> str:
        who = (f"role {self.role.role} (registered under {self.role_key})" if self.role
               else "unregistered " + ("main thread (the Lead)" if self.is_lead
                                       else "main thread (another session is the Lead)"
                                       if not self.agent_id else "subagent"))
        if self.unregistered_member:
            who += "; a team member without a role of its own"
        mode = "impl_mode codex" if self.codex else (
            "breezing session active" if self.active else "no breezing session")
        phase = f"phase {self.phase.phase}" if self.phase else "no phase recorded"
        return f"{who}; {mode}; {phase}"


def load_state(req) -> State:
    """Read roles, breezing-active.json and the phase. Raises StateError (-> deny)."""
    from gateway.state.layout import check_state_dir

    # one check for the guards and `gateway state ...`: a link (the roles would come from
    # wherever it points, outside the project) or a file where the directory must be raises
    if not check_state_dir(req.project):
        return State(agent_id=req.agent_id)
    from gateway.state import fast  # (and its store) only when there is state to read

    roles = fast.load_session_roles(req.project)
    role = key = None
    for k in (req.agent_id, req.session_id):
        if k and k in roles:
            role, key = roles[k], k
            break
    lead_known = any(v.role == "lead" for v in roles.values())
    active = fast.load_active_view(req.project)
    phase = fast.effective_phase(req.project)
    return State(role, key, active, phase, req.agent_id, lead_known)
