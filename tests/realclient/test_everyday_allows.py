"""Issue 25's new allows, run by the real client: no dialog, and the command really works.

The gateway's allow only helps if Claude Code then runs the command and it does what the
developer wanted. These forms were allowed by the hooks (tests/e2e) but never run through
the client: curl to the project's own dev server, a read-only sqlite3 query, python -c of
imports and prints, bash's `time`. With the gateway installed as a user installs it
(`gateway install`: the hooks and, where it can start, the Bash sandbox) and no permission
rule of the user's, each runs in print mode (where an ask is a refusal) and its output is
in the tool result; the audit log says the gateway allowed it.
"""

from __future__ import annotations

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
    import json, os
    if os.environ.get("EXP_ALLOW_LOOPBACK"):
        data = json.loads(b.settings.read_text())
        data["sandbox"].setdefault("network", {})["allowedDomains"] = [os.environ["EXP_ALLOW_LOOPBACK"].replace("PORT", str(port))]
        b.settings.write_text(json.dumps(data))
    yield b, port
    server.kill()
    server.wait()


def test_the_new_everyday_allows_run_with_no_dialog(project):
    b, port = project
    calls = [
        (f"curl -s http://127.0.0.1:{port}/api/health", "hello-from-the-dev-server"),
        ("sqlite3 app.db 'select count(*) from orders'", "3"),
        ("python3 -c 'import sys; print(sys.version)'", "3"),
        ("time ls devserver", "serve.py"),
    ]
    if subprocess.run(["sh", "-c", "command -v sqlite3"], capture_output=True).returncode:
        calls = [c for c in calls if not c[0].startswith("sqlite3")]
    res = b.run(tool_use=[bash(c) for c, _ in calls])
    assert len(res.tool_results) == len(calls), res.describe()
    for (command, want), result in zip(calls, res.tool_results, strict=True):
        print(command, result.is_error, result.text[:300])
    for (command, want), result in zip(calls, res.tool_results, strict=True):
        assert not result.is_error and want in result.text, (command, res.describe())
    allowed = {e.get("command") for e in b.audit() if e.get("decision") == "allow"}
    for command, _ in calls:
        assert command in allowed, (command, b.audit())
