"""Program texts: sed, awk and jq programs are judged, not just their options."""

from gateway.shell import argv as argvmod
from gateway.shell.words import is_name as _awk_name  # awk's variable names are bash's
from gateway.tools.awk import _awk_assignment_problem, awk_program_problem
from gateway.tools.jq import jq_program_problem
from gateway.tools.sed import sed_program_problem
from gateway.validator.checks._common import _program, _unsafe

# --- sed ---------------------------------------------------------------------------------

_SED_SAFE_OPTS = {"-n", "--quiet", "--silent", "-E", "-r", "--regexp-extended", "-s",
                  "--separate", "-z", "--null-data", "--zero-terminated", "-u",
                  "--unbuffered", "--posix", "--debug", "--sandbox", "-l", "--line-length",
                  "--follow-symlinks"}


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
