"""The content scanner's worker: `python -m gateway.secrets.scan --root DIR --key KEY
[--plugin NAME]... -- FILE...`, started by gateway.secrets.content on a cache miss (and by
`gateway secrets scan`). It runs Yelp's detect-secrets with the configured plugins and its
default filters on each file and records the verdict under the file's identity; it also
writes the prefilter the hook uses for the next misses.

Why detect-secrets: it is the field's Python library (pre-commit hooks, baselines), its
detectors cover the credentials projects hold (AWS, GitHub, GitLab, Slack, Stripe, OpenAI,
PyPI, npm, private keys, basic auth in URLs, keywords such as password/secret/api_key in
INI, YAML, JSON and shell assignments, through its file transformers), and it has a plugin
API for more. Its last release is 1.5.0 (2024): the forks (bc-detect-secrets) are newer but
carry fewer detectors. docs/security.md records the choice and its cost.

A verdict is recorded only when the file had the same identity before and after the scan
(a concurrent rewrite is not cached: the next call scans again).
"""

import os
import sys

from gateway.secrets import content as contentmod


def prefilter_lines(plugin_classes):
    """"<flags>\\t<pattern>" lines, one per regex of the plugins that are regex detectors,
    plus the keyword plugin's denylist (case-insensitive); None when a plugin is neither (a
    high-entropy detector: every file must be scanned)."""
    import re

    from detect_secrets.plugins.base import RegexBasedDetector

    out = []
    for cls in plugin_classes:
        if cls.__name__ == "KeywordDetector":
            from detect_secrets.plugins import keyword

            out.append(f"{int(re.IGNORECASE)}\t(?:{'|'.join(keyword.DENYLIST)})")
            continue
        if not (isinstance(cls, type) and issubclass(cls, RegexBasedDetector)):
            return None
        for rx in cls.denylist:
            if "\n" in rx.pattern and not rx.flags & re.VERBOSE:
                return None
            pattern = rx.pattern
            if rx.flags & re.VERBOSE:
                pattern = re.sub(r"\s+#[^\n]*|\s+", "", pattern)  # one line, no comments
                try:
                    re.compile(pattern, rx.flags & ~re.VERBOSE)
                except re.error:
                    return None
            out.append(f"{int(rx.flags & ~re.VERBOSE & ~re.UNICODE)}\t{pattern}")
    return out


#: The gateway's own detectors (gateway/secrets/plugins.py), by class name.
OWN_PLUGINS = ("AnthropicKeyDetector", "TokenAssignmentDetector",
               "CredentialAssignmentDetector", "AuthorizationHeaderDetector")


def plugins_used(names):
    """detect-secrets' `plugins_used` setting for these plugin names: the library's by name,
    the gateway's own by the path of their file (the library's custom-plugin form)."""
    own = "file://" + os.path.join(os.path.dirname(os.path.abspath(__file__)), "plugins.py")
    return [{"name": n, "path": own} if n in OWN_PLUGINS else {"name": n} for n in names]


def _classes(names):
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    by_name = {c.__name__: c for c in get_mapping_from_secret_type_to_class().values()}
    missing = [n for n in names if n not in by_name]
    if missing:
        raise SystemExit(f"unknown detect-secrets plugins: {', '.join(missing)}")
    return [by_name[n] for n in names]


def _write_prefilter(root, skey, classes):
    path = os.path.join(root, skey + ".prefilter")
    if os.path.exists(path):
        return
    lines = prefilter_lines(classes)
    if lines is None:
        return
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        with open(tmp, "x", encoding="utf-8") as fh:
            os.chmod(tmp, 0o600)
            fh.write("gateway-prefilter 1\n" + "\n".join(lines) + "\n")
        os.replace(tmp, path)
    except OSError:
        pass


def scan_one(path):
    """(kind, detail) for one file by detect-secrets' scan_file under the active settings."""
    from detect_secrets.core.scan import scan_file

    for secret in scan_file(path):
        article = "an" if secret.type[:1].upper() in "AEIOU" else "a"
        return (contentmod.SECRET, f"detect-secrets finds {article} {secret.type} on line "
                f"{secret.line_number}")
    return (contentmod.CLEAN, "")


def _blob_name(name) -> bool:
    """blob-<hex>[.<ext>] or member-<hex>[.<ext>] (gateway.secrets.blobs.key)."""
    kind, _, rest = name.partition("-")
    sha, _, ext = rest.partition(".")
    return (kind in ("blob", "member") and len(sha) >= 40
            and set(sha) <= set("0123456789abcdef")
            and (not ext or (ext.isalnum() and ext.isascii() and len(ext) <= 10)))


def _remove(path):
    try:
        os.unlink(path)
    except OSError:
        pass


def _lean_imports():
    """The worker's cold start without what it never uses (docs/performance.md, "The content
    scanner"): detect-secrets imports `requests` (60% of its import time) only to verify a
    secret it found with the service that issued it, which the gateway never asks for (the
    verification filter is not configured): a stand-in takes its place whose every request
    raises, so no found secret can ever leave the machine from here. Nothing the scanner's
    detectors or filters run changes. Does nothing when `requests` is loaded already.
    (`multiprocessing`, 5% more, cannot be deferred: importlib's LazyLoader loads a module
    on the import statement's own `__spec__` look-up in Python 3.11.)"""
    import types

    if "requests" not in sys.modules:
        req = types.ModuleType("requests")
        exc = types.ModuleType("requests.exceptions")

        class RequestException(OSError):
            pass

        def refuse(*_a, **_k):
            raise RequestException("the gateway's content scanner makes no network requests")

        exc.RequestException = RequestException
        req.exceptions = exc
        req.RequestException = RequestException
        req.Response = type("Response", (), {})  # named in annotations at import time
        req.get = req.post = req.put = req.request = refuse
        sys.modules["requests"] = req
        sys.modules["requests.exceptions"] = exc


#: The worker outlives the hook that started it (it goes on filling the cache); the kernel
#: ends it after this much CPU time, so a scan that never finishes (a huge tree, a file the
#: library is slow on) cannot burn a core for hours. Verdicts written so far stay; a file
#: with no verdict is unscanned, and a read of it asks (GW511).
CPU_SECONDS = 120


def _limit_cpu(seconds):
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
        used = resource.getrusage(resource.RUSAGE_SELF)
        seconds += int(used.ru_utime + used.ru_stime) + 1  # the limit counts from start
        if hard != resource.RLIM_INFINITY:
            seconds = min(seconds, hard)
        resource.setrlimit(resource.RLIMIT_CPU, (seconds, hard))
    except (ImportError, ValueError, OSError):
        pass


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    root = key = None
    plugins = []
    cpu_seconds = CPU_SECONDS
    while argv and argv[0] != "--":
        opt = argv.pop(0)
        if opt == "--cpu-seconds":
            cpu_seconds = int(argv.pop(0))
        elif opt == "--root":
            root = argv.pop(0)
        elif opt == "--key":
            key = argv.pop(0)
        elif opt == "--plugin":
            plugins.append(argv.pop(0))
        else:
            raise SystemExit(f"unknown option {opt}")
    files = argv[1:]
    blobs = bool(files) and files[0] == "--blobs"
    if blobs:
        # versions from git's history and archives' members (gateway.secrets.blobs): each
        # file is named by its cache entry (blob-<id>, member-<sha1>), in <root>/blobtmp;
        # the verdict is kept under that name and the copy removed
        files = [f for f in files[1:] if os.path.dirname(os.path.abspath(f))
                 == os.path.join(os.path.abspath(root), "blobtmp")
                 and _blob_name(os.path.basename(f))]
    if not (root and key and plugins):
        raise SystemExit("usage: --root DIR --key KEY --plugin NAME... -- FILE...")
    _limit_cpu(cpu_seconds)
    os.makedirs(root, mode=0o700, exist_ok=True)
    entry_dir = os.path.join(root, key)
    _lean_imports()
    from detect_secrets.settings import transient_settings

    with transient_settings({"plugins_used": plugins_used(plugins)}):
        _write_prefilter(root, key, _classes(plugins))
        for path in files:
            try:
                before = os.stat(path)
            except OSError:
                continue
            try:
                kind, detail = scan_one(path)
            except Exception as exc:  # noqa: BLE001 - a file the scanner fails on is unscanned
                print(f"{path}: {exc}", file=sys.stderr)
                if blobs:
                    _remove(path)
                continue
            if blobs:
                contentmod.write_entry(entry_dir, os.path.basename(path), kind, detail)
                _remove(path)
                continue
            try:
                after = os.stat(path)
            except OSError:
                continue
            if contentmod.identity(before) == contentmod.identity(after):
                contentmod.write_entry(entry_dir, contentmod.identity(after), kind, detail)
    return 0


if __name__ == "__main__":
    sys.exit(main())
