"""What `find START... EXPR` lists, for a find whose expression only tests: the entries
below each start (as find shows them: `./src/x.py`, `src/x.py`), no symbolic link followed
(find's default -P), narrowed by a top-level conjunction of -name, -iname, -type and
-maxdepth. Any other test, a negation or an alternative (-o) leaves the listing a superset
of what find selects: more names, never fewer, so a judgement of every listed entry covers
what find will act on. Used for `find ... | xargs CMD` (gateway.validator.xargs: the names
CMD gets) and `find ... -delete` (the files it removes: checks/tools.py and the guards'
effects analysis).

Standard library only (the hook path imports it when a command has such a find).
"""

import os
import posixpath
import stat

#: Directory entries listed at most; more is "not listed".
WALK_LIMIT = 20000
#: Entries returned at most.
MAX_ENTRIES = 5000

_TESTS_WITH_VALUE = frozenset(("-name", "-iname", "-path", "-ipath", "-wholename",
                               "-iwholename", "-type", "-xtype", "-maxdepth", "-mindepth",
                               "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin",
                               "-newer", "-size", "-perm", "-regex", "-iregex", "-user",
                               "-group", "-links", "-uid", "-gid", "-regextype"))
_TESTS = frozenset(("-empty", "-readable", "-writable", "-executable", "-true", "-false",
                    "-nouser", "-nogroup", "-daystart", "-depth", "-xdev", "-mount",
                    "-noleaf", "-prune"))
_OPERATORS = frozenset(("!", "-not", "-a", "-and", "-o", "-or", "(", ")", ","))


class Unlisted(Exception):
    """Why what find acts on is not listed."""


def listing(roots, argv, cwd, actions, exact_only=False):
    """([(shown, absolute path, kind "f" | "d" | "l")], NUL-separated output?) for `find
    ...` (argv, with find's name first) run in `cwd`, whose only actions are among `actions`
    (-print, -print0, -delete); raises Unlisted. `exact_only`: raise Unlisted as well when
    the listing would be a superset (a test other than -name, -iname, -type and -maxdepth,
    a negation, an alternative, parentheses)."""
    words = argv[1:]
    starts = []
    i = 0
    while i < len(words) and not words[i].startswith("-") and words[i] not in ("!", "("):
        starts.append(words[i])
        i += 1
    if not starts:
        starts = ["."]
    expr = words[i:]
    printed = set()
    globs = []  # top-level positive -name / -iname globs (a conjunction)
    types = None
    maxdepth = None
    disjunction = any(w in ("-o", "-or", ",") for w in expr)
    k = 0
    negated = False
    depth = 0
    while k < len(expr):
        w = expr[k]
        if w in _OPERATORS:
            if exact_only and w not in ("-a", "-and"):
                raise Unlisted(f"find {w}: what it selects is not listed exactly")
            negated = w in ("!", "-not")
            depth += w == "("
            depth -= w == ")"
            k += 1
            continue
        if w in ("-print", "-print0", "-delete"):
            if w not in actions:
                raise Unlisted(f"find {w} here is not modelled")
            if w != "-delete":
                printed.add(w)
            if len(printed) > 1:
                raise Unlisted("find prints with both -print and -print0")
            k += 1
            negated = False
            continue
        if w in _TESTS:
            if exact_only and w not in ("-depth", "-true"):
                raise Unlisted(f"find {w}: what it selects is not listed exactly")
            k += 1
            negated = False
            continue
        if w in _TESTS_WITH_VALUE:
            if k + 1 >= len(expr):
                raise Unlisted(f"find {w} without its value")
            value = expr[k + 1]
            if w == "-maxdepth":
                if not value.isdigit():
                    raise Unlisted(f"find -maxdepth {value!r}")
                maxdepth = int(value)
            elif not disjunction and not negated and depth == 0:
                if w in ("-name", "-iname"):
                    globs.append((value, w == "-iname"))
                elif w == "-type" and value and all(c in "fdl," for c in value):
                    types = set(value.replace(",", ""))
                elif exact_only:
                    raise Unlisted(f"find {w}: what it selects is not listed exactly")
            k += 2
            negated = False
            continue
        raise Unlisted(f"find {w}: an action or option whose effect is not reproduced "
                       "(-exec, -printf, -ls, -L ...)")
    from gateway.paths import lexical, resolve

    found = []
    budget = [WALK_LIMIT]
    for start in starts:
        res = resolve(start, cwd, roots)
        if res.status != "inside":
            raise Unlisted(f"find starts at {start!r}, outside the project")
        _list(lexical(start, cwd), start, 0, maxdepth, globs, types, found, budget)
    return found, "-print0" in printed


def _selected(name, kind, globs, types) -> bool:
    from gateway.paths import fnmatchcase

    if types is not None and kind not in types:
        return False
    for glob, fold in globs:
        if not (fnmatchcase(name.lower(), glob.lower()) if fold else fnmatchcase(name, glob)):
            return False
    return True


def _list(path, shown, depth, maxdepth, globs, types, found, budget):
    """Append (shown, path, kind) for `path` and, find-like, what is below it."""
    stack = [(path, shown, depth)]
    while stack:
        path, shown, depth = stack.pop()
        try:
            st = os.lstat(path)
        except OSError as exc:
            raise Unlisted(f"{shown!r} cannot be looked at ({exc.strerror})") from None
        kind = "l" if stat.S_ISLNK(st.st_mode) else "d" if stat.S_ISDIR(st.st_mode) else "f"
        base = posixpath.basename(shown.rstrip("/")) or shown
        if _selected(base, kind, globs, types):
            found.append((shown, path, kind))
            if len(found) > MAX_ENTRIES:
                raise Unlisted(f"more than {MAX_ENTRIES} entries")
        if kind != "d" or (maxdepth is not None and depth >= maxdepth):
            continue
        try:
            with os.scandir(path) as it:
                names = sorted(e.name for e in it)
        except OSError as exc:
            raise Unlisted(f"{shown!r} cannot be listed ({exc.strerror})") from None
        budget[0] -= len(names)
        if budget[0] < 0:
            raise Unlisted(f"the tree below {shown!r} holds more than {WALK_LIMIT} entries")
        for name in reversed(names):
            child = shown + name if shown.endswith("/") else f"{shown}/{name}"
            stack.append((os.path.join(path, name), child, depth + 1))
