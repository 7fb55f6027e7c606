"""Phase 7C: the catalogue entry's view of the arguments, and the path-like ones.

The command must be in the catalogue (unknown commands need the human); its subcommand
must be listed; no unsafe option may appear; named checks judge program texts and special
forms. What remains are the path candidates: positionals (unless the entry says they are
text), option values (unless they are text, like a commit message), values glued to
options (-C/tmp, --output=/x) and the value of every key=value argument (of=/dev/sda).
"""

import os

from gateway.paths import is_within, physical, real, resolve
from gateway.policy.invocation import invocation
from gateway.shell import argv as argvmod
from gateway.tools.recursive import pattern_given as _pattern_given
from gateway.validator import checks, phase5_recursive
from gateway.validator.checks._common import git_excludes

PHASE = "7C"
#: recursive kinds that print only matching lines (and options that keep it so)
_SEARCHES = ("grep", "rg", "git-grep")


class Arguments:
    """What phase 5 and 7D need: path candidates, the written ones, the directory they are
    relative to, and the entry that judged them."""

    __slots__ = ("candidates", "writes", "cwd", "label", "verdict", "walk", "names", "inner")

    def __init__(self, candidates=(), writes=(), cwd="", label="", verdict=None, walk=None,
                 names=(), inner=None):
        self.walk = walk  # phase5_recursive.Walk when the command reads whole trees
        # candidates that are looked at, not read (the positionals of `reads: names`
        # entries): a secret's name among them is no read of the secret
        self.names = frozenset(names)
        # (argv, cwd) of the command this one runs and that is judged as itself (`npx tsc`
        # is `tsc`, `uv run pytest` is `pytest`), or a callable judging what the check left
        # for after phase 5 (a tree it walks, a side output): a verdict or None; or None
        self.inner = inner
        self.candidates = list(candidates)
        self.writes = list(writes)
        self.cwd = cwd
        self.label = label
        self.verdict = verdict


def run(ctx, name, argv, cwd) -> Arguments:
    spec = ctx.policy.command(name)
    if spec is None:
        return Arguments(verdict=ctx.ask("7A", "GW703", f"{name} is not in the command "
                                         "catalogue", rule=f"catalogue:{name}"))
    words = argv[1:]
    if len(words) == 1 and words[0] in spec.info_flags:
        ctx.step(PHASE, "pass", "", f"{name} {words[0]}: prints its version or help")
        ctx.note_readonly()
        return Arguments([], [], cwd, f"catalogue:{name}")
    label = name
    global_paths = []
    # the tool's global options as written, for a check that reads one (flask --app)
    ctx.global_words = ()
    if spec.has_global:
        inv = invocation(spec, words)
        if inv.error:
            return Arguments(verdict=ctx.ask("7B2", "GW713", f"{name}: {inv.error}"))
        for value in inv.cwd_values:
            res = resolve(value, cwd, ctx.roots)
            if res.status != "inside":
                return Arguments(verdict=ctx.ask("5", "GW501", f"{name} works in {value!r}, "
                                                 "outside the project"))
            cwd = physical(value, cwd)  # git chdir()s: the kernel resolves it
        global_paths = inv.path_values
        if name == "git":
            # the global options choose the repository; git's own answers (checks/git.py)
            # are asked with the same ones
            ctx.git_globals = words[:len(words) - len(inv.words)]
            why = _foreign_repository(ctx, ctx.git_globals, cwd)
            if why:
                return Arguments(verdict=ctx.ask("7B2", "GW713", f"git: {why}; its "
                                                 "configuration (diff.external, "
                                                 "core.fsmonitor, aliases) can run programs",
                                                 rule="catalogue:git"))
        ctx.global_words = tuple(words[:len(words) - len(inv.words)])
        words = inv.words
    if (len(words) == 2 and words[1] in spec.subcommand_help and words[0]
            and not words[0].startswith("-")):
        # `git log --help` is `git help log`: git rewrites it before it looks the word up
        # (an alias is described, not run)
        ctx.step(PHASE, "pass", "", f"{label} {words[0]} {words[1]}: prints the help of "
                 f"{words[0]}")
        return Arguments(global_paths, [], cwd, f"catalogue:{label}")
    while spec.subcommands is not None:
        if words and not words[0].startswith("-"):
            sub = words[0]
            if sub in spec.subcommands:
                spec = spec.subcommands[sub]
                label = f"{label} {sub}"
                words = words[1:]
                continue
            if spec.fallback_subcommand is not None:
                label = f"{label} {spec.fallback_subcommand}"
                spec = spec.subcommands[spec.fallback_subcommand]
                break  # the word stays: it is the fallback's first argument
            if spec.default_subcommand is None or label != name:
                return Arguments(verdict=ctx.ask("7B2", "GW705", f"{label} {sub}: subcommand "
                                                 "not in the catalogue",
                                                 rule=f"catalogue:{label}"))
            return Arguments(verdict=ctx.ask("7B2", "GW705", f"{label} {sub}: subcommand not "
                                             "in the catalogue", rule=f"catalogue:{label}"))
        if spec.default_subcommand is not None:
            label = f"{label} {spec.default_subcommand}"
            spec = spec.subcommands[spec.default_subcommand]
            continue
        if spec.subcommand_required:
            return Arguments(verdict=ctx.ask("7B2", "GW705", f"{label} without one of its "
                                             "subcommands (" + ", ".join(list(spec.subcommands)[:6])
                                             + ")", rule=f"catalogue:{label}"))
        break
    rule = f"catalogue:{label}"
    if spec.response_files:
        for w in words:
            if w.startswith("@"):
                return Arguments(verdict=ctx.ask(PHASE, "GW704", f"{label} {w}: reads more "
                                                 "arguments from a file, where they cannot be "
                                                 "checked", rule=rule))
    if spec.config_flags:
        verdict = _config_from_stdin(ctx, label, spec, words, cwd, rule)
        if verdict is not None:
            return Arguments(verdict=verdict)
    if spec.check:
        result = checks.run(spec.check, ctx, spec, words, cwd)
        verdict, cands, writes = result[:3]
        inner = result[3] if len(result) > 3 else None
        if verdict is None and spec.edit and not ctx.exposure:
            from gateway.validator import modes

            if not modes.accepts_edits(ctx.mode):
                verdict = ctx.ask(PHASE, "GW721", f"{label} changes the files it names; in "
                                  f"{modes.normalize(ctx.mode)} mode edits are the human's "
                                  "(acceptEdits allows them inside the project)",
                                  rule=f"{rule}:edit")
        names = [c for c in cands if c not in writes] if spec.names_only else ()
        # a check may hand phase 5 the trees the command reads (tar -c, zip -r)
        walk = ctx.__dict__.pop("pending_walk", None)
        return Arguments(global_paths + cands, writes, cwd, rule, verdict, names=names,
                         walk=walk if verdict is None else None, inner=inner)
    args = argvmod.parse(words, spec.value_flags, spec.long_options, spec.optional_flags,
                         spec.options_first, spec.plus_commands)
    for opt in args.options:
        if opt.name == "+":
            return Arguments(verdict=ctx.ask(PHASE, "GW704", f"{label} {opt.word}: runs a "
                                             f"{label} command at start", rule=f"{rule}:+"))
    bad = argvmod.first_unsafe(args, spec.unsafe_flags,
                               words[:len(words) - len(args.positionals)]
                               if spec.options_first else words)
    if bad:
        return Arguments(verdict=ctx.ask(PHASE, "GW704", f"{label} {bad} is not a safe use "
                                         f"of {label}", rule=f"{rule}:{bad}"))
    written = []
    if spec.write_flags:
        for opt in args.options:
            if opt.name in spec.write_flags:
                if opt.value is not None:
                    written.append(opt.value)
            elif opt.name.startswith("--") and any(argvmod.long_matches(opt.name, w)
                                                   for w in spec.write_flags):
                return Arguments(verdict=ctx.ask(PHASE, "GW704", f"{label} {opt.name}: an "
                                                 "abbreviation of an option that writes a "
                                                 "file; spell it out", rule=rule))
    if spec.safe_flags is not None:
        for opt in args.options:
            if opt.name not in spec.safe_flags and not argvmod.abbreviates_only(
                    opt.name, spec.options, spec.safe_flags):
                why = "is not among its safe options"
                if opt.name.startswith("--") and spec.long_options:
                    hits = sorted(o for o in spec.long_options if o.startswith(opt.name))
                    if len(hits) > 1:
                        why = f"is ambiguous ({', '.join(hits[:4])})"
                return Arguments(verdict=ctx.ask(PHASE, "GW704", f"{label} {opt.name} {why}",
                                                 rule=rule))
    pos = args.positionals
    if spec.args == "none" and pos:
        return Arguments(verdict=ctx.ask(PHASE, "GW712", f"{label} takes no arguments here "
                                         f"(got {pos[0]!r})", rule=rule))
    if spec.max_positionals is not None and len(pos) > spec.max_positionals:
        return Arguments(verdict=ctx.ask(PHASE, "GW712", f"{label} takes at most "
                                         f"{spec.max_positionals} argument(s)", rule=rule))
    if spec.revision_paths:
        verdict = checks.revision_secret(ctx, label, list(pos) + args.values("-L"), cwd, rule)
        if verdict is not None:
            return Arguments(verdict=verdict)
    if spec.prints_contents:
        verdict = checks.tracked_secret(ctx, label, spec.prints_contents, words, cwd, rule)
        if verdict is not None:
            return Arguments(verdict=verdict)
    if spec.edit and not ctx.exposure:
        from gateway.validator import modes

        if not modes.accepts_edits(ctx.mode):
            return Arguments(verdict=ctx.ask(PHASE, "GW721", f"{label} changes the files it "
                                             f"names; in {modes.normalize(ctx.mode)} mode "
                                             "edits are the human's (acceptEdits allows them "
                                             "inside the project)", rule=f"{rule}:edit"))
    cands = list(global_paths)
    paths = []
    if spec.args == "paths":
        paths = list(pos)
    elif spec.args == "pattern_then_paths":
        # rg --files / --type-list take no pattern: every positional is a path
        no_pattern = spec.recursive == "rg" and args.has("--files", "--type-list")
        paths = list(pos if no_pattern or _pattern_given(args) else pos[1:])
    elif spec.args == "text_then_paths":
        paths = list(pos[1:])
    if name == "git":
        # an excluding pathspec (`:!config/.env`, `:(exclude)x`) names what is not read
        paths = [p for p in paths if not git_excludes(p)]
        pos = [p for p in pos if not git_excludes(p)]
    cands.extend(paths)
    walk = phase5_recursive.plan(spec.recursive, args, paths) if spec.recursive else None
    if walk is not None and spec.recursive in _SEARCHES:
        # a search prints only the lines that match: the secrets its walk reaches are
        # searched by the same program before they count as read (searchprobe.py)
        walk.search = phase5_recursive.Search(spec.recursive, getattr(ctx, "command_word",
                                                                      argv[0]),
                                              args, words, spec.value_flags)
    if spec.args != "text":
        for p in pos:
            if "=" in p and not p.startswith("="):
                cands.append(p.split("=", 1)[1])
    for opt in args.options:
        if opt.value is not None and opt.name not in spec.text_flags:
            cands.append(opt.value)
    cands.extend(args.attached)
    writes = ([p for p in paths] if spec.writes or spec.edit else []) + written
    if spec.into_directory:
        landed = _into_directory(paths, written, cwd)
        cands.extend(landed)
        writes.extend(landed)
    names = [p for p in paths if p not in args.values(*args_names(args))] \
        if spec.names_only else ()
    return Arguments(cands, writes, cwd, rule, walk=walk, names=names)


def args_names(args):
    """The option names present in `args` (for telling a positional from a value)."""
    return {o.name for o in args.options}


def _into_directory(paths, target_dirs, cwd) -> list:
    """Where cp/mv/ln put their sources: DIR/<base name> for -t DIR, or for the last operand
    when it is an existing directory (followed through links, as the tools do)."""
    if target_dirs:
        dirs, sources = list(target_dirs), list(paths)
    elif len(paths) >= 2 and os.path.isdir(os.path.join(cwd, paths[-1])):
        dirs, sources = [paths[-1]], list(paths[:-1])
    else:
        return []
    return [os.path.join(d, os.path.basename(s.rstrip("/")) or s)
            for d in dirs for s in sources if s.rstrip("/")]


def _foreign_repository(ctx, global_words, cwd) -> str:
    """Why git would use a repository other than the project's own, or "". A repository
    found inside the project (an embedded bare repository, which is ordinary tracked
    content, or a nested clone) brings its own configuration, which runs programs
    (`git -C vendor/x.git diff A B` with diff.external set). Submodules, whose .git file
    points into the project's .git/modules, are the project's."""
    root = ctx.roots.project_real
    own = real(os.path.join(root, ".git"))
    git_dirs = []
    for k, w in enumerate(global_words):
        if w == "--git-dir" and k + 1 < len(global_words):
            git_dirs.append(global_words[k + 1])
        elif w.startswith("--git-dir="):
            git_dirs.append(w.split("=", 1)[1])
    for v in git_dirs:
        target = physical(v, cwd)
        if not is_within(target, root):
            continue  # outside the project: phase 5 asks (GW501)
        if target != own and not is_within(target, os.path.join(own, "modules")):
            return f"--git-dir {v!r} is not the project's repository"
    if git_dirs:
        return ""
    d = real(cwd)
    while is_within(d, root):
        dotgit = os.path.join(d, ".git")
        if os.path.lexists(dotgit):
            if d == root:
                return ""
            target = real(dotgit)
            if os.path.isfile(dotgit):
                try:
                    with open(dotgit, encoding="utf-8", errors="replace") as fh:
                        line = fh.readline().strip()
                except OSError:
                    line = ""
                if line.startswith("gitdir:"):
                    target = physical(line[7:].strip(), d)
            if is_within(target, os.path.join(own, "modules")):
                return ""
            return f"{os.path.relpath(d, root)!r} is another repository"
        from gateway.tools.gitindex import is_git_dir

        if is_git_dir(d):
            if d == own or is_within(d, own):
                return ""
            return f"{os.path.relpath(d, root)!r} is another repository"
        if d == root:
            return ""
        d = os.path.dirname(d)
    return ""


def _config_from_stdin(ctx, label, spec, words, cwd, rule):
    """An option that reads configuration or code (spec.config_flags) from standard input or
    a device: what it reads is another segment's text (`echo ... | make -f /dev/stdin`)."""
    flags = set(spec.config_flags)
    args = argvmod.parse(words, spec.value_flags | flags)
    for opt in args.options:
        if opt.name in flags or (opt.name.startswith("--") and any(
                argvmod.long_matches(opt.name, f) for f in flags if f.startswith("--"))):
            value = opt.value
            if value is None:
                continue
            res = resolve(value, cwd, ctx.roots)
            if value == "-" or res.status == "special" or res.lex.startswith(("/dev/",
                                                                                "/proc/")):
                return ctx.ask(PHASE, "GW710", f"{label} {opt.name} {value}: reads its "
                               "configuration or program from standard input or a device",
                               rule=f"{rule}:{opt.name}")
            # read as the whole command leaves it: an earlier part writing it asks (GW781)
            from gateway.validator import state_model

            state_model.note_script(ctx, value, res.lex, res.real)
    return None
