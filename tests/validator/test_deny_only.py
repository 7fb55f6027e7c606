"""`validate(deny_only=True)`, the PreToolUse hook's use of the validator, denies exactly what
the full validator denies, with the same code and rule, over every table row and every
command of the shared regression table; anything else is "no deny" (GW800), never allow."""

import pytest
from helpers import load_cases

from gateway.settings import SettingsRules
from gateway.validator.pipeline import validate

TABLES = ("bypasses", "compound", "deny", "phase1_5_suffix", "phase1_chars", "phase2_syntax",
          "phase3_parse", "phase4_flags", "phase5_paths", "phase5_recursive",
          "phase6_containment", "phase7_general", "phase_s0_null")


def _rows():
    for table in TABLES:
        for param in load_cases(table):
            yield param.values[0], param.values[3]


ROWS = list(_rows())


def test_there_are_rows_and_denies_among_them():
    assert len(ROWS) > 800
    assert sum(1 for _c, _w in ROWS if "rm -rf /" in _c) > 10


@pytest.mark.parametrize("chunk", range(8))
def test_deny_only_denies_exactly_what_the_validator_denies(policy, project, chunk):
    import os

    settings = SettingsRules()
    for command, cwd in ROWS[chunk::8]:
        command = command.replace("{PROJECT}", project)
        where = os.path.join(project, cwd) if cwd else project
        full = validate(command, where, project, policy, "Bash", settings)
        quick = validate(command, where, project, policy, "Bash", settings, deny_only=True)
        assert (full.decision.name == "DENY") == (quick.decision.name == "DENY"), command
        if full.decision.name == "DENY":
            assert (quick.code, quick.rule) == (full.code, full.rule), command
        else:
            assert quick.decision.name == "ASK", (command, quick)
