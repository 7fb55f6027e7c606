"""The everyday and red-team corpora: the hooks agree (see agreement.py)."""

import os

import pytest

from tests.agreement.agreement import (
    EVERYDAY,
    REDTEAM,
    _commands,
    _everyday,
    _report,
    contradictions,
)


@pytest.fixture(scope="module")
def everyday_judge(tmp_path_factory):
    from benchmarks.everyday.run import Judge

    return Judge(str(tmp_path_factory.mktemp("agreement")))


@pytest.mark.parametrize("name", _everyday())
def test_everyday_corpus(everyday_judge, name):
    found = contradictions(everyday_judge, _commands(os.path.join(EVERYDAY, name)))
    assert not found, _report(found)


def test_redteam_corpus(everyday_judge):
    found = contradictions(everyday_judge, _commands(REDTEAM))
    assert not found, _report(found)
