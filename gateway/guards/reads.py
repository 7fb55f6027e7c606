"""Reads of secrets, for every tool: the PreToolUse "ask" (and the early allow).

Claude Code runs read-only commands and reads inside the project by itself: PermissionRequest
never fires for them, and a PreToolUse "no decision" lets them run (`cat .env` reached the
model in every permission mode). So every read of a secret gets its answer here, where the
client cannot skip it: **ask** (the dialog in an interactive session, a refusal in `-p`).

* GW841  Read (or an MCP tool) reads a secret file by name;
* GW842  Grep (or an MCP search) walks a tree with a secret in it;
* Bash   the validator's exposure judgement (gateway.validator.pipeline, exposure=True):
         GW503/GW506 when a secret is read for certain, GW840 when what the command reads
         cannot be known (an unknown program, code on the command line, an expansion).

Glob lists names, never contents: it is not a read of a secret and gets no answer here.

Early allow (on unless `GATEWAY_EARLY_ALLOW=0` in the hook's environment, which
`gateway install --no-early-allow` writes into the hook command): a Bash command the validator
allows, under the payload's permission mode, is allowed here already. That works where
PermissionRequest allows never take effect (auto mode) and closes no dialog after it was
drawn (it is on screen 0.3-0.5 s otherwise); the client still applies the user's
permissions.ask and permissions.deny after it. Not in dontAsk mode, where the user asked
that only their own rules let anything run (docs/client-behaviour.md).
"""

import os

from gateway.decision import ALLOW

#: Codes of a read of a secret that is certain (not merely possible).
CERTAIN = frozenset(("GW503", "GW506", "GW510", "GW742"))
#: Codes the PreToolUse hook gives as they are (not as GW840): a file not scanned in time.
OWN = frozenset(("GW511",))
#: The directories the Grep tool never searches (its ripgrep call: --glob !.git ...).
GREP_VCS_DIRS = (".git", ".svn", ".hg", ".bzr", ".jj", ".sl")
_PATH_KEYS = ("path", "file", "filename", "dir", "directory", "source", "uri", "root")
#: Words of an MCP tool's name that say it reads contents (of a file, or of a whole tree).
_MCP_READ_WORDS = frozenset(("read", "get", "cat", "view", "open", "show", "fetch", "load",
                             "dump", "export", "search", "grep", "find", "tree", "walk",
                             "content", "contents", "multiple", "query", "head", "tail"))


#: Modes in which the gateway never allows early: in dontAsk the user has said "run only what
#: my rules pre-approve"; a PreToolUse allow would run the call anyway (measured, 2.1.330).
NO_EARLY_ALLOW = frozenset(("dontAsk",))


def early_allow_enabled(env) -> bool:
    value = (env.get("GATEWAY_EARLY_ALLOW") or "").strip().lower()
    return value not in ("0", "off", "false", "no")


def bash_exposure(req, core):
    """The ask for a Bash command the validator's exposure judgement did not clear."""
    if core.code in CERTAIN:
        return req.ask("guard:reads", core.code, f"the command reads a secret: "
                       f"{core.message}", rule=core.rule)
    if core.code in OWN:
        return req.ask("guard:reads", core.code, core.message, rule=core.rule)
    return req.ask("guard:reads", "GW840", f"{core.message} ({core.code}); "
                   + why_unknown(core.code), rule=core.rule)


def why_unknown(code) -> str:
    """Why the validator's reason `code` leaves what the command reads unknown: the tail
    of GW840, after the validator's own reason (issue 25: one sentence about reading a
    secret wrapped `git restore`'s discarded changes and `npx eslint`'s download alike)."""
    if code in _WHY:
        return _WHY[code]
    from gateway.codes import CODES

    phase = CODES.get(code, ("",))[0]
    if phase in ("S0", "1", "2", "3"):
        return ("the gateway does not model this shell form, so neither what it reads: it "
                "may read a secret")
    if phase == "4":
        return "code given on the command line may read any file, a secret among them"
    return ("the gateway judges this form no further, so it cannot rule out that it reads "
            "a secret")


_WHY = {
    "GW703": "a program the gateway does not know may read any file, a secret among them",
    "GW705": "a subcommand the catalogue does not know may read any file, a secret among them",
    "GW701": "the catalogue does not model what it reads, so it may read a secret",
    "GW764": "the packages' own code runs, and it may read any file, a secret among them",
    "GW715": "the arguments it is given are not known, so neither is what it reads: it may "
             "read a secret",
    "GW201": "the command that makes its arguments may read any file, and so may the result",
    "GW202": "the value is not known, so neither is what it reads: it may read a secret",
    "GW790": "curl sends what it reads to that host, and fetches from it: only a request to "
             "this machine's loopback is judged",
    "GW791": "the option may read files or send the request elsewhere: only the options "
             "the model knows are judged",
}


def early_allow(req, verdict):
    """An allow for a Bash command the validator allows under the payload's permission mode
    (`verdict`, judged as PermissionRequest judges it), when early allow is on; else None."""
    if not early_allow_enabled(req.env):
        return None
    if req.permission_mode in NO_EARLY_ALLOW:
        req.step("guard:allow", "pass", "", f"{req.permission_mode} mode: the client refuses "
                 "what no rule of the user's pre-approves, and a hook allow would run it: no "
                 "early allow")
        return None
    if verdict.decision is not ALLOW:
        req.step("guard:allow", "pass", verdict.code, f"the validator does not allow it "
                 f"({verdict.code}): the client's own flow decides")
        return None
    return req.allow("guard:allow", verdict.code, f"the validator allows it: "
                     f"{verdict.message}", rule=verdict.rule)


def check_tool(req):
    """The ask for a Read, Grep or MCP call that reads a secret, or None."""
    if req.tool == "Read":
        return _read(req)
    if req.tool == "Grep":
        return _grep(req)
    if req.tool.startswith("mcp__"):
        return _mcp(req)
    return None


def _target(req, raw):
    """(Target, the secret pattern it matches as written or really, or "")."""
    from gateway import paths
    from gateway.effects import files

    target = files.Target(raw, req.cwd, req.roots)
    for form in (target.lex, target.real):
        if isinstance(form, str) and (form.startswith(_PROCESS_PLACES) or
                                      form in ("/proc", "/dev/fd")):
            # /proc/self/cwd/.env resolves in the process that looks (`gateway serve`, not
            # the client): what it reaches for the tool cannot be known (red team rt26)
            return target, ("a path below /proc or /dev/fd: it reaches what the process "
                            "that opens it has, which the gateway cannot see")
    from gateway.ownpaths import credential_places

    for place in credential_places(req.env):
        if any(isinstance(f, str) and paths.is_within(f, place)
               for f in (target.lex, target.real)):
            return target, ("the gateway's own credential (the hook server's token, or an "
                            "install backup that holds it)")
    return target, paths.is_secret((target.lex, target.real), req.policy)


#: Places whose paths name another process's files and directories
_PROCESS_PLACES = ("/proc/", "/dev/fd/", "/dev/stdin", "/dev/stdout", "/dev/stderr")


def _read(req):
    raw = req.input_dict().get("file_path")
    if not isinstance(raw, str) or not raw.strip() or "\x00" in raw:
        return None  # the client refuses it; nothing is read
    from gateway.guards.context import check_path_length

    check_path_length(raw, "Read: tool_input.file_path")
    target, pat = _target(req, raw)
    if not pat:
        return _content(req, f"Read of {raw!r}", (target.real,))
    return req.ask("guard:reads", "GW841", f"Read of {raw!r}: a secret file ({pat})",
                   rule=f"secrets:{pat}")


def _content(req, what, real_paths):
    """The ask for files a tool reads whose content holds a credential (GW841) or could not
    be scanned in time (GW844), or None (gateway.secrets.content)."""
    from gateway.secrets import content, filecheck

    found = filecheck.check(real_paths, req.policy, req.env)
    if found is None:
        return None
    if found.kind == content.SECRET:
        return req.ask("guard:reads", "GW841", f"{what}: {found.path!r} holds a credential: "
                       f"{found.detail}. {content.HINT}", rule="secrets:content")
    return req.ask("guard:reads", "GW844", f"{what}: {found.path!r} could not be checked "
                   f"for credentials: {found.detail}", rule="secrets:content")


def _grep(req):
    """The Grep tool: ripgrep over `path` (default: the cwd) with --hidden, --no-follow and
    the VCS directories excluded. .gitignore is honoured by ripgrep, but not modelled here:
    every file the walk can reach counts. `glob` and `type` narrow the walk only where the
    model reproduces them exactly (plain base-name globs, the types of
    gateway.tools.recursive.RG_TYPES)."""
    ti = req.input_dict()
    raw = ti.get("path")
    if raw is None or raw == "":
        raw = req.cwd
    if not isinstance(raw, str) or "\x00" in raw:
        return None
    from gateway.guards.context import check_path_length
    from gateway.tools import recursive as walker

    check_path_length(raw, "Grep: tool_input.path")
    target, pat = _target(req, raw)
    if pat:
        return req.ask("guard:reads", "GW842", f"Grep searches {raw!r}, a secret file "
                       f"({pat})", rule=f"secrets:{pat}")
    if not os.path.isdir(target.real):
        if os.path.lexists(target.real):
            # a file (or what is not a directory): ripgrep prints its matching lines, so it
            # is read as the Read tool reads it (red team rt26: a settings file holding a
            # hook token came back in full)
            return _content(req, f"Grep searches {raw!r}", [target.real])
        return None
    include = _grep_include(ti.get("glob"), ti.get("type"))
    walk = walker.Walk([target.real], follow=False, hidden=True,
                       include=include or (), exclude_dir=GREP_VCS_DIRS)
    files = []
    found = walker.walk(target.real, walk, req.policy, [walker.WALK_LIMIT], files=files)
    if found is None:
        return _tree_content(req, f"Grep searches {raw!r}", files)
    kind, path = found
    if kind == "secret":
        from gateway import paths

        pat = paths.is_secret((path,), req.policy)
        return req.ask("guard:reads", "GW842", f"Grep searches {raw!r}, which holds the secret "
                       f"{path!r} ({pat})", rule=f"secrets:{pat}")
    return req.ask("guard:reads", "GW842", f"Grep searches {raw!r}, which cannot be proven "
                   f"free of secrets ({kind}: {path!r})", rule="secrets:walk")


def _tree_content(req, what, files):
    """The ask for a tree whose files hold a credential by content (GW842) or could not be
    scanned in time (GW844), or None."""
    from gateway.tools.recursive import content_secrets

    secrets, unscanned = content_secrets(files, req.policy, req.env)
    if secrets:
        path, detail = secrets[0]
        return req.ask("guard:reads", "GW842", f"{what}, which holds {path!r}: it holds a "
                       f"credential ({detail})", rule="secrets:content")
    if unscanned is not None:
        return req.ask("guard:reads", "GW844", f"{what}, which holds {unscanned.path!r}: it "
                       f"could not be checked for credentials ({unscanned.detail})",
                       rule="secrets:content")
    return None


def _grep_include(glob, type_):
    """Base-name globs the search is limited to, or None when it reads every file."""
    globs = []
    if isinstance(glob, str) and glob.strip():
        for g in glob.split():
            for part in (g.split(",") if "{" not in g else [g]):
                if not part:
                    continue
                if any(c in part for c in "/{}!") or "**" in part or "\\" in part:
                    return None  # a path glob, alternatives or a negation: not modelled
                globs.append(part)
    elif glob not in (None, ""):
        return None
    if isinstance(type_, str) and type_:
        from gateway.tools.recursive import RG_TYPES

        types = RG_TYPES.get(type_)
        if types is None:
            return None
        # --glob and --type both apply: a file must pass both
        if globs:
            return None  # an intersection is not modelled: every file counts
        globs = list(types)
    elif type_ not in (None, ""):
        return None
    return globs or None


def _mcp(req):
    """An MCP tool that reads: a path argument naming a secret asks; a directory holding
    one asks when the tool's name says it reads contents or searches."""
    from gateway.guards import role

    words = role.tool_words(req.tool)
    if words & role.FILE_VERBS:
        return None  # a writing tool: the surface checks judge it
    reads_contents = bool(words & _MCP_READ_WORDS)
    from gateway.tools import recursive as walker

    for raw in role.tool_paths(req.tool_input):
        if raw == role.UNJUDGED or "\x00" in raw or len(raw) > 4096:
            return req.ask("guard:reads", "GW841", f"{req.tool}: a path argument cannot be "
                           "judged (too long, a NUL, or past the limits of the input)",
                           rule="secrets:input")
        target, pat = _target(req, raw)
        if pat:
            return req.ask("guard:reads", "GW841", f"{req.tool} reads {raw!r}: a secret file "
                           f"({pat})", rule=f"secrets:{pat}")
        if not reads_contents:
            continue
        found = _content(req, f"{req.tool} reads {raw!r}", (target.real,))
        if found is not None:
            return found
        if not os.path.isdir(target.real):
            continue
        walk = walker.Walk([target.real], follow=False, hidden=True)
        files = []
        found = walker.walk(target.real, walk, req.policy, [walker.WALK_LIMIT], files=files)
        if found is None:
            verdict = _tree_content(req, f"{req.tool} reads {raw!r}", files)
            if verdict is not None:
                return verdict
        if found is not None:
            return req.ask("guard:reads", "GW842", f"{req.tool} reads {raw!r}, which holds "
                           f"{'the secret ' if found[0] == 'secret' else 'what cannot be checked: '}"
                           f"{found[1]!r}", rule="secrets:walk")
    return None
