"""The two test tiers (issue 25): plain `pytest` runs the quick tier, `pytest --full` every
test (what CI runs: .ci/run runs the README's command, which is the full tier).

The quick tier is for the edit-test loop: it leaves out the tests that cost the most time
per finding -- the real Claude Code client (a ~364 MB download on the first run, then a
client process per test), the docs pages' examples and the other tests marked `slow`, and
the suites listed in FULL_ONLY. Nothing is dropped from
the full tier: it is every collected test, exactly as before the tiers existed.

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
}

OPTION = "--full"


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
