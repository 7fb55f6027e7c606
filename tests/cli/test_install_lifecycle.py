"""The lifecycle hooks (SessionStart, PreCompact, TaskCompleted, TeammateIdle,
UserPromptSubmit) in `gateway install`, `gateway uninstall` and `gateway doctor`: registered
from their modules like the permission hooks, matcher-less events without a matcher,
SessionStart with its source matcher, idempotent, removed exactly, checked by doctor (whose
probe must not change any state)."""

import json
import os
import sys
from pathlib import Path

import pytest

from gateway.install import doctor, entries, ops

GW = str(Path(sys.executable).parent / "gateway")
pytestmark = pytest.mark.skipif(not Path(GW).exists(),
                                reason=f"no gateway console script at {GW} (pip install -e .)")

LIFECYCLE = {"SessionStart": ("session-start", "startup|resume|clear|compact"),
             "PreCompact": ("pre-compact", None), "TaskCompleted": ("task-completed", None),
             "TeammateIdle": ("teammate-idle", None),
             "UserPromptSubmit": ("user-prompt-submit", None)}


@pytest.fixture()
def project(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "userclaude"))
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    p = tmp_path / "proj"
    (p / ".claude").mkdir(parents=True)
    return p


def _settings(project):
    return project / ".claude" / "settings.json"


def test_every_lifecycle_hook_is_a_hook_spec():
    specs = {s.event: s for s in entries.hook_specs()}
    for event, (name, matcher) in LIFECYCLE.items():
        s = specs[event]
        assert (s.name, s.matcher, s.on_failure_block, s.timeout) == (name, matcher, False, 30)


def test_install_registers_them_with_the_right_matchers(project):
    res = ops.install("project", str(project), gateway_path=GW, launcher="script")
    hooks = json.loads(_settings(project).read_text())["hooks"]
    for event, (name, matcher) in LIFECYCLE.items():
        expected = {"hooks": [{"type": "command", "command": f"{GW} hook {name}",
                               "timeout": 30}]}
        if matcher is not None:
            expected = {"matcher": matcher, **expected}
        assert hooks[event] == [expected], event
    assert hooks["PreToolUse"][0]["hooks"][0]["onFailure"] == "block"
    lines = {c.event: str(c) for c in res.changes}
    assert lines["SessionStart"] == (f"add    SessionStart (session-start): matcher "
                                     f"'startup|resume|clear|compact', {GW} hook session-start")
    assert lines["TaskCompleted"] == (f"add    TaskCompleted (task-completed): every time, "
                                      f"{GW} hook task-completed")
    assert lines["PreToolUse"].startswith("add    PreToolUse (pre-tool-use): every tool, ")


def test_install_is_idempotent_and_keeps_the_users_own_hooks(project):
    mine = {"SessionStart": [{"matcher": "startup", "hooks": [
                {"type": "command", "command": "echo hello"}]}],
            "PreCompact": [{"hooks": [{"type": "command", "command": "./save-notes.sh"}]}],
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "./log.sh"}]}]}
    original = json.dumps({"model": "x", "hooks": mine}, indent=4).encode()
    _settings(project).write_bytes(original)
    ops.install("project", str(project), gateway_path=GW, launcher="script")
    first = _settings(project).read_bytes()
    hooks = json.loads(first)["hooks"]
    assert hooks["SessionStart"][0] == mine["SessionStart"][0]
    assert hooks["SessionStart"][1]["matcher"] == "startup|resume|clear|compact"
    assert hooks["PreCompact"][0] == mine["PreCompact"][0] and len(hooks["PreCompact"]) == 2
    again = ops.install("project", str(project), gateway_path=GW, launcher="script")
    assert {c.action for c in again.changes} == {"keep"}
    assert _settings(project).read_bytes() == first
    ops.uninstall("project", str(project))
    assert _settings(project).read_bytes() == original                  # exact round trip


def test_uninstall_removes_every_lifecycle_handler(project):
    ops.install("project", str(project), gateway_path=GW, launcher="script")
    res = ops.uninstall("project", str(project))
    removed = {(c.event, c.hook) for c in res.changes if c.action == "remove"}
    assert {(e, n) for e, (n, _m) in LIFECYCLE.items()} <= removed
    assert not _settings(project).exists()          # install created it: uninstall removes it


def test_doctor_accepts_the_installed_lifecycle_hooks(project):
    from gateway.sandbox.configure import Choice

    ops.install("project", str(project), gateway_path=GW, launcher="script",
                sandbox=Choice("on"))
    checks = doctor.run(str(project), claude="/nonexistent/claude")
    bad = [(c.status, c.title) for c in checks if c.status in ("fail", "warn")
           and not c.title.startswith("Claude Code at /nonexistent/claude")]
    assert bad == []
    titles = [c.title for c in checks if c.status == "ok"]
    for event in LIFECYCLE:
        assert f"{event} hook runs: no output" in titles, titles


def test_doctor_reports_a_missing_or_changed_lifecycle_registration(project):
    ops.install("project", str(project), gateway_path=GW, launcher="script")
    data = json.loads(_settings(project).read_text())
    del data["hooks"]["TaskCompleted"]
    data["hooks"]["SessionStart"][0]["matcher"] = "startup"
    _settings(project).write_text(json.dumps(data))
    checks = doctor.run(str(project), probe=False)
    fails = [(c.title, c.fix) for c in checks if c.status == "fail"]
    assert ("TaskCompleted (task-completed) is not registered in any settings file",
            "gateway install") in fails
    warns = [c.title for c in checks if c.status == "warn"]
    assert any(w.startswith("SessionStart in project ") and
               w.endswith("has matcher 'startup'; the gateway registers "
                          "'startup|resume|clear|compact'")
               for w in warns), warns


def test_doctors_probe_changes_no_state(project):
    """doctor runs every registered hook with a sample payload; for the lifecycle hooks that
    payload lacks the event's own fields, so nothing is recorded, saved or consumed."""
    state = project / ".claude" / "state"
    state.mkdir()
    (state / "breezing-active.json").write_text(json.dumps(
        {"session_id": "breezing-1", "team_name": "t", "plans_md_mapping": {"task-1": "1"}}))
    (state / "breezing-signals.jsonl").write_text(json.dumps(
        {"signal": "partial_review_recommended", "session_id": "breezing-1", "completed": 2,
         "total": 3}) + "\n")
    specs = project / ".cc-craft-kit" / "specs"
    specs.mkdir(parents=True)
    (specs / "s.md").write_text("# s\n**仕様書 ID:** abc\n**フェーズ:** implementation\n"
                                "## 8. 実装タスクリスト\n- [ ] a (#1)\n")
    before = {n: (state / n).read_bytes() for n in os.listdir(state)}
    ops.install("project", str(project), gateway_path=GW, launcher="script")
    checks = doctor.run(str(project), claude="/nonexistent/claude")
    assert not [c for c in checks if c.status == "fail"]
    assert {n: (state / n).read_bytes() for n in os.listdir(state)
            if not n.startswith(".")} == before


def test_plugin_hooks_carry_the_lifecycle_events():
    hooks = entries.plugin_hooks()["hooks"]
    for event, (name, matcher) in LIFECYCLE.items():
        g = hooks[event][0]
        assert g.get("matcher") == matcher
        assert g["hooks"][0]["command"].endswith(f'/hooks/gateway-hook" {name}')
        assert "onFailure" not in g["hooks"][0]
