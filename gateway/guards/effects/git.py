"""git: the global options, the subcommands that only read (whatever their arguments, or in
some forms), the ones that create or publish commits, `git config` and `--output=` writes, and
the working-tree rewrites (`worktree`) an implementer may not run. Imported when a command is
git.

The names are data: the global options come from the catalogue's git `global` block (plus
rules/effects.yaml's git `global_value_flags`/`global_flags`), the read-only subcommands the
catalogue lists say `effects: flags` there (their options judged against the entry's lists),
and the rest (every git command, the ones that commit, publish or rewrite the working tree,
the read-only ones outside the catalogue) is rules/effects.yaml's `git` section. What stays
here is parsing: the read-only forms of branch, tag, stash, remote, config... (below)."""

import os
import posixpath

from gateway.guards.effects._core import (
    Effects,
    Write,
    _flags,
    _has,
    _long,
    _split,
    _values,
    _write,
)
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
                if key == "--exec-path":  # bare: prints the path
                    i += 1
                    continue
                value, step = (values[i + 1] if i + 1 < n else None), 2
            if key in model.git_global_risky:
                risky = risky or f"git {key} {value or ''}".strip()
            if key == "-C":
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


def _git_opts(args):
    return [a for a in args if a.startswith("-") and a != "-"]


def _git_sub(eff, sub, args, env, label):
    if sub in ("submodule",) and args[:1] == ["foreach"]:
        eff.git.append(f"{label} foreach")
        eff.commit_push_maybe.append("git submodule foreach runs any command (it may commit "
                                     "or push)")
        return
    if sub == "bisect" and args[:1] == ["run"]:
        eff.git.append("git bisect run")
        eff.commit_push_maybe.append("git bisect run runs any command (it may commit or push)")
        return
    if sub in ("difftool", "mergetool"):
        eff.git.append(label)
        if any(_long(a, "--extcmd") or a.startswith("-x") or _long(a, "--tool")
               or a.startswith("-t") for a in args):
            eff.commit_push_maybe.append(f"{label} runs a program of your choice")
        return
    model = env.model
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
    if sub in model.git_read:
        for a in _git_opts(args):
            for out in model.git_output_options:
                if _long(a, out) and "=" in a:
                    _write(eff, a.split("=", 1)[1], f"{label} {out}", env)
                elif _long(a, out):
                    k = args.index(a)
                    if k + 1 < len(args):
                        _write(eff, args[k + 1], f"{label} {out}", env)
            for bad in model.git_unsafe_options:
                if (bad.startswith("--") and _long(a, bad)) or (
                        not bad.startswith("--") and not a.startswith("--")
                        and bad[1:] in a[1:]):
                    eff.unknown.append(f"{label} {bad} runs a program or writes a file")
                    eff.commit_push_maybe.append(f"{label} {bad} runs a program, which may "
                                                 "commit or push")
                    return
        return
    reader = _GIT_READ_FORMS.get(sub)
    if reader is not None and reader(args):
        return
    if sub == "clean" and _dry_run(model, sub, args):
        return  # git clean -n: prints the names it would remove, removes nothing
    if sub == "archive" and any(_long(x, o) for x in args for o in ("--exec", "--remote")):
        eff.unknown.append(f"{label} --exec/--remote runs a program of your choice")
        eff.commit_push_maybe.append(f"{label} --exec runs a program, which may commit or push")
    if sub == "format-patch":
        opts, _pos = _split(args, frozenset(("-o", "--output-directory", "--output")))
        for d in _values(opts, "-o", "--output-directory"):
            _write(eff, d, "git format-patch -o", env, tree=True)
        for f in _values(opts, "--output"):
            _write(eff, f, "git format-patch --output", env)
        if not _has(opts, "--stdout", "-o", "--output-directory", "--output"):
            for d in (env.cwds or ()):  # the patch files go to the current directory
                eff.writes.append(Write(".", "git format-patch", True, (d,)))
    if sub == "config":
        _git_config_write(eff, args, env)
    if sub == "clean":
        # literal pathspecs name the trees it cleans (git clean -fd build); magic, globs or
        # none: the working directory
        if not _pathspecs(eff, [a for a in args if a != "--"], env, "git clean",
                          frozenset(("-e", "--exclude"))):
            for d in (env.cwds or ()):
                eff.writes.append(Write(".", "git clean", True, (d,)))
    _git_worktree(eff, sub, args, env, label)
    eff.git.append(label)


def _dry_run(model, sub, args) -> bool:
    """`git SUB` with these arguments only prints what it would do: the catalogue entry's
    dry_run options, read as git reads them (the last of -n and --no-dry-run counts, `-e -n`
    is a pattern; gateway.validator.phase7b2_subcommands.only_prints)."""
    from gateway.validator.phase7b2_subcommands import only_prints

    git = model.policy.command("git")
    spec = git.subcommands.get(sub) if git is not None and git.subcommands else None
    return spec is not None and only_prints(spec, list(args))


def _pathspecs(eff, args, env, via, value_flags=frozenset()):
    """Record the literal pathspecs in `args` as tree writes; False when one cannot be
    named (pathspec magic, globs, --pathspec-from-file)."""
    opts, pos = _split(args, value_flags)
    if _has(opts, "--pathspec-from-file"):
        return False
    if not pos:
        return False
    for p in pos:
        if p.startswith(":") or any(c in p for c in "*?[\\"):
            return False
    for p in pos:
        _write(eff, p, via, env, tree=True)
    return True


def _git_worktree(eff, sub, args, env, label):
    """Working-tree writes of a git subcommand: named targets become `writes`; the rest is
    recorded in `worktree` (an implementer may not run them: they may rewrite any file)."""
    if sub not in env.model.git_worktree:
        return
    opts = _git_opts(args)
    if sub == "reset" and not any(_long(o, n) for o in opts
                                  for n in ("--hard", "--merge", "--keep")):
        return  # --soft / --mixed / paths: the index and HEAD only
    if sub == "rm":
        if any(_long(o, "--cached") for o in opts) or any(
                o in ("-n",) or _long(o, "--dry-run") for o in opts):
            return
        if _pathspecs(eff, args, env, "git rm"):
            return
    if sub == "mv":
        _o, pos = _split(args)
        if len(pos) >= 2 and not any(p.startswith(":") for p in pos):
            into = tuple(posixpath.basename(p.rstrip("/")) or p for p in pos[:-1])
            _write(eff, pos[-1], "git mv", env, tree=True, into=into)
            for p in pos[:-1]:
                _write(eff, p, "git mv (source)", env, tree=True)
            return
    if sub == "restore":
        staged = any(o in ("-S",) or _long(o, "--staged") for o in opts)
        worktree = any(o in ("-W",) or _long(o, "--worktree") for o in opts)
        if staged and not worktree:
            return
        if _pathspecs(eff, args, env, "git restore",
                      frozenset(("-s", "--source", "--conflict", "--pathspec-from-file"))):
            return
    if sub == "checkout" and "--" in args:
        if _pathspecs(eff, args[args.index("--") + 1:], env, "git checkout --"):
            return
    if sub in ("checkout", "switch") and _new_branch_here(sub, args):
        return  # a new branch at HEAD: the working tree and index stay as they are
    if sub == "stash" and args[:1] == ["push"] and _pathspecs(
            eff, args[1:], env, "git stash push",
            frozenset(("-m", "--message", "--pathspec-from-file"))):
        return  # only the named files go back to HEAD (or, with -u/-a, are removed)
    if sub == "apply" and any(_long(o, "--cached") for o in opts) and not any(
            _long(o, "--index") for o in opts):
        return
    if sub == "stash" and args[:1] in (["drop"], ["clear"], ["create"], ["store"]):
        return
    eff.worktree.append(f"{label} rewrites working-tree files it does not name")


def _new_branch_here(sub, args):
    """`git checkout -b NAME` / `git switch -c NAME` (also -B/-C, --create, -q) with no start
    point, no path and no other option: a branch is created at HEAD and checked out, which
    rewrites no file. A start point, -f, -m, --orphan, --recurse-submodules... do."""
    flags = ("-b", "-B") if sub == "checkout" else ("-c", "-C", "--create", "--force-create")
    rest = [a for a in args if a not in ("-q", "--quiet")]
    return (len(rest) == 2 and rest[0] in flags and not rest[1].startswith("-")
            and rest[1] != "")


def _git_branch_reads(args):
    ok = {"-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose", "-l", "--list",
          "--contains", "--no-contains", "--merged", "--no-merged", "--sort", "--format",
          "--points-at", "--color", "--no-color", "--column", "--no-column", "-q", "--quiet",
          "--show-current", "--abbrev", "--no-abbrev", "-i", "--ignore-case", "--omit-empty"}
    listing = False
    positionals = []
    takes = {"--contains", "--no-contains", "--merged", "--no-merged", "--sort", "--format",
             "--points-at"}
    i = 0
    while i < len(args):
        a = args[i]
        if a.startswith("-") and a != "-":
            o = a.split("=", 1)[0]
            if o not in ok and not (o.startswith("--abbrev") or o.startswith("--color")
                                    or o.startswith("--column")):
                return False
            if o in ("-l", "--list"):
                listing = True
            if o in takes and "=" not in a:
                i += 1
        else:
            positionals.append(a)
        i += 1
    return listing or not positionals


def _git_tag_reads(args):
    ok = {"-l", "--list", "--contains", "--no-contains", "--merged", "--no-merged",
          "--points-at", "--sort", "--format", "--column", "--no-column", "-i",
          "--ignore-case", "--color", "--omit-empty"}
    listing = False
    positionals = []
    takes = {"--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort",
             "--format"}
    i = 0
    while i < len(args):
        a = args[i]
        if a.startswith("-") and a != "-":
            o = a.split("=", 1)[0]
            if o not in ok and not (len(o) > 2 and o.startswith("-n") and o[2:].isdigit()) \
                    and o != "-n":
                return False
            if o in ("-l", "--list"):
                listing = True
            if o in takes and "=" not in a:
                i += 1
        else:
            positionals.append(a)
        i += 1
    return listing or not positionals


def _first_is(*subs):
    def check(args):
        return not args or args[0] in subs
    return check


def _git_remote_reads(args):
    if not args:
        return True
    if args[0] in ("-v", "--verbose"):
        return len(args) == 1
    return args[0] in ("show", "get-url")


def _git_config_reads(args):
    if args and args[0] in ("get", "list"):
        return True
    readers = ("--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l",
               "--get-color", "--get-colorbool")
    # git config stops at the key: in `git config core.fsmonitor CMD -l` the -l is a value
    # pattern and the key is set; only options before the first operand count
    before = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--" or not a.startswith("-") or a == "-":
            break
        before.append(a)
        i += 2 if a in ("--type", "--default", "--file", "-f", "--blob") else 1
    if any(a.split("=", 1)[0] in readers for a in before):
        return True
    # `git config user.name`: a key and no value, and no option that writes, is a read (the
    # validator's git-config check agrees: checks/git.py)
    writers = ("--add", "--replace-all", "--unset", "--unset-all", "--rename-section",
               "--remove-section", "--edit", "-e")
    operands = args[i:]
    if operands[:1] == ["--"]:
        operands = operands[1:]
    return (len(operands) == 1 and not any(o.startswith("-") for o in operands)
            and not any(a.split("=", 1)[0] in writers for a in before))


def _git_config_write(eff, args, env):
    where = ".git/config"
    for k, a in enumerate(args):
        o = a.split("=", 1)[0]
        if o == "--global":
            where = "~/.gitconfig"
        elif o == "--system":
            where = "/etc/gitconfig"
        elif o in ("--file", "-f"):
            where = a.split("=", 1)[1] if "=" in a else (args[k + 1] if k + 1 < len(args)
                                                         else where)
        elif o == "--worktree":
            where = ".git/config.worktree"
    if where == "~/.gitconfig":
        _write(eff, posixpath.join(env.home, ".gitconfig"), "git config --global", env)
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
            eff.writes.append(Write(where, "git config", False,
                                    (posixpath.join(probe, where),)))
        return
    _write(eff, where, "git config --file", env)


_GIT_READ_FORMS = {
    "branch": _git_branch_reads,
    "tag": _git_tag_reads,
    "stash": lambda a: bool(a) and a[0] in ("list", "show"),
    "remote": _git_remote_reads,
    "worktree": lambda a: a[:1] == ["list"],
    "notes": lambda a: not a or a[0] in ("list", "show"),
    "submodule": lambda a: not a or a[0] in ("status", "summary"),
    "reflog": lambda a: not a or a[0] in ("show", "exists") or a[0].startswith("-"),
    "config": _git_config_reads,
    "sparse-checkout": _first_is("list"),
    "symbolic-ref": lambda a: len([x for x in a if not x.startswith("-")]) == 1
    and not any(x in ("-d", "--delete") for x in a),
    "hook": lambda a: False,
    "bisect": lambda a: bool(a) and a[0] in ("log", "visualize", "view", "terms"),
    "apply": lambda a: any(x in ("--check", "--stat", "--numstat", "--summary") for x in a)
    and not any(x in ("--index", "--cached", "--apply", "-3", "--3way") for x in a),
    "format-patch": lambda a: any(x == "--stdout" for x in a) and not any(
        x.startswith(("-o", "--o")) for x in a),
    "archive": lambda a: not any(x.startswith(("-o", "--o", "--remote", "--exec", "--r",
                                               "--e")) for x in a),
    "fsck": lambda a: not any(x.startswith("--lost-found") for x in a),
}
