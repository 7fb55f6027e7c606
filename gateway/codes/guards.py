"""The reason codes of the PreToolUse guards (gateway.guards), the PostToolUse spec task sync
and the errors every hook may give: GW8xx and GW9xx. Part of the table gateway.codes
assembles; the format of an entry, and the rules (never renumbered, never reused), are in
gateway/codes/__init__.py.
"""

GUARDS = {
    # --- Guards (PreToolUse) ----------------------------------------------------------------
    "GW800": ("guard", "ask", "no guard objects (no decision)",
              "No PreToolUse guard objects and nothing reads a secret. The hook prints nothing "
              "and Claude Code's own permission flow decides: its rules and mode, then the "
              "dialog and the PermissionRequest hook. That flow runs read-only commands and "
              "reads inside the project by itself (in acceptEdits also edits inside the "
              "project; in auto mode what its classifier approves).", "Read README.md"),
    "GW801": ("guard:role", "deny", "reviewer writes outside .claude/state/",
              "A session registered as reviewer is read-only: Write, Edit, MultiEdit and "
              "NotebookEdit are allowed only below the project's .claude/state/, judged on the "
              "canonical path (.. removed, symlinks resolved).",
              "Write .claude/state/../../src/x.ts   (as the reviewer)"),
    "GW802": ("guard:role", "deny", "reviewer runs a command that is not read-only",
              "A reviewer's Bash command must only read. It is parsed and every simple "
              "command classified: redirections to files, tee, sed -i, mv/cp/rm/mkdir/touch/"
              "ln/install/dd, mutating git subcommands, interpreters with inline code or "
              "scripts, unknown programs and anything that cannot be parsed count as writing.",
              "python3 -c \"open('x','w')\"   (as the reviewer)"),
    "GW803": ("guard:role", "deny", "implementer writes outside its owns globs",
              "An implementer writes only the files its owns globs admit (real glob semantics "
              "on the canonical project-relative path: src/auth/** does not admit src/authz/; "
              "owns: [] admits nothing) and its own role marker.",
              "Write src/authz/x.ts   (owns: [\"src/auth/**\"])"),
    "GW804": ("guard:role", "deny", "implementer commits or pushes",
              "Implementers do not commit or push; the Lead commits after review. Found in the "
              "parse in every spelling: /usr/bin/git commit, git -c a=b commit, command git "
              "push, git-commit, GIT COMMIT, git aliases (an unknown subcommand), commit-tree, "
              "merge, rebase, update-ref, submodule foreach.", "git -c a=b commit -m x"),
    "GW805": ("guard:role", "deny", "role self-escalation",
              "A role marker write asks for a role that ranks above the caller's current one "
              "(reviewer < implementer < lead). A registered identity can only keep its rank "
              "or move down; a subagent's current role includes the session's.",
              "Write .claude/state/breezing-role-x.json {\"role\": \"lead\"}   (as the reviewer)"),
    "GW806": ("guard:role", "deny", "role registration refused",
              "A role marker must be written whole with Write, as {\"role\": \"lead\"|"
              "\"implementer\"|\"reviewer\", \"owns\": [globs]} and nothing else, by a call that "
              "has an agent_id or a session_id. Edit cannot register; invalid JSON or extra "
              "fields are refused.", "Write .claude/state/breezing-role-x.json {\"role\": \"admin\"}"),
    "GW807": ("guard:role", "deny", "only the Lead changes the workflow state",
              "breezing-active.json and the workflow steps that change the state (the "
              "`gateway` subcommands with a state_op in rules/workflow.yaml: `breezing "
              "phase|start|review|batch|finish`, `resume --yes`, `state clean`, `hook`, ...) "
              "belong to the Lead (a session registered as lead, or the unregistered main "
              "thread). Reviewers, implementers and subagents may not use them.",
              "gateway state clean   (as an implementer)"),
    "GW808": ("guard:role", "deny", "reviewer or implementer starts an agent",
              "A reviewer or implementer may not use the Agent (Task) tool, nor start a "
              "Claude Code session from Bash (claude -p, npx @anthropic-ai/claude-code): the "
              "new agent would have its own identity, would not inherit the role, and an "
              "unregistered session is taken for the Lead.",
              "Agent {\"prompt\": ...}   (as the reviewer)"),
    "GW809": ("guard:role", "deny", "implementer widens its own owns",
              "A registered implementer re-registered (a role marker Write of its own) with an "
              "owns glob that is not provably inside the globs it already owns. It may keep or "
              "narrow them; the Lead assigns wider ones by writing the marker the implementer "
              "registered from.",
              "Write breezing-role-impl-1.json {\"role\": \"implementer\", \"owns\": "
              "[\"**\"]}   (owns: [\"src/auth/**\"])"),
    "GW810": ("guard:codex", "deny", "codex mode: write outside state and Markdown files",
              "While breezing-active.json has impl_mode \"codex\", Codex writes the code: every "
              "session may write only .claude/state/breezing*, .claude/state/review* and *.md "
              "files.", "Edit src/app.py   (impl_mode codex)"),
    "GW811": ("guard:codex", "deny", "codex mode: Bash writes",
              "While impl_mode is \"codex\", Bash may not write (redirections, tee, sed -i, awk "
              "-i inplace, mv/cp/rm/mkdir/touch/ln/install/dd, mutating git, interpreters, "
              "unknown programs), judged from the parse.", "echo x > src/a.py   (impl_mode codex)"),
    "GW812": ("guard:codex", "deny", "codex mode: write through a symlink",
              "In codex mode files are written only directly: a path with a symlink on the way "
              "is refused, even when its name is allowed.",
              "Write notes.md   (notes.md -> src/app.py, impl_mode codex)"),
    "GW813": ("guard:codex", "deny", "codex mode: switching impl_mode off",
              "A write or edit of breezing-active.json that would leave impl_mode other than "
              "\"codex\" (or the file unreadable) is refused. Codex mode ends with `gateway "
              "state clean`.", "Edit breezing-active.json: \"codex\" -> \"standard\""),
    "GW852": ("guard:role", "ask", "implementer runs code that may write outside its files",
              "An implementer's command runs code the gateway cannot follow -- a test runner "
              "(pytest), a build (make, cargo), a script, an interpreter -- which may write "
              "any file and commit, though the implementer's own writes and commits are "
              "limited (GW803, GW804). It runs without a dialog only when the implementer's "
              "owns admit the whole project; otherwise PreToolUse asks, and PermissionRequest "
              "gives no allow.",
              "pytest -q   (as an implementer that owns src/auth/**)"),
    "GW820": ("guard:delegate", "deny", "delegate mode: tool not allowed",
              "In delegate mode (permission_mode \"delegate\" from clients up to 2.1.45, or "
              "breezing Phase B recorded by `gateway breezing phase B`) the Lead may use only "
              "TaskCreate, TaskUpdate, TaskList, TaskGet and SendMessage (old clients also "
              "TeamCreate, TeamDelete, Task). In Phase B, `gateway breezing phase C` ends it.",
              "Write src/app.py   (the Lead in Phase B)"),
    "GW821": ("guard:member", "deny", "a team member without a role writes or runs",
              "Once a breezing team is initialised, a caller that is not the Lead and has no "
              "role of its own -- an unregistered subagent, a subagent that only shares the "
              "Lead's session, or an unregistered session while another session is the "
              "registered Lead (a teammate that started late) -- may only read, use the task "
              "and message tools and register: no file writes, no command that is not "
              "read-only, no agents. It never gets more than a registered role. Register with "
              "`gateway breezing register implementer|reviewer` (one Bash command); the Lead "
              "assigns the files.",
              "Write src/app.py   (a subagent of the breezing session with no role)"),
    "GW830": ("guard:files", "deny", "path escapes the project with ..",
              "A file tool's path uses .. and ends outside the project.",
              "Write {project}/../outside.txt"),
    "GW831": ("guard:files", "deny", "symlink escapes the project",
              "The path is inside the project as written, but a symlink on the way points "
              "outside it.", "Write link/x   (link -> /etc)"),
    "GW832": ("guard:files", "deny", "write to the permission surface",
              "The path is part of the agent's own permission surface: Claude Code settings "
              "and hook files, subagents, skills, commands and MCP server configuration "
              "(.mcp.json, ~/.claude.json), the gateway's rules, cache and audit log, anything "
              "under .git/ "
              "(hooks, config), .gitmodules (see protected_paths in the rules); outside the "
              "project too, any .claude/settings*.json, .claude/hooks/, .git/hooks/ and "
              ".git/config. No tool may write it, and no tree containing it may be removed "
              "or moved.",
              "Write .claude/settings.local.json"),
    "GW833": ("guard:files", "ask", "write to a secret",
              "The path is a secret by its name (gateway.secrets.names): an env file in any "
              "spelling (.env, .env.local, .env-prod, prod.env, env.local, .envrc; not "
              "templates such as .env.example), private keys (*.pem, *.key, *id_rsa*), .ssh/, "
              "credential and token files (see secrets in the rules). Writing, creating, "
              "copying over, changing the mode of or removing one asks, by any tool and in "
              "every mode: setting up your own .env (cp .env.example .env, echo 'DEBUG=1' >> "
              ".env, chmod 600 .env) is yours to approve, never refused. (Before issue 24 "
              "this code was a deny.)", "cp .env.example .env"),
    "GW834": ("guard:files", "deny", "write to a gateway-maintained state file",
              "breezing-session-roles.json and gateway-breezing-phase.json are written only by "
              "the gateway (role registration, `gateway breezing phase`, `gateway state "
              "clean`); a direct write would register a role without the escalation check. "
              "So are the team's stores: the workflow state .claude/state/gateway-workflow."
              "sqlite3 (and its journals), the Phase C records gateway-breezing-verify.json "
              "and gateway-breezing-finish.json, and the orchestrator store agent-coord/ "
              "(`gateway spec`, `gateway breezing verify|finish`, the orchestrator); "
              "`gateway state repair` fixes them.",
              "Write .claude/state/breezing-session-roles.json"),
    "GW835": ("guard:files", "deny", "Bash writes a protected path",
              "A Bash command writes (or removes a tree containing) a path of GW832-GW834, as "
              "found by the analyzer: redirections, tee, cp/mv/rm/ln/install/dd, sed -i, "
              "git config, git clean, gateway install... The bracket names the kind.",
              "cd .claude && rm settings.json"),
    "GW836": ("guard:files", "ask", "write to a file that runs code later",
              "The path is one whose content runs later without anyone reviewing it (the "
              "rules' autorun list): sitecustomize.py and usercustomize.py (Python imports "
              "them at every start), *.pth files in site-packages, shell start-up files in "
              "the home directory. Any tool, every permission mode: the client writes such a "
              "file in acceptEdits without a dialog, so the hook asks.",
              "echo 'import os' > .venv/lib/python3.12/site-packages/sitecustomize.py"),
    "GW837": ("guard:files", "ask", "a filtered write over a tree that holds a protected path",
              "The command changes or removes files below a directory, choosing them by a "
              "filter the gateway does not reproduce (find ... -delete, git clean, git "
              "restore, git checkout of a path), and a protected path (GW832-GW834) exists "
              "below that directory. Whether the filter reaches it is not certain, so the "
              "hook asks instead of denying. A tree write whose every protected pattern "
              "matches nothing on disk is no reason to ask; one that removes everything "
              "below (rm -r, mv) of a directory holding a protected file is denied (GW835). "
              "More than 5000 entries below the directory are not walked: asked.",
              "find . -name '*.pyc' -delete   (the project holds .claude/settings.json)"),
    "GW838": ("guard:files", "ask", "the catalogue says the command writes a protected path",
              "The validator, judging the command with the catalogue, found that it writes the "
              "permission surface or a file that runs later (GW504, GW741, GW763, GW765): an "
              "option that names an output file (pytest --junitxml=.git/hooks/pre-commit), a "
              "side output, members of an archive, a git operation that changes a protected "
              "file. PermissionRequest asks for it too, but the client may run a command "
              "without PermissionRequest (auto mode's classifier), so PreToolUse asks.",
              "pytest --junitxml=.git/hooks/pre-commit tests"),
    "GW839": ("guard:files", "ask", "write to the repository's own data or a plain git "
              "setting",
              "The command writes below .git/ where git keeps data, not code: the index, "
              "refs, objects, logs, lock files (rm .git/index.lock after a crashed git), or "
              "sets a plain value in git's configuration (git config user.name bob: the "
              "rules' plain_keys, values git never runs or follows to code). A human may "
              "approve it; .git/config with any other key, .git/hooks/, a submodule's or "
              "worktree's config and hooks stay denied (GW832/GW835).",
              "rm .git/index.lock"),
    "GW840": ("guard:reads", "ask", "what the command reads cannot be known",
              "The command may read a secret and the gateway cannot prove it does not: an "
              "unknown program, code given on the command line, an expansion whose value is "
              "not known, an option the catalogue does not model. Claude Code would run some "
              "of these by itself (read-only forms, auto mode), so the hook asks. The message "
              "starts with the validator's own reason (its code in brackets), then says why "
              "that reason leaves the reads unknown (an unknown program or subcommand may read "
              "any file; a download runs the packages' code; a form the gateway judges no "
              "further, such as `git restore` without --staged). A program given "
              "a secret's name is a read of that secret (GW503: `base64 .env`); a program your "
              "own permissions.allow rule names is left to the client (GW716).",
              "python3 -c \"print(1)\""),
    "GW841": ("guard:reads", "ask", "a file tool reads a secret",
              "Read (or an MCP tool with a path argument) names a secret file, or one whose "
              "content holds a credential (detect-secrets, gateway.secrets.content): .env files, "
              "private keys, credential and token files, anything under .ssh/ or .aws/ (see "
              "secrets in the rules), as written or through a symlink. The client reads files "
              "inside the project without asking; the hook asks.", "Read .env"),
    "GW842": ("guard:reads", "ask", "a search walks into a secret",
              "Grep (ripgrep with --hidden, .git excluded) or an MCP search reads every file "
              "below its path; one of them is a secret, or the tree cannot be checked (too "
              "big, unreadable). .gitignore is not modelled: a secret git ignores is still "
              "counted. Narrow the search with a glob such as *.py or a type such as py.",
              "Grep KEY   (path: the project, which holds .env)"),
    "GW843": ("guard:files", "ask", "a symbolic link to a protected path",
              "The command makes symbolic links and nothing else, and one points to a "
              "protected path or a tree that holds one (ln -s ~ homelink: the home holds "
              "~/.claude/settings.json). Nothing is written through the link by this command, "
              "and every later write through it is judged at its real target, so a human may "
              "approve it. A command that also writes (ln -s ~ h && echo x > h/.bashrc) and "
              "a hard link to a protected file stay denied (GW835).", "ln -s ~ homelink"),
    "GW844": ("guard:reads", "ask", "a file tool reads a file that could not be checked",
              "Read (or an MCP tool that reads) a file whose name decides nothing and whose "
              "content could not be scanned in time: bigger than secrets.content.max_bytes, "
              "or the scanner was not done within secrets.content.timeout_ms (it goes on in "
              "the background; the same call a moment later finds its verdict). GW841 when "
              "the scanner found a credential.", "Read huge.log"),
    "GW850": ("guard:files", "ask", "a memory file gets an import of a secret or an outside file",
              "A Write, Edit or MultiEdit of a memory file (CLAUDE.md, CLAUDE.local.md, "
              ".claude/rules/*.md, ~/.claude/CLAUDE.md) adds an `@path` import of a secret or "
              "of a file outside the project; or a Bash command writes a memory file and "
              "what it writes is such an import or cannot be read off the command. The "
              "client loads the file and its imports into the model's context at every "
              "session start (no tool call, no hook sees it), so a human decides. The "
              "SessionStart hook warns about such imports already there.",
              "Edit CLAUDE.md adding '@.env'"),
    "GW851": ("guard:network", "ask", "a URL or remote to a host the user has not allowed",
              "A command hands a tool a URL or a remote (gh api http://HOST/..., npm view "
              "git+http://HOST/x or user/repo, pip download URL, go get HOST/x, git fetch "
              "host:path, --registry URL...) whose host the user has not allowed: the hosts of "
              "sandbox.network.allowedDomains and of WebFetch(domain:...) allow rules in "
              "Claude Code's settings, and the tool's own default service (rules' "
              "remote_arguments). Data in the URL reaches that host, so PreToolUse asks in "
              "every mode (the validator asks GW505).",
              "gh api 'http://example.com/?k=TOKEN'"),
    "GW860": ("guard:sandbox", "info", "the sandbox hides what the command could read",
              "The call runs in Claude Code's Bash sandbox, whose sandbox.filesystem.denyRead "
              "holds every secret path of the rules (gateway install writes them), and the "
              "project holds no secret the sandbox cannot hide (git history, credentials in "
              "git's configuration, a secret name no glob matches, an archive holding one). "
              "What the command reads is then left to the OS: the hook does not ask GW840, "
              "and the client's own flow decides, your permissions.allow rules included. A "
              "trace step, not a decision.", "tox -e py311   (sandboxed; Bash(tox:*) allowed)"),
    "GW861": ("guard:sandbox", "ask", "sandbox auto-allow would run an edit with no dialog",
              "sandbox.autoAllowBashIfSandboxed is on: Claude Code runs every sandboxed Bash "
              "call the PreToolUse hook leaves alone with no dialog and no PermissionRequest "
              "(measured: rm -rf src in default mode deleted src/). The sandbox stops nothing "
              "inside the project, so in default and dontAsk mode (and plan) the hook asks "
              "for a command that is not read-only, unless the validator allows it or one of "
              "your permissions.allow rules names it.", "touch notes.txt   (default mode)"),
    "GW862": ("guard:sandbox", "ask", "sandbox auto-allow would run a removal or an "
              "unknown program with no dialog",
              "sandbox.autoAllowBashIfSandboxed is on, and the command removes files, "
              "rewrites the working tree, changes the repository, commits or publishes, or "
              "runs a program whose writes the gateway cannot know. In acceptEdits and auto "
              "mode edits inside the project run anyway; these the sandbox does not stop "
              "either, so the hook asks, unless the validator allows the command or one of "
              "your permissions.allow rules names it.", "rm -rf src   (acceptEdits mode)"),
    "GW890": ("guard:state", "deny", "the breezing state cannot be read",
              "A state file the guards consult (breezing-session-roles.json, "
              "breezing-active.json, gateway-breezing-phase.json) is corrupt, not a regular "
              "file or locked, or .claude/state is a symbolic link or not a directory, or "
              "cannot be read; a role registration is also denied when its lock file is not a "
              "regular file or the directory cannot be written. The guards cannot decide, so "
              "they deny; the message names the path and the repair, which `gateway state "
              "validate` prints too (see docs/state.md).",
              ".claude/state/breezing-session-roles.json cut off half-way"),
    "GW891": ("guard:rules", "ask", "the rules cannot be loaded (guards)",
              "The protected paths, secrets and the catalogue come from the rules; when they "
              "cannot be loaded (a syntax error, a failing `examples:` entry, an unreadable "
              "file) nothing can be checked, so every call asks (the dialog; a refusal in -p) "
              "until they are fixed, and PermissionRequest allows nothing (GW901). While a "
              "team's roles or codex mode are in force, whose rules cannot be applied either, "
              "calls are denied. Run `gateway rules validate`; `gateway doctor` says the "
              "same.", ".claude/gateway.yaml with a syntax error"),
    "GW892": ("guard:input", "deny", "malformed PreToolUse input",
              "The hook input is not a JSON object of the expected shape (no tool_name, a "
              "Write without file_path, a Bash call without a command). The guards cannot "
              "decide, so they deny. The Gemini CLI adapter (`gateway adapter gemini`) "
              "denies an unreadable BeforeTool input the same way.", "garbage on stdin"),
    "GW893": ("guard:error", "deny", "internal error in the guards",
              "The guards (or an agent adapter such as `gateway adapter gemini`) failed. "
              "They never let a call through on an error; please report it with the input.",
              ""),
    # --- Spec task sync (PostToolUse) -----------------------------------------------------
    "GW950": ("spec-sync", "info", "spec task checked: its done step is due",
              "A Write, Edit or MultiEdit of a spec (.cc-craft-kit/specs/*.md, specs/*.md) "
              "checked a task of its task list (- [ ] → - [x]) whose issue is given (#123). "
              "The task's done step (seed 002's task/done: the issue goes to Done) is "
              "recorded as due in the workflow state, which the SessionStart restore names "
              "first after a compaction, and the model is told to run `gateway spec done N`.",
              "Edit specs/x.md: - [ ] add the table (#541) → - [x] add the table (#541)"),
    "GW951": ("spec-sync", "info", "spec task sync could not record",
              "A spec task was checked but the spec or the workflow state "
              "(.claude/state/gateway-workflow.sqlite3) could not be read or written, so the "
              "due done step was not recorded. The model is told to check the spec's done "
              "steps with `gateway spec status`; the message names the problem.",
              "a corrupt gateway-workflow.sqlite3"),
    "GW952": ("review", "info", "review verdict recorded",
              "A Write of .claude/state/review-result.json (or `gateway breezing review "
              "VERDICT`) recorded the Reviewer's verdict for the running breezing session: "
              "REQUEST_CHANGES counts a retake (review.retake_count of breezing-active.json) "
              "while fewer than max_retakes were made, beyond that the Lead escalates to the "
              "user; REJECT/STOP stop; APPROVE leads to Phase C. The same review seen twice "
              "counts once. The model is told the next step.",
              'Write .claude/state/review-result.json {"verdict": "REQUEST_CHANGES", ...}'),
    "GW953": ("review", "info", "review verdict not recorded",
              "review-result.json was written but the verdict could not be applied: the file "
              "or breezing-active.json cannot be read, or it names another breezing session. "
              "The model is told to record it with `gateway breezing review VERDICT`.",
              "review-result.json with another session_id"),
    # --- Errors -------------------------------------------------------------------------------
    "GW901": ("error", "ask", "rules cannot be loaded",
              "A rules file is missing, invalid or tries to loosen the policy from a project "
              "layer. Nothing is auto-allowed until it is fixed; run `gateway rules validate`.",
              ".claude/gateway.yaml with catalogue: {...}"),
    "GW902": ("error", "ask", "internal error",
              "gateway itself failed. It never allows on an error; please report it with the "
              "input.", ""),
    "GW903": ("error", "ask", "settings file unreadable",
              "A Claude Code settings file exists but cannot be read or parsed, so its "
              "permissions.ask / deny rules cannot be honoured.", ".claude/settings.json with a "
              "syntax error"),
    "GW904": ("error", "ask", "malformed hook input",
              "The hook's stdin is not a JSON object of the expected shape (not UTF-8, not "
              "JSON, wrong types).", "garbage on stdin"),
}
