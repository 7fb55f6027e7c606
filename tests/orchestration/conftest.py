"""Fixtures for the orchestration tests: a project with a breezing session on disk."""

import json
import os

import pytest

SESSION = "breezing-20260206-0300"

# seed 000/001's breezing-active.json v2, verbatim
SEED_ACTIVE = {
    "session_id": SESSION,
    "started_at": "2026-02-06T03:00:00Z",
    "team_name": "breezing-auth-feature",
    "task_range": "認証機能からユーザー管理まで",
    "impl_mode": "standard",
    "plans_md_mapping": {"task-1": "4.1", "task-2": "4.2", "task-3": "4.3"},
    "options": {"codex_review": False, "parallel": 2},
    "team": {"implementer_count": 2, "reviewer_count": 1, "model": "sonnet"},
    "review": {"retake_count": 0, "max_retakes": 3},
}

SEED_PLANS = """# Plans.md

## Phase 4: 認証機能

### 4.1 ログイン機能の実装 <!-- cc:TODO -->
- ログインフォーム作成

### 4.2 認証ミドルウェアの作成 <!-- cc:TODO -->
- JWT 検証

### 4.3 セッション管理 <!-- cc:TODO -->
"""


def write_json(path, obj):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(obj, fh, ensure_ascii=False)


@pytest.fixture()
def proj(tmp_path):
    p = tmp_path / "proj"
    (p / ".claude" / "state").mkdir(parents=True)
    return p


@pytest.fixture()
def active(proj):
    """write the seed's breezing-active.json (optionally changed): active(**changes)."""
    def _write(**changes):
        data = {**SEED_ACTIVE, **changes}
        data = {k: v for k, v in data.items() if v is not None}
        write_json(proj / ".claude" / "state" / "breezing-active.json", data)
        return data
    return _write


@pytest.fixture()
def tasks_root(tmp_path, monkeypatch):
    """GATEWAY_TASKS_DIR for the test; team(name, {id: status}) writes a task list."""
    root = tmp_path / "tasks"
    monkeypatch.setenv("GATEWAY_TASKS_DIR", str(root))

    def team(name="breezing-auth-feature", statuses=None, subjects=None):
        d = root / name
        d.mkdir(parents=True, exist_ok=True)
        for tid, st in (statuses or {}).items():
            write_json(d / f"{tid}.json", {"id": tid, "subject": (subjects or {}).get(tid, tid),
                                           "status": st})
        return d
    team.root = root
    return team
