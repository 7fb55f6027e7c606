"""Secrets by content inside git's objects: does a blob a git command prints hold a credential?

A file whose name decides nothing is judged by its content (gateway.secrets.content); git's
history keeps every earlier version of it. `git show HEAD~1:deploy/settings.ini`,
`git log -p`, `git diff HEAD~3` print blobs the working tree no longer has, so the content
judgement must follow them there (issue 24: git objects are containers).

A blob's id is the hash of its bytes, so its verdict never goes stale: it is kept in the same
verdict cache as the files' (`<cache>/scan/<scanner key>/blob-<id>`). On a miss the blobs are
read with one `git cat-file --batch` (the caller's hardened runner) and the prefilter decides
those none of the scanner's patterns match; the rest go to the scanner's worker through a
private file in the cache (`<cache>/scan/blobtmp/<id>`, 0600, removed by the worker once it
has a verdict). Fail closed: too many blobs, a blob over `secrets.content.max_bytes`, a git
that does not answer, a scan not done in time - the read asks.
"""

import os

from gateway.secrets import content

#: Blobs one call may have scanned afresh (the rest of a huge history: unscanned, ask).
MAX_NEW_BLOBS = 4000
#: Bytes read from git for one call's new blobs at most.
MAX_NEW_BYTES = 48 << 20
_HEX = frozenset("0123456789abcdef")
ZERO = "0" * 40


def is_id(word) -> bool:
    return len(word) in (40, 64) and set(word) <= _HEX


def key(sha, path="") -> str:
    """The cache key of a version: its id and its file's extension (the scanner reads a
    file by its kind: `password: x` is a credential in a .yaml file, not in a .txt one)."""
    base = os.path.basename(path or "")
    ext = base.rsplit(".", 1)[1].lower() if "." in base.lstrip(".") else ""
    if not (ext.isalnum() and ext.isascii() and len(ext) <= 10):
        ext = ""
    return sha + ("." + ext if ext else "")


def raw_ids(output, where=None):
    """(blob keys (gateway.secrets.blobs.key), paths with a working-tree side) of `--raw --no-abbrev -z` output (log/show
    headers interleaved): every id of every record, zero ids left out; the paths whose
    record has a zero id on its new side (git diff against the working tree). None when
    `output` is None. `where`, a dict, gets each key's path (to name it to the user)."""
    if output is None:
        return None
    ids = set()
    worktree = set()
    toks = output.split(b"\0")
    i = 0
    while i < len(toks):
        tok = toks[i].lstrip(b"\n")
        i += 1
        if not tok.startswith(b":"):
            continue
        fields = tok.decode("ascii", "replace").lstrip(":").split()
        hexes = [f for f in fields if is_id(f)]
        # a record is followed by its path (two for a copy or a rename)
        npaths = 2 if fields and fields[-1][:1] in ("R", "C") else 1
        paths = [os.fsdecode(t) for t in toks[i:i + npaths]]
        i += npaths
        for h in hexes:
            if h.strip("0"):
                for p in paths or [""]:
                    ids.add(key(h, p))
                    if where is not None and p:
                        where.setdefault(key(h, p), p)
        if hexes and not hexes[-1].strip("0") and paths:
            worktree.add(paths[-1])
    return ids, worktree


def _blob_entry(blob_id):
    return "blob-" + blob_id


def verdict(ids, git, policy, env=None):
    """The first Verdict (content.SECRET or UNSCANNED) among the blobs `ids` (keys: id and
    extension), or None when every one is clean. `git(args, stdin)` runs a hardened git
    query and returns its stdout (bytes) or None. A Verdict's path is the blob's key."""
    conf = content.settings(policy)
    if conf is None or not ids:
        return None
    plugins, max_bytes, timeout, _full = conf
    root = content.scan_root(env)
    try:
        os.makedirs(root, mode=0o700, exist_ok=True)
    except OSError:
        pass
    skey = content.scanner_key(plugins)
    entry_dir = os.path.join(root, skey)
    if not (content._own_dir(root)
            and (not os.path.lexists(entry_dir) or content._own_dir(entry_dir))):
        return content.Verdict(content.UNSCANNED, sorted(ids)[0], "the scanner's cache is not "
                               "a directory of yours that nobody else can write")
    todo = []
    for b in sorted(ids):
        hit = content.cached(entry_dir, _blob_entry(b))
        if hit is None:
            todo.append(b)
        elif hit[0] == content.SECRET:
            return content.Verdict(content.SECRET, b, hit[1])
    if not todo:
        return None
    left = len(todo) - MAX_NEW_BLOBS
    if left > 0:
        # a long history: this call scans a share (kept), the next goes on from there
        todo = todo[:MAX_NEW_BLOBS]
        found = _scan_ids(todo, git, policy, env, max_bytes)
        if found is not None:
            return found
        return content.Verdict(content.UNSCANNED, todo[-1], f"{left} more versions of files "
                               f"in git's history not scanned yet ({MAX_NEW_BLOBS} are "
                               "scanned per call: the same command again goes on)")
    return _scan_ids(todo, git, policy, env, max_bytes)


def _scan_ids(todo, git, policy, env, max_bytes):
    sizes = _sizes(git, sorted({k.split(".", 1)[0] for k in todo}))
    if sizes is None:
        return content.Verdict(content.UNSCANNED, todo[0], "git could not say how big the "
                               "versions it prints are")
    def sha(k):
        return k.split(".", 1)[0]

    for b in todo:
        size = sizes.get(sha(b))
        if size is not None and size > max_bytes:
            return content.Verdict(content.UNSCANNED, b, f"{size} bytes, over the scanner's "
                                   f"limit of {max_bytes} (secrets.content.max_bytes)")
    todo = [b for b in todo if sizes.get(sha(b)) is not None]  # blobs only are printed
    chunk = []
    total = 0
    for b in todo:
        if total + sizes[sha(b)] > MAX_NEW_BYTES and chunk:
            break
        chunk.append(b)
        total += sizes[sha(b)]
    data = _contents(git, sorted({sha(b) for b in chunk}), sizes)
    if data is None:
        return content.Verdict(content.UNSCANNED, chunk[0] if chunk else "", "git could not "
                               "print the versions to scan")
    found = scan_bytes({b: data[sha(b)] for b in chunk}, policy, env, prefix="blob-")
    if found is not None or len(chunk) == len(todo):
        return found
    return content.Verdict(content.UNSCANNED, chunk[-1], f"{len(todo) - len(chunk)} more "
                           "versions of files in git's history not scanned yet (at most "
                           f"{MAX_NEW_BYTES >> 20} MiB per call: the same command again "
                           "goes on)")


def scan_bytes(items, policy, env=None, prefix="blob-"):
    """The first Verdict (SECRET or UNSCANNED) among `items` ({id: bytes}, the id a hash of
    the bytes: a verdict never goes stale), or None when every one is clean. Cached under
    `<prefix><id>`; the prefilter decides what it can, the worker the rest."""
    conf = content.settings(policy)
    if conf is None or not items:
        return None
    plugins, _max, timeout, _full = conf
    root = content.scan_root(env)
    try:
        os.makedirs(root, mode=0o700, exist_ok=True)
    except OSError:
        pass
    skey = content.scanner_key(plugins)
    entry_dir = os.path.join(root, skey)
    if not (content._own_dir(root)
            and (not os.path.lexists(entry_dir) or content._own_dir(entry_dir))):
        return content.Verdict(content.UNSCANNED, sorted(items)[0], "the scanner's cache is "
                               "not a directory of yours that nobody else can write")
    todo = []
    for b in sorted(items):
        hit = content.cached(entry_dir, prefix + b)
        if hit is None:
            todo.append(b)
        elif hit[0] == content.SECRET:
            return content.Verdict(content.SECRET, b, hit[1])
    data = items
    pre = content._prefilter(root, skey)
    scan = []
    for b in todo:
        raw = data.get(b, b"")
        if not raw:
            content.write_entry(entry_dir, prefix + b, content.CLEAN)
            continue
        if pre is not None:
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                text = None
            if text is not None and not any(rx.search(text) for rx in pre):
                content.write_entry(entry_dir, prefix + b, content.CLEAN)
                continue
        scan.append(b)
    if not scan:
        return None
    tmpdir = os.path.join(root, "blobtmp")
    files = []
    try:
        os.makedirs(tmpdir, mode=0o700, exist_ok=True)
        if not content._own_dir(tmpdir):
            raise OSError("not the user's own directory")
        for b in scan:
            path = os.path.join(tmpdir, prefix + b)
            fd = os.open(path + f".{os.getpid()}", os.O_WRONLY | os.O_CREAT | os.O_TRUNC
                         | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            try:
                os.write(fd, data[b])
            finally:
                os.close(fd)
            os.replace(path + f".{os.getpid()}", path)
            files.append(path)
    except OSError as exc:
        return content.Verdict(content.UNSCANNED, scan[0], f"the contents could not be "
                               f"handed to the scanner ({exc})")
    content._run_worker(["--blobs"] + files, plugins, root, skey, timeout, env)
    for b in scan:
        hit = content.cached(entry_dir, prefix + b)
        if hit is None:
            return content.Verdict(content.UNSCANNED, b, f"not scanned within {timeout:g} s "
                                   "(the scanner goes on in the background: try again in a "
                                   "moment)")
        if hit[0] == content.SECRET:
            return content.Verdict(content.SECRET, b, hit[1])
    return None


def _sizes(git, ids):
    out = git(["cat-file", "--batch-check=%(objectname) %(objecttype) %(objectsize)"],
              ("\n".join(ids) + "\n").encode())
    if out is None:
        return None
    sizes = {}
    for line in out.decode("ascii", "replace").splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == "blob" and parts[2].isdigit():
            sizes[parts[0]] = int(parts[2])
    return sizes


def _contents(git, ids, sizes):
    """{id: bytes} of the blobs, read with one `git cat-file --batch`; None on a failure."""
    if not ids:
        return {}
    out = git(["cat-file", "--batch"], ("\n".join(ids) + "\n").encode())
    if out is None:
        return None
    data = {}
    pos = 0
    while pos < len(out):
        nl = out.find(b"\n", pos)
        if nl < 0:
            return None
        head = out[pos:nl].decode("ascii", "replace").split()
        pos = nl + 1
        if len(head) != 3 or not head[2].isdigit():
            continue  # "<id> missing"
        size = int(head[2])
        data[head[0]] = out[pos:pos + size]
        pos += size + 1
    if any(b not in data for b in ids):
        return None
    return data
