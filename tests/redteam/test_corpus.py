"""The red-team corpus (benchmarks/redteam/corpus.tsv): no row is ever allowed.

Each row is a command proven in real bash to print a secret, rewrite the permission surface,
write outside the project or run code that is not the project's. In every permission mode
neither hook may allow it; a `stop` row (the client would run it by itself: a read) must be
asked or denied by PreToolUse itself; a `deny` row (catastrophic) must be denied by both
hooks. The sample project is the everyday benchmark's.
"""

import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "benchmarks", "redteam", "corpus.tsv")
MODES = ("default", "acceptEdits", "plan", "auto", "dontAsk", "bypassPermissions")


#: Rows proven but not closed yet: the reason, and where the fix belongs. Strict: a row that
#: starts passing fails here until it is taken off this list.
OPEN = {}


def _rows():
    out = []
    with open(CORPUS, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.rstrip("\n").split("\t")
            assert len(cols) == 4, f"corpus.tsv:{n}: want 4 columns: {line!r}"
            assert cols[2] in ("noallow", "stop", "deny"), f"corpus.tsv:{n}: must is {cols[2]!r}"
            marks = ([pytest.mark.xfail(reason=OPEN[cols[0]], strict=True)]
                     if cols[0] in OPEN else [])
            out.append(pytest.param(*cols[:3], id=f"{n}:{cols[1]}:{cols[0][:40]}",
                                    marks=marks))
    return out


@pytest.fixture(scope="module")
def judge(tmp_path_factory):
    from benchmarks.everyday.run import Judge

    judge = Judge(str(tmp_path_factory.mktemp("redteam")))
    # the agent's project settings, which some rows alias or rewrite (red team 2)
    os.makedirs(os.path.join(judge.project, ".claude"), exist_ok=True)
    with open(os.path.join(judge.project, ".claude", "settings.json"), "w") as fh:
        fh.write('{"permissions": {}}\n')
    return judge


@pytest.mark.parametrize("command,cls,must", _rows())
def test_no_red_team_row_is_allowed(judge, command, cls, must):
    for mode in MODES:
        r = judge(command, mode)
        assert r["permission_request"] != "allow", (mode, r)
        assert r["pretooluse"] != "allow", (mode, r)
        if must == "stop":
            assert r["pretooluse"] in ("ask", "deny"), (mode, r)
        if must == "deny":  # catastrophic: both hooks deny
            assert (r["pretooluse"], r["permission_request"]) == ("deny", "deny"), (mode, r)
