"""The two tiers (tests/tiers.py): plain `pytest` is the quick tier; `--full`, GATEWAY_TESTS=full,
a -m or -k expression, or paths named on the command line run everything that is asked for."""

import functools

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


@functools.cache
def _test_functions(path):
    """The test functions defined in `path`, as node ids name them after the file."""
    import ast

    with open(path, encoding="utf-8") as fh:
        tree = ast.parse(fh.read())
    out = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                node.name.startswith("test"):
            out.add(node.name)
        elif isinstance(node, ast.Assign):  # test_machine = Machine.TestCase (hypothesis)
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id.startswith("test"):
                    out.add(f"{target.id}::runTest")
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            for sub in node.body:
                if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                        sub.name.startswith("test"):
                    out.add(f"{node.name}::{sub.name}")
    return out


def test_every_measured_slow_test_exists():
    # a row for a renamed or removed test would silently stop meaning anything
    import os

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for node, rule in tiers.slow().items():
        assert rule in ("first", "none"), node
        path, _, name = node.partition("::")
        assert os.path.isfile(os.path.join(root, path)), node
        assert name in _test_functions(os.path.join(root, path)), node


def test_every_test_file_keeps_a_quick_test():
    # the quick tier is a slice of every area: each test file outside the full-only suites
    # keeps at least one test function (or one case of one) in the quick tier
    import glob
    import os

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    table = tiers.slow()
    empty = []
    for path in sorted(glob.glob(os.path.join(root, "tests", "**", "test_*.py"),
                                 recursive=True)):
        rel = os.path.relpath(path, os.path.join(root, "tests")).replace(os.sep, "/")
        if rel.startswith("realclient/") or any(
                rel == p or rel.startswith(p) for p in tiers.FULL_ONLY):
            continue
        funcs = _test_functions(path)
        if funcs and all(table.get(f"tests/{rel}::{f}") == "none" for f in funcs):
            empty.append(rel)
    assert empty == []


def test_a_measured_slow_function_runs_its_first_case_or_none(tmp_path, monkeypatch):
    class Item:
        def __init__(self, nodeid):
            self.nodeid = nodeid
            self.config = type("C", (), {"rootpath": tmp_path})()
            self.path = tmp_path / nodeid.split("::")[0]

        def get_closest_marker(self, name):
            return None

    monkeypatch.setattr(tiers, "_slow_cache", {"tests/a/test_x.py::test_table": "first",
                                               "tests/a/test_x.py::test_long": "none"})
    items = [Item(n) for n in (
        "tests/a/test_x.py::test_table[1]", "tests/a/test_x.py::test_table[2]",
        "tests/a/test_x.py::test_long", "tests/a/test_x.py::test_fast[1]",
        "tests/a/test_x.py::test_fast[2]", "tests/property/test_p.py::test_prop")]
    keep, left = tiers.split(items)
    assert [i.nodeid for i in keep] == ["tests/a/test_x.py::test_table[1]",
                                        "tests/a/test_x.py::test_fast[1]",
                                        "tests/a/test_x.py::test_fast[2]"]
    assert [i.nodeid for i in left] == ["tests/a/test_x.py::test_table[2]",
                                        "tests/a/test_x.py::test_long",
                                        "tests/property/test_p.py::test_prop"]


def test_the_measurement_keeps_each_files_cheapest_function():
    text = "\n".join([
        "30.00s call     tests/a/test_x.py::test_big",
        "3.00s call     tests/a/test_x.py::test_mid",
        "0.60s call     tests/a/test_y.py::test_table[1]",
        "0.60s call     tests/a/test_y.py::test_table[2]",
        "0.60s call     tests/a/test_y.py::test_table[3]",
        "4.00s call     tests/a/test_y.py::test_heavy[1]",
        "0.20s call     tests/a/test_y.py::test_light",
    ])
    rows = tiers.measure(text, "40.0s call     tests/a/test_y.py::test_light")
    assert [(r[0], r[3]) for r in rows] == [
        ("tests/a/test_x.py::test_big", "none"),          # test_mid stays: the file's cheapest
        ("tests/a/test_y.py::test_heavy", "none"),
        ("tests/a/test_y.py::test_light", "none"),        # slow in the second run
        ("tests/a/test_y.py::test_table", "first")]       # 1.8 s in all, 0.6 s a case: one stays


def test_remeasuring_from_a_quick_run_keeps_what_the_table_left_out():
    """A quick run does not run the functions the table leaves out (and runs one case of a
    "first" one): re-measuring from it must not put them back into the quick tier."""
    quick_run = ("3.20s call     tests/a/test_x.py::test_new_slow\n"
                 "0.40s call     tests/a/test_x.py::test_table[0]\n"
                 "0.10s call     tests/a/test_x.py::test_cheap\n")
    previous = {"tests/a/test_x.py::test_long": (1.5, 1),     # rounded to 0.1 s when written
                "tests/a/test_x.py::test_table": (12.0, 30)}  # 30 cases, one ran here
    rows = {r[0]: r for r in tiers.measure(quick_run, previous=previous)}
    assert rows["tests/a/test_x.py::test_long"][3] == "none"
    assert rows["tests/a/test_x.py::test_table"][2:] == (30, "first")
    assert rows["tests/a/test_x.py::test_new_slow"][3] == "none"
    assert "tests/a/test_x.py::test_cheap" not in rows
    # without the table, the same run would have brought both back
    rows = {r[0] for r in tiers.measure(quick_run)}
    assert "tests/a/test_x.py::test_long" not in rows
    assert "tests/a/test_x.py::test_table" not in rows
