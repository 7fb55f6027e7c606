"""The reliability suite prints its figures at the end of the run (also without -s)."""

import os

import pytest

from tests.helpers import make_project

from . import harness


def pytest_terminal_summary(terminalreporter):
    if not harness.Figures.ALL:
        return
    mode = "long" if harness.LONG else "CI budget (GATEWAY_RELIABILITY=long for the full run)"
    terminalreporter.section(f"reliability figures, {mode}")
    try:
        load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
        terminalreporter.write_line(f"load average at the end: {load}; {os.cpu_count()} CPUs")
    except OSError:
        pass
    for fig in harness.Figures.ALL:
        terminalreporter.write_line(fig.line())


@pytest.fixture()
def scratch(tmp_path):
    """A fresh project, HOME and empty policy cache, and the hook environment for them."""
    proj = make_project(tmp_path / "proj")
    home = tmp_path / "home"
    home.mkdir()
    env = harness.hook_env(str(home), str(tmp_path / "cache"), proj)
    return proj, env
