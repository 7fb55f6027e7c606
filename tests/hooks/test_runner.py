"""gateway.hooks.runner: an internal error before a decision is no decision for
PermissionRequest (the dialog) but a deny for the PreToolUse guards (they fail closed)."""

import io
import json

import pytest

from gateway.hooks import runner


class _Out(io.StringIO):
    pass


def _run_broken(monkeypatch, event):
    def boom(*_a, **_k):
        raise ImportError("gateway.guards.engine is broken")

    monkeypatch.setattr(runner, "respond", boom)
    out = _Out()
    rc = runner.run(event, stdin=io.BytesIO(b'{"tool_name": "Write"}'), stdout=out,
                    env={"GATEWAY_RESIDENT": "off", "GATEWAY_AUDIT_LOG": "off"})
    return rc, out.getvalue()


def test_pre_tool_use_denies_on_an_internal_error(monkeypatch):
    rc, text = _run_broken(monkeypatch, "pre-tool-use")
    assert rc == 0
    assert text.endswith("\n") and text.count("\n") == 1
    out = json.loads(text)
    assert out == {"hookSpecificOutput": {
        "hookEventName": "PreToolUse", "permissionDecision": "deny",
        "permissionDecisionReason": out["hookSpecificOutput"]["permissionDecisionReason"]}}
    assert out["hookSpecificOutput"]["permissionDecisionReason"].startswith("gateway GW893: ")


def test_permission_request_prints_nothing_on_an_internal_error(monkeypatch):
    assert _run_broken(monkeypatch, "permission-request") == (0, "")


@pytest.mark.parametrize("event", runner.events())
def test_every_fail_closed_event_exists(event):
    # the table names only real hooks, and every guard-type hook is in it
    assert set(runner._ON_INTERNAL_ERROR) <= set(runner.events())
    module = runner.module_for(event)
    if getattr(module, "ON_FAILURE_BLOCK", False):
        assert event in runner._ON_INTERNAL_ERROR
