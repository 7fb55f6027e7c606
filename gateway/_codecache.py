"""The hook's own code from one file: the gateway's and bashlex's modules, compiled, in a
cache file that a hook process reads once instead of finding and reading ~80 modules.

A hook is a fresh process per tool call, and importing a module costs the import machinery
about 0.2 ms on top of running its code (finding it on the path, checking and reading its
.pyc), so the gateway's ~80 modules cost more than the decision itself. This module installs
a finder ahead of the standard ones that serves those modules' code objects from
`code-<python>-<installation>.bin` in the cache directory (gateway.cachedir):

- a module is served only while its source file is the one the code was compiled from
  (same modification time in nanoseconds and size, checked with one stat when it is
  imported); otherwise, or when it is not in the file, the standard import runs, and the
  file is rebuilt after the call (`refresh`) with what this call imported;
- the file is read like the policy cache: not followed through a link, only a regular file
  owned by the user and writable by nobody else, of bounded size; anything else, or any
  error, and nothing is served (the standard import is always the fallback, never a
  failure);
- the code comes from the installation's own .pyc files when they match their source (what
  the standard import would run), else it is compiled from the source.

Nobody can stop the user's own processes from rewriting the file; the cache directory is a
protected path for that reason (the agent's writes to it are refused), as it is for the
compiled policy, whose tampering would be as bad.

Only the hook command (`gateway hook EVENT` as a process of its own) uses it; set
GATEWAY_CODE_CACHE=0 to turn it off. Measured with `gateway bench` (docs/performance.md).
"""

import marshal
import os
import sys

from gateway.cachedir import cache_dir, key

FORMAT = 1
#: Packages whose modules are served (the gateway's code and its parser).
PACKAGES = ("gateway", "bashlex")
_MAX_FILE = 16 << 20


def _path(env) -> str:
    here = os.path.dirname(os.path.abspath(__file__))  # one file per installation
    return os.path.join(cache_dir(env), f"code-{sys.implementation.cache_tag}-{key(here)}.bin")


def _open(path):
    """(fd, size) of the cache file, or None: not a link, a regular file owned by the user,
    writable by nobody else, with no second name (a hard link it could be rewritten through),
    of bounded size."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
    except OSError:
        st = None
    if (st is None or st.st_uid != os.getuid() or st.st_mode & 0o022 or st.st_nlink != 1
            or (st.st_mode & 0o170000) != 0o100000 or st.st_size > _MAX_FILE):
        os.close(fd)
        return None
    return fd, st.st_size


def _magic() -> bytes:
    from _frozen_importlib_external import MAGIC_NUMBER

    return MAGIC_NUMBER


class Finder:
    """A meta path finder (and loader) serving the cached modules whose source is unchanged."""

    def __init__(self, index, fd, base):
        self.index = index      # name -> (origin, is_package, mtime_ns, size, offset, length)
        self.fd = fd            # the cache file, read a module at a time (os.pread)
        self.base = base
        self.served = set()
        self.stale = False

    def find_spec(self, name, path=None, target=None):
        entry = self.index.get(name)
        if entry is None:
            return None
        origin, package, mtime_ns, size = entry[:4]
        try:
            st = os.stat(origin)
        except OSError:
            st = None
        if st is None or st.st_mtime_ns != mtime_ns or st.st_size != size:
            self.stale = True
            return None
        try:  # a chunk that does not load is not served: the standard import runs
            code = marshal.loads(self.code(name))
        except Exception:
            self.stale = True
            return None
        if type(code).__name__ != "code":
            self.stale = True
            return None
        from _frozen_importlib import ModuleSpec

        spec = ModuleSpec(name, self, origin=origin, is_package=package)
        spec.loader_state = code
        spec.has_location = True  # __file__ is the source, as with the standard import
        if package:
            spec.submodule_search_locations = [os.path.dirname(origin)]
        return spec

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        self.served.add(module.__name__)
        exec(module.__spec__.loader_state, module.__dict__)

    def invalidate_caches(self):
        pass

    def code(self, name) -> bytes:
        offset, length = self.index[name][4:6]
        data = os.pread(self.fd, length, self.base + offset)
        if len(data) != length:
            raise ImportError(f"{name}: the code cache file is shorter than its index")
        return data


#: Modules imported before install(): never served, so never a reason to rewrite the file.
_BEFORE = frozenset()


def install(env=None):
    """Put the finder first on sys.meta_path; return it, or None (nothing served)."""
    global _BEFORE
    _BEFORE = frozenset(sys.modules)
    env = os.environ if env is None else env
    if env.get("GATEWAY_CODE_CACHE") == "0":
        return None
    opened = _open(_path(env))
    if opened is None:
        return None
    fd, size = opened
    try:
        head_len = int.from_bytes(os.pread(fd, 4, 0), "little")
        head = marshal.loads(os.pread(fd, head_len, 4))
        fmt, magic, version, index = head
        from gateway import __version__

        if fmt != FORMAT or magic != _magic() or version != __version__ \
                or not isinstance(index, dict):
            raise ValueError("another format")
        base = 4 + head_len
        for name, entry in index.items():
            if not (isinstance(name, str) and isinstance(entry, tuple) and len(entry) == 6
                    and isinstance(entry[0], str) and isinstance(entry[4], int)
                    and isinstance(entry[5], int) and entry[4] >= 0 and entry[5] > 0
                    and base + entry[4] + entry[5] <= size):
                raise ValueError("a bad entry")
        finder = Finder(index, fd, base)
    except Exception:
        os.close(fd)
        return None
    sys.meta_path.insert(0, finder)
    return finder


def _eligible(name, module) -> bool:
    if name.split(".", 1)[0] not in PACKAGES or name in _BEFORE:
        return False
    origin = getattr(module, "__file__", None)
    return isinstance(origin, str) and origin.endswith(".py")


def _code(origin: str, st) -> bytes:
    """The marshalled code of `origin`: its .pyc when that matches the source, else compiled."""
    from _frozen_importlib_external import cache_from_source

    try:
        with open(cache_from_source(origin), "rb") as fh:
            pyc = fh.read()
        if (pyc[:4] == _magic() and int.from_bytes(pyc[4:8], "little") == 0
                and int.from_bytes(pyc[8:12], "little") == int(st.st_mtime) & 0xFFFFFFFF
                and int.from_bytes(pyc[12:16], "little") == st.st_size & 0xFFFFFFFF):
            return pyc[16:]
    except (OSError, ValueError, NotImplementedError):
        pass
    with open(origin, "rb") as fh:
        source = fh.read()
    return marshal.dumps(compile(source, origin, "exec", dont_inherit=True))


def wanted(finder) -> bool:
    """Should this process write the file: nothing was served, something was stale, or a
    module of ours was imported the standard way?"""
    if finder is None:
        return True
    if finder.stale:
        return True
    return any(_eligible(n, m) and n not in finder.served
               for n, m in list(sys.modules.items()))


def refresh(finder, env=None) -> None:
    """Write the file with the modules this process imported (and those of the old file
    still current), when it is missing or out of date. Never raises."""
    env = os.environ if env is None else env
    if env.get("GATEWAY_CODE_CACHE") == "0":
        return
    tmp = None
    try:
        if not wanted(finder):
            return
        from gateway import __version__

        entries = {}
        for name, module in list(sys.modules.items()):
            if not _eligible(name, module):
                continue
            origin = module.__file__
            st = os.stat(origin)
            entries[name] = (origin, hasattr(module, "__path__"), st.st_mtime_ns, st.st_size,
                             _code(origin, st))
        if finder is not None:  # keep what other hooks imported, while it is current
            for name, (origin, package, mtime_ns, size, _off, _len) in finder.index.items():
                if name in entries:
                    continue
                try:
                    st = os.stat(origin)
                except OSError:
                    continue
                if st.st_mtime_ns == mtime_ns and st.st_size == size:
                    entries[name] = (origin, package, mtime_ns, size, finder.code(name))
        index, chunks, offset = {}, [], 0
        for name in sorted(entries):
            origin, package, mtime_ns, size, code = entries[name]
            index[name] = (origin, package, mtime_ns, size, offset, len(code))
            chunks.append(code)
            offset += len(code)
        head = marshal.dumps((FORMAT, _magic(), __version__, index))
        data = len(head).to_bytes(4, "little") + head + b"".join(chunks)
        path = _path(env)
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        tmp = f"{path}.{os.getpid()}-{os.urandom(4).hex()}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                     0o600)
        with open(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
        tmp = None
    except Exception:
        pass  # an optimisation: the next call imports the standard way and tries again
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
