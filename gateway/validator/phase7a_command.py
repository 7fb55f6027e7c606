"""Phase 7A: which command really runs.

The command word is resolved through what hides it: an absolute path to a system program
(/usr/bin/git is git), a project tool (.venv/bin/pytest is pytest), letter case (SUDO is
sudo on a case-insensitive file system) and wrappers (command, env, nice, timeout, sudo,
xargs...), whose own options are skipped to find the wrapped command.
"""

import posixpath

from gateway.paths import resolve

PHASE = "7A"


class Name:
    """The outcome of resolving a command word."""

    __slots__ = ("argv", "name", "direct", "verdict")

    def __init__(self, argv=None, name="", direct=None, verdict=None):
        self.argv = argv  # argv with argv[0] replaced by the resolved name
        self.name = name  # resolved name, lower case
        self.direct = direct  # a project path run directly (for phase 6), or None
        self.verdict = verdict  # an ask verdict when the name alone decides


def resolve_name(ctx, argv, cwd) -> Name:
    word = argv[0]
    if "/" in word:
        res = resolve(word, cwd, ctx.roots)
        if res.status == "inside":
            rel = res.lex[len(ctx.roots.project):].lstrip("/") \
                if res.lex.startswith(ctx.roots.project) else ""
            parent = posixpath.dirname(rel)
            if parent in ctx.policy.project_bin_dirs:
                base = posixpath.basename(rel)
                ctx.step(PHASE, "pass", "", f"{word} is the project tool {base}")
                return _by_name(ctx, [base] + argv[1:])
            tool = ctx.policy.wrapper_tool(rel)
            if tool is not None:
                # the project's build wrapper (./mvnw, ./gradlew) is its tool, as the HEAD
                # commit holds it and the distribution its properties name
                from gateway.validator.checks import jvm

                why = jvm.wrapper_unseen(ctx, tool, res.real)
                if why is not None:
                    return Name(verdict=ctx.ask("6", "GW782", f"{word!r} is the project's "
                                                f"{tool} wrapper, but {why}: it is not code a "
                                                "human has seen. Read it, then approve it; "
                                                "commit it if it is meant to be the project's",
                                                rule=f"trusted_code:{rel}"))
                ctx.step(PHASE, "pass", "", f"{word} is the project's {tool} wrapper")
                return _by_name(ctx, [tool] + argv[1:])
            return Name(argv=argv, name=word, direct=word)
        if word.startswith("/"):
            parent = posixpath.dirname(posixpath.normpath(word))
            if parent in ctx.policy.system_bin_dirs:
                base = posixpath.basename(word)
                ctx.step(PHASE, "pass", "", f"{word} is the system program {base}")
                return _by_name(ctx, [base] + argv[1:])
        if res.status == "symlink_out":
            rel = res.lex[len(ctx.roots.project):].lstrip("/") \
                if res.lex.startswith(ctx.roots.project + "/") else ""
            if rel:
                from gateway.validator import venv

                base = venv.base_name(ctx, rel, res.real)
                if base is not None:
                    ctx.step(PHASE, "pass", "", f"{word} is the virtual environment's "
                             f"interpreter ({res.real}): judged as {base}")
                    return _by_name(ctx, [base] + argv[1:])
            return Name(verdict=ctx.ask("5", "GW502", f"{word!r} leads outside the project "
                                        f"through a symlink (to {res.real})"))
        return Name(verdict=ctx.ask("5", "GW501", f"the program {word!r} is outside the "
                                    "project"))
    return _by_name(ctx, argv)


def _by_name(ctx, argv) -> Name:
    name = argv[0]
    lname = name.lower()
    if lname != name:
        return Name(argv=[lname] + argv[1:], name=lname,
                    verdict=ctx.ask(PHASE, "GW702", f"{name!r} is written in a different case "
                                    f"than {lname!r}"))
    return Name(argv=argv, name=lname)


def peel_wrapper(argv, spec):
    """The command a wrapper runs (argv without the wrapper and its own options), or None
    when there is none."""
    value_flags = frozenset(spec.get("value_flags", ()))
    skip = spec.get("skip_positionals", 0)
    assignments = spec.get("skip_assignments", False)
    i = 1
    n = len(argv)
    while i < n:
        word = argv[i]
        if word == "--":
            i += 1
            break
        if word.startswith("-") and len(word) > 1:
            name = word.split("=", 1)[0]
            if "=" not in word and (name in value_flags or word[:2] in value_flags
                                    and len(word) == 2):
                i += 2
            else:
                i += 1
            continue
        if assignments and "=" in word and not word.startswith("="):
            i += 1
            continue
        if skip:
            skip -= 1
            i += 1
            continue
        break
    return argv[i:] if i < n else None
