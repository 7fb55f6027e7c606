"""The two tiers (tests/tiers.py): plain `pytest` is the quick tier; `--full`, GATEWAY_TESTS=full,
a -m or -k expression, or paths named on the command line run everything that is asked for."""

import pytest

from tests import tiers


class Config:
    ArgsSource = pytest.Config.ArgsSource

    def __init__(self, source, full=False, markexpr="", keyword=""):
        self.args_source = source
        self._opts = {"gateway_full": full, "markexpr": markexpr, "keyword": keyword}

    def getoption(self, name, default=None):
        return self._opts.get(name, default)


@pytest.mark.parametrize("config,quick", [
    (Config(pytest.Config.ArgsSource.TESTPATHS), True),
    (Config(pytest.Config.ArgsSource.TESTPATHS, full=True), False),
    (Config(pytest.Config.ArgsSource.TESTPATHS, markexpr="realclient"), False),
    (Config(pytest.Config.ArgsSource.TESTPATHS, markexpr="not realclient"), False),
    (Config(pytest.Config.ArgsSource.TESTPATHS, keyword="stats"), False),
    (Config(pytest.Config.ArgsSource.ARGS), False),
])
def test_the_quick_tier_is_only_the_plain_run(config, quick, monkeypatch):
    monkeypatch.delenv("GATEWAY_TESTS", raising=False)
    assert tiers.quick(config) is quick
    monkeypatch.setenv("GATEWAY_TESTS", "full")
    assert tiers.quick(config) is False


def test_ci_runs_the_readme_command_and_it_is_the_full_tier():
    import os

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(root, "README.md"), encoding="utf-8") as fh:
        first_screen = fh.read().split("```", 2)[1]
    with open(os.path.join(root, ".ci", "run"), encoding="utf-8") as fh:
        ci = fh.read()
    command = next(line for line in first_screen.splitlines() if "-m pytest" in line)
    assert command.endswith(".venv/bin/python -m pytest --full"), command
    assert command in ci.splitlines(), "CI must run the README's test command"


def test_the_quick_tier_leaves_out_only_what_is_listed(tmp_path):
    class Item:
        def __init__(self, rel, markers=()):
            self.config = type("C", (), {"rootpath": tmp_path})()
            self.path = tmp_path / "tests" / rel
            self._markers = markers

        def get_closest_marker(self, name):
            return name if name in self._markers else None

    assert tiers.full_only(Item("validator/test_cases.py")) == ""
    assert tiers.full_only(Item("e2e/test_hook_modes.py")) == ""
    assert tiers.full_only(Item("test_docs_examples.py", ("slow",))) == "marked slow"
    assert tiers.full_only(Item("realclient/test_sandbox.py", ("realclient",))) == \
        "marked realclient"
    assert tiers.full_only(Item("property/test_regressions.py")).startswith("hypothesis")
    assert tiers.full_only(Item("e2e/test_long_run.py")).startswith("a 20-task")
    assert tiers.full_only(Item("propertyx/test_a.py")) == ""
