"""What every named check shares: its phase, the two ways it refuses, and the <rev>:<path>
secret check that git checks and phase 7C both use."""

from gateway.paths import is_secret, lexical

PHASE = "7C"


def _unsafe(ctx, what, why):
    return ctx.ask(PHASE, "GW704", f"{what}: {why}")


def _program(ctx, what, why):
    return ctx.ask(PHASE, "GW710", f"{what}: {why}")


def git_excludes(word) -> bool:
    """A git pathspec that excludes (`:!x`, `:^x`, `:(exclude)x`, `:(top,exclude)x`): it
    names what is not read."""
    if word.startswith((":!", ":^")):
        return True
    if word.startswith(":(") and ")" in word:
        return "exclude" in word[2:word.index(")")].split(",")
    return False


def revision_secret(ctx, label, words, cwd, rule=None):
    """git names a file in a commit or the index as <rev>:<path>, :<n>:<path> or :<path>
    (and git log -L as <start>,<end>:<path> or :<func>:<path>): the path after any colon
    may be a secret (HEAD:.envrc, :credentials). An excluding pathspec is not one. An ask
    verdict, or None."""
    for word in words:
        if git_excludes(word):
            continue
        start = word.find(":")
        while start != -1:
            rest = word[start + 1:]
            if rest:
                secret = is_secret((lexical(rest, cwd),), ctx.policy)
                if secret:
                    return ctx.ask("5", "GW503", f"{label} {word!r} names the secret file "
                                   f"{rest!r} ({secret})", rule=f"secrets:{secret}")
            start = word.find(":", start + 1)
    return None
