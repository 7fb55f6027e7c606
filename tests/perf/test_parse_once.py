"""A PreToolUse call parses its command once (issue 13: "a long command is parsed once per
hook call"). The hook judges an allowed Bash command with the validator (the early allow) and
a command it does not allow with the guards' analysis too; both use phase 2's parse of the same
text. Texts over 2 KB used to be parsed twice. Counted through the real engine."""

import json

import pytest

from gateway import runtime
from gateway.shell import parse as shell_parse
from gateway.validator import phase2_syntax


def _payload(command, cwd):
    return {"session_id": "s1", "transcript_path": "/tmp/t.jsonl", "cwd": cwd,
            "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": command, "description": "x"}, "tool_use_id": "t1"}


@pytest.mark.parametrize("size", [100, 3000, 20000])
@pytest.mark.parametrize("shape", ["allowed", "asked"])
def test_the_whole_command_is_parsed_once(tmp_path, monkeypatch, size, shape):
    (tmp_path / ".git").mkdir()
    (tmp_path / "notes.txt").write_text("x\n")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("GATEWAY_EARLY_ALLOW", "1")
    text = "line of a long message " * (size // 23 + 1)
    if shape == "allowed":
        command = f"echo {json.dumps(text)} | wc -l"
    else:
        # an unknown program: the validator asks, the guards analyse it as well
        command = f"frobnicate {json.dumps(text)} notes.txt"
    phase2_syntax._MEMO.clear()
    phase2_syntax._MEMO_LONG.clear()
    calls = []
    real = shell_parse.parse

    def counting(t, *a, **kw):
        calls.append(t)
        return real(t, *a, **kw)

    monkeypatch.setattr(shell_parse, "parse", counting)
    verdict = runtime.evaluate_guards(_payload(command, str(tmp_path)))
    expected = "ALLOW" if shape == "allowed" else "ASK"
    assert verdict.decision.name == expected, verdict
    assert sum(1 for t in calls if t == command) == 1, (len(calls), [len(t) for t in calls])
