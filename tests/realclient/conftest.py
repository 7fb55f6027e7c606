"""Keep `pytest -m "not realclient"` from installing the real client during collection.

The test modules here call ``require_client()`` at import time, which runs ``npm install`` on a
cold cache. When the marker expression deselects ``realclient`` those modules are not collected
at all. The mock's own unit tests (test_mock_api.py) need no client and are always collected.
"""

from __future__ import annotations

from pathlib import Path

ALWAYS_COLLECT = {"test_mock_api.py", "test_screen.py", "conftest.py", "__init__.py"}


def _realclient_deselected(markexpr: str) -> bool:
    if not markexpr:
        return False
    try:
        from _pytest.mark.expression import Expression
    except ImportError:
        # private API moved: collect as usual (the tests still skip or run correctly)
        return False
    try:
        expr = Expression.compile(markexpr)
        # Conservative: skip collection only if the expression is false both for a test marked
        # just `realclient` and for a test carrying every marker (so `-m slow` still collects).
        only_realclient = expr.evaluate(lambda name, **kwargs: name == "realclient")
        every_marker = expr.evaluate(lambda name, **kwargs: True)
        return not only_realclient and not every_marker
    except Exception:
        return False


def pytest_ignore_collect(collection_path: Path, config) -> bool | None:
    if collection_path.name in ALWAYS_COLLECT or collection_path.suffix != ".py":
        return None
    if _realclient_deselected(config.getoption("markexpr", "") or ""):
        return True
    from tests import tiers

    if tiers.quick(config):  # the quick tier (plain `pytest`) never installs the client
        return True
    return None


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    """Repeat an unavailable-client skip as a banner, so nobody mistakes it for a pass."""
    for rep in terminalreporter.stats.get("skipped", []):
        longrepr = getattr(rep, "longrepr", None)
        reason = (
            longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
        )
        if "REAL CLAUDE CODE CLIENT UNAVAILABLE" in reason:
            terminalreporter.section("realclient: NOT RUN", sep="!", red=True, bold=True)
            terminalreporter.line(reason.removeprefix("Skipped: "), red=True)
            break
