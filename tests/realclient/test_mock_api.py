"""Unit tests of the scripted Messages-API mock itself (no Claude Code client needed, fast)."""

from __future__ import annotations

import gzip
import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from .mock_api import MockAnthropic, bash, extract_tool_results, text, write


def post(
    mock: MockAnthropic, path: str, body: dict[str, Any], gz: bool = False
) -> tuple[int, str, str]:
    data = json.dumps(body).encode()
    headers = {"Content-Type": "application/json"}
    if gz:
        data = gzip.compress(data)
        headers["Content-Encoding"] = "gzip"
    req = urllib.request.Request(mock.base_url + path, data=data, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.headers.get("Content-Type", ""), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type", ""), e.read().decode()


def parse_sse(raw: str) -> list[tuple[str, dict[str, Any]]]:
    events = []
    for chunk in raw.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in chunk.splitlines())
        events.append((lines["event"], json.loads(lines["data"])))
    return events


AGENT_BODY = {
    "model": "m-1",
    "stream": True,
    "tools": [{"name": "Bash"}],
    "messages": [{"role": "user", "content": "hi"}],
}


def test_streamed_tool_use_event_sequence() -> None:
    with MockAnthropic(script=[[bash("touch marker", "Create marker")]]) as mock:
        status, ctype, raw = post(mock, "/v1/messages?beta=true", AGENT_BODY)
    assert status == 200 and ctype == "text/event-stream"
    events = parse_sse(raw)
    assert [e for e, _ in events] == [
        "message_start",
        "ping",
        "content_block_start",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    for name, data in events:
        assert data["type"] == name
    assert events[0][1]["message"]["model"] == "m-1"
    start = events[2][1]["content_block"]
    assert start["type"] == "tool_use" and start["name"] == "Bash" and start["input"] == {}
    partial = "".join(d["delta"]["partial_json"] for n, d in events if n == "content_block_delta")
    assert json.loads(partial) == {"command": "touch marker", "description": "Create marker"}
    assert events[6][1]["delta"]["stop_reason"] == "tool_use"


def test_streamed_text_then_default_done() -> None:
    with MockAnthropic(script=[[text("hello")]]) as mock:
        _, _, first = post(mock, "/v1/messages", AGENT_BODY)
        _, _, second = post(mock, "/v1/messages", AGENT_BODY)
    for raw, expected in ((first, "hello"), (second, "done")):
        events = parse_sse(raw)
        deltas = [d["delta"] for n, d in events if n == "content_block_delta"]
        assert deltas == [{"type": "text_delta", "text": expected}]
        assert events[-2][1]["delta"]["stop_reason"] == "end_turn"


def test_non_streaming_json_and_side_requests_do_not_consume_script() -> None:
    with MockAnthropic(script=[[write("/tmp/x", "y")]]) as mock:
        # no tools → a side request: answered "done", script untouched
        _, _, side = post(mock, "/v1/messages", {"model": "m", "messages": []})
        assert json.loads(side)["content"] == [{"type": "text", "text": "done"}]
        assert mock.remaining == 1
        status, ctype, raw = post(mock, "/v1/messages", {**AGENT_BODY, "stream": False}, gz=True)
        assert mock.remaining == 0
        assert [r.kind for r in mock.message_requests()] == ["side", "agent"]
    msg = json.loads(raw)
    assert status == 200 and ctype == "application/json"
    assert msg["stop_reason"] == "tool_use"
    assert msg["content"][0]["name"] == "Write"
    assert msg["content"][0]["input"] == {"file_path": "/tmp/x", "content": "y"}


def test_count_tokens_and_unknown_routes() -> None:
    with MockAnthropic() as mock:
        status, _, raw = post(mock, "/v1/messages/count_tokens", {"messages": []})
        assert status == 200 and json.loads(raw) == {"input_tokens": 42}
        status, _, raw = post(mock, "/api/whatever", {})
        assert status == 404 and json.loads(raw)["error"]["type"] == "not_found_error"
        assert [(r.path, r.kind) for r in mock.requests] == [
            ("/v1/messages/count_tokens", "count_tokens"),
            ("/api/whatever", "other"),
        ]


def test_tool_results_are_logged_and_deduplicated() -> None:
    tr = {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "is_error": True,
        "content": [{"type": "text", "text": "no"}],
    }
    body1 = {**AGENT_BODY, "messages": [{"role": "user", "content": [tr]}]}
    body2 = {
        **AGENT_BODY,
        "messages": [
            {"role": "user", "content": [tr]},
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_2", "content": "ok"}],
            },
        ],
    }
    with MockAnthropic() as mock:
        post(mock, "/v1/messages", body1)
        post(mock, "/v1/messages", body2)
        got = [{k: v for k, v in r.items() if k != "raw"} for r in mock.tool_results()]
    assert got == [
        {"tool_use_id": "toolu_1", "is_error": True, "text": "no"},
        {"tool_use_id": "toolu_2", "is_error": False, "text": "ok"},
    ]
    assert extract_tool_results(["not a dict", None]) == []


def test_unsupported_block_type_rejected() -> None:
    from .mock_api import render_sse

    with pytest.raises(ValueError):
        render_sse([{"type": "image"}], "m", "id")
