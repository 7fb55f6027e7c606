"""The per-phase case tables in tests/data/cases/*.tsv: each row names the exact decision
and reason code the validator must give (against the sample project of conftest.py)."""

import pytest
from helpers import load_cases


def _check(judge, project, command, decision, code, cwd):
    command = command.replace("{PROJECT}", project)
    verdict = judge(command, cwd=cwd)
    assert (str(verdict.decision), verdict.code) == (decision, code), (
        f"{command!r}: got {verdict.decision} {verdict.code} ({verdict.phase}: "
        f"{verdict.message})")


@pytest.mark.parametrize("command,decision,code,cwd", load_cases("phase_s0_null"))
def test_phase_s0_null(judge, project, command, decision, code, cwd):
    _check(judge, project, command, decision, code, cwd)


@pytest.mark.parametrize("command,decision,code,cwd", load_cases("phase1_chars"))
def test_phase1_chars(judge, project, command, decision, code, cwd):
    _check(judge, project, command, decision, code, cwd)


@pytest.mark.parametrize("command,decision,code,cwd", load_cases("phase1_5_suffix"))
def test_phase1_5_suffix(judge, project, command, decision, code, cwd):
    _check(judge, project, command, decision, code, cwd)


@pytest.mark.parametrize("command,decision,code,cwd", load_cases("phase2_syntax"))
def test_phase2_syntax(judge, project, command, decision, code, cwd):
    _check(judge, project, command, decision, code, cwd)


@pytest.mark.parametrize("command,decision,code,cwd", load_cases("phase3_parse"))
def test_phase3_parse(judge, project, command, decision, code, cwd):
    _check(judge, project, command, decision, code, cwd)


@pytest.mark.parametrize("command,decision,code,cwd", load_cases("phase4_flags"))
def test_phase4_flags(judge, project, command, decision, code, cwd):
    _check(judge, project, command, decision, code, cwd)


@pytest.mark.parametrize("command,decision,code,cwd", load_cases("phase5_paths"))
def test_phase5_paths(judge, project, command, decision, code, cwd):
    _check(judge, project, command, decision, code, cwd)


@pytest.mark.parametrize("command,decision,code,cwd", load_cases("phase5_recursive"))
def test_phase5_recursive(judge, project, command, decision, code, cwd):
    _check(judge, project, command, decision, code, cwd)


@pytest.mark.parametrize("command,decision,code,cwd", load_cases("phase6_containment"))
def test_phase6_containment(judge, project, command, decision, code, cwd):
    _check(judge, project, command, decision, code, cwd)


@pytest.mark.parametrize("command,decision,code,cwd", load_cases("phase7_general"))
def test_phase7_general(judge, project, command, decision, code, cwd):
    _check(judge, project, command, decision, code, cwd)


@pytest.mark.parametrize("command,decision,code,cwd", load_cases("deny"))
def test_deny_rules(judge, project, command, decision, code, cwd):
    _check(judge, project, command, decision, code, cwd)


@pytest.mark.parametrize("command,decision,code,cwd", load_cases("compound"))
def test_compound(judge, project, command, decision, code, cwd):
    _check(judge, project, command, decision, code, cwd)


@pytest.mark.parametrize("command,decision,code,cwd", load_cases("bypasses"))
def test_seed_bypasses_closed(judge, project, command, decision, code, cwd):
    _check(judge, project, command, decision, code, cwd)
