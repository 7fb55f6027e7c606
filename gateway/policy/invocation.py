"""How a subcommand tool's command line reads, from its catalogue entry (gateway.policy.spec):
its global options before the subcommand (git -C dir, git --git-dir=x, gh -R repo anywhere)
and whether a subcommand only prints what it would do (a dry run). Read by both hooks: the
validator (phase 7B2's subcommand rules, 7C's arguments, checks/git.py) and the guards'
effects analysis (its subcommand descent, git's dry runs).
"""

from gateway.shell import argv as argvmod


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
