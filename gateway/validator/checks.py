"""Named argument checks for commands whose safety depends on more than their options:
the program text of sed, awk and jq, find's expression, and the forms of git checkout /
restore / reset / config and gh api that only read.

Each check returns (verdict or None, path candidates, written candidates). Anything a check
does not understand is refused: these are allowlists, not blocklists.
"""

import os

from gateway.paths import is_secret, lexical
from gateway.validator import argv as argvmod

PHASE = "7C"


def run(name, ctx, spec, words, cwd):
    return _CHECKS[name](ctx, spec, words, cwd)


def _unsafe(ctx, what, why):
    return ctx.ask(PHASE, "GW704", f"{what}: {why}")


def _program(ctx, what, why):
    return ctx.ask(PHASE, "GW710", f"{what}: {why}")


# --- sed ---------------------------------------------------------------------------------

_SED_SAFE_OPTS = {"-n", "--quiet", "--silent", "-E", "-r", "--regexp-extended", "-s",
                  "--separate", "-z", "--null-data", "-u", "--unbuffered", "--posix",
                  "--debug", "--sandbox", "-l", "--line-length"}
_SED_SIMPLE = set("pPdDnNgGhHxlz=F")


def sed(ctx, spec, words, cwd):
    args = argvmod.parse(words, frozenset({"-e", "--expression", "-f", "--file", "-l",
                                           "--line-length"}))
    scripts = []
    for opt in args.options:
        if opt.name in ("-e", "--expression"):
            scripts.append(opt.value or "")
        elif opt.name in ("-f", "--file"):
            return _program(ctx, "sed -f", "the program comes from a file that is not shown"), [], []
        elif opt.name in ("-i", "--in-place", "-I"):
            return _unsafe(ctx, f"sed {opt.name}", "edits files in place"), [], []
        elif opt.name not in _SED_SAFE_OPTS and not argvmod.long_matches(opt.name, "--quiet"):
            return _unsafe(ctx, f"sed {opt.name}", "unknown option"), [], []
    files = list(args.positionals)
    if not scripts:
        if not files:
            return _program(ctx, "sed", "no program"), [], []
        scripts.append(files.pop(0))
    for s in scripts:
        why = sed_program_problem(s)
        if why:
            return _program(ctx, f"sed program {s!r}", why), [], []
    return None, files, []


def _skip_regex(s, i, delim, brackets=True):
    """Index just past the closing delimiter of a regex starting at s[i] (after the opening
    delimiter), or -1. GNU sed skips bracket expressions in regexes (`s/[/]/x/`) but not in
    the operands of `y`, which are plain characters (`brackets=False`)."""
    n = len(s)
    while i < n:
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == "\n":
            return -1
        if c == delim:
            return i + 1
        if c == "[" and delim != "[" and brackets:
            j = i + 1
            if j < n and s[j] == "^":
                j += 1
            if j < n and s[j] == "]":
                j += 1
            while j < n and s[j] != "]":
                if s[j] == "[" and j + 1 < n and s[j + 1] in ":.=":
                    close = s.find(s[j + 1] + "]", j + 2)
                    if close < 0:
                        return -1
                    j = close + 2
                    continue
                j += 1
            if j >= n:
                return -1
            i = j + 1
            continue
        i += 1
    return -1


def _sed_address(s, i):
    """Skip one address at s[i]; return the new index (unchanged if none), or -1."""
    n = len(s)
    if i < n and s[i].isdigit():
        while i < n and (s[i].isdigit() or s[i] == "~"):
            i += 1
        return i
    if i < n and s[i] == "$":
        return i + 1
    if i < n and s[i] in "/\\":
        if s[i] == "\\":
            if i + 1 >= n:
                return -1
            delim = s[i + 1]
            i += 2
        else:
            delim = "/"
            i += 1
        i = _skip_regex(s, i, delim)
        if i < 0:
            return -1
        while i < n and s[i] in "IM":
            i += 1
        return i
    return i


def sed_program_problem(s: str) -> str:
    """Why a sed program is not read-only (w/W/e/r/R commands, s///w or s///e), or ""."""
    i = 0
    n = len(s)
    depth = 0
    while i < n:
        c = s[i]
        if c in " \t\n;":
            i += 1
            continue
        if c == "#":
            nl = s.find("\n", i)
            i = n if nl < 0 else nl + 1
            continue
        if c == "}":
            depth -= 1
            if depth < 0:
                return "unbalanced }"
            i += 1
            continue
        j = _sed_address(s, i)
        if j < 0:
            return "cannot read an address"
        if j > i:
            i = j
            if i < n and s[i] == ",":
                i += 1
                if i < n and s[i] in "+~":
                    i += 1
                    while i < n and s[i].isdigit():
                        i += 1
                else:
                    j = _sed_address(s, i)
                    if j <= i:
                        return "cannot read the second address"
                    i = j
        while i < n and s[i] in " \t":
            i += 1
        if i < n and s[i] == "!":
            i += 1
            while i < n and s[i] in " \t":
                i += 1
        if i >= n:
            return "an address without a command"
        c = s[i]
        if c == "{":
            depth += 1
            i += 1
            continue
        if c in _SED_SIMPLE:
            i += 1
            if c == "l":
                while i < n and s[i].isdigit():
                    i += 1
            continue
        if c in "qQ":
            i += 1
            while i < n and (s[i].isdigit() or s[i] in " \t"):
                i += 1
            continue
        if c in "bBtT:":
            nl = min([x for x in (s.find("\n", i), s.find(";", i)) if x >= 0] or [n])
            i = nl
            continue
        if c in "aic":
            # the text runs to the first newline not escaped by a backslash; `\\` is an
            # escaped backslash, so `a foo\\<newline>w /tmp/x` ends the text and writes
            i += 1
            while i < n and s[i] != "\n":
                i += 2 if s[i] == "\\" else 1
            i += 1
            continue
        if c == "s":
            if i + 1 >= n or s[i + 1] in "\n\\":
                return "bad s command"
            delim = s[i + 1]
            j = _skip_regex(s, i + 2, delim)
            if j < 0:
                return "unterminated s command"
            k = j
            while k < n and s[k] != delim:
                if s[k] == "\\":
                    k += 1
                k += 1
            if k >= n:
                return "unterminated s replacement"
            k += 1
            while k < n and s[k] not in " \t\n;}":
                if s[k] in "wWe":
                    return f"the s command flag {s[k]!r} writes a file or runs a command"
                if not (s[k] in "gpiImM" or s[k].isdigit()):
                    return f"unknown s flag {s[k]!r}"
                k += 1
            i = k
            continue
        if c == "y":
            if i + 1 >= n:
                return "bad y command"
            delim = s[i + 1]
            j = _skip_regex(s, i + 2, delim, brackets=False)
            if j < 0:
                return "unterminated y command"
            k = _skip_regex(s, j, delim, brackets=False)
            if k < 0:
                return "unterminated y command"
            i = k
            continue
        if c in "wWrRe":
            return f"the {c!r} command reads or writes files or runs commands"
        return f"unknown command {c!r}"
    if depth:
        return "unbalanced {"
    return ""


# --- awk ---------------------------------------------------------------------------------

_AWK_VALUE_OPTS = frozenset({"-F", "--field-separator", "-v", "--assign"})
_AWK_BAD_WORDS = ("system", "getline", "ENVIRON", "PROCINFO", "@include", "@load",
                  "@namespace")


def awk(ctx, spec, words, cwd):
    args = argvmod.parse(words, _AWK_VALUE_OPTS)
    for opt in args.options:
        if opt.name in ("-f", "--file", "-E", "--exec"):
            return _program(ctx, f"awk {opt.name}", "the program comes from a file that is "
                            "not shown"), [], []
        if opt.name not in _AWK_VALUE_OPTS:
            return _unsafe(ctx, f"awk {opt.name}", "only -F and -v are accepted"), [], []
    if not args.positionals:
        return _program(ctx, "awk", "no program"), [], []
    prog = args.positionals[0]
    why = awk_program_problem(prog)
    if why:
        return _program(ctx, f"awk program {prog!r}", why), [], []
    cands = []
    for p in args.positionals[1:]:
        cands.append(p.split("=", 1)[1] if "=" in p and not p.startswith("=") else p)
    return None, cands, []


_AWK_KEYWORDS = frozenset(("print", "printf", "return", "in", "if", "else", "while", "for",
                           "do", "case", "delete", "exit", "getline", "BEGIN", "END",
                           "BEGINFILE", "ENDFILE"))


def _awk_tokens(prog: str, regex_after_operator: bool = False, brackets: bool = False):
    """Yield (kind, text) with strings and regex literals removed: kinds are word, op, str.

    Where a `/` starts a regex literal and whether a regex literal skips bracket expressions
    (`/[/"]/`) are decided by awk's grammar, not by its lexer; the two switches pick one
    reading of each, and awk_program_problem judges the program under every reading."""
    i = 0
    n = len(prog)
    prev = ""
    prev_kind = ""
    while i < n:
        c = prog[i]
        if c in " \t\n\r":
            if c == "\n":
                yield "op", "\n"
                prev, prev_kind = "\n", "op"
            i += 1
            continue
        if c == "#":
            nl = prog.find("\n", i)
            i = n if nl < 0 else nl
            continue
        if c == '"':
            j = i + 1
            while j < n and prog[j] != '"':
                j += 2 if prog[j] == "\\" else 1
            yield "str", prog[i:j + 1]
            prev, prev_kind = "str", "str"
            i = j + 1
            continue
        if regex_after_operator:
            operand = prev_kind == "str" or (prev_kind == "word" and prev not in _AWK_KEYWORDS) \
                or prev in (")", "]", "++", "--")
            starts_regex = c == "/" and not operand
        else:
            starts_regex = c == "/" and (prev in ("", "\n", "op") or prev in "(,{;!~&|"
                                         or prev.endswith("~"))
        if starts_regex:
            j = i + 1
            while j < n and prog[j] != "/":
                if prog[j] == "\n":
                    break
                if prog[j] == "[" and brackets:
                    k = j + 1
                    if k < n and prog[k] == "^":
                        k += 1
                    if k < n and prog[k] == "]":
                        k += 1
                    while k < n and prog[k] not in "]\n":
                        k += 1
                    j = k + 1 if k < n and prog[k] == "]" else k
                    continue
                j += 2 if prog[j] == "\\" else 1
            yield "str", prog[i:j + 1]
            prev, prev_kind = "str", "str"
            i = j + 1
            continue
        if c.isalnum() or c in "_@$":
            j = i
            while j < n and (prog[j].isalnum() or prog[j] in "_@$"):
                j += 1
            word = prog[i:j]
            yield "word", word
            prev, prev_kind = word if regex_after_operator else "word", "word"
            i = j
            continue
        two = prog[i:i + 2]
        if two in (">>", "||", "&&", "==", "!=", "<=", ">=", "!~", "++", "--", "+=", "-=",
                   "*=", "/=", "%=", "^="):
            yield "op", two
            prev, prev_kind = two, "op"
            i += 2
            continue
        yield "op", c
        prev, prev_kind = c, "op"
        i += 1


def awk_program_problem(prog: str) -> str:
    """Why an awk program is not read-only, or "". The program is read every way awk
    might tokenize it (see _awk_tokens); any reading with a problem refuses it."""
    for regex_after_operator in (False, True):
        for brackets in (False, True):
            why = _awk_reading_problem(_awk_tokens(prog, regex_after_operator, brackets))
            if why:
                return why
    return ""


def _awk_reading_problem(tokens) -> str:
    in_print = False
    depth = 0
    for kind, text in tokens:
        if kind == "word":
            if text in _AWK_BAD_WORDS:
                return f"{text} can run commands, read other files or the environment"
            if text in ("ARGV", "ARGC"):
                return f"{text} can name other files to read"
            if text.startswith("@"):
                return f"{text}: gawk directives and indirect calls (@f() may be system())"
            if text in ("print", "printf"):
                in_print = True
                depth = 0
            continue
        if kind != "op":
            continue
        if text == "|":
            return "a pipe to or from a command"
        if text in ("(", "["):
            depth += 1
        elif text in (")", "]"):
            depth -= 1
        elif text in (";", "\n", "{", "}"):
            in_print = False
        elif text in (">", ">>") and in_print and depth <= 0:
            return "print output redirected to a file"
    return ""


# --- jq ----------------------------------------------------------------------------------

_JQ_ONE_VALUE = frozenset({"--indent", "-L", "--from-file", "-f"})
_JQ_TWO_VALUES = frozenset({"--arg", "--argjson", "--slurpfile", "--rawfile"})
_JQ_FLAGS = frozenset({"-r", "--raw-output", "-j", "--join-output", "-c", "--compact-output",
                       "-n", "--null-input", "-e", "--exit-status", "-s", "--slurp", "-S",
                       "--sort-keys", "-C", "--color-output", "-M", "--monochrome-output",
                       "-a", "--ascii-output", "--tab", "-R", "--raw-input", "--seq",
                       "--stream", "--raw-output0", "--unbuffered", "--args", "--jsonargs",
                       "-h", "--help", "-V", "--version", "-0"})


def jq(ctx, spec, words, cwd):
    # jq reads options anywhere until `--`; a positional after the program is a file to read
    # unless --args/--jsonargs came *before* it (`jq . .env --args` still reads .env), and
    # an option after --args is still an option (`--rawfile x /etc/passwd`).
    cands = []
    program = None
    args_mode = False
    options_done = False
    i = 0
    n = len(words)
    while i < n:
        w = words[i]
        if w == "--" and not options_done:
            options_done = True
            i += 1
            continue
        if w.startswith("-") and len(w) > 1 and not options_done:
            if w in _JQ_TWO_VALUES:
                if w in ("--slurpfile", "--rawfile"):
                    if i + 2 >= n:
                        return _unsafe(ctx, f"jq {w}", "needs a name and a file"), [], []
                    cands.append(words[i + 2])
                i += 3
                continue
            if w in ("-f", "--from-file"):
                return _program(ctx, "jq -f", "the program comes from a file that is not "
                                "shown"), [], []
            if w == "-L" or w.startswith("-L"):
                return _unsafe(ctx, "jq -L", "loads modules from a directory"), [], []
            if w in _JQ_ONE_VALUE:
                i += 2
                continue
            if w in ("--args", "--jsonargs"):
                args_mode = True
            if w not in _JQ_FLAGS:
                letters = w[1:]
                if w.startswith("--") or not all(("-" + c) in _JQ_FLAGS for c in letters):
                    return _unsafe(ctx, f"jq {w}", "unknown option"), [], []
            i += 1
            continue
        if program is None:
            program = w
        elif not args_mode:
            cands.append(w)  # an input file
        i += 1
    if program is None:
        return _program(ctx, "jq", "no program"), [], []
    why = jq_program_problem(program)
    if why:
        return _program(ctx, f"jq program {program!r}", why), [], []
    return None, cands, []


def jq_program_problem(prog: str) -> str:
    i = 0
    n = len(prog)
    while i < n:
        c = prog[i]
        if c.isalpha() or c in "_$":
            j = i + 1
            while j < n and (prog[j].isalnum() or prog[j] in "_"):
                j += 1
            word = prog[i:j]
            if word in ("env", "$ENV", "ENV"):  # `$ ENV` is $ENV to jq 1.6
                return "reads the environment, which holds secrets"
            if word in ("import", "include"):
                return "loads modules"
            i = j
            continue
        i += 1
    return ""


# --- find --------------------------------------------------------------------------------

_FIND_UNSAFE = ("-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0",
                "-fprintf", "-fls")
_FIND_OPERATORS = frozenset(("(", ")", "!", ",", "-a", "-o", "-and", "-or", "-not"))


def find(ctx, spec, words, cwd):
    cands = []
    for w in words:
        if w.startswith("-"):
            for u in _FIND_UNSAFE:
                if w == u or (w.startswith(u) and u in ("-fprint",)):
                    return _unsafe(ctx, f"find {w}", "runs commands, deletes or writes "
                                   "files"), [], []
            if w == "-files0-from":
                # the starting points are read from a file (or stdin): not checked
                return _unsafe(ctx, "find -files0-from", "reads its starting points from a "
                               "file"), [], []
            continue
        if w in _FIND_OPERATORS:
            continue
        cands.append(w)
    return None, cands, []


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
    args = argvmod.parse(words, spec.value_flags)
    bad = argvmod.first_unsafe(args, spec.unsafe_flags, words)
    if bad:
        return ctx.ask(PHASE, "GW704", f"date {bad} is not a safe use of date",
                       rule=f"catalogue:date:{bad}"), [], []
    for p in args.positionals:
        if not p.startswith("+"):
            return ctx.ask(PHASE, "GW712", f"date {p!r}: a date argument sets the clock",
                           rule="catalogue:date"), [], []
    return None, [], []


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
    return None, cands, written


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


# --- git ---------------------------------------------------------------------------------

_CHECKOUT_UNSAFE = ("-f", "--force", "-p", "--patch", "--ours", "--theirs", "-m", "--merge",
                    "--conflict", "--overwrite-ignore", "--pathspec-from-file", "-B",
                    "--orphan", "--pathspec-file-nul")
# -t/--track take no separate value (`--track=direct` only): `git checkout -t origin/x`
# names the commit to move to, it is not the option's value
_CHECKOUT_VALUE = frozenset(("-b", "-B", "--orphan", "--conflict"))
_CHECKOUT_OK = frozenset(("-b", "-t", "--track", "--no-track", "-q", "--quiet", "--detach",
                          "--progress", "--no-progress", "--guess", "--no-guess",
                          "--recurse-submodules", "--no-recurse-submodules"))


def git_checkout(ctx, spec, words, cwd):
    if "--" in words:
        return _unsafe(ctx, "git checkout -- <paths>", "discards uncommitted changes"), [], []
    args = argvmod.parse(words, _CHECKOUT_VALUE)
    bad = argvmod.first_unsafe(args, _CHECKOUT_UNSAFE)
    if bad:
        return _unsafe(ctx, f"git checkout {bad}", "can discard uncommitted changes"), [], []
    for opt in args.options:
        if opt.name not in _CHECKOUT_OK:
            return _unsafe(ctx, f"git checkout {opt.name}", "unknown option"), [], []
    pos = args.positionals
    if len(pos) > 1:
        return _unsafe(ctx, "git checkout <ref> <paths>", "restores files from a commit, "
                       "discarding changes"), [], []
    if pos:
        target = pos[0]
        if target in (".", "..") or os.path.lexists(lexical(target, cwd)):
            return _unsafe(ctx, f"git checkout {target}", "names a file: restoring it "
                           "discards uncommitted changes"), [], []
        return _unsafe(ctx, f"git checkout {target}", _SWITCHES_TREE), [], []
    return None, [], []


_FETCH_VALUE = frozenset(("--depth", "--deepen", "--shallow-since", "--shallow-exclude", "-j",
                          "--jobs", "-o", "--server-option", "--negotiation-tip", "--filter",
                          "--refmap", "--recurse-submodules-default", "--submodule-prefix"))
_FETCH_UNSAFE = ("--upload-pack", "--refmap")
#: --stdin reads more refspecs (`x:refs/stash`) than the command shows; --update-head-ok lets a
#: refspec move the checked-out branch (`-u origin x:main`: the next `git stash` leaves x's
#: files in the working tree).
_FETCH_HIDDEN = ("--stdin", "-u", "--update-head-ok")


def git_fetch(ctx, spec, words, cwd):
    """Fetching is reading, unless a refspec stores into a ref that something else then
    trusts: refs/stash (which `git stash pop` applies) or any ref outside heads, tags and
    remotes."""
    args = argvmod.parse(words, _FETCH_VALUE)
    bad = argvmod.first_unsafe(args, _FETCH_UNSAFE, words)
    if bad:
        return _unsafe(ctx, f"git fetch {bad}", "runs or redirects what git fetches with"), [], []
    bad = argvmod.first_unsafe(args, _FETCH_HIDDEN)
    if bad:
        return _unsafe(ctx, f"git fetch {bad}", "may store into refs the command does not show "
                       "(refspecs read from stdin, or the checked-out branch itself)"), [], []
    for spec_ in args.positionals[1:]:
        dst = spec_.split(":", 1)[1] if ":" in spec_ else ""
        # a short name is refs/heads/<name> for fetch; stash, replace and notes are asked about
        # anyway (an over-ask: the names say what the author meant)
        if dst and not dst.startswith("refs/") and \
                dst.split("/")[0].lower() in ("stash", "replace", "notes", "head"):
            dst = "refs/" + dst
        if dst.startswith("refs/") and not dst.startswith(("refs/heads/", "refs/tags/",
                                                           "refs/remotes/")):
            return _unsafe(ctx, f"git fetch ... {spec_}", f"stores into {dst} (refs/stash is "
                           "what `git stash pop` applies)"), [], []
    return None, [], []


#: Why moving the working tree to another commit is not auto-allowed: git keeps uncommitted
#: changes, but every tracked file may change, the agent's own settings and hooks, and the
#: scripts/ that run without a prompt, among them (a fetched pull request can carry both).
_SWITCHES_TREE = ("replaces the project's tracked files with another commit's (the agent's "
                  "settings, hooks and scripts/ among them); only a new branch at HEAD "
                  "(`-b NAME`, `-c NAME`) is auto-allowed")

_SWITCH_VALUE = frozenset(("-c", "--create", "-C", "--force-create", "--orphan", "--conflict"))
_SWITCH_OK = frozenset(("-c", "--create", "-t", "--track", "--no-track", "-q", "--quiet",
                        "--progress", "--no-progress", "--guess", "--no-guess",
                        "--recurse-submodules", "--no-recurse-submodules"))


def git_switch(ctx, spec, words, cwd):
    """`git switch -c NAME` (a new branch at HEAD: no file changes) and nothing else."""
    args = argvmod.parse(words, _SWITCH_VALUE)
    for opt in args.options:
        if opt.name not in _SWITCH_OK:
            return _unsafe(ctx, f"git switch {opt.name}", "not a form that keeps the working "
                           "tree (only `git switch -c NAME` is auto-allowed)"), [], []
    creates = args.has("-c", "--create")
    if args.positionals or not creates:
        what = args.positionals[0] if args.positionals else ""
        return _unsafe(ctx, f"git switch {what}".rstrip(), _SWITCHES_TREE), [], []
    return None, [], []


def _stash_ref(ref: str) -> bool:
    """stash@{N} or N."""
    if ref.startswith("stash@{") and ref.endswith("}"):
        ref = ref[7:-1]
    return ref.isascii() and ref.isdigit()


def git_stash_apply(ctx, spec, words, cwd):
    """`git stash apply|pop [-q] [--index] [stash@{N}|N]`: the stash is changes made here.
    Any other commit (`git stash apply FETCH_HEAD`) is applied as if it were one."""
    args = argvmod.parse(words)
    for opt in args.options:
        if opt.name not in ("-q", "--quiet", "--index"):
            return _unsafe(ctx, f"git stash {opt.name}", "unknown option"), [], []
    for ref in args.positionals:
        if not _stash_ref(ref):
            return _unsafe(ctx, f"git stash apply {ref}", "applies a commit that is not one "
                           "of this repository's stashes (stash@{N})"), [], []
    return None, [], []


def git_restore(ctx, spec, words, cwd):
    args = argvmod.parse(words, frozenset(("-s", "--source", "--pathspec-from-file")))
    staged = args.has("-S", "--staged")
    if not staged or args.has("-W", "--worktree") or args.has("--pathspec-from-file"):
        return _unsafe(ctx, "git restore", "restoring the working tree discards uncommitted "
                       "changes (only --staged is auto-allowed)"), [], []
    ok = {"-S", "--staged", "-q", "--quiet", "-s", "--source", "--progress", "--no-progress"}
    for opt in args.options:
        if opt.name not in ok:
            return _unsafe(ctx, f"git restore {opt.name}", "not a read-only form"), [], []
    return None, list(args.positionals), []


def git_reset(ctx, spec, words, cwd):
    if "--" in words:
        head, tail = words[:words.index("--")], words[words.index("--") + 1:]
    else:
        head, tail = words, []
    args = argvmod.parse(head)
    for opt in args.options:
        if opt.name not in ("-q", "--quiet"):
            return _unsafe(ctx, f"git reset {opt.name}", "moves the branch or discards "
                           "changes"), [], []
    if args.positionals:
        return _unsafe(ctx, f"git reset {args.positionals[0]}", "may move the branch to "
                       "another commit (only `git reset` and `git reset -- <paths>`, which "
                       "unstage, are auto-allowed)"), [], []
    return None, tail, []


_CONFIG_READ = frozenset(("--get", "--get-all", "--get-regexp", "--list", "-l",
                          "--show-origin", "--show-scope", "--name-only", "--null", "-z",
                          "--global", "--system", "--local", "--worktree", "--includes",
                          "--no-includes", "--type", "--default", "--bool", "--int", "--path"))


_CONFIG_WRITE_SUBCOMMANDS = frozenset(("set", "unset", "rename-section", "remove-section",
                                       "edit"))


def git_config(ctx, spec, words, cwd):
    if words and words[0] in ("get", "list"):
        # read-only, but --file/--blob name what is read (an INI-style credentials file)
        args = argvmod.parse(words[1:], frozenset(("--type", "--default", "--file", "-f",
                                                   "--blob", "--value", "--url")))
        blobs = args.values("--blob") + [a for a in args.attached if ":" in a]
        verdict = revision_secret(ctx, "git config", blobs, cwd)
        if verdict is not None:
            return verdict, [], []
        return None, args.values("--file", "-f", "--blob") + args.attached, []
    if words and words[0] in _CONFIG_WRITE_SUBCOMMANDS:
        # git 2.46+ subcommands; `git config edit` opens .git/config in the editor
        return _unsafe(ctx, f"git config {words[0]}", "changes the configuration"), [], []
    args = argvmod.parse(words, frozenset(("--type", "--default", "--file", "-f", "--blob")))
    for opt in args.options:
        if opt.name in ("--file", "-f"):
            continue
        if opt.name not in _CONFIG_READ:
            return _unsafe(ctx, f"git config {opt.name}", "changes the configuration"), [], []
    reading = args.has("--get", "--get-all", "--get-regexp", "--list", "-l")
    limit = 2 if reading else 1
    if len(args.positionals) > limit or (not reading and not args.positionals):
        return _unsafe(ctx, "git config " + " ".join(words), "sets a value (git config can "
                       "define aliases and hooks that run commands)"), [], []
    return None, args.values("--file", "-f"), []


_GH_API_VALUE = frozenset(("-X", "--method", "-H", "--header", "-q", "--jq", "-t",
                           "--template", "--hostname", "--cache", "-p", "--preview"))
_GH_API_FLAGS = frozenset(("--paginate", "-i", "--include", "--silent", "--verbose",
                           "--slurp"))


def gh_api(ctx, spec, words, cwd):
    args = argvmod.parse(words, _GH_API_VALUE)
    for opt in args.options:
        if opt.name in ("-X", "--method"):
            if (opt.value or "").upper() not in ("GET", "HEAD"):
                return _unsafe(ctx, f"gh api {opt.name} {opt.value}", "changes data on "
                               "GitHub"), [], []
        elif opt.name in ("-f", "-F", "--field", "--raw-field", "--input"):
            return _unsafe(ctx, f"gh api {opt.name}", "sends data (the request becomes a "
                           "POST)"), [], []
        elif opt.name not in _GH_API_VALUE and opt.name not in _GH_API_FLAGS:
            return _unsafe(ctx, f"gh api {opt.name}", "unknown option"), [], []
    if len(args.positionals) != 1:
        return _unsafe(ctx, "gh api", "expects exactly one endpoint"), [], []
    return None, [], []


_CHECKS = {
    "sed": sed,
    "awk": awk,
    "jq": jq,
    "find": find,
    "git-checkout": git_checkout,
    "git-switch": git_switch,
    "git-fetch": git_fetch,
    "git-stash-apply": git_stash_apply,
    "git-restore": git_restore,
    "git-reset": git_reset,
    "git-config": git_config,
    "gh-api": gh_api,
    "make": make,
    "go": go,
    "xxd": xxd,
    "tsc": tsc,
    "cargo": cargo,
    "ruff": ruff,
    "pytest": pytest,
    "date": date,
}


def revision_secret(ctx, label, words, cwd, rule=None):
    """git names a file in a commit or the index as <rev>:<path>, :<n>:<path> or :<path>
    (and git log -L as <start>,<end>:<path> or :<func>:<path>): the path after any colon
    may be a secret (HEAD:.envrc, :credentials). An ask verdict, or None."""
    for word in words:
        start = word.find(":")
        while start != -1:
            rest = word[start + 1:]
            if rest:
                secret = is_secret((lexical(rest, cwd),), ctx.policy)
                if secret:
                    return ctx.ask("5", "GW503", f"{label} {word!r} names the secret file "
                                   f"{rest!r} ({secret})", rule=f"secrets:{secret}")
            start = word.find(":", start + 1)
    return None
