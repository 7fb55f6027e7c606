"""Secrets by content inside containers: an archive's members and a compressed file's
contents.

A credential under an ordinary name, archived (`backup.tar` holding deploy/settings.ini) or
compressed (`prod.ini.gz`), is printed by `tar xOf`, `unzip -p`, `zcat`, and by any reader of
the container's bytes (`strings`, `grep -a`, `cat`, `od`: an uncompressed tar holds its
members verbatim). gateway.secrets.content judges the members by name; here they are judged
by content, each by the hash of its bytes (gateway.secrets.blobs.scan_bytes: cached, a
member's verdict never goes stale). Known by the bytes, not the name: tar (also compressed),
zip, and a single gzip, bzip2 or xz stream; a member that is itself one of these (a tar in
a tar.gz, a zip in a tar) is opened in turn, to MAX_DEPTH levels and MAX_NESTED bytes, and
its members named `<container>!/<member>`.

Bounded and fail closed: a container whose members cannot be read (broken, encrypted, more
than MAX_MEMBERS, a member or the whole over the limits, containers nested deeper than
MAX_DEPTH) is "unscanned": its read asks.
Standard library only (tarfile, zipfile, gzip, bz2, lzma on a miss).
"""

import hashlib
import os

from gateway.secrets import content

MAX_MEMBERS = 20000
#: Bytes of member contents read from one container at most.
MAX_TOTAL = 64 << 20
_GZ, _BZ, _XZ = b"\x1f\x8b", b"BZh", b"\xfd7zXZ\x00"


def kind(head: bytes) -> str:
    if len(head) >= 262 and head[257:262] == b"ustar":
        return "tar"
    if head.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return "zip"
    if head.startswith((_GZ, _BZ, _XZ)):
        return "compressed"
    return ""


class _Unreadable(Exception):
    pass


#: Containers inside containers opened at most (the outer one is level 1): a member that is
#: a container deeper than this cannot be judged, and its reader asks.
MAX_DEPTH = 4
#: Bytes of one nested container read into memory at most (its members are then judged
#: like any other, within MAX_TOTAL); a bigger one cannot be judged.
MAX_NESTED = 32 << 20
#: Between a container's name and its members' names in a member's name
#: (`backup.tgz` holding `old/site.tar` holding `deploy/prod.ini`: `old/site.tar!/deploy/prod.ini`).
NEST = "!/"


def _contents(path, k, max_bytes):
    """[(member name, bytes)] of the container - a member that is itself a container (a tar
    in a tar.gz, a zip in a tar, a gzipped file in a zip) opened in turn, to MAX_DEPTH
    levels, its members named `<container>!/<member>`; raises _Unreadable."""
    out = []
    budget = {"total": 0}
    with open(path, "rb") as fh:
        _walk(fh, k, "", os.path.basename(path), max_bytes, 1, out, budget)
    return out


def _walk(fh, k, prefix, base, max_bytes, depth, out, budget):
    def add(name, data):
        budget["total"] += len(data)
        if budget["total"] > MAX_TOTAL or len(out) >= MAX_MEMBERS:
            raise _Unreadable("its members are too many or too big to scan")
        inner = kind(data[:512])
        if inner:
            if depth >= MAX_DEPTH:
                raise _Unreadable(f"its member {name!r} is an archive inside archives "
                                  f"nested deeper than {MAX_DEPTH} levels")
            import io

            _walk(io.BytesIO(data), inner, name + NEST, name.rsplit("/", 1)[-1], max_bytes,
                  depth + 1, out, budget)
            return
        if len(data) > max_bytes:
            raise _Unreadable(f"its member {name!r} is over the scanner's limit of "
                              f"{max_bytes} bytes (secrets.content.max_bytes)")
        out.append((name, data))

    def read(name, size, stream):
        """A member's bytes: all of a container (to MAX_NESTED), else up to the limit."""
        head = stream.read(512)
        limit = MAX_NESTED if kind(head) else max_bytes
        if size is not None and size > limit:
            raise _Unreadable(f"its member {name!r} is over the limit of {limit} bytes "
                              + ("for an archive inside an archive" if limit == MAX_NESTED
                                 else "(secrets.content.max_bytes)"))
        data = head + stream.read(limit + 1 - len(head))
        if len(data) > limit:
            raise _Unreadable(f"its member {name!r} is over the limit of {limit} bytes")
        return data

    try:
        if k == "zip":
            import zipfile

            with zipfile.ZipFile(fh) as z:
                for info in z.infolist():
                    if info.is_dir():
                        continue
                    with z.open(info) as member:
                        add(prefix + info.filename,
                            read(prefix + info.filename, info.file_size, member))
            return
        import tarfile

        try:
            fh.seek(0)
            with tarfile.open(fileobj=fh, mode="r:*") as t:
                for m in t:
                    if not m.isfile():
                        continue
                    member = t.extractfile(m)
                    add(prefix + m.name, read(prefix + m.name, m.size, member)
                        if member is not None else b"")
            return
        except tarfile.ReadError:
            if k == "tar":
                raise
        # one compressed stream (not a tar): its decompressed bytes
        fh.seek(0)
        head = fh.read(6)
        fh.seek(0)
        if head.startswith(_GZ):
            import gzip as mod
        elif head.startswith(_BZ):
            import bz2 as mod
        else:
            import lzma as mod
        for suf in (".gz", ".bz2", ".xz", ".z", ".tgz"):
            if base.lower().endswith(suf):
                base = base[:-len(suf)] + (".tar" if suf == ".tgz" else "")
        with mod.open(fh, "rb") as stream:
            add(prefix + base, read(prefix + base, None, stream))
    except _Unreadable:
        raise
    except Exception as exc:  # noqa: BLE001 - broken, encrypted, truncated: fail closed
        raise _Unreadable(f"its members cannot be read ({type(exc).__name__})") from exc


def verdict(path, policy, env=None):
    """A content.Verdict (SECRET or UNSCANNED, detail naming the member) when `path` is a
    container whose members are not all clean; None when it is none or they are."""
    conf = content.settings(policy)
    if conf is None:
        return None
    try:
        with open(path, "rb") as fh:
            head = fh.read(512)
    except OSError:
        return None
    k = kind(head)
    if not k:
        return None
    try:
        members = _contents(path, k, conf[1])
    except _Unreadable as exc:
        return content.Verdict(content.UNSCANNED, path, f"a container (archive or compressed "
                               f"file) whose contents could not be checked: {exc}")
    if not members:
        return None
    # the members of nested containers by name (the outer one's names are judged by
    # gateway.secrets.content.container_secret): an archived `.env` in a tar in a tar.gz
    from gateway.paths import is_secret

    for name, _data in members:
        if NEST in name:
            rule = is_secret(("/" + name.rsplit(NEST, 1)[1].lstrip("/"),), policy)
            if rule:
                return content.Verdict(content.SECRET, path, f"its archive member "
                                       f"{name!r} is a secret by its name ({rule})")
    from gateway.secrets.blobs import key, scan_bytes

    items = {}
    names = {}
    for name, data in members:
        h = key(hashlib.sha1(data).hexdigest(), name)  # noqa: S324 - a cache key
        items[h] = data
        names.setdefault(h, name)
    v = scan_bytes(items, policy, env, prefix="member-")
    if v is None:
        return None
    name = names.get(v.path, "?")
    place = (f"its compressed contents ({name!r})" if k == "compressed" and NEST not in name
             else f"its archive member {name!r}")
    if v.kind == content.SECRET:
        return content.Verdict(content.SECRET, path, f"in {place}, {v.detail}")
    return content.Verdict(content.UNSCANNED, path, f"{place} could not be checked: "
                           f"{v.detail}")
