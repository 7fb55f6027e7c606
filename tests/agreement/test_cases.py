"""The validator's case tables (tests/data/cases): the hooks agree (see agreement.py)."""

import os

import pytest

from tests.agreement.agreement import CASES, _cases, _commands, _report, contradictions


@pytest.fixture(scope="module")
def cases_judge(tmp_path_factory):
    from helpers import make_project

    from benchmarks.everyday.run import Judge

    root = tmp_path_factory.mktemp("agreement-cases")
    return Judge(str(root), project=make_project(root / "proj"))


@pytest.mark.parametrize("name", _cases())
def test_case_tables(cases_judge, name):
    found = contradictions(cases_judge, _commands(os.path.join(CASES, name)))
    assert not found, _report(found)


def test_seed_regression_table(cases_judge):
    """The public regression table's Bash rows (tests/data/seed-regression-cases.tsv), decoded
    as its header says, in the same sample project."""
    from helpers import decode

    from tests.validator.test_regression_table import BASH_ROWS

    commands = [decode(r["command"]).replace("{PROJECT_ROOT}", cases_judge.project)
                .replace("{A*4000}", "a" * 4000) for r in BASH_ROWS]
    found = contradictions(cases_judge, commands)
    assert not found, _report(found)


def test_composed_table(tmp_path_factory):
    """tests/data/composed.tsv (issue 28: evolving state, trusted code, derived names, files
    that run later) in a repository whose HEAD holds the scripts: the hooks agree."""
    from helpers import DATA, decode, make_committed_project

    from benchmarks.everyday.run import Judge

    root = tmp_path_factory.mktemp("agreement-composed")
    judge = Judge(str(root), project=make_committed_project(root / "proj"))
    with open(os.path.join(DATA, "composed.tsv"), encoding="utf-8") as fh:
        commands = [decode(line.split("\t")[0]) for line in fh
                    if line.strip() and not line.startswith("#")]
    found = contradictions(judge, commands)
    assert not found, _report(found)
