"""What the fuzz harnesses share: an isolated environment, the sample project, atheris set-up
(coverage instrumentation of gateway and bashlex), the per-input time limit, the failure
type, and the counters `fuzz/run.py` prints.

Every harness is a script: `python fuzz/fuzz_<name>.py [libFuzzer flags] [corpus dirs or
files]`. With atheris installed that is a libFuzzer run (files only: replay them once);
without it, a fallback replays the given files and, with -max_total_time, mutates them at
random with the same oracles (see `_fallback`).
"""

import atexit
import contextlib
import json
import os
import random
import shlex
import shutil
import sys
import tempfile
import time

FUZZ_DIR = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(FUZZ_DIR)
for _p in (FUZZ_DIR, REPO):
    if _p not in sys.path:
        sys.path.insert(0, _p)

try:
    import atheris
except ImportError:  # pragma: no cover - see _fallback
    atheris = None

#: One input taking longer than this (seconds, wall clock, in-process) is a failure: a hang
#: in the hook is a hook that never answers. libFuzzer's -timeout catches real infinite loops.
SLOW_SECONDS = float(os.environ.get("GATEWAY_FUZZ_SLOW_SECONDS", "2.0"))
STATS_EVERY = 1.0


_PATH_FLAGS = ("-dict=", "-artifact_prefix=", "-exact_artifact_path=", "-seed_inputs=",
               "-minimize_crash_internal_step=", "-merge_control_file=", "-features_dir=")


def _absolute_argv(argv, cwd):
    """Paths in libFuzzer's arguments made absolute: a harness may chdir (the hook runs in
    its project) before libFuzzer reads them."""
    out = [argv[0]]
    for a in argv[1:]:
        if not a.startswith("-"):
            a = os.path.join(cwd, a)
        else:
            for flag in _PATH_FLAGS:
                if a.startswith(flag) and not a[len(flag):].startswith("/"):
                    keep_slash = a.endswith("/")
                    a = flag + os.path.join(cwd, a[len(flag):]) + ("/" if keep_slash and
                                                                   not a.endswith("/") else "")
        out.append(a)
    return out


sys.argv = _absolute_argv(sys.argv, os.getcwd())


class Failure(AssertionError):
    """An oracle violation. Uncaught, it is a libFuzzer crash: the input is saved."""


def fail(kind: str, message: str):
    raise Failure(f"[{kind}] {message}")


# --- environment ----------------------------------------------------------------------------

def isolate(name: str) -> str:
    """A private temporary directory for this process, set as HOME, cache, user rules and
    state locations (no real user file leaks in, nothing leaks out), audit log off.
    Returns the directory; it is removed when the process exits normally."""
    base = os.environ.get("GATEWAY_FUZZ_TMP") or None
    root = os.path.realpath(tempfile.mkdtemp(prefix=f"gateway-fuzz-{name}-", dir=base))
    home = os.path.join(root, "home")
    os.makedirs(home)
    os.environ.update({
        "HOME": home,
        "GATEWAY_USER_RULES": os.path.join(home, "no-user-rules.yaml"),
        "GATEWAY_CACHE_DIR": os.path.join(root, "cache"),
        "GATEWAY_AUDIT_LOG": "off",
        "GATEWAY_RESIDENT": "off",
        "XDG_CONFIG_HOME": os.path.join(home, ".config"),
        "XDG_STATE_HOME": os.path.join(home, ".state"),
        "XDG_CACHE_HOME": os.path.join(home, ".cache"),
        "CLAUDE_CONFIG_DIR": os.path.join(home, ".claude"),
    })
    os.environ.pop("CLAUDE_PROJECT_DIR", None)
    atexit.register(shutil.rmtree, root, True)
    return root


def sample_project(root: str, name: str = "project") -> str:
    """The property suite's sample project (tests/property/support.py): files, secrets,
    scripts/, and symlinks that lead out (lnk -> /etc, uplink -> .., ...)."""
    from tests.property.support import build_project

    path = os.path.join(root, name)
    os.makedirs(path)
    return build_project(path)


@contextlib.contextmanager
def instrumented():
    """Imports inside this block are instrumented for coverage (gateway, bashlex, yaml)."""
    if atheris is None:
        yield
        return
    with atheris.instrument_imports(include=["gateway", "bashlex", "yaml"]):
        yield


def is_open(bug: str) -> bool:
    import known_bugs

    return known_bugs.is_open(bug)


# --- bash as a second opinion -------------------------------------------------------------

_BASH = shutil.which("bash")


def bash_parses(text: str):
    """Does `bash -n` (parse only: nothing is run) accept the text? None: no bash here.
    The oracle's deny claims (rare) are checked with it: bash runs nothing of a line with a
    syntax error, so a deny is only expected for text bash parses."""
    if _BASH is None or "\x00" in text:
        return None
    import subprocess

    try:
        res = subprocess.run([_BASH, "--norc", "--noprofile", "-n", "-c", text],
                             capture_output=True, timeout=10, env={"PATH": "/usr/bin:/bin"})
    except (subprocess.TimeoutExpired, OSError, ValueError):
        return None
    return res.returncode == 0


def confirm_deny(claims, text, stats):
    """Keep the oracle's deny claims only if bash parses the text (else: no allow only)."""
    if claims.deny and bash_parses(claims.certain_text or text) is False:
        stats.add("deny_claims_bash_rejected")
        claims.no_allow.extend(claims.deny)
        claims.deny = []
    return claims


# --- counters -------------------------------------------------------------------------------

class Stats:
    """Counters printed as one `fuzz-stats <harness> {json}` line on stderr every few
    seconds and at the end (fuzz/run.py reports the last one)."""

    def __init__(self, name):
        self.name = name
        self.counts = {}
        self.last = time.monotonic()
        self.slowest = 0.0

    def add(self, key, n=1):
        self.counts[key] = self.counts.get(key, 0) + n

    def tick(self, elapsed):
        self.counts["inputs"] = self.counts.get("inputs", 0) + 1
        if elapsed > self.slowest:
            self.slowest = elapsed
        now = time.monotonic()
        if now - self.last >= STATS_EVERY:
            self.last = now
            self.emit()

    def emit(self):
        data = dict(self.counts, slowest_ms=round(self.slowest * 1000, 1))
        sys.stderr.write(f"fuzz-stats {self.name} {json.dumps(data, sort_keys=True)}\n")
        sys.stderr.flush()


# --- running --------------------------------------------------------------------------------

def timed(stats: Stats, one_input):
    """The harness entry: one input, the time limit, the counters."""

    def run(data: bytes):
        start = time.perf_counter()
        one_input(data)
        elapsed = time.perf_counter() - start
        stats.tick(elapsed)
        if elapsed > SLOW_SECONDS:
            fail("slow", f"one input took {elapsed:.2f}s (limit {SLOW_SECONDS}s, "
                 "GATEWAY_FUZZ_SLOW_SECONDS)")

    return run


def main(stats: Stats, one_input, dictionary=None):
    """Fuzz with atheris (libFuzzer flags and corpus directories from sys.argv)."""
    run = timed(stats, one_input)
    atexit.register(stats.emit)
    if atheris is None:
        sys.exit(_fallback(stats, run, sys.argv[1:], dictionary))
    # libFuzzer re-runs argv[0] through the shell for -minimize_crash, -fork and -merge: make
    # it "python harness.py", which a shell can run (the script itself is not executable).
    argv0 = f"{shlex.quote(sys.executable)} {shlex.quote(os.path.abspath(sys.argv[0]))}"
    atheris.Setup([argv0] + sys.argv[1:], run)
    atheris.Fuzz()


def _fallback(stats, run, args, dictionary) -> int:  # pragma: no cover - atheris is there
    """Without atheris: replay files and directories; with -max_total_time=N also mutate
    them at random (bytes and dictionary tokens) for N seconds. Exit 1 on a failure."""
    opts = {a[1:].split("=", 1)[0]: a.split("=", 1)[1] for a in args
            if a.startswith("-") and "=" in a}
    paths = [a for a in args if not a.startswith("-")]
    seeds = []
    for p in paths:
        files = [os.path.join(p, f) for f in sorted(os.listdir(p))] if os.path.isdir(p) else [p]
        for f in files:
            if os.path.isfile(f):
                with open(f, "rb") as fh:
                    seeds.append((f, fh.read()))
    tokens = _dict_tokens(opts.get("dict") or dictionary)
    sys.stderr.write(f"fallback (no atheris): {len(seeds)} inputs, random mutation\n")

    def attempt(label, data):
        try:
            run(data)
        except Exception as exc:
            crash = os.path.join(opts.get("artifact_prefix", "./"), "crash-fallback")
            with open(crash, "wb") as fh:
                fh.write(data)
            sys.stderr.write(f"==FAILURE== {label}: {type(exc).__name__}: {exc}\n"
                             f"input written to {crash}\n")
            return False
        return True

    for label, data in seeds:
        if not attempt(label, data):
            return 1
    budget = float(opts.get("max_total_time", 0))
    rng = random.Random(int(opts.get("seed", 0)) or None)
    end = time.monotonic() + budget
    runs = len(seeds)
    pool = [d for _, d in seeds] or [b""]
    while time.monotonic() < end:
        data = bytearray(rng.choice(pool))
        for _ in range(rng.randint(1, 4)):
            op = rng.randrange(4)
            at = rng.randint(0, len(data))
            if op == 0 and tokens:
                data[at:at] = rng.choice(tokens)
            elif op == 1 and data:
                del data[at:at + rng.randint(1, 4)]
            elif op == 2 and data:
                data[min(at, len(data) - 1)] = rng.randrange(256)
            else:
                data[at:at] = rng.choice(pool)[:rng.randint(0, 16)]
        runs += 1
        if not attempt("mutated input", bytes(data)):
            return 1
    sys.stderr.write(f"stat::number_of_executed_units: {runs}\n")
    return 0


def _dict_tokens(path):
    if not path or not os.path.exists(path):
        return []
    out = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if line.startswith('"') and line.endswith('"'):
                out.append(line[1:-1].encode("utf-8").decode("unicode_escape").encode(
                    "latin-1"))
    return out
