"""gateway.audit: one JSON line per decision, whatever the payload holds."""

import json

from gateway import audit
from gateway.decision import DENY, Verdict


def test_a_lone_surrogate_in_the_payload_is_logged_as_its_escape(tmp_path):
    log = tmp_path / "audit.jsonl"
    payload = {"session_id": "s", "tool_name": "Write",
               "tool_input": {"file_path": "/p/.claude/settings\ud800.json"}}
    verdict = Verdict(DENY, "guard:files", "GW832", "protected:x", "a \ud800 b")
    audit.record(verdict, event="PreToolUse", payload=payload,
                 env={"GATEWAY_AUDIT_LOG": str(log)})
    lines = log.read_bytes().splitlines()
    assert len(lines) == 1
    entry = json.loads(lines[0])
    assert entry["code"] == "GW832" and entry["message"] == "a \ud800 b"
