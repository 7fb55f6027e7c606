"""gateway.orchestration.registration: seed 001's TaskCreate rules (one Plans.md task per
entry, owns, file conflicts → blockedBy, V5 repaired) and the implementers' claim order."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.orchestration import graph, plans, registration


def build(text):
    p = plans.parse(text)
    return registration.build(p.tasks, p)


def edges(reg):
    return {e.section: [next(x.section for x in reg.entries if x.id == b) for b in e.blocked_by]
            for e in reg.entries}


def test_seed_file_conflict_example():
    """seed 001 ファイル競合回避: A and B edit src/auth/login.ts → B addBlockedBy [A]."""
    reg = build("- [ ] 1 タスク A `cc:TODO` owns: src/auth/login.ts\n"
                "- [ ] 2 タスク B `cc:TODO` owns: src/auth/login.ts\n")
    a, b = reg.entries
    assert (a.id, a.blocked_by) == ("task-1", [])
    assert (b.id, b.blocked_by) == ("task-2", ["task-1"])
    assert b.why == {"task-1": "V5 src/auth/login.ts"}
    [f] = [f for f in reg.findings if f.check == "V5"]
    assert (f.check, f.level, f.sections) == ("V5", "repaired", ["1", "2"])
    assert f.message == ("2 and 1 both touch src/auth/login.ts: 2 waits for 1 (blockedBy "
                         "task-1, added)")


def test_conflict_detection_algorithm_example():
    """plans-to-tasklist 競合検出: A login.ts; B login.ts + session.ts; C Header.tsx →
    B blockedBy A, C independent."""
    reg = build("- [ ] 1 A `cc:TODO` owns: src/auth/login.ts\n"
                "- [ ] 2 B `cc:TODO` owns: src/auth/login.ts, src/auth/session.ts\n"
                "- [ ] 3 C `cc:TODO` owns: src/components/Header.tsx\n")
    assert edges(reg) == {"1": [], "2": ["1"], "3": []}
    assert [e.section for e in reg.independent()] == ["1", "3"]


def test_three_tasks_on_one_file_run_one_after_the_other():
    reg = build("".join(f"- [ ] {i} t{i} `cc:TODO` owns: x.py\n" for i in (1, 2, 3)))
    assert edges(reg) == {"1": [], "2": ["1"], "3": ["2"]}     # a chain, not 3 -> 1 too


def test_a_task_touching_two_earlier_unrelated_tasks_waits_for_both():
    reg = build("- [ ] 1 a `cc:TODO` owns: a.py\n- [ ] 2 b `cc:TODO` owns: b.py\n"
                "- [ ] 3 c `cc:TODO` owns: a.py, b.py\n")
    assert edges(reg) == {"1": [], "2": [], "3": ["2", "1"]}


@pytest.mark.parametrize("a,b,overlap", [
    ("src/auth/login.ts", "./src/auth/login.ts", True),
    ("src/auth/*", "src/auth/login.ts", True),
    ("src/auth", "src/auth/login.ts", True),
    ("src/auth/", "src/auth/x/y.ts", True),
    ("src/**/*.ts", "src/*.tsx", True),          # both globs: literal prefixes overlap (safe)
    ("src/auth", "src/authz/x.ts", False),       # not a prefix match by characters
    ("src/a.ts", "src/b.ts", False),
    ("lib/*", "src/*", False),
])
def test_owns_overlap(a, b, overlap):
    assert registration.overlap(a, b) is overlap
    assert registration.overlap(b, a) is overlap


def test_depends_become_edges_and_done_dependencies_are_satisfied():
    reg = build("- [x] 1 done `cc:done`\n"
                "- [ ] 2 two `cc:TODO` depends:1\n"
                "- [ ] 3 three `cc:TODO` depends:2\n")
    p = plans.parse("- [x] 1 done `cc:done`\n- [ ] 2 two `cc:TODO` depends:1\n"
                    "- [ ] 3 three `cc:TODO` depends:2\n")
    reg = registration.build([t for t in p.tasks if not t.done], p)
    assert edges(reg) == {"2": [], "3": ["2"]}
    assert reg.entries[1].why == {"task-1": "depends:2"}
    assert reg.errors() == []


def test_a_dependency_outside_the_range_that_is_not_done_is_an_error():
    p = plans.parse("- [ ] 1 one `cc:TODO`\n- [ ] 2 two `cc:TODO` depends:1\n")
    reg = registration.build([p.tasks[1]], p)
    [err] = reg.errors()
    assert err.message == ("2 depends on 1, which is not done and not in the range: it would "
                           "wait for ever. Widen the range or fix depends: in Plans.md")
    reg = registration.build([p.tasks[1]], plans.parse("- [ ] 2 two `cc:TODO` depends:9\n"))
    assert "which is not a task of Plans.md" in reg.errors()[0].message


def test_a_dependency_cycle_is_an_error_naming_it():
    reg = build("- [ ] 1 a `cc:TODO` depends:2\n- [ ] 2 b `cc:TODO` depends:1\n")
    [err] = reg.errors()
    assert err.message == "Plans.md dependency cycle: 1 -> 2 -> 1"


def test_an_explicit_order_is_kept_when_files_are_shared():
    """2 is declared before 1 (depends:2): V5 adds no edge that would make a cycle."""
    reg = build("- [ ] 1 a `cc:TODO` depends:2 owns: x.py\n- [ ] 2 b `cc:TODO` owns: x.py\n")
    assert edges(reg) == {"1": ["2"], "2": []}
    assert not [f for f in reg.findings if f.check == "V5"]


def test_warnings_v1_v3_v4():
    owns = ", ".join(f"f{i}.py" for i in range(11))
    reg = build(f"- [ ] 1 UI全体のリファクタリング `cc:TODO` owns: {owns}\n"
                "- [ ] 2 パフォーマンス改善 `cc:TODO`\n"
                "- [ ] 3 x `cc:TODO` owns: a.py, b.py\n"
                "- [ ] 4 y `cc:TODO` owns: a.py, c.py\n"
                "### 5 z `cc:TODO`\n- a\n- b\n- c\n- d\n- e\n")
    got = [(f.check, f.sections) for f in reg.findings if f.level == "warning"]
    assert ("V1", ["1"]) in got and ("V1", ["5"]) in got
    assert ("V4", ["2"]) in got
    assert ("V3", ["3", "4"]) in got
    assert "scope too large (11 owns)" in next(f.message for f in reg.findings
                                               if f.sections == ["1"])
    assert "scope too large (5 sub-items)" in next(f.message for f in reg.findings
                                                   if f.sections == ["5"])


@pytest.mark.parametrize("subject,active", [
    # plans-to-tasklist activeForm 生成 table
    ("ログイン機能の実装", "ログイン機能を実装中"),
    ("認証ミドルウェアの作成", "認証ミドルウェアを作成中"),
    ("テストの追加", "テストを追加中"),
    ("バグ修正: ログアウト", "ログアウトバグを修正中"),
    ("Header component", "Working on Header component"),
])
def test_active_form(subject, active):
    assert registration.active_form(subject) == active


def test_entry_fields_for_task_create():
    reg = build("### 4.1 ログイン機能の実装 <!-- cc:TODO -->\nowns: src/LoginForm.tsx\n"
                "### 4.2 認証ミドルウェアの作成 <!-- cc:TODO -->\n")
    d = reg.entries[0].as_dict()
    assert d["subject"] == "4.1 ログイン機能の実装"
    assert d["description"] == "Plans.md 4.1\nowns: src/LoginForm.tsx"
    assert d["activeForm"] == "ログイン機能を実装中"
    assert reg.entries[1].as_dict()["description"] == "Plans.md 4.2\nowns: auto"


# --- claim order ------------------------------------------------------------------------

def T(i, status="pending", blocked_by=()):
    return {"id": i, "status": status, "blocked_by": list(blocked_by)}


@pytest.mark.parametrize("tasks,expected", [
    ([T("task-2"), T("task-1")], "task-1"),                                   # lowest id
    ([T("task-10"), T("task-2")], "task-2"),                                  # as numbers
    ([T("task-1", "in_progress"), T("task-2")], "task-2"),                    # pending only
    ([T("task-1", "completed"), T("task-2", blocked_by=["task-1"])], "task-2"),
    ([T("task-1", "in_progress"), T("task-2", blocked_by=["task-1"])], None),  # blocked
    ([T("task-2", blocked_by=["task-9"])], None),                              # unknown blocker
    ([T("1", "completed"), T("3", blocked_by=["#1"]), T("2", blocked_by=["3"])], "3"),
    ([], None),
])
def test_claim_order(tasks, expected):
    assert registration.claim_next(tasks) == expected


# --- properties ------------------------------------------------------------------------

FILES = ["a.py", "b.py", "src/x.ts", "src/*", "lib/y.go"]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(st.sampled_from(FILES), max_size=3, unique=True), min_size=1,
                max_size=8))
def test_tasks_that_share_a_file_are_always_ordered(owns_lists):
    text = "".join(f"- [ ] {i} t{i} `cc:TODO`" + (f" owns: {', '.join(o)}" if o else "") + "\n"
                   for i, o in enumerate(owns_lists, 1))
    reg = build(text)
    g = {e.id: e.blocked_by for e in reg.entries}
    graph.validate(g)                                   # acyclic
    anc = {e.id: registration._ancestors(e, {x.id: x for x in reg.entries}) for e in reg.entries}
    for i, a in enumerate(reg.entries):
        for b in reg.entries[i + 1:]:
            if registration._shared(a, b):
                assert a.id in anc[b.id] or b.id in anc[a.id], (a.owns, b.owns)
    # and no edge without a reason
    for e in reg.entries:
        assert set(e.why) == set(e.blocked_by)
