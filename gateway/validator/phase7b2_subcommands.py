"""Phase 7B2: subcommand_ask (git push, git reset --hard, gh pr merge, ...).

The tool's global options are skipped the way the tool reads them (git -C dir, git
--git-dir=x, gh -R repo anywhere), so shifting words with an option no longer hides the
subcommand. A global option that can run code (git -c, --exec-path) or that is unknown
stops the allow. Rule words starting with "-" must be among the options (clusters split,
long options abbreviated); other words must be among the positionals (".", "./", "./." are
one pathspec).
"""

import posixpath

from gateway.policy.invocation import Invocation, invocation, only_prints  # noqa: F401
from gateway.shell import argv as argvmod

PHASE = "7B2"


def _same_pathspec(a: str, b: str) -> bool:
    return a == b or posixpath.normpath(a) == posixpath.normpath(b)


def matches(rule_words, inv_words) -> bool:
    """Does a subcommand_ask rule (words after the tool) match the words after the global
    options?"""
    if not inv_words or inv_words[0] != rule_words[0]:
        return False
    rest = argvmod.parse(inv_words[1:])
    names = [o.name for o in rest.options]
    for part in rule_words[1:]:
        if part.startswith("-"):
            if part.startswith("--"):
                if not any(n.startswith("--") and argvmod.long_matches(n, part) for n in names):
                    return False
            elif part not in names:
                return False
        elif not any(_same_pathspec(p, part) for p in rest.positionals):
            return False
    return True


def _covers(ctx, name, rule_words, words) -> bool:
    """Does the matched rule cover this form? A rule that names only a subcommand leaves its
    dry run (the catalogue entry's `dry_run` options) to the entry."""
    if len(rule_words) != 2:
        return True
    spec = ctx.policy.command(name)
    sub = spec.subcommands.get(rule_words[1]) if spec is not None and spec.subcommands else None
    if sub is not None and len(words) == 2 and words[1] in sub.resumes:
        ctx.step(PHASE, "info", "", f"{' '.join(rule_words)} {words[1]}: continues or ends "
                 "an operation already under way: judged by the catalogue")
        return False
    if sub is None or not sub.dry_run or not only_prints(sub, words[1:]):
        return True
    ctx.step(PHASE, "info", "", f"{' '.join(rule_words)} {' '.join(words[1:])}: a dry run "
             "(it only prints what it would do): judged by the catalogue")
    return False


def run(ctx, name: str, argv):
    rules = [(text, words) for text, words in ctx.policy.subcommand_ask if words[0] == name]
    spec = ctx.policy.command(name)
    if spec is not None and len(argv) == 2 and argv[1] in spec.info_flags:
        return None  # `cargo --version`: 7C allows the entry's version and help words
    if not rules and not (spec and spec.has_global):
        return None
    if spec is not None and spec.has_global:
        inv = invocation(spec, argv[1:])
        if inv.error:
            return ctx.ask(PHASE, "GW713", f"{name}: {inv.error}", rule=f"catalogue:{name}")
        words = inv.words
    else:
        words = argv[1:]
    if spec is not None and len(words) == 2 and words[1] in spec.subcommand_help \
            and not words[0].startswith("-"):
        return None  # `git push --help` is `git help push` (7C)
    for text, rule_words in rules:
        if ctx.exposure:
            break  # what it reads is judged from its catalogue entry (7C)
        if matches(rule_words[1:], words) and _covers(ctx, name, rule_words, words):
            return ctx.ask(PHASE, "GW707", f"{text!r} needs the human",
                           rule=f"subcommand_ask:{text}")
    return None
