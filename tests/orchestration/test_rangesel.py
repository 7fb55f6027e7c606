"""gateway.orchestration.rangesel: seed 001's range table (範囲確認) over Plans.md."""

import pytest

from gateway.orchestration import plans, rangesel

# A Plans.md on which every row of the seed's table has the meaning the table gives it.
PLANS = """# Plans.md

## Phase 2: UI

- [x] 2.1 Header コンポーネント `cc:done`
- [ ] 2.2 Footer コンポーネント `cc:TODO`
- [ ] 2.3 Sidebar コンポーネント `cc:TODO`
- [ ] 2.4 Dashboard `cc:TODO`

## 認証機能

3. ログイン機能の実装 `cc:TODO`
4. 認証ミドルウェアの作成 `cc:WIP`

## ユーザー管理

5. セッション管理 `cc:TODO`

## その他

6. ログインログの保存 `cc:TODO`
7. 管理画面の改善 `cc:TODO`
"""


@pytest.fixture()
def p():
    return plans.parse(PLANS)


def sections(sel):
    return [t.section for t in sel.tasks]


# seed 001, 2. 範囲確認: | 指定パターン | 解釈 |
SEED_TABLE = [
    ("認証機能からユーザー管理まで", "between", "「認証」〜「ユーザー管理」を含むタスク", ["3", "4", "5"]),
    ("ログイン機能を終わらせて", "keywords", "「ログイン」を含む全タスク", ["3", "6"]),
    ("Header, Footer, Sidebar", "keywords",
     "列挙されたキーワード (「Header」, 「Footer」, 「Sidebar」) を含むタスク", ["2.2", "2.3"]),
    ("全部やって", "all", "Plans.md の全未完了タスク", ["2.2", "2.3", "2.4", "3", "4", "5", "6", "7"]),
    ("続きやって", "resume", "breezing-active.json から未完了タスクを復元", None),
]


@pytest.mark.parametrize("text,kind,meaning,expected", SEED_TABLE)
def test_the_seed_range_table(p, text, kind, meaning, expected):
    spec = rangesel.parse_range(text)
    assert spec.kind == kind
    assert spec.describe() == meaning
    if expected is None:
        with pytest.raises(ValueError):
            rangesel.select(p, spec)
    else:
        assert sections(rangesel.select(p, spec)) == expected


def test_the_flow_diagram_range_with_its_request_verb(p):
    """seed 001 フロー全体図: /breezing 認証機能からユーザー管理まで完了して"""
    spec = rangesel.parse_range("認証機能からユーザー管理まで完了して")
    assert (spec.kind, spec.start, spec.end) == ("between", "認証", "ユーザー管理")
    assert sections(rangesel.select(p, spec)) == ["3", "4", "5"]


def test_a_task_matches_by_its_heading_and_the_range_ends_at_the_last_match(p):
    # 3 (ログイン機能の実装) matches 認証 only by its heading; 5 only by 「ユーザー管理」
    sel = rangesel.select(p, rangesel.parse_range("認証からユーザー管理まで"))
    assert sections(sel) == ["3", "4", "5"]
    assert [t.title for t in sel.tasks][0] == "ログイン機能の実装"


def test_done_tasks_in_the_range_are_noted_not_taken(p):
    sel = rangesel.select(p, rangesel.parse_range("UIから認証機能まで"))
    assert sections(sel) == ["2.2", "2.3", "2.4", "3", "4"]
    assert ("done", "1 task(s) of the range are already cc:done: not taken") in sel.notes


@pytest.mark.parametrize("text,expected", [
    ("2.2..2.4", ["2.2", "2.3", "2.4"]),
    ("2.3まで", ["2.2", "2.3"]),
    ("ユーザー管理から", ["5", "6", "7"]),
    ("2", ["2.2", "2.3", "2.4"]),                  # a section number takes its subsections
    ("「セッション」", ["5"]),
    ("sidebar", ["2.3"]),                           # case-insensitive
    ("ログイン、セッション", ["3", "5", "6"]),          # the Japanese comma
])
def test_other_forms(p, text, expected):
    assert sections(rangesel.select(p, rangesel.parse_range(text))) == expected


@pytest.mark.parametrize("text,code,message", [
    ("決済から認証まで", "no_match", "no task in Plans.md matches 「決済」 (the start of the range)"),
    ("認証から決済まで", "no_match", "no task in Plans.md matches 「決済」 (the end of the range)"),
    ("ユーザー管理から認証まで", "reversed", "every task matching 「認証」 comes before the first "
                                      "task matching 「ユーザー管理」 in Plans.md: swap them"),
    ("Banner, Toolbar", "no_match", "no task in Plans.md matches 「Banner」, 「Toolbar」: name "
                                    "a task's title words or section number"),
    ("Header", "nothing_left", "no unfinished task in the range (「Header」を含む全タスク): "
                               "nothing to do"),
])
def test_ranges_that_cannot_be_used_are_named(p, text, code, message):
    with pytest.raises(rangesel.RangeError) as e:
        rangesel.select(p, rangesel.parse_range(text))
    assert (e.value.code, str(e.value)) == (code, message)


def test_a_list_takes_the_names_that_have_tasks(p):
    """Issue 27 item 13: one name without a task does not fail the whole list."""
    sel = rangesel.select(p, rangesel.parse_range("Footer, Banner, Sidebar"))
    assert [t.section for t in sel.tasks] == ["2.2", "2.3"]
    assert ("no_match", "no task in Plans.md matches 「Banner」: the other names are taken") \
        in sel.notes


@pytest.mark.parametrize("text", ["", "   ", "「」"])
def test_an_empty_range_is_refused(text):
    with pytest.raises(rangesel.RangeError) as e:
        rangesel.parse_range(text)
    assert e.value.code == "empty"


def test_blocked_and_unnumbered_tasks_are_noted():
    p = plans.parse("## 認証\n- [ ] 1.1 a `cc:TODO`\n- [ ] 1.2 b `blocked`\n- [ ] c `cc:TODO`\n")
    sel = rangesel.select(p, rangesel.parse_range("認証"))
    assert sections(sel) == ["1.1"]
    codes = [c for c, _ in sel.notes]
    assert codes == ["blocked", "unnumbered"]
    assert "cannot be mapped" in sel.notes[1][1]


def test_duplicate_section_numbers_are_refused():
    p = plans.parse("- [ ] 1 a `cc:TODO`\n- [ ] 1 b `cc:TODO`\n")
    with pytest.raises(rangesel.RangeError) as e:
        rangesel.select(p, rangesel.parse_range("全部やって"))
    assert e.value.code == "ambiguous"
