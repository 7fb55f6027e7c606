"""Phase 7B2: subcommand_ask (git push, git reset --hard, gh pr merge, ...).

The tool's global options are skipped the way the tool reads them (git -C dir, git
--git-dir=x, gh -R repo anywhere), so shifting words with an option no longer hides the
subcommand. A global option that can run code (git -c, --exec-path) or that is unknown
stops the allow. Rule words starting with "-" must be among the options (clusters split,
long options abbreviated); other words must be among the positionals (".", "./", "./." are
one pathspec).
"""

import posixpath

from gateway.shell import argv as argvmod

PHASE = "7B2"


class Invocation:
    """A subcommand tool's command line after its global options."""

    __slots__ = ("words", "cwd_values", "path_values", "error")

    def __init__(self, words, cwd_values, error="", path_values=()):
        self.words = words  # from the subcommand on (anywhere-options removed)
        self.cwd_values = cwd_values  # values of directory-changing options (git -C)
        self.error = error  # why the global options are not acceptable
        self.path_values = list(path_values)  # other global option values (--git-dir=x)


def _strip_anywhere(words, flags):
    out = []
    i = 0
    while i < len(words):
        w = words[i]
        name = w.split("=", 1)[0]
        if name in flags:
            i += 1 if "=" in w else 2
            continue
        if len(w) > 2 and w[:2] in flags and not w.startswith("--"):
            i += 1
            continue
        out.append(w)
        i += 1
    return out


def invocation(spec, words) -> Invocation:
    if spec.anywhere_value_flags:
        words = _strip_anywhere(words, spec.anywhere_value_flags)
    cwd_values = []
    path_values = []
    i = 0
    n = len(words)
    while i < n:
        w = words[i]
        if not w.startswith("-") or w == "-":
            break
        if w == "--":
            i += 1
            break
        name = w.split("=", 1)[0]
        short = w[:2] if not w.startswith("--") else name
        for u in spec.global_unsafe_flags:
            if name == u or short == u or (u.startswith("--") and argvmod.long_matches(name, u)):
                return Invocation(words[i:], cwd_values,
                                  f"the global option {u} can run arbitrary programs")
        if name in spec.global_value_flags:
            if "=" in w:
                value = w.split("=", 1)[1]
                i += 1
            elif i + 1 < n:
                value = words[i + 1]
                i += 2
            else:
                return Invocation([], cwd_values, f"the global option {name} lacks a value")
            if name in spec.global_cwd_flags:
                cwd_values.append(value)
            elif name not in spec.global_text_flags:
                path_values.append(value)
            continue
        if short in spec.global_value_flags and len(w) > 2:
            if short in spec.global_cwd_flags:
                cwd_values.append(w[2:])
            elif short not in spec.global_text_flags:
                path_values.append(w[2:])
            i += 1
            continue
        if name in spec.global_flags:
            i += 1
            continue
        return Invocation(words[i:], cwd_values, f"unknown global option {name} before the "
                          "subcommand")
    return Invocation(words[i:], cwd_values, path_values=path_values)


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


def only_prints(spec, words) -> bool:
    """With `words` (after the subcommand), does the entry `spec` only print what it would do?
    One of its `dry_run` options is in force at the end (a later `--no-dry-run` turns it off,
    as git reads it; `-e -n` is an exclude pattern, not -n) and every option is one the
    entry allows (an unknown one, such as `--end-of-options`, may change how the rest is
    read)."""
    if not spec.dry_run or spec.safe_flags is None:
        return False
    args = argvmod.parse(words, spec.value_flags, spec.long_options, spec.optional_flags)
    on = False
    for opt in args.options:
        name = opt.name
        if name not in spec.safe_flags and not argvmod.abbreviates_only(
                name, spec.options, spec.safe_flags):
            return False
        if name in spec.dry_run:
            on = opt.value is None
        elif name.startswith("--no-") and "--" + name[5:] in spec.dry_run:
            on = False
    return on


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
