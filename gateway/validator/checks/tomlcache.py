"""Parsed TOML configuration, remembered between hook calls.

Judging `pytest`, `ruff`, `mypy`, `black` or `cargo` means reading the project's
pyproject.toml (or ruff.toml, Cargo.toml, ...) on every call, and a hook is a fresh process
each time: importing tomllib pulls in `re`, `typing` and `string` and costs more CPU than
the rest of the decision (docs/performance.md, round 21). The same file is parsed again and
again with the same text, so the parse is kept:

- one file per configuration path in `parsed/` of the cache directory (gateway.cachedir),
  holding the path, the file's **whole text** and what tomllib made of it, as JSON;
- it is used only when the path and the text just read from the file are exactly the ones
  it holds (no time stamps, no hashes: an edit of one byte, a same-size rewrite, a reset
  modification time all miss), and only when the cache file is a regular file owned by the
  user, writable by nobody else, not a link and with no other name (no hard link through
  which it could be rewritten in place), of bounded size, in a `parsed/` that is itself a
  directory of the user's, not a link, writable by nobody else, and holds exactly that
  shape, down to every value (no null: tomllib never makes one); anything else and tomllib
  parses the text as before (the cache never decides);
- only values that JSON gives back as they were are kept: tables, arrays, strings,
  integers, floats and booleans; a document with a date or time is parsed every time.

The cache directory is a protected path (the agent's writes to it are refused), as it is
for the compiled policy and the hook's code cache, whose tampering would be as bad.
Set GATEWAY_CONFIG_CACHE=0 to turn it off.
"""

import os

from gateway import _fastjson
from gateway.cachedir import cache_dir, key

FORMAT = 1
_MAX_FILE = 4 << 20  # the cache file: a 1 MiB configuration file (its limit) fits twice


def _name(path: str) -> str:
    return f"toml-{key(path)}.json"


def _dir() -> str:
    return os.path.join(cache_dir(), "parsed")


def _file(path: str) -> str:
    return os.path.join(_dir(), _name(path))


def _enabled() -> bool:
    return os.environ.get("GATEWAY_CONFIG_CACHE", "1") != "0"


def _open_dir():
    """A descriptor of `parsed/`, or None: a directory (not a link) of the user's that
    nobody else can write."""
    try:
        dfd = os.open(_dir(), os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except (OSError, ValueError):
        return None
    try:
        st = os.fstat(dfd)
        if st.st_uid == os.getuid() and not st.st_mode & 0o022:
            return dfd
    except OSError:
        pass
    os.close(dfd)
    return None


def lookup(path: str, text: str):
    """What tomllib made of `text`, the content of `path`, when it is remembered; else None."""
    if not _enabled():
        return None
    dfd = _open_dir()
    if dfd is None:
        return None
    try:
        fd = os.open(_name(path), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                     dir_fd=dfd)
    except (OSError, ValueError):
        return None
    finally:
        os.close(dfd)
    try:
        st = os.fstat(fd)
        # one name only: a hard link elsewhere would let the file be rewritten in place
        if (st.st_uid != os.getuid() or st.st_mode & 0o022 or st.st_nlink != 1
                or (st.st_mode & 0o170000) != 0o100000 or st.st_size > _MAX_FILE):
            return None
        with open(fd, "rb", closefd=False) as fh:
            raw = fh.read(_MAX_FILE + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    try:
        entry = _fastjson.loads(raw.decode("utf-8"))  # exactly UTF-8, as written: no BOM
    except (ValueError, RecursionError):
        return None
    if (isinstance(entry, list) and len(entry) == 4 and entry[0] == FORMAT
            and entry[1] == path and entry[2] == text and type(entry[3]) is dict
            and _json_exact(entry[3])):
        return entry[3]
    return None


def _json_exact(value, depth=0) -> bool:
    """Every value one JSON gives back unchanged (no date, no time, no odd key)."""
    if depth > 100:
        return False
    kind = type(value)
    if kind is dict:
        return all(type(k) is str and _json_exact(v, depth + 1) for k, v in value.items())
    if kind is list:
        return all(_json_exact(v, depth + 1) for v in value)
    return kind in (str, int, float, bool)


def store(path: str, text: str, data) -> None:
    """Remember `data`, what tomllib made of `text` (the content of `path`)."""
    if not _enabled() or type(data) is not dict or not _json_exact(data):
        return
    try:
        raw = _fastjson.dumps([FORMAT, path, text, data], separators=(",", ":")).encode(
            "utf-8", "surrogatepass")
    except (ValueError, TypeError, RecursionError):
        return
    if len(raw) > _MAX_FILE:
        return
    try:
        os.makedirs(_dir(), mode=0o700, exist_ok=True)
    except (OSError, ValueError):
        return
    dfd = _open_dir()  # written only into the directory lookup would read
    if dfd is None:
        return
    name = _name(path)
    tmp = None
    try:
        tmp = f"{name}.{os.getpid()}-{os.urandom(4).hex()}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                     0o600, dir_fd=dfd)
        with open(fd, "wb") as fh:
            fh.write(raw)
        os.replace(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
        tmp = None
    except (OSError, ValueError):
        pass  # an optimisation: the next call parses again
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp, dir_fd=dfd)
            except OSError:
                pass
        os.close(dfd)
