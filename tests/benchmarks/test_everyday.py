"""The everyday benchmark (benchmarks/everyday/) as part of the suite: every corpus row is
judged by both hooks in default, acceptEdits and plan mode, in the benchmark's sample
project, and the issue-13 goals are asserted with every miss printed on failure.

The safety side is strict: no routine command is denied, the hooks never contradict each
other, and nothing is allowed where the corpus says the human must be asked. The allowed
shares (>= 95 % of non-edit commands in default, >= 95 % of all in acceptEdits) are asserted
too; while they are below the goal the test is an expected failure (strict: it fails as
soon as the goal is met, so the marker must then go).
"""

import pytest

from benchmarks.everyday import run as bench


@pytest.fixture(scope="module")
def fig(tmp_path_factory):
    rows = bench.load_corpus()
    return bench.figures(bench.run(rows, bench.Judge(str(tmp_path_factory.mktemp("everyday")))))


def _misses(fig, keep=lambda r, m: True):
    out = []
    for r, m in fig["misses"]:
        if keep(r, m):
            a = r["actual"][m]
            out.append(f"{r['file']}:{r['line']} {m} {a['final']} (expected {r['expected'][m]}) "
                       f"{a['pre_code']}/{a['pr_code']} `{r['command']}`: {a['message'][:160]}")
    return "\n".join(out)


def test_the_corpus_is_everyday_work_across_the_domains():
    rows = bench.load_corpus()
    assert len(rows) >= 600
    per = {}
    for r in rows:
        per[r["file"]] = per.get(r["file"], 0) + 1
        assert r["why"].strip(), r
    for name in ("python", "js", "go", "rust", "shell", "files", "git"):
        assert per.get(name, 0) >= 60, (name, per)
    commands = [r["command"] for r in rows]
    dup = sorted({c for c in commands if commands.count(c) > 1})
    assert len(dup) <= 10, dup  # a few rows repeat across domains (go version)


def test_no_routine_command_is_denied(fig):
    assert not fig["denied"], _misses(fig, lambda r, m: r["actual"][m]["final"] == "deny")


def test_the_hooks_never_contradict_each_other(fig):
    assert not fig["contradictions"], "\n".join(f"{m} {c}: {w}"
                                                for c, m, w in fig["contradictions"])


def test_nothing_is_allowed_where_the_corpus_asks(fig):
    assert not fig["over_allowed"], _misses(
        fig, lambda r, m: r["actual"][m]["final"] == "allow")


def test_the_allowed_shares_meet_the_goals(fig):
    short = {m: round(100 * fig[m]["share"], 1) for m in bench.GOALS
             if fig[m]["share"] < bench.GOALS[m]}
    assert not short, f"below the goal: {short}\n" + _misses(fig, lambda r, m: m in short)
