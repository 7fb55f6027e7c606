"""Small checks for everyday tools a new user meets (issue 25): yq's expression, python's
compileall module, coverage run.

Each returns (verdict or None, path candidates, written candidates[, inner]) as every check
does (checks/__init__.py); anything not understood asks.
"""

from gateway.validator.checks._common import PHASE
from gateway.validator.checks.buildtools import _refuse, formatter, generic

# --- yq ------------------------------------------------------------------------------------

#: Functions a plain yq expression may pipe into: they only reshape what was selected.
_YQ_WORDS = frozenset(("keys", "length", "to_entries", "sort_keys", "type", "tag", "key",
                       "parent", "unique", "flatten", "reverse", "first", "last", "min",
                       "max", "add", "explode", "to_yaml", "to_json", "to_props"))
_NAME = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")


def _yq_path(token) -> bool:
    """`.`, `.a.b`, `.a[0]`, `.a[]`, `.["x-y"]`, `.a.*`: a path that only selects."""
    t = token
    if not t.startswith("."):
        return False
    i = 0
    while i < len(t):
        if t[i] == ".":
            i += 1
            j = i
            while j < len(t) and (t[j] in _NAME or t[j] == "*"):
                j += 1
            i = j
        elif t[i] == "[":
            j = t.find("]", i)
            if j < 0:
                return False
            inner = t[i + 1:j]
            if not (inner == "" or inner.isdigit() or (
                    len(inner) >= 2 and inner[0] == inner[-1] == '"'
                    and all(c in _NAME or c == "." for c in inner[1:-1]))):
                return False
            i = j + 1
        else:
            return False
    return True


def yq(ctx, spec, words, cwd):
    """yq EXPRESSION FILE...: the expression is plain paths piped into reshaping functions
    (`.services`, `.a[0] | keys`) or it asks: yq's functions read files (load), the
    environment (env, strenv) and evaluate text (eval); `=` and `|=` change the document
    (and with -i the file)."""
    label = spec.name
    verdict, args, cands, written = generic(ctx, spec, words, positionals=False)
    if verdict is not None:
        return _refuse(verdict)
    pos = list(args.positionals)
    if not pos:
        return _refuse(ctx.ask(PHASE, "GW712", f"{label} without an expression",
                               rule=f"catalogue:{label}"))
    expr, files = pos[0], pos[1:]
    tokens = [t.strip() for t in expr.split("|")]
    if not tokens or not _yq_path(tokens[0]) or not all(
            _yq_path(t) or t in _YQ_WORDS for t in tokens[1:]):
        return _refuse(ctx.ask(PHASE, "GW710", f"{label} {expr!r}: an expression beyond "
                               "plain paths (yq's functions read files and the environment, "
                               "and `=` changes the document)", rule=f"catalogue:{label}"))
    return None, cands + files, written


# --- python -m compileall -------------------------------------------------------------------

def compileall(ctx, spec, words, cwd):
    """`python -m compileall DIR...` writes __pycache__/*.pyc beside the .py files below
    the directories it is given (judged as a formatter of *.py there: nothing protected);
    without a directory it compiles every directory of sys.path, outside the project."""
    verdict, args, _c, _w = generic(ctx, spec, words)
    if verdict is not None:
        return _refuse(verdict)
    if not args.positionals or "-" in args.positionals:
        # (py_compile, given no file or `-`, reads the names from standard input)
        return _refuse(ctx.ask(PHASE, "GW712", f"{spec.name} without a directory compiles "
                               "every directory on sys.path, outside the project (py_compile: "
                               "the files named on its input)",
                               rule=f"catalogue:{spec.name}"))
    return formatter(ctx, spec, words, cwd)


# --- coverage run ---------------------------------------------------------------------------

def coverage_run(ctx, spec, words, cwd):
    """`coverage run [OPTIONS] -m MODULE ARGS`: MODULE (one of python's safe_modules) runs
    under measurement and is judged as itself (`coverage run -m pytest` is pytest); the
    data file it writes is the project's. A script path asks."""
    label = spec.name
    i = 0
    opts = []
    while i < len(words) and words[i].startswith("-") and words[i] != "-m":
        opts.append(words[i])
        name = words[i].split("=", 1)[0]
        if "=" not in words[i] and name in spec.value_flags:
            if i + 1 >= len(words):
                break
            opts.append(words[i + 1])
            i += 1
        i += 1
    verdict, _args, cands, written = generic(ctx, spec, opts)
    if verdict is not None:
        return _refuse(verdict)
    if i + 1 >= len(words) or words[i] != "-m":
        return _refuse(ctx.ask(PHASE, "GW712", f"{label} runs a script; only `-m MODULE` "
                               "with one of python's safe modules is judged",
                               rule=f"catalogue:{label}"))
    module = words[i + 1]
    interp = ctx.policy.interpreters.get("python3")
    if interp is None or module not in interp.safe_modules:
        return _refuse(ctx.ask(PHASE, "GW401", f"{label} -m {module}: the module's code is "
                               "not judged", rule=f"catalogue:{label}"))
    return None, cands, written, ([module] + list(words[i + 2:]), cwd)
