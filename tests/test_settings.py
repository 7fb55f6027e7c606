"""The user's Claude Code permission rules are binding (gateway.settings)."""

import json

import pytest

from gateway import settings


def _rules(tmp_path, perms, name="settings.json"):
    proj = tmp_path / "proj"
    (proj / ".claude").mkdir(parents=True, exist_ok=True)
    (proj / ".claude" / name).write_text(json.dumps({"permissions": perms}))
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "home" / ".c")}
    return settings.load(str(proj), env)


@pytest.mark.parametrize("rule,command,hit", [
    ("Bash(git push:*)", "git push origin main", True),
    ("Bash(git push:*)", "git push", True),
    ("Bash(git push:*)", "git pushy", False),
    ("Bash(npm run build)", "npm run build", True),
    ("Bash(npm run build)", "npm run build --watch", False),
    ("Bash(ls *)", "ls -la", True),
    ("Bash(ls *)", "ls", True),
    ("Bash(ls *)", "lsof", False),
    ("Bash(git*push*)", "git -C . push", True),
    ("Bash", "anything at all", True),
    ("Bash(*)", "anything at all", True),
])
def test_rule_matching(tmp_path, rule, command, hit):
    rules = _rules(tmp_path, {"ask": [rule]})
    found = rules.match(command.split(), command)
    assert (found is not None) == hit
    if hit:
        assert found[:2] == ("ask", rule)


def test_deny_beats_ask(tmp_path):
    rules = _rules(tmp_path, {"ask": ["Bash(curl *)"], "deny": ["Bash(curl *)"]})
    assert rules.match(["curl", "x"], "curl x")[0] == "deny"


def test_other_tools_rules_are_ignored(tmp_path):
    rules = _rules(tmp_path, {"deny": ["Read(./.env)", "WebFetch(domain:x.com)"]})
    assert rules.rules == []


def test_local_settings_are_read(tmp_path):
    rules = _rules(tmp_path, {"ask": ["Bash(make:*)"]}, name="settings.local.json")
    assert rules.match(["make", "x"], "make x") is not None


@pytest.mark.parametrize("text", ["{not json", "[]", '{"permissions": []}',
                                  '{"permissions": {"ask": "Bash(x)"}}',
                                  '{"permissions": {"deny": [5]}}', "\xff"])
def test_broken_settings_are_errors(tmp_path, text):
    proj = tmp_path / "proj"
    (proj / ".claude").mkdir(parents=True)
    (proj / ".claude" / "settings.json").write_bytes(text.encode("latin-1"))
    rules = settings.load(str(proj), {"HOME": str(tmp_path)})
    assert len(rules.errors) == 1 and "settings.json" in rules.errors[0]


def test_ask_rule_stops_allow_and_deny_rule_denies(judge, tmp_path):
    rules = _rules(tmp_path, {"ask": ["Bash(git status:*)"], "deny": ["Bash(cat *)"]})
    v = judge("git status", settings=rules)
    assert (str(v.decision), v.code) == ("ask", "GW708")
    v = judge("ls && cat README.md", settings=rules)
    assert (str(v.decision), v.code) == ("deny", "GW709")
    v = judge("nice git status", settings=rules)
    assert v.code == "GW708"  # the wrapped command is named by the rule
