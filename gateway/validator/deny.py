"""The deny rules (phase 7B): catastrophic commands are denied, not asked.

Every simple command anywhere in the parse is matched (in lists, pipelines, subshells and
substitutions alike), also behind wrappers (sudo, nice, env...), and the user's own
permissions.deny rules are applied to every segment. This runs whenever a parse exists, even
when an earlier phase already refused the command, so that deny always beats ask.
"""

import os
import posixpath

from gateway.paths import fnmatchcase
from gateway.shell import argv as argvmod
from gateway.validator.phase7a_command import peel_wrapper

PHASE = "7B"
_MAX_PEEL = 8
#: Shells whose `-c CODE` runs CODE, and how deep code inside code is followed.
_SHELLS = frozenset(("sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "fish"))
_SHELL_OPTS_WITH_VALUE = frozenset(("-o", "+o", "-O", "+O", "--rcfile", "--init-file"))
_MAX_NESTING = 4
#: How many code strings (with their depth) one command's scan parses at most.
_MAX_NESTED_CODES = 256
#: Commands that run the command named by their arguments but are not wrappers of phase 7A
#: (it refuses them outright): `exec rm -rf /` and `busybox rm -rf /` are `rm -rf /`.
_RUNNERS = {"exec": {"value_flags": ["-a"]}, "busybox": {}}
#: Commands that hand a code string to a shell: the option that carries it.
_CODE_OPTIONS = {"su": ("-c", "--command"), "runuser": ("-c", "--command"),
                 "script": ("-c", "--command"), "flock": ("-c", "--command")}
#: Commands that join their arguments into one shell command line (`watch 'rm -rf /'`,
#: `sudo -s 'rm -rf /'`).
_JOINING = frozenset(("watch",))
#: How many directories `_run_dirs` follows before it gives up (and assumes / and home).
_MAX_RUN_DIRS = 64
#: Commands bashlex rejected are split and parsed piece by piece up to this length.
_FRAGMENT_SCAN_MAX = 65536


#: How many argument suffixes of one command are taken for commands it may run.
_MAX_SUFFIXES = 32
#: find's actions that run a command (the words up to `;` or `+`; `{}` is each name found)
_FIND_EXEC = ("-exec", "-execdir", "-ok", "-okdir")


class _Word(str):
    """An argument with every spelling its parameter and brace expansions may take
    (`"${HOME:?}"` is the home directory): the deny rules compare each."""

    __slots__ = ("alts",)

    def __new__(cls, value, alts):
        obj = super().__new__(cls, value)
        obj.alts = tuple(alts)
        return obj


def _alts(w) -> tuple:
    return getattr(w, "alts", (w,))


def _argv_of(cmd, home):
    """The words of a parsed command, each with the spellings its expansions may take."""
    from gateway.shell import words as sw

    out = []
    env = None
    for w in cmd.words:
        if w.literal:
            out.append(w.value)
            continue
        # a `!` is literal in the non-interactive bash the client runs (no history expansion)
        kinds = {k for k, _ in w.issues} - {sw.HISTORY}
        alts = None
        if sw.PARAM in kinds and kinds <= {sw.PARAM, sw.TILDE, sw.GLOB, sw.BRACE}:
            # (an unquoted ${...} also reports a brace)
            from gateway.shell import params

            if env is None:
                env = dict(os.environ, HOME=home)
            alts = params.values(w.raw, env, home)
            if alts and sw.BRACE in kinds and any("{" in a for a in alts):
                # (a value without `{` expands to itself: `re` is imported only for braces)
                from gateway.shell import expand

                try:
                    alts = [b for a in alts for b in expand.braces(a)]
                except (expand.TooLarge, RecursionError):
                    pass
        elif kinds <= {sw.BRACE, sw.GLOB, sw.TILDE}:
            from gateway.shell import expand

            try:
                alts = [expand.unescape(p) for p in expand.braces(w.pattern)]
            except (expand.TooLarge, RecursionError):
                alts = None
        out.append(_Word(w.value, [w.value] + list(alts or ())) if alts else w.value)
    return out


def _names(policy, argv):
    """argv, then the argv of every command it wraps, with names resolved. A command whose
    arguments the catalogue does not describe (an unknown program: `taskset 1 rm -rf /`,
    `chrt 5 ...`, a script) may run any suffix of its arguments as a command, so every
    suffix is one too; find -exec runs its words with `{}` standing for what it finds."""
    out = []
    for _ in range(_MAX_PEEL):
        if not argv:
            break
        name = posixpath.basename(argv[0]).lower()
        argv = [name] + list(argv[1:])
        out.append(argv)
        wrapper = policy.wrappers.get(name) or _RUNNERS.get(name)
        if wrapper is None:
            break
        argv = peel_wrapper(argv, wrapper)
    if not out:
        return out
    last = out[-1]
    name = last[0]
    if name in ("find", "fd", "fdfind"):
        out.extend(_exec_argvs(last))
    elif _runs_arguments(policy, name):
        for i in range(1, min(len(last), _MAX_SUFFIXES)):
            w = last[i]
            if w and not w.startswith("-") and "=" not in w.split("/")[0]:
                out.append([posixpath.basename(w).lower()] + list(last[i + 1:]))
    return out


def _runs_arguments(policy, name) -> bool:
    """May `name` run its arguments as a command? Yes unless the catalogue describes its
    arguments (a known program reads them as data: `echo rm -rf /`, `git commit -m ...`)."""
    return policy.command(name) is None and name not in _DATA_BUILTINS


#: builtins whose arguments are names or text, never a command
_DATA_BUILTINS = frozenset(("cd", "pushd", "popd", "export", "readonly", "declare", "local",
                            "typeset", "unset", "shift", "set", "shopt", "umask", "wait",
                            "read", "return", "exit", "break", "continue", "type", "hash",
                            "history", "dirs", "jobs", "let", "getopts", ":"))


def _exec_argvs(argv):
    """The commands find's -exec/-execdir/-ok/-okdir (or fd's -x/-X) run, `{}` replaced by
    each starting point (what they find lies below, the starting point included)."""
    name = argv[0]
    words = argv[1:]
    if name == "find":
        starts = []
        for w in words:
            if w.startswith("-") or w in ("(", "!"):
                break
            starts.append(w)
        starts = starts or ["."]
        out = []
        i = 0
        while i < len(words):
            if words[i] in _FIND_EXEC:
                j = i + 1
                while j < len(words) and words[j] not in (";", "+"):
                    j += 1
                cmd = words[i + 1:j]
                if cmd:
                    for start in starts:
                        sub = [start if w == "{}" else w for w in cmd]
                        out.append([posixpath.basename(sub[0]).lower()] + sub[1:]
                                   + ([start] if "{}" not in cmd else []))
                i = j
            i += 1
        return out
    # fd PATTERN [PATH...] -x/-X COMMAND...: the command takes the rest of the words
    for k, w in enumerate(words):
        if w in ("-x", "--exec", "-X", "--exec-batch") or w.startswith(("--exec=",
                                                                         "--exec-batch=")):
            before = [x for x in words[:k] if not x.startswith("-")]
            paths = before[1:] or ["."]
            cmd = words[k + 1:]
            if not cmd:
                return []
            return [[posixpath.basename(cmd[0]).lower()]
                    + [p if x == "{}" else x for x in cmd[1:]]
                    + ([p] if "{}" not in cmd else []) for p in paths]
    return []


def _norm_target(v: str, home: str, cwds=()) -> set:
    """The spellings of argument `v` to compare with a rule's targets: `~`, `~user`, `$HOME`
    and `${HOME}` expanded, a relative path joined to each directory the command may run in
    (`rm -rf .` in / is `rm -rf /`), `..` and `//` folded, the home directory written
    `{home}`, a trailing `/*` kept."""
    v = v.replace("${HOME}", "$HOME")
    if v == "$HOME" or v.startswith("$HOME/"):
        v = home + v[5:]
    elif v == "~" or v.startswith("~/"):
        v = home + v[1:]
    elif v.startswith("~") and v[1:2] not in ("+", "-"):
        user = os.path.expanduser(v.split("/", 1)[0])
        if user.startswith("/"):
            v = user + v[len(v.split("/", 1)[0]):]
    if v.startswith("/"):
        bases = [""]
    elif v.startswith(("~", "$")) or not cwds:
        return {v}
    else:
        bases = [c + "/" for c in cwds]
    out = set()
    for base in bases:
        w = base + v
        tail = w.endswith("/*")
        w = posixpath.normpath((w[:-2] or "/") if tail else w)
        w = "/" + w.lstrip("/")
        if w == home or w.startswith(home + "/"):
            w = "{home}" + w[len(home):]
        if tail:
            w = w.rstrip("/") + "/*"
        out.add(w)
        head, _sep, last = w.rpartition("/")
        if last and any(c in last for c in "*?[") and _catch_all(last):
            # `~/.*`, `/[a-z]*`: every entry of the directory (of one kind), as `dir/*`
            out.add((head or "") + "/*")
    return out


#: Names a glob must match all of (in one group) to stand for every entry of a directory.
_PROBES = (("bin", "etc", "usr", "var", "lib", "src", "go"),
           ("Documents", "Desktop", "Library", "Applications"),
           (".ssh", ".bashrc", ".config", ".local", ".cache", ".gnupg", ".profile", ".."))


def _catch_all(glob) -> bool:
    """Does the glob (one path component) match every name of a probe group? Then it
    removes a directory's contents like `*` does (`.*`, `.[!.]*`, `[a-z]*`, `?*`)."""
    return any(all(fnmatchcase(p, glob) for p in group if p != "..")
               for group in _PROBES)


def _hits_target(spellings, targets) -> bool:
    """A spelling equals a target, or is a glob that bash may expand to one (`/u*`, `/[u]sr`;
    a glob is matched against the target names, never the file system)."""
    if spellings & targets:
        return True
    return any(fnmatchcase(t, v) for v in spellings if any(c in v for c in "*?[")
               for t in targets)


def _run_dirs(script, cwd, home):
    """The directories the script's commands may run in: the payload's cwd and the
    destination of every `cd`/`pushd` in it whose argument is a plain path (over-approximated:
    a relative target is checked against each of them)."""
    if cwd is None:
        return ()
    dirs = {posixpath.normpath(cwd)}
    for cmd in script.all_commands:
        argv = [w.value for w in cmd.words]
        if not argv or argv[0] not in ("cd", "pushd", "chdir"):
            continue
        args = [a for a in argv[1:] if not a.startswith("-")]
        dest = args[0] if args else "~"
        if dest == "~" or dest.startswith("~/"):
            dest = home + dest[1:]
        elif dest == "$HOME" or dest.startswith("$HOME/"):
            dest = home + dest[5:]
        if dest.startswith(("~", "$")):
            continue
        if not dest.startswith("/") and len(dirs) > _MAX_RUN_DIRS:
            # each relative cd may double the set (`cd a && cd b && ...` is 2**n): past the
            # cap the directory is unknown, so the root and home, the directories the rules
            # name, are assumed (`rm -rf .` there is denied, never slow)
            dirs.update(("/", home))
            continue
        for base in list(dirs) if not dest.startswith("/") else [""]:
            dirs.add(posixpath.normpath(posixpath.join(base or "/", dest)))
    return tuple(sorted(dirs))


def _argv_matches(rule, argv, home, cwds=()) -> bool:
    name = argv[0]
    if rule.get("command") and name not in {c.lower() for c in rule["command"]}:
        return False
    if rule.get("command_prefix") and not any(name.startswith(p) for p in rule["command_prefix"]):
        return False
    if not (rule.get("command") or rule.get("command_prefix")):
        return False
    rest = argv[1:]
    words = rest  # each word with its spellings (option values are the word after the option)
    if rest and any(hasattr(w, "alts") for w in rest) and (rule.get("targets")
                                                           or rule.get("arg_globs")):
        # each spelling a word's expansions may take: an unset variable is empty, so
        # "$X/" may be "/"
        rest = [a for w in rest for a in _alts(w)]
    if rule.get("flags_any"):
        opts = [o.name for o in argvmod.parse(rest).options]
        wanted = rule["flags_any"]
        if not any(o == f or (f.startswith("--") and o.startswith("--")
                              and argvmod.long_matches(o, f)) for o in opts for f in wanted):
            return False
    if rule.get("words_any") and not any(w in rule["words_any"] for w in rest):
        return False
    if rule.get("option_targets"):
        values = _option_values(words, rule["option_targets"])
        targets = set(rule.get("targets") or ())
        return any(_hits_target(_norm_target(v, home, cwds), targets) for v in values)
    if rule.get("targets"):
        targets = {t for t in rule["targets"]}
        if not any(_hits_target(_norm_target(w, home, cwds), targets)
                   for w in rest if not w.startswith("-")):
            return False
    if rule.get("arg_globs"):
        if not any(fnmatchcase(v, g) for w in rest for v in _spellings(w)
                   for g in rule["arg_globs"]):
            return False
    return True


def _option_values(words, options) -> list:
    """The values given to `options` in `words`: `--opt=V`, `--opt V`, an abbreviation of a
    long option (`--basetem=V`, as argparse and getopt_long accept one), `-o V` and `-oV`."""
    out = []
    for i, word in enumerate(words):
        after = list(_alts(words[i + 1])) if i + 1 < len(words) else []
        for w in _alts(word):
            for opt in options:
                if opt.startswith("--"):
                    name, eq, value = w.partition("=")
                    if name.startswith("--") and argvmod.long_matches(name, opt):
                        out.extend([value] if eq else after)
                elif w == opt:
                    out.extend(after)
                elif w.startswith(opt) and len(w) > len(opt):
                    out.append(w[len(opt):])
    return out


def _fold(path: str) -> str:
    """An absolute path with `.`, `..` and repeated slashes folded (`//dev/./sda`)."""
    return "/" + posixpath.normpath(path).lstrip("/") if path.startswith("/") else path


def _spellings(word: str) -> set:
    """`word` as written and with its path (or the path after `key=`) folded."""
    out = {word, _fold(word)}
    key, eq, value = word.partition("=")
    if eq:
        out.add(key + "=" + _fold(value))
    return out


def _command_rule(rule, script, policy, home, cwds=(), cache=None) -> bool:
    for cmd in script.all_commands:
        names = cache.get(id(cmd)) if cache is not None else None
        if names is None:
            names = _names(policy, _argv_of(cmd, home))
            if cache is not None:
                cache[id(cmd)] = names
        for argv in names:
            if _argv_matches(rule, argv, home, cwds):
                return True
    return False


def _name_of(policy, cmd):
    """The names a command runs as: its own and those behind wrappers, each also without a
    version suffix (python3.11 is python, perl5.36 is perl)."""
    if cmd is None or not cmd.words:
        return set()
    names = {argv[0] for argv in _names(policy, [w.value for w in cmd.words])}
    return names | {n.rstrip("0123456789.-") for n in names} - {""}


def _nested(script, cmd):
    """Commands inside `cmd`'s text: its process and command substitutions."""
    return [c for c in script.all_commands
            if c is not cmd and cmd.start <= c.start and c.end <= cmd.end]


def _pipe_rule(rule, script, policy) -> bool:
    src = {c.lower() for c in rule["pipe_from"]}
    dst = {c.lower() for c in rule["pipe_to"]}
    for cmds in script.all_pipelines:
        seen_src = False
        for cmd in cmds:
            names = _name_of(policy, cmd)
            if seen_src and cmd is not None:  # `| tee >(sh)`
                for inner in _nested(script, cmd):
                    names = names | _name_of(policy, inner)
            if seen_src and names & dst:
                return True
            if names & src:
                seen_src = True
    return False


def _substitution_rule(rule, script, policy) -> bool:
    src = {c.lower() for c in rule["substitution_from"]}
    dst = {c.lower() for c in rule["substitution_to"]}
    for outer in script.all_commands:
        if not _name_of(policy, outer) & dst:
            continue
        for inner in script.all_commands:
            if inner is outer or not (outer.start <= inner.start and inner.end <= outer.end):
                continue
            if _name_of(policy, inner) & src:
                return True
    return False


def _redirect_rule(rule, script) -> bool:
    for cmd in script.all_commands:
        for r in cmd.redirects:
            if r.target is not None and r.op not in ("<", "<<<", "<<", "<<-"):
                if any(fnmatchcase(v, g) for v in _spellings(r.target.value)
                       for g in rule["redirect_globs"]):
                    return True
    return False


def _fork_bomb(script) -> bool:
    for name, start, end in script.functions:
        if not name:
            continue
        body = [c for c in script.all_commands if start <= c.start and c.end <= end]
        calls = [c for c in body if c.words and c.words[0].value == name]
        if not calls:
            continue
        piped = any(any(c in cmds for c in calls) for cmds in script.all_pipelines)
        if piped or len(calls) > 1:
            return True
    return False


def _shell_code(argv):
    """The CODE of `sh [options] -c CODE ...` (any -c in a cluster: -lc, -ec), else None."""
    has_c = False
    i = 1
    while i < len(argv):
        w = argv[i]
        if w in _SHELL_OPTS_WITH_VALUE:
            i += 2
            continue
        if w == "--":
            i += 1
            break
        if w.startswith("--"):
            i += 1
            continue
        if len(w) > 1 and w[0] in "-+":
            has_c = has_c or (w[0] == "-" and "c" in w[1:])
            i += 1
            continue
        break
    return argv[i] if has_c and i < len(argv) else None


#: Script names that are standard input.
_STDIN_FILES = frozenset(("/dev/stdin", "/proc/self/fd/0", "/dev/fd/0"))


def _reads_stdin(argv) -> bool:
    """Does this shell read its program from standard input (no -c, no script, or a script
    that is standard input: `bash /dev/stdin`, `source /dev/stdin`)?"""
    if argv[0] in ("source", "."):
        return len(argv) > 1 and argv[1] in _STDIN_FILES
    args = argv[1:]
    i = 0
    while i < len(args):
        w = args[i]
        if w in ("-s", "-"):
            return True
        if w in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
            i += 2  # the option's value is not the script
            continue
        if w.startswith("-") or w.startswith("+"):
            if w[0] == "-" and not w.startswith("--") and "c" in w[1:]:
                return False
            i += 1
            continue
        return w in _STDIN_FILES
    return True


def _option_value(argv, names):
    """The value of the first of `names` (`-c CODE`, `--command=CODE`, `-cCODE`)."""
    for i, w in enumerate(argv[1:], 1):
        for name in names:
            if w == name and i + 1 < len(argv):
                return argv[i + 1]
            if name.startswith("--") and w.startswith(name + "="):
                return w[len(name) + 1:]
            if not name.startswith("--") and w.startswith(name) and len(w) > len(name):
                return w[len(name):]
            if (not name.startswith("--") and w.startswith("-") and not w.startswith("--")
                    and w.endswith(name[1]) and i + 1 < len(argv)):
                return argv[i + 1]  # in a cluster: script -qc CODE
    return None


def _stdin_code(policy, script):
    """Literal text a shell reads as its program: `bash <<< CODE`, `bash <<EOF`,
    `echo CODE | sh`; and the substitutions an unquoted here-document runs."""
    from gateway.shell.heredoc import substitutions

    for cmd in script.all_commands:
        for r in cmd.redirects:
            if r.heredoc is not None and not r.heredoc[1]:
                yield from substitutions(r.heredoc[0])
        for argv in _names(policy, [w.value for w in cmd.words]):
            if (argv[0] in _SHELLS or argv[0] in ("source", ".")) and _reads_stdin(argv):
                for r in cmd.redirects:
                    if r.op == "<<<" and r.target is not None:
                        yield r.target.value
                    elif r.heredoc is not None:
                        yield r.heredoc[0]
    for cmds in script.all_pipelines:
        texts = []
        for cmd in cmds:
            if cmd is None or not cmd.words:
                continue
            argv = [w.value for w in cmd.words]
            if argv[0] == "cat" and len(argv) == 1:  # cat <<EOF ... | sh
                texts.extend(r.heredoc[0] if r.heredoc is not None else r.target.value
                             for r in cmd.redirects
                             if r.heredoc is not None or (r.op == "<<<" and r.target))
                continue
            if argv[0] in ("echo", "printf"):
                args = argv[1:]
                while args and argv[0] == "echo" and args[0] in ("-n", "-e", "-E", "-ne",
                                                                 "-en"):
                    args = args[1:]
                texts.append(" ".join(args))
                continue
            for inner in _names(policy, argv):
                if inner[0] in _SHELLS and _reads_stdin(inner):
                    yield from texts


def _nested_code(policy, script):
    """Code strings the script hands to a shell to run: `bash -c CODE`, `eval WORDS`,
    `trap CODE`, `su -c CODE`, `watch WORDS`, also behind wrappers (sudo bash -c ...), and
    literal text piped or here-stringed into a shell."""
    for cmd in script.all_commands:
        for argv in _names(policy, [w.value for w in cmd.words]):
            name = argv[0]
            if name in _SHELLS:
                code = _shell_code(argv)
                if code:
                    yield code
            elif name == "eval" and len(argv) > 1:
                yield " ".join(argv[1:])
            elif name == "trap" and len(argv) > 1:
                args = argv[2:] if argv[1] == "--" else argv[1:]
                if args and not args[0].startswith("-"):
                    yield args[0]
            elif name in _CODE_OPTIONS:
                code = _option_value(argv, _CODE_OPTIONS[name])
                if code:
                    yield code
            elif name in _JOINING or (name == "sudo" and any(
                    w in ("-s", "-i", "--shell", "--login") for w in argv[1:])):
                inner = peel_wrapper(argv, policy.wrappers.get(name, {}))
                if inner:
                    yield " ".join(inner)
            yield from _argument_code(policy, argv)
    yield from _stdin_code(policy, script)


#: catalogue programs whose program text runs commands (awk's system(), sed's `e`)
_PROGRAM_CHECKS = frozenset(("awk", "sed"))
#: git configuration keys whose value is a shell command (and `alias.*` values that start
#: with `!`)
_GIT_CODE_KEYS = ("pager", "editor", "sshcommand", "fsmonitor", "helper", "external",
                  "command", "program", "textconv", "askpass")


def _argument_code(policy, argv):
    """Code a command hands to a shell through its arguments: every argument with a space
    of a program the catalogue does not describe (`sg wheel 'rm -rf /'`, `env -S '...'`,
    `python3 -c '...'`) and the string literals inside it (`os.system("rm -rf /")`,
    `["rm", "-rf", "/"]`), the program texts of awk and sed, `alias NAME=CODE`, and git's
    -c values that are commands."""
    name = argv[0]
    spec = policy.command(name)
    if name == "alias":
        for w in argv[1:]:
            if "=" in w:
                yield w.split("=", 1)[1]
        return
    if name == "git":
        for i, w in enumerate(argv[1:-1], 1):
            if w == "-c" or w == "--config-env":
                key, _eq, value = argv[i + 1].partition("=")
                if value.startswith("!") or key.lower().rsplit(".", 1)[-1].endswith(
                        _GIT_CODE_KEYS):
                    yield value.lstrip("!")
        return
    if spec is not None and spec.check not in _PROGRAM_CHECKS:
        return
    if name in _DATA_BUILTINS or name in _SHELLS:
        return
    for w in argv[1:]:
        if any(c.isspace() for c in w) or '"' in w or "'" in w:
            yield w
            yield from _literals(w)


def _literals(code):
    """The string literals of program text (quoted with ' or "), and each bracketed list
    of them joined by spaces (an argv: `["rm", "-rf", "/"]`)."""
    import re

    strings = re.findall(r'"((?:[^"\\]|\\.)*)"|\'((?:[^\'\\]|\\.)*)\'', code)
    found = [a or b for a, b in strings]
    for text in found:
        if text:
            yield text
    for group in re.findall(r"[\[(]\s*((?:(?:\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*')\s*,\s*)+"
                            r"(?:\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'))\s*,?\s*[\])]",
                            code):
        parts = re.findall(r'"((?:[^"\\]|\\.)*)"|\'((?:[^\'\\]|\\.)*)\'', group)
        yield " ".join(shlex_quote(a or b) for a, b in parts)


def shlex_quote(word):
    import shlex

    return shlex.quote(word)


def matching_rule(policy, script, home=None, depth=0, cwd=None, _seen=None):
    """The first deny rule the parsed script matches, or None. Code the script runs through
    a shell (`bash -c 'rm -rf /'`, `eval ...`) is parsed and matched too, each distinct code
    once per depth and at most _MAX_NESTED_CODES of them (`echo X | sh | sh | sh` hands X to
    every sh: nested four deep that was k**4 parses, minutes for a few hundred characters;
    code in a shell is asked about anyway). With `cwd`, the directory the script starts in,
    relative targets are resolved (`cd / && rm -rf .`)."""
    home = home or posixpath.normpath(os.path.expanduser("~"))
    seen = set() if _seen is None else _seen
    rule = _matching_rule(policy, script, home, _run_dirs(script, cwd, home))
    if rule is not None or depth >= _MAX_NESTING:
        return rule
    for code in _nested_code(policy, script):
        from gateway.shell.parse import ShellParseError, parse

        if (code, depth) in seen:
            continue
        if len(seen) >= _MAX_NESTED_CODES:
            return None
        seen.add((code, depth))
        try:
            inners = [parse(code)]
        except (ShellParseError, RecursionError):
            # not parseable (the command is refused anyway): its fragments, as at the top
            inners = list(_fragment_parses(code)) if len(code) <= _FRAGMENT_SCAN_MAX else []
        for inner in inners:
            rule = matching_rule(policy, inner, home, depth + 1, cwd, seen)
            if rule is not None:
                return rule
    return None


def _matching_rule(policy, script, home, cwds=()):
    cache = {}
    for rule in policy.deny_rules:
        if rule.get("special") == "fork_bomb":
            hit = _fork_bomb(script)
        elif rule.get("pipe_from"):
            hit = _pipe_rule(rule, script, policy)
        elif rule.get("substitution_from"):
            hit = _substitution_rule(rule, script, policy)
        elif rule.get("redirect_globs"):
            hit = _redirect_rule(rule, script)
        else:
            hit = _command_rule(rule, script, policy, home, cwds, cache)
        if hit:
            return rule
    return None


def _fragment_scripts(ctx):
    """Parses of the top-level fragments of a command bashlex rejected as a whole."""
    return _fragment_parses(ctx.text)


def _fragment_parses(text):
    from gateway.shell.fragments import after_keywords, split
    from gateway.shell.parse import ShellParseError, parse

    fragments = split(text)
    for fragment in fragments:
        texts = [fragment] if len(fragments) > 1 else []
        rest = after_keywords(fragment)
        if rest and rest != fragment:
            texts.append(rest)
        for piece in texts:
            try:
                yield parse(piece)
            except (ShellParseError, RecursionError):
                continue


def scan(ctx):
    """A deny verdict for the parsed command, or None. When bashlex rejected the command,
    each top-level fragment it can parse is matched instead (gateway.shell.fragments)."""
    script = ctx.script
    if script is None:
        if ctx.parse_error is None or len(ctx.text) > _FRAGMENT_SCAN_MAX:
            return None
        for fragment in _fragment_scripts(ctx):
            rule = matching_rule(ctx.policy, fragment, cwd=ctx.cwd)
            if rule is not None:
                return ctx.deny(PHASE, "GW750", rule["message"], rule=f"deny:{rule['id']}")
        return None
    rule = matching_rule(ctx.policy, script, cwd=ctx.cwd)
    if rule is not None:
        return ctx.deny(PHASE, "GW750", rule["message"], rule=f"deny:{rule['id']}")
    if ctx.settings is not None:
        for cmd in script.all_commands:
            argv = [w.value for w in cmd.words]
            if not argv:
                continue
            hit = ctx.settings.match(argv, cmd.text, deny_only=True)
            if hit is not None:
                _kind, text, source = hit
                return ctx.deny(PHASE, "GW709", f"permissions.deny rule {text} in {source}",
                                rule=f"settings.deny:{text}")
    return None
