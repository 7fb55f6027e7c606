"""Commands that run other commands: wrappers (`command`, `env`, `nice`, `timeout`, `xargs`...),
runners that are never read-only themselves (`exec`, `eval`, `sudo`, `nohup`, `watch`...),
shells (`bash -c '...'` is analysed, a script or standard input is not visible) and
interpreters (never read-only; `perl -i`/`ruby -i` name the files they edit)."""

import posixpath

from gateway.effects.analysis._base import (
    _CD_VARS,
    DISPATCH,
    _mentions_commit_push,
    _write,
    may_write,
)

# --- wrappers, shells, interpreters ----------------------------------------------------------

def _wrapper(eff, name, words, env):
    value_flags = env.model.wrappers[name]
    i = 1
    n = len(words)
    while i < n:
        w = words[i]
        if not w.literal:
            eff.unknown.append(f"{name} has a computed argument {w.raw!r}")
            writer = next((x.value for x in words[i + 1:] if x.literal and may_write(
                env.model, posixpath.basename(x.value).lower())), None)
            if writer:  # `xargs -I{} cp {} dir`: the command it runs may write anywhere
                eff.unresolved.append(f"{name} has a computed argument {w.raw!r} and runs "
                                      f"{writer}, so what it writes is not known")
            return
        v = w.value
        if v == "--":
            i += 1
            break
        if v.startswith("-") and len(v) > 1:
            opt = v.split("=", 1)[0]
            if name == "env" and opt in ("-S", "--split-string"):
                why = f"env {opt} runs a command line that is not analysed"
                eff.unknown.append(why)
                eff.unresolved.append(why)
                return
            if name == "env" and opt in ("-C", "--chdir"):
                # the command runs in that directory: its relative paths are unknown
                eff.unknown.append(f"env {opt} changes where the command runs")
                env = env.derive(cwds=None)
                i += 1 if "=" in v or (opt == "-C" and len(v) > 2) else 2
                continue
            if name in ("command", "builtin") and v in ("-v", "-V"):
                return  # prints what a name is
            if name == "time" and opt in ("-o", "--output"):
                out = v.split("=", 1)[1] if "=" in v else (words[i + 1].value
                                                           if i + 1 < n else "")
                if out:
                    _write(eff, out, "time -o", env)
            takes = opt in value_flags or (len(v) == 2 and v in value_flags)
            if "=" not in v and takes:
                i += 2
            elif not v.startswith("--") and v[:2] in value_flags and len(v) > 2:
                i += 1  # -n5
            else:
                i += 1
            continue
        if name == "env" and "=" in v:
            eff.unknown.append(f"env {v!r} changes the environment of what runs")
            if v.split("=", 1)[0].split("[", 1)[0] in _CD_VARS:
                env = env.derive(cwds=None)  # `env CDPATH=.. bash -c 'cd x && ...'`
            i += 1
            continue
        if name == "timeout":
            i += 1  # the duration
            name = "timeout:done"
            continue
        break
    if i >= n:
        return  # env alone prints the environment; xargs alone echoes its input
    inner_env = env.derive(extra="xargs") if name == "xargs" else env
    DISPATCH.argv(eff, words[i:], inner_env)


def _runner(eff, name, words, env):
    value_flags, joined = env.model.runners[name]
    eff.unknown.append(f"{name} runs a command and is never read-only")
    i = 1
    n = len(words)
    while i < n and words[i].literal:
        v = words[i].value
        if v == "--":
            i += 1
            break
        if name == "eval" or not v.startswith("-") or len(v) == 1:
            break  # eval takes no options: `eval -x` runs the command -x
        i += 2 if "=" not in v and v in value_flags else 1
    rest = words[i:]
    if not rest:
        return
    if joined:  # eval and watch run their arguments, joined by spaces, as shell code
        if all(w.literal for w in rest):
            eff.merge(DISPATCH.analyze(" ".join(w.value for w in rest), None, env.home,
                                       env.depth + 1, env.cwds, _model=env.model))
        else:
            eff.commit_push_maybe.append(f"{name} runs computed shell code, which may commit "
                                         "or push")
        return
    DISPATCH.argv(eff, rest, env.nested())


def _shell(eff, name, words, env):
    argv = [w.value if w.literal else None for w in words]
    i = 1
    n = len(words)
    code_index = None
    from_input = False  # -s / -i: commands come from the input, the arguments are arguments
    while i < n:
        v = argv[i]
        if v is None:
            eff.unknown.append(f"{name} has a computed argument {words[i].raw!r}")
            return
        if v in ("--version",) and n == 2:
            return
        if v == "--":
            i += 1
            break
        if v in ("--norc", "--noprofile", "--posix", "--noediting"):
            i += 1
            continue
        if v.startswith("--"):
            # not understood, but the code it runs is still looked at (bash --login -c ...)
            eff.unknown.append(f"{name} {v}: option not understood")
            i += 1
            continue
        if v.startswith(("-", "+")) and len(v) > 1:
            letters = v[1:]
            if v == "-o" or v == "+o":
                i += 2
                continue
            bad = set(letters) - set("ceuxvfnahkmpBCEHPT")
            if bad or "i" in letters or "l" in letters or "s" in letters:
                eff.unknown.append(f"{name} {v}: option not understood")
                from_input = from_input or "s" in letters or "i" in letters
            if "c" in letters:
                code_index = i + 1
                i += 1
                break
            i += 1
            continue
        break
    if code_index is None:
        if i < n and not from_input:
            eff.unknown.append(f"{name} runs the script {argv[i]!r} (its effects are not "
                               "visible)")
        else:
            eff.unknown.append(f"{name} runs commands from its input")
            eff.commit_push_maybe.append(f"{name} runs commands from its input (not visible), "
                                         "which may commit or push")
        return
    if code_index >= n or argv[code_index] is None:
        eff.unknown.append(f"{name} -c runs code that is not visible")
        eff.commit_push_maybe.append(f"{name} -c runs code that is not visible, which may "
                                     "commit or push")
        return
    inner = DISPATCH.analyze(argv[code_index], None, env.home, env.depth + 1, env.cwds,
                             _model=env.model)
    eff.merge(inner)


def _interpreter(eff, name, words, env):
    argv = tuple(w.value if w.literal else None for w in words[1:])
    if len(argv) == 1 and argv[0] in env.model.version_words:
        return
    module = _safe_module(name, words, env)
    if module is not None:
        # `python3 -m pip list` is `pip list`, as the validator judges it (safe_modules)
        from gateway.effects.analysis._base import _W

        first, rest = module
        return DISPATCH.argv(eff, [_W(first)] + list(rest), env)
    inplace = name.startswith(("perl", "ruby")) and any(
        a is not None and a.startswith("-") and not a.startswith("--") and "i" in a[1:]
        for a in argv)
    if inplace:
        # perl -pi -e CODE FILES: the files are edited in place
        code_flags = "eE" if name.startswith("perl") else "e"
        files = []
        skip = False
        has_code = False
        for a in argv:
            if skip:
                skip = False
                continue
            if a is None:
                continue
            if a.startswith("-") and not a.startswith("--") and len(a) > 1:
                letters = a[1:]
                for k, ch in enumerate(letters):
                    if ch in code_flags:
                        has_code = True
                        if k == len(letters) - 1:
                            skip = True
                        break
                    if ch in "IMmlx0" or ch == "i":
                        break  # the rest of the word is the flag's value
                continue
            files.append(a)
        if not has_code and files:
            files = files[1:]  # the first positional is the script
        for f in files:
            _write(eff, f, f"{name} -i", env)
        if not files or any(a is None for a in argv):
            eff.unresolved.append(f"{name} -i edits files it does not name")
    eff.unknown.append(f"{name} runs a program (inline code or a script) whose effects are "
                       "not visible")
    if any(_mentions_commit_push(a, env.model) for a in argv):
        eff.commit_push_maybe.append(f"{name}'s inline code runs git, and may commit or push")


def _safe_module(name, words, env):
    """(module, the words after it) for `INTERP [safe flags] -m MODULE ...` when MODULE is
    among the interpreter's safe_modules (rules/default.yaml), else None."""
    policy = getattr(env.model, "policy", None)
    interp = policy.interpreters.get(name) if policy is not None else None
    if interp is None or not interp.safe_modules:
        return None
    i = 1
    while i < len(words):
        w = words[i]
        if not w.literal or not w.value.startswith("-") or w.value.startswith("--"):
            return None
        letters = w.value[1:]
        k = letters.find("m")
        if k < 0:
            if not letters or any(c not in interp.safe_flags for c in letters):
                return None
            i += 1
            continue
        if any(c not in interp.safe_flags for c in letters[:k]):
            return None
        if letters[k + 1:]:
            module, rest = letters[k + 1:], words[i + 1:]
        elif i + 1 < len(words) and words[i + 1].literal:
            module, rest = words[i + 1].value, words[i + 2:]
        else:
            return None
        return (module, rest) if module in interp.safe_modules else None
    return None
