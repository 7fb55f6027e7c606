"""Output redirections in a mode that accepts edits: `cmd > FILE` and `cmd >> FILE` write
FILE as `cmd | tee FILE` does, and acceptEdits allows that edit inside the project.

Phase 2 refuses every output redirection (GW213) except in such a mode, where the plain forms
this module models are left to segment judging: `>` and `>>` (of standard output, standard
error or any numbered descriptor) into a literal path. Everything else keeps asking in phase
2: `&>`, `&>>`, `>|` (it overrides the user's noclobber), `<>`, `>&FILE`, a computed target.

A modelled target is allowed when it is a regular file (or none yet) inside the project,
reached through no symlink that leads out, with one link only (a hard link is also a file
elsewhere), and neither a secret nor anything the guards protect: the permission surface,
.git/, the gateway's state files and orchestrator store, its own rules, another project's
settings, a file that runs code later (gateway.effects.files.Surface: the same judgement the
PreToolUse guards give `tee FILE`). The command itself is judged as usual; the strictest
answer stands.
"""

import os
import stat

from gateway.paths import is_protected, is_secret, resolve

PHASE = "5"
#: The operators modelled as a write of the target file (truncate or append).
MODELLED_OPS = frozenset((">", ">>"))


def modelled(redirect, mode) -> bool:
    """Is `redirect` an output redirection this module judges (in `mode`)? Only in a mode
    that accepts edits, `>`/`>>` into a literal word."""
    from gateway.validator import modes

    return (redirect.op in MODELLED_OPS and redirect.target is not None
            and redirect.target.literal and modes.accepts_edits(mode))


def judge(ctx, redirects, cwd):
    """An ask verdict for the first modelled output redirection among `redirects` whose
    target may not be written, else None."""
    for r in redirects:
        if ctx.exposure or not modelled(r, ctx.mode):
            continue
        verdict = target(ctx, r.op, r.target.value, cwd)
        if verdict is not None:
            return verdict
    return None


def target(ctx, op, path, cwd):
    """Why writing `path` (relative to `cwd`) through the redirection `op` needs the human:
    an ask verdict, or None."""
    what = f"output redirection {op} {path}"
    if path == "/dev/null":
        return None
    res = resolve(path, cwd, ctx.roots)
    secret = is_secret((res.lex, res.real), ctx.policy)
    if secret:
        return ctx.ask(PHASE, "GW503", f"{what}: {path!r} is a secret file ({secret})",
                       rule=f"secrets:{secret}")
    if res.status == "special":
        return ctx.ask(PHASE, "GW714", f"{what}: {res.lex} is a device, not a file of the "
                       "project", rule="redirect:device")
    prot = is_protected((res.lex, res.real), ctx.roots, ctx.policy, as_dir=True)
    if prot:
        return ctx.ask(PHASE, "GW504", f"{what}: {path!r} is or holds part of the agent's "
                       f"permission surface ({prot})", rule=f"protected_paths:{prot}")
    if res.status == "symlink_out":
        return ctx.ask(PHASE, "GW502", f"{what}: {path!r} leads outside the project through "
                       f"a symlink (to {res.real})")
    if res.status != "inside":
        return ctx.ask(PHASE, "GW501", f"{what}: {path!r} resolves outside the project "
                       f"({res.lex})")
    hit = _surface(ctx).check(res.lex, res.real)
    if hit:
        code, rule, why = hit
        return ctx.ask(PHASE, "GW503" if code == "GW833" else "GW504",
                       f"{what}: {path!r} is {why} ({rule}) [{code}]",
                       rule=f"protected:{rule}")
    try:
        st = os.stat(res.real)
    except FileNotFoundError:
        return None  # created (in a directory that exists, or bash fails)
    except OSError as exc:
        return ctx.ask(PHASE, "GW714", f"{what}: {path!r} cannot be looked at "
                       f"({exc.strerror})", rule="redirect:unreadable")
    if not stat.S_ISREG(st.st_mode):
        kind = ("a directory" if stat.S_ISDIR(st.st_mode) else
                "a FIFO" if stat.S_ISFIFO(st.st_mode) else
                "a socket" if stat.S_ISSOCK(st.st_mode) else "a device")
        return ctx.ask(PHASE, "GW714", f"{what}: {path!r} is {kind}, not a regular file",
                       rule="redirect:not-a-file")
    if st.st_nlink > 1:
        return ctx.ask(PHASE, "GW714", f"{what}: {path!r} has {st.st_nlink} hard links: the "
                       "same file may be elsewhere, outside the project",
                       rule="redirect:hard-link")
    return None


def _surface(ctx):
    """The guards' judgement of write targets for this validation (built once)."""
    surface = ctx.__dict__.get("_surface")
    if surface is None:
        from gateway.effects.files import Surface

        surface = ctx.__dict__["_surface"] = Surface(ctx.roots, ctx.policy, ctx.env)
    return surface
