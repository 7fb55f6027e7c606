"""find's expression, make, go, xxd, tsc, cargo, date, ruff and pytest: the forms that
only read (or write where the arguments say)."""

import os

from gateway.paths import lexical
from gateway.validator import argv as argvmod
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
    while i < n:
        w = words[i]
        i += 1
        if w in _FIND_OPERATORS or w in _FIND_FLAGS:
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
    ctx.step(PHASE, "info", "", "find prints names: its paths are looked at, not read")
    return None, cands, []


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
    if target_dir is not None:
        targets, links = pos, [os.path.join(target_dir, os.path.basename(t.rstrip("/")))
                               for t in pos]
    elif len(pos) == 1:
        targets, links = pos, [os.path.basename(pos[0].rstrip("/")) or pos[0]]
    elif len(pos) == 2 and (args.has("-T", "--no-target-directory")
                            or not os.path.isdir(os.path.join(cwd, pos[1]))):
        targets, links = pos[:1], pos[1:]
    else:
        targets = pos[:-1]
        links = [os.path.join(pos[-1], os.path.basename(t.rstrip("/"))) for t in targets]
    cands = []
    for t, link in zip(targets, links, strict=True):
        if symbolic and not relative and not t.startswith("/"):
            cands.append(os.path.join(os.path.dirname(link), t))
        else:
            cands.append(t)
    cands += [o.value for o in args.options if o.value is not None
              and o.name not in spec.text_flags]
    return None, cands + links, list(links)


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
    return None, cands, []


# --- go ----------------------------------------------------------------------------------


def go(ctx, spec, words, cwd):
    """go build/test/run/vet/list: packages are import paths (text) or directories and .go
    files (paths, which must stay inside the project); `pkg@version` downloads a module
    and builds or runs it (`go run example.com/x@latest`)."""
    # go's flags are whole words, one or two dashes, value after = or in the next word
    # (`-count=1` is not a cluster); the tool flags hand options to the compiler and the
    # linker (-ldflags=-extld=/tmp/x runs a program)
    unsafe = set(spec.unsafe_flags) | {"-ldflags", "-gcflags", "-asmflags", "-gccgoflags",
                                        "-compiler"}
    positionals = []
    for i, w in enumerate(words):
        if w == "--":
            positionals.extend(words[i + 1:])
            break
        if w.startswith("-") and len(w) > 1:
            name = "-" + w.lstrip("-").split("=", 1)[0]
            if name in unsafe:
                return _unsafe(ctx, f"go {name}", "runs other programs, writes files or "
                               "works elsewhere"), [], []
            continue
        positionals.append(w)
    cands = []
    for p in positionals:
        if "@" in p:
            return _unsafe(ctx, f"go {p}", "downloads a module to build or run it"), [], []
        if p.startswith(("/", ".")) or p.endswith(".go"):
            cands.append(p)
    return None, cands, []


# --- xxd, tsc, cargo ---------------------------------------------------------------------

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


def tsc(ctx, spec, words, cwd):
    """tsc reads options its own way: one or two dashes, names in any case (--OUTDIR is
    --outDir), the value in the next word, `@file` reads more arguments from a file. Every
    word that is not an option is a path (a file to compile or an option's value)."""
    writes_opt = {w.lstrip("-").lower() for w in spec.write_flags}
    cands = []
    written = []
    i = 0
    while i < len(words):
        w = words[i]
        i += 1
        if w.startswith("-") and len(w) > 1:
            name = w[2:] if w.startswith("--") else w[1:]
            name = name.lower()
            if "=" in name:
                return _unsafe(ctx, f"tsc {w}", "tsc takes no --option=value"), [], []
            if name in ("p", "project") and i < len(words) and (
                    words[i] == "-" or lexical(words[i], cwd).startswith(("/dev/", "/proc/"))):
                return _program(ctx, f"tsc {w} {words[i]}", "reads its configuration from "
                               "standard input or a device"), [], []
            if name in writes_opt:
                if i >= len(words):
                    return _unsafe(ctx, f"tsc {w}", "writes a file it does not name"), [], []
                written.append(words[i])
            continue
        cands.append(w)
    return None, cands + written, written


_RUSTFMT_OK = {"--check", "-v", "--verbose", "-q", "--quiet", "-l", "--files-with-diff"}
_RUSTFMT_VALUE = {"--edition", "--color"}
_RUSTC_LINTS = {"-D", "-W", "-A", "-F", "--deny", "--warn", "--allow", "--forbid",
                "--force-warn", "--cap-lints"}


def _passthrough_problem(sub, rest):
    """Why the words after `cargo SUB --` (handed to rustfmt, clippy-driver or the test
    harness) are not safe, or ""."""
    i = 0
    while i < len(rest):
        w = rest[i]
        i += 1
        if sub == "fmt":
            name = w.split("=", 1)[0]
            if w in _RUSTFMT_OK:
                continue
            if name in _RUSTFMT_VALUE:
                i += 0 if "=" in w else 1
                continue
            # --config-path reads any file (its lines are shown on a parse error),
            # --print-config writes one
            return f"{w!r} is not among the rustfmt options allowed here"
        if sub == "clippy":
            name = w.split("=", 1)[0]
            if name in _RUSTC_LINTS:
                i += 0 if "=" in w else 1
                continue
            if w[:2] in ("-D", "-W", "-A", "-F") and len(w) > 2:
                continue
            # rustc options write files (--emit, -o), run programs (-C linker=) or read
            # argument files (@path)
            return f"{w!r} is not a lint level option for clippy"
        # test, bench: the test harness; --logfile writes the results to any file
        if w.split("=", 1)[0].startswith("--log"):
            return f"{w!r} makes the test harness write a file"
    return ""


def cargo(ctx, spec, words, cwd):
    """cargo fmt/clippy/test/bench: the options are cargo's (the catalogue's unsafe ones
    ask); the words after `--` go to rustfmt, clippy-driver or the test harness."""
    args = argvmod.parse(words, spec.value_flags)
    bad = argvmod.first_unsafe(args, spec.unsafe_flags, words)
    if bad:
        return _unsafe(ctx, f"{spec.name} {bad}", "not a safe use of cargo"), [], []
    sub = spec.name.split()[-1]
    why = _passthrough_problem(sub, args.rest or [])
    if why:
        return _unsafe(ctx, f"{spec.name} --", why), [], []
    cands = [o.value for o in args.options if o.value is not None
             and o.name not in spec.text_flags] + list(args.attached)
    return None, cands, []


def _options(ctx, spec, words, name):
    """The catalogue's generic reading of an entry's options, for checks that add to it:
    (verdict, parsed args, path candidates, written candidates)."""
    args = argvmod.parse(words, spec.value_flags | spec.write_flags)
    bad = argvmod.first_unsafe(args, spec.unsafe_flags, words)
    if bad:
        return ctx.ask(PHASE, "GW704", f"{name} {bad} is not a safe use of {name}",
                       rule=f"catalogue:{spec.name}:{bad}"), args, [], []
    written = []
    for opt in args.options:
        if opt.name in spec.write_flags:
            if opt.value is not None:
                written.append(opt.value)
        elif opt.name.startswith("--") and any(argvmod.long_matches(opt.name, w)
                                               for w in spec.write_flags):
            return _unsafe(ctx, f"{name} {opt.name}", "an abbreviation of an option that "
                           "writes; spell it out"), args, [], []
    cands = list(args.positionals)
    cands += [p.split("=", 1)[1] for p in args.positionals if "=" in p and p[0] != "="]
    cands += [o.value for o in args.options if o.value is not None
              and o.name not in spec.text_flags]
    cands += args.attached
    return None, args, cands, written


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


def ruff(ctx, spec, words, cwd):
    """ruff: the catalogue's options, with --config KEY=VALUE (inline configuration: a cache
    directory or an `extend` file anywhere) refused and --cache-dir judged as a write."""
    verdict, args, cands, written = _options(ctx, spec, words, "ruff")
    if verdict is not None:
        return verdict, [], []
    for opt in args.options:
        if opt.name.startswith("--") and argvmod.long_matches(opt.name, "--config") \
                and "=" in (opt.value or ""):
            return _unsafe(ctx, f"ruff --config {opt.value!r}", "inline configuration can "
                           "name files and directories anywhere"), [], []
    pos = list(args.positionals)
    sub = pos[0] if pos and pos[0] in ("check", "format") else None
    fixes = sub == "format" or any(
        opt.name.startswith("--") and any(argvmod.long_matches(opt.name, f) for f in (
            "--fix", "--unsafe-fixes", "--add-noqa")) for opt in args.options)
    if fixes:
        # ruff format and ruff check --fix rewrite the files (the protected paths apply)
        targets = [p for p in pos[1 if sub else 0:]]
        if not targets and _python_in_surface(ctx.roots.project_real):
            targets = ["."]  # the whole project, the Python files of .claude/ among it
        written.extend(targets)
        cands.extend(targets)
    return None, cands, written


def _python_in_surface(root, limit=2000) -> bool:
    """Does .claude/ or .git/hooks/ hold a Python file that `ruff format` (all the project's
    Python files) would rewrite? Bounded walk; past the bound, yes."""
    import os

    seen = 0
    for top in (os.path.join(root, ".claude"), os.path.join(root, ".git", "hooks")):
        for _d, _dirs, files in os.walk(top):
            seen += len(files) + 1
            if seen > limit or any(f.endswith((".py", ".pyi", ".ipynb")) for f in files):
                return True
    return False


def pytest(ctx, spec, words, cwd):
    """pytest: the catalogue's options; pytest-cov's --cov-report TYPE:DEST writes DEST."""
    verdict, args, cands, written = _options(ctx, spec, words, "pytest")
    if verdict is not None:
        return verdict, [], []
    for opt in args.options:
        if opt.name == "--cov-report" and opt.value and ":" in opt.value:
            dest = opt.value.split(":", 1)[1]
            if dest:
                written.append(dest)
                cands.append(dest)
    return None, cands, written
