"""gateway.orchestration.plans: Plans.md markers, sections, and the one atomic completion write
(seed 000: Plans.md is updated only at completion, cc:TODO → cc:done)."""

import os

import pytest

from gateway.orchestration import plans
from gateway.orchestration.plans import PlansError

# The seed's examples in one file: plans-to-tasklist's headings with comment markers, the
# confirmation screen's numbered list, the template's checkbox items, a progress table, a
# marker legend and a fenced example (neither of which are tasks).
SAMPLE = """# Plans.md

## Phase 4: 認証機能

### 4.1 ログイン機能の実装 <!-- cc:TODO -->
- ログインフォーム作成
owns: src/components/LoginForm.tsx, src/app/api/auth/login/route.ts

### 4.2 認証ミドルウェアの作成 <!-- cc:WIP -->
### 4.3 セッション管理 <!-- cc:done -->

5. ユーザー管理 (cc:TODO)
- [ ] 6.1 Header のリファクタ `cc:todo` depends:4.1,4.2 [P]
- [x] 6.2 Footer `cc:完了`
- [ ] Initial project setup `cc:todo`

| Task | 内容 | Depends | Status |
|------|------|---------|--------|
| 26.0.1 | 失敗原因分析を追加 | - | cc:完了 |
| 26.0.2 | 承認フロー | 26.0.1 | cc:TODO |

| Marker | Meaning |
|--------|---------|
| `cc:todo` | Not started |
| `pm:approved` | PM confirmed |

```markdown
- [ ] 9.9 an example inside a fence `cc:TODO`
```
- [ ] T002: User API `pm:依頼中`
- [ ] 7.1 blocked one `blocked`
"""


def _summary(p):
    return [(t.section, t.title, t.status) for t in p.tasks]


def test_parses_every_task_form():
    p = plans.parse(SAMPLE)
    assert _summary(p) == [
        ("4.1", "ログイン機能の実装", "todo"),
        ("4.2", "認証ミドルウェアの作成", "wip"),
        ("4.3", "セッション管理", "done"),
        ("5", "ユーザー管理", "todo"),
        ("6.1", "Header のリファクタ", "todo"),
        ("6.2", "Footer", "done"),
        (None, "Initial project setup", "todo"),
        ("26.0.1", "失敗原因分析を追加", "done"),
        ("26.0.2", "承認フロー", "todo"),
        ("T002", "User API", "todo"),
        ("7.1", "blocked one", "blocked"),
    ]
    t = p.get("4.1")
    assert t.owns == ("src/components/LoginForm.tsx", "src/app/api/auth/login/route.ts")
    assert p.get("6.1").depends == ("4.1", "4.2")
    assert p.get("26.0.2").depends == ("26.0.1",)
    assert [t.section for t in p.unfinished()] == ["4.1", "4.2", "5", "6.1", None, "26.0.2",
                                                   "T002", "7.1"]


def test_a_heading_carrying_a_marker_is_a_task_the_phase_heading_without_one_is_not():
    p = plans.parse("## 4. 認証機能 `cc:TODO`\n## 5. 説明だけ\n")
    assert _summary(p) == [("4", "認証機能", "todo")]


def test_duplicate_sections_are_ambiguous():
    p = plans.parse("- [ ] 4.1 a `cc:TODO`\n- [ ] 4.1 b `cc:TODO`\n")
    assert p.get("4.1") is None and len(p.sections("4.1")) == 2
    assert p.duplicates() == ["4.1"]


def test_lookup_by_title_ignores_the_section_number():
    p = plans.parse(SAMPLE)
    assert [t.section for t in p.by_title("4.2 認証ミドルウェアの作成")] == ["4.2"]


# --- the completion write ---------------------------------------------------------------


@pytest.fixture()
def proj(tmp_path):
    (tmp_path / ".claude" / "state").mkdir(parents=True)
    path = tmp_path / "Plans.md"
    path.write_text(SAMPLE, encoding="utf-8")
    os.chmod(path, 0o644)
    return tmp_path


def test_mark_done_changes_exactly_the_marker_lines(proj):
    path = proj / "Plans.md"
    changed = plans.mark_done(path, ["4.1", "4.2", "6.1", "26.0.2", "4.3"])
    assert [t.section for t in changed] == ["4.1", "4.2", "6.1", "26.0.2"]   # 4.3 was done
    before = SAMPLE.split("\n")
    after = path.read_text(encoding="utf-8").split("\n")
    diff = [(b, a) for b, a in zip(before, after, strict=True) if a != b]
    assert diff == [
        ("### 4.1 ログイン機能の実装 <!-- cc:TODO -->", "### 4.1 ログイン機能の実装 <!-- cc:done -->"),
        ("### 4.2 認証ミドルウェアの作成 <!-- cc:WIP -->", "### 4.2 認証ミドルウェアの作成 <!-- cc:done -->"),
        ("- [ ] 6.1 Header のリファクタ `cc:todo` depends:4.1,4.2 [P]",
         "- [x] 6.1 Header のリファクタ `cc:done` depends:4.1,4.2 [P]"),
        ("| 26.0.2 | 承認フロー | 26.0.1 | cc:TODO |", "| 26.0.2 | 承認フロー | 26.0.1 | cc:done |"),
    ]
    assert os.stat(path).st_mode & 0o777 == 0o644              # mode kept
    assert all(t.done for t in plans.load(path).tasks if t.section in ("4.1", "6.1"))
    assert not any(n.endswith(".lock") for n in os.listdir(proj))   # no lock beside Plans.md


def test_mark_done_again_changes_nothing(proj):
    plans.mark_done(proj / "Plans.md", ["4.1"])
    data = (proj / "Plans.md").read_bytes()
    assert plans.mark_done(proj / "Plans.md", ["4.1"]) == []
    assert (proj / "Plans.md").read_bytes() == data


@pytest.mark.parametrize("sections,msg", [
    (["4.1", "9.9"], "no task with section 9.9; nothing was changed"),
    (["4.1", "8.8", "9.9"], "no task with section 8.8, 9.9; nothing was changed"),
])
def test_mark_done_writes_nothing_when_a_section_is_missing(proj, sections, msg):
    data = (proj / "Plans.md").read_bytes()
    with pytest.raises(PlansError, match=msg):
        plans.mark_done(proj / "Plans.md", sections)
    assert (proj / "Plans.md").read_bytes() == data


def test_mark_done_refuses_an_ambiguous_section(tmp_path):
    p = tmp_path / "Plans.md"
    p.write_text("- [ ] 4.1 a `cc:TODO`\n- [ ] 4.1 b `cc:TODO`\n")
    with pytest.raises(PlansError, match="more than one task with section 4.1"):
        plans.mark_done(p, ["4.1"])
    assert "cc:done" not in p.read_text()


def test_mark_done_refuses_a_file_changed_meanwhile(proj, monkeypatch):
    path = proj / "Plans.md"
    real = plans._read
    calls = []

    def racing(p):
        calls.append(p)
        data = real(p)
        if len(calls) == 2:                   # the re-check: someone edited in between
            return data + b"\n- [ ] 9.1 new `cc:TODO`\n"
        return data

    monkeypatch.setattr(plans, "_read", racing)
    with pytest.raises(PlansError, match="changed while it was being updated"):
        plans.mark_done(path, ["4.1"])
    assert path.read_text(encoding="utf-8") == SAMPLE


def test_unreadable_plans_are_errors_that_say_what(tmp_path):
    with pytest.raises(PlansError, match="does not exist"):
        plans.load(tmp_path / "Plans.md")
    (tmp_path / "real.md").write_text("- [ ] 1 x `cc:TODO`\n")
    os.symlink(tmp_path / "real.md", tmp_path / "Plans.md")
    with pytest.raises(PlansError, match="symbolic link"):
        plans.load(tmp_path / "Plans.md")
    (tmp_path / "bad.md").write_bytes(b"- [ ] 1 \xff `cc:TODO`\n")
    with pytest.raises(PlansError, match="not UTF-8"):
        plans.load(tmp_path / "bad.md")


# --- Phase C ---------------------------------------------------------------------------------


def _session(proj, **kw):
    import json

    data = {"session_id": "breezing-1", "team_name": "t",
            "plans_md_mapping": {"task-1": "4.2", "task-2": "6.1"}, **kw}
    (proj / ".claude" / "state" / "breezing-active.json").write_text(json.dumps(data))


def test_complete_session_only_at_phase_c(proj):
    from gateway.state import fast

    _session(proj, completed_sections=["4.1"])
    data = (proj / "Plans.md").read_bytes()
    with pytest.raises(PlansError, match="only at Phase C and no phase is recorded"):
        plans.complete_session(proj)
    fast.set_phase(proj, "B")
    with pytest.raises(PlansError, match="only at Phase C and phase B is recorded"):
        plans.complete_session(proj)
    assert (proj / "Plans.md").read_bytes() == data
    fast.set_phase(proj, "C")
    changed = plans.complete_session(proj)
    assert [t.section for t in changed] == ["4.1", "4.2", "6.1"]   # earlier teams' too
    assert all(plans.load(proj / "Plans.md").get(s).done for s in ("4.1", "4.2", "6.1"))


def test_complete_session_without_a_session(proj):
    with pytest.raises(PlansError, match="no breezing session"):
        plans.complete_session(proj)
