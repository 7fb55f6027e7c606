"""Phase 4: interpreter flag normalisation.

Clusters are split (-uB is -u -B), --flag=value is matched as --flag (also abbreviated),
and each flag must be in the interpreter's safe table. A dangerous flag anywhere in a
cluster is reported first (-xc has the dangerous -c). The first non-flag word is the script;
its arguments belong to the script and are not interpreter flags. `python3 -m MODULE` is
accepted for the policy's safe modules and judged as that module's command.
"""

from gateway.shell.argv import long_matches

PHASE = "4"


class Normalised:
    """The outcome for an interpreter command line."""

    __slots__ = ("script_index", "module", "verdict")

    def __init__(self, script_index=None, module=None, verdict=None):
        self.script_index = script_index  # index in argv of the script path
        self.module = module  # (module name, index of its first argument) for -m
        self.verdict = verdict  # an ask verdict when the flags are not safe


def run(ctx, argv, interp, cwd=None) -> Normalised:
    name = argv[0]
    i = 1
    n = len(argv)
    while i < n:
        word = argv[i]
        if word == "--":
            i += 1
            break
        if word == "-":
            return Normalised(verdict=ctx.ask(PHASE, "GW403", f"{name} - reads the program "
                                              "from standard input"))
        if word.startswith("--"):
            flag = word.split("=", 1)[0]
            for d in interp.dangerous_long_flags:
                if long_matches(flag, d):
                    return Normalised(verdict=ctx.ask(
                        PHASE, "GW401", f"{name} {d} runs code or files given to it",
                        rule=f"interpreters:{interp.name}:{d}"))
            return Normalised(verdict=ctx.ask(PHASE, "GW402", f"{name}: unknown flag {flag}",
                                              rule=f"interpreters:{interp.name}"))
        if word.startswith("-") or (word.startswith("+") and len(word) > 1
                                    and interp.name in ("bash", "sh")):
            letters = word[1:]
            for k, ch in enumerate(letters):
                if ch in interp.dangerous_flags:
                    if ch == "m" and interp.safe_modules:
                        module = letters[k + 1:] or (argv[i + 1] if i + 1 < n else "")
                        first_arg = i + 1 if letters[k + 1:] else i + 2
                        if module in interp.safe_modules and all(
                                c in interp.safe_flags for c in letters[:k]):
                            ctx.step(PHASE, "pass", "", f"{name} -m {module}: judged as "
                                     f"{module}")
                            return Normalised(module=(module, first_arg))
                    if ch == "m":
                        module = letters[k + 1:] or (argv[i + 1] if i + 1 < n else "")
                        what = (f"runs the module {module!r} (its code is not judged)"
                                if module else "runs a module named on the command line")
                        return Normalised(verdict=ctx.ask(
                            PHASE, "GW401", f"{name} -m {what}",
                            rule=f"interpreters:{interp.name}:-m"))
                    if ch == "c" and interp.name == "python3" and all(
                            c in interp.safe_flags for c in letters[:k]):
                        code = letters[k + 1:] or (argv[i + 1] if i + 1 < n else None)
                        rest = argv[i + 1:] if letters[k + 1:] else argv[i + 2:]
                        return _python_code(ctx, name, code, rest, cwd or ctx.cwd)
                    return Normalised(verdict=ctx.ask(
                        PHASE, "GW401", f"{name} -{ch} runs code given on the command line",
                        rule=f"interpreters:{interp.name}:-{ch}"))
            for ch in letters:
                if ch not in interp.safe_flags:
                    return Normalised(verdict=ctx.ask(
                        PHASE, "GW402", f"{name}: unknown flag -{ch} (in {word})",
                        rule=f"interpreters:{interp.name}"))
            i += 1
            continue
        break
    if i >= n:
        return Normalised(verdict=ctx.ask(PHASE, "GW403", f"{name} without a script reads "
                                          "code from standard input"))
    ctx.step(PHASE, "pass", "", f"script {argv[i]!r}")
    return Normalised(script_index=i)


def _python_code(ctx, name, code, rest=(), cwd=None):
    """`python -c CODE`: CODE judged by Python's parser against a small model
    (gateway.validator.pycode: imports and prints of public values); else GW401."""
    rule = "interpreters:python3:-c"
    if code is None:
        return Normalised(verdict=ctx.ask(PHASE, "GW401", f"{name} -c without code", rule=rule))
    if rest:
        return Normalised(verdict=ctx.ask(
            PHASE, "GW401", f"{name} -c with arguments after the code ({rest[0]!r}): the "
            "code gets them in sys.argv, a file name among them may be read", rule=rule))
    from gateway.validator import pycode

    why = pycode.problem(code) or pycode.shadowed(code, cwd or ctx.cwd)
    if why is not None:
        return Normalised(verdict=ctx.ask(
            PHASE, "GW401", f"{name} -c runs code given on the command line, and {why}: the "
            "gateway allows only imports and prints of public values (versions, places)",
            rule=rule))
    return Normalised(verdict=ctx.allow(
        PHASE, "GW700", f"{name} -c: the code only imports modules and prints public values "
        "(judged by Python's own parser)", rule=rule))
