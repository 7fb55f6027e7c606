"""The public regression table (tests/data/seed-regression-cases.tsv, 520 rows from the
projects behind seed 004 plus probes), decoded as its header says and run as data.

`allow` rows must be allowed, `dialog`/`ask` rows must not be, `deny` rows must be denied.
Where this gateway deliberately differs from a row (the suites disagree with each other, and
some rows record an old, weaker behaviour), regression-overrides.tsv names our decision and
reason code and the section of docs/differences.md that explains it. The Read/Write/Edit/Glob/
Grep rows are file-tool cases for the PreToolUse guards and are run by tests/guards.
"""

import os

import pytest
from helpers import DATA, decode

FILE_TOOLS = ("Read", "Write", "Edit", "Glob", "Grep")


def _rows():
    rows = []
    with open(os.path.join(DATA, "seed-regression-cases.tsv"), encoding="utf-8") as fh:
        lines = [ln.rstrip("\n") for ln in fh if not ln.startswith("#")]
    header = lines[0].split("\t")
    assert header[:5] == ["command", "expected", "note", "suite", "tool_name"], header
    for n, line in enumerate(lines[1:], 2):
        cols = line.split("\t")
        rows.append(dict(zip(header, cols, strict=True), line=n))
    return rows


def _overrides():
    out = {}
    with open(os.path.join(DATA, "regression-overrides.tsv"), encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("#") or not line.strip():
                continue
            suite, command, decision, code, section = line.rstrip("\n").split("\t")
            key = (suite, command)
            assert key not in out, f"duplicate override {key}"
            out[key] = (decision, code, section)
    return out


ROWS = _rows()
OVERRIDES = _overrides()
BASH_ROWS = [r for r in ROWS if r["tool_name"] not in FILE_TOOLS]


def test_table_is_complete():
    assert len(ROWS) == 520
    assert {r["suite"] for r in ROWS} == {"crew-50832e5", "crew-hooks-support-50832e5",
                                         "pg-9a2c960", "gavel-06842fc", "probe-50832e5"}


@pytest.mark.parametrize("row", BASH_ROWS, ids=[f"{r['suite']}:{r['line']}" for r in BASH_ROWS])
def test_row(judge, project, row):
    command = decode(row["command"]).replace("{PROJECT_ROOT}", project)
    command = command.replace("{A*4000}", "a" * 4000)
    tool = {"(missing)": None, "(empty)": ""}.get(row["tool_name"], row["tool_name"])
    verdict = judge(command, tool_name=tool)
    got = str(verdict.decision)
    # an override is about the command as the Bash tool sends it; the rows that send it
    # under another tool name (GW103) keep the table's expectation
    override = OVERRIDES.get((row["suite"], row["command"])) \
        if row["tool_name"] == "Bash" else None
    if override is not None:
        decision, code, _section = override
        assert (got, verdict.code) == (decision, code), (row["note"], verdict.message)
        return
    expected = row["expected"]
    if expected == "allow":
        assert got == "allow", (row["note"], verdict.code, verdict.message)
    elif expected == "deny":
        assert got == "deny", (row["note"], verdict.code, verdict.message)
    else:
        assert expected in ("dialog", "ask")
        assert got != "allow", (row["note"], verdict.code, verdict.message)


def test_overrides_are_real_differences():
    """Every override names a row that exists and really differs from its expectation."""
    by_key = {(r["suite"], r["command"]): r for r in ROWS}
    for key, (decision, _code, _section) in OVERRIDES.items():
        assert key in by_key, f"override for a row that does not exist: {key}"
        expected = by_key[key]["expected"]
        same = (decision == "allow") == (expected == "allow")
        assert not same, f"stale override (agrees with the table): {key}"


def test_overrides_are_documented():
    with open(os.path.join(os.path.dirname(DATA), "..", "docs", "differences.md"),
              encoding="utf-8") as fh:
        doc = fh.read()
    for (suite, command), (_d, _c, section) in OVERRIDES.items():
        assert f'<a id="{section}"></a>' in doc, f"docs/differences.md lacks section {section}"
        assert f"`{decode(command)}`" in doc or f"`{command}`" in doc, (
            f"docs/differences.md does not list {command!r} ({suite})")
