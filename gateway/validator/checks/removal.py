"""rm and rmdir in a mode that accepts edits: a removal inside the project is the edit it
is.

rm is on the ALWAYS_ASK floor, and in default and plan mode it stays there. In acceptEdits
the human accepted edits inside the project, and Claude Code itself removes files there by
itself (`rm -rf build/` ran with no dialog, docs/client-behaviour.md): Write and Edit can
destroy a file's content just as well. So in that mode rm and rmdir are judged by what they
remove, each operand:

* inside the project, lexically and through every symlink (phase 5's written paths), never
  the project itself or a directory above it;
* neither a secret nor anything the guards protect, and for -r a tree that holds neither
  (the permission surface, .git, the gateway's state: the guards' Surface, walked below);
* a named operand only (a glob is expanded before: gateway.validator.globs);
* nothing it removes is work no commit holds: every file below the operands is either what
  the repository's HEAD commit (or the index) holds, so `git checkout` brings it back, or
  ignored by the project's git (build outputs, caches: `rm -rf build dist`, `__pycache__`).
  An untracked or modified file, a project without a repository, or a git that cannot
  answer asks (GW786): that removal cannot be undone, and the client's Bash sandbox (issue
  23) stops nothing inside the project.

Anything else asks, as rm always did.
"""

import os

from gateway.paths import is_secret, lexical, physical
from gateway.shell import argv as argvmod
from gateway.validator.checks._common import PHASE


def rm(ctx, spec, words, cwd):
    from gateway.validator import modes

    label = spec.name
    rule = f"catalogue:{label}"
    args = argvmod.parse(words, spec.value_flags, spec.long_options, spec.optional_flags)
    for opt in args.options:
        if opt.name not in spec.safe_flags and not argvmod.abbreviates_only(
                opt.name, spec.options, spec.safe_flags):
            return ctx.ask(PHASE, "GW704", f"{label} {opt.name} is not among its safe "
                           "options", rule=rule), [], []
    if ctx.exposure:
        return None, [], []  # a removal reads nothing
    targets = list(args.positionals)
    if not targets:
        return ctx.ask(PHASE, "GW712", f"{label} without an operand", rule=rule), [], []
    if not modes.accepts_edits(ctx.mode):
        return ctx.ask("7B", "GW701", f"{label} is on the ALWAYS_ASK list (in acceptEdits a "
                       "removal inside the project is an edit the gateway judges)",
                       rule=f"always_ask:{label}"), [], []
    tree = any(o.name in spec.tree_flags for o in args.options)
    for t in targets:
        verdict = _operand(ctx, label, t, cwd, tree)
        if verdict is not None:
            return verdict, [], []
    verdict = unrecoverable(ctx, label, targets, cwd)
    if verdict is not None:
        return verdict, [], []
    ctx.step(PHASE, "info", "", f"{label} removes {len(targets)} path(s) inside the project "
             "that hold nothing protected and nothing no commit holds: an edit")
    return None, targets, targets


def _operand(ctx, label, target, cwd, tree):
    from gateway.effects.files import UNKNOWN, Surface, below

    p = lexical(target, cwd)
    rp = physical(target, cwd)
    rule = f"catalogue:{label}"
    roots = ctx.roots
    if not roots.lexically_inside(p) or not roots.really_inside(rp):
        return ctx.ask("5", "GW501", f"{label} {target!r}: outside the project", rule=rule)
    for top in (roots.project, roots.project_real):
        if p == top or rp == top or top.startswith(p.rstrip("/") + "/") \
                or top.startswith(rp.rstrip("/") + "/"):
            return ctx.ask("5", "GW763", f"{label} {target!r} removes the project itself",
                           rule=rule)
    secret = is_secret((p, rp), ctx.policy)
    if secret:
        return ctx.ask("5", "GW503", f"{label} {target!r}: a secret file ({secret})",
                       rule=f"secrets:{secret}")
    surface = ctx.__dict__.get("_surface")
    if surface is None:
        surface = ctx.__dict__["_surface"] = Surface(ctx.roots, ctx.policy, ctx.env)
    hit = surface.check(p, rp, tree=tree)
    if hit:
        code, what, why = hit
        return ctx.ask("5", "GW763", f"{label} {target!r}: {why} ({what}) [{code}]",
                       rule=f"protected:{what}")
    if tree and os.path.isdir(rp) and not os.path.islink(p):
        found = below(surface, rp)
        if found is UNKNOWN:
            return ctx.ask("5", "GW507", f"{label} -r {target!r}: the tree is larger than "
                           "the gateway looks at", rule=rule)
        if found is not None:
            return ctx.ask("5", "GW763", f"{label} -r {target!r} removes {found[2]} "
                           f"({found[1]}) [{found[0]}]", rule=f"protected:{found[1]}")
        from gateway.validator import phase5_recursive as walker

        walk = walker.Walk([rp], follow=False, hidden=True)
        got = walker._walk(rp, walk, ctx.policy, [walker.WALK_LIMIT])
        if got is not None:
            kind, path = got
            return ctx.ask("5", "GW503" if kind == "secret" else "GW507",
                           f"{label} -r {target!r} removes {path!r} ({kind})", rule=rule)
    return None


def unrecoverable(ctx, label, targets, cwd):
    """The ask (GW786) when what the operands remove cannot be brought back from the
    repository: `git status` (hardened, tools/gitquery.py) names an untracked or changed
    file below them; None when it names none (tracked and unchanged, or ignored)."""
    from gateway.tools import gitquery as _gitquery
    from gateway.validator.trusted_code import _work_tree

    project = ctx.roots.project_real
    found = _work_tree(os.path.join(project, "."))
    why = None
    if found is None:
        why = "the project has no git repository, so nothing brings the files back"
    else:
        top, git_dir = found
        if not (project == top or project.startswith(top.rstrip("/") + "/")):
            why = "the project has no git repository of its own"
    if why is None:
        rels = []
        for t in targets:
            rel = os.path.relpath(physical(t, cwd), top)
            if rel.startswith("..") or "\n" in rel:
                why = f"{t!r} is not inside the repository's work tree"
                break
            rels.append(rel)
    if why is None:
        out = _gitquery.run(top, git_dir, ["status", "--porcelain=v1", "-z",
                                           "--untracked-files=all", "--ignored=no",
                                           "--no-renames", "--", *rels],
                            globals_=("--literal-pathspecs",))
        if out is None:
            why = "git could not say whether they are committed"
        else:
            for entry in out.split(b"\0"):
                if len(entry) > 3 and entry[:2] != b" D" and entry[:2] != b"D ":
                    name = entry[3:].decode("utf-8", "replace")
                    state = "untracked" if entry[:2] == b"??" else "changed since the " \
                        "last commit"
                    why = f"{name!r} is {state}"
                    break
    if why is None:
        return None
    shown = " ".join(targets[:3]) + (" ..." if len(targets) > 3 else "")
    return ctx.ask("5", "GW786", f"{label} {shown}: {why}: the removal cannot be "
                   "undone (acceptEdits allows removing what a commit holds or git ignores). "
                   "Commit the work first, or approve the removal",
                   rule=f"catalogue:{label}")
