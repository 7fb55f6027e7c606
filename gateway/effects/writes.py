"""What a Bash write of the permission surface really is, before the guards deny it.

The effects analysis (gateway.effects.analysis) names each write with its target and what
makes it; the surface check (gateway.effects.files.Surface) says what the target is. Three
writes it names are not what a tree-wide answer says:

* a copy or move into a directory (`cp -r stage .claude`) writes the **source's members**
  there, not everything the directory may hold: the members are looked at (landing);
* a **plain value** in git's configuration (`git config user.name bob`: the rules'
  `plain_keys`) runs nothing: a human may approve it (GW839);
* a **symbolic link** to a tree that holds protected paths (`ln -s ~ homelink`) writes
  nothing there by itself; every later write through it is resolved to its real target by
  the guards. When the command makes links and nothing else, a human may approve it (GW843).

Everything else keeps the surface check's answer.
"""

import os
import posixpath

from gateway import paths
from gateway.effects import files

#: The via of the write the effects analysis records for a symbolic link's target.
_LINK_TARGET = "(what the link points to)"
#: What the effects analysis says of an ln argument `~` or `~/...` (placed in the home).
_LN_TILDE = "ln has a computed argument '~"


def only_symlinks(effects) -> bool:
    """The command makes symbolic links (ln -s) and changes nothing else that is known (a
    `~` argument of ln is the home directory the analysis placed it in)."""
    if not effects.writes or effects.git or effects.surface_ops or effects.gateway_ops:
        return False
    if not all(m.startswith(_LN_TILDE) for m in effects.unknown):
        return False
    return any(w.via.endswith(_LINK_TARGET) for w in effects.writes) and all(
        w.via == "ln" or (w.via.startswith("ln ") and w.via.endswith(_LINK_TARGET))
        for w in effects.writes)


def approvable(hit, write, only_links):
    """The surface hit `hit` of `write`, or the ask it is instead (GW839, GW843)."""
    code, rule, what = hit
    if write.plain and code == "GW832":
        return ("GW839", rule, "a plain value in git's configuration (git runs nothing from "
                "it, it names no program or file)")
    if only_links and write.via.endswith(_LINK_TARGET) and code in ("GW832", "GW834"):
        return ("GW843", rule, "a symbolic link to what is or holds a protected path; "
                "nothing is written through it in this command, and every later write "
                "through it is judged at its real target")
    return hit


def landing(surface, write, dest, hit, effects=None):
    """The surface hit of what a copy or move really puts below `dest` (one of the write's
    candidate paths): the members of its sources, each at `dest/<member>`; None when no
    member lands on the surface. The tree-wide `hit` stands when the sources cannot be
    looked at (unknown, missing, too big, changed by the same command)."""
    sources = write.sources
    if not sources:
        return hit
    if effects is not None and _sources_written(effects, write, sources):
        return hit
    asked = None
    for src in sources:
        if os.path.islink(src) or not os.path.exists(src):
            return hit  # a link copied as a link, or a source made by the same command
        if not os.path.isdir(src):
            found = surface.check(dest, paths.real(dest))
        else:
            found = _members(surface, src, dest)
        if found is files.UNKNOWN:
            return hit
        if found and found[0] not in files.ASK_CODES:
            return found
        asked = asked or found
    return asked


def _sources_written(effects, write, sources) -> bool:
    """Another write of the same command lands in one of the sources."""
    for w in effects.writes:
        if w is write:
            continue
        for p in w.paths or ():
            if any(paths.is_within(p, s) or paths.is_within(s, p) for s in sources):
                return True
        if not w.paths:
            return True  # a write that cannot be placed may be anywhere
    return False


def _members(surface, src, dest):
    """The first surface hit of `dest/<rel>` for every entry below `src` (deny before ask),
    None when none, files.UNKNOWN when the walk cannot finish."""
    found = surface.check(dest, paths.real(dest))
    if found and found[0] not in files.ASK_CODES:
        return found
    asked = found
    seen = 0
    stack = [(src, "")]
    while stack:
        d, rel = stack.pop()
        try:
            with os.scandir(d) as it:
                entries = list(it)
        except OSError:
            return files.UNKNOWN
        for e in entries:
            seen += 1
            if seen > files.TREE_WALK_LIMIT:
                return files.UNKNOWN
            sub = posixpath.join(rel, e.name) if rel else e.name
            target = posixpath.join(dest, sub)
            hit = surface.check(target, paths.real(target))
            if hit and hit[0] not in files.ASK_CODES:
                return hit
            asked = asked or hit
            try:
                if e.is_dir(follow_symlinks=False):
                    stack.append((e.path, sub))
            except OSError:
                return files.UNKNOWN
    return asked
