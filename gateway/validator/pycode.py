"""`python -c CODE` judged by Python's own parser (the standard library's ast).

The code runs without a dialog only when every statement is one of:
- an import (`import django, os`, `from importlib import metadata`): it runs installed or
  project code, the trust pytest already has; a module that acts when imported
  (`antigravity` opens a browser, any `__main__` runs a program's main) is not one;
- `print(...)` of values read from imported modules: attribute reads of public names only
  (`__version__`, `__file__`, `version`, `executable`, `path` ...), constants, f-strings,
  tuples and lists of them, constant subscripts (`sys.version_info[:2]`), and a few pure
  calls (`os.path.dirname(...)`, `importlib.metadata.version('x')`, `X.get_version()`,
  `sys.getrecursionlimit()`); `sep=`/`end=` constants.
Anything else asks: a syntax error, another call or attribute (`django.conf.settings.
SECRET_KEY` is a secret, `os.environ` the environment), open, eval/exec, __import__,
getattr, subprocess, an assignment, a loop. `node -e` has no such parser here and asks.
Imported only on this path: ast is not on the hook's plain paths.
"""

#: attributes whose value is a name, a version, a place or a platform: no secret
PUBLIC_ATTRIBUTES = frozenset((
    "__version__", "__file__", "__name__", "__path__", "VERSION", "version", "version_info",
    "executable", "prefix", "base_prefix", "exec_prefix", "base_exec_prefix", "platform",
    "path", "implementation", "byteorder", "maxsize", "hexversion", "api_version",
    "get_version", "dirname", "basename", "join", "abspath", "metadata", "cache_tag",
    "python_version", "python_implementation", "machine", "system", "release",
    "getrecursionlimit", "getdefaultencoding", "getfilesystemencoding", "float_info",
    "int_info", "abiflags", "platlibdir", "stdlib_module_names", "builtin_module_names",
    "sqlite_version", "OPENSSL_VERSION", "TkVersion", "ver", "__spec__", "origin"))

#: calls that compute from their arguments and read nothing else (dotted, as imported)
PURE_CALLS = frozenset((
    "os.path.dirname", "os.path.basename", "os.path.join", "os.path.abspath",
    "os.path.normpath", "posixpath.dirname", "posixpath.basename", "posixpath.join",
    "importlib.metadata.version", "sys.getrecursionlimit", "sys.getdefaultencoding",
    "sys.getfilesystemencoding", "platform.python_version", "platform.python_implementation",
    "platform.machine", "platform.system", "platform.release", "str", "repr", "len",
    "sorted", "list", "tuple"))

#: modules that act when imported
ACTING_MODULES = frozenset(("antigravity", "this", "idlelib", "turtledemo", "__hello__",
                            "__phello__", "pty", "tty"))


def problem(code: str):
    """Why CODE is not one of the modelled forms, or None when it is."""
    import ast

    try:
        tree = ast.parse(code, mode="exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return f"it does not parse as Python ({type(exc).__name__})"
    names = {}
    printed = False
    for node in tree.body:
        if isinstance(node, ast.Import):
            for a in node.names:
                why = _module(a.name)
                if why:
                    return why
                if a.asname:
                    names[a.asname] = a.name
                else:
                    top = a.name.split(".")[0]
                    names[top] = top
            continue
        if isinstance(node, ast.ImportFrom):
            if node.level or not node.module:
                return "a relative import"
            why = _module(node.module)
            if why:
                return why
            for a in node.names:
                if a.name == "*":
                    return "`from ... import *`"
                if a.name not in PUBLIC_ATTRIBUTES:
                    return f"it imports {a.name!r} from {node.module}, not a public name"
                names[a.asname or a.name] = f"{node.module}.{a.name}"
            continue
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and \
                isinstance(node.value.func, ast.Name) and node.value.func.id == "print" \
                and "print" not in names:
            why = _print(node.value, names)
            if why:
                return why
            printed = True
            continue
        return f"a statement that is not an import or a print ({type(node).__name__})"
    if not printed:
        # code run for what importing does (the seed's `|| python3 -c 'import os'` must
        # reject): only a print of what was imported is the modelled read
        return "it prints nothing (only imports)"
    return None


def _module(name):
    parts = name.split(".")
    if "__main__" in parts:
        return f"importing {name} runs a program's main"
    if parts[0] in ACTING_MODULES or name == "idlelib.idle":
        return f"importing {name} acts (it is not only definitions)"
    return None


def _print(call, names):
    for kw in call.keywords:
        if kw.arg not in ("sep", "end") or not isinstance(kw.value, ast_constant()):
            return f"print's {kw.arg or '**'}= is not a constant sep or end"
    for arg in call.args:
        why = _pure(arg, names)
        if why:
            return why
    return None


def ast_constant():
    import ast

    return ast.Constant


def _dotted(node, names):
    """The dotted name a Name/Attribute chain stands for (its head resolved through the
    imports), or None."""
    import ast

    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None, parts
    head = names.get(node.id)
    if head is None:
        return None, parts
    return ".".join([head] + list(reversed(parts))), parts


def _pure(node, names, depth=0):
    import ast

    if depth > 20:
        return "expressions nested too deeply"
    if isinstance(node, ast.Constant):
        return None
    if isinstance(node, (ast.Tuple, ast.List)):
        for e in node.elts:
            why = _pure(e, names, depth + 1)
            if why:
                return why
        return None
    if isinstance(node, ast.JoinedStr):
        for v in node.values:
            if isinstance(v, ast.FormattedValue):
                if v.format_spec is not None and not all(
                        isinstance(x, ast.Constant) for x in v.format_spec.values):
                    return "a computed format"
                why = _pure(v.value, names, depth + 1)
                if why:
                    return why
            elif not isinstance(v, ast.Constant):
                return "an f-string part"
        return None
    if isinstance(node, ast.Subscript):
        sl = node.slice
        ok = isinstance(sl, ast.Constant) or (isinstance(sl, ast.Slice) and all(
            x is None or isinstance(x, ast.Constant) for x in (sl.lower, sl.upper, sl.step)))
        if not ok:
            return "a computed subscript"
        return _pure(node.value, names, depth + 1)
    if isinstance(node, (ast.Name, ast.Attribute)):
        dotted, attrs = _dotted(node, names)
        if dotted is None:
            return f"{ast.unparse(node)!r} is not a name the code imported"
        for a in attrs:
            if a not in PUBLIC_ATTRIBUTES:
                return f"{ast.unparse(node)!r} reads {a!r}, not a public attribute " \
                    "(a setting may be a secret, a module may compute it)"
        return None
    if isinstance(node, ast.Call):
        if node.keywords:
            return "a call with keyword arguments"
        if isinstance(node.func, ast.Name) and node.func.id in PURE_CALLS and \
                node.func.id not in names:
            target = node.func.id
        else:
            target, attrs = _dotted(node.func, names) if isinstance(
                node.func, (ast.Name, ast.Attribute)) else (None, [])
            if target is not None and any(a not in PUBLIC_ATTRIBUTES for a in attrs[1:]):
                return f"the call {target}() reads attributes that are not public"
        if target is None:
            return f"the call {ast.unparse(node.func)!r} is not one the gateway models"
        if target not in PURE_CALLS and not (target.endswith(".get_version")
                                             and not node.args):
            return f"the call {target}() is not one the gateway knows to be pure"
        for a in node.args:
            if isinstance(a, ast.Starred):
                return "a starred argument"
            why = _pure(a, names, depth + 1)
            if why:
                return why
        return None
    return f"a {type(node).__name__} expression"


def shadowed(code: str, cwd: str):
    """Why an import of CODE may load a file of the working directory (python -c puts it
    first on sys.path: an untracked mymod.py, or a json.py shadowing the standard library,
    ran on import: red team, session 5), or None."""
    import ast
    import glob
    import os

    try:
        tree = ast.parse(code, mode="exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return "it does not parse as Python"
    tops = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            tops.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            tops.add(node.module.split(".")[0])
    for top in sorted(tops):
        base = os.path.join(cwd, top)
        if os.path.lexists(base + ".py") or os.path.lexists(base + ".pyc") or \
                os.path.isdir(base) or glob.glob(glob.escape(base) + ".*so"):
            return f"it imports {top!r}, and the working directory has a module of that " \
                "name (python -c looks there first: code nobody has judged)"
    return None
