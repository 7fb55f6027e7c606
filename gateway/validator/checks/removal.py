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
* a named operand only (a glob is expanded before: gateway.validator.globs).

Anything else asks, as rm always did.
"""

import os

from gateway.paths import is_secret, lexical, physical
from gateway.validator import argv as argvmod
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
    ctx.step(PHASE, "info", "", f"{label} removes {len(targets)} path(s) inside the project "
             "that hold nothing protected: an edit")
    return None, targets, targets


def _operand(ctx, label, target, cwd, tree):
    from gateway.guards.files import UNKNOWN, Surface, below

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
