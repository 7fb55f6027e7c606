"""Issue 25's new allows, run by the real client: no dialog, and does the command work?

The gateway's allow only helps if Claude Code then runs the command and it does what the
developer wanted. These forms were allowed by the hooks (tests/e2e) but never run through
the client: a read-only sqlite3 query, python -c of imports and prints, bash's `time`, curl
to the project's own dev server. With the gateway installed as a user installs it (`gateway
install`: the hooks and, where it can start, the Bash sandbox) and no permission rule of
the user's, each runs in print mode (where an ask is a refusal); the audit log says the
gateway allowed it. curl to the loopback is allowed but, in the sandbox, cannot connect
(measured below): the OS decides.
"""

from __future__ import annotations

import json
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .client import require_client
from .mock_api import bash
from .test_gateway_install import Sandbox

pytestmark = pytest.mark.realclient

CLAUDE = require_client()

SERVER = """import http.server, sys

class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b"hello-from-the-dev-server\\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass

http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def project(tmp_path: Path):
    b = Sandbox(tmp_path)
    p = b.project
    (p / "devserver").mkdir()
    (p / "devserver" / "serve.py").write_text(SERVER)
    (p / ".gitignore").write_text("*.db\n")
    db = sqlite3.connect(p / "app.db")
    db.executescript("create table orders(id integer primary key, sku text);"
                     "insert into orders(sku) values ('A1'), ('B2'), ('C3');")
    db.commit()
    db.close()
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "init"]):
        subprocess.run(git + args, cwd=p, check=True, capture_output=True)
    out = b.install()
    assert out.returncode == 0, out.stdout + out.stderr
    port = _free_port()
    server = subprocess.Popen([sys.executable, "devserver/serve.py", str(port)], cwd=p,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            break
        except OSError:
            assert server.poll() is None and time.monotonic() < deadline, "no dev server"
            time.sleep(0.1)
    yield b, port
    server.kill()
    server.wait()


def _sandboxed(b) -> bool:
    return bool(json.loads(b.settings.read_text()).get("sandbox", {}).get("enabled"))


def test_the_new_everyday_allows_run_with_no_dialog(project):
    b, port = project
    calls = [
        ("sqlite3 app.db 'select count(*) from orders'", "3"),
        ("python3 -c 'import sys; print(sys.version)'", "."),
        ("time ls devserver", "serve.py"),
    ]
    if subprocess.run(["sh", "-c", "command -v sqlite3"], capture_output=True).returncode:
        calls = calls[1:]
    res = b.run(tool_use=[bash(c) for c, _ in calls])
    assert len(res.tool_results) == len(calls), res.describe()
    for (command, want), result in zip(calls, res.tool_results, strict=True):
        assert not result.is_error and want in result.text, (command, res.describe())
    allowed = {e.get("command") for e in b.audit() if e.get("decision") == "allow"}
    for command, _ in calls:
        assert command in allowed, (command, b.audit())


def test_curl_to_the_dev_server_is_allowed_and_the_sandbox_decides(project):
    """The gateway allows curl to the project's own dev server (no dialog); whether it
    connects is the OS's: a sandboxed command has its own network namespace, and the
    client's NO_PROXY (localhost, 127.0.0.1, ::1) sends loopback requests direct, not
    through its proxy, so curl fails to connect (exit 7; measured with Claude Code 2.1.330
    on Linux, with and without 127.0.0.1:PORT in allowedDomains). Without the sandbox it
    reaches the server. If a client version lets it through, this test says so: the
    ownership check (gateway/tools/listeners.py) is then the only guard."""
    b, port = project
    command = f"curl -s http://127.0.0.1:{port}/api/health"
    res = b.run(tool_use=bash(command))
    allowed = {e.get("command") for e in b.audit() if e.get("decision") == "allow"}
    assert command in allowed, b.audit()
    result = res.tool_result
    if _sandboxed(b):
        assert result.is_error and "Exit code 7" in result.text, res.describe()
    else:
        assert not result.is_error and "hello-from-the-dev-server" in result.text, \
            res.describe()
