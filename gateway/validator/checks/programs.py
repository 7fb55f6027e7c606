"""Program texts: sed, awk and jq programs are judged, not just their options."""

from gateway.shell import argv as argvmod
from gateway.shell.words import is_name as _awk_name  # awk's variable names are bash's
from gateway.validator.checks._common import _program, _unsafe

# --- sed ---------------------------------------------------------------------------------

_SED_SAFE_OPTS = {"-n", "--quiet", "--silent", "-E", "-r", "--regexp-extended", "-s",
                  "--separate", "-z", "--null-data", "--zero-terminated", "-u",
                  "--unbuffered", "--posix", "--debug", "--sandbox", "-l", "--line-length",
                  "--follow-symlinks"}
_SED_SIMPLE = set("pPdDnNgGhHxlz=F")


_SED_LONGS = frozenset(("--quiet", "--silent", "--debug", "--expression", "--file",
                        "--follow-symlinks", "--in-place", "--line-length", "--null-data",
                        "--zero-terminated", "--posix", "--regexp-extended", "--separate",
                        "--sandbox", "--unbuffered", "--help", "--version"))


def sed(ctx, spec, words, cwd):
    # -i[SUFFIX] takes its suffix glued only; long options may be abbreviated (--expr)
    args = argvmod.parse(words, frozenset({"-e", "--expression", "-f", "--file", "-l",
                                           "--line-length"}), _SED_LONGS, frozenset({"-i"}))
    scripts = []
    in_place = False
    for opt in args.options:
        if opt.name in ("-e", "--expression"):
            scripts.append(opt.value or "")
        elif opt.name in ("-f", "--file"):
            return _program(ctx, "sed -f", "the program comes from a file that is not shown"), [], []
        elif opt.name in ("-i", "--in-place", "-I"):
            why = _in_place_problem(ctx, opt, words)
            if why:
                return _unsafe(ctx, f"sed {opt.name}", why), [], []
            in_place = True
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
    return None, files, (list(files) if in_place else [])


def _in_place_problem(ctx, opt, words):
    """Why `sed -i` is not allowed here, or "": it edits the files it reads, which only a
    mode that accepts edits allows (acceptEdits; exposure judges only what it reads), and
    only GNU's -i / --in-place with no backup suffix or a plain one (a suffix with / or *
    writes the backup elsewhere)."""
    from gateway.validator import modes

    if opt.name == "-I":
        return "edits files in place (-I is not GNU sed's option)"
    if not (ctx.exposure or modes.accepts_edits(ctx.mode)):
        return f"edits files in place; in {modes.normalize(ctx.mode)} mode edits are the " \
               "human's (acceptEdits allows them inside the project)"
    word = opt.word or ""
    if word.startswith("--"):
        suffix = word.split("=", 1)[1] if "=" in word else ""
    elif word.startswith("-i"):
        suffix = word[2:]  # -i[SUFFIX]: GNU sed takes the rest of the word
    else:
        return "edits files in place (-i inside a cluster of options: -ni, -si)"
    if "/" in suffix or "*" in suffix:
        return "edits files in place with a backup suffix that names another place"
    return ""


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
            # GNU sed ends a label at whitespace or `;` (`:a e id` is the label a, then the
            # command e); other seds read to the end of the line. The commands after the
            # shortest label are checked, which covers both readings
            i += 1
            while i < n and s[i] in " \t":
                i += 1
            while i < n and s[i] not in " \t\n;}":
                i += 1
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
#
# An awk program is allowed only in a safe subset of the language, judged construct by
# construct: no pipes (`|`, `|&`), no getline, no output redirection of print/printf, no
# `@` (gawk's directives and indirect calls: `@f()` calls the function named by the string
# in f, `system` among them), no `::` (gawk's namespaces), and every name is one this list
# knows: a keyword, an allowed built-in function or variable, a function the program
# defines, or a variable of the program's own, written in lower case. gawk reaches
# ENVIRON, ARGV and PROCINFO through SYMTAB["ENV" "IRON"] with a computed string, so a list
# of banned names cannot be complete; an allowlist of names is.

_AWK_VALUE_OPTS = frozenset({"-F", "--field-separator", "-v", "--assign"})
#: gawk/mawk options that change nothing the program can reach (no file written or read)
_AWK_SAFE_OPTS = frozenset({"-b", "--characters-as-bytes", "-c", "--traditional", "-P",
                            "--posix", "-r", "--re-interval", "-n", "--non-decimal-data",
                            "-N", "--use-lc-numeric", "-S", "--sandbox", "-s", "--no-optimize",
                            "-O", "--optimize", "-M", "--bignum", "-t", "--lint-old"})
_AWK_LONGS = frozenset(o for o in _AWK_VALUE_OPTS | _AWK_SAFE_OPTS | {
    "--file", "--exec", "--source", "--include", "--load", "--dump-variables", "--debug",
    "--profile", "--pretty-print", "--lint", "--gen-pot", "--copyright", "--trace",
    "--version", "--help"} if o.startswith("--"))

_AWK_KEYWORDS = frozenset(("BEGIN", "END", "BEGINFILE", "ENDFILE", "function", "func", "if",
                           "else", "while", "for", "do", "break", "continue", "next",
                           "nextfile", "exit", "return", "delete", "in", "print", "printf",
                           "switch", "case", "default"))
#: built-in functions that compute (no command, no file, no environment)
_AWK_FUNCTIONS = frozenset(("length", "substr", "index", "split", "sub", "gsub", "match",
                            "sprintf", "tolower", "toupper", "int", "sqrt", "exp", "log",
                            "sin", "cos", "atan2", "rand", "srand", "gensub", "strftime",
                            "systime", "mktime", "asort", "asorti", "patsplit", "isarray",
                            "typeof", "and", "or", "xor", "compl", "lshift", "rshift",
                            "strtonum", "close", "fflush", "mkbool"))
#: built-in variables that hold the input, its fields and formats (no environment, no
#: arguments, no process information, no symbol table)
_AWK_VARIABLES = frozenset(("NR", "NF", "FNR", "FS", "OFS", "ORS", "RS", "SUBSEP", "CONVFMT",
                            "OFMT", "RSTART", "RLENGTH", "FILENAME", "RT", "FPAT",
                            "FIELDWIDTHS", "IGNORECASE", "ERRNO"))


def awk(ctx, spec, words, cwd):
    args = argvmod.parse(words, _AWK_VALUE_OPTS, _AWK_LONGS)
    for opt in args.options:
        if opt.name in ("-f", "--file", "-E", "--exec", "-e", "--source"):
            return _program(ctx, f"awk {opt.name}", "the program comes from a file or from "
                            "pieces this check does not read"), [], []
        if opt.name in ("-v", "--assign"):
            why = _awk_assignment_problem(opt.value or "")
            if why:
                return _program(ctx, f"awk {opt.name} {opt.value}", why), [], []
            continue
        if opt.name not in _AWK_VALUE_OPTS and opt.name not in _AWK_SAFE_OPTS:
            return _unsafe(ctx, f"awk {opt.name}", "not an option this check allows (gawk's "
                           "-i/-l load code, -d/-p/-o write files, -D reads commands)"), [], []
    if not args.positionals:
        return _program(ctx, "awk", "no program"), [], []
    prog = args.positionals[0]
    why = awk_program_problem(prog)
    if why:
        return _program(ctx, f"awk program {prog!r}", why), [], []
    cands = []
    for p in args.positionals[1:]:
        name, eq, value = p.partition("=")
        if eq and _awk_name(name):
            why = _awk_assignment_problem(p)
            if why:
                return _program(ctx, f"awk operand {p!r}", why), [], []
            continue  # an assignment operand: no file is read
        cands.append(p)
    return None, cands, []


def _awk_assignment_problem(text) -> str:
    """Why `-v NAME=VALUE` (or a NAME=VALUE operand) is not allowed, or ""."""
    name = text.partition("=")[0]
    if not _awk_name(name):
        return "not an assignment of a variable"
    if name in _AWK_VARIABLES or (name.islower() or not any(c.isalpha() for c in name)):
        return ""
    return f"{name} is not a variable this check allows to set"


def _awk_tokens(prog: str, regex_after_operator: bool = False, brackets: bool = False):
    """Yield (kind, text) with strings and regex literals removed: kinds are word, num, op,
    str.

    Where a `/` starts a regex literal and whether a regex literal skips bracket expressions
    (`/[/"]/`) are decided by awk's grammar, not by its lexer; the two switches pick one
    reading of each, and awk_program_problem judges the program under every reading."""
    i = 0
    n = len(prog)
    prev = ""
    prev_kind = ""
    while i < n:
        c = prog[i]
        if c in " \t\r":
            i += 1
            continue
        if c == "\\" and i + 1 < n and prog[i + 1] == "\n":
            i += 2  # a line continuation
            continue
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
            operand = prev_kind in ("str", "num") or (
                prev_kind == "word" and prev not in _AWK_KEYWORDS) \
                or prev in (")", "]", "++", "--", "$")
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
        if c.isdigit() or (c == "." and i + 1 < n and prog[i + 1].isdigit()):
            j = i + 1
            while j < n and (prog[j].isalnum() or prog[j] == "." or (
                    prog[j] in "+-" and prog[j - 1] in "eE" and not prog[i:j].startswith(
                        ("0x", "0X")))):
                j += 1
            yield "num", prog[i:j]
            prev, prev_kind = prog[i:j], "num"
            i = j
            continue
        if c.isalpha() or c == "_" or ord(c) > 127:
            j = i
            while j < n and (prog[j].isalnum() or prog[j] == "_" or ord(prog[j]) > 127):
                j += 1
            word = prog[i:j]
            yield "word", word
            prev, prev_kind = word if regex_after_operator else "word", "word"
            i = j
            continue
        two = prog[i:i + 2]
        if two in (">>", "||", "&&", "==", "!=", "<=", ">=", "!~", "++", "--", "+=", "-=",
                   "*=", "/=", "%=", "^=", "|&", "::", "**"):
            yield "op", two
            prev, prev_kind = two, "op"
            i += 2
            continue
        yield "op", c
        prev, prev_kind = c, "op"
        i += 1


def awk_program_problem(prog: str) -> str:
    """Why an awk program is not in the safe subset, or "". The program is read every way
    awk might tokenize it (see _awk_tokens); any reading with a problem refuses it."""
    for regex_after_operator in (False, True):
        for brackets in (False, True):
            why = _awk_reading_problem(list(_awk_tokens(prog, regex_after_operator,
                                                        brackets)))
            if why:
                return why
    return ""


_AWK_OPS = frozenset(("\n", ";", "{", "}", "(", ")", "[", "]", ",", "$", "+", "-", "*", "/",
                      "%", "^", "**", "!", "<", ">", "<=", ">=", "==", "!=", "~", "!~", "&&",
                      "||", "?", ":", "=", "+=", "-=", "*=", "/=", "%=", "^=", "++", "--",
                      ">>"))


def _awk_reading_problem(tokens) -> str:
    defined = {tokens[k + 1][1] for k in range(len(tokens) - 1)
               if tokens[k] == ("word", "function") or tokens[k] == ("word", "func")}
    in_print = False
    depth = 0
    prev = ""
    for k, (kind, text) in enumerate(tokens):
        before, prev = prev, text
        nxt = tokens[k + 1][1] if k + 1 < len(tokens) else ""
        if kind == "word":
            if text in ("print", "printf"):
                in_print = True
                depth = 0
                continue
            if text == "getline":
                return "getline reads another file or a command's output"
            if text in _AWK_KEYWORDS or text in _AWK_VARIABLES:
                continue
            if text in _AWK_FUNCTIONS or text in defined:
                continue
            if nxt == "(" and before not in ("function", "func"):
                return f"{text}() is not a function this check allows (it may run a " \
                       "command or read files)"
            if text.islower() or not any(c.isalpha() for c in text.replace("_", "")):
                if text.isascii():
                    continue  # a variable (or parameter) of the program's own
            return f"{text} is not a name this check allows (the environment, the " \
                   "arguments, the process and the symbol table are out of reach)"
        if kind != "op":
            continue
        if text not in _AWK_OPS:
            if text in ("|", "|&"):
                return "a pipe to or from a command"
            if text == "@":
                return "@ (gawk's directives and indirect function calls)"
            if text == "::":
                return ":: (gawk's namespaces)"
            return f"{text!r} is not a construct this check allows"
        if text in ("(", "["):
            depth += 1
        elif text in (")", "]"):
            depth -= 1
        elif text == "\n" and before in (",", "&&", "||", "{", "do", "else"):
            continue  # awk goes on after a newline that follows , && || (print "a",\n"b" > f)
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
    bound = []
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
                if i + 1 < n:
                    bound.append(words[i + 1])
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
    why = jq_program_problem(program, bound)
    if why:
        return _program(ctx, f"jq program {program!r}", why), [], []
    return None, cands, []


# A jq program is allowed only in a safe subset: every function it calls is a built-in of
# this list (all of jq's built-ins but `env`, which reads the environment, and
# `get_search_list`/`modulemeta`, which read module paths and files) or a function it defines
# itself; every variable is one it binds (`as $x`, `def f($x)`, `label $x`), one given on
# the command line (--arg NAME ...), $ARGS or $__loc__ ($ENV, the environment, only when the
# program binds that name itself); no `import`/`include`, no `mod::name`. Object keys
# (`{name, version}`), fields (`.env`) and strings are data.
_JQ_BUILTINS = frozenset((
    "IN", "INDEX", "JOIN", "ascii", "abs", "acos", "acosh", "add", "all", "any", "arrays",
    "ascii_downcase", "ascii_upcase", "asin", "asinh", "atan", "atan2", "atanh", "booleans",
    "bsearch", "builtins", "capture", "cbrt", "ceil", "combinations", "contains", "copysign",
    "cos", "cosh", "date", "dateadd", "datesub", "debug", "del", "delpaths", "drem", "empty",
    "endswith", "erf", "erfc", "error", "exp", "exp10", "exp2", "explode", "fabs", "fdim",
    "finites", "first", "flatten", "floor", "fma", "fmax", "fmin", "fmod", "format",
    "frexp", "from_entries", "fromdate", "fromdateiso8601", "fromjson", "fromstream",
    "gamma", "get_jq_origin", "get_prog_origin", "getpath", "gmtime", "group_by", "gsub",
    "halt", "halt_error", "has", "have_decnum", "have_literal_numbers", "hypot", "implode",
    "in", "index", "indices", "infinite", "input", "input_filename", "input_line_number",
    "inputs", "inside", "isempty", "isfinite", "isinfinite", "isnan", "isnormal",
    "isvalid", "iterables", "j0", "j1", "jn", "join", "keys", "keys_unsorted", "last",
    "ldexp", "leaf_paths", "length", "lgamma", "lgamma_r", "limit", "localtime", "log",
    "log10", "log1p", "log2", "logb", "ltrimstr", "ltrim", "map", "map_values", "match",
    "max", "max_by", "min", "min_by", "mktime", "modf", "nan", "nearbyint", "nextafter",
    "nexttoward", "normals", "not", "now", "nth", "nulls", "numbers", "objects", "path",
    "paths", "pick", "pow", "pow10", "range", "recurse", "recurse_down", "remainder",
    "repeat", "reverse", "rindex", "rint", "round", "rtrimstr", "rtrim", "scalars",
    "scalars_or_empty", "scalb", "scalbln", "scan", "select", "setpath", "significand",
    "sin", "sinh", "skip", "sort", "sort_by", "split", "splits", "sqrt", "startswith",
    "stderr", "strflocaltime", "strftime", "strings", "strptime", "sub", "tan", "tanh",
    "test", "tgamma", "to_entries", "toarray", "todate", "todateiso8601", "tojson",
    "tonumber", "tostream", "tostring", "transpose", "trim", "trimstr", "trunc",
    "truncate_stream", "type", "unique", "unique_by", "until", "utf8bytelength", "values",
    "walk", "while", "with_entries", "y0", "y1", "yn", "getpath", "splits", "todate",
    "tojson", "getpath", "ltrimstr", "abs", "toarray", "have_literal_numbers"))
_JQ_KEYWORDS = frozenset(("def", "as", "if", "then", "elif", "else", "end", "reduce",
                          "foreach", "try", "catch", "label", "and", "or", "__loc__", "break",
                          "null", "true", "false"))
_JQ_FORMATS = frozenset(("@text", "@json", "@html", "@uri", "@urid", "@csv", "@tsv", "@sh",
                         "@base64", "@base64d", "@base32", "@base32d"))
_JQ_VARIABLES = frozenset(("__loc__", "ARGS", "__prog_args"))


def _jq_tokens(prog, out, depth=0):
    """Append (kind, text) tokens of a jq program to `out`: ident, var, field, format, str,
    num, op. A string's interpolations `\\(...)` are tokenized as code (between "(" and ")"
    tokens). Raises ValueError on text jq would not read either."""
    if depth > 32:
        raise ValueError("too deeply nested")
    i = 0
    n = len(prog)
    while i < n:
        c = prog[i]
        if c in " \t\r\n":
            i += 1
            continue
        if c == "#":
            nl = prog.find("\n", i)
            i = n if nl < 0 else nl + 1
            continue
        if c == '"':
            i = _jq_string(prog, i + 1, out, depth)
            continue
        if c == "$":
            j = i + 1
            while j < n and prog[j] in " \t\r\n":
                j += 1
            k = j
            while k < n and (prog[k].isalnum() or prog[k] == "_"):
                k += 1
            if k == j:
                raise ValueError("a $ without a name")
            if prog[k:k + 2] == "::":
                raise ValueError("a module variable ($mod::name)")
            out.append(("var", prog[j:k]))
            i = k
            continue
        if c == "@":
            k = i + 1
            while k < n and (prog[k].isalnum() or prog[k] == "_"):
                k += 1
            out.append(("format", prog[i:k]))
            i = k
            continue
        if c == "." and i + 1 < n and (prog[i + 1].isalpha() or prog[i + 1] == "_"):
            k = i + 1
            while k < n and (prog[k].isalnum() or prog[k] == "_"):
                k += 1
            out.append(("field", prog[i + 1:k]))
            i = k
            continue
        if c.isdigit() or (c == "." and i + 1 < n and prog[i + 1].isdigit()):
            k = i + 1
            while k < n and (prog[k].isalnum() or prog[k] == "." or (
                    prog[k] in "+-" and prog[k - 1] in "eE")):
                k += 1
            out.append(("num", prog[i:k]))
            i = k
            continue
        if c.isalpha() or c == "_":
            k = i + 1
            while k < n and (prog[k].isalnum() or prog[k] == "_"):
                k += 1
            if prog[k:k + 2] == "::":
                raise ValueError(f"a module function ({prog[i:k]}::...)")
            out.append(("ident", prog[i:k]))
            i = k
            continue
        three = prog[i:i + 3]
        if three == "?//":
            out.append(("op", three))
            i += 3
            continue
        two = prog[i:i + 2]
        if two in ("|=", "+=", "-=", "*=", "/=", "%=", "//", "==", "!=", "<=", ">=", "..",
                   "?.", "//="):
            out.append(("op", two))
            i += 2
            continue
        if c in "|,()[]{}:;.+-*/%<>=?":
            out.append(("op", c))
            i += 1
            continue
        raise ValueError(f"{c!r} is not jq syntax this check reads")


def _jq_string(prog, i, out, depth):
    """Tokenize a string body starting at prog[i]; return the index past its closing quote."""
    n = len(prog)
    out.append(("str", '"'))
    while i < n:
        c = prog[i]
        if c == '"':
            return i + 1
        if c == "\\" and i + 1 < n and prog[i + 1] == "(":
            level = 1
            j = i + 2
            k = j
            in_str = False
            while k < n and level:
                ch = prog[k]
                if in_str:
                    if ch == "\\":
                        k += 2
                        continue
                    if ch == '"':
                        in_str = False
                elif ch == '"':
                    in_str = True
                elif ch == "(":
                    level += 1
                elif ch == ")":
                    level -= 1
                k += 1
            if level:
                raise ValueError("an unterminated interpolation")
            out.append(("op", "("))
            _jq_tokens(prog[j:k - 1], out, depth + 1)
            out.append(("op", ")"))
            i = k
            continue
        i += 2 if c == "\\" else 1
    raise ValueError("an unterminated string")


class _Frame:
    """A scope of a jq program: a bracket, a `def` body, a binding (`as`, `label`, a
    completed `def`) or the start of an `if`/`try` whose branches end bindings."""

    __slots__ = ("kind", "vars", "funcs", "name")

    def __init__(self, kind, variables=(), funcs=(), name=""):
        self.kind = kind  # "bracket", "def", "bind", "if"
        self.vars = set(variables)
        self.funcs = set(funcs)
        self.name = name


def _jq_pattern(tokens, k):
    """The variables a destructuring pattern starting at tokens[k] binds, the index where it
    ends (at `|` or `(` outside brackets), or an error."""
    names = []
    level = 0
    j = k
    while j < len(tokens):
        kind, text = tokens[j]
        if kind == "op" and text in ("(", "[", "{"):
            if text == "(" and level == 0:
                return names, j, ""
            if text == "(":
                return names, j, "a computed key in a destructuring pattern"
            level += 1
        elif kind == "op" and text in (")", "]", "}"):
            level -= 1
            if level < 0:
                return names, j, "an unterminated binding"
        elif kind == "op" and text == "|" and level == 0:
            return names, j, ""
        elif kind == "var":
            names.append(text)
        j += 1
    return names, j, "a binding without a body"


def jq_program_problem(prog: str, bound=()) -> str:
    """Why a jq program is not in the safe subset, or "". `bound` are the variable names
    the command line gives it (--arg NAME VALUE...). Names are resolved with jq's scopes: a
    binding (`. as $x | ...`, `def f: ...;`) reaches to the end of the expression it is in,
    never past a closing bracket, a `;` or the next branch of an if/try."""
    tokens = []
    try:
        _jq_tokens(prog, tokens)
    except (ValueError, RecursionError) as exc:
        return f"not read: {exc}"
    frames = [_Frame("bracket", set(bound) | _JQ_VARIABLES)]

    def visible(attr, name):
        return any(name in getattr(f, attr) for f in frames)

    def pop_to(kinds):
        """Pop the frames above the innermost one of `kinds`; return it (not popped)."""
        while len(frames) > 1 and frames[-1].kind not in kinds:
            frames.pop()
        return frames[-1]

    pending_def = []  # def names whose parameters are being read
    k = 0
    n = len(tokens)
    while k < n:
        kind, text = tokens[k]
        before = tokens[k - 1] if k else ("op", "")
        after = tokens[k + 1] if k + 1 < n else ("op", "")
        k += 1
        if kind == "op":
            if text in ("(", "[", "{"):
                frames.append(_Frame("bracket", name=text))
            elif text in (")", "]", "}"):
                pop_to(("bracket",))
                if len(frames) > 1:
                    frames.pop()
            elif text == ";":
                top = pop_to(("bracket", "def"))
                if top.kind == "def":
                    frames.pop()
                    frames.append(_Frame("bind", funcs={top.name}))
            continue
        if kind == "var":
            if not visible("vars", text):
                if text == "ENV":
                    return "$ENV reads the environment, which holds secrets"
                return f"${text} is not a variable the program or the command line binds"
            continue
        if kind == "format":
            if text not in _JQ_FORMATS:
                return f"{text} is not a format this check knows"
            continue
        if kind != "ident":
            continue
        top = frames[-1]
        if top.kind == "bracket" and top.name == "{" and before in (("op", "{"), ("op", ",")) \
                and after in (("op", ":"), ("op", ","), ("op", "}")):
            continue  # an object key ({name, version}, {if: 1}): data
        if text in ("import", "include"):
            return f"{text} loads modules"
        if text == "def":
            if after[0] != "ident":
                return "a def without a name"
            name = after[1]
            params_v, params_f = set(), set()
            j = k + 1
            if j < n and tokens[j] == ("op", "("):
                j += 1
                while j < n and tokens[j] != ("op", ")"):
                    if tokens[j][0] == "ident":
                        params_f.add(tokens[j][1])
                    elif tokens[j][0] == "var":
                        params_v.add(tokens[j][1])
                        params_f.add(tokens[j][1])
                    elif tokens[j] != ("op", ";"):
                        return "a def parameter list this check does not read"
                    j += 1
                j += 1
            if j >= n or tokens[j] != ("op", ":"):
                return "a def without a body"
            frames.append(_Frame("def", params_v, params_f | {name}, name=name))
            k = j + 1
            continue
        if text in ("as", "label"):
            names, end, why = _jq_pattern(tokens, k)
            if why:
                return why
            if end < n and tokens[end] == ("op", "(") and text == "as":
                # reduce/foreach SOURCE as $x (INIT; UPDATE): bound inside the parentheses
                frames.append(_Frame("bracket", names, name="("))
            else:
                frames.append(_Frame("bind", names))
            k = end + 1
            continue
        if text in ("if", "try"):
            frames.append(_Frame("if", name=text))
            continue
        if text in ("then", "elif", "else", "end", "catch"):
            top = pop_to(("bracket", "def", "if"))
            if top.kind == "if" and text in ("end", "catch"):
                frames.pop()
            continue
        if text in _JQ_KEYWORDS or visible("funcs", text):
            continue
        if text in _JQ_BUILTINS:
            continue
        if text == "env":
            return "env reads the environment, which holds secrets"
        return f"{text} is not a function this check allows"
    del pending_def
    return ""
