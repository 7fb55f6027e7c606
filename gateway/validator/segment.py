"""One segment (a simple command) through phases 4 to 7.

7A resolves the command word; an interpreter goes through phase 4 (flags), 5 (the script's
path) and 6 (containment); a program run by path inside the project goes to phase 6; `cd`
is judged as a change of directory; everything else goes through 7B (ALWAYS_ASK and the
user's settings rules), 7B2 (subcommand_ask), 7C (the catalogue), 5 (paths) and 7D.
"""

import os
import posixpath

from gateway.decision import ALLOW, ASK, strictest
from gateway.paths import resolve
from gateway.shell.parse import Command
from gateway.shell.words import PARAM, TILDE, Word
from gateway.validator import (
    globs,
    phase4_flags,
    phase5_paths,
    phase5_recursive,
    phase6_containment,
    phase7a_command,
    phase7b2_subcommands,
    phase7b_always_ask,
    phase7c_arguments,
    phase7d_containment,
)

_MAX_WRAPPER_DEPTH = 8


def judge(ctx, cmd, cwd):
    """Judge a parsed simple command in directory `cwd`. Returns a Verdict. Globs and braces
    in the arguments are expanded where the segment runs (gateway.validator.globs): every
    variant bash may pass is judged, the strictest verdict stands. Assignments before it
    that are the tool's configuration (rules: command_env) are judged by its check as part
    of its environment."""
    if cmd.assignments:
        given = _command_env(ctx, cmd)
        if given:
            return _judge_with_env(ctx, cmd, cwd, given)
    return _judge(ctx, cmd, cwd)


class _ReadEnv(dict):
    """The environment a command runs in with the assignments before it: remembers which
    names the checks looked up."""

    def __init__(self, base, given):
        super().__init__(base)
        self.update(given)
        self.given = dict(given)
        self.read = set()

    def get(self, key, default=None):
        self.read.add(key)
        return super().get(key, default)

    def __getitem__(self, key):
        self.read.add(key)
        return super().__getitem__(key)

    def __contains__(self, key):
        self.read.add(key)
        return super().__contains__(key)


def _command_env(ctx, cmd):
    from gateway.validator.phase2_syntax import command_env

    pairs = [command_env(ctx, a) for a in cmd.assignments]
    return dict(p for p in pairs if p is not None)


def _judge_with_env(ctx, cmd, cwd, given):
    """`NAME=value tool ...` with NAME in rules' command_env: `tool ...` judged with NAME=value
    in its environment; a check that never reads NAME did not judge it: ask (GW211)."""
    env = _ReadEnv(ctx.env, given)
    saved = ctx.env, ctx.roots.env
    ctx.env = ctx.roots.env = env
    try:
        verdict = _judge(ctx, cmd, cwd)
    finally:
        ctx.env, ctx.roots.env = saved
    if verdict.decision is not ALLOW:
        return verdict
    unread = [n for n in given if n not in env.read]
    if unread:
        name = unread[0]
        return ctx.ask("2", "GW211", f"variable assignment {name}={given[name]!r}: "
                       f"{cmd.words[0].value if cmd.words else 'the command'} is not a tool "
                       f"whose check reads {name}, so its value is not judged (it reaches "
                       "every program the command runs)", rule="command_env")
    ctx.step("2", "info", "", "the variables before the command were judged as its "
             f"configuration: {', '.join(sorted(given))}")
    return verdict


def _judge(ctx, cmd, cwd):
    if any(k == PARAM for w in cmd.words[1:] for k, _ in w.issues):
        from gateway.validator import textparams

        words = []
        for k, w in enumerate(cmd.words):
            if k and any(kind == PARAM for kind, _ in w.issues) and not \
                    textparams.only_text(w) and textparams.public_data(ctx, cmd, k, w):
                text = textparams.data_value(ctx, w, ctx.home)
                if text is None:
                    return ctx.ask("2", "GW202", f"parameter expansion in {w.raw!r}: its "
                                   "value may become a glob, which lists file names")
                ctx.step("2", "info", "", f"{w.raw!r} is a public name, only printed: "
                         f"{text!r}")
                w = Word(w.raw, text, True, [])
            elif any(kind == PARAM for kind, _ in w.issues) and textparams.only_text(w):
                text = textparams.value(w, ctx.home, cwd, ctx.env)
                if text is None:
                    return ctx.ask("2", "GW202", f"parameter expansion in {w.raw!r}: it may "
                                   "become several words or a glob")
                ctx.step("2", "info", "", f"{w.raw!r} expands to {text!r}")
                w = Word(w.raw, text, True, [])
            words.append(w)
        cmd = Command(words, cmd.assignments, cmd.redirects, cmd.start, cmd.end, cmd.text)
    if ctx.exposure:
        argv = [_value(ctx, w) for w in cmd.words]
        inputs = [_value(ctx, r.target) for r in cmd.redirects
                  if r.op in ("<", "<>") and r.target is not None]
        redirects = ()
    else:
        argv = [w.value if w.literal else _cache_value(ctx, w) for w in cmd.words]
        inputs = None
        redirects = cmd.redirects
    if any(globs.expandable(w) for w in cmd.words):
        if getattr(ctx, "relied", None) is not None:
            from gateway.validator import state_model

            state_model.note_globs(ctx, [w for w in cmd.words if globs.expandable(w)], cwd)
        argvs, verdict = globs.variants(ctx, cmd.words, cwd, argv)
        if verdict is not None:
            return verdict
        verdict = strictest([judge_argv(ctx, a, cwd, cmd.text, redirects, inputs=inputs)
                             for a in argvs])
    else:
        verdict = judge_argv(ctx, argv, cwd, cmd.text, redirects, inputs=inputs)
    if ctx.exposure and verdict.decision is ASK:
        # a program the rules do not model: a secret it is given is read (the real reason),
        # else the user's permissions.allow rule may vouch for it
        from gateway.validator import vouched

        verdict = vouched.judge(ctx, cmd, argv, verdict, cwd) or verdict
    if verdict.decision is ALLOW and redirects:
        # acceptEdits: `> FILE` / `>> FILE` is an edit of FILE (gateway.validator.redirects)
        from gateway.validator import redirects as output

        written = output.judge(ctx, redirects, cwd)
        if written is not None:
            return written
    return verdict


def judge_shell_state(ctx, cmd, cwd):
    """The verdict for a command that changes only the shell (gateway.shell.shellstate),
    or None for any other command. As the last command of the line an assignment or export
    of literal values reaches no command (GW219) and `source FILE` runs FILE's code: the
    project's virtual environment's `activate` (GW306) or a contained script, judged as
    `bash FILE` is (GW600); before another command, a sourced file may change the shell
    that command runs in (GW307)."""
    from gateway.shell import shellstate

    state = shellstate.kind(cmd)
    if state is None:
        return None
    last = cmd is ctx.shell_last
    if state in (shellstate.ASSIGN, shellstate.EXPORT):
        if not last:
            return None  # phase 2 asked (GW211); `export -n`...: judged as a command
        return ctx.allow("2", "GW219", f"{cmd.text!r} is the last command of the "
                         "line: the variables it sets reach no command (the next Bash call "
                         "runs in a new shell)", rule="shell:last-assignment")
    argv = [w.value for w in cmd.words]
    verdict = _source(ctx, argv, cwd)
    if verdict.decision is ALLOW and not last and verdict.code != "GW306":
        # the project's venv activation (GW306) only puts its bin directory first on PATH,
        # and the commands after it are judged by their names as project_bin_dirs says:
        # `source .venv/bin/activate && pytest -q` is `.venv/bin/pytest -q`
        return ctx.ask("3", "GW307", f"{argv[0]} {argv[1]!r} runs in this shell and may "
                       "change it (directory, functions, aliases, variables) for the commands "
                       "after it, which are judged as if it had not run. What it sets lasts "
                       "only for this command line (each Bash call starts a new shell), so "
                       "it cannot be run on its own first; approve the line if you trust "
                       f"the file: {verdict.message}", rule=f"shell_builtins:{argv[0]}")
    return verdict


def _source(ctx, argv, cwd):
    """`source FILE [ARGS]` / `. FILE [ARGS]` on its own."""
    from gateway.shell import shellstate

    name, path = argv[0], argv[1]
    runs = ctx.ask("3", "GW304", f"{name} runs the code it is given",
                   rule=f"shell_builtins:{name}")
    if path.startswith("-"):
        return runs
    if "/" not in path:
        return ctx.ask("3", "GW304", f"{name} {path!r} is looked up in $PATH before the "
                       f"current directory; write ./{path} to name the project's file",
                       rule=f"shell_builtins:{name}")
    if shellstate.activation(path, ctx.policy.project_bin_dirs):
        res = resolve(path, cwd, ctx.roots)
        rel = res.lex[len(ctx.roots.project):].lstrip("/") \
            if res.lex.startswith(ctx.roots.project + "/") else ""
        if res.status == "symlink_out":
            return ctx.ask("5", "GW502", f"{path!r} leads outside the project through a "
                           f"symlink (to {res.real})")
        if res.status == "inside" and shellstate.activation(rel, ctx.policy.project_bin_dirs):
            if len(argv) == 2 and os.path.isfile(res.real) and not os.path.isdir(res.real):
                return ctx.allow("3", "GW306", f"{name} {path!r} activates the project's "
                                 "virtual environment (its programs are judged by their "
                                 "names, as project_bin_dirs says)",
                                 rule=f"project_bin_dirs:{posixpath.dirname(rel)}")
            if not os.path.isfile(res.real):
                return ctx.ask("3", "GW304", f"{path!r} is not a regular file: no virtual "
                               "environment to activate there", rule=f"shell_builtins:{name}")
    contained, res = phase6_containment.contained_dir(ctx, path, cwd)
    if contained is None and res.status == "inside":
        dirs = " or ".join(f"{d}/" for d in ctx.policy.containment_dirs)
        return ctx.ask("3", "GW304", f"{name} runs {path!r} in this shell, and it is not "
                       f"under the project's {dirs}", rule=f"shell_builtins:{name}")
    verdict = phase6_containment.run(ctx, path, cwd, name)
    if verdict.decision is ASK:
        return verdict
    return _script_args(ctx, argv[2:], cwd, []) or trusted(ctx, verdict)


def _value(ctx, word):
    """Exposure mode: the word's value with a known tilde expanded (phase 2 let no other
    expansion through; a glob or brace word is expanded by gateway.validator.globs)."""
    if word.literal or globs.expandable(word):
        return word.value
    from gateway.shell.words import expand_tilde

    value = expand_tilde(word, ctx.home)
    if value is None:  # phase 2 asks for every other expansion; never judge a guess
        raise ValueError(f"unexpanded word {word.raw!r} reached segment judging")
    return value


def _cache_value(ctx, word):
    """A word's value as bash passes it; a `~/` word below a dependency cache with the tilde
    expanded (phase 2 let it through: gateway.validator.caches)."""
    if not any(k == TILDE for k, _ in word.issues):
        return word.value
    from gateway.validator import caches

    value = caches.home_word(ctx, word)
    return word.value if value is None else value


def judge_argv(ctx, argv, cwd, text, redirects=(), depth=0, inputs=None):
    """The verdict for one command line `argv` run in `cwd`. When a check proved that it
    writes nothing (ctx.note_readonly) and it is allowed, the fact is recorded for plan mode
    (ctx.readonly_facts: the line as written and as resolved, `./mvnw -v` and `mvn -v`)."""
    outer = ctx.proves_readonly
    ctx.proves_readonly = False
    written = tuple(argv)
    try:
        verdict = _judge_argv(ctx, argv, cwd, text, redirects, depth, inputs)
        if verdict.decision is ALLOW and ctx.proves_readonly:
            ctx.readonly_facts.add((cwd, written))
        return verdict
    finally:
        ctx.proves_readonly = outer


def _judge_argv(ctx, argv, cwd, text, redirects=(), depth=0, inputs=None):
    # Input redirections read files: they are path arguments like any other.
    if inputs is None:
        inputs = [r.target.value for r in redirects
                  if r.op == "<" and r.target is not None and r.target.literal]
    # the command word as written (`/usr/bin/grep`, `rg`): a search probe runs that program
    ctx.command_word = argv[0]
    name = phase7a_command.resolve_name(ctx, argv, cwd)
    if name.verdict is not None:
        # case mismatch: still look for stricter answers behind the lower-case name
        if name.argv is not None and name.name in ctx.policy.always_ask:
            # exposure skips ALWAYS_ASK for a catalogued command: the case mismatch stands
            return phase7b_always_ask.run(ctx, name.name, name.argv, text) or name.verdict
        return name.verdict
    if name.direct is not None:
        from gateway.validator import built

        allow, ask = built.cargo(ctx, name.direct, cwd)
        if ask is not None:
            return ask
        if allow is not None:  # the workspace's binary: its arguments are its own
            return _script_args(ctx, argv[1:], cwd, inputs, containment=True) or allow
        verdict = phase6_containment.run(ctx, name.direct, cwd, "direct execution")
        if verdict.decision is ASK:
            return verdict
        return _script_args(ctx, argv[1:], cwd, inputs) or trusted(ctx, verdict)
    argv = name.argv
    lname = name.name
    wrapper = ctx.policy.wrappers.get(lname)
    if wrapper is not None:
        # the shell opens the line's input redirections before the wrapper runs: they are
        # read whatever the wrapper then runs (`nice cat < .env` reads .env)
        verdict = phase5_paths.run(ctx, inputs, cwd) if inputs else None
        return verdict or _wrapped(ctx, lname, argv, wrapper, cwd, text, depth, inputs)
    if lname in ctx.policy.shell_builtins:
        return ctx.ask("3", "GW304", f"{lname} runs the code it is given",
                       rule=f"shell_builtins:{lname}")
    interp = ctx.policy.interpreters.get(lname)
    if interp is not None:
        if lname in ctx.policy.always_ask:  # a layer may put an interpreter on the list
            verdict = phase7b_always_ask.run(ctx, lname, argv, text)
            if verdict is not None:  # (exposure skips the list for a catalogued command)
                return verdict
        return _interpreter(ctx, argv, interp, cwd, text, inputs, depth)
    if lname == "cd":
        return _cd(ctx, argv, cwd)
    if lname == "java" and len(argv) > 2 and argv[1] == "-jar":
        from gateway.validator import built

        allow, ask = built.java_jar(ctx, argv, cwd)
        if ask is not None:
            return ask
        if allow is not None:  # the project's artifact: its arguments are its own
            return _script_args(ctx, argv[3:], cwd, inputs, containment=True) or allow
    ctx.step("7A", "pass", "", f"command {lname!r}")
    verdict = phase7b_always_ask.run(ctx, lname, argv, text)
    if verdict is not None:
        return verdict
    ctx.step("7B", "pass", "", "not on ALWAYS_ASK; no settings rule names it")
    verdict = phase7b2_subcommands.run(ctx, lname, argv)
    if verdict is not None:
        return verdict
    ctx.step("7B2", "pass", "", "no subcommand_ask rule matches")
    args = phase7c_arguments.run(ctx, lname, argv, cwd)
    if args.verdict is not None:
        return args.verdict
    if lname in ctx.policy.remote_arguments or any(
            k.startswith(lname + " ") for k in ctx.policy.remote_arguments):
        # URLs are network: an explicit URL or remote to a host not allowed (network.py)
        from gateway.validator import network

        verdict = network.check(ctx, [lname] + list(argv[1:]))
        if verdict is not None:
            return verdict
    if lname == "git" and getattr(ctx, "relied", None) is not None:
        # where git finds its repository and configuration (state_model)
        from gateway.validator import state_model

        where = [cwd, args.cwd or cwd, os.path.realpath(args.cwd or cwd)]
        words = list(getattr(ctx, "git_globals", ()) or ())
        for k, w in enumerate(words):  # --git-dir / --work-tree name the repository too
            name, eq, value = w.partition("=")
            if name in ("--git-dir", "--work-tree"):
                value = value if eq else (words[k + 1] if k + 1 < len(words) else "")
                if value:
                    where.append(posixpath.normpath(os.path.join(args.cwd or cwd, value)))
        state_model.note_git(ctx, *dict.fromkeys(where))
    cands = args.candidates + inputs
    ctx.step("7C", "pass", "", f"{args.label}: {len(cands)} path candidate(s): "
             + ", ".join(repr(c) for c in cands[:8]) + (" ..." if len(cands) > 8 else ""))
    # the shell opens input redirections where it is, not where `git -C DIR` goes
    verdict = (phase5_paths.run(ctx, inputs, cwd)
               or phase5_paths.run(ctx, args.candidates, args.cwd, writes=args.writes,
                                names=args.names))
    if verdict is not None:
        return verdict
    ctx.step("5", "pass", "", "every path resolves inside the project")
    if args.walk is not None:
        verdict = phase5_recursive.run(ctx, args.walk, args.cwd)
        if verdict is not None:
            return verdict
        ctx.step("5", "pass", "", "no secret in the trees it reads: "
                 + ", ".join(repr(p) for p in args.walk.paths[:8]))
    if callable(args.inner):
        # what a check judges after the paths: a tree it walks, a side output
        verdict = args.inner()
        if verdict is not None:
            return verdict
    elif args.inner is not None:
        return _runs(ctx, args, cands, depth)
    return phase7d_containment.run(ctx, args.label, len(cands))


def _runs(ctx, args, cands, depth):
    """A command that runs another known command (`npx tsc`, `uv run pytest`, `poetry run
    mypy`, `yarn eslint`): the runner's own options passed; the command it runs is judged
    as itself, and decides."""
    inner, cwd, *plain = args.inner
    if depth >= _MAX_WRAPPER_DEPTH:
        return ctx.ask("7A", "GW706", f"{args.label} runs commands nested too deeply to judge")
    ctx.step("7C", "info", "", f"{args.label} runs {inner[0]!r}: judging it as that command")
    verdict = judge_argv(ctx, list(inner), cwd, " ".join(inner), (), depth + 1)
    if verdict.decision is not ALLOW:
        return verdict
    if plain and plain[0] and (cwd, tuple(inner)) in ctx.readonly_facts:
        # a runner that only runs the installed command (npx tsc): it writes what that
        # command writes, here nothing
        ctx.note_readonly()
    return ctx.allow("7D", verdict.code, f"{args.label} runs {inner[0]!r}, which is allowed: "
                     f"{verdict.message}", rule=verdict.rule or args.label)


def _wrapped(ctx, lname, argv, wrapper, cwd, text, depth, inputs=()):
    if lname == "command" and len(argv) > 2 and argv[1] in ("-v", "-V", "-pv", "-pV") and \
            lname not in ctx.policy.always_ask and not any(a.startswith("-")
                                                           for a in argv[2:]):
        # `command -v NAME` looks NAME up and prints what it is; nothing runs
        return ctx.allow("7A", "GW700", f"command {argv[1]} looks {', '.join(argv[2:])} up: "
                         "nothing runs", rule="wrappers:command:-v")
    if lname not in ctx.policy.always_ask:
        if lname == "xargs":
            from gateway.validator import xargs

            return xargs.judge(ctx, argv, cwd, depth, judge_argv, inputs)
        if wrapper.get("transparent"):
            from gateway.validator import wrapped

            return wrapped.judge(ctx, lname, argv, wrapper, cwd, depth, judge_argv, inputs)
    if lname in ctx.policy.always_ask:
        outer = ctx.ask("7B", "GW701", f"{lname} is on the ALWAYS_ASK list (it runs another "
                        "command)", rule=f"always_ask:{lname}")
    else:
        outer = ctx.ask("7A", "GW706", f"{lname} runs another command; the wrapper itself is "
                        "never auto-allowed", rule=f"wrappers:{lname}")
    inner = phase7a_command.peel_wrapper(argv, wrapper)
    if not inner or depth >= _MAX_WRAPPER_DEPTH:
        return outer
    ctx.step("7A", "info", "", f"{lname} runs {inner[0]!r}: judging it too")
    inner_verdict = judge_argv(ctx, inner, cwd, " ".join(inner), (), depth + 1)
    if inner_verdict.decision > outer.decision:
        return inner_verdict
    if inner_verdict.code in ("GW304", "GW701", "GW707", "GW708"):
        return inner_verdict  # the wrapped command's own reason is the more useful one
    return outer


def _interpreter(ctx, argv, interp, cwd, text, inputs, depth):
    verdict = phase7b_always_ask.settings(ctx, argv, text)
    if verdict is not None:
        return verdict
    if len(argv) == 2 and argv[1] in interp.info_flags:
        return ctx.allow("4", "GW700", f"{argv[0]} {argv[1]} prints its version or help and "
                         "runs no code", rule=f"interpreters:{interp.name}:{argv[1]}")
    norm = phase4_flags.run(ctx, argv, interp, cwd)
    if norm.verdict is not None:
        return norm.verdict
    if norm.module is not None:
        module, first = norm.module
        return judge_argv(ctx, [module] + argv[first:], cwd, text, (), depth + 1)
    script = argv[norm.script_index]
    tool = interp.entry_scripts.get(posixpath.basename(script)) if interp.entry_scripts \
        else None
    if tool is not None:  # `python manage.py check` is `django-admin check`
        from gateway.validator import entry_scripts

        return entry_scripts.judge(ctx, tool, script, argv[norm.script_index + 1:], cwd, text,
                                   depth, judge_argv)
    verdict = phase6_containment.run(ctx, script, cwd, argv[0])
    if verdict.decision is ASK:
        return verdict
    return _script_args(ctx, argv[norm.script_index + 1:], cwd, inputs) or trusted(ctx, verdict)


def trusted(ctx, verdict):
    """A contained script's allow (phase 6), when the script is code a human has seen: as
    the repository's HEAD commit holds it (gateway.validator.trusted_code); else the ask."""
    contained = ctx.__dict__.pop("contained", None)
    if contained is None or verdict.decision is not ALLOW:
        return verdict
    from gateway.validator import trusted_code

    script, res, d = contained
    return trusted_code.check(ctx, script, res, d) or verdict


def _script_args(ctx, args, cwd, inputs, containment=False):
    """A contained script's arguments belong to the script; only secrets among them (and
    input redirections, which the shell opens) stop the allow. `containment`: a path
    outside the project asks too (the project's built programs: gateway.validator.built)."""
    words = []
    for a in args:
        if not a.startswith("-"):
            words.append(a)
        elif "=" in a:
            words.append(a.split("=", 1)[1])  # --file=.env
        elif not a.startswith("--") and len(a) > 2:
            words.append(a[2:])  # -f.env
    verdict = phase5_paths.run(ctx, [w for w in words if w], cwd, containment=containment)
    if verdict is not None:
        return verdict
    if inputs:
        return phase5_paths.run(ctx, inputs, cwd)
    return None


def _cd(ctx, argv, cwd):
    args = [a for a in argv[1:] if a not in ("-P", "-L", "-e", "-@")]
    if args and args[0] == "--":
        args = args[1:]
    if len(args) != 1 or args[0] == "-":
        return ctx.ask("7C", "GW711", "cd without one directory goes home or back")
    if _searched_in_cdpath(args[0]):
        return ctx.ask("7C", "GW711", f"cd {args[0]!r} is searched in $CDPATH "
                       f"({os.environ['CDPATH']!r}) first; write ./{args[0]} to stay here")
    res = resolve(args[0], cwd, ctx.roots)
    if res.status != "inside" and not ctx.exposure:
        return ctx.ask("7C", "GW711", f"cd {args[0]!r} leaves the project ({res.real})")
    return ctx.allow("7D", "GW700", f"cd {args[0]!r} stays inside the project",
                     rule="cd")


def _searched_in_cdpath(arg) -> bool:
    """bash looks a relative cd target up in $CDPATH (which the agent's shell inherits)
    before the current directory, unless it starts with ./ or ../"""
    return bool(os.environ.get("CDPATH")) and not arg.startswith(("/", "./", "../")) \
        and arg not in (".", "..")


def cd_targets(ctx, cmd, cwd) -> list:
    """The directories a `cd` segment may move to (already judged inside), else [].

    bash's `cd` is logical by default (`a/link/..` is `a`) and physical with -P or when the
    logical path does not exist (`a/link/..` is the link target's parent): later segments
    are judged in both."""
    argv = [w.value for w in cmd.words]
    if not argv or argv[0] != "cd":
        return []
    args = [a for a in argv[1:] if a not in ("-P", "-L", "-e", "-@", "--")]
    if len(args) != 1 or not args[0]:
        return []
    res = resolve(args[0], cwd, ctx.roots)
    return list(dict.fromkeys((res.lex, res.real)))

