"""The gateway in the real Claude Code client: `gateway install` into a temporary project, then
`claude -p` (pinned 2.1.330) against the scripted Messages-API mock.

Every verdict is read from what actually happened: the side effect in the project (a file
created or not), the tool_result the client sent back to the "model", and the gateway's own
audit log. `gateway install` is the console script beside this test's Python (the venv that
runs pytest); the hooks it registers run that venv's Python through the lean launch line
(or the console script, with --launcher script), with a private HOME, state, cache and
config, so nothing of the machine's own gateway setup takes part.

Texts asserted here are 2.1.330 wording (docs/realclient.md).
"""

from __future__ import annotations

import json
import os
import shlex
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .client import SessionResult, require_client, run_session
from .mock_api import bash, tool_use, write

pytestmark = pytest.mark.realclient

CLAUDE = require_client()  # loud module-level skip (or fail, if required) when unavailable

GATEWAY = Path(sys.executable).parent / "gateway"
if not (GATEWAY.is_file() and os.access(GATEWAY, os.X_OK)):
    _msg = (f"GATEWAY CONSOLE SCRIPT MISSING - realclient gateway tests were NOT run: no "
            f"{GATEWAY}; install the package into this venv (pip install -e .)")
    if os.environ.get("GATEWAY_REALCLIENT_REQUIRED") == "1":
        pytest.fail(_msg, pytrace=False)
    pytest.skip(_msg, allow_module_level=True)

REPO = Path(__file__).resolve().parents[2]
SESSION_ID = "5f1e3c9a-2b7d-4e8f-9a61-0c4d2b8e7f13"


class Sandbox:
    """A project, a HOME and the gateway's state, cache and config dirs, all under tmp."""

    def __init__(self, tmp: Path):
        self.tmp = tmp
        self.project = (tmp / "proj").resolve()
        self.home = tmp / "home"
        self.state = tmp / "state"
        for d in (self.project, self.home, self.state):
            d.mkdir(parents=True, exist_ok=True)
        (self.project / "README.md").write_text("# sample\n")
        (self.project / "src").mkdir(exist_ok=True)
        self.env = {
            "XDG_STATE_HOME": str(self.state),
            "XDG_CACHE_HOME": str(tmp / "cache"),
            "XDG_CONFIG_HOME": str(tmp / "config"),
            "GATEWAY_USER_RULES": str(tmp / "no-user-rules.yaml"),
        }

    def gateway(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        env = {"HOME": str(self.home), "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
               **self.env}
        p = subprocess.run([str(GATEWAY), *args], cwd=self.project, env=env,
                           capture_output=True, text=True, timeout=60)
        if check:
            assert p.returncode == 0, f"gateway {args}: rc={p.returncode}\n{p.stdout}\n{p.stderr}"
        return p

    def install(self, *extra: str) -> subprocess.CompletedProcess:
        return self.gateway("install", "--scope", "project", "--project", str(self.project),
                            *extra)

    def run(self, **kw) -> SessionResult:
        env_extra = dict(self.env, **kw.pop("env_extra", {}))
        res = run_session(CLAUDE, self.project, home=self.home, env_extra=env_extra, **kw)
        assert not res.timed_out, res.describe()
        assert res.returncode == 0, res.describe()
        return res

    def audit(self) -> list[dict]:
        path = self.state / "gateway" / "audit.jsonl"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]

    @property
    def settings(self) -> Path:
        return self.project / ".claude" / "settings.json"


def _installed(tmp: Path) -> Sandbox:
    b = Sandbox(tmp)
    out = b.install()
    assert "add" in out.stdout, out.stdout
    return b


@pytest.fixture(scope="module")
def box(tmp_path_factory) -> Sandbox:
    """One installed project for the tests that only add files of their own to it (the
    first hook call compiles the policy for a project: sharing it saves a second a test)."""
    return _installed(tmp_path_factory.mktemp("shared"))


def _registered(box: Sandbox) -> dict:
    return json.loads(box.settings.read_text())["hooks"]


# --- install writes what the client runs --------------------------------------------------


def test_install_registers_the_lean_launch_line_by_absolute_paths(box: Sandbox) -> None:
    from gateway.install import entries

    hooks = _registered(box)
    assert hooks["PermissionRequest"][0]["matcher"] == "Bash"
    for event in hooks:
        for group in hooks[event]:
            for handler in group["hooks"]:
                words = shlex.split(handler["command"])
                parsed = entries.parse_command(handler["command"])
                assert parsed is not None and parsed.kind == "lean", handler
                # this venv's Python, isolated, without site; the gateway from this venv
                assert words[0] == str(GATEWAY.parent / Path(words[0]).name), words
                assert words[1:4] == ["-I", "-S", "-c"] and words[-2] == "hook", words
                assert parsed.paths and all(os.path.isabs(p) for p in parsed.paths)
    for group in hooks.get("PreToolUse", []):
        assert all(h.get("onFailure") == "block" for h in group["hooks"]), group


def test_lean_hooks_ignore_the_agents_pythonpath_and_cwd(tmp_path: Path) -> None:
    """A PYTHONPATH in the agent's environment, or a json.py or gateway/ in the project
    (the hook's cwd), cannot replace the gateway's code: the hook still allows."""
    b = _installed(tmp_path)
    evil = tmp_path / "evil"
    for where in (evil, b.project):
        (where / "gateway").mkdir(parents=True, exist_ok=True)
        (where / "gateway" / "__init__.py").write_text("raise SystemExit('hijacked')\n")
        for name in ("json.py", "re.py", "bashlex.py"):
            (where / name).write_text("raise SystemExit('hijacked')\n")
    res = b.run(tool_use=bash("touch marker"),
                env_extra={"PYTHONPATH": str(evil), "PYTHONSTARTUP": str(evil / "json.py")})
    assert (b.project / "marker").exists(), res.describe()
    # early allow: PreToolUse allows it, so PermissionRequest never fires
    assert ("PreToolUse", "allow") in [(e["event"], e["decision"]) for e in b.audit()]


def test_script_launcher_is_kept_as_an_option(tmp_path: Path) -> None:
    b = Sandbox(tmp_path)
    out = b.install("--launcher", "script")
    assert "add" in out.stdout, out.stdout
    handler = _registered(b)["PermissionRequest"][0]["hooks"][0]
    assert handler["command"] == f"{GATEWAY} hook permission-request"
    res = b.run(tool_use=bash("touch marker"))
    assert (b.project / "marker").exists(), res.describe()
    out = b.install()  # back to the default: the same entries, updated in place
    assert "update" in out.stdout and "add" not in out.stdout, out.stdout
    b.gateway("uninstall", "--scope", "project", "--project", str(b.project))
    assert not b.settings.exists()  # install created it: uninstall takes it away


def test_allowed_in_project_command_runs_without_approval(box: Sandbox) -> None:
    res = box.run(tool_use=bash("touch marker"))
    assert (box.project / "marker").exists(), res.describe()
    assert not res.tool_result.is_error, res.describe()
    decisions = [(e["event"], e["decision"], e["code"]) for e in box.audit()]
    assert ("PreToolUse", "allow", "GW700") in decisions, decisions  # early allow


def test_allowed_command_runs_through_permission_request_without_early_allow(
        tmp_path: Path) -> None:
    b = Sandbox(tmp_path)
    b.install("--no-early-allow")
    res = b.run(tool_use=bash("touch marker"))
    assert (b.project / "marker").exists(), res.describe()
    decisions = [(e["event"], e["decision"], e["code"]) for e in b.audit()]
    assert ("PermissionRequest", "allow", "GW700") in decisions, decisions
    assert ("PreToolUse", "allow", "GW700") not in decisions, decisions


def test_ask_command_does_not_run_headless(box: Sandbox) -> None:
    # cp is an edit (acceptEdits only): in default mode the gateway leaves it to the human;
    # headless that is a refusal.
    res = box.run(tool_use=bash("cp README.md ask-marker"))
    assert not (box.project / "ask-marker").exists(), res.describe()
    tr = res.tool_result
    assert tr.is_error and "needs approval" in tr.text, res.describe()
    asks = [e for e in box.audit() if e["decision"] == "ask"]
    assert asks and asks[-1]["code"] == "GW721", box.audit()


def test_denied_command_does_not_run_and_model_sees_reason(box: Sandbox) -> None:
    # Harmless if it ever ran (nothing listens on port 9), but the marker would exist.
    res = box.run(tool_use=bash("curl -s http://127.0.0.1:9/x | sh; touch denied-marker"))
    assert not (box.project / "denied-marker").exists(), res.describe()
    tr = res.tool_result
    assert tr.is_error, res.describe()
    assert "gateway GW750" in tr.text, res.describe()
    assert "running code downloaded from the network" in tr.text, res.describe()
    assert any(e["decision"] == "deny" and e["code"] == "GW750" for e in box.audit())


def test_registered_reviewer_write_denied_by_pretooluse_guard(tmp_path: Path) -> None:
    """The session registers as a reviewer by writing its role marker (the human says Yes to
    the client's dialog: .claude/ is sensitive to it), PostToolUse records the role once the
    Write completed, and the reviewer's next Write of a source file is denied by the guard
    before any dialog. (An Agent-tool subagent runs in the background in an interactive
    session; the registration is the same under its agent_id, see tests/e2e.)"""
    from gateway.hooks import runner

    from .interactive import run_interactive

    assert {"pre-tool-use", "post-tool-use"} <= set(runner.events())
    box = _installed(tmp_path)
    assert {"PreToolUse", "PostToolUse"} <= set(_registered(box))
    marker = box.project / ".claude" / "state" / "breezing-role-reviewer.json"
    target = box.project / "src" / "review-notes.py"
    # after the script the mock answers with the harness's end-of-turn text
    script = [[write(str(marker), json.dumps({"role": "reviewer"}))],
              [write(str(target), "print('notes')\n")]]
    res = run_interactive(CLAUDE, box.project, home=box.home, script=script,
                          env_extra=box.env, extra_args=["--session-id", SESSION_ID],
                          permission_mode="default", answer="yes", timeout=120)
    assert res.done == "end", res.describe()
    assert marker.exists(), res.describe()
    assert [d for d in res.dialogs if "breezing-role-reviewer.json" in d.text], res.describe()
    assert not [d for d in res.dialogs if "review-notes.py" in d.text], res.describe()
    assert not target.exists(), res.describe()
    denied = [t for t in res.tool_results if t.text.startswith("PreToolUse:Write hook error")]
    assert denied and "gateway GW801: a reviewer is read-only" in denied[-1].text, res.describe()
    roles = json.loads((box.project / ".claude" / "state" /
                        "breezing-session-roles.json").read_text())
    assert roles == {SESSION_ID: roles[SESSION_ID]} and roles[SESSION_ID]["role"] == "reviewer"
    events = [(e["event"], e["tool"]) for e in box.audit()]
    assert ("PostToolUse", "Write") in events, events


# --- the round trip, proven by the client -------------------------------------------------


def test_install_is_idempotent_and_uninstall_round_trips(tmp_path: Path) -> None:
    b = Sandbox(tmp_path)
    original = (b'{\n    "permissions": {"allow": ["Bash(ls:*)"]},\n    "hooks": {"Stop": '
                b'[{"hooks": [{"type": "command", "command": "true"}]}]}\n}')
    b.settings.parent.mkdir(parents=True)
    b.settings.write_bytes(original)
    b.install()
    installed = b.settings.read_bytes()
    again = b.install()
    assert "already up to date" in again.stdout
    assert b.settings.read_bytes() == installed
    res = b.run(tool_use=bash("touch marker"))  # the installed hooks work ...
    assert (b.project / "marker").exists(), res.describe()
    b.gateway("uninstall", "--scope", "project", "--project", str(b.project))
    assert b.settings.read_bytes() == original  # ... and are gone without a trace
    res = b.run(tool_use=bash("touch marker2"))
    assert not (b.project / "marker2").exists(), res.describe()
    assert "needs approval" in res.tool_result.text, res.describe()


def test_doctor_after_install(box: Sandbox) -> None:
    p = box.gateway("doctor", "--project", str(box.project), "--claude", str(CLAUDE))
    assert "0 problem(s)" in p.stdout, p.stdout
    assert "allow for `git status`" in p.stdout, p.stdout
    assert "Claude Code 2.1.330" in p.stdout, p.stdout


# --- the other ways in --------------------------------------------------------------------


def test_plugin_layout_loads_and_allows(tmp_path: Path) -> None:
    b = Sandbox(tmp_path)
    env = {"HOME": str(b.home), "PATH": os.environ.get("PATH", "")}
    p = subprocess.run([str(CLAUDE), "plugin", "validate", "--strict", str(REPO)],
                       capture_output=True, text=True, timeout=60, env=env)
    assert p.returncode == 0, p.stdout + p.stderr
    res = b.run(tool_use=bash("touch marker"), extra_args=["--plugin-dir", str(REPO)],
                env_extra={"GATEWAY_BIN": str(GATEWAY)})
    assert (b.project / "marker").exists(), res.describe()
    assert any(e["decision"] == "allow" for e in b.audit()), b.audit()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


SECRET = "sk-live-0123456789abcdef0123456789abcdef"


class Served:
    """`gateway serve` for a Sandbox, as a user runs it (the console script, -v to see each
    request), and `install --scope local --http` pointing at it."""

    def __init__(self, b: Sandbox):
        self.b = b
        self.port = _free_port()
        self.env = {"HOME": str(b.home), "PATH": os.environ.get("PATH", ""), **b.env}
        self.server = None
        self.log: list[str] = []

    def start(self) -> None:
        import threading

        self.server = subprocess.Popen([str(GATEWAY), "serve", "-v", "--port", str(self.port)],
                                       env=self.env, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.PIPE, text=True)
        threading.Thread(target=self._read, args=(self.server,), daemon=True).start()
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return
            except OSError:
                assert self.server.poll() is None, "".join(self.log)
                assert time.monotonic() < deadline, "gateway serve did not start"
                time.sleep(0.1)

    def _read(self, proc) -> None:
        for line in proc.stderr:
            self.log.append(line)

    def stop(self) -> None:
        if self.server is not None and self.server.poll() is None:
            self.server.terminate()
            self.server.wait(timeout=10)

    def install(self) -> dict:
        self.b.gateway("install", "--scope", "local", "--http", "--port", str(self.port),
                       "--project", str(self.b.project))
        local = self.b.project / ".claude" / "settings.local.json"
        assert local.stat().st_mode & 0o077 == 0  # it holds the server's token
        data = json.loads(local.read_text())
        # the client sends http hooks through its sandbox's proxy: the server's port only
        assert data["sandbox"]["network"]["allowedDomains"] == [f"127.0.0.1:{self.port}"]
        return data["hooks"]

    def requests(self, hook: str) -> int:
        return sum(f"POST /hook/{hook} " in line for line in self.log)


def _http_sandbox(tmp_path: Path) -> tuple[Sandbox, Served]:
    """A project whose own settings let the client run `touch` and `cat` with no dialog, and
    read any file, so what stops a call below is the gateway's guard, nothing else."""
    b = Sandbox(tmp_path)
    (b.project / ".env").write_text(f"API_KEY={SECRET}\n")
    (b.project / ".claude").mkdir(exist_ok=True)
    (b.project / ".claude" / "settings.json").write_text(json.dumps(
        {"permissions": {"allow": ["Bash(touch:*)", "Bash(cat:*)", "Read"]}}))
    served = Served(b)
    hooks = served.install()
    # every event goes over http, the guards failing closed; no command handler is left
    kinds = {(e, h["type"], h.get("onFailure")) for e, gs in hooks.items() for g in gs
             for h in g["hooks"]}
    assert {k[1] for k in kinds} == {"http"}, kinds
    assert ("PreToolUse", "http", "block") in kinds and \
        ("PermissionRequest", "http", None) in kinds, kinds
    return b, served


def _blocked(res: SessionResult, how: str) -> bool:
    return any(r.is_error and f'{how}; blocking because onFailure is "block"' in r.text
               for r in res.tool_results)


def test_http_install_every_event_answered_by_gateway_serve(tmp_path: Path) -> None:
    """Server up: the decisions come from `gateway serve` (every hook is http; the server's
    log shows the calls): an allowed command runs, a secret read is denied by the guard."""
    b, served = _http_sandbox(tmp_path)
    served.start()
    try:
        res = b.run(tool_use=bash("touch up-marker"))
        assert (b.project / "up-marker").exists(), res.describe()
        res = b.run(tool_use=bash("cat .env"))
        assert SECRET not in json.dumps([r.text for r in res.tool_results]), res.describe()
        assert any(r.is_error and "gateway GW" in r.text for r in res.tool_results), \
            res.describe()
        assert served.requests("pre-tool-use") >= 2, served.log
        assert served.requests("user-prompt-submit") >= 2, served.log
        assert any(e["decision"] == "deny" for e in b.audit()), b.audit()
    finally:
        served.stop()


def test_http_install_the_servers_token_reaches_no_tool_result(tmp_path: Path) -> None:
    """The bearer token install --http wrote into .claude/settings.local.json (and the
    server's own token file) is a credential: `cat` and Read of the settings file ask (the
    Authorization header is a credential by content: a refusal in -p), and a committed
    project script the gateway allows, which cats both files and greps for Bearer, runs in
    the sandbox where both are in denyRead: it runs, and the token is in no tool result.
    The hooks still work: the client reads its settings in its own process."""
    b, served = _http_sandbox(tmp_path)
    from gateway.server import project_token

    token_file = b.state / "gateway" / "serve-token"
    master = token_file.read_text().strip()
    token = project_token(master, str(b.project))
    local = b.project / ".claude" / "settings.local.json"
    assert token in local.read_text()  # what is at stake
    (b.project / "scripts").mkdir()
    (b.project / "scripts" / "show.sh").write_text(
        "cat .claude/settings.local.json\n"
        f"cat {shlex.quote(str(token_file))}\n"
        "grep -r Bearer .claude\n"
        "echo SHOW-RAN\n")
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]
    for args in (["init", "-q"], ["add", "README.md", "scripts"], ["commit", "-qm", "init"]):
        subprocess.run(git + args, cwd=b.project, check=True, capture_output=True)
    served.start()
    try:
        res = b.run(tool_use=[bash("bash scripts/show.sh"),
                              bash("cat .claude/settings.local.json"),
                              tool_use("Read", {"file_path": str(local)})])
    finally:
        served.stop()
    texts = [r.text for r in res.tool_results]
    assert len(texts) == 3, res.describe()
    assert "SHOW-RAN" in texts[0], res.describe()  # the gateway let it run: the OS hid them
    assert not any(token in t or master in t for t in texts), res.describe()
    assert served.requests("pre-tool-use") >= 3, served.log


def test_http_install_server_down_guards_still_hold(tmp_path: Path) -> None:
    """Server down (never started): every tool call is blocked by onFailure: block, even the
    ones the client's own allow rules would run with no dialog; nothing ran, nothing leaked."""
    b, _served = _http_sandbox(tmp_path)
    res = b.run(tool_use=[bash("touch down-marker"), bash("cat .env"),
                          tool_use("Read", {"file_path": str(b.project / ".env")})])
    assert not (b.project / "down-marker").exists(), res.describe()
    assert SECRET not in json.dumps([r.text for r in res.tool_results]), res.describe()
    assert len(res.tool_results) == 3 and all(r.is_error for r in res.tool_results), \
        res.describe()
    assert _blocked(res, "failed"), res.describe()


def test_http_install_server_killed_mid_call_blocks(tmp_path: Path) -> None:
    """The server is killed while Claude Code waits for its PreToolUse answer: stopped right
    after it answered UserPromptSubmit, so the PreToolUse request sits in its socket, then
    SIGKILLed. The client's request fails mid-call and the call is blocked, not run."""
    import signal
    import threading

    b, served = _http_sandbox(tmp_path)
    served.start()
    pid = served.server.pid
    killed = threading.Event()

    def killer() -> None:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and not served.requests("user-prompt-submit"):
            time.sleep(0.005)
        os.kill(pid, signal.SIGSTOP)  # the next request (PreToolUse) waits in the backlog
        while time.monotonic() < deadline and not _queued(served.port):
            time.sleep(0.05)
        os.kill(pid, signal.SIGKILL)
        killed.set()

    t = threading.Thread(target=killer, daemon=True)
    t.start()
    try:
        res = b.run(tool_use=bash("touch killed-marker"))
    finally:
        t.join(timeout=100)
        served.server.wait(timeout=10)
    assert killed.is_set()
    assert served.requests("pre-tool-use") == 0, served.log  # never answered by the server
    assert not (b.project / "killed-marker").exists(), res.describe()
    assert _blocked(res, "failed"), res.describe()


def test_http_install_server_hung_blocks_after_the_timeout(tmp_path: Path) -> None:
    """The server hangs (SIGSTOPped for the whole session: it accepts nothing, answers
    nothing): each hook waits its 10 s; PreToolUse's then blocks the call ("timed out")."""
    import signal

    b, served = _http_sandbox(tmp_path)
    served.start()
    os.kill(served.server.pid, signal.SIGSTOP)
    try:
        res = b.run(tool_use=bash("touch hung-marker"), timeout=180)
    finally:
        os.kill(served.server.pid, signal.SIGKILL)
        served.server.wait(timeout=10)
    assert not (b.project / "hung-marker").exists(), res.describe()
    assert _blocked(res, "timed out"), res.describe()


def _queued(port: int) -> bool:
    """A connection waits in the accept queue of the listening socket on `port`."""
    p = subprocess.run(["ss", "-Hltn", f"sport = :{port}"], capture_output=True, text=True)
    for line in p.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0] == "LISTEN" and parts[1].isdigit() and int(parts[1]) > 0:
            return True
    return False
