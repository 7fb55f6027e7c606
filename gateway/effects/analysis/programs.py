"""The effects handlers: parsing that cannot be data, named by the `effects` field of a
catalogue entry (or of an entry in rules/effects.yaml): cp/mv/ln/install's destinations and
the links they make (`copy`, `move`, `link`, `install`), `dd` (of=), `sed` (-i), `awk`
(-i inplace), `find` (-delete, -fprint, -exec), `xxd` and `uniq` (an output operand), and
`gateway` itself (its own state changes and settings rewrites). `HANDLERS` maps the names to
the functions; every name is one of gateway.policy.models.EFFECTS and used by the rules
(tests/agreement/test_drift.py). Entries whose effects follow from their option lists
(`flags`: rm, mkdir, touch, chmod, tee, sort -o, tree -o, date -s...) need no handler
(_core._flags)."""

import os
import posixpath

from gateway.effects.analysis._base import (
    _W,
    DISPATCH,
    Effects,
    _has,
    _literal,
    _long,
    _split,
    _values,
    _write,
    options_known,
    parse_options,
)
from gateway.paths import lexical, real

# --- the gateway itself -----------------------------------------------------------------------

def _gateway(eff, words, env, trusted=True, spec=None):
    """The gateway's own command, as its catalogue entry (rules/workflow.yaml) describes each
    subcommand: a view reads, `state_op` changes the workflow state (only the Lead: GW807),
    `surface_op` rewrites the settings; a subcommand or option the entry does not list is
    unknown. A registration (`registers`) is the role guard's (gateway.guards.role)."""
    if not _literal(eff, words[1:], "gateway"):
        eff.gateway_ops.append("(computed arguments)")
        return
    argv = [w.value for w in words[1:]]
    before = (len(eff.gateway_ops), len(eff.surface_ops), len(eff.unknown))
    _gateway_verb(eff, argv, spec)
    if not trusted and (len(eff.gateway_ops), len(eff.surface_ops), len(eff.unknown)) == before:
        eff.unknown.append(f"{words[0].value!r} is not the installed gateway")


def _gateway_verb(eff, argv, spec):
    from gateway.effects.workflowcmd import resolve

    if spec is None:
        eff.unknown.append("gateway: the rules do not describe it")
        return
    if not argv or (len(argv) == 1 and argv[0] in spec.info_flags):
        return
    got = resolve(spec, argv)
    if got is None:
        eff.unknown.append(f"gateway {argv[0]} is not known to be read-only")
        return
    if got.help:
        return
    if not options_known(eff, got.spec, parse_options(got.spec, got.rest), got.rest):
        return
    if got.spec.surface_op:
        eff.surface_ops.append(got.spec.surface_op)
        return
    op = got.state_op
    if op:
        eff.gateway_ops.append(op)


# --- commands whose effect depends on their arguments -----------------------------------------

def _copylike(eff, argv, env, spec):
    """cp, mv, ln, install: the destination (a directory gets each source's base name), the
    sources mv removes, and the links made (_aliases)."""
    name = argv[0].lower()
    kind = spec.effects
    options_known(eff, spec, parse_options(spec, argv[1:]), argv[1:])
    opts, pos = _split(argv[1:], spec.value_flags)
    target_dirs = _values(opts, "-t", "--target-directory")
    recursive = kind == "move" or _has(opts, *spec.tree_flags)
    if kind == "install" and _has(opts, "-d", "--directory"):
        for p in pos:
            _write(eff, p, "install -d", env)
        return
    # cp --parents names each file below the directory by its whole source path
    parents = kind == "copy" and _has(opts, "--parents")
    # the backups a destination's old file is moved to (gateway.derived)
    suffixes = _backup_suffixes(opts)
    if target_dirs:
        dest, sources = target_dirs[-1], pos
        into = _into(sources, parents)
        _write(eff, dest.rstrip("/") + "/", name, env, tree=recursive, into=into,
               sources=_copied(kind, sources))
        for suf in suffixes:
            _write(eff, dest.rstrip("/") + "/", f"{name} --backup", env,
                   into=tuple(b + suf for b in into))
    elif len(pos) >= 2 or (kind == "link" and pos):
        if kind == "link" and len(pos) == 1:
            dest, sources = ".", pos
        else:
            dest, sources = pos[-1], pos[:-1]
        into = _into(sources, parents)
        if _has(opts, "-T", "--no-target-directory"):
            _write(eff, dest, name, env, tree=recursive, sources=_copied(kind, sources))
            for suf in suffixes:
                _write(eff, dest + suf, f"{name} --backup", env)
        else:
            _write(eff, dest, name, env, tree=recursive, into=into,
                   sources=_copied(kind, sources))
            for suf in suffixes:
                # dest may be a file (its backup) or a directory (each file's backup in it)
                _write(eff, dest.rstrip("/") + suf, f"{name} --backup", env)
                _write(eff, dest.rstrip("/") + "/", f"{name} --backup", env,
                       into=tuple(b + suf for b in into))
    else:
        eff.unknown.append(f"{name} without a destination")
        sources = []
    if kind == "move":
        for s in sources:
            _write(eff, s, f"{name} (source)", env, tree=True)
    if sources:
        _aliases(eff, kind, name, opts, sources,
                 dest if not target_dirs else dest.rstrip("/") + "/", env,
                 tuple(getattr(spec, "tree_flags", None) or ()))


def _into(sources, parents):
    """The names `sources` get inside a destination directory: their base names, or with
    cp --parents their whole paths (a leading / dropped)."""
    if parents:
        return tuple(s.lstrip("/") or s for s in sources)
    return tuple(posixpath.basename(s.rstrip("/")) or s for s in sources)


def _backup_suffixes(opts):
    """The suffixes of the backups cp/mv/ln/install make (gateway.derived)."""
    from gateway.derived import backup_suffixes

    return backup_suffixes(_has(opts, "-b", "--backup"), _values(opts, "--backup"),
                           _values(opts, "-S", "--suffix"), os.environ)


def _copied(kind, sources):
    """The sources whose members a copy or move puts in its destination, or None (a link
    makes no members; a source that is not a plain word cannot be walked)."""
    if kind not in ("copy", "move") or not sources:
        return None
    return tuple(sources)


def _aliases(eff, kind, name, opts, sources, dest, env, tree_flags=()):
    """A link made here is another name for what it points to: writing through it later
    (`ln -s ../../README.md src/auth/r && cp x src/auth/r`, even in the same command) writes
    that file, so the file linked to counts as written. ln and cp -s/-l make links; cp -P,
    -d, -a and -R copy a symbolic link as a link to where it points."""
    symbolic = _has(opts, "-s", "--symbolic", "--symbolic-link")
    hard = kind == "link" and not symbolic or _has(opts, "-l", "--link")
    copies_links = kind == "copy" and _has(opts, "-P", "-d", "-a", "--no-dereference",
                                           "--archive", "-R", "-r", "--recursive") \
        and not _has(opts, "-L", "--dereference")
    if not (symbolic or hard or copies_links):
        return
    dirs = env.cwds or ()
    relative = _has(opts, "-r", "--relative") and kind == "link"
    for src in sources:
        if symbolic:
            # a relative symbolic link is resolved from the directory the link is in (with
            # ln -r the source is named from here and ln writes the relative text); what is
            # reachable through it is the whole tree below its target
            is_dir = dest.endswith("/") or any(os.path.isdir(lexical(dest, d)) for d in dirs)
            link_dir = dest if is_dir else posixpath.dirname(dest)
            target = src if src.startswith("/") or relative \
                else posixpath.join(link_dir or ".", src)
            _write(eff, target, f"{name} -s (what the link points to)", env, tree=True)
        elif hard:
            # cp -rl / -al links every file below a directory: each one is written through
            # its new name as surely as through the old (`cp -al .claude x && echo > x/
            # settings.json` rewrites .claude/settings.json)
            tree = bool(tree_flags) and _has(opts, *tree_flags)
            _write(eff, src, f"{name} (the file the hard link shares)", env, tree=tree)
        else:
            for d in dirs:
                if os.path.islink(lexical(src, d)):
                    _write(eff, real(lexical(src, d)), "cp (where the copied link points)",
                           env)


def _dd(eff, argv, env, spec):
    for a in argv[1:]:
        if a.startswith("of="):
            _write(eff, a[3:], "dd of=", env)


def _sed(eff, argv, env, spec):
    from gateway.tools.sed import sed_program_problem

    opts, pos = _split(argv[1:], {"-e", "--expression", "-f", "--file", "-l",
                                  "--line-length"})
    safe = {"-n", "--quiet", "--silent", "-E", "-r", "--regexp-extended", "-s", "--separate",
            "-z", "--null-data", "-u", "--unbuffered", "--posix", "--debug", "--sandbox",
            "-l", "--line-length", "-e", "--expression", "-b", "--binary",
            "--follow-symlinks"}
    inplace = False
    programs = _values(opts, "-e", "--expression")
    for o, _v in opts:
        if o in ("-i", "-I") or _long(o, "--in-place"):
            inplace = True
        elif o in ("-f", "--file"):
            eff.unknown.append("sed -f runs a program from a file that is not visible")
        elif o not in safe and not (len(o) == 2 and o[1] in ".~_"):
            # -i.bak is split into -i -. -b -a -k by the option parser
            if not inplace:
                eff.unknown.append(f"sed {o}: option not understood")
    files = list(pos)
    if not programs and files:
        programs = [files.pop(0)]
    for prog in programs:
        why = sed_program_problem(prog)
        if why:
            eff.unknown.append(f"sed program {prog!r}: {why}")
    if inplace:
        from gateway.derived import sed_backup

        suffix = _sed_suffix(argv[1:])
        for f in files:
            _write(eff, f, "sed -i", env)
            backup = sed_backup(f, suffix)
            if backup is not None:
                _write(eff, backup, f"sed -i{suffix} (the backup)", env)
        if not files:
            eff.unknown.append("sed -i without files")
            eff.unresolved.append("sed -i without files (they come from elsewhere)")


def _sed_suffix(words):
    """The backup suffix of sed's -i[SUFFIX] / --in-place[=SUFFIX] ("" for none): the rest of
    the word after `i` in a cluster (`-ni.bak`), getopt's optional argument."""
    suffix = ""
    k = 0
    while k < len(words):
        w = words[k]
        k += 1
        if w == "--":
            break
        if w.startswith("--"):
            name, eq, value = w.partition("=")
            if _long(name, "--in-place") and len(name) >= 3:
                suffix = value if eq else ""
            continue
        if not w.startswith("-") or w == "-":
            continue
        for j, c in enumerate(w[1:], 1):
            if c in "efl":
                if j == len(w) - 1:
                    k += 1  # the value is the next word
                break
            if c == "i":
                suffix = w[j + 1:]
                break
    return suffix


def _awk(eff, argv, env, spec):
    from gateway.tools.awk import awk_program_problem

    opts, pos = _split(argv[1:], {"-F", "--field-separator", "-v", "--assign", "-f", "--file",
                                  "-i", "--include", "-l", "--load", "-E", "--exec"})
    inplace = False
    for o, v in opts:
        if o in ("-F", "--field-separator", "-v", "--assign"):
            continue
        if o in ("-i", "--include") and v in ("inplace", "inplace.awk"):
            inplace = True
            continue
        eff.unknown.append(f"awk {o}: loads or runs a program that is not visible")
        return
    if not pos:
        eff.unknown.append("awk without a program")
        return
    why = awk_program_problem(pos[0])
    if why:
        eff.unknown.append(f"awk program {pos[0]!r}: {why}")
    if inplace:
        files = [p for p in pos[1:] if "=" not in p]
        for f in files:
            _write(eff, f, "awk -i inplace", env)
        if not files:
            eff.unresolved.append("awk -i inplace without files (they come from elsewhere)")


def _find(eff, argv, env, spec):
    words = argv[1:]
    starts = []
    i = 0
    while i < len(words) and not words[i].startswith(("-", "(", "!")):
        starts.append(words[i])
        i += 1
    starts = starts or ["."]
    expr = words[i:]
    k = 0
    while k < len(expr):
        w = expr[k]
        if w in ("-delete",):
            listed = _find_listed(argv, env)
            if listed is not None:
                # what the tests select, listed: each entry is removed, nothing else below
                # the starting points, where it works
                for shown in listed:
                    _write(eff, shown, "find -delete", env)
                for s in starts:
                    _write(eff, s, "find -delete", env, tree=True, listed=True)
            else:
                for s in starts:
                    _write(eff, s, "find -delete", env, tree=True)
        elif w in ("-fprint", "-fprint0", "-fprintf", "-fls"):
            if k + 1 < len(expr):
                _write(eff, expr[k + 1], f"find {w}", env)
            k += 1
        elif w in ("-exec", "-execdir", "-ok", "-okdir"):
            j = k + 1
            inner = []
            while j < len(expr) and expr[j] not in (";", "+"):
                inner.append(expr[j])
                j += 1
            if not inner:
                eff.unknown.append(f"find {w} without a command")
            else:
                sub = Effects()
                DISPATCH.argv(sub, [_W(a) for a in inner], env.derive(extra=True))
                if not sub.readonly:
                    eff.unknown.append(f"find {w} {inner[0]} runs a command that may write")
                    if sub.writes:
                        for s in starts:
                            _write(eff, s, f"find {w} {inner[0]}", env, tree=True)
                    sub.writes = [x for x in sub.writes if x.target != "{}"]
                    eff.merge(sub)
            k = j
        k += 1


def _find_listed(argv, env):
    """The entries `find ... -delete` removes, listed exactly where the command runs
    (gateway.tools.find: a conjunction of -name, -iname, -type, -maxdepth), or None
    when they are not (an unknown directory, a filter not reproduced exactly): then the
    whole tree counts, and a protected path in it asks (GW837) rather than denies."""
    if not env.cwds or len(env.cwds) != 1:
        return None
    from gateway.paths import Roots
    from gateway.tools import find as findlist

    cwd = env.cwds[0]
    try:
        found, _zero = findlist.listing(Roots(cwd), argv, cwd,
                                        ("-print", "-print0", "-delete"), exact_only=True)
    except findlist.Unlisted:
        return None
    return [shown for shown, _path, _kind in found]


def _uniq(eff, argv, env, spec):
    """uniq [INPUT [OUTPUT]]: the second operand is written."""
    args = parse_options(spec, argv[1:])
    options_known(eff, spec, args, argv[1:])
    pos = args.positionals
    if len(pos) >= 2 and pos[1] != "-":
        _write(eff, pos[1], spec.name, env)
    if len(pos) > 2:
        eff.unknown.append(f"{spec.name} with more than two operands")


def _xxd(eff, argv, env, spec):
    # xxd's options are words before the first file (-ps is one option); the second file
    # is written (`xxd in -x` writes a file named -x)
    from gateway.shell.argv import xxd_parse

    _names, pos, bad = xxd_parse(argv[1:])
    if not bad and len(pos) >= 2 and pos[1] != "-":
        _write(eff, pos[1], "xxd", env)


def _formatter(eff, argv, env, spec):
    """A formatter or checker: with `fix_flags` it rewrites its targets only with one of
    them (prettier --write, gofmt -w), else it rewrites them unless one of its `dry_run`
    options only reports (black --check, isort --diff); what it rewrites are the files of
    its types below each target (default: the working directory), a tree. Options it does
    not list are unknown."""
    words = argv[1:]
    if len(words) == 1 and words[0] in spec.info_flags:
        return
    args = parse_options(spec, words)
    if not options_known(eff, spec, args, words):
        return
    given = {o.name for o in args.options}
    if spec.dry_run_after_dashes and args.rest:
        given |= {w for w in args.rest if w in spec.dry_run}
    writes = bool(given & spec.fix_flags) if spec.fix_flags else not (given & spec.dry_run)
    if writes:
        # only the files of its types (the validator's formatter check walks them for the
        # permission surface): not read-only, but no write of the whole tree either
        targets = ", ".join(repr(t) for t in (args.positionals or ["."])[:3])
        eff.unknown.append(f"{spec.name} rewrites the files of its types below {targets}")


#: The handlers by the name an entry's `effects` field gives (gateway.policy.models.EFFECTS,
#: but `flags` and `read`, which _core handles).
def _curl(eff, argv, env, spec):
    """curl (gateway.tools.curl, the model the validator's check reads too): a request to
    the loopback with GET or HEAD and no data reads; a method or data may change the dev
    server's state (not read-only); -o/-D FILE writes FILE; a form the model does not
    judge (another host, an option it does not know) is unknown."""
    from gateway.tools import curl as model

    req = model.parse(argv[1:])
    if req.refusal is not None:
        eff.unknown.append(req.refusal[1])
        return
    for target in req.writes:
        _write(eff, target, "curl", env)
    if req.changes:
        eff.unknown.append(req.changes)


HANDLERS = {
    "curl": _curl,
    "copy": _copylike,
    "move": _copylike,
    "link": _copylike,
    "install": _copylike,
    "dd": _dd,
    "sed": _sed,
    "awk": _awk,
    "find": _find,
    "xxd": _xxd,
    "uniq": _uniq,
    "formatter": _formatter,
}
