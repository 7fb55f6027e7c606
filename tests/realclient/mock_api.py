"""A scripted, logging mock of the Anthropic Messages API for driving the real Claude Code client.

Stdlib only (``http.server`` + ``threading``). It serves ``POST /v1/messages`` both as SSE
(``"stream": true``, which is what Claude Code uses) and as plain JSON, plus
``POST /v1/messages/count_tokens``. Everything else is logged and answered with an
Anthropic-style 404 error, which the client treats as "feature not available".

Scripting
---------
The mock holds a queue of *turns*. Each turn is a list of content blocks the assistant returns:

    MockAnthropic(script=[
        [tool_use("Bash", {"command": "touch marker", "description": "Create marker"})],
        [text("done")],
    ])

Only *agent-loop* requests consume the queue: a request whose ``tools`` list is non-empty
(the main thread and subagents send their tool list). Side requests the client makes on its
own (title generation, quota probes, ...) carry no tools; they get a plain ``"done"`` text
reply and never eat a scripted turn. When the queue is empty every request gets
``[text("done")]``, so the session ends cleanly.

Logging
-------
Every request is recorded in ``MockAnthropic.requests`` as a :class:`LoggedRequest`
(method, path, headers, parsed JSON body or raw text). :meth:`MockAnthropic.tool_results`
extracts the ``tool_result`` blocks the client sent back to the model, normalised to
``{"tool_use_id", "is_error", "text"}``.

Run standalone for manual probing::

    python tests/realclient/mock_api.py --port 8765 --bash "touch marker"
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import sys
import threading
import time
import uuid
import zlib
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Block = dict[str, Any]
Turn = list[Block]

DEFAULT_MODEL = "claude-sonnet-4-5"


# --------------------------------------------------------------------------- content helpers


def text(s: str) -> Block:
    """An assistant text block."""
    return {"type": "text", "text": s}


def tool_use(name: str, tool_input: dict[str, Any], tool_use_id: str | None = None) -> Block:
    """An assistant ``tool_use`` block (the id is generated when not given)."""
    return {
        "type": "tool_use",
        "id": tool_use_id or "toolu_" + uuid.uuid4().hex[:24],
        "name": name,
        "input": tool_input,
    }


def bash(command: str, description: str = "Run a command") -> Block:
    return tool_use("Bash", {"command": command, "description": description})


def write(file_path: str, content: str) -> Block:
    return tool_use("Write", {"file_path": file_path, "content": content})


# --------------------------------------------------------------------------- request log


@dataclass
class LoggedRequest:
    seq: int
    time: float
    method: str
    path: str
    headers: dict[str, str]
    body: Any  # parsed JSON when possible, else the raw text (or None)
    # "agent" (had tools; may consume a scripted turn), "side", "count_tokens" or "other"
    kind: str = "other"
    response_turn: Turn | None = None  # what the mock answered with, for /v1/messages

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "time": self.time,
            "method": self.method,
            "path": self.path,
            "headers": self.headers,
            "kind": self.kind,
            "body": self.body,
            "response_turn": self.response_turn,
        }


def _block_text(content: Any) -> str:
    """Flatten a tool_result ``content`` (string or list of blocks) to text."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for b in content:
            if isinstance(b, dict):
                if b.get("type") == "text":
                    parts.append(b.get("text", ""))
                else:
                    parts.append(json.dumps(b))
            else:
                parts.append(str(b))
        return "\n".join(parts)
    return json.dumps(content)


def extract_tool_results(bodies: list[Any]) -> list[dict[str, Any]]:
    """All distinct ``tool_result`` blocks in the ``messages`` of the given request bodies.

    The client re-sends the whole conversation on each call, so the same tool_result shows up
    in every later request; results are de-duplicated by ``tool_use_id`` (first seen wins).
    """
    seen: dict[str, dict[str, Any]] = {}
    for body in bodies:
        if not isinstance(body, dict):
            continue
        for msg in body.get("messages") or []:
            if not isinstance(msg, dict) or msg.get("role") != "user":
                continue
            content = msg.get("content")
            if not isinstance(content, list):
                continue
            for b in content:
                if isinstance(b, dict) and b.get("type") == "tool_result":
                    tid = b.get("tool_use_id", "")
                    if tid in seen:
                        continue
                    seen[tid] = {
                        "tool_use_id": tid,
                        "is_error": bool(b.get("is_error", False)),
                        "text": _block_text(b.get("content")),
                        "raw": b,
                    }
    return list(seen.values())


# --------------------------------------------------------------------------- SSE rendering


def _sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


def _stop_reason(turn: Turn) -> str:
    return "tool_use" if any(b.get("type") == "tool_use" for b in turn) else "end_turn"


def _usage(output_tokens: int = 1) -> dict[str, Any]:
    return {
        "input_tokens": 10,
        "output_tokens": output_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }


def render_sse(turn: Turn, model: str, msg_id: str) -> bytes:
    """The exact SSE event sequence of a streamed Messages API response."""
    out = [
        _sse(
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": msg_id,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": _usage(1),
                },
            },
        ),
        _sse("ping", {"type": "ping"}),
    ]
    for i, block in enumerate(turn):
        if block["type"] == "text":
            out.append(
                _sse(
                    "content_block_start",
                    {
                        "type": "content_block_start",
                        "index": i,
                        "content_block": {"type": "text", "text": ""},
                    },
                )
            )
            out.append(
                _sse(
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": i,
                        "delta": {"type": "text_delta", "text": block["text"]},
                    },
                )
            )
        elif block["type"] == "tool_use":
            out.append(
                _sse(
                    "content_block_start",
                    {
                        "type": "content_block_start",
                        "index": i,
                        "content_block": {
                            "type": "tool_use",
                            "id": block["id"],
                            "name": block["name"],
                            "input": {},
                        },
                    },
                )
            )
            payload = json.dumps(block["input"])
            # Split the JSON in two deltas, as the real API streams partial JSON.
            cut = max(1, len(payload) // 2)
            for piece in (payload[:cut], payload[cut:]):
                if piece:
                    out.append(
                        _sse(
                            "content_block_delta",
                            {
                                "type": "content_block_delta",
                                "index": i,
                                "delta": {"type": "input_json_delta", "partial_json": piece},
                            },
                        )
                    )
        else:
            raise ValueError(f"unsupported block type {block['type']!r}")
        out.append(_sse("content_block_stop", {"type": "content_block_stop", "index": i}))
    out.append(
        _sse(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": _stop_reason(turn), "stop_sequence": None},
                "usage": {"output_tokens": 5},
            },
        )
    )
    out.append(_sse("message_stop", {"type": "message_stop"}))
    return b"".join(out)


def render_json(turn: Turn, model: str, msg_id: str) -> dict[str, Any]:
    return {
        "id": msg_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": turn,
        "stop_reason": _stop_reason(turn),
        "stop_sequence": None,
        "usage": _usage(5),
    }


# --------------------------------------------------------------------------- server


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - silence stderr
        pass

    # -- body reading (Content-Length, chunked, gzip/deflate)
    def _read_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while True:
                line = self.rfile.readline().strip()
                size = int(line.split(b";")[0] or b"0", 16)
                if size == 0:
                    # trailers until blank line
                    while self.rfile.readline().strip():
                        pass
                    break
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            raw = b"".join(chunks)
        else:
            n = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(n) if n else b""
        enc = (self.headers.get("Content-Encoding") or "").lower()
        if enc == "gzip":
            raw = gzip.decompress(raw)
        elif enc == "deflate":
            raw = zlib.decompress(raw)
        return raw

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("request-id", "req_mock_" + uuid.uuid4().hex[:12])
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
        self.wfile.flush()

    def _send_json(self, status: int, obj: Any) -> None:
        self._send(status, json.dumps(obj).encode(), "application/json")

    def _log(self, body: Any) -> LoggedRequest:
        return self.server.mock._record(self.command, self.path, dict(self.headers.items()), body)

    def _handle(self) -> None:
        raw = self._read_body() if self.command in ("POST", "PUT", "PATCH") else b""
        body: Any = None
        if raw:
            try:
                body = json.loads(raw)
            except ValueError:
                body = raw.decode("utf-8", "replace")
        entry = self._log(body)
        path = self.path.split("?", 1)[0]
        mock = self.server.mock

        if self.command == "POST" and path.endswith("/v1/messages/count_tokens"):
            entry.kind = "count_tokens"
            self._send_json(200, {"input_tokens": 42})
            return
        if self.command == "POST" and path.endswith("/v1/messages"):
            body = body if isinstance(body, dict) else {}
            turn, kind = mock._next_turn(body)
            entry.kind = kind
            entry.response_turn = turn
            model = body.get("model") or DEFAULT_MODEL
            msg_id = "msg_mock_" + uuid.uuid4().hex[:16]
            if body.get("stream"):
                self._send(200, render_sse(turn, model, msg_id), "text/event-stream")
            else:
                self._send_json(200, render_json(turn, model, msg_id))
            return
        # Anything else (OAuth/profile/feature-flag/telemetry endpoints): a clean, typed 404.
        self._send_json(
            404,
            {
                "type": "error",
                "error": {"type": "not_found_error", "message": f"mock: no route {path}"},
            },
        )

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _handle  # noqa: N815


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    mock: MockAnthropic

    def handle_error(self, request: Any, client_address: Any) -> None:
        # The client drops idle keep-alive connections when it exits; that is not an error.
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionResetError, BrokenPipeError, TimeoutError)):
            return
        super().handle_error(request, client_address)


@dataclass
class MockAnthropic:
    """Scripted mock. Use as a context manager or call :meth:`start` / :meth:`stop`."""

    script: list[Turn] = field(default_factory=list)
    host: str = "127.0.0.1"
    port: int = 0  # 0 = pick a free port
    default_turn: Turn = field(default_factory=lambda: [text("done")])

    def __post_init__(self) -> None:
        self.requests: list[LoggedRequest] = []
        self._queue: list[Turn] = [list(t) for t in self.script]
        self._lock = threading.Lock()
        self._seq = itertools.count(1)
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle
    def start(self) -> MockAnthropic:
        self._httpd = _Server((self.host, self.port), _Handler)
        self._httpd.mock = self
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="mock-anthropic",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> MockAnthropic:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    # -- scripting
    def push(self, *turns: Turn) -> None:
        with self._lock:
            self._queue.extend(list(t) for t in turns)

    @property
    def remaining(self) -> int:
        with self._lock:
            return len(self._queue)

    def _next_turn(self, body: dict[str, Any]) -> tuple[Turn, str]:
        is_agent = bool(body.get("tools"))
        with self._lock:
            if is_agent and self._queue:
                return self._queue.pop(0), "agent"
        return list(self.default_turn), ("agent" if is_agent else "side")

    # -- log access
    def _record(self, method: str, path: str, headers: dict[str, str], body: Any) -> LoggedRequest:
        entry = LoggedRequest(next(self._seq), time.time(), method, path, headers, body)
        with self._lock:
            self.requests.append(entry)
        return entry

    def message_requests(self, kind: str | None = None) -> list[LoggedRequest]:
        with self._lock:
            reqs = list(self.requests)
        return [
            r
            for r in reqs
            if r.method == "POST"
            and r.path.split("?", 1)[0].endswith("/v1/messages")
            and (kind is None or r.kind == kind)
        ]

    def tool_results(self) -> list[dict[str, Any]]:
        return extract_tool_results([r.body for r in self.message_requests()])

    def dump(self) -> list[dict[str, Any]]:
        with self._lock:
            return [r.to_json() for r in self.requests]


def main() -> None:  # pragma: no cover - manual probing aid
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--port", type=int, default=8765)
    ap.add_argument("--bash", help="first agent turn = Bash tool_use with this command")
    ap.add_argument("--log", default="-", help="where to write the JSON request log on Ctrl-C")
    args = ap.parse_args()
    script = [[bash(args.bash)]] if args.bash else []
    mock = MockAnthropic(script=script, port=args.port).start()
    print(f"mock listening on {mock.base_url}", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        mock.stop()
        data = json.dumps(mock.dump(), indent=2)
        if args.log == "-":
            print(data)
        else:
            with open(args.log, "w") as f:
                f.write(data)


if __name__ == "__main__":  # pragma: no cover
    main()
