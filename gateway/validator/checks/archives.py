"""Archives: tar, zip and unzip. Listing an archive prints names; creating one reads the
files it is given (whole trees: walked like `cp -r`) and writes the archive; extracting
writes every member, which is an edit (acceptEdits), judged member by member: each lands
inside the project, on no protected path and through no link out (the members are read
from the archive with Python's tarfile and zipfile, bounded). Printing members (tar -O,
unzip -p/-c) reads them: a secret among them asks.

Each check returns (verdict or None, path candidates, written candidates); the trees a
create reads are handed to phase 5's walk as `ctx.pending_walk` (phase5_recursive.Walk).
"""

import os
import posixpath

from gateway.paths import resolve
from gateway.shell import argv as argvmod
from gateway.validator.checks._common import PHASE, _unsafe

#: Archives larger than this are not opened to list their members (extraction asks).
MAX_ARCHIVE_BYTES = 64 << 20
#: More members than this: extraction asks.
MAX_MEMBERS = 20000

_ARCHIVE_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz", ".tbz2", ".tar.xz",
                     ".txz", ".tar.zst", ".tzst", ".tar.lz", ".tar.lzma", ".zip", ".jar",
                     ".war", ".whl")


def _edit_refused(ctx, what):
    from gateway.validator import modes

    if ctx.exposure or modes.accepts_edits(ctx.mode):
        return None
    return ctx.ask(PHASE, "GW721", f"{what} writes the files of an archive into the "
                   f"project; in {modes.normalize(ctx.mode)} mode edits are the human's "
                   "(acceptEdits allows them inside the project)", rule="catalogue:edit")


# --- tar ---------------------------------------------------------------------------------

_TAR_MODES = {"-c": "create", "--create": "create", "-t": "list", "--list": "list",
              "-x": "extract", "--extract": "extract", "--get": "extract", "-r": "append",
              "--append": "append", "-u": "append", "--update": "append", "-A": "append",
              "--catenate": "append", "--concatenate": "append", "-d": "diff",
              "--diff": "diff", "--compare": "diff", "--delete": "append",
              "--test-label": "list", "--show-defaults": "info"}
#: old-style letters that take the next word
_TAR_OLD_VALUE = frozenset("fCTXgbHKLNVIF")


def _tar_words(words):
    """tar's traditional form (`tar czf out.tgz src`: the first word's letters are options,
    those taking a value take the next words in order) as ordinary options."""
    if not words or words[0].startswith("-") or not words[0].isalpha():
        return list(words)
    out = []
    rest = list(words[1:])
    for ch in words[0]:
        out.append("-" + ch)
        if ch in _TAR_OLD_VALUE:
            if not rest:
                return None
            out.append(rest.pop(0))
    return out + rest


def tar(ctx, spec, words, cwd):
    words = _tar_words(words)
    if words is None:
        return _unsafe(ctx, "tar", "an option without its value"), [], []
    args = argvmod.parse(words, spec.value_flags, spec.long_options, spec.optional_flags)
    bad = argvmod.first_unsafe(args, spec.unsafe_flags, words)
    if bad:
        return ctx.ask(PHASE, "GW704", f"tar {bad} is not a safe use of tar (it runs a "
                       "program, reads names from a file or writes outside the archive)",
                       rule=f"catalogue:tar:{bad}"), [], []
    for opt in args.options:
        if opt.name not in spec.safe_flags:
            return ctx.ask(PHASE, "GW704", f"tar {opt.name} is not among its safe options",
                           rule="catalogue:tar"), [], []
    modes = {_TAR_MODES[o.name] for o in args.options if o.name in _TAR_MODES}
    if len(modes) != 1:
        return ctx.ask(PHASE, "GW712", "tar needs exactly one of -c, -t, -x (or -r, -u, -d) "
                       "to be judged", rule="catalogue:tar"), [], []
    mode = modes.pop()
    archive = None
    for opt in args.options:
        if opt.name in ("-f", "--file"):
            archive = opt.value
    force_local = args.has("--force-local")
    if archive and ":" in archive and not force_local and not archive.startswith(("/", ".")):
        return ctx.ask(PHASE, "GW505", f"tar -f {archive!r}: a name with a colon is an "
                       "archive on another host (rsh)", rule="catalogue:tar"), [], []
    stdio = archive in (None, "-")
    # -C DIR: the names after it are relative to DIR (several -C chain)
    cands = [o.value for o in args.options
             if o.value is not None and o.name not in spec.text_flags
             and o.name not in ("-f", "--file", "-C", "--directory")]
    where = ""
    located = []
    for kind, value in _tar_positions(words, args, spec):
        if kind == "dir":
            where = posixpath.join(where, value) if where else value
            cands.append(where)
        else:
            located.append(posixpath.join(where, value) if where else value)
    if mode == "info":
        return None, [], []
    if mode == "list":
        if not stdio:  # names are printed, not the archive's bytes (gateway.secrets.content)
            ctx.__dict__.setdefault("containers_judged", set()).add(archive)
        return None, cands + ([archive] if not stdio else []), []
    if mode == "diff":
        return ctx.ask(PHASE, "GW712", "tar -d compares an archive with the files",
                       rule="catalogue:tar"), [], []
    if mode in ("create", "append"):
        if not located:
            return ctx.ask(PHASE, "GW712", "tar without names to archive", rule="catalogue:tar"), [], []
        written = []
        if not stdio:
            written.append(archive)
            refused = None
            if mode == "append" or (not archive.endswith(_ARCHIVE_SUFFIXES)
                                    and os.path.lexists(os.path.join(cwd, archive))):
                refused = _edit_refused(ctx, f"tar replaces or changes {archive!r}")
            if refused is not None:
                return refused, [], []
        from gateway.validator import phase5_recursive

        follow = args.has("-h", "--dereference")
        ctx.pending_walk = phase5_recursive.Walk(located, follow=follow)
        return None, cands + located + written, written
    # extract: where it writes and what it reads are judged before anything else
    from gateway.validator import phase5_paths

    to_stdout = args.has("-O", "--to-stdout")
    # the directory it extracts into is written (a protected path below it is held: GW504,
    # `tar -C ~ -xf x.tar` writes ~/.claude/settings.json)
    # the archive's own bytes are judged with its members (phase 5 again, below): here only
    # where it lies and where it writes
    verdict = phase5_paths.run(ctx, cands + ([] if stdio else [archive]), cwd,
                               writes=[where] if where and not to_stdout else (),
                               names=frozenset(() if stdio else (archive,)))
    if verdict is not None:
        return verdict, [], []
    if stdio:
        return ctx.ask(PHASE, "GW712", "tar extracts an archive from standard input: its "
                       "members cannot be listed", rule="catalogue:tar"), [], []
    if not to_stdout:
        refused = _edit_refused(ctx, "tar -x")
        if refused is not None:
            return refused, [], []
    members, why = _tar_members(resolve(archive, cwd, ctx.roots).real)
    if why:
        return ctx.ask(PHASE, "GW712", f"tar -x: the members of {archive!r} cannot be "
                       f"listed ({why})", rule="catalogue:tar"), [], []
    renamed = [o.name for o in args.options if o.name in _TAR_RENAMES]
    if renamed and not to_stdout:
        # a sed expression rewrites every member's name: where each lands is not modelled
        return ctx.ask(PHASE, "GW712", f"tar -x {renamed[0]}: the members' names are "
                       "rewritten by a sed expression, so where they land cannot be judged",
                       rule="catalogue:tar"), [], []
    strip = 0
    for opt in args.options:
        if opt.name == "--strip-components":
            try:
                strip = int(opt.value or "0")
            except ValueError:
                return _unsafe(ctx, "tar --strip-components", "not a number"), [], []
    bases = [where]
    for opt in args.options:
        if opt.name == "--one-top-level":
            # every member below DIR (default: the archive's name without its suffixes);
            # a member already named DIR/... is not nested again: both places count
            top = opt.value if opt.value else _archive_stem(archive)
            bases.append(posixpath.join(where, top) if where else top)
    out = []
    for name, link in members:
        parts = [p for p in name.lstrip("/").split("/") if p not in ("", ".")]
        parts = parts[strip:]
        if not parts:
            continue
        rel = "/".join(parts)
        for base in bases:
            out.append(posixpath.join(base, rel) if base else rel)
        if link is not None:
            if to_stdout:
                continue
            target = link if link.startswith("/") else posixpath.join(
                posixpath.dirname(out[-1]), link)
            out.append(target)
    if to_stdout:
        return None, cands + [archive] + out, []  # the members are printed: read
    # --backup / --suffix: a member that replaces a file moves the old one to a name they
    # derive (gateway.derived): written too
    from gateway.derived import backup_suffixes

    suffixes = backup_suffixes(args.has("--backup"),
                               [o.value for o in args.options
                                if o.name == "--backup" and o.value is not None],
                               [o.value for o in args.options
                                if o.name == "--suffix" and o.value is not None], ctx.env)
    out += [m + suf for m in out for suf in suffixes]
    return None, cands + [archive] + out, out


#: Options that rewrite the names of the members extracted (sed expressions).
_TAR_RENAMES = frozenset(("--transform", "--xform"))


def _archive_stem(archive):
    """tar --one-top-level's default directory: the archive's base name without the
    compression suffixes tar recognises."""
    base = posixpath.basename(archive)
    for suffix in sorted(_ARCHIVE_SUFFIXES, key=len, reverse=True):
        if base.endswith(suffix) and len(base) > len(suffix):
            return base[:-len(suffix)]
    return base.rsplit(".", 1)[0] if "." in base[1:] else base


def _tar_positions(words, args, spec):
    """The positionals (names) and -C directories in the order given."""
    seq = []
    i = 0
    n = len(words)
    pos_left = list(args.positionals)
    while i < n:
        w = words[i]
        if w == "--":
            seq.extend(("name", p) for p in words[i + 1:])
            break
        long_name = argvmod.resolve_long(w.split("=", 1)[0], spec.long_options or ()) \
            if w.startswith("--") else ""
        if (w == "-C" or (long_name == "--directory" and "=" not in w)) and i + 1 < n:
            seq.append(("dir", words[i + 1]))  # --dir DIR abbreviates --directory DIR
            i += 2
            continue
        if long_name == "--directory" and "=" in w:
            seq.append(("dir", w.split("=", 1)[1]))
        elif w.startswith("-C") and len(w) > 2:
            seq.append(("dir", w[2:]))
        elif w.startswith("-") and len(w) > 1:
            name = argvmod.resolve_long(w.split("=", 1)[0], spec.long_options or ()) \
                if w.startswith("--") else w
            takes = (name in spec.value_flags and "=" not in w) if name.startswith("--") \
                else (w[-1:] and "-" + w[-1] in spec.value_flags and not any(
                    "-" + c in spec.value_flags for c in w[1:-1]))
            if takes:
                i += 1
        elif pos_left and w == pos_left[0]:
            seq.append(("name", w))
            pos_left.pop(0)
        i += 1
    return seq


def _tar_members(path):
    """[(name, link target or None)] of a tar archive, or ([], why)."""
    import tarfile

    try:
        if os.path.getsize(path) > MAX_ARCHIVE_BYTES:
            return [], f"larger than {MAX_ARCHIVE_BYTES >> 20} MB"
        out = []
        with tarfile.open(path, "r:*") as t:
            for m in t:
                out.append((m.name, m.linkname if (m.issym() or m.islnk()) else None))
                if len(out) > MAX_MEMBERS:
                    return [], f"more than {MAX_MEMBERS} members"
        return out, ""
    except (OSError, tarfile.TarError, EOFError, ValueError) as exc:
        return [], f"{type(exc).__name__}: {exc}"


# --- zip and unzip -----------------------------------------------------------------------

_ZIP_FLAGS = frozenset("rqvjyDXlo0123456789TuFfmdAJ")
_ZIP_VALUE = frozenset(("-b", "-n", "-t", "-tt", "-O", "-P", "-i", "-x", "-s"))


def zip(ctx, spec, words, cwd):  # noqa: A001 (the command's name)
    """zip ARCHIVE [NAMES...]: reads the names (whole trees with -r, following links unless
    -y) and writes ARCHIVE; -i/-x take patterns up to the next option."""
    pos = []
    follow = True
    recursive = False
    changes = False
    i = 0
    n = len(words)
    while i < n:
        w = words[i]
        i += 1
        if w == "--":
            pos.extend(words[i:])
            break
        if w in ("-x", "-i"):
            while i < n and not words[i].startswith("-"):
                i += 1
            continue
        if w in ("-b", "-n", "-t", "-tt", "-O", "-P", "-s"):
            if w == "-O" and i < n:
                pos.append(words[i])  # the output archive: written (judged as a name)
            i += 1
            continue
        if w in ("-ll", "-h2"):
            continue
        if w.startswith("-") and len(w) > 1:
            letters = w[1:]
            if any(c not in _ZIP_FLAGS for c in letters) or w in ("-TT",):
                return ctx.ask(PHASE, "GW704", f"zip {w} is not among its safe options "
                               "(-TT runs a command, -@ and -z read standard input)",
                               rule="catalogue:zip"), [], []
            follow = follow and "y" not in letters
            recursive = recursive or "r" in letters
            changes = changes or any(c in letters for c in "mdFAJ")
            continue
        pos.append(w)
    if not pos:
        return ctx.ask(PHASE, "GW712", "zip without an archive", rule="catalogue:zip"), [], []
    archive, names = pos[0], pos[1:]
    if changes:
        refused = _edit_refused(ctx, "zip -m/-d/-F/-A/-J (moves, deletes or rewrites)")
        if refused is not None:
            return refused, [], []
    if not names:
        names = []
    if recursive and names:
        from gateway.validator import phase5_recursive

        ctx.pending_walk = phase5_recursive.Walk(names, follow=follow)
    if archive == "-":
        return None, names, []
    if not archive.endswith(_ARCHIVE_SUFFIXES) and os.path.lexists(os.path.join(cwd,
                                                                                archive)):
        refused = _edit_refused(ctx, f"zip changes {archive!r}")
        if refused is not None:
            return refused, [], []
    return None, names + [archive], [archive]


_UNZIP_LIST = frozenset("lvtZz")
_UNZIP_FLAGS = frozenset("lvtZzpcfuonjqaCLXKMbVWsU")


def unzip(ctx, spec, words, cwd):
    """unzip -l/-v/-t/-Z lists; -p/-c print members (read); otherwise members are written
    into the -d directory (or here): an edit, member by member."""
    pos = []
    letters = set()
    exdir = ""
    i = 0
    n = len(words)
    while i < n:
        w = words[i]
        i += 1
        if w == "-x":
            while i < n and not words[i].startswith("-"):
                i += 1
            continue
        if w in ("-d", "-P"):
            if i >= n:
                return _unsafe(ctx, f"unzip {w}", "without its value"), [], []
            if w == "-d":
                exdir = words[i]
            i += 1
            continue
        if w.startswith("-d") and len(w) > 2:
            exdir = w[2:]
            continue
        if w.startswith("-") and len(w) > 1:
            if any(c not in _UNZIP_FLAGS for c in w[1:]):
                return ctx.ask(PHASE, "GW704", f"unzip {w} is not among its safe options "
                               "(-: writes outside the directory, -^ control characters)",
                               rule="catalogue:unzip"), [], []
            letters.update(w[1:])
            continue
        pos.append(w)
    if not pos:
        return ctx.ask(PHASE, "GW712", "unzip without an archive", rule="catalogue:unzip"), [], []
    archive = pos[0]
    if archive.startswith("-") or archive == "-":
        return ctx.ask(PHASE, "GW712", "unzip from standard input", rule="catalogue:unzip"), [], []
    lists = bool(letters & _UNZIP_LIST) and not letters & set("pc")
    if lists:
        # names are printed, not the archive's bytes (gateway.secrets.content)
        ctx.__dict__.setdefault("containers_judged", set()).add(archive)
        ctx.note_readonly()
        return None, [archive] + ([exdir] if exdir else []), []
    prints = bool(letters & set("pc"))
    if not prints:
        refused = _edit_refused(ctx, "unzip")
        if refused is not None:
            return refused, [], []
    members, why = _zip_members(resolve(archive, cwd, ctx.roots).real)
    if why:
        return ctx.ask(PHASE, "GW712", f"unzip: the members of {archive!r} cannot be "
                       f"listed ({why})", rule="catalogue:unzip"), [], []
    out = []
    for name, is_link in members:
        if is_link and not prints:
            return ctx.ask(PHASE, "GW712", f"unzip: {archive!r} holds a symbolic link "
                           f"({name!r}): where it points is written through",
                           rule="catalogue:unzip"), [], []
        parts = [p for p in name.replace("\\", "/").lstrip("/").split("/")
                 if p not in ("", ".")]
        if "j" in letters:
            parts = parts[-1:]
        if not parts:
            continue
        rel = "/".join(parts)
        out.append(posixpath.join(exdir, rel) if exdir else rel)
    if prints:
        return None, [archive] + out, []
    return None, [archive] + out + ([exdir] if exdir else []), out


def _zip_members(path):
    import stat
    import zipfile

    try:
        if os.path.getsize(path) > MAX_ARCHIVE_BYTES:
            return [], f"larger than {MAX_ARCHIVE_BYTES >> 20} MB"
        with zipfile.ZipFile(path) as z:
            infos = z.infolist()
            if len(infos) > MAX_MEMBERS:
                return [], f"more than {MAX_MEMBERS} members"
            return [(i.filename, stat.S_ISLNK(i.external_attr >> 16)) for i in infos], ""
    except (OSError, zipfile.BadZipFile, ValueError, EOFError) as exc:
        return [], f"{type(exc).__name__}: {exc}"
