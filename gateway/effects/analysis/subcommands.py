"""Catalogue entries with subcommands, for the effects analysis: `pip list`, `npm ls`,
`cargo tree`, `coverage report` are read-only where the subcommand's own entry says how to
read it (its `effects`), walked the way phase 7C walks them (global options, subcommands,
the fallback and default subcommands). A bare `X --version` / `X --help` of a catalogued
command (its `info_flags`), and `X SUB --help` (`subcommand_help`), print and write nothing.

Fail closed: a computed word, a global option that moves where the command works (`-C
DIR`), an unknown subcommand or a subcommand entry without `effects` leaves the command
unknown (not read-only), as before.
"""

INFO = "info"


def descend(model, name, words):
    """For the catalogue entry `name` without effects of its own: INFO when the words only
    print its version or help; (the subcommand's CommandSpec, the words from the
    subcommand's arguments on) when that entry has `effects`; else None."""
    policy = getattr(model, "policy", None)
    spec = policy.command(name) if policy is not None else None
    if spec is None:
        return None
    if not all(w.literal for w in words[1:]):
        return None
    rest = [w.value for w in words[1:]]
    if len(rest) == 1 and rest[0] in spec.info_flags:
        return INFO
    if spec.subcommands is None:
        return None
    if spec.has_global:
        from gateway.policy.invocation import invocation

        inv = invocation(spec, rest)
        if inv.error or inv.cwd_values:
            return None
        rest = list(inv.words)
    if (len(rest) == 2 and rest[1] in spec.subcommand_help and rest[0]
            and not rest[0].startswith("-")):
        return INFO
    while spec.subcommands is not None:
        if rest and not rest[0].startswith("-"):
            sub = rest[0]
            if sub in spec.subcommands:
                spec = spec.subcommands[sub]
                rest = rest[1:]
                continue
            if spec.fallback_subcommand is not None:
                spec = spec.subcommands[spec.fallback_subcommand]
                break
            return None
        if spec.default_subcommand is not None:
            spec = spec.subcommands[spec.default_subcommand]
            continue
        if spec.subcommand_required:
            return None
        break
    if not spec.effects:
        return None
    if len(rest) == 1 and rest[0] in spec.info_flags:
        return INFO
    return spec, words[len(words) - len(rest):]
