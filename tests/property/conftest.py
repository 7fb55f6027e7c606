"""Hypothesis profiles and the fixtures of the property suite.

Profiles (select with HYPOTHESIS_PROFILE; `ci` is the default):

  ci    derandomised (the same examples on every run, so a change that breaks a property
        fails every time, not one run in ten), a 5 s deadline per example (catches a
        blow-up, not a slow machine), no example database,
        each property's own example budget. The whole suite takes well under a minute.
  long  random, 20x the examples, the example database in .hypothesis/ (not committed) so
        a failure found once is replayed first next time. For nightly or manual runs:
            HYPOTHESIS_PROFILE=long python -m pytest tests/property -q
  dev   like ci but random: quick local exploration with new examples on each run.

Every property uses `budget(n)` for its example count, scaled by the profile.
"""

import os
import time
from datetime import timedelta

import pytest
from hypothesis import HealthCheck, Phase, settings

from tests.property.support import STATS, Judge, build_project

_SLOW_OK = [HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large]

settings.register_profile(
    "ci", derandomize=True, database=None, deadline=timedelta(seconds=5),
    print_blob=True, suppress_health_check=_SLOW_OK,
    phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink))
settings.register_profile(
    "dev", derandomize=False, deadline=timedelta(seconds=2), print_blob=True,
    suppress_health_check=_SLOW_OK)
settings.register_profile(
    "long", derandomize=False, deadline=timedelta(seconds=10), print_blob=True,
    suppress_health_check=_SLOW_OK)

PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
settings.load_profile(PROFILE)
SCALE = {"ci": 1, "dev": 1, "long": 20}.get(PROFILE, 1)


def budget(n: int, **overrides) -> settings:
    """@budget(200): this property tries 200 examples under the ci profile (overrides: other
    settings of this property, e.g. deadline=None where an example's first call fills a cache)."""
    return settings(max_examples=max(1, n * SCALE), **overrides)


@pytest.fixture(scope="session")
def pproject(tmp_path_factory):
    """The sample project of tests/helpers.py plus the symlinks of support.EXTRA_LINKS."""
    return build_project(tmp_path_factory.mktemp("propproj"))


@pytest.fixture(scope="session")
def pjudge(policy, pproject):
    return Judge(pproject, policy)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    start = time.perf_counter()
    yield
    STATS["seconds"] += time.perf_counter() - start
