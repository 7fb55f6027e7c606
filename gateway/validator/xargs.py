"""`xargs CMD ARGS` is CMD ARGS with the names it reads from its input appended.

`git ls-files '*.py' | xargs grep -l typing` runs `grep -l typing` with every tracked .py
file as an argument. When the input comes from a producer whose output this module
reproduces, the words xargs will add are known, and the command is judged as exactly what
runs: CMD ARGS followed by those words (and, for empty input, CMD ARGS alone: GNU xargs runs
the command once unless -r). Every name is then a path argument like any other: a secret
among them asks (GW503), a name outside the project asks, a writer writes them.

Producers (the command before `|`, through line filters that only drop or reorder lines:
sort, uniq, head, tail, grep without output prefixes):

* ``git ls-files`` with plain options and pathspecs, and ``git diff --name-only`` at the
  work tree's top: git itself is asked for the names (hardened, tools/gitquery.py), exactly
  as the pipeline will see them;
* ``find START... [EXPR]`` whose expression only tests and prints (-name, -type, -path,
  -maxdepth, !, -o, -prune, -print, -print0...): the tree below each start is listed as
  find lists it (no symlink followed); a top-level -name/-iname/-type conjunction narrows
  the list, anything else leaves it a superset of what find prints (more names judged,
  never fewer);
* ``grep -l`` / ``grep -rl PATTERN OPERANDS`` (no -R: it follows links) and ``git grep -l
  PATTERN [-- PATHSPEC]``: they print a subset of the files they search, so every file and
  link below the operands (as find lists them), or every file git ls-files lists for the
  pathspecs, is judged: a superset again.

The words: without -0, xargs splits its input on blanks and reads quotes and backslashes,
so every name must be plain (no blank, quote, backslash, control or non-ASCII character:
then git's quoting and xargs's parsing leave it as it is); with -0 (and -z / -print0 on
the producer) the names are the words. A name starting with `-` would be an option of CMD:
it asks. Options of xargs itself are an allowlist (-0, -r, -t, -x, -n, -L, -P, -s); -I, -a,
-d, -E and the rest ask. Anything not reproduced (another producer, an input redirection,
`|&`, a computed word, too many names) asks with the reason (GW715).
"""

import os
import posixpath

from gateway.decision import ALLOW

PHASE = "7C"
CODE = "GW715"
#: Names judged at most; more asks (a very large tree or repository).
MAX_NAMES = 5000

_FLAGS = {"-0": "null", "--null": "null", "-r": None, "--no-run-if-empty": None,
          "-t": None, "--verbose": None, "-x": None, "--exit": None}
_VALUES = {"-n": "--max-args", "-L": "--max-lines", "-P": "--max-procs", "-s": "--max-chars",
           "--max-args": "--max-args", "--max-lines": "--max-lines",
           "--max-procs": "--max-procs", "--max-chars": "--max-chars"}


class Refused(Exception):
    """Why the names xargs adds are not known."""


def parse(argv):
    """(null-separated?, the command xargs runs) for `xargs OPTIONS CMD...`; raises Refused
    for an option outside the allowlist. The command is [] when xargs runs echo."""
    null = False
    i = 1
    while i < len(argv):
        w = argv[i]
        if w == "--":
            i += 1
            break
        if not w.startswith("-") or w == "-":
            break
        name, eq, value = w.partition("=")
        if name in _FLAGS and not eq:
            null = null or _FLAGS[name] == "null"
            i += 1
            continue
        if name in _VALUES:
            if eq:
                value = value
            elif i + 1 < len(argv):
                value = argv[i + 1]
                i += 1
            else:
                raise Refused(f"xargs {w} without its value")
            if not value.isdigit():
                raise Refused(f"xargs {name} {value!r} is not a number")
            i += 1
            continue
        if len(w) > 2 and not w.startswith("--") and w[:2] in ("-n", "-L", "-P", "-s") \
                and w[2:].isdigit():
            i += 1  # -n5
            continue
        if len(w) > 2 and not w.startswith("--") and all(f"-{c}" in _FLAGS for c in w[1:]):
            null = null or "0" in w[1:]
            i += 1  # -0r
            continue
        raise Refused(f"xargs {w}: an option whose effect on the command line is not "
                      "modelled (-I, -a, -d, -E, -p ... ask)")
    return null, argv[i:]


def names(ctx, feeders, cwd, null):
    """The words xargs adds, from the pipeline's commands before it (`feeders`, nearest
    last); raises Refused."""
    if not feeders:
        raise Refused("xargs reads the words it adds from a terminal or a file, not from a "
                      "command the gateway reproduces")
    chain = list(feeders)
    producer = chain.pop(0)
    for cmd in [producer] + chain:
        if cmd is None:
            raise Refused("a compound command feeds xargs")
        if cmd.redirects or cmd.assignments:
            raise Refused(f"{cmd.text!r} has a redirection or an assignment: what it prints "
                          "is not reproduced")
        if not all(w.literal for w in cmd.words):
            raise Refused(f"{cmd.text!r} has a computed word")
    for cmd in chain:
        _line_filter(cmd.argv)
    argv = producer.argv
    base = posixpath.basename(argv[0]) if argv else ""
    if base == "git" and len(argv) > 1 and argv[1] == "grep":
        found, zero = _git_grep(ctx, argv, cwd)
    elif base == "git" and len(argv) > 1 and argv[1] == "diff":
        found, zero = _git_diff_names(ctx, argv, cwd)
    elif base == "git":
        found, zero = _git_ls_files(ctx, argv, cwd)
    elif base == "find":
        found, zero = _find(ctx, argv, cwd)
    elif base == "grep":
        found, zero = _grep(ctx, argv, cwd)
    else:
        raise Refused(f"{argv[0] if argv else 'nothing'} feeds xargs; only git ls-files, "
                      "git diff --name-only, git grep -l, find and grep -l are reproduced")
    if zero != null:
        raise Refused("the producer separates names with NUL and xargs does not, or the "
                      "other way round (-z/-print0 go with xargs -0)")
    if len(found) > MAX_NAMES:
        raise Refused(f"more than {MAX_NAMES} names to judge")
    for n in found:
        if n.startswith("-"):
            raise Refused(f"the name {n!r} starts with '-': the command would read it as an "
                          "option")
        if not null and not _plain(n):
            raise Refused(f"the name {n!r} has a blank, quote, backslash or other character "
                          "that xargs splits or reads (use -z/-print0 with xargs -0)")
        if "\n" in n:
            raise Refused(f"the name {n!r} holds a newline")
    return found


def _plain(name) -> bool:
    return all(33 <= ord(c) < 127 and c not in "\"'\\" for c in name)


_FILTERS = {
    "sort": frozenset(("-u", "--unique", "-r", "--reverse", "-V", "--version-sort", "-f",
                       "--ignore-case", "-n", "--numeric-sort", "-z", "--zero-terminated")),
    "uniq": frozenset(("-z", "--zero-terminated")),
    "head": frozenset(("-n", "--lines", "-z", "--zero-terminated")),
    "tail": frozenset(("-n", "--lines", "-z", "--zero-terminated")),
    "grep": frozenset(("-v", "--invert-match", "-E", "--extended-regexp", "-F",
                       "--fixed-strings", "-i", "--ignore-case", "-e", "--regexp", "-z",
                       "--null-data", "-w", "--word-regexp", "-x", "--line-regexp")),
}


def _line_filter(argv):
    """A command between the producer and xargs that only drops or reorders whole lines:
    the names it passes on are among the producer's. Raises Refused otherwise."""
    name = posixpath.basename(argv[0]) if argv else ""
    allowed = _FILTERS.get(name)
    if allowed is None:
        raise Refused(f"{name or 'a command'} between the producer and xargs may change the "
                      "names")
    words = argv[1:]
    i = 0
    operands = []
    while i < len(words):
        w = words[i]
        if w.startswith("-") and w != "-":
            opt, eq, _ = w.partition("=")
            if name in ("head", "tail") and (opt[1:].isdigit() or (
                    opt[:2] == "-n" and opt[2:].lstrip("+-").isdigit())):
                i += 1
                continue
            if opt not in allowed:
                raise Refused(f"{name} {w}: an option that may change the lines")
            if opt in ("-n", "--lines", "-e", "--regexp") and not eq and \
                    name in ("head", "tail", "grep"):
                i += 1  # its value
            i += 1
            continue
        operands.append(w)
        i += 1
    # grep takes its pattern as the first operand (unless -e); any operand beyond is a file
    limit = 1 if name == "grep" and not any(w.split("=")[0] in ("-e", "--regexp")
                                            for w in words) else 0
    if len(operands) > limit:
        raise Refused(f"{name} reads files of its own ({operands[limit]!r})")


# --- git ls-files ----------------------------------------------------------------------------

_LS_FILES = frozenset(("-c", "--cached", "-m", "--modified", "-d", "--deleted", "-o",
                       "--others", "--exclude-standard", "-i", "--ignored", "--full-name",
                       "-z"))


def _git_ls_files(ctx, argv, cwd):
    from gateway.tools import gitindex as _gitindex
    from gateway.tools import gitquery as _gitquery

    words = argv[1:]
    if not words or words[0] != "ls-files":
        raise Refused("only git ls-files (no global options) is reproduced as a producer")
    opts, specs = [], []
    rest = words[1:]
    for k, w in enumerate(rest):
        if w == "--":
            specs.extend(rest[k + 1:])
            break
        if w.startswith("-"):
            if w not in _LS_FILES:
                raise Refused(f"git ls-files {w}: an option that changes what it prints")
            opts.append(w)
        else:
            specs.append(w)
    if getattr(ctx, "git_changed", False):
        raise Refused("an earlier command may change the repository before git ls-files runs")
    git_dir = _gitindex.git_dir_of(cwd, ctx.roots.project)
    if git_dir is None:
        raise Refused("no git repository here")
    out = _gitquery.run(cwd, git_dir, ["ls-files", "-z", *[o for o in opts if o != "-z"],
                                       "--", *specs])
    if out is None:
        raise Refused("git ls-files could not be asked")
    found = [os.fsdecode(t) for t in out.split(b"\0") if t]
    return list(dict.fromkeys(found)), "-z" in opts


# --- grep -l and git grep -l: the files they would search ------------------------------------
# `grep -rl PATTERN DIR` prints the names of the files below DIR that match: a subset of the
# files it searches. Those (every file and link below each operand, as find lists them, no
# link followed) are judged: a superset of what xargs will add, so more names are judged,
# never fewer. GNU grep -r prints a name below a directory operand as DIR/NAME and, with no
# operand, searches "." and prints NAME (no "./"): the names are listed in that form, so a
# name starting with '-' is seen as the command will see it.

#: grep's single-letter options that leave -l's output a list of names (-Z: NUL after each)
_GREP_FLAGS = frozenset("rlLiEFGwxsIZHhn")
_GREP_LONG = frozenset((
    "--recursive", "--files-with-matches", "--files-without-match", "--ignore-case",
    "--extended-regexp", "--fixed-strings", "--basic-regexp", "--word-regexp",
    "--line-regexp", "--no-messages", "--null", "--with-filename", "--no-filename",
    "--line-number", "--no-ignore-case"))
#: grep's options with a value that only select files or give the pattern
_GREP_VALUES = frozenset(("--include", "--exclude", "--exclude-dir", "--regexp"))


def _grep(ctx, argv, cwd):
    flags, operands, pattern_given, zero = set(), [], False, False
    words = argv[1:]
    i = 0
    while i < len(words):
        w = words[i]
        if w == "--":
            operands.extend(words[i + 1:])
            break
        if w.startswith("--"):
            name, eq, _ = w.partition("=")
            if name in _GREP_VALUES:
                if not eq:
                    i += 1
                    if i >= len(words):
                        raise Refused(f"grep {w} without its value")
                pattern_given = pattern_given or name == "--regexp"
            elif name not in _GREP_LONG or eq:
                raise Refused(f"grep {w}: an option whose effect on the names it prints is "
                              "not reproduced (-R follows links, -c/-o print more)")
            flags.add(name)
            zero = zero or name == "--null"
        elif w.startswith("-") and w != "-":
            body = w[1:]
            k = 0
            while k < len(body):
                c = body[k]
                if c == "e":
                    pattern_given = True
                    if k + 1 == len(body):
                        i += 1
                        if i >= len(words):
                            raise Refused("grep -e without its pattern")
                    break  # the rest of the word is the pattern
                if c not in _GREP_FLAGS:
                    raise Refused(f"grep -{c}: an option whose effect on the names it prints "
                                  "is not reproduced (-R follows links, -c/-o print more)")
                flags.add("-" + c)
                zero = zero or c == "Z"
                k += 1
        else:
            operands.append(w)
        i += 1
    if not flags & {"-l", "-L", "--files-with-matches", "--files-without-match"}:
        raise Refused("grep without -l prints matching lines, not file names")
    if not pattern_given:
        if not operands:
            raise Refused("grep without a pattern")
        operands = operands[1:]
    recursive = bool(flags & {"-r", "--recursive"})
    if not operands:
        if not recursive:
            raise Refused("grep reads its standard input: its name is not a file")
        found, _ = _listed(ctx, ["."], cwd)
        shown = [n[2:] for n in found if n.startswith("./")]
        return shown, zero
    if any(o == "-" for o in operands):
        raise Refused("grep reads its standard input ('-')")
    if not recursive:
        return list(dict.fromkeys(operands)), zero
    found, _ = _listed(ctx, operands, cwd)
    return found, zero


def _listed(ctx, starts, cwd):
    """Every file and link below `starts` as find lists them (no link followed)."""
    from gateway.tools import find as findlist

    try:
        found, _zero = findlist.listing(ctx.roots, ["find", *starts, "-type", "f,l"], cwd,
                                        ("-print",))
    except findlist.Unlisted as exc:
        raise Refused(str(exc)) from None
    return list(dict.fromkeys(shown for shown, _path, _kind in found)), False


#: git grep's options that leave -l's output the names of tracked files (-z: NUL after each)
_GIT_GREP_FLAGS = frozenset(("-l", "--files-with-matches", "--name-only", "-L",
                             "--files-without-match", "-i", "--ignore-case", "-w",
                             "--word-regexp", "-E", "--extended-regexp", "-F",
                             "--fixed-strings", "-G", "--basic-regexp", "-I", "-z", "--null",
                             "--full-name", "-n", "--line-number", "-h", "-H", "--cached"))


def _git_grep(ctx, argv, cwd):
    """`git grep -l PATTERN [-- PATHSPEC...]`: the names are tracked files (its own
    defaults: the index's files; --untracked, --no-index, a revision, -O ask), so the
    files git ls-files lists for the same pathspecs are a superset."""
    words = argv[2:]
    opts, operands, pattern_given = set(), [], False
    i = 0
    specs = None
    while i < len(words):
        w = words[i]
        if w == "--":
            specs = words[i + 1:]
            break
        if w in ("-e", "--regexp"):
            pattern_given = True
            i += 2
            continue
        if w.startswith("--regexp="):
            pattern_given = True
        elif w.startswith("-"):
            if w not in _GIT_GREP_FLAGS:
                raise Refused(f"git grep {w}: an option whose effect on the names it prints "
                              "is not reproduced (--untracked, --no-index, -O ...)")
            opts.add(w)
        else:
            operands.append(w)
        i += 1
    if not opts & {"-l", "--files-with-matches", "--name-only", "-L",
                   "--files-without-match"}:
        raise Refused("git grep without -l prints matching lines, not file names")
    if not pattern_given:
        if not operands:
            raise Refused("git grep without a pattern")
        operands = operands[1:]
    for o in operands:
        # before `--` a word is a revision unless it names a path here (git's own rule)
        if ":" in o or not os.path.lexists(os.path.join(cwd, o)):
            raise Refused(f"git grep {o!r}: a revision, whose files are not reproduced")
    ls = ["git", "ls-files"] + [o for o in ("-z", "--full-name") if o in opts or
                                (o == "-z" and "--null" in opts)]
    return _git_ls_files(ctx, ls + ["--"] + operands + (specs or []), cwd)


_DIFF_FLAGS = frozenset(("--name-only", "--cached", "--staged", "-z", "--no-renames",
                         "--merge-base"))


def _git_diff_names(ctx, argv, cwd):
    """`git diff --name-only [--cached] [--diff-filter=X] [REV...] [-- PATHSPEC...]`: git
    itself is asked for the names (hardened, tools/gitquery.py), as ls-files is. Only at the
    work tree's top, where the names are the same whatever diff.relative says."""
    from gateway.tools import gitindex as _gitindex
    from gateway.tools import gitquery as _gitquery

    opts, revs, specs = [], [], []
    words = argv[2:]
    for k, w in enumerate(words):
        if w == "--":
            specs = words[k + 1:]
            break
        if w.startswith("-"):
            name, eq, value = w.partition("=")
            if name == "--diff-filter" and eq and value.isalpha():
                opts.append(w)
                continue
            if w not in _DIFF_FLAGS:
                raise Refused(f"git diff {w}: an option that changes what it prints")
            opts.append(w)
        else:
            if not all(33 <= ord(c) < 127 for c in w):
                raise Refused(f"git diff {w!r}: a revision the gateway does not pass on")
            revs.append(w)
    if "--name-only" not in opts:
        raise Refused("git diff without --name-only prints a patch, not file names")
    if getattr(ctx, "git_changed", False):
        raise Refused("an earlier command may change the repository before git diff runs")
    git_dir = _gitindex.git_dir_of(cwd, ctx.roots.project)
    if git_dir is None:
        raise Refused("no git repository here")
    top = _gitquery.run(cwd, git_dir, ["rev-parse", "--show-toplevel"])
    if top is None or os.path.realpath(os.fsdecode(top).strip()) != os.path.realpath(cwd):
        raise Refused("git diff runs below the work tree's top: its names depend on "
                      "diff.relative")
    out = _gitquery.run(cwd, git_dir, ["diff", "-z", *[o for o in opts if o != "-z"],
                                       *revs, "--", *specs])
    if out is None:
        raise Refused("git diff could not be asked")
    found = [os.fsdecode(t) for t in out.split(b"\0") if t]
    return list(dict.fromkeys(found)), "-z" in opts


# --- find ------------------------------------------------------------------------------------

def _find(ctx, argv, cwd):
    from gateway.tools import find as findlist

    try:
        found, zero = findlist.listing(ctx.roots, argv, cwd, ("-print", "-print0"))
    except findlist.Unlisted as exc:
        raise Refused(str(exc)) from None
    return [shown for shown, _path, _kind in found], zero


def judge(ctx, argv, cwd, depth, judge_argv, inputs=()):
    """The verdict for `xargs ...` (argv) in a pipeline: CMD ARGS with the names added.
    `inputs`: the files the shell opens as its standard input (`< FILE`): they, not the
    pipe, give the names."""
    try:
        null, inner = parse(argv)
        if inputs:
            raise Refused(f"its input is the file {inputs[0]!r}, whose lines are not known")
    except Refused as exc:
        return ctx.ask(PHASE, CODE, f"xargs: {exc}", rule="xargs")
    inner = inner or ["echo"]
    if depth >= 8:
        return ctx.ask("7A", "GW706", "xargs runs commands nested too deeply to judge",
                       rule="xargs")
    # the command alone first (empty input: GNU xargs runs it once): its own reason (rm is
    # on ALWAYS_ASK) is the one to show
    alone = judge_argv(ctx, list(inner), cwd, " ".join(inner), (), depth + 1)
    if alone.decision is not ALLOW:
        return alone
    try:
        found = names(ctx, getattr(ctx, "pipe_feeders", None), cwd, null)
    except Refused as exc:
        return ctx.ask(PHASE, CODE, f"xargs gives {inner[0]} more arguments from its input, "
                       f"and they are not known: {exc}", rule="xargs")
    ctx.step(PHASE, "info", "", f"xargs runs {inner[0]!r} with {len(found)} name(s) from "
             "its input: judging that command line")
    verdicts = [alone]
    if found:
        verdicts.append(judge_argv(ctx, list(inner) + found, cwd, " ".join(inner), (),
                                   depth + 1))
        if verdicts[-1].decision is not ALLOW:
            return verdicts[-1]
    # plan mode (gateway.validator.modes): the words xargs adds to this line are operands,
    # none an option, as the validator judged them
    ctx.readonly_facts.add(("xargs", cwd, tuple(inner)))
    shown = ", ".join(found[:3]) + (" ..." if len(found) > 3 else "")
    return ctx.allow("7D", verdicts[-1].code, f"xargs runs {inner[0]!r} with the {len(found)} "
                     f"name(s) its input gives ({shown or 'none'}), which is allowed: "
                     f"{verdicts[-1].message}", rule=verdicts[-1].rule or "xargs")
