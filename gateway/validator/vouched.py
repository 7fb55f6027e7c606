"""Your own permissions.allow rules, for what the gateway does not model.

The PreToolUse hook asks (GW840) when the validator cannot tell what a command reads, in
every mode, because Claude Code would otherwise run a read-only-looking command by itself.
For a program the rules do not describe (`tox -e py311`, `docker compose up`, `npm install`)
that ask also overrode the user's own `Bash(tox:*)`: a statement that they trust tox, which
the gateway has no better knowledge to contradict.

So, in the exposure judgement only (the question "may this read a secret?"), a segment
whose one open question is an unmodelled program -- not in the catalogue (GW703), an
unknown subcommand (GW705) or option (GW704), a wrapper (GW706), a download or install
(GW764), a non-floor ALWAYS_ASK entry (GW701) -- is vouched for by a permissions.allow rule
that names it as written (`Bash(tox:*)`), and gets no ask from the hook: the client applies
the rule, PermissionRequest still gives no allow of its own (GW716 in the trace).

What a rule never vouches for (the guarantees at stake):

* a secret the command names, in any argument (`.env`, `--env-file=.env`, `@.env`,
  `key.pem:/k`): GW503;
* a directory argument whose tree holds a secret, or cannot be walked: GW506 / GW507;
* code on the command line, expansions, substitutions, `source`/`eval`, xargs's unknown
  input, and the floors of ALWAYS_ASK (curl, wget, sudo, rm, dd...): they keep their ask.

Without a sandbox (issue 23 owns the decisions that know the client's sandbox).
"""

import os

from gateway.decision import ASK

PHASE = "7B"
CODE = "GW716"
#: Reasons that mean "the rules do not model this program (form)", nothing more.
VOUCHABLE = frozenset(("GW701", "GW703", "GW704", "GW705", "GW706", "GW764"))


def judge(ctx, cmd, argv, verdict, cwd):
    """The verdict for an exposure ASK `verdict` of the segment `cmd` (argv: its words as
    judged) when a permissions.allow rule vouches for it; else None (the ask stands)."""
    if verdict.decision is not ASK or verdict.code not in VOUCHABLE or not argv:
        return None
    # the real reason first: an unmodelled program given a secret's name reads it, as far
    # as anyone can tell (`base64 .env`), whatever else is unknown about it
    named = _named_secret(ctx, argv, cwd, walk=False)
    if named is not None:
        return named
    settings = ctx.settings
    if settings is None or not getattr(settings, "allow", None):
        return None
    if verdict.code == "GW701" and _floor(ctx, argv):
        return None
    hit = settings.allows(argv, cmd.text)
    if hit is None:
        return None
    rule, source = hit
    named = _named_secret(ctx, argv, cwd)
    if named is not None:
        return named
    return ctx.allow(PHASE, CODE, f"your permissions.allow rule {rule} ({source}) vouches for "
                     f"what {argv[0]} reads ({verdict.code}: {verdict.message}); it names no "
                     "secret", rule=f"settings.allow:{rule}")


def _floor(ctx, argv) -> bool:
    floors = ctx.policy.data.get("floors", {}).get("always_ask", ())
    name = os.path.basename(argv[0]).lower()
    return name in {f.lower() for f in floors}


def _candidates(word):
    out = {word}
    if "=" in word:
        out.add(word.split("=", 1)[1])
    if word.startswith("@"):
        out.add(word[1:])
    for sep in (":", ","):
        for w in list(out):
            out.update(p for p in w.split(sep) if p)
    if word.startswith("-") and not word.startswith("--") and len(word) > 2:
        out.add(word[2:])  # -f.env
    return [c for c in out if c and not c.startswith("-")]


def _named_secret(ctx, argv, cwd, walk=True):
    """An ask verdict when an argument of `argv` names a secret, or (`walk`) a directory
    holding one."""
    from gateway.paths import is_secret, resolve
    from gateway.validator import phase5_recursive as walker

    for word in argv[1:]:
        for c in _candidates(word):
            res = resolve(c, cwd, ctx.roots)
            pat = is_secret((res.lex, res.real), ctx.policy)
            if pat:
                return ctx.ask("5", "GW503", f"{argv[0]} is given {c!r}, a secret file ({pat})"
                               + (f", in {word!r}" if word != c else ""),
                               rule=f"secrets:{pat}")
            if not walk or not os.path.isdir(res.real):
                continue
            walk = walker.Walk([res.real], follow=False, hidden=True)
            found = walker._walk(res.real, walk, ctx.policy, [walker.WALK_LIMIT])
            if found is None:
                continue
            kind, path = found
            if kind == "secret":
                return ctx.ask("5", "GW506", f"{c!r} holds the secret {path!r}, and what the "
                               "program reads below it is not known", rule="secrets:walk")
            return ctx.ask("5", "GW507", f"{c!r} cannot be proven free of secrets ({kind}: "
                           f"{path!r})", rule="secrets:walk")
    return None
