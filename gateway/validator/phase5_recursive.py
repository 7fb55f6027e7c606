"""Phase 5 (recursive reads): a command that reads a whole tree reads every secret in it.

`grep -r KEY .` names no secret, yet prints the lines of `.env` and `.git/config`. For the
catalogue entries marked `recursive:` (grep, rg, diff, git grep), the directories the command will
descend into are walked, the way the command itself would walk them, and a secret inside
stops the allow (GW506). The walk is bounded (WALK_LIMIT entries); a bigger tree, a symlink
the command would follow, or a directory that cannot be listed is not proven clean and asks
(GW507). Phase 5 has already checked that every named path is inside the project.

How each kind walks (its options, hidden files, filters, symlinks) is the walk's own
module, gateway.tools.recursive, which the guards' Grep and MCP reads share.
"""

import os

from gateway.paths import is_secret, resolve
from gateway.tools.recursive import (  # noqa: F401 (Walk, plan, KINDS: phase 5's walk)
    KINDS,
    WALK_LIMIT,
    Walk,
    _outer_whitelist,
    content_secrets,
    plan,
)
from gateway.tools.recursive import walk as _walk

PHASE = "5"


class Search:
    """A search whose walk may reach secrets (grep -r, rg, git grep --no-index): what the
    probe (searchprobe.py) needs to run the same search on those secrets. `word`: the
    command word as written; `args`: the parsed arguments; `words`: the arguments as
    written (git grep's own parse); `value_flags`: the catalogue's (ripgrep's configuration
    is parsed with them)."""

    __slots__ = ("kind", "word", "args", "words", "value_flags")

    def __init__(self, kind, word, args, words, value_flags=frozenset()):
        self.kind = kind
        self.word = word
        self.args = args
        self.words = list(words)
        self.value_flags = value_flags


def _in_git_work_tree(cwd):
    """Is there a .git (directory or file) in `cwd` or above, as git looks for one?"""
    probe = os.path.abspath(cwd)
    while True:
        if os.path.exists(os.path.join(probe, ".git")):
            return True
        parent = os.path.dirname(probe)
        if parent == probe:
            return False
        probe = parent


def run(ctx, walk, cwd):
    """Walk every directory of `walk`; an ask verdict for a secret or an unproven tree,
    None when every file the command would read is clear. A search (walk.search) that
    reaches secrets asks only when the same search, run on them, lists one (searchprobe)."""
    budget = [WALK_LIMIT]
    if walk.outside_git_only and _in_git_work_tree(cwd):
        return None
    if walk.ignore_whitelists and not walk.hidden:
        tops = [resolve(p, cwd, ctx.roots).real for p in walk.paths]
        files = [resolve(f, cwd, ctx.roots).real for f in walk.ignore_files]
        lifted = _outer_whitelist(tops, files, ctx.home or os.environ.get("HOME", ""))
        if lifted:
            ctx.step(PHASE, "info", "", f"{_shown(lifted, cwd)!r} has a `!` rule: hidden "
                     "files are read")
            walk.hidden = True
    if walk.search is not None and (
            (walk.search.kind == "grep" and ctx.env.get("GREP_OPTIONS"))
            or (walk.search.kind == "rg" and ctx.env.get("RIPGREP_CONFIG_PATH"))):
        from gateway.validator import searchprobe

        why = searchprobe.environment(ctx, walk.search, cwd)
        if why:
            return ctx.ask(PHASE, "GW509", f"{walk.paths[0]!r} is searched recursively, and "
                           f"{why}: which files are read, and which lines are printed, cannot "
                           "be known", rule="secrets:walk")
    reached = {}  # secret file (real path) -> the start it was reached from
    by_content = {}  # secret by content (real path) -> what the scanner found
    for start in walk.paths:
        # the commands follow a symlink named on the command line; phase 5 has checked
        # that it stays inside the project
        top = resolve(start, cwd, ctx.roots).real
        if not os.path.isdir(top):
            continue  # a file: phase 5 has judged it by name
        collect = [] if walk.search is not None else None
        files = []
        found = _walk(top, walk, ctx.policy, budget, collect, files)
        if found is not None and found[0] == "whitelist":
            ctx.step(PHASE, "info", "", f"{_shown(found[1], cwd)!r} has a `!` rule: hidden "
                     "files are read")
            walk.hidden = True
            collect = [] if walk.search is not None else None
            files = []
            found = _walk(top, walk, ctx.policy, budget, collect, files)
        for path in collect or ():
            reached.setdefault(path, start)
        if found is None:
            secrets, unscanned = content_secrets(files, ctx.policy, ctx.env)
            if unscanned is not None:
                return ctx.ask(PHASE, "GW511", f"{start!r} is read recursively and "
                               f"{_shown(unscanned.path, cwd)!r} could not be checked for "
                               f"credentials: {unscanned.detail}", rule="secrets:content")
            for path, detail in secrets:
                if collect is None:
                    from gateway.secrets import content

                    return ctx.ask(PHASE, "GW510", f"{start!r} is read recursively and "
                                   f"{_shown(path, cwd)!r} holds a credential: {detail}. "
                                   f"{content.HINT}", rule="secrets:content")
                reached.setdefault(path, start)
                by_content[path] = detail
            continue
        kind, path = found
        shown = _shown(path, cwd)
        if kind == "secret":
            secret = is_secret((path,), ctx.policy)
            return ctx.ask(PHASE, "GW506", f"{start!r} is read recursively and contains the "
                           f"secret {shown!r} ({secret})", rule=f"secrets:{secret}")
        reasons = {"limit": f"has more than {WALK_LIMIT} entries to check",
                   "symlink": f"has a symlink the command would follow ({shown!r})",
                   "unreadable": f"has a directory that cannot be listed ({shown!r})"}
        return ctx.ask(PHASE, "GW507", f"{start!r} is read recursively and {reasons[kind]}: "
                       "it cannot be proven free of secrets")
    if reached:
        return _probe(ctx, walk.search, reached, cwd)
    return None


def _probe(ctx, search, reached, cwd):
    """Run the search on the secrets it reaches (searchprobe.py): None when it lists none."""
    from gateway.validator import searchprobe

    files = sorted(reached)
    status, detail = searchprobe.probe(ctx, search, files, cwd)
    names = ", ".join(repr(_shown(f, cwd)) for f in files[:4]) + (
        f" and {len(files) - 4} more" if len(files) > 4 else "")
    if status == "clean":
        ctx.step(PHASE, "pass", "", f"the search reaches the secret(s) {names}; run on them, "
                 f"it lists none: no line of theirs matches, none is printed")
        return None
    first = detail if status == "match" else files[0]
    start = reached[first]
    shown = _shown(first, cwd)
    secret = is_secret((first,), ctx.policy) or "holds a credential"
    if status == "match":
        return ctx.ask(PHASE, "GW506", f"{start!r} is read recursively and lines of the "
                       f"secret {shown!r} ({secret}) match the pattern: they would be printed. "
                       f"Read it yourself if you mean to, or leave it out "
                       f"({_leave_out(search.kind, first)})", rule=f"secrets:{secret}")
    if status == "all":
        return ctx.ask(PHASE, "GW506", f"{start!r} is read recursively and contains the "
                       f"secret {shown!r} ({secret}); {detail} prints every line, matching "
                       "or not", rule=f"secrets:{secret}")
    return ctx.ask(PHASE, "GW509", f"{start!r} is read recursively and reaches the secret(s) "
                   f"{names}; whether lines of them match the pattern could not be checked: "
                   f"{detail}", rule=f"secrets:{secret}")


def _leave_out(kind, path):
    name = os.path.basename(path)
    if kind == "grep":
        return f"--exclude={name!r}"
    if kind == "rg":
        return f"-g {'!' + name!r}"
    return f"a pathspec: -- . ':!{name}'"


def _shown(path, cwd):
    try:
        rel = os.path.relpath(path, cwd)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel
