"""All guards for one PreToolUse call, in order; the first deny wins, then the first ask.

1. input      a payload the guards cannot read is denied (GW892)
2. state      roles, breezing-active.json and the phase; unreadable state is denied with the
              repair (GW890)
3. delegate   the Lead in delegate mode / Phase B uses only the delegate tools (GW820)
4. spawn      reviewers and implementers start no agents (GW808)
5. file tools Write, Edit, MultiEdit, NotebookEdit:
              escapes (GW830/831), protected paths (GW832-834), the Lead's file (GW807),
              codex (GW810-813), role (GW801/803), role registration (GW805/806)
              files whose content runs later (ask, GW836)
   Bash       the core validator's deny (GW750, GW709...), writes to protected paths
              (GW835), gateway state changes by non-Leads (GW807), codex (GW811),
              role (GW802/804); then asks: a write of a file that runs later (GW836), a
              read of a secret or reads that cannot be known (GW503/GW506/GW840, left to
              the OS when the call runs in the client's sandbox and it hides every
              secret); then the early allow of what the validator allows
              (gateway.guards.reads); then, under the sandbox's auto-allow, what it would
              run with no dialog that the user reviews (GW861/GW862, gateway.sandbox.decide)
   Read, Grep, MCP tools   a read of a secret asks (GW841/GW842)
6. otherwise  no decision (GW800): the client's own permission flow decides

The verdict is DENY, ASK with a code other than GW800 (the hook's "ask"), ALLOW (early allow
only), or "no decision" (ASK with GW800).
"""

from gateway.decision import ALLOW, ASK, DENY, Verdict
from gateway.effects import files
from gateway.guards import codex, delegate, member, reads, role
from gateway.guards.context import GuardError, Request, check_path_length, load_state


def evaluate(payload, env=None, *, judge, record=False, project=None) -> Verdict:
    """The guards' verdict for a PreToolUse payload (a dict). A role registration is only
    checked (and refused when it must be): it is recorded once the Write has completed
    (`record=True`, from PostToolUse: gateway.hooks.post_tool_use), never from an attempt
    the client or the human may still refuse. `judge`: the validator's entry the caller wires
    in (gateway.runtime: get_policy and judge_bash; the guards do not import the validator).
    Never raises."""
    req = None
    try:
        req = Request(payload, env, project, judge=judge)
        verdict = _evaluate(req, record)
    except GuardError as exc:
        # broken rules (GW891) ask: a human may still approve what nothing can be checked
        # for; when a team's roles or codex mode are in force, whose rules the guards could
        # not apply either, they deny
        asks = exc.code == "GW891" and not _team_rules(req)
        decision = ASK if asks else DENY
        verdict = Verdict(decision, exc.phase, exc.code, exc.rule, exc.message)
        if req is not None:
            req.step(exc.phase, "ask" if asks else "deny", exc.code, exc.message)
    except RecursionError:
        verdict = Verdict(DENY, "guard:error", "GW893", "", "the input nests too deeply")
    except Exception as exc:  # never allow on an error: the guards deny
        verdict = Verdict(DENY, "guard:error", "GW893", "",
                          f"internal error in the guards ({type(exc).__name__}: {exc}); the "
                          "call is refused. Please report it with the input")
    if req is not None:
        verdict.trace = req.trace
        verdict.command = req.subject
    return verdict


def _team_rules(req) -> bool:
    """Are a team's rules in force for this call (a registered role, a breezing session)?
    Unknown (no state read yet) counts as yes."""
    state = getattr(req, "team_state", None) if req is not None else None
    if state is None:
        return True
    return state.role is not None or state.active is not None


def record_registration(payload, env=None, *, judge) -> Verdict | None:
    """PostToolUse of a Write: register the role its marker names, with every check of the
    PreToolUse pass run again on the state as it is now. None when the call is not a role
    marker Write; else the verdict (DENY: not registered, with the reason)."""
    req = None
    try:
        req = Request(payload, env, judge=judge)
        if req.tool != "Write":
            return None
        raw = req.input_dict().get("file_path")
        if not isinstance(raw, str) or not raw or "\x00" in raw:
            return None
        check_path_length(raw, "Write: tool_input.file_path")
        if not files.Target(raw, req.cwd, req.roots).names_role_marker:
            return None
    except GuardError:
        return None  # not a call this hook acts on: the PreToolUse pass judged it
    return evaluate(payload, env, judge=judge, record=True)


def _state_error():
    from gateway.state.store import StateError

    return StateError


def _evaluate(req, record):
    try:
        state = load_state(req)
    except _state_error() as exc:  # evaluated only when load_state raises: no state, no store
        return req.deny("guard:state", "GW890", f"the breezing state cannot be read, so the "
                        f"guards cannot decide: {exc}. Run the repair in your own terminal: "
                        "inside Claude Code every tool call is denied until it is fixed")
    req.team_state = state
    req.step("guard:state", "info", "", state.describe())
    verdict = (delegate.check(req, state) or role.check_spawn(req, state)
               or member.check_tool(req, state))
    if verdict is not None:
        return verdict
    if req.tool in files.FILE_TOOLS:
        return _file_tool(req, state, record)
    if req.tool in SHELL_TOOLS:
        return _bash(req, state)
    if req.tool in OPAQUE_SHELL_TOOLS:
        verdict = _opaque_shell(req, state)
        if verdict is not None:
            return verdict
    verdict = (_mcp_surface(req) or _mcp_state(req, state) or role.check_mcp(req, state)
               or codex.check_mcp(req, state) or reads.check_tool(req))
    if verdict is not None:
        return verdict
    return req.passed()


#: The validator's "could not judge" codes: rules, settings, input, internal error.
_ERRORS = frozenset(("GW901", "GW902", "GW903", "GW904"))
#: Tools that run a Bash command (Monitor: "the same permission rules as Bash").
SHELL_TOOLS = frozenset(("Bash", "Monitor"))
#: Tools that run commands in a shell the gateway does not analyse.
OPAQUE_SHELL_TOOLS = frozenset(("PowerShell",))


def _opaque_shell(req, state):
    """A PowerShell command is not analysed: whoever may not write (a reviewer, an
    implementer outside its files, anyone in codex mode) may not run one."""
    role_name = state.role_name
    why = f"{req.tool} commands are not analysed, so what they write is not known"
    if role_name == "reviewer":
        return req.deny("guard:role", "GW802", f"a reviewer runs only read-only commands; {why}",
                        rule="role:reviewer:bash")
    if role_name == "implementer":
        return req.deny("guard:role", "GW803", f"this implementer writes only its own files; "
                        f"{why}", rule="role:implementer:owns")
    if state.codex:
        return req.deny("guard:codex", "GW811", f"codex mode: commands may not write; {why}",
                        rule="codex:bash")
    return None


def _file_tool(req, state, record):
    key = files.FILE_TOOLS[req.tool]
    raw = req.input_dict().get(key)
    if not isinstance(raw, str) or not raw.strip() or "\x00" in raw:
        raise GuardError("GW892", f"{req.tool}: tool_input.{key} is missing, empty or not a "
                         "path", "guard:input")
    check_path_length(raw, f"{req.tool}: tool_input.{key}")
    req.subject = raw
    target = files.Target(raw, req.cwd, req.roots)
    targets = [target]
    if raw == "~" or raw.startswith("~/"):
        # the file tools take absolute paths and Claude Code expands a leading ~: the home
        # directory reading is judged too, and either one denied denies the call
        import os

        home = os.path.normpath(os.path.expanduser("~"))
        if home.startswith("/"):
            targets.append(files.Target(home + raw[1:], req.cwd, req.roots))
    pending = None  # an ask (GW836) holds only if no target is denied
    for t in targets:
        verdict = _file_target(req, state, t)
        if verdict is not None:
            if verdict.decision is DENY:
                return verdict
            pending = pending or verdict
    if pending is not None:
        return _again(req, pending)
    verdict = _memory_import(req, target)
    if verdict is not None:
        return verdict
    if target.is_role_marker:
        verdict = role.register(req, state, target, record, assign_only=req.assign_only)
        if verdict is not None:
            return verdict
    return req.passed()


def _memory_import(req, target):
    """GW850: a file tool adds an @import of a secret or of a file outside the project to a
    memory file (gateway.memory)."""
    import os

    from gateway import memory

    home = os.path.normpath(os.path.expanduser("~"))
    for path in dict.fromkeys((target.lex, target.real)):
        why = memory.tool_concern(req.tool, req.input_dict(), path, req.roots, req.policy,
                                  home, req.env)
        if why is not None:
            return req.ask("guard:files", "GW850", f"{req.tool}: {why}. Read the file it "
                           "imports yourself if the model needs it", rule="memory:import")
    return None


def _mcp_surface(req):
    """An MCP tool whose name says it writes, on a path of the permission surface, a secret or
    the gateway's state: denied for everyone, as the file tools are (GW832-GW834)."""
    if not req.tool.startswith("mcp__") or not role.tool_words(req.tool) & role.FILE_VERBS:
        return None
    surface = None
    # a move, copy or delete takes the whole tree below a directory with it
    tree = bool(role.tool_words(req.tool) & _MCP_TREE_VERBS)
    for raw in role.tool_paths(req.tool_input):
        if "\x00" in raw or len(raw) > 4096:
            return req.deny("guard:files", "GW832", f"{req.tool}: a path argument cannot be "
                            "judged (too long, a NUL, another host's file: URI, or past 64 "
                            "items / four levels of input)", rule="protected:input")
        target = files.Target(raw, req.cwd, req.roots)
        surface = surface or files.Surface(req.roots, req.policy, req.env)
        hit = surface.check(target.lex, target.real, tree=tree)
        if hit:
            code, rule, what = hit
            return req.deny("guard:files", code, f"{req.tool} writes {raw!r}, which is "
                            f"protected: {what} ({rule})", rule=f"protected:{rule}")
    return None


def _mcp_state(req, state):
    """breezing-active.json through an MCP write tool: the Lead's file (GW807), and in codex
    mode it may not be changed at all, its impl_mode cannot be read off an MCP call (GW813)."""
    if not req.tool.startswith("mcp__") or not role.tool_words(req.tool) & role.FILE_VERBS:
        return None
    for raw in role.tool_paths(req.tool_input):
        target = files.Target(raw, req.cwd, req.roots)
        if not target.is_active_file:
            continue
        verdict = role.check_lead_only_file(req, state, target)
        if verdict is not None:
            return verdict
        if state.codex:
            return req.deny("guard:codex", "GW813", f"codex mode: {req.tool} may change "
                            "breezing-active.json's impl_mode; edit it with Edit/Write, or run "
                            "`gateway breezing` commands", rule="codex:impl_mode")
    return None


_MCP_TREE_VERBS = frozenset(("move", "mv", "rename", "delete", "remove", "rm", "unlink",
                             "copy", "cp"))


def _file_target(req, state, target):
    """The deny for writing `target` (escapes, protected paths, codex, role), or None."""
    req.step("guard:files", "info", "", f"target {target.real}")
    hit = files.escape(target, req.roots)
    if hit:
        return req.deny("guard:files", hit[0], hit[1], rule="files:escape")
    surface = files.Surface(req.roots, req.policy, req.env)
    hit = surface.check(target.lex, target.real)
    autorun = None
    if hit and hit[0] in files.ASK_CODES:
        autorun = req.ask("guard:files", hit[0], f"{req.tool} writes {target.raw!r}: "
                          f"{hit[2]} ({hit[1]})",
                          rule=f"{'autorun' if hit[0] == files.AUTORUN_CODE else 'protected'}:{hit[1]}")
    elif hit:
        code, rule, what = hit
        hint = (" Use `gateway state clean` or the workflow's own steps" if code == "GW834"
                else "")
        return req.deny("guard:files", code, f"{target.raw!r} is protected: {what} "
                        f"({rule}).{hint}", rule=f"protected:{rule}")
    else:
        req.step("guard:files", "pass", "", "no escape, not protected")
    return (role.check_lead_only_file(req, state, target)
            or codex.check_write(req, state, target)
            or member.check_write(req, state, target)
            or role.check_write(req, state, target)
            or autorun)


def _again(req, verdict):
    """An ask decided earlier, returned after other checks ran: its step closes the trace."""
    req.step(verdict.phase, "ask", verdict.code, verdict.message)
    return verdict


#: The validator's reasons that name a write to the permission surface or to a file that
#: runs later: PreToolUse asks for them too (GW838).
_SURFACE_WRITES = frozenset(("GW504", "GW741", "GW763", "GW765"))


def _registration(req, state, command, record=False):
    """A `gateway breezing register ...` command (rules/workflow.yaml `registers`): its
    deny (the same checks as a role marker Write), True when it may register, None when the
    command is no registration."""
    if "register" not in command:
        return None
    from gateway.effects import workflowcmd

    got = workflowcmd.of_command(command, req.policy)
    if got is None or not got.spec.registers or got.help:
        return None
    verdict = role.register_command(req, state, got, record=record,
                                    assign_only=req.assign_only)
    return verdict if verdict is not None else True


def record_command(payload, env=None, *, judge):
    """PostToolUse of a Bash call: a registration command that ran registers the caller (with
    every check again, on the state as it is now); a Lead's breezing step that ran records
    the caller as the Lead (gateway.guards.role.record_lead). None when the command is
    neither; else a verdict (DENY: not registered, with the reason; GW800: done)."""
    req = None
    try:
        req = Request(payload, env, judge=judge)
        command = req.input_dict().get("command")
        if not isinstance(command, str) or "gateway" not in command:
            return None
        from gateway.effects import workflowcmd

        got = workflowcmd.of_command(command, req.policy)
        if got is None:
            return None
        state = load_state(req)
        if got.spec.registers and not got.help:
            if state.phase is not None and state.phase.phase == "B" and \
                    role.is_the_lead(req, state):
                req.assign_only = True
            verdict = role.register_command(req, state, got, record=True,
                                            assign_only=req.assign_only)
            verdict = verdict or req.passed("registered")
            verdict.command = command
            return verdict
        if got.state_op and got.label in role.LEAD_STEPS:
            return role.record_lead(req, state) or req.passed("the Lead is recorded")
        return None
    except GuardError as exc:
        return Verdict(DENY, exc.phase, exc.code, exc.rule, exc.message)
    except Exception as exc:  # never raise from a hook
        return Verdict(DENY, "guard:error", "GW893", "", f"{type(exc).__name__}: {exc}")


def _bash(req, state):
    from gateway.tools.gitquery import session

    # the validator judges the command twice (exposure, then the mode's early allow): what
    # git said about the repository is asked once (tools/gitquery.py)
    with session():
        return _bash_judged(req, state)


def _bash_judged(req, state):
    import os

    from gateway.effects.analysis import analyze

    command = req.input_dict().get("command")
    if not isinstance(command, str):
        raise GuardError("GW892", "Bash: tool_input.command is missing or not a string",
                         "guard:input")
    req.subject = command
    policy = req.policy
    from gateway import settings as settings_mod

    settings = settings_mod.load(req.project, req.env)
    # the validator as PermissionRequest runs it (deny rules, the mode): its allow is the
    # early allow, and an allow there means every file the command reads is known and none
    # is a secret; anything else is judged again for reads alone (exposure). So an allowed
    # command is judged once.
    core = req.judge.judge_bash(command, req.cwd, req.project, "Bash", env=req.env,
                              policy=policy, settings=settings, mode=req.permission_mode)
    if core.decision is DENY:
        return req.deny("guard:core", core.code, core.message, rule=core.rule)
    if not os.path.isdir(req.cwd):
        # relative paths would be placed in a directory that does not exist (the shell is
        # somewhere else): nothing the command reads can be proven free of secrets
        return req.ask("guard:input", "GW904", f"the working directory {req.cwd!r} is not "
                       "an existing directory: what the command reads cannot be placed")
    exposure = core
    if core.decision is not ALLOW and core.code not in _ERRORS:
        exposure = req.judge.judge_bash(command, req.cwd, req.project, "Bash", env=req.env,
                                      policy=policy, settings=settings, exposure=True)
        if exposure.decision is DENY:  # the same deny rules: never reached, kept for safety
            return req.deny("guard:core", exposure.code, exposure.message,
                            rule=exposure.rule)
    if core.code in _ERRORS or exposure.code in _ERRORS:
        # the deny rules could not run: whether it is catastrophic is unknown
        bad = core if core.code in _ERRORS else exposure
        return req.deny("guard:error", "GW893", f"the validator could not judge the command "
                        f"({bad.code}: {bad.message}); the call is refused")
    req.step("guard:core", "pass", core.code, "validator's deny rules: none; "
             + ("every file it reads is known, no secret among them"
                if exposure.decision is ALLOW
                else f"it may read a secret ({exposure.code}: {exposure.message})"))
    from gateway import usershell

    # the client's zsh: its clobbering redirections write the file bash would not (`>!`)
    effects = analyze(usershell.as_bash(command) if usershell.is_zsh(req.env) else command,
                      req.cwd, policy=policy)
    surface = files.Surface(req.roots, policy, req.env)
    autorun = None
    tree_ask = None
    from gateway.effects import writejudge

    for f in writejudge.findings(effects, surface, req.cwd, req.project):
        w, p, hit = f.write, f.path, f.hit
        where = ("in a directory that cannot be known, which may be " if f.unknown_dir
                 else "")
        if f.kind == writejudge.ASKED:
            if autorun is None:
                autorun = req.ask("guard:files", hit[0], f"{w.via} writes {w.target!r} "
                                  + where + f"({p}): {hit[2]} ({hit[1]})",
                                  rule=f"{'autorun' if hit[0] == files.AUTORUN_CODE else 'protected'}:{hit[1]}")
        elif f.kind == writejudge.ASKED_BELOW:
            if autorun is None:
                autorun = req.ask("guard:files", hit[0], f"{w.via} writes {w.target!r} "
                                  f"({p}), which holds {hit[1]}: {hit[2]}",
                                  rule=f"protected:{hit[1]}")
        elif f.kind == writejudge.FILTERED:
            what = ("more than it can look at" if hit is files.UNKNOWN
                    else f"{hit[1]}: {hit[2]}")
            if tree_ask is None:
                tree_ask = req.ask("guard:files", "GW837", f"{w.via} changes files "
                                   f"below {w.target!r} ({p}) chosen by a filter "
                                   f"the gateway does not reproduce, and the tree "
                                   f"holds a protected path ({what}) [{hit[0] or 'GW832'}]",
                                   rule=f"protected-below:{hit[1] or p}")
        else:
            code, rule, what = hit
            return req.deny("guard:files", "GW835", f"{w.via} writes {w.target!r} "
                            + where + f"({p}): {what} ({rule}) [{code}]",
                            rule=f"protected:{rule}")
    if effects.surface_ops:
        return req.deny("guard:files", "GW835", effects.surface_ops[0],
                        rule="protected:settings")
    req.step("guard:files", "pass", "", f"{len(effects.writes)} named write(s), none protected"
             + ("" if effects.readonly else "; not read-only: " + "; ".join(
                 effects.reasons()[:2])))
    registration = _registration(req, state, command)
    if registration is not None and registration is not True:
        return registration
    verdict = (role.check_gateway_ops(req, state, effects)
               or codex.check_bash(req, state, effects)
               or member.check_bash(req, state, effects, registration is True)
               or role.check_bash(req, state, effects))
    if verdict is not None:
        return verdict
    if autorun is not None:
        return _again(req, autorun)
    from gateway import memory

    why = memory.bash_concern(effects, command, req.roots, policy,
                              os.path.normpath(os.path.expanduser("~")), req.env)
    if why is not None:
        return req.ask("guard:files", "GW850", f"Bash: {why}", rule="memory:import")
    if tree_ask is not None:
        return tree_ask
    surface_write = next((v for v in (core, exposure) if v.code in _SURFACE_WRITES), None)
    if surface_write is not None:
        # the catalogue knows a write the analyzer does not name (an option's output file, a
        # side output, archive members): never without a human, whatever the client's mode.
        # The exposure pass sees it when the mode's verdict stopped at another reason first
        # (`tar -C ~ -xf x.tar`: '~' is outside the project; its members write
        # ~/.claude/settings.json)
        return req.ask("guard:files", "GW838", f"the command writes a protected path "
                       f"({surface_write.code}: {surface_write.message})",
                       rule=surface_write.rule or surface_write.code)
    # the client's Bash sandbox (gateway.sandbox.decide): reads the OS hides are left to it;
    # what its auto-allow would run with no dialog and the OS does not stop is asked here
    from gateway.sandbox.decide import Floor

    floor = Floor(req, settings, command)
    if exposure.decision is not ALLOW:
        if exposure.code == "GW505":
            # URLs are network (gateway.validator.network): a host the user has not allowed
            return req.ask("guard:network", "GW851", exposure.message, rule=exposure.rule)
        verdict = floor.exposure(exposure)
        if verdict is not None:
            return verdict
    return reads.early_allow(req, core) or floor.auto_allow(core, effects) or req.passed()
