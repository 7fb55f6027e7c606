"""Secrets by content: does a file whose name decides nothing hold a credential?

A maintained scanner decides (Yelp's detect-secrets, run by gateway.secrets.scan in its own
process: importing it costs 150-300 ms, far over a hook's budget). The hook keeps the answer
by the file's identity and only asks the scanner for a file it has never seen as it is now:

1. the **verdict cache**: `<cache>/scan/<scanner key>/<identity>`, where the identity is the
   file's device, inode, size, modification and change time (ctime cannot be set back by a
   process: a same-size rewrite with its old mtime is a new identity). A hit is one stat and
   one small read;
2. the **prefilter** (a miss): the scanner's own patterns, extracted by the worker into
   `<cache>/scan/<scanner key>.prefilter` (every regex of the configured regex plugins and
   the keyword plugin's denylist, recompiled per line with re.M): a file none of them
   matches cannot be flagged by those plugins (tests/property/test_secret_content.py proves
   it against the library on generated lines). Formats the scanner reads through a
   transformer that joins lines (YAML, INI, configuration files) skip it;
3. the **scanner** (the prefilter matched, or a format it skips): the worker runs with a time
   limit (`secrets.content.timeout_ms`); when it is not done in time the read asks and the
   worker goes on in the background, so the next call finds the verdict.

A file bigger than `secrets.content.max_bytes` cannot be scanned in time: its read asks. A
file the scanner cannot decode as text is what the scanner makes of it (it skips binary
files); archives are containers (gateway.validator.checks.archives), judged by members.

The verdict on a file a tool reads (its members when it is a container, else this scanner)
is gateway.secrets.filecheck's `check` and `verdicts`, above this module.

Everything here is fail closed: a cache that is not the user's own directory, an entry that
does not parse, a worker that dies - the file counts as not scanned, and its read asks.
Standard library only; `re` and `subprocess` only on a cache miss.
"""

import os

#: Verdicts kept in the cache and returned.
CLEAN = "clean"
SECRET = "secret"
UNSCANNED = "unscanned"
_ENTRY_MAX = 512
#: What a verdict means beyond the scanner's own: bumped when the gateway judges more (2:
#: containers by their members' contents; 3: credential-named assignments with unquoted
#: values, gateway.secrets.plugins.CredentialAssignmentDetector; 4: containers inside
#: containers opened, gateway.secrets.members; 5: a name passed on, `key=key_name`, is no
#: credential assignment; 6: Authorization headers, gateway.secrets.plugins), so verdicts
#: kept by an older judgement are not reused.
JUDGEMENT = "6"
_PREFILTER_MAX = 1 << 20


#: What to do about a GW510/GW841 ask, after its place and reason.
HINT = ("Read it yourself if you mean to (or say yes to let the agent see it); if it is no "
        "credential, end its line with the comment `pragma: allowlist secret` "
        "(detect-secrets' allowlist)")


class Verdict:
    __slots__ = ("kind", "path", "detail")

    def __init__(self, kind, path, detail=""):
        self.kind = kind
        self.path = path
        self.detail = detail

    def __repr__(self):
        return f"Verdict({self.kind}, {self.path!r}, {self.detail!r})"


def settings(policy):
    """(plugins tuple, max_bytes, timeout seconds, full-scan extensions) of the policy, or
    None when content scanning is off (no plugins)."""
    data = getattr(policy, "secret_content", None) or {}
    plugins = tuple(data.get("plugins") or ())
    if not plugins:
        return None
    return (plugins, int(data.get("max_bytes") or (1 << 20)),
            max(0.05, int(data.get("timeout_ms") or 2000) / 1000.0),
            tuple(x.lower() for x in data.get("full_scan_extensions") or ()))


def identity(st) -> str:
    return (f"d{st.st_dev:x}-i{st.st_ino:x}-s{st.st_size:x}-m{st.st_mtime_ns:x}"
            f"-c{st.st_ctime_ns:x}")


def scanner_key(plugins) -> str:
    """The cache's subdirectory: the plugin list and the installed scanner's version (its
    dist-info directory's name), so an upgrade or another plugin list starts afresh."""
    from gateway.cachedir import key

    return key("\n".join(plugins) + "\n" + _scanner_dist() + "\n" + JUDGEMENT)


_DIST = None


def _scanner_dist() -> str:
    global _DIST
    if _DIST is None:
        import sys

        found = ""
        for d in sys.path:
            try:
                names = os.listdir(d or ".")
            except OSError:
                continue
            hit = sorted(n for n in names if n.startswith("detect_secrets-")
                         and n.endswith((".dist-info", ".egg-info")))
            if hit:
                found = hit[-1]
                break
        _DIST = found or "none"
    return _DIST


def scan_root(env=None) -> str:
    from gateway.cachedir import cache_dir

    return os.path.join(cache_dir(env), "scan")


def _own_dir(path) -> bool:
    """`path` is a directory of the user's, not a link, that nobody else can write."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    import stat as _stat

    return (_stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid()
            and not st.st_mode & 0o022)


def _read_small(path, limit):
    """The bytes of a regular file of the user's (no link, no other name, nobody else may
    write it), at most `limit`; None otherwise."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except (OSError, ValueError):
        return None
    try:
        st = os.fstat(fd)
        import stat as _stat

        if not (_stat.S_ISREG(st.st_mode) and st.st_uid == os.getuid()
                and not st.st_mode & 0o022 and st.st_nlink == 1 and st.st_size <= limit):
            return None
        return os.read(fd, limit + 1)[:limit]
    except OSError:
        return None
    finally:
        os.close(fd)


def cached(entry_dir, ident):
    """(kind, detail) of a cache entry, or None."""
    data = _read_small(os.path.join(entry_dir, ident), _ENTRY_MAX)
    if data is None:
        return None
    text = data.decode("utf-8", "replace").rstrip("\n")
    kind, _, detail = text.partition("\t")
    if kind == CLEAN and not detail:
        return (CLEAN, "")
    if kind == SECRET and detail:
        return (SECRET, detail)
    return None


def write_entry(entry_dir, ident, kind, detail=""):
    """Record a verdict (atomically; a failure records nothing)."""
    try:
        os.makedirs(entry_dir, mode=0o700, exist_ok=True)
        if not _own_dir(entry_dir) or not _own_dir(os.path.dirname(entry_dir)):
            return
        tmp = os.path.join(entry_dir, f".{ident}.{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                     0o600)
        try:
            os.write(fd, (kind + ("\t" + detail.replace("\n", " ") if detail else "")
                          + "\n").encode("utf-8", "replace")[:_ENTRY_MAX])
        finally:
            os.close(fd)
        os.replace(tmp, os.path.join(entry_dir, ident))
    except OSError:
        pass


def _prefilter(root, skey):
    """The compiled prefilter (one regex per line of the file), or None when the worker has
    not written it (or it cannot be trusted)."""
    data = _read_small(os.path.join(root, skey + ".prefilter"), _PREFILTER_MAX)
    if data is None:
        return None
    import re

    lines = data.decode("utf-8", "replace").split("\n")
    if not lines or lines[0] != "gateway-prefilter 1":
        return None
    out = []
    for line in lines[1:]:
        if not line:
            continue
        flags, _, pattern = line.partition("\t")
        if not flags.isdigit():
            return None
        try:
            out.append(re.compile(pattern, int(flags) | re.MULTILINE))
        except (re.error, ValueError, OverflowError):
            return None
    if not out:
        return None
    return out


#: Magic numbers of the containers whose members are judged (tar at offset 257).
_MAGIC = (b"PK\x03\x04", b"PK\x05\x06", b"\x1f\x8b", b"BZh", b"\xfd7zXZ\x00")
_MAX_MEMBERS = 20000
_MAX_CONTAINER = 64 << 20


def container_secret(path, policy) -> str:
    """"archive member NAME (rule)" when `path` is a tar or zip archive (compressed or not,
    known by its bytes, not its name) with a member that is a secret by its name; else "".
    Any reader that prints an archive's bytes (cat, strings, od, xxd, grep -a) is judged by
    its members, as `tar xOf` is (gateway.validator.checks.archives). An archive that cannot
    be listed is scanned as a file."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(512)
    except OSError:
        return ""
    is_tar = len(head) >= 262 and head[257:262] == b"ustar"
    if not (is_tar or head.startswith(_MAGIC)):
        return ""
    try:
        if os.path.getsize(path) > _MAX_CONTAINER:
            return ""
    except OSError:
        return ""
    from gateway.paths import is_secret

    for name in _members(path, head):
        rule = is_secret(("/" + name.lstrip("/"),), policy)
        if rule:
            return f"its archive member {name!r} is a secret by its name ({rule})"
    return ""


def _members(path, head):
    names = []
    try:
        if head.startswith(b"PK"):
            import zipfile

            with zipfile.ZipFile(path) as z:
                names = [i.filename for i in z.infolist()[:_MAX_MEMBERS]]
        else:
            import tarfile

            with tarfile.open(path, "r:*") as t:
                for m in t:
                    names.append(m.name)
                    if len(names) >= _MAX_MEMBERS:
                        break
    except Exception:  # noqa: BLE001 - not an archive after all, or a broken one
        return names
    return names


def _text(path, st, limit):
    """The file's text as the scanner reads it (UTF-8), or None: it cannot be decoded (the
    scanner skips it too, but the worker decides), changed, or cannot be read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except (OSError, ValueError):
        return None
    try:
        st2 = os.fstat(fd)
        if identity(st2) != identity(st):
            return None
        chunks = []
        left = limit + 1
        while left > 0:
            b = os.read(fd, min(left, 1 << 20))
            if not b:
                break
            chunks.append(b)
            left -= len(b)
        data = b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def warm(policy, env=None):
    """At session start: when the scanner's prefilter is not written yet (a cold cache),
    start the worker in the background with no file, so it writes the prefilter (and loads
    the library's files into the page cache) before the session's first read needs it; the
    first read of a file the prefilter clears then costs no scanner run. Returns at once."""
    conf = settings(policy)
    if conf is None:
        return False
    root = scan_root(env)
    skey = scanner_key(conf[0])
    if os.path.exists(os.path.join(root, skey + ".prefilter")):
        return False
    _run_worker([], conf[0], root, skey, 0, env)
    return True


def _run_worker(paths, plugins, root, skey, timeout, env):
    """Start gateway.secrets.scan on `paths` in its own session and wait at most `timeout`
    seconds; it goes on after that and writes its verdicts for the next call."""
    import subprocess
    import sys

    try:
        os.makedirs(root, mode=0o700, exist_ok=True)
    except OSError:
        return
    # isolated (-I: no PYTHON* variables, no user site, not the current directory on
    # sys.path) with the hook's own absolute sys.path, started in the cache directory: no
    # file of the agent's project can stand in for a module the scanner imports
    search = [p for p in sys.path if p and os.path.isabs(p)]
    code = (f"import sys; sys.path[:] = {search!r}; "
            "from gateway.secrets.scan import main; sys.exit(main())")
    args = [sys.executable, "-I", "-c", code, "--root", root, "--key", skey]
    for p in plugins:
        args += ["--plugin", p]
    args += ["--"] + list(paths)
    try:
        proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True,
                                cwd=root, close_fds=True)
    except (OSError, ValueError):
        return
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        pass
