"""The files a command names, for what the sandbox cannot hide: a secret by content.

The sandbox hides secrets by name (denyRead). A program the gateway does not model may still
print a file whose name decides nothing but whose content is a credential, or a container
holding one (`zcat prod.ini.gz`, run by the client itself as a read-only command). Before a
call's reads are left to the OS, the files it names (every literal word, `--opt=value`
values, redirection targets, glob words expanded) are judged by content
(gateway.secrets.content); a directory it names is walked (`find deploy -exec cat {} +`,
`grep -r --bool x deploy`: a reader the gateway does not model may read all of it), at most
MAX_WALK files - beyond that it cannot be checked. A command that cannot be parsed names what
cannot be known: None, and the caller keeps its ask.
"""

import os

MAX_FILES = 512
#: Files walked below the directories a command names, at most.
MAX_WALK = 2000
_SKIP_DIRS = frozenset((".git", ".hg", ".svn"))


class TooMany(Exception):
    """A named directory holds more files than can be checked by content."""


def named_files(command: str, cwd: str):
    """Real paths of the regular files `command` names, or None when it cannot be parsed."""
    from gateway.shell.parse import ShellParseError, parse

    try:
        script = parse(command)
    except (ShellParseError, RecursionError, ValueError):
        return None
    words = []
    for cmd in script.all_commands:
        if cmd is None:
            continue
        words.extend(cmd.words[1:] if cmd.words else [])
        words.extend(r.target for r in cmd.redirects if r.target is not None)
    out = []
    for w in words:
        values = [w.value]
        if "=" in w.value and w.value.startswith("-"):
            values.append(w.value.split("=", 1)[1])
        if not w.literal:
            from gateway.shell import expand

            if not expand.has_glob(w.pattern):
                continue
            import glob

            values = glob.glob(os.path.join(cwd, w.value))[:MAX_FILES]
        for v in values:
            if not v:
                continue
            p = os.path.join(cwd, os.path.expanduser(v))
            try:
                if os.path.isfile(p):
                    out.append(os.path.realpath(p))
                elif os.path.isdir(p):
                    out.extend(_walk(os.path.realpath(p)))
            except (OSError, ValueError):
                continue
    return list(dict.fromkeys(out))


def _walk(top):
    """The regular files below `top` (links not followed, VCS directories left out);
    raises TooMany past MAX_WALK."""
    out = []
    stack = [top]
    while stack:
        d = stack.pop()
        try:
            with os.scandir(d) as it:
                entries = list(it)
        except OSError:
            continue
        for e in entries:
            try:
                if e.is_dir(follow_symlinks=False):
                    if e.name not in _SKIP_DIRS:
                        stack.append(e.path)
                elif e.is_file(follow_symlinks=False):
                    out.append(e.path)
            except OSError:
                continue
            if len(out) > MAX_WALK:
                raise TooMany(top)
    return out


#: Files below the project checked by content for a call whose reads cannot be known, at
#: most; more: the call asks (its read set cannot be bounded to files the gateway checked).
MAX_TREE = 20000


def tree_files(tops, policy):
    """Real paths of the regular files below `tops` (the project, and the working directory
    when it lies outside it) that the sandbox does not hide by name: what a program the
    gateway cannot model (`find -exec cat {} +`, `cat $(git ls-files)`, a `while read` loop
    over `ls`, an interpreter's code) may read and print from inside the sandbox. A link is
    followed to its target, inside the project or out (`find -L . -exec cat {} +`), each
    directory walked once; VCS directories are left out (git's objects and configuration: gateway.sandbox.residual), and a secret by name is
    hidden by denyRead. Raises TooMany past MAX_TREE."""
    from gateway.paths import is_secret

    out = []
    seen = set()
    for top in tops:
        stack = [os.path.realpath(top)]
        while stack:
            d = stack.pop()
            if d in seen:
                continue
            seen.add(d)
            try:
                with os.scandir(d) as it:
                    entries = list(it)
            except OSError:
                continue
            for e in entries:
                try:
                    path = e.path
                    if e.is_symlink():
                        # `find -L`, `cat link`, `grep -R`: the target is read, inside the
                        # project or out (a dangling link reads nothing)
                        path = os.path.realpath(e.path)
                        if is_secret((e.path,), policy) or is_secret((path,), policy):
                            continue
                    if os.path.isdir(path) if path != e.path else \
                            e.is_dir(follow_symlinks=False):
                        if e.name not in _SKIP_DIRS and not is_secret((path,), policy):
                            stack.append(path)
                    elif os.path.isfile(path) if path != e.path else \
                            e.is_file(follow_symlinks=False):
                        if not is_secret((path,), policy):
                            out.append(path)
                except (OSError, ValueError):
                    continue
                if len(out) > MAX_TREE:
                    raise TooMany(top)
    return list(dict.fromkeys(out))
