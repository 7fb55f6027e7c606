"""The files a command names, for what the sandbox cannot hide: a secret by content.

The sandbox hides secrets by name (denyRead). A program the gateway does not model may still
print a file whose name decides nothing but whose content is a credential, or a container
holding one (`zcat prod.ini.gz`, run by the client itself as a read-only command). Before a
call's reads are left to the OS, the files it names (every literal word, `--opt=value`
values, redirection targets, glob words expanded) are judged by content
(gateway.secrets.content). A command that cannot be parsed names what cannot be known: None,
and the caller keeps its ask.
"""

import os

MAX_FILES = 512


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
            except (OSError, ValueError):
                continue
        if len(out) > MAX_FILES:
            break
    return list(dict.fromkeys(out))[:MAX_FILES]
