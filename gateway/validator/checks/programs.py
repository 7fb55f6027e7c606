"""Program texts: sed, awk and jq programs are judged, not just their options."""

from gateway.validator import argv as argvmod
from gateway.validator.checks._common import _program, _unsafe

# --- sed ---------------------------------------------------------------------------------

_SED_SAFE_OPTS = {"-n", "--quiet", "--silent", "-E", "-r", "--regexp-extended", "-s",
                  "--separate", "-z", "--null-data", "-u", "--unbuffered", "--posix",
                  "--debug", "--sandbox", "-l", "--line-length"}
_SED_SIMPLE = set("pPdDnNgGhHxlz=F")


def sed(ctx, spec, words, cwd):
    args = argvmod.parse(words, frozenset({"-e", "--expression", "-f", "--file", "-l",
                                           "--line-length"}))
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
    # awk joins a line ending in a backslash with the next (`a = 2 \` / `/ 1; system()`
    # is two divisions, not a regex): both texts are read
    for text in dict.fromkeys((prog, prog.replace("\\\n", " "))):
        for regex_after_operator in (False, True):
            for brackets in (False, True):
                why = _awk_reading_problem(_awk_tokens(text, regex_after_operator, brackets))
                if why:
                    return why
    return ""


def _awk_reading_problem(tokens) -> str:
    in_print = False
    depth = 0
    prev = ""
    for kind, text in tokens:
        before, prev = prev, text
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
        elif text == "\n" and before in (",", "&&", "||"):
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
