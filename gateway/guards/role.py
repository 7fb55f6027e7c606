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
  GW801); Bash only when it is read-only (gateway.effects.analysis, GW802).
* Implementer: writes only to paths its `owns` globs admit, plus its role marker (GW803);
  no git commit/push in any spelling (GW804).
* Reviewers and implementers may not start agents (Agent/Task, or `claude` from Bash, GW808):
  a subagent has its own agent_id, a new session its own session_id; neither would inherit
  the role (an unregistered session is taken for the Lead).
* Only the Lead changes the breezing state: breezing-active.json, `gateway breezing phase`,
  `gateway state clean`, `gateway hook` (GW807).
"""

from gateway.effects import files

PHASE = "guard:role"
SPAWN_TOOLS = ("Agent", "Task")


def check_spawn(req, state):
    role = state.role_name
    if req.tool in SPAWN_TOOLS and role in ("reviewer", "implementer"):
        return req.deny(PHASE, "GW808", f"a {role} may not start agents ({req.tool}): the new "
                        "agent would have its own identity and not inherit the role",
                        rule=f"role:{role}:spawn")
    return None


#: Words in an MCP tool's name that say it changes files (or runs code, for a reviewer).
FILE_VERBS = frozenset(("write", "edit", "create", "delete", "remove", "rm", "move", "mv",
                        "rename", "copy", "cp", "patch", "replace", "insert", "append", "save",
                        "mkdir", "touch", "truncate", "put", "upload", "overwrite", "modify",
                        "update", "set", "chmod", "unlink", "apply", "commit", "push",
                        # version control and formatters that rewrite the working tree
                        "checkout", "add", "reset", "restore", "stage", "revert", "merge",
                        "rebase", "pull", "clone", "format", "reformat", "download", "fix"))
RUN_VERBS = frozenset(("run", "exec", "execute", "shell", "command", "eval", "spawn", "bash",
                       "terminal", "script", "start", "kill", "install"))
_PATH_KEYS = ("path", "file", "filename", "source", "destination", "dest", "target", "dir",
              "directory", "from", "to", "uri", "notebook")


def tool_words(name):
    import re

    tail = name.split("__")[-1]
    tail = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", tail)
    words = {w for w in re.split(r"[^A-Za-z0-9]+", tail.lower()) if w}
    # a name in one token (writefile, deletepath): the verbs it starts with count too
    words |= {v for w in words for v in _PREFIX_VERBS if w.startswith(v) and w != v}
    return words


_PREFIX_VERBS = ("write", "edit", "create", "delete", "remove", "move", "rename", "copy",
                 "save", "upload", "download", "append", "overwrite", "modify", "update",
                 "insert", "replace", "patch", "mkdir", "unlink", "truncate")


#: What an MCP tool's input may hold before it is not judged (the paths past it are not seen).
_MCP_MAX_ITEMS = 64
_MCP_MAX_DEPTH = 4
#: Stands for a path argument that could not be judged (past a limit): refused by every check.
UNJUDGED = "\x00unjudged"


def _mcp_path(value):
    """A path as an MCP file server reads it: a `file:` URI decoded, a leading ~ expanded."""
    import os
    from urllib.parse import unquote

    v = value
    if v[:5].lower() == "file:":
        v = unquote(v[5:])
        if v.startswith("//"):
            v = v[2:]
            host, slash, rest = v.partition("/")
            v = "/" + rest if host in ("", "localhost") else "\x00" + v  # another host
    if v == "~" or v.startswith("~/"):
        home = os.path.normpath(os.path.expanduser("~"))
        if home.startswith("/"):
            v = home + v[1:]
    return v


def tool_paths(tool_input):
    """String values of an MCP tool's input that name files (keys like path, file_path,
    destination, ...; lists and objects up to four levels). `file:` URIs are decoded and ~
    expanded, as file servers do; past the limits (64 items, four levels) UNJUDGED is
    returned among the paths, and the checks refuse it."""
    out = []

    def visit(key, value, depth):
        k = key.lower() if isinstance(key, str) else ""
        if isinstance(value, str):
            if any(p in k for p in _PATH_KEYS) and value.strip():
                out.append(_mcp_path(value))
        elif isinstance(value, (list, dict)):
            items = list(value.items()) if isinstance(value, dict) else \
                [(key, v) for v in value]
            if depth >= _MCP_MAX_DEPTH or len(items) > _MCP_MAX_ITEMS:
                out.append(UNJUDGED)
                return
            for k2, v in items:
                visit(k2, v, depth + 1)

    if isinstance(tool_input, dict):
        visit("", tool_input, 0)
    return out


def check_mcp(req, state):
    """MCP tools (mcp__server__tool) that write files are file tools by another name: a
    reviewer may not use one that writes or runs anything (GW801), an implementer only on
    its own files (GW803)."""
    role = state.role_name
    if not req.tool.startswith("mcp__") or role not in ("reviewer", "implementer"):
        return None
    words = tool_words(req.tool)
    writes = bool(words & FILE_VERBS)
    if role == "reviewer":
        if writes or words & RUN_VERBS:
            return req.deny(PHASE, "GW801", f"a reviewer is read-only: {req.tool} may change "
                            "files or run commands", rule="role:reviewer:tool")
        return None
    if not writes:
        return None
    targets = tool_paths(req.tool_input)
    for raw in targets:
        if "\x00" in raw or len(raw) > 4096:
            return req.deny(PHASE, "GW803", f"{req.tool}: a path argument is not usable",
                            rule="role:implementer:tool")
        target = files.Target(raw, req.cwd, req.roots)
        if target.inside and files.owns_match(state.role.owns, target.rel_real, target.real) \
                and files.owns_match(state.role.owns, target.rel_lex, target.lex):
            continue
        return req.deny(PHASE, "GW803", f"this implementer {_owns_text(state.role.owns)}; "
                        f"{req.tool} writes {raw!r} (canonical {target.rel_real or target.real}"
                        "), which is not among its files", rule="role:implementer:tool")
        return None
    # a tool with a write word but no argument naming a file (an issue tracker's create_...)
    # is not taken for a file tool: the normal permission flow decides
    return None


def check_lead_only_file(req, state, target):
    if target.is_active_file and not is_the_lead(req, state):
        who = ("a subagent that only shares the Lead's session" if state.is_lead
               else state.role_name or "an unregistered subagent")
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
            what = _owns_text(owns)
            return req.deny(PHASE, "GW803", f"this implementer {what}; {target.raw!r} "
                            f"(canonical {target.rel_real or target.real}) is not among its "
                            "files. Ask the Lead to assign it", rule="role:implementer:owns")
        req.step(PHASE, "pass", "", f"implementer: owns {pat!r}")
        return None
    req.step(PHASE, "pass", "", f"{role or 'unregistered'}: no role restriction on writes")
    return None


def check_gateway_ops(req, state, effects):
    if is_the_lead(req, state):
        return None  # (a subagent that only shares the Lead's session_id is not)
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
        verdict = _implementer_bash_writes(req, state, effects)
        if verdict is not None:
            return verdict
        verdict = _implementer_runs_code(req, state, effects)
        if verdict is not None:
            return verdict
        req.step(PHASE, "pass", "", "implementer: no commit or push; every write it names is "
                 "among its files")
        return None
    req.step(PHASE, "pass", "", f"{role or 'unregistered'}: no role restriction on Bash")
    return None


def _owns_text(owns):
    return ("owns nothing yet (owns: [])" if not owns
            else "owns " + ", ".join(owns[:5]) + (" ..." if len(owns) > 5 else ""))


#: State files other roles read as the workflow's word (the review verdict, signals injected
#: into the Lead's prompt, the timeline, the Lead's and the gateway's files): not scratch.
_SHARED_STATE = ("breezing", "review", "gateway")


def _scratch_state(rel) -> bool:
    """A file directly in .claude/state/ that is the caller's scratch space or a role marker
    (a Bash write registers nothing), not one of the workflow's shared files."""
    import fnmatch

    from gateway.state.layout import ROLE_MARKER_GLOB

    prefix = files.STATE_REL + "/"
    if not rel.startswith(prefix) or "/" in rel[len(prefix):] or rel == prefix:
        return False
    name = rel[len(prefix):]
    if fnmatch.fnmatchcase(name, ROLE_MARKER_GLOB):
        return True
    return not name.lower().startswith(_SHARED_STATE) and not name.startswith(".")


def _implementer_bash_writes(req, state, effects):
    """GW803 for Bash: every write the analyzer names must be among the implementer's files
    (its owns, judged on the canonical path; a tree write needs the whole tree), or a scratch
    file in .claude/state/; a known writer whose target cannot be named is refused."""
    from gateway.paths import real

    owns = state.role.owns
    rule = "role:implementer:owns"

    def deny(why):
        return req.deny(PHASE, "GW803", f"this implementer {_owns_text(owns)}; {why}. Name "
                        "the files literally, or ask the Lead to assign them", rule=rule)

    if effects.unresolved:
        return deny(effects.unresolved[0])
    if effects.worktree:
        return deny(effects.worktree[0] + " (any of them may lie outside its owns)")
    roots = req.roots
    for w in effects.writes:
        if not w.paths:
            return deny(f"{w.via} writes {w.target!r} in a directory that cannot be known")
        for p in w.paths:
            for form in dict.fromkeys((p, real(p))):
                rel = files.rel_to(form, roots.project, roots.project_real)
                if rel is not None and not w.tree and _scratch_state(rel):
                    continue
                if rel is None:
                    ok = False
                elif w.tree:
                    ok = files.owns_tree(owns, rel, form)
                else:
                    ok = bool(files.owns_match(owns, rel, form))
                if not ok:
                    where = rel if rel is not None else form
                    return deny(f"{w.via} writes {w.target!r} ({where}"
                                + (" and everything below it" if w.tree else "")
                                + "), which is not among its files")
    return None


def _implementer_runs_code(req, state, effects):
    """GW852 (ask): code the analysis cannot follow -- a test runner, a build, a script, an
    interpreter -- may write any file and commit, whatever the implementer's own writes
    may; it runs unasked only where the implementer's ownership holds for all of it: owns
    that admit the whole project."""
    if not effects.unknown:
        return None
    roots = req.roots
    owns = state.role.owns
    if files.owns_tree(owns, "", roots.project):
        return None
    return req.ask(PHASE, "GW852", f"this implementer {_owns_text(owns)}, and the command "
                   f"runs code that may write any file or commit ({effects.unknown[0]}): "
                   "its ownership does not hold for what that code does. Approve it if it "
                   "only touches the implementer's files", rule="role:implementer:runs-code")


class _Refused(Exception):
    def __init__(self, code, message, rule):
        super().__init__(message)
        self.code = code
        self.message = message
        self.rule = rule


def _effective(roles, agent_id, session_id):
    for k in (agent_id, session_id):
        if k and k in roles:
            return roles[k]
    return None


#: The Lead's breezing steps after which the gateway knows which session is the Lead (the
#: PostToolUse hook records it): then a teammate that starts as a session of its own is not
#: taken for the Lead (gateway.guards.member).
LEAD_STEPS = ("gateway breezing start", "gateway breezing phase", "gateway resume",
              "gateway breezing batch", "gateway breezing review")


def record_lead(req, state):
    """Record the caller's session as the Lead's (no agent_id, the Lead by the rules now, not
    registered yet). Returns a deny verdict when the record cannot be written, else None."""
    from gateway.state import fast
    from gateway.state.store import StateError

    if req.agent_id or not req.session_id or not is_the_lead(req, state) or \
            state.role is not None:
        return None

    def apply(roles):
        if any(v.role == "lead" for v in roles.values()) or req.session_id in roles:
            return roles
        roles[req.session_id] = fast.role_entry("lead", (), None)
        return roles

    try:
        fast.update_session_roles(req.project, apply)
    except (StateError, ValueError) as exc:
        return req.deny("guard:state", "GW890", f"cannot record the Lead's session: {exc}")
    req.step(PHASE, "info", "", f"the Lead is session {req.session_id}")
    return None


def is_the_lead(req, state) -> bool:
    """The Lead itself: the main thread (registered as lead or unregistered), or a subagent
    registered as lead under its own agent_id -- not a subagent that only shares the Lead's
    session_id (the same test as the delegate guard's)."""
    return state.is_lead and not (req.agent_id and state.role_key != req.agent_id)


def bound_to_other(req, roles, name):
    """The keys of the registrations made from the role marker `name` by another identity
    than the caller."""
    key = req.agent_id or req.session_id
    return [k for k, e in roles.items() if e.marker == name and k != key]


def _plan(req, lead, roles, marker, name):
    """(key, new entry, what) for a role marker Write, judged on the registrations `roles`;
    raises _Refused. The same function runs before (dry run, early answer) and inside the
    file lock (the write)."""
    from gateway.state import fast

    rank = fast.ROLE_RANK
    key = req.agent_id or req.session_id
    others = bound_to_other(req, roles, name)
    if others:
        # the marker another identity registered from: the Lead assigns that identity its
        # role and owns through it (seed 001: owns "updated at first task claim with patterns
        # from Lead"); nobody else may touch another identity's registration
        if not lead:
            raise _Refused("GW806", f"{name} is the role marker of another registration "
                           f"({others[0]}); only the Lead assigns a role through it. Register "
                           "with a marker of your own (another breezing-role-*.json name)",
                           "role:register:other")
        if len(others) > 1:
            raise _Refused("GW806", f"{name} is bound to several registrations "
                           f"({', '.join(others[:3])}); the assignment would be ambiguous. "
                           "Run `gateway state clean` and have the teammates register again",
                           "role:register:other")
        if marker.role == "lead":
            raise _Refused("GW805", f"the Lead assigns teammates the implementer or reviewer "
                           f"role, not lead ({name} belongs to {others[0]})",
                           "role:escalation")
        cur = roles[others[0]]
        entry = fast.role_entry(marker.role, marker.owns, cur.agent_type, marker=name)
        return others[0], entry, (f"assign {others[0]} (registered from {name}) the role "
                                  f"{marker.role}")
    current = _effective(roles, req.agent_id, req.session_id)
    if current is not None and rank[marker.role] > rank[current.role]:
        raise _Refused("GW805", f"a registered {current.role} may not re-register as "
                       f"{marker.role} (no self-escalation)", "role:escalation")
    if req.agent_id and marker.role == "lead":
        # the Lead is the main thread (no agent_id); an unregistered subagent has no role
        # restrictions but is not the Lead (GW807), and must not make itself one
        raise _Refused("GW805", "a subagent (agent_id) may not register as lead: the Lead is "
                       "the main session; register as implementer or reviewer",
                       "role:escalation")
    if current is not None and current.role == "implementer" and marker.role == "implementer":
        from gateway.effects.files import owns_within

        wider = [g for g in marker.owns if not owns_within(g, current.owns)]
        if wider:
            have = ", ".join(current.owns[:5]) if current.owns else "nothing (owns: [])"
            raise _Refused("GW809", f"a registered implementer may keep or narrow its owns, not "
                           f"widen them: {wider[0]!r} is not inside what it owns ({have}). "
                           f"The Lead assigns owns by writing this implementer's role marker",
                           "role:escalation:owns")
    mine = roles.get(key)
    bound = mine.marker if mine is not None and mine.marker else name
    agent_type = req.agent_type if req.agent_type and len(req.agent_type) <= 256 else None
    if agent_type is None and mine is not None:
        agent_type = mine.agent_type
    where = "agent_id" if req.agent_id else "session_id"
    return key, fast.role_entry(marker.role, marker.owns, agent_type, marker=bound), \
        f"register {where} {key} as {marker.role}"


def register(req, state, target, record=True, assign_only=False):
    """The role-marker Write: validate, refuse escalation, record. Returns a deny verdict or
    None (the Write itself then gets no decision). `assign_only`: the Lead in delegate mode
    may only assign (write a marker another identity registered from)."""
    import posixpath

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
    return _register(req, state, marker, posixpath.basename(target.rel_real), record,
                     assign_only)


#: `gateway breezing register ROLE --name NAME`: the registration is bound to this marker name
#: (the name the Lead assigns owns through), as a role marker Write of the file would be.
def command_marker_name(req, got):
    """The role marker name a registration command stands for: ``--name`` (the last one),
    else one derived from the caller's identity."""
    import re

    names = got.values("--name")
    raw = names[-1] if names else f"{got.positionals()[0] if got.positionals() else 'x'}-" \
        f"{req.agent_id or req.session_id or 'unknown'}"
    return "breezing-role-" + re.sub(r"[^A-Za-z0-9_.-]", "_", raw)[:100] + ".json"


def register_command(req, state, got, record=False, assign_only=False):
    """`gateway breezing register ROLE [--owns GLOB]... [--name NAME]` (rules/workflow.yaml
    `registers`): judged exactly as the role marker Write of ``{"role": ROLE, "owns":
    [GLOB...]}`` to ``breezing-role-NAME.json`` would be. The channel the client does not
    refuse: a Bash command, where a Write into .claude/state/ is a sensitive-file refusal in
    print mode. Returns a deny verdict or None."""
    from gateway.state import fast

    pos = got.positionals()
    if len(pos) != 1:
        return req.deny(PHASE, "GW806", "gateway breezing register takes one role: "
                        "implementer, reviewer or lead", rule="role:register")
    try:
        marker = fast.check_role_marker({"role": pos[0], "owns": got.values("--owns")})
    except ValueError as exc:
        return req.deny(PHASE, "GW806", f"cannot register: {exc}", rule="role:register")
    return _register(req, state, marker, command_marker_name(req, got), record, assign_only)


def _register(req, state, marker, name, record, assign_only):
    from gateway.state import fast
    from gateway.state.store import StateError

    if not (req.agent_id or req.session_id):
        return req.deny(PHASE, "GW806", "cannot register a role: the call has neither an "
                        "agent_id nor a session_id", rule="role:register")
    lead = is_the_lead(req, state)

    def plan(roles):
        out = _plan(req, lead, roles, marker, name)
        if assign_only and out[0] == (req.agent_id or req.session_id):
            raise _Refused("GW820", f"delegate mode: the Lead writes a role marker only to "
                           f"assign a registered teammate its owns; no teammate registered "
                           f"from {name}", "delegate:Write")
        return out

    try:
        if not record:
            _key, _entry, what = plan(fast.load_session_roles(req.project))
            req.step(PHASE, "info", "", f"dry run: would {what}")
            return None
        done = []

        def apply(roles):
            key, entry, what = plan(roles)
            roles[key] = entry
            done.append(what)
            return roles

        fast.update_session_roles(req.project, apply)
    except _Refused as exc:
        phase = "guard:delegate" if exc.code == "GW820" else PHASE
        return req.deny(phase, exc.code, exc.message, rule=exc.rule)
    except ValueError as exc:
        return req.deny(PHASE, "GW806", f"cannot register this role: {exc}",
                        rule="role:register")
    except StateError as exc:
        return req.deny("guard:state", "GW890", f"cannot record the role registration: {exc}")
    req.step(PHASE, "info", "", "done: " + done[0] + (f" owning {', '.join(marker.owns[:5])}"
                                           if marker.owns else ""))
    return None
