"""Secrets by content inside containers: an archive's members and a compressed file's
contents.

A credential under an ordinary name, archived (`backup.tar` holding deploy/settings.ini) or
compressed (`prod.ini.gz`), is printed by `tar xOf`, `unzip -p`, `zcat`, and by any reader of
the container's bytes (`strings`, `grep -a`, `cat`, `od`: an uncompressed tar holds its
members verbatim). gateway.secrets.content judges the members by name; here they are judged
by content, each by the hash of its bytes (gateway.secrets.blobs.scan_bytes: cached, a
member's verdict never goes stale). Known by the bytes, not the name: tar (also compressed),
zip, and a single gzip, bzip2 or xz stream.

Bounded and fail closed: a container whose members cannot be read (broken, encrypted, more
than MAX_MEMBERS, a member or the whole over the limits) is "unscanned": its read asks.
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


def _contents(path, k, max_bytes):
    """[(member name, bytes)] of the container; raises _Unreadable."""
    out = []
    total = 0

    def add(name, data):
        nonlocal total
        total += len(data)
        if len(data) > max_bytes:
            raise _Unreadable(f"its member {name!r} is over the scanner's limit of "
                              f"{max_bytes} bytes (secrets.content.max_bytes)")
        if total > MAX_TOTAL or len(out) >= MAX_MEMBERS:
            raise _Unreadable("its members are too many or too big to scan")
        out.append((name, data))

    try:
        if k == "zip":
            import zipfile

            with zipfile.ZipFile(path) as z:
                for info in z.infolist():
                    if info.is_dir():
                        continue
                    if info.file_size > max_bytes:
                        add(info.filename, b"x" * (max_bytes + 1))
                    add(info.filename, z.read(info))
            return out
        import tarfile

        try:
            with tarfile.open(path, "r:*") as t:
                for m in t:
                    if not m.isfile():
                        continue
                    if m.size > max_bytes:
                        add(m.name, b"x" * (max_bytes + 1))
                    fh = t.extractfile(m)
                    add(m.name, fh.read(max_bytes + 1) if fh is not None else b"")
            return out
        except tarfile.ReadError:
            if k == "tar":
                raise
        # one compressed stream (not a tar): its decompressed bytes
        with open(path, "rb") as raw:
            head = raw.read(6)
        if head.startswith(_GZ):
            import gzip as mod
        elif head.startswith(_BZ):
            import bz2 as mod
        else:
            import lzma as mod
        with mod.open(path, "rb") as fh:
            data = fh.read(max_bytes + 1)
        base = os.path.basename(path)
        for suf in (".gz", ".bz2", ".xz", ".z"):
            if base.lower().endswith(suf):
                base = base[:-len(suf)]
        add(base, data)
        return out
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
    if v.kind == content.SECRET:
        return content.Verdict(content.SECRET, path, f"its member {name!r} holds a credential "
                               f"({v.detail})")
    return content.Verdict(content.UNSCANNED, path, f"its member {name!r} could not be "
                           f"checked: {v.detail}")
