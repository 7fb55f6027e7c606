"""The judgement of a Bash command's named writes, for both hooks (one model).

The effects analysis (gateway.effects.analysis) names what a command writes: redirections,
cp/mv/ln/install targets (into a directory or `-t DIR` too, after a `cd` too), names an
option derives (a backup suffix), tee, sed -i... Each path is judged by the guards' write
judgement (gateway.effects.files.Surface, with gateway.effects.writes for what lands below a
copy's destination, plain git values and links). The PreToolUse guards turn the findings
into a deny (GW835), an ask a human may answer (files.ASK_CODES: a file that runs later
GW836, a secret GW833, a plain git value GW839, a link GW843) or, for a filtered tree write
over a protected path, GW837; the validator (PermissionRequest, the early allow, `gateway
check`) gives no allow for any of them (gateway.validator.written). So neither hook allows
what the other refuses for the same write.
"""

from gateway.effects import files
from gateway.effects import writes as writes_mod
from gateway.paths import lexical, real

#: Finding kinds: a deny, an ask on the path itself, an ask on what a removed tree holds, a
#: filtered tree write over a protected path.
PROTECTED, ASKED, ASKED_BELOW, FILTERED = "protected", "asked", "asked-below", "filtered"


class Finding:
    __slots__ = ("kind", "write", "path", "hit", "unknown_dir")

    def __init__(self, kind, write, path, hit, unknown_dir):
        self.kind = kind
        self.write = write  # the effects analysis' Write
        self.path = path  # the absolute candidate judged
        self.hit = hit  # (code, rule, what) from Surface.check (or files.below)
        self.unknown_dir = unknown_dir  # the write's directory could not be known

    def __repr__(self) -> str:
        return f"Finding({self.kind}, {self.write!r}, {self.path!r}, {self.hit!r})"


def findings(effects, surface, cwd, project, first_protected=True):
    """The findings for `effects`' named writes, in order. With `first_protected`, stop at
    the first PROTECTED one (a deny needs no more). A write in a directory that cannot be
    known is judged where it may land: the call's cwd and the project."""
    out = []
    only_links = writes_mod.only_symlinks(effects)
    for w in effects.writes:
        if getattr(w, "listed", False):
            continue  # its entries are writes of their own (find -delete, listed)
        where = w.paths
        unknown_dir = not where and not w.target.startswith("/")
        if unknown_dir:
            where = tuple(dict.fromkeys(lexical(w.target, d) for d in (cwd, project)))
        for p in where:
            hit = surface.check(p, real(p), tree=w.tree)
            if hit and w.tree and not files.removal(w.via) and hit[0] not in files.ASK_CODES:
                # a copy or move into a tree: what lands there is the source's members
                hit = writes_mod.landing(surface, w, p, hit, effects)
            if hit:
                hit = writes_mod.approvable(hit, w, only_links)
            if hit and hit[0] in files.ASK_CODES:
                out.append(Finding(ASKED, w, p, hit, unknown_dir))
                continue
            removal = files.removal(w.via) if hit and w.tree else ""
            if (removal and not (hit[1] == "project" and removal == "all")
                    and surface.check(p, real(p)) is None):
                # a removal, and the hit is something the tree may hold: look at what is there
                found = files.below(surface, real(p))
                if found is None:
                    continue  # the protected patterns match nothing on disk below it
                if found is files.UNKNOWN or removal == "filtered":
                    out.append(Finding(FILTERED, w, p, found, unknown_dir))
                    continue
                hit = found
                if hit[0] in files.ASK_CODES:
                    out.append(Finding(ASKED_BELOW, w, p, hit, unknown_dir))
                    continue
            if hit:
                out.append(Finding(PROTECTED, w, p, hit, unknown_dir))
                if first_protected:
                    return out
    return out
