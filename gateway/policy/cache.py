"""Load the effective policy fast: a compiled cache keyed by the content of every rules file.

The hook runs once per tool call, and validating YAML with pydantic costs more than the whole
rest of the decision. So the merged policy is cached as JSON in the user's cache directory,
together with a digest of every rules file it was built from (built-in, user, project, local,
and "absent" for files that do not exist). Any change to any of them, including a file
appearing or disappearing, is a different digest and a recompile: a rules change is never
ignored. A cache file that does not parse or does not have the expected shape is ignored and
rebuilt; the cache directory is listed among the protected paths.

Against a tampered or corrupt file: the file is one header line (format, gateway version,
the source digests, and a digest and size of the body) and the policy as JSON; a body that
does not match its digest is ignored, and so is a file not owned by the current user or
writable by anyone else (another local user could have written it). Nobody can stop the
user's own processes from rewriting both parts; that is what the protected paths are for.

Long-running processes (`gateway serve`, `check --batch`) keep the loaded Policy in memory,
keyed by the same source digests, which are recomputed on every call: a rules change is
seen by the very next decision.
"""

import json
import os

from gateway import __version__
from gateway.policy.compiled import Policy
from gateway.policy.load import layer_paths

try:
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - non-CPython
    from hashlib import blake2b

_FORMAT = 9  # 3: catalogue entries carry `recursive`; 4: `response_files`; 5: `revision_paths`;
#               6: `config_flags`; 7: `prints_contents`; 8: `autorun`; 9: `edit`
#: Policies loaded by this process: cache path -> (sources, Policy). Bounded.
_LOADED = {}
_LOADED_MAX = 16


def cache_dir(env=None) -> str:
    env = os.environ if env is None else env
    explicit = env.get("GATEWAY_CACHE_DIR")
    if explicit:
        return explicit
    base = env.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "gateway")


def _digest_file(path: str):
    try:
        with open(path, "rb") as fh:
            return blake2b(fh.read(), digest_size=20).hexdigest()
    except FileNotFoundError:
        return None
    except OSError as exc:
        # unreadable is not absent: it must not silently drop a layer
        return f"unreadable:{exc.errno}"


def source_digests(project_dir, env=None) -> list:
    return [[layer, path, _digest_file(path)] for layer, path in layer_paths(project_dir, env)]


def _cache_path(sources, env) -> str:
    key = blake2b("\0".join(p for _, p, _ in sources).encode("utf-8", "surrogatepass"),
                  digest_size=12).hexdigest()
    return os.path.join(cache_dir(env), f"policy-{key}.json")


def _read_cache(path: str, sources):
    try:
        with open(path, "rb") as fh:
            st = os.fstat(fh.fileno())
            if st.st_uid != os.getuid() or st.st_mode & 0o022:
                return None  # someone else could have written it: compile instead
            data = fh.read()
        head, sep, body = data.partition(b"\n")
        if not sep:
            return None
        header = json.loads(head)
        if (header.get("format") == _FORMAT and header.get("gateway") == __version__
                and header.get("sources") == sources and header.get("size") == len(body)
                and header.get("digest") == blake2b(body, digest_size=20).hexdigest()):
            policy = json.loads(body)
            if isinstance(policy, dict):
                return Policy(policy)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass
    return None


def _write_cache(path: str, sources, policy_data) -> None:
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        body = json.dumps(policy_data, separators=(",", ":")).encode("utf-8")
        head = json.dumps({"format": _FORMAT, "gateway": __version__, "sources": sources,
                           "size": len(body),
                           "digest": blake2b(body, digest_size=20).hexdigest()},
                          separators=(",", ":")).encode("utf-8")
        tmp = f"{path}.{os.getpid()}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with open(fd, "wb") as fh:
            fh.write(head + b"\n" + body)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except (OSError, ValueError, TypeError):
        pass  # the cache is an optimisation; the next call compiles again


def _remember(path, sources, policy):
    if len(_LOADED) >= _LOADED_MAX:
        _LOADED.pop(next(iter(_LOADED)), None)
    _LOADED[path] = (sources, policy)
    return policy


def load_policy(project_dir, env=None, verify=None, use_cache=True) -> Policy:
    """The effective policy for `project_dir`.

    `verify(merged)` is called on a fresh compile (the rule examples check) and may raise
    PolicyError. Raises PolicyError when the rules cannot be loaded.
    """
    sources = source_digests(project_dir, env)
    bad = [p for _, p, d in sources if d and d.startswith("unreadable:")]
    if bad:
        from gateway.policy.errors import PolicyError
        raise PolicyError([f"{p}: cannot read this rules file" for p in bad])
    path = _cache_path(sources, env)
    if use_cache:
        known = _LOADED.get(path)
        if known is not None and known[0] == sources:
            return known[1]
        cached = _read_cache(path, sources)
        if cached is not None:
            return _remember(path, sources, cached)
    from gateway.policy.merge import merge

    merged = merge(project_dir, env)
    if verify is not None:
        verify(merged)
    if use_cache and source_digests(project_dir, env) == sources:
        _write_cache(path, sources, merged.policy)
        return _remember(path, sources, Policy(merged.policy))
    return Policy(merged.policy)
