"""Load the effective policy fast: a compiled cache keyed by the content of every rules file.

The hook runs once per tool call, and validating YAML with pydantic costs more than the whole
rest of the decision. So the merged policy is cached as JSON in the user's cache directory,
together with a digest of every rules file it was built from (built-in, user, project, local;
"absent" for a built-in or user file that does not exist). Any change to any of them,
including a file appearing or disappearing, is a different digest and a recompile: a rules
change is never ignored. A cache file that does not parse or does not have the expected shape
is ignored and rebuilt; the cache directory is listed among the protected paths.

One compile for all projects without rules of their own: when a project has neither
`.claude/gateway.yaml` nor `.claude/gateway.local.yaml`, its policy *is* the built-in + user
policy, and the cache key and header list only those layers. Every such project shares that
one compiled file (the first call of a new project compiles nothing); a project file
appearing adds its layer to the key, so it is compiled then, once.

One compile at a time: on a miss the caller takes an exclusive `flock` on
`policy-<key>.json.lock` before compiling, and looks at the cache again once it holds it.
Callers that find the lock taken wait for it with a shared lock (all of them get it together
when the compile ends) and read what the compiler wrote. A compile that fails with a rules
error is cached too (the errors, under the same digests), so the waiters report it instead
of compiling it again one after another; it can never be read as a policy. A compiler that
dies releases its lock with it; the next caller compiles. A caller that has waited
COMPILE_WAIT seconds, or cannot use the lock file, compiles on its own: the lock saves work,
it is never needed for a correct answer. (200 concurrent first calls of a project used to
take up to a minute on two cores; docs/performance.md has the figures.)

Against a tampered or corrupt file: the file is one header line (format, gateway version,
the compiling code's identity, the source digests, and a digest and size of the body) and
the policy as JSON; a body that
does not match its digest is ignored, and so is a file not owned by the current user or
writable by anyone else (another local user could have written it), or anything that is not
a regular file (opened without following links or blocking). Nobody can stop the user's own
processes from rewriting both parts; that is what the protected paths are for.

Rules files are read by gateway.configfile: a FIFO, device, directory or dangling link at a
rules path is a located error (no allow), never absent and never a hang.

Long-running processes (`gateway serve`, `check --batch`) keep the loaded Policy in memory,
keyed by the same source digests, which are recomputed on every call: a rules change is
seen by the very next decision.
"""

import os

from gateway import __version__
from gateway import _fastjson as json
from gateway.cachedir import cache_dir  # noqa: F401  (callers use cache.cache_dir)
from gateway.policy.compiled import Policy
from gateway.policy.load import MAX_RULES_FILE, layer_paths

try:
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - non-CPython
    from hashlib import blake2b

_FORMAT = 23  # 3: catalogue entries carry `recursive`; 4: `response_files`; 5: `revision_paths`;
#               6: `config_flags`; 7: `prints_contents`; 8: `verified`, cached rules errors;
#               9: `autorun`; 10: `edit`; 11: `into_directory`; 12: `options`,
#               secrets.backup_suffixes, allowlists (optional_flags, info_flags, reads);
#               13: one line per catalogue entry, decoded on use
#               14: the effects model (`effects`, output_flags, tree_flags, wrappers' runner)
#               15: options_first, plus_commands, dry_run, own_options
#               16: the catalogue's names on one line (one json.loads, not one per entry)
#               17: effects.git's subcommands (forms, outputs, option lists), each a
#                   JSON string decoded on use
#               18: secrets.env_files (the env-file name grammar)
#               19: secrets.content (the content scanner's settings)
#               20: client_sensitive (the client's own sensitive files)
#               21: remote_arguments (URLs are network)
#               22: state_inputs (what tools read besides their arguments)
#               23: dependency_caches (reads outside the project, issue 25)
#: Policies loaded by this process: cache path -> (sources, Policy). Bounded.
_LOADED = {}
_LOADED_MAX = 16
#: Seconds a caller waits for another process's compile before it compiles on its own.
COMPILE_WAIT = 30.0
_MAX_CACHE_FILE = 16 << 20
#: Layers a project can ship; absent, they are left out of the key (see the docstring).
_PROJECT_LAYERS = ("project", "local")


def _digest_file(path: str):
    """The file's digest, None when absent, "unreadable: <problem>" when it is there but
    cannot be used (unreadable is not absent: it must not silently drop a layer)."""
    from gateway import configfile

    try:
        data = configfile.read(path, MAX_RULES_FILE)
    except configfile.ConfigFileError as exc:
        return "unreadable: " + exc.problem
    if data is None:
        return None
    return blake2b(data, digest_size=20).hexdigest()


def source_digests(project_dir, env=None) -> list:
    """[[layer, path, digest]] of the files the policy is built from; the project layers
    only when they exist (or are there but unusable)."""
    out = []
    for layer, path in layer_paths(project_dir, env):
        digest = _digest_file(path)
        if digest is None and layer in _PROJECT_LAYERS:
            continue
        out.append([layer, path, digest])
    return out


#: The modules that decide what rules compile to (and whether they are valid): their
#: identity is part of every entry, so a changed gateway at the same version string (a
#: development install, a patched copy) never gets a policy, or a rules *error*, compiled
#: by the code it replaced.
_CODE_FILES = ("models.py", "merge.py", "load.py", "compiled.py", "spec.py", "effects.py",
               "yamlsafe.py", "errors.py", "invocation.py", "cache.py")
_CODE_ID = None


def _code_identity() -> str:
    """A digest of the size and modification time of _CODE_FILES (one stat each, once per
    process); "unknown" files make a digest no entry written by a complete install has."""
    global _CODE_ID
    if _CODE_ID is None:
        here = os.path.dirname(os.path.abspath(__file__))
        parts = []
        for name in _CODE_FILES:
            try:
                st = os.stat(os.path.join(here, name))
                parts.append(f"{name}:{st.st_size}:{st.st_mtime_ns}")
            except OSError:
                parts.append(f"{name}:?")
        _CODE_ID = blake2b("\n".join(parts).encode(), digest_size=10).hexdigest()
    return _CODE_ID


def _cache_path(sources, env) -> str:
    key = blake2b("\0".join(p for _, p, _ in sources).encode("utf-8", "surrogatepass"),
                  digest_size=12).hexdigest()
    return os.path.join(cache_dir(env), f"policy-{key}.json")


def _read_cache(path: str, sources, verified: bool):
    """The cached Policy, a cached PolicyError (raised), or None (no usable entry)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if (st.st_uid != os.getuid() or st.st_mode & 0o022 or (st.st_mode & 0o170000)
                != 0o100000 or st.st_size > _MAX_CACHE_FILE or st.st_nlink != 1):
            # someone else could have written it (or could, in place, through a second
            # name: a hard link), or not a file: compile
            return None
        with open(fd, "rb", closefd=False) as fh:
            data = fh.read(_MAX_CACHE_FILE + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    try:
        head, sep, body = data.partition(b"\n")
        if not sep:
            return None
        header = json.loads(head)
        if not (header.get("format") == _FORMAT and header.get("gateway") == __version__
                and header.get("code") == _code_identity()
                and header.get("sources") == sources and header.get("size") == len(body)
                and header.get("digest") == blake2b(body, digest_size=20).hexdigest()
                and (header.get("verified") is True or not verified)):
            return None
        value = _decode(body, header.get("kind"))
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    if header.get("kind") == "errors":
        if isinstance(value, list) and value and all(isinstance(e, str) for e in value):
            from gateway.policy.errors import PolicyError

            raise PolicyError(value)
        return None
    if header.get("kind") == "policy" and isinstance(value, dict):
        try:
            return Policy(value)
        except (KeyError, TypeError, AttributeError, ValueError):
            return None
    return None


def _encode(value, kind: str) -> bytes:
    """The body of a cache file. A policy is its JSON without the catalogue on the first line,
    the catalogue's names (one JSON array) on the second, then one line per catalogue entry
    in the same order (the entry's JSON): a hook call decodes only the entries of the
    commands it meets (the catalogue is most of the file; decoding all of it was most of the
    load, and so was decoding each name on its own line). The git subcommands of the effects
    model stay JSON strings on the first line for the same reason."""
    if kind != "policy":
        return json.dumps(value, separators=(",", ":")).encode("utf-8")
    if not isinstance(value.get("catalogue"), dict):
        raise TypeError("a policy without its catalogue")  # not cached
    rest = {k: v for k, v in value.items() if k != "catalogue"}
    git = (rest.get("effects") or {}).get("git")
    if isinstance(git, dict) and isinstance(git.get("subcommands"), dict):
        # each git subcommand's forms as a JSON string: decoded when a command meets it
        # (gateway.policy.effects.Model.git_forms), not on every load
        rest["effects"] = dict(rest["effects"], git=dict(git, subcommands={
            k: v if isinstance(v, str) else json.dumps(v, separators=(",", ":"))
            for k, v in git["subcommands"].items()}))
    names = list(value["catalogue"])
    lines = [json.dumps(rest, separators=(",", ":")), json.dumps(names, separators=(",", ":"))]
    for name in names:
        lines.append(json.dumps(value["catalogue"][name], separators=(",", ":")))
    return "\n".join(lines).encode("utf-8")


def _decode(body: bytes, kind):
    """The inverse of _encode; catalogue entries stay bytes until Policy.command decodes one.
    Raises ValueError on a body that is not what _encode writes."""
    if kind != "policy":
        return json.loads(body)
    first, names, *entries = body.split(b"\n")
    value = json.loads(first)
    if not isinstance(value, dict) or "catalogue" in value:
        raise ValueError("not a policy")
    names = json.loads(names)
    if (not isinstance(names, list) or len(names) != len(entries)
            or not all(isinstance(n, str) for n in names) or len(set(names)) != len(names)):
        raise ValueError("the catalogue's names do not match its entries")
    value["catalogue"] = dict(zip(names, entries, strict=True))
    return value


def _write_cache(path: str, sources, value, kind: str, verified: bool) -> None:
    tmp = None
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        body = _encode(value, kind)
        head = json.dumps({"format": _FORMAT, "gateway": __version__, "code": _code_identity(),
                           "sources": sources,
                           "kind": kind, "verified": verified, "size": len(body),
                           "digest": blake2b(body, digest_size=20).hexdigest()},
                          separators=(",", ":")).encode("utf-8")
        tmp = f"{path}.{os.getpid()}-{os.urandom(4).hex()}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                     0o600)
        with open(fd, "wb") as fh:
            fh.write(head + b"\n" + body)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        tmp = None
        _sweep_temps(path)
    except (OSError, ValueError, TypeError):
        pass  # the cache is an optimisation; the next call compiles again
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _sweep_temps(path: str) -> None:
    """Remove temp files of this cache file left by compilers that were killed."""
    d, base = os.path.split(path)
    try:
        names = os.listdir(d)
    except OSError:
        return
    for name in names:
        if not (name.startswith(base + ".") and name.endswith(".tmp")):
            continue
        try:
            pid = int(name[len(base) + 1:].split("-", 1)[0])
        except ValueError:
            continue
        if pid == os.getpid():
            continue
        try:
            os.kill(pid, 0)
            continue        # still running (or not ours to judge)
        except ProcessLookupError:
            pass
        except OSError:
            continue
        try:
            os.unlink(os.path.join(d, name))
        except OSError:
            pass


def _remember(path, sources, policy):
    if len(_LOADED) >= _LOADED_MAX:
        _LOADED.pop(next(iter(_LOADED)), None)
    _LOADED[path] = (sources, policy)
    return policy


class _CompileLock:
    """The cross-process lock of one cache file (see the module docstring). ``fd`` is None
    when the lock file cannot be used; then everyone compiles on their own."""

    def __init__(self, path: str):
        self.fd = None
        lock = path + ".lock"
        try:
            os.makedirs(os.path.dirname(lock), mode=0o700, exist_ok=True)
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK
                         | os.O_CLOEXEC, 0o600)
        except OSError:
            return
        try:
            st = os.fstat(fd)
            ok = (st.st_mode & 0o170000) == 0o100000 and st.st_uid == os.getuid()
        except OSError:
            ok = False
        if ok:
            self.fd = fd
        else:
            os.close(fd)

    def try_exclusive(self) -> bool:
        import fcntl

        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except OSError:
            return False

    def wait_shared(self, deadline: float) -> bool:
        """Wait (polling, no signals) until no compile holds the lock; hold it shared."""
        import fcntl
        import time

        delay = 0.002
        while True:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                return True
            except OSError:
                pass
            now = time.monotonic()
            if now >= deadline:
                return False
            time.sleep(min(delay, deadline - now))
            delay = min(delay * 2, 0.02)

    def release(self) -> None:
        import fcntl

        try:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
        except OSError:
            pass

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def load_policy(project_dir, env=None, verify=None, use_cache=True) -> Policy:
    """The effective policy for `project_dir`.

    `verify(merged)` is called on a fresh compile (the rule examples check) and may raise
    PolicyError. Raises PolicyError when the rules cannot be loaded.
    """
    sources = source_digests(project_dir, env)
    bad = [(p, d) for _, p, d in sources if d and d.startswith("unreadable:")]
    if bad:
        from gateway.policy.errors import PolicyError
        raise PolicyError([f"{p}: {d[len('unreadable: '):]}" for p, d in bad])
    if not use_cache:
        return Policy(_compile(project_dir, env, verify).policy)
    path = _cache_path(sources, env)
    known = _LOADED.get(path)
    if known is not None and known[0] == sources:
        return known[1]
    cached = _read_cache(path, sources, verify is not None)
    if cached is not None:
        return _remember(path, sources, cached)
    return _compile_once(project_dir, env, verify, sources, path)


def _compile(project_dir, env, verify):
    from gateway.policy.merge import merge

    merged = merge(project_dir, env)
    if verify is not None:
        verify(merged)
    return merged


def _compile_once(project_dir, env, verify, sources, path) -> Policy:
    """Compile under the cache file's lock, or read what the process holding it wrote."""
    import time

    lock = _CompileLock(path)
    deadline = time.monotonic() + COMPILE_WAIT
    try:
        while lock.fd is not None:
            if lock.try_exclusive():
                try:
                    cached = _read_cache(path, sources, verify is not None)
                    if cached is not None:
                        return _remember(path, sources, cached)
                    return _compile_and_store(project_dir, env, verify, sources, path)
                finally:
                    lock.release()
            if not lock.wait_shared(deadline):
                break       # waited long enough: compile without the lock
            try:
                cached = _read_cache(path, sources, verify is not None)
            finally:
                lock.release()
            if cached is not None:
                return _remember(path, sources, cached)
            if time.monotonic() >= deadline:
                break
            # the compiler died or wrote nothing usable: compile (or wait for whoever does)
    finally:
        lock.close()
    return _compile_and_store(project_dir, env, verify, sources, path)


def _compile_and_store(project_dir, env, verify, sources, path) -> Policy:
    from gateway.policy.errors import PolicyError

    try:
        merged = _compile(project_dir, env, verify)
    except PolicyError as exc:
        if source_digests(project_dir, env) == sources:
            _write_cache(path, sources, list(exc.errors), "errors", verify is not None)
        raise
    if source_digests(project_dir, env) == sources:
        _write_cache(path, sources, merged.policy, "policy", verify is not None)
        return _remember(path, sources, Policy(merged.policy))
    return Policy(merged.policy)
