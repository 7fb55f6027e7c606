"""find's expression, make, xxd and date: the forms that only read (or write where the
arguments say). The build, test and package tools are in build.py."""

import os

from gateway.shell import argv as argvmod
from gateway.validator.checks._common import PHASE, _program, _unsafe

# --- find --------------------------------------------------------------------------------

#: find's expression as an allowlist: primaries without an argument, with a text argument,
#: with a path argument (only its time or identity is looked at), and the operators.
_FIND_FLAGS = frozenset((
    "-daystart", "-depth", "-d", "-ignore_readdir_race", "-noignore_readdir_race", "-mount",
    "-xdev", "-noleaf", "-nowarn", "-warn", "-empty", "-executable", "-false", "-true",
    "-nogroup", "-nouser", "-readable", "-writable", "-ls", "-print", "-print0", "-prune",
    "-quit", "-help", "--help", "-version", "--version"))
_FIND_TEXT = frozenset((
    "-amin", "-atime", "-cmin", "-ctime", "-mmin", "-mtime", "-used", "-fstype", "-gid",
    "-group", "-uid", "-user", "-links", "-inum", "-size", "-perm", "-type", "-xtype", "-name",
    "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-lname",
    "-ilname", "-maxdepth", "-mindepth", "-regextype", "-printf", "-context"))
_FIND_PATH = frozenset(("-anewer", "-cnewer", "-newer", "-samefile"))
_FIND_OPERATORS = frozenset(("(", ")", "!", ",", "-a", "-o", "-and", "-or", "-not"))
#: what the unsafe primaries do
_FIND_UNSAFE = {
    "-exec": "runs a command", "-execdir": "runs a command", "-ok": "runs a command",
    "-okdir": "runs a command", "-delete": "deletes files", "-fls": "writes a file",
    "-fprint": "writes a file", "-fprint0": "writes a file", "-fprintf": "writes a file",
    "-follow": "follows symbolic links out of the places it was given",
    "-files0-from": "reads its starting points from a file",
}


def find(ctx, spec, words, cwd):
    """find prints names: its starting points and the files -newer and the like name are
    looked at, never read. Every word of the expression must be a primary find knows and
    this list allows (an unknown one asks: it may be an action)."""
    i = 0
    n = len(words)
    # leading options: -H -L -P, -D DEBUGOPTS, -O LEVEL
    while i < n and words[i] in ("-H", "-L", "-P", "-D") or (
            i < n and words[i].startswith("-O") and words[i][2:].isdigit()):
        if words[i] == "-L":
            return _unsafe(ctx, "find -L", "follows symbolic links out of the places it was "
                           "given"), [], []
        i += 2 if words[i] == "-D" else 1
    starts = []
    while i < n and not (words[i].startswith("-") and len(words[i]) > 1) \
            and words[i] not in ("(", "!"):
        starts.append(words[i])
        i += 1
    cands = list(starts)
    deletes = False
    while i < n:
        w = words[i]
        i += 1
        if w in _FIND_OPERATORS or w in _FIND_FLAGS:
            continue
        if w == "-exec":
            return _find_exec(ctx, words, i - 1, starts, cands, cwd)
        if w == "-delete":
            deletes = True
            continue
        if w in _FIND_UNSAFE:
            return _unsafe(ctx, f"find {w}", _FIND_UNSAFE[w]), [], []
        if w in _FIND_TEXT:
            i += 1
            continue
        if w in _FIND_PATH or (w.startswith("-newer") and len(w) == 8
                               and all(c in "aBcmt" for c in w[6:])):
            if i < n and not w.endswith("t"):
                cands.append(words[i])
            i += 1
            continue
        return _unsafe(ctx, f"find {w}", "not an expression word this check knows (it may "
                       "be an action that runs or writes)"), [], []
    if deletes:
        return _find_delete(ctx, words, cwd, cands)
    ctx.step(PHASE, "info", "", "find prints names: its paths are looked at, not read")
    return None, cands, []


#: Names find -exec hands its command at most (more asks), and the files a `;` form (one
#: run per file) is judged for one by one.
_EXEC_MAX_NAMES = 5000
_EXEC_MAX_RUNS = 200


def _find_exec(ctx, words, at, starts, cands, cwd):
    """`find START... TESTS -exec CMD ARGS {} +` (or `;`) is CMD ARGS run on the files
    find selects: the selection is listed (gateway.tools.find, a superset when the tests
    are not reproduced exactly) and CMD ARGS NAMES is judged as the command it is, each
    name a path argument like any other (a secret, a protected path, a file outside the
    project asks; `sed -i` is an edit). The names are find's own words, never split: each
    begins with its start path, so none is an option when no start begins with `-`. Only
    one -exec, last in the expression, with `{}` alone as CMD's last word; -execdir, -ok
    and anything else ask."""
    from gateway.tools import find as findlist

    end = at + 1
    while end < len(words) and words[end] not in (";", "+"):
        end += 1
    inner = list(words[at + 1:end])
    if end >= len(words) or end + 1 != len(words):
        return _unsafe(ctx, "find -exec", "runs a command (only one -exec, the last word of "
                       "the expression, is judged)"), [], []
    if len(inner) < 2 or inner[-1] != "{}" or any("{}" in w for w in inner[:-1]):
        return _unsafe(ctx, "find -exec", "runs a command whose file names are not its last "
                       "arguments ({} alone, last, is judged)"), [], []
    if any(s.startswith("-") or "\n" in s for s in starts):
        return _unsafe(ctx, "find -exec", "a start path that may make names options"), [], []
    for w in words[:at]:
        if w in _FIND_UNSAFE:
            return _unsafe(ctx, f"find {w}", _FIND_UNSAFE[w]), [], []
    try:
        found, _zero = findlist.listing(ctx.roots, ["find"] + list(words[:at]), cwd,
                                        ("-print",))
    except findlist.Unlisted as exc:
        return _unsafe(ctx, "find -exec", f"runs a command on files chosen by a filter the "
                       f"gateway does not reproduce ({exc})"), [], []
    names = [shown for shown, _path, _kind in found]
    per_file = words[end] == ";"
    if len(names) > (_EXEC_MAX_RUNS if per_file else _EXEC_MAX_NAMES):
        return _unsafe(ctx, "find -exec", f"runs {inner[0]} on {len(names)} files, more than "
                       "the gateway judges"), [], []
    if any(n.startswith("-") or "\n" in n for n in names):
        return _unsafe(ctx, "find -exec", "a name that starts with '-' or holds a newline"), [], []
    cmd = inner[:-1]
    spec = ctx.policy.command(os.path.basename(cmd[0]).lower())
    if spec is not None and spec.check == "rm":
        # rm's acceptEdits judgement is for files named on the command line; removals
        # chosen by find's tests stay the human's (find -delete lists them exactly)
        return _unsafe(ctx, f"find -exec {cmd[0]}", "removes what find's tests select"), [], []
    # no file, no run (`+`) or one run per file (`;`)
    lines = ([cmd + [n] for n in names] if per_file else [cmd + names]) if names else [cmd]
    ctx.step(PHASE, "info", "", f"find -exec runs {cmd[0]!r} on {len(names)} listed "
             f"file(s): judging {'each run' if per_file else 'that command line'}")

    def judged():
        from gateway.decision import ALLOW
        from gateway.validator.segment import judge_argv

        for line in lines:
            verdict = judge_argv(ctx, line, cwd, " ".join(line), (), 1)
            if verdict.decision is not ALLOW:
                return verdict
        return None

    return None, cands, [], judged


def _find_delete(ctx, words, cwd, cands):
    """`find ... -delete` removes what its tests select: when the selection is listed
    (gateway.tools.find: a superset of it), each entry is a written path (inside
    the project, not protected, not a secret: phase 5), an edit that acceptEdits allows;
    otherwise it asks."""
    from gateway.tools import find as findlist
    from gateway.validator import modes

    try:
        found, _zero = findlist.listing(ctx.roots, ["find"] + list(words), cwd,
                                        ("-print", "-print0", "-delete"))
    except findlist.Unlisted as exc:
        return _unsafe(ctx, "find -delete", f"deletes files chosen by a filter the gateway "
                       f"does not reproduce ({exc})"), [], []
    written = [shown for shown, _path, _kind in found]
    if ctx.exposure:
        return None, cands, []
    if not modes.accepts_edits(ctx.mode):
        return ctx.ask(PHASE, "GW721", f"find -delete removes {len(written)} entr"
                       f"{'y' if len(written) == 1 else 'ies'}; in "
                       f"{modes.normalize(ctx.mode)} mode edits are the human's (acceptEdits "
                       "allows them inside the project)", rule="catalogue:find:edit"), [], []
    from gateway.validator.checks.removal import unrecoverable

    verdict = unrecoverable(ctx, "find -delete", written, cwd)
    if verdict is not None:
        return verdict, [], []
    ctx.step(PHASE, "info", "", f"find -delete removes {len(written)} listed entr"
             f"{'y' if len(written) == 1 else 'ies'}: each is judged as a written path")
    return None, cands + written, written


# --- ln ----------------------------------------------------------------------------------

def ln(ctx, spec, words, cwd):
    """ln: the link names are written; a symbolic link's target is where the link will
    point, relative to the directory the link is in (`ln -s ../README.md docs/x` points at
    README.md), unless -r makes ln compute it from the working directory; a hard link's
    target is a file here."""
    args = argvmod.parse(words, spec.value_flags, spec.long_options, spec.optional_flags)
    for opt in args.options:
        if opt.name not in spec.safe_flags:
            return ctx.ask(PHASE, "GW704", f"ln {opt.name} is not among its safe options",
                           rule="catalogue:ln"), [], []
    pos = list(args.positionals)
    symbolic = args.has("-s", "--symbolic")
    relative = args.has("-r", "--relative")
    target_dir = next((o.value for o in args.options
                       if o.name in ("-t", "--target-directory") and o.value), None)
    if not pos:
        return ctx.ask(PHASE, "GW712", "ln without a target", rule="catalogue:ln"), [], []
    # a directory the links are made in gets a new entry: it is written (like cp -t DIR),
    # so the protected paths apply to it (ln -s -t .claude x)
    into = []
    if target_dir is not None:
        into = [target_dir]
        targets, links = pos, [os.path.join(target_dir, os.path.basename(t.rstrip("/")))
                               for t in pos]
    elif len(pos) == 1:
        targets, links = pos, [os.path.basename(pos[0].rstrip("/")) or pos[0]]
    elif len(pos) == 2 and (args.has("-T", "--no-target-directory")
                            or not os.path.isdir(os.path.join(cwd, pos[1]))):
        targets, links = pos[:1], pos[1:]
    else:
        targets = pos[:-1]
        into = [pos[-1]]
        links = [os.path.join(pos[-1], os.path.basename(t.rstrip("/"))) for t in targets]
    cands = []
    for t, link in zip(targets, links, strict=True):
        if symbolic and not relative and not t.startswith("/"):
            cands.append(os.path.join(os.path.dirname(link), t))
        else:
            cands.append(t)
    cands += [o.value for o in args.options if o.value is not None
              and o.name not in spec.text_flags]
    return None, cands + links + into, list(links) + into


# --- make --------------------------------------------------------------------------------

_MAKE_FILE_OPTS = ("-f", "--file", "--makefile")


def make(ctx, spec, words, cwd):
    """make runs the project's Makefile (trusted like scripts/), but the command line can
    replace what it runs: `make 'x:=$(shell id)'` or `make 'x!=id'` run a command while the
    assignment is read, `make CC=sh` changes every recipe that uses $(CC), and `-f -` reads
    the makefile from standard input."""
    args = argvmod.parse(words, frozenset(spec.value_flags))
    bad = argvmod.first_unsafe(args, spec.unsafe_flags, words)
    if bad:
        return _unsafe(ctx, f"make {bad}", "evaluates makefile text given on the command "
                       "line"), [], []
    for opt in args.options:
        is_file = opt.name == "-f" or (opt.name.startswith("--") and any(
            argvmod.long_matches(opt.name, f) for f in _MAKE_FILE_OPTS[1:]))
        if is_file and opt.value in (None, "-"):
            return _program(ctx, f"make {opt.word}", "the makefile comes from standard "
                            "input"), [], []
    for p in args.positionals:
        if "=" in p:
            return _program(ctx, f"make {p}", "a variable set on the command line overrides "
                            "the makefile's and can run commands"), [], []
        if p == "-":
            return _program(ctx, "make -", "the makefile may come from standard input"), [], []
    cands = list(args.positionals)
    cands.extend(o.value for o in args.options
                 if o.value is not None and o.name not in spec.text_flags)
    cands.extend(args.attached)
    # make -C DIR changes directory before reading anything: -f, -I and the targets are
    # relative to DIR (make -C src -f lnk/Makefile, with src/lnk a symlink out)
    where = ""
    for opt in args.options:
        if opt.value is not None and (opt.name == "-C" or (
                opt.name.startswith("--") and argvmod.long_matches(opt.name, "--directory"))):
            where = os.path.join(where, opt.value)
    if where:
        cands.extend(os.path.join(where, c) for c in list(cands)
                     if c and not c.startswith("/"))
    # its recipes run as the project's own code: only as the HEAD commit holds them
    from gateway.validator import trusted_code

    base = os.path.join(cwd, where)
    files = [os.path.join(base, o.value) for o in args.options if o.value is not None and (
        o.name == "-f" or (o.name.startswith("--") and any(
            argvmod.long_matches(o.name, f) for f in _MAKE_FILE_OPTS[1:])))]
    files = files or [next((os.path.join(base, n) for n in ("GNUmakefile", "makefile",
                                                            "Makefile")
                            if os.path.lexists(os.path.join(base, n))), "")]
    for f in files:
        if f:
            verdict = trusted_code.recipe(ctx, "make", f, "the makefile")
            if verdict is not None:
                return verdict, [], []
    return None, cands, []


# --- xxd ---------------------------------------------------------------------------------

def xxd(ctx, spec, words, cwd):
    """xxd reads one file and prints it; a second file is its output (`xxd -ps in out`:
    -ps is one option to xxd, not -p -s VALUE; `xxd in -x` writes a file named -x)."""
    names, pos, bad = argvmod.xxd_parse(words)
    if bad:
        return _unsafe(ctx, f"xxd {bad}", "not an option xxd knows"), [], []
    if "-r" in names:
        return _unsafe(ctx, "xxd -r", "turns a dump back into a file"), [], []
    if len(pos) > 1:
        return ctx.ask(PHASE, "GW712", f"xxd {pos[1]!r}: a second file is written"), [], []
    return None, pos, []


def date(ctx, spec, words, cwd):
    """date prints; `-s` and a positional that is not +FORMAT (MMDDhhmm[[CC]YY][.ss]) set
    the clock."""
    args = argvmod.parse(words, spec.value_flags, spec.long_options, spec.optional_flags)
    bad = argvmod.first_unsafe(args, spec.unsafe_flags, words)
    if bad:
        return ctx.ask(PHASE, "GW704", f"date {bad} is not a safe use of date",
                       rule=f"catalogue:date:{bad}"), [], []
    for opt in args.options:
        if spec.safe_flags is not None and opt.name not in spec.safe_flags:
            return ctx.ask(PHASE, "GW704", f"date {opt.name} is not among its safe options",
                           rule="catalogue:date"), [], []
    for p in args.positionals:
        if not p.startswith("+"):
            return ctx.ask(PHASE, "GW712", f"date {p!r}: a date argument sets the clock",
                           rule="catalogue:date"), [], []
    # -r FILE reads a file's time, -f FILE reads dates from a file (a bad line is echoed)
    return None, args.values("-r", "--reference", "-f", "--file"), []


#: ps's options that take a value (the next word unless glued): dash, long and BSD forms
_PS_VALUES = frozenset(("-o", "-O", "-p", "-u", "-U", "-g", "-G", "-C", "-t", "-q", "-s",
                        "-k", "-N"))
_PS_LONG_VALUES = frozenset(("--format", "--sort", "--pid", "--ppid", "--user", "--User",
                             "--group", "--Group", "--tty", "--sid", "--quick-pid", "--cols",
                             "--columns", "--rows", "--lines", "--width"))
_PS_BSD_VALUES = frozenset("oOpUtkq")


def ps(ctx, spec, words, cwd):
    """ps lists processes; it also prints each one's environment (every exported token of
    the user's processes, the client's own among them) with BSD's `e` modifier (`ps e`, `ps
    axeww`) or an `environ` column (`-o pid,environ`): those ask GW704 (red team rt26:
    `ps axeww` printed the hook server's token from the client's environment). `-e` (every
    process) is not the modifier."""
    def env_format(value):
        return any(part.strip().lower().startswith("env") for part in
                   value.replace(":", ",").replace(" ", ",").split(","))

    def ask(why):
        return ctx.ask(PHASE, "GW704", f"ps: {why}: every process's environment is printed, "
                       "tokens and passwords among them", rule="catalogue:ps"), [], []

    i = 0
    while i < len(words):
        w = words[i]
        if w.startswith("--"):
            name, eq, value = w.partition("=")
            if name in _PS_LONG_VALUES:
                if not eq:
                    i += 1
                    value = words[i] if i < len(words) else ""
                if name == "--format" and env_format(value):
                    return ask(f"the format {value!r} has an environment column")
            i += 1
            continue
        if w.startswith("-") and len(w) > 1:
            letters = w[1:]
            for k, c in enumerate(letters):
                if "-" + c in _PS_VALUES:
                    value = letters[k + 1:]
                    if not value:
                        i += 1
                        value = words[i] if i < len(words) else ""
                    if c in "oO" and env_format(value):
                        return ask(f"the format {value!r} has an environment column")
                    break
            i += 1
            continue
        # a BSD word: every letter an option (`aux`, `axjf`); o/O/p/U/t take the next word
        if "e" in w:
            return ask(f"{w!r} holds BSD's e modifier")
        takes = [c for c in w if c in _PS_BSD_VALUES]
        if takes:
            i += 1
            value = words[i] if i < len(words) else ""
            if any(c in "oO" for c in takes) and env_format(value):
                return ask(f"the format {value!r} has an environment column")
        i += 1
    return None, [], []


def printenv(ctx, spec, words, cwd):
    """printenv NAME...: prints the named environment variables. A name among the entry's
    `public_names` (a place or a setting: PATH, HOME, VIRTUAL_ENV ...) holds no secret by
    what it is; any other name may (GITHUB_TOKEN is one, DATABASE_URL carries a password),
    and printenv alone prints every variable: both ask (GW704)."""
    from gateway.paths import fnmatchcase

    names = []
    for w in words:
        if w in ("-0", "--null"):
            continue
        if w.startswith("-"):
            return ctx.ask(PHASE, "GW704", f"printenv {w} is not among its known options",
                           rule="catalogue:printenv"), [], []
        names.append(w)
    if not names:
        return ctx.ask(PHASE, "GW704", "printenv without a name prints every environment "
                       "variable, tokens and passwords among them; name the variables "
                       "(printenv PATH)", rule="catalogue:printenv"), [], []
    for n in names:
        if not any(fnmatchcase(n, g) for g in spec.public_names):
            return ctx.ask(PHASE, "GW704", f"printenv {n}: {n} is not a variable known to "
                           "hold no secret (a place or a setting such as PATH, HOME, "
                           "VIRTUAL_ENV); its value may be a token or a password",
                           rule="catalogue:printenv"), [], []
    return None, [], []
