"""The paths a git repository tracks, read from its index file (`.git/index`).

git prints tracked files' contents through many doors (`git diff`, `git show`, `git log -p`,
`git grep`, `git cat-file -p <blob>`): a secret the repository tracks (a committed `.npmrc`
or `.env`) would be read through them although `cat .env` asks. Phase 7C asks for those
commands when the index holds a path the secret rules name.

The index is parsed here, not by running `git ls-files`: git would read the repository's
configuration, and `core.fsmonitor` there runs a program. Format (gitformat-index(5)):
"DIRC", version 2, 3 or 4, the entry count, then entries: 40 bytes of stat data, the object
id (20 bytes for SHA-1, 32 for SHA-256), 16 bits of flags (and 16 more in version 3+ when
the extended bit is set), the path (NUL-terminated and padded to 8 bytes in versions 2/3;
in version 4 prefix-compressed against the previous path and not padded). A split index
(the `link` extension) keeps most entries in `sharedindex.<id>` beside it, which is read
too; a sparse index stands whole directories for their files, so its paths are not all
known. Anything not understood gives None ("unknown"): the caller asks.
"""

import os

#: Index files larger than this are not read (the caller asks).
MAX_INDEX_BYTES = 64 << 20
_ENTRY_FIXED = 40  # ctime, mtime, dev, ino, mode, uid, gid, size: ten 32-bit words
_EXTENDED = 0x4000
_SPARSE_DIR_MODE = 0o040000


def _varint(data, i):
    """git's offset varint (version 4 path compression)."""
    c = data[i]
    i += 1
    value = c & 0x7F
    while c & 0x80:
        value += 1
        c = data[i]
        i += 1
        value = (value << 7) + (c & 0x7F)
    return value, i


def _entries(data, hash_len):
    """(paths, position after the last entry, sparse) or None when the data does not parse
    with this object id length."""
    if len(data) < 12 + hash_len or data[:4] != b"DIRC":
        return None
    version = int.from_bytes(data[4:8], "big")  # the lengths are checked above
    count = int.from_bytes(data[8:12], "big")
    if version not in (2, 3, 4):
        return None
    i = 12
    end = len(data) - hash_len  # the trailing checksum
    paths = []
    prev = b""
    sparse = False
    for _ in range(count):
        start = i
        i += _ENTRY_FIXED + hash_len
        if i + 2 > end:
            return None
        mode = int.from_bytes(data[start + 24:start + 28], "big")
        flags = int.from_bytes(data[i:i + 2], "big")
        i += 2
        if flags & _EXTENDED:
            if version < 3:
                return None
            i += 2
        if version == 4:
            if i >= end:
                return None
            strip, i = _varint(data, i)
            if strip > len(prev):
                return None
            nul = data.find(b"\0", i, end)
            if nul < 0:
                return None
            path = prev[:len(prev) - strip] + data[i:nul]
            i = nul + 1
        else:
            nul = data.find(b"\0", i, end)
            if nul < 0:
                return None
            path = data[i:nul]
            # 1 to 8 NULs pad the entry to a multiple of 8 bytes
            i = start + ((nul - start) // 8 + 1) * 8
            if i > end or data[nul:i].strip(b"\0"):
                return None
        if path.startswith(b"/"):
            return None
        if mode == _SPARSE_DIR_MODE:
            sparse = True
        paths.append(path)  # b"" in a split index: replaces an entry of the shared index
        prev = path
    return paths, i, sparse


def _extensions(data, pos, hash_len):
    """{signature: payload} of the extensions between the entries and the checksum."""
    out = {}
    end = len(data) - hash_len
    while pos + 8 <= end:
        sig = data[pos:pos + 4]
        size = int.from_bytes(data[pos + 4:pos + 8], "big")
        out[sig] = data[pos + 8:pos + 8 + size]
        pos += 8 + size
    return out if pos == end else None


def _read(path):
    try:
        # O_NONBLOCK: a FIFO at .git/index would otherwise hang the hook in open() (found by
        # the reliability pass); the fstat below refuses anything but a regular file
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except FileNotFoundError:
        return b""
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not (st.st_mode & 0o170000 == 0o100000) or st.st_size > MAX_INDEX_BYTES:
            return None
        chunks = []
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _parse(data):
    for hash_len in (20, 32):
        parsed = _entries(data, hash_len)
        if parsed is None:
            continue
        paths, pos, sparse = parsed
        ext = _extensions(data, pos, hash_len)
        if ext is not None:
            return paths, ext, sparse, hash_len
    return None


def tracked_paths(git_dir):
    """The paths (bytes, relative to the work tree) the index of `git_dir` holds; [] when
    there is no index; None when it cannot be read or understood, or is sparse."""
    data = _read(os.path.join(git_dir, "index"))
    if data is None:
        return None
    if not data:
        return []
    parsed = _parse(data)
    if parsed is None:
        return None
    paths, ext, sparse, hash_len = parsed
    if sparse or b"sdir" in ext:
        return None
    link = ext.get(b"link")
    if link is None:
        return None if b"" in paths else paths
    if len(link) < hash_len:
        return None
    shared = _read(os.path.join(git_dir, f"sharedindex.{link[:hash_len].hex()}"))
    if not shared:
        return None
    sp = _parse(shared)
    if sp is None or sp[2]:
        return None
    # a superset: entries the split index deletes are kept
    return [p for p in paths if p] + [p for p in sp[0] if p]


def is_git_dir(d) -> bool:
    """Would git take directory `d` for a repository itself (a bare one, or a .git)?"""
    return (os.path.isfile(os.path.join(d, "HEAD"))
            and os.path.isdir(os.path.join(d, "objects"))
            and os.path.isdir(os.path.join(d, "refs")))


def git_dir_of(start, root):
    """The git directory of the repository git would use in directory `start` (searched
    upwards, not above `root`): `start` itself when it is a git directory, `<dir>/.git`, or
    where a `.git` file's `gitdir:` points (worktrees, submodules). None when there is none
    up to `root`."""
    d = start
    while True:
        if is_git_dir(d):
            return d  # a git directory itself (`git -C .git/modules/x log -p`, a bare one)
        dotgit = os.path.join(d, ".git")
        if os.path.isdir(dotgit) and is_git_dir(dotgit):
            return dotgit  # (a .git directory that is no repository is passed over, as git does)
        if os.path.isfile(dotgit):
            try:
                with open(dotgit, encoding="utf-8", errors="replace") as fh:
                    line = fh.readline().strip()
            except OSError:
                return None
            if line.startswith("gitdir:"):
                target = line[7:].strip()
                return os.path.normpath(os.path.join(d, target))
            return None
        if d == root or d == os.path.dirname(d):
            return None
        d = os.path.dirname(d)
