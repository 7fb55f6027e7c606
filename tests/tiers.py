"""The two test tiers (issue 25): plain `pytest` runs the quick tier, `pytest --full` every
test (what CI runs: .ci/run runs the README's command, which is the full tier).

The quick tier is for the edit-test loop (under 3 minutes on 2 cores): it leaves out the
tests that cost the most time per finding -- the real Claude Code client (a ~364 MB
download on the first run, then a client process per test), the docs pages' examples and
the other tests marked `slow`, the suites listed in FULL_ONLY, and the test functions a
measured run found slow (SLOW_FILE, written by `python -m tests.tiers DURATIONS`): a
function whose cases took more than SLOW_SECONDS in all runs in the full tier only, or,
when each of its cases is cheap, with its first case in the quick tier (one case of a
table is the quick check that the path still works; the table's other rows are CI's).
Every test file keeps at least one test in the quick tier, so an edit anywhere is caught
quickly by something. Nothing is dropped from the full tier: it is every collected test,
exactly as before the tiers existed.

The quick tier applies only to a plain run: no `--full`, no `-m` expression (a marker
expression says itself what to run: `-m realclient` runs the real client) and no file or
directory arguments (`pytest tests/e2e` runs all of tests/e2e). GATEWAY_TESTS=full in the
environment is `--full` too.
"""

from __future__ import annotations

import os

#: Markers whose tests run in the full tier only.
FULL_ONLY_MARKERS = ("realclient", "slow")

#: Files and directories (relative to tests/) whose tests run in the full tier only, and
#: why: the suites that spend seconds per test by design (thousands of generated examples,
#: hundreds of concurrent hook processes, a whole corpus through both hooks and three
#: modes, a 20-task team run).
FULL_ONLY: dict[str, str] = {
    "property/": "hypothesis properties (thousands of generated examples each)",
    "reliability/": "concurrency and crash stress (hundreds of hook processes)",
    "benchmarks/": "the everyday and red-team corpora through both hooks in every mode",
    "e2e/test_long_run.py": "a 20-task /breezing run through the real entry points",
    "shell/test_plain_parse_wide.py": "the parser against bashlex on wide generators "
                                      "(test_plain_parse.py is the quick slice)",
    "orchestration/test_kill9.py": "recording under SIGKILL at random points "
                                   "(state/test_state_crash.py is the quick slice)",
}

OPTION = "--full"

#: The measured slow test functions (see the module's text): `node id<TAB>seconds<TAB>cases
#: <TAB>quick`, quick being "first" (the first case runs in the quick tier) or "none".
SLOW_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "slow-tests.tsv")
#: A test function (all its cases, setup included) slower than this is full-tier only...
SLOW_SECONDS = 1.5
#: ...unless one of its cases takes no longer than this: then its first case stays quick.
CASE_SECONDS = 1.5

_slow_cache = None


def slow() -> dict:
    """{test function node id: "first" | "none"} from SLOW_FILE."""
    global _slow_cache
    if _slow_cache is None:
        out = {}
        try:
            with open(SLOW_FILE, encoding="utf-8") as fh:
                for line in fh:
                    if line.startswith("#") or not line.strip():
                        continue
                    parts = line.rstrip("\n").split("\t")
                    out[parts[0]] = parts[3]
        except OSError:
            pass
        _slow_cache = out
    return _slow_cache


def split(items) -> tuple:
    """(kept, left out) of the collected `items` for the quick tier."""
    keep, left, seen = [], [], set()
    table = slow()
    for item in items:
        if full_only(item):
            left.append(item)
            continue
        base = item.nodeid.split("[", 1)[0]
        rule = table.get(base)
        if rule == "none" or (rule == "first" and base in seen):
            left.append(item)
        else:
            keep.append(item)
        seen.add(base)
    return keep, left


def ignored_path(config, path) -> bool:
    """A directory or file of FULL_ONLY: the quick tier does not even collect it."""
    rel = _rel(config, path)
    return any(rel == p.rstrip("/") for p in FULL_ONLY)


def full_requested(config) -> bool:
    if config.getoption("gateway_full", False):
        return True
    return os.environ.get("GATEWAY_TESTS", "").strip().lower() == "full"


def quick(config) -> bool:
    """True when this run is the quick tier (see the module's text)."""
    if full_requested(config):
        return False
    if config.getoption("markexpr", "") or config.getoption("keyword", ""):
        return False
    source = getattr(config, "args_source", None)
    testpaths = getattr(type(config), "ArgsSource", None)
    if source is None or testpaths is None:
        return False  # an older pytest: run everything (never less than asked)
    return source == testpaths.TESTPATHS


def full_only(item) -> str:
    """Why `item` runs in the full tier only, or ""."""
    for name in FULL_ONLY_MARKERS:
        if item.get_closest_marker(name) is not None:
            return f"marked {name}"
    rel = _relpath(item)
    for path, why in FULL_ONLY.items():
        if rel == path or rel.startswith(path.rstrip("/") + "/"):
            return why
    return ""


def full_only_path(config, path) -> bool:
    """True for a file or directory the quick tier does not even collect (the real-client
    modules install the client when they are imported)."""
    rel = _rel(config, path)
    return rel == "realclient" or rel.startswith("realclient/")


def _relpath(item) -> str:
    return _rel(item.config, item.path)


def _rel(config, path) -> str:
    root = os.path.join(str(config.rootpath), "tests")
    try:
        rel = os.path.relpath(str(path), root)
    except ValueError:
        return ""
    return "" if rel.startswith("..") else rel.replace(os.sep, "/")


# --- writing SLOW_FILE from a measured run -------------------------------------------------


def measure(*durations_texts: str, previous=None) -> list:
    """SLOW_FILE's rows from the outputs of `pytest -p no:randomly --durations=0` (quick or
    full runs; a function's time is the longest of the runs: on a shared machine a run is
    as slow as its load): every test function over SLOW_SECONDS, except that each test file
    keeps its cheapest function. `previous` ({node id: (seconds, cases)}, the rows of
    SLOW_FILE) counts as one more run: a quick run does not run what the table leaves out,
    or runs one case of it, so without it re-measuring from a quick run would put every
    slow test back into the quick tier."""
    import collections
    import re

    total, cases = collections.defaultdict(float), collections.Counter()
    for base, (seconds, n) in (previous or {}).items():
        # a row of the table was measured over the threshold (and written rounded to 0.1 s)
        total[base], cases[base] = max(seconds, SLOW_SECONDS + 0.05), n
    for text in durations_texts:
        run, run_cases = collections.defaultdict(float), collections.Counter()
        for line in text.splitlines():
            m = re.match(r"^([\d.]+)s (call|setup|teardown)\s+(\S+)", line)
            if not m:
                continue
            base = m.group(3).split("[", 1)[0]
            run[base] += float(m.group(1))
            if m.group(2) == "call":
                run_cases[base] += 1
        for base, seconds in run.items():
            total[base] = max(total[base], seconds)
            cases[base] = max(cases[base], run_cases[base])
    by_file = collections.defaultdict(list)
    for base, seconds in total.items():
        by_file[base.split("::", 1)[0]].append((seconds, base))
    rows = []
    for _file, funcs in sorted(by_file.items()):
        funcs.sort()
        slow_ones = []
        for seconds, base in funcs:
            if seconds <= SLOW_SECONDS:
                continue
            n = max(cases[base], 1)
            slow_ones.append((base, seconds, n, "first" if n > 1 and seconds / n <= CASE_SECONDS
                              else "none"))
        if len(slow_ones) == len(funcs) and all(r[3] == "none" for r in slow_ones):
            # the file's cheapest function stays in the quick tier (its first case)
            base, seconds, n, _ = slow_ones.pop(0)
            if n > 1:
                slow_ones.append((base, seconds, n, "first"))
        rows.extend(slow_ones)
    return sorted(rows)


def previous_rows() -> dict:
    """{node id: (seconds, cases)} of SLOW_FILE, without the rows of test files that are
    gone."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = {}
    try:
        with open(SLOW_FILE, encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("#") or not line.strip():
                    continue
                parts = line.rstrip("\n").split("\t")
                if len(parts) >= 3 and os.path.isfile(os.path.join(root, parts[0].split("::")[0])):
                    out[parts[0]] = (float(parts[1]), int(parts[2]))
    except (OSError, ValueError):
        pass
    return out


def main(argv=None) -> int:
    import sys

    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        print("usage: python -m tests.tiers DURATIONS.txt...   (outputs of "
              "`pytest -p no:randomly --durations=0`; writes tests/data/slow-tests.tsv)",
              file=sys.stderr)
        return 2
    texts = []
    for name in argv:
        with open(name, encoding="utf-8", errors="replace") as fh:
            texts.append(fh.read())
    rows = measure(*texts, previous=previous_rows())
    with open(SLOW_FILE, "w", encoding="utf-8") as fh:
        fh.write("# test functions the quick tier leaves out (\"none\") or runs one case of "
                 "(\"first\"): tests/tiers.py\n# node id\tseconds (all cases, measured)\t"
                 "cases\tquick\n")
        for base, seconds, n, rule in rows:
            fh.write(f"{base}\t{seconds:.1f}\t{n}\t{rule}\n")
    print(f"{len(rows)} slow test functions written to {SLOW_FILE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
