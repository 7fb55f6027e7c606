"""find's expression, make, xxd and date: the forms that only read (or write where the
arguments say). The build, test and package tools are in build.py."""

import os

from gateway.validator import argv as argvmod
from gateway.validator.checks._common import PHASE, _program, _unsafe

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
            if w in ("-L", "-follow"):
                # symbolic links are followed: a link out of the project lists what is there
                return _unsafe(ctx, f"find {w}", "follows symbolic links out of the "
                               "places it was given"), [], []
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
    args = argvmod.parse(words, spec.value_flags)
    bad = argvmod.first_unsafe(args, spec.unsafe_flags, words)
    if bad:
        return ctx.ask(PHASE, "GW704", f"date {bad} is not a safe use of date",
                       rule=f"catalogue:date:{bad}"), [], []
    for p in args.positionals:
        if not p.startswith("+"):
            return ctx.ask(PHASE, "GW712", f"date {p!r}: a date argument sets the clock",
                           rule="catalogue:date"), [], []
    # -r FILE reads a file's time, -f FILE reads dates from a file (a bad line is echoed)
    return None, args.values("-r", "--reference", "-f", "--file"), []
