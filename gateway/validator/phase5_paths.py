"""Phase 5: path canonicalisation, for a script and for every path-like argument.

Each candidate is resolved against the working directory lexically and through symlinks
(gateway.paths). A candidate outside the project, a symlink that leads out, a secret (read
or written, inside the project or out), a URL, or a write to a protected path stops the
allow.
"""

from gateway.paths import is_protected, is_secret, resolve

PHASE = "5"


def run(ctx, candidates, cwd, writes=(), containment=True, names=frozenset()):
    """Check path candidates (strings). `writes` lists candidates that are written; `names`
    candidates whose name or metadata only is looked at (`ls .env`), no read of a secret.
    Returns an ask verdict or None; on None, `resolved` paths are in the trace."""
    roots = ctx.roots
    pol = ctx.policy
    # a command of several parts: what this part relies on, and what it writes, for the
    # state the parts create together (gateway.validator.state_model)
    relied = getattr(ctx, "relied", None)
    own = getattr(ctx, "seg_writes", None)
    # two passes: a secret or a write to the permission surface anywhere among the
    # candidates is the reason given (and seen by PreToolUse), before "outside the project"
    # of an earlier one (`tar -C ~ -xf x.tar` writes ~/.claude/settings.json)
    outside = []
    contents = []  # files read whose names decide nothing: their content may
    for cand in candidates:
        if not cand:
            continue
        if "://" in cand:
            if ctx.exposure:
                continue  # the network, not a local file
            return ctx.ask(PHASE, "GW505", f"{cand!r} is a URL: the command uses the network")
        res = resolve(cand, cwd, roots)
        if relied is not None:
            relied.paths.append((cand, res.lex, res.real))
        if own is not None and cand in writes:
            own.extend((res.lex, res.real))
        secret = "" if cand in names and cand not in writes else is_secret(
            (res.lex, res.real), pol)
        if secret:
            return ctx.ask(PHASE, "GW503", f"{cand!r} is a secret file ({secret})",
                           rule=f"secrets:{secret}")
        cache = None
        if cand not in writes and res.status in ("outside", "symlink_out") \
                and not ctx.exposure:
            # a read of a dependency cache outside the project (gateway.validator.caches)
            from gateway.validator import caches

            cache = caches.place(ctx, res.lex, res.real, names_only=cand in names)
            if cache is not None:
                ctx.__dict__.setdefault("cache_reads", set()).add(cache)
                ctx.step(PHASE, "info", "", f"{cand!r} is read from the {cache} "
                         f"({res.real}), a dependency cache outside the project")
        if cand not in writes and cand not in names and res.status != "special":
            contents.append((cand, res.real))
        if cand in writes and res.status != "special":
            # in exposure mode too: PreToolUse asks for a write of the permission surface
            # that only the catalogue sees (GW838), whatever else the command is asked for
            prot = is_protected((res.lex, res.real), roots, pol, as_dir=True)
            if prot:
                return ctx.ask(PHASE, "GW504", f"{cand!r} is or holds part of the agent's "
                               f"permission surface ({prot})", rule=f"protected_paths:{prot}")
            if not ctx.exposure and res.status == "inside":
                from gateway.clientfiles import sensitive

                hit = sensitive(res.lex, pol) or sensitive(res.real, pol)
                if hit:
                    from gateway.validator.written import client_ask

                    return client_ask(ctx, "the command", cand, res.lex, hit)
        if ctx.exposure:
            continue  # outside the project, or written: not a read of a secret
        if containment and res.status not in ("inside", "special") and cache is None:
            outside.append((cand, res))
    if contents:
        verdict = content_verdict(ctx, contents)
        if verdict is not None:
            return verdict
    for cand, res in outside:
        if res.status == "symlink_out":
            return ctx.ask(PHASE, "GW502", f"{cand!r} leads outside the project through a "
                           f"symlink (to {res.real})")
        return ctx.ask(PHASE, "GW501", f"{cand!r} resolves outside the project ({res.lex})")
    return None


def content_verdict(ctx, contents):
    """The ask for files read whose content holds a credential (GW510) or could not be
    scanned in time (GW511): gateway.secrets.content, cached by each file's identity."""
    from gateway.secrets import content, filecheck

    # an archive tar/zip/unzip judged member by member themselves (gateway.validator.checks.
    # archives): listing one prints names, not its bytes
    judged = ctx.__dict__.get("containers_judged") or ()
    contents = [(c, real) for c, real in contents if c not in judged]
    if not contents:
        return None
    found = filecheck.check([real for _cand, real in contents], ctx.policy,
                          getattr(ctx, "env", None))
    if found is None:
        return None
    cand = next((c for c, real in contents if real == found.path), found.path)
    if found.kind == content.SECRET:
        return ctx.ask(PHASE, "GW510", f"{cand!r} holds a credential: {found.detail}. "
                       f"{content.HINT}", rule="secrets:content")
    return ctx.ask(PHASE, "GW511", f"{cand!r} could not be checked for credentials: "
                   f"{found.detail}", rule="secrets:content")
