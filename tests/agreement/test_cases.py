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
