"""Reason codes: every code the source uses exists, is documented in docs/codes.md (which is
generated from gateway/codes/), and the table has nothing unused."""

import os
import re

from gateway.cli.explain import markdown
from gateway.codes import CODES

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _source_codes():
    found = set()
    table = os.path.join(ROOT, "gateway", "codes")
    for base, _dirs, files in os.walk(os.path.join(ROOT, "gateway")):
        if base == table:
            continue  # the table itself
        for name in files:
            if name.endswith(".py"):
                with open(os.path.join(base, name), encoding="utf-8") as fh:
                    found.update(re.findall(r'"(GW\d{3})"', fh.read()))
    return found


def test_every_code_used_is_defined():
    missing = _source_codes() - set(CODES)
    assert not missing, f"codes used but not defined in gateway/codes/: {sorted(missing)}"


def test_docs_codes_md_is_generated_from_codes_py():
    with open(os.path.join(ROOT, "docs", "codes.md"), encoding="utf-8") as fh:
        doc = fh.read()
    assert doc.rstrip("\n") == markdown().rstrip("\n"), (
        "docs/codes.md is out of date: run `gateway explain --markdown > docs/codes.md`")


def test_codes_are_well_formed():
    for code, entry in CODES.items():
        assert re.fullmatch(r"GW\d{3}", code)
        phase, decision, title, text, _example = entry
        assert decision in ("allow", "ask", "deny", "info"), code
        assert title and text, code


def test_each_code_is_in_the_part_of_the_hook_that_gives_it():
    """gateway/codes/ is two tables: the validator's GW0xx-GW7xx and the guards' (and
    errors') GW8xx-GW9xx. A code in both would be silently replaced by one of them."""
    from gateway.codes.guards import GUARDS
    from gateway.codes.validator import VALIDATOR

    assert not set(VALIDATOR) & set(GUARDS)
    assert all(c[2] in "01234567" for c in VALIDATOR), sorted(VALIDATOR)
    assert all(c[2] in "89" for c in GUARDS), sorted(GUARDS)
    assert list(CODES) == list(VALIDATOR) + list(GUARDS)
