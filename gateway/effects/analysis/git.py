"""git: the global options, the subcommands that only read (whatever their arguments, or in
some forms), the ones that create or publish commits, `git config` and `--output=` writes, and
the working-tree rewrites (`worktree`) an implementer may not run. Imported when a command is
git.

The knowledge is data: the global options come from the catalogue's git `global` block (plus
rules/effects.yaml's git `global_value_flags`/`global_flags`/`global_optional_flags`), the
read-only subcommands the catalogue lists say `effects: flags` there (their options judged
against the entry's lists), and the rest is rules/effects.yaml's `git` section: every git
command, the ones that commit, publish or rewrite the working tree, and each subcommand's
forms (`subcommands`: allowlists of a first word, options and operands, matched by
gateway.policy.effects.GitForm), outputs and the first words that run a command. What stays
here is reading git's command line and turning a form's effect into Effects; no git option
is named in this file (tests/agreement/test_drift.py)."""

import os
import posixpath

from gateway.effects.analysis._base import Effects, Write, _flags, _write
from gateway.paths import physical

# --- git --------------------------------------------------------------------------------------

def _git(eff, words, env):
    model = env.model
    values = [w.value if w.literal else None for w in words[1:]]
    i = 0
    n = len(values)
    cwds = env.cwds
    risky = ""
    while i < n:
        v = values[i]
        if v is None:
            eff.unknown.append(f"git has a computed argument {words[i + 1].raw!r}")
            eff.commit_push_maybe.append("git with a computed option or subcommand may "
                                         "commit or push")
            return
        if not v.startswith("-") or v == "-":
            break
        if v == "--":
            i += 1
            break
        opt = v.split("=", 1)[0]
        short = v[:2] if not v.startswith("--") else opt
        if opt in model.git_global_value or short in model.git_global_value:
            if short in model.git_global_value and short != opt and len(v) > 2 \
                    and not v.startswith("--"):
                value, step, key = v[2:], 1, short  # -Cdir
            elif "=" in v:
                value, step, key = v.split("=", 1)[1], 1, opt
            else:
                key = opt
                if key in model.git_global_optional:  # bare: prints (git --exec-path)
                    i += 1
                    continue
                value, step = (values[i + 1] if i + 1 < n else None), 2
            if key in model.git_global_risky:
                risky = risky or f"git {key} {value or ''}".strip()
            if key in model.git_global_cwd:
                if value is None:
                    cwds = None
                elif cwds is not None:  # git chdir()s: the kernel's resolution
                    cwds = tuple(dict.fromkeys(physical(value, d) for d in cwds))
            i += step
            continue
        if opt in model.git_global_flags:
            i += 1
            continue
        risky = risky or f"git {opt}"
        eff.unknown.append(f"git: unknown global option {opt}")
        i += 1
    genv = env.derive(cwds=cwds)
    if risky:
        eff.unknown.append(f"{risky} can make git run another program or command")
        eff.commit_push_maybe.append(f"{risky} can change what git runs (an alias or a "
                                     "program), so it may commit or push")
    if i >= n:
        return  # git, git --version, git --help: print text
    sub = values[i]
    lsub = sub.lower()
    label = f"git {sub}"
    if lsub in model.git_commit_words:
        eff.commit_push.append(label)
        eff.git.append(label)
        return
    if lsub not in model.git_commands:
        eff.git.append(label)
        eff.commit_push_maybe.append(f"{label}: not a git command, so an alias or an external "
                                     "git program that may commit or push")
        return
    if sub != lsub:
        eff.git.append(label)
        eff.commit_push_maybe.append(f"{label}: not the git command {lsub} as written (an "
                                     "alias or, on a case-insensitive file system, any git "
                                     "program), so it may commit or push")
        return
    rest = values[i + 1:]
    if any(a is None for a in rest):
        eff.unknown.append(f"{label} has a computed argument")
        eff.git.append(label)
        return
    _git_sub(eff, sub, rest, genv, label)


def _git_sub(eff, sub, args, env, label):
    model = env.model
    forms = model.git_forms(sub)
    if forms is not None and forms.implied and (
            not args or (forms.implied_before_options and args[0].startswith("-")
                         and args[0] != "-")):
        args = [forms.implied] + list(args)  # `git reflog -3` is `git reflog show -3`
    if forms is not None and args[:1] and args[0] in forms.runs_command:
        eff.git.append(f"{label} {args[0]}")
        eff.commit_push_maybe.append(f"{label} {args[0]} runs any command (it may commit "
                                     "or push)")
        return
    spec = model.git_sub(sub)
    if spec is not None and spec.effects == "flags":
        # a read-only subcommand of the catalogue: its options judged by its entry
        trial = Effects()
        _flags(trial, [label] + list(args), env, spec)
        if trial.unknown:
            eff.commit_push_maybe.append(f"{label} with an option the rules do not describe "
                                         "as read-only, which may run a program")
        eff.merge(trial)
        return
    form, parsed = _form(forms, args)
    if form is not None and form.effect == "read":
        return
    if _dry_run(model, sub, args):
        return  # git clean -n: prints the names it would remove, removes nothing
    eff.git.append(label)
    if forms is not None:
        _outputs(eff, forms, args, env, label)
        if form is None and forms.unmatched is not None:
            opt = forms.unlisted(args)
            what = (f"{label} {opt}: an option no form of {label} in the rules allows" if opt
                    else f"{label} with arguments the rules do not describe")
            if forms.unmatched == "program":
                eff.unknown.append(f"{what} (it may run a program of your choice)")
                who = f"{label} {opt}" if opt else label
                eff.commit_push_maybe.append(f"{who} may run a program of your choice, which "
                                             "may commit or push")
            else:
                eff.unknown.append(what)
    outside = False
    if form is None and forms is not None:
        # a use no form describes (git clean -i build, git rm --bogus .claude/x): still the
        # files its operands name, read as its paths (or move) form reads them, and a
        # working-tree rewrite all the same
        form = next((f for f in forms.forms if f.effect in ("paths", "move") and (
            f.first is None or args[:1] and args[0] in f.first)), None)
        parsed = form.parse(args) if form is not None else None
        outside = form is not None
    if form is not None and form.effect == "repository":
        return  # the index, refs, HEAD or the stash: no working-tree file
    if form is not None and form.effect == "move":
        pos = parsed.positionals
        if len(pos) >= 2 and not any(p.startswith(":") for p in pos):
            into = tuple(posixpath.basename(p.rstrip("/")) or p for p in pos[:-1])
            _write(eff, pos[-1], label, env, tree=True, into=into)
            for p in pos[:-1]:
                _write(eff, p, f"{label} (source)", env, tree=True)
            if not outside:
                return
    if form is not None and form.effect == "paths":
        pathspecs = parsed.rest if form.after_dashdash else parsed.positionals
        if outside:  # every word that may be a pathspec: the words after a `--` too
            after = list(args[args.index("--") + 1:]) if "--" in args else []
            pathspecs = list(dict.fromkeys(
                after if form.after_dashdash else parsed.positionals + after))
        if _pathspecs(eff, pathspecs, env, label):
            if not outside:
                return
        elif form.fallback == "cwd":
            for d in (env.cwds or ()):
                eff.writes.append(Write(".", label, True, (d,)))
            return
        if outside and sub not in model.git_worktree:
            return
    if sub in model.git_worktree:
        eff.worktree.append(f"{label} rewrites working-tree files it does not name")


def _form(forms, args):
    """The first form of the subcommand the arguments match, with them parsed as it reads
    them: (GitForm, Args), or (None, None)."""
    if forms is not None:
        for form in forms.forms:
            parsed = form.match(args)
            if parsed is not None:
                return form, parsed
    return None, None


def _outputs(eff, forms, args, env, label):
    """The files a subcommand that is not in a read-only form writes: its `outputs`."""
    from gateway.shell import argv as argvmod

    files, trees, cwd_unless, scopes, default = forms.outputs
    if not (files or trees or cwd_unless is not None or default):
        return
    parsed = argvmod.parse(list(args), forms.value_flags, forms.options, frozenset(),
                           forms.options_first)
    if default:  # a configuration file: the last scope or file option given
        where, via = default, label
        for opt in parsed.options:
            if opt.name in scopes:
                where, via = scopes[opt.name], f"{label} {opt.name}"
            elif opt.name in files and opt.value is not None:
                where, via = opt.value, f"{label} {opt.name}"
        _config_write(eff, where, env, via, _plain_key(forms, parsed))
        return
    for opt in parsed.options:
        # a long option written shorter counts as every output option it may stand for,
        # whether or not git abbreviates it here (it asks as unknown anyway)
        hits = [f for f in files | trees if argvmod.long_matches(opt.name, f)] \
            if opt.name.startswith("--") else [opt.name]
        hits = sorted(f for f in hits if f in files or f in trees)
        if not hits:
            continue
        value = opt.value
        if value is None and opt.name not in forms.value_flags:
            k = args.index(opt.word) if opt.word in args else -1
            value = args[k + 1] if 0 <= k < len(args) - 1 else None
        if value is not None:
            _write(eff, value, f"{label} {hits[0]}", env, tree=any(f in trees for f in hits))
        else:
            eff.unknown.append(f"{label} {opt.name} writes a file it does not name")
    if cwd_unless is not None and not any(o.name in cwd_unless for o in parsed.options):
        for d in (env.cwds or ()):  # the files go to the current directory
            eff.writes.append(Write(".", label, True, (d,)))


def _plain_key(forms, parsed) -> bool:
    """`git config [set] KEY VALUE` with a key of the rules' plain_keys, no other operands and
    no option but a scope: a value no git command runs or follows to code."""
    if not forms.plain_keys:
        return False
    scopes = forms.outputs[3]
    if any(opt.name not in scopes for opt in parsed.options):
        return False
    ops = list(parsed.positionals)
    if ops and ops[0] == "set":
        ops = ops[1:]
    return len(ops) == 2 and ops[0].lower() in forms.plain_keys


def _config_write(eff, where, env, via, plain=False):
    """git config writes `where`: ~/... in the home directory, .git/... in the repository
    that encloses each directory the command may run in, any other path as given."""
    if where.startswith("~/"):
        n = len(eff.writes)
        _write(eff, posixpath.join(env.home, where[2:]), via, env)
        for w in eff.writes[n:]:
            w.plain = plain
        return
    if where.startswith(".git/"):
        # the repository's config: the .git of the nearest enclosing repository
        for d in (env.cwds or ()):
            probe = d
            while True:
                if os.path.exists(posixpath.join(probe, ".git")):
                    break
                parent = posixpath.dirname(probe)
                if parent == probe:
                    probe = d
                    break
                probe = parent
            eff.writes.append(Write(where, via, False, (posixpath.join(probe, where),),
                                    plain))
        return
    _write(eff, where, via, env)


def _dry_run(model, sub, args) -> bool:
    """`git SUB` with these arguments only prints what it would do: the catalogue entry's
    dry_run options, read as git reads them (the last of -n and --no-dry-run counts, `-e -n`
    is a pattern; gateway.policy.invocation.only_prints)."""
    from gateway.policy.invocation import only_prints

    git = model.policy.command("git")
    spec = git.subcommands.get(sub) if git is not None and git.subcommands else None
    return spec is not None and bool(spec.dry_run) and only_prints(spec, list(args))


def _pathspecs(eff, pathspecs, env, via):
    """Record the literal pathspecs as tree writes; False when one cannot be named (none,
    pathspec magic, globs). A form that reads pathspecs from a file does not list that
    option: it is no `paths` form."""
    if not pathspecs:
        return False
    for p in pathspecs:
        if p.startswith(":") or any(c in p for c in "*?[\\"):
            return False
    for p in pathspecs:
        _write(eff, p, via, env, tree=True)
    return True
