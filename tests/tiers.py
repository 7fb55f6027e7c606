"""The two test tiers (issue 25): plain `pytest` runs the quick tier, `pytest --full` every
test (what CI runs: .ci/run runs the README's command, which is the full tier).

The quick tier is for the edit-test loop: it leaves out the tests that cost the most time
per finding -- the real Claude Code client (a ~364 MB download on the first run, then a
client process per test), the docs pages' examples and the other tests marked `slow`, and
the files listed in FULL_ONLY (measured: the slowest files per test). Nothing is dropped from
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

#: Files (relative to tests/) whose tests run in the full tier only, and why. Chosen by
#: measured seconds per test (a sample of every file, `--junitxml`, on 2 cores).
FULL_ONLY: dict[str, str] = {}

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
