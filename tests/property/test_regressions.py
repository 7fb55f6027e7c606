"""The shared regression table (tests/data/seed-regression-cases.tsv), every per-phase case
table (tests/data/cases/*.tsv) and every fixed bug (regressions.py) as data for the
properties: each row's own verdict must survive respelling of its command name,
composition with allowed commands, wrapping, and must be what the hook prints.

(Whether each row gets its *expected* decision is checked by tests/validator; here each row
is a seed from which the invariants are checked, so a fixed bypass cannot come back in a
slightly different spelling or position.)
"""

import glob
import io
import json
import os

import pytest

from gateway.decision import ALLOW, DENY
from tests.helpers import DATA, decode
from tests.property import regressions
from tests.property.support import STATS, in_dir, show
from tests.property.test_agreement import _hook_expectation, _parse_hook, _payload

FILE_TOOLS = ("Read", "Write", "Edit", "Glob", "Grep")
SPELLINGS = [lambda n: f"'{n}'", lambda n: "\\" + n, lambda n: f"{n[0]}''{n[1:]}",
             lambda n: f'"{n[0]}"{n[1:]}', lambda n: "".join("\\" + c for c in n)]
OPS = [" && ", "; ", " | ", "\n", " || "]
WRAPS = ["nice ", "command ", "sudo ", "timeout 5 ", "env ", "xargs ", "nohup "]


def _table_rows():
    rows = []
    with open(os.path.join(DATA, "seed-regression-cases.tsv"), encoding="utf-8") as fh:
        lines = [ln.rstrip("\n") for ln in fh if not ln.startswith("#")]
    header = lines[0].split("\t")
    for n, line in enumerate(lines[1:], 2):
        row = dict(zip(header, line.split("\t"), strict=True))
        if row["tool_name"] != "Bash":
            continue
        cmd = decode(row["command"]).replace("{PROJECT_ROOT}", "{PROJECT}")
        rows.append((f"table:{n}", cmd.replace("{A*4000}", "a" * 4000), ""))
    return rows


def _case_rows(path):
    rows = []
    name = os.path.basename(path)[:-4]
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.rstrip("\n").split("\t") + [""] * 4
            rows.append((f"{name}:{n}", decode(parts[0]), parts[3]))
    return rows


SOURCES = {"seed-regression-cases": _table_rows()}
for _path in sorted(glob.glob(os.path.join(DATA, "cases", "*.tsv"))):
    SOURCES[os.path.basename(_path)[:-4]] = _case_rows(_path)
SOURCES["fixed-bugs"] = [(f"fixed:{i}", c, cwd) for i, (c, _d, _code, cwd, _w)
                         in enumerate(regressions.FIXED)]


def _first_word(cmd):
    head = cmd.split(" ", 1)[0]
    return head if head.isascii() and head.isalpha() and len(head) > 1 else None


def _simple(cmd):
    from gateway.shell.parse import ShellParseError, parse

    try:
        script = parse(cmd)
    except ShellParseError:
        return False
    return script.simple and not script.items[0][0].commands[0].assignments


def _hook(cmd, cwd, project):
    from gateway.hooks import runner

    env = dict(os.environ)
    env.pop("CLAUDE_PROJECT_DIR", None)
    out = io.StringIO()
    with in_dir(project):
        assert runner.run("permission-request", stdin=io.BytesIO(_payload(cmd, cwd)),
                          stdout=out, env=env) == 0
    return _parse_hook(out.getvalue())


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_rows_keep_their_verdict_under_the_invariants(pjudge, source):
    project = pjudge.project
    failures = []
    for i, (rid, raw, cwd) in enumerate(SOURCES[source]):
        cmd = raw.replace("{PROJECT}", project)
        base = pjudge(cmd, cwd=cwd or None)
        STATS["cases"][source] += 1

        # the hook prints what the validator decided
        where = os.path.join(project, cwd) if cwd else project
        if "\x00" not in cmd:
            STATS["validations"] += 1
            got = _hook(cmd, where, project)
            want = _hook_expectation({"decision": str(base.decision), "code": base.code})
            if got != want:
                failures.append(f"{rid} {cmd!r}: hook {got} but validator {show(base)}")
        if base.decision is ALLOW or base.code == "GW002":
            continue  # (an empty command has nothing in it to keep)

        # a respelled command name is never allowed
        word = _first_word(cmd)
        if word:
            for k in (i % len(SPELLINGS), (i + 2) % len(SPELLINGS)):
                text = SPELLINGS[k](word) + cmd[len(word):]
                v = pjudge(text, cwd=cwd or None)
                if v.decision is ALLOW:
                    failures.append(f"{rid} {cmd!r} is {show(base)} but {text!r} is allowed")

        # in a list or pipeline with an allowed command it is at least as strict
        op = OPS[i % len(OPS)]
        for text in (f"git status{op}{cmd}", f"{cmd}{OPS[(i + 1) % len(OPS)]}ls -la"):
            v = pjudge(text, cwd=cwd or None)
            if v.decision < base.decision:
                failures.append(f"{rid} {cmd!r} is {show(base)} but {text!r} is {show(v)}")

        # behind a wrapper it is at least as strict
        if _simple(cmd):
            text = WRAPS[i % len(WRAPS)] + cmd
            v = pjudge(text, cwd=cwd or None)
            transparent = WRAPS[i % len(WRAPS)].strip() in ("nice", "timeout 5")
            if v.decision < base.decision or (v.decision is ALLOW and not transparent):
                failures.append(f"{rid} {cmd!r} is {show(base)} but {text!r} is {show(v)}")
    assert not failures, f"{len(failures)} violation(s):\n" + "\n".join(failures[:30])


@pytest.mark.parametrize("row", regressions.FIXED, ids=[r[4][:40] for r in regressions.FIXED])
def test_fixed_bugs_stay_fixed(pjudge, row):
    command, decision, code, cwd, what = row
    v = pjudge(command.replace("{PROJECT}", pjudge.project), cwd=cwd or None)
    assert (str(v.decision), v.code) == (decision, code), f"{what}: {show(v)}"
    if decision != "allow":
        assert v.decision is not ALLOW and (decision != "deny" or v.decision is DENY)


def test_the_tables_are_there():
    """The data-driven part must not silently shrink to nothing."""
    assert len(SOURCES["seed-regression-cases"]) > 400
    assert sum(len(v) for k, v in SOURCES.items() if k != "seed-regression-cases") > 400
    json.dumps(SOURCES)  # every row is plain data
