"""`gateway serve`: the resident mode. Answers Claude Code's `"type": "http"` hooks on loopback.

A command hook costs a process start per tool call; an http hook is a POST to a process that
is already running, with the policy, the parser tables and the catalogue already in memory.
The answer is computed by the very code the command hook runs (gateway.hooks.runner.respond),
so for the same payload and project both give the same decision (tests/perf/test_serve.py
proves it with real HTTP requests).

Failing safe. Claude Code treats an http hook that cannot be reached, times out or answers
non-2xx as a non-blocking error: no decision. For PermissionRequest that means the
permission dialog, never an allow, so a server that is down only costs the human a prompt.
For PreToolUse it would mean "no guard", so its http handler carries "onFailure": "block"
(like its command handler): Claude Code 2.1.330 honours onFailure on http handlers, and a
refused connection, a reset (the server killed mid-call), a timeout or a non-2xx answer
then blocks the call (docs/performance.md, "--http"; tests/realclient proves all three).
`http_hook_entries()` (what `gateway install --http` registers) lists every event; each
handler takes "onFailure" from its hook module (ON_FAILURE_BLOCK), exactly as the command
handler does, so no event is less safe over http than as a command. The lifecycle events
(SessionStart, SubagentStart, PostToolUse, ...) never block: a server that is down loses
their record, which only leaves a teammate unregistered (it may then only read).
The command hooks are served too, every event of them, over the
Unix socket of gateway._resident: a server that is down, refuses or answers anything but
the hook's own kind of answer leaves the decision to the hook process, and a state-writing
event is applied exactly once, by whichever of the two takes its call id first
(gateway._resident: "Exactly once").

Security:
- binds 127.0.0.1 only (`--host` accepts nothing else);
- every hook request must carry `Authorization: Bearer <token>`; the token is a per-user
  random secret in $XDG_STATE_HOME/gateway/serve-token (mode 0600, directory 0700), so
  another local user can neither query the server nor feed it payloads; compared in
  constant time; a wrong or missing token is 401 (= no decision);
- the Host header must name the loopback address (no DNS-rebinding from a browser page);
- bodies are size-limited (the command hook's limit), must carry Content-Length, and each
  connection has a read timeout, so a slow or hostile client cannot wedge the server;
- port squatting: when this server is down, another local user could bind the same port and
  answer "allow" to everything; Claude Code does not authenticate http hook responses, so no
  token can prevent that. On a machine shared with untrusted users, use the command hook.

The project: the command hook gets CLAUDE_PROJECT_DIR from Claude Code; an http hook gets no
environment, so the handler sends it as the `X-Gateway-Project` header (written by
`http_hook_entries(project=...)`); without it the project is found from the payload's cwd as
gateway.paths.project_dir does. The server's own CLAUDE_PROJECT_DIR is never used.
"""

import os
import sys
import threading
import time

DEFAULT_HOST = "127.0.0.1"
#: The port `gateway install --http` registers by default (gateway.install.entries agrees).
DEFAULT_PORT = 8787
HOOK_PATH = "/hook/"
TOKEN_FILE = "serve-token"
PROJECT_HEADER = "X-Gateway-Project"
#: Response header with the time the server spent on the request, in milliseconds.
TIMING_HEADER = "X-Gateway-Server-Ms"
#: Header by which an http handler turns the PreToolUse early allow off for its calls
#: (`gateway install --http --no-early-allow`; a command handler writes GATEWAY_EARLY_ALLOW=0
#: in front of its command instead). It can only turn it off, never on.
EARLY_ALLOW_HEADER = "X-Gateway-Early-Allow"
_READ_TIMEOUT = 10.0
_LOOPBACK_HOSTS = ("127.0.0.1", "localhost")


# --- the per-user secret -------------------------------------------------------------------


def state_dir(env=None) -> str:
    env = os.environ if env is None else env
    base = env.get("XDG_STATE_HOME") or os.path.join(
        env.get("HOME") or os.path.expanduser("~"), ".local", "state")
    return os.path.join(base, "gateway")


def token_path(env=None) -> str:
    return os.path.join(state_dir(env), TOKEN_FILE)


def read_token(env=None, create=False) -> str:
    """The server's bearer token; created (random, 0600) when absent and `create`.

    Raises OSError when the file cannot be read or created, and PermissionError when it is
    not owned by this user or is readable by anyone else (then it is not a secret).
    """
    path = token_path(env)
    try:
        return _read_token_file(path)
    except FileNotFoundError:
        if not create:
            raise
    _create_token(path)
    return _read_token_file(path)


def _read_token_file(path: str) -> str:
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with open(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if st.st_uid != os.getuid() or st.st_mode & 0o077:
            raise PermissionError(f"{path}: must be owned by you and mode 0600")
        token = fh.read(256).decode("ascii", "replace").strip()
    if len(token) < 32:
        raise PermissionError(f"{path}: not a token; delete it and run `gateway serve` again")
    return token


def _create_token(path: str) -> None:
    import secrets

    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    tmp = f"{path}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with open(fd, "w") as fh:
        fh.write(secrets.token_urlsafe(32) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    try:
        os.link(tmp, path)  # never replaces a token another process created meanwhile
    except FileExistsError:
        pass
    finally:
        os.unlink(tmp)


# --- what `gateway install --http` registers -----------------------------------------------


def project_token(token: str, project: str) -> str:
    """The bearer token of the http handlers pinned to `project` (absolute): an HMAC of the
    project's path under the per-user token. The server takes it only with that project's
    X-Gateway-Project header, so a project's settings file (which a program of another
    project may read: red team rt26) lets no one speak for any other project, and the
    per-user token itself never leaves the state directory for a pinned install."""
    import base64
    import hashlib
    import hmac

    mac = hmac.new(token.encode("utf-8"), b"gateway-project\0" +
                   os.path.normpath(project).encode("utf-8", "surrogatepass"), hashlib.sha256)
    return base64.urlsafe_b64encode(mac.digest()).decode("ascii").rstrip("=")


def http_hook_entries(port=DEFAULT_PORT, project=None, env=None, timeout=10,
                      token_from_env=False, create_token=True, early_allow=True) -> dict:
    """Claude Code `hooks` entries for the http handlers: {event: [matcher group]}.

    Every implemented event is listed. A handler gets "onFailure": "block" when its hook
    module says so (ON_FAILURE_BLOCK; by default PreToolUse), as its command handler does:
    then a server that is down, killed mid-call, too slow or answering non-2xx blocks the
    call (the guards fail closed); for the other events it means no decision (the
    dialog for PermissionRequest). `project` (absolute) pins the project directory (sent
    as the X-Gateway-Project header); pass the project being installed into.
    `early_allow=False` sends EARLY_ALLOW_HEADER: 0 with the PreToolUse calls.

    The handler carries the bearer token. With `token_from_env=False` (default) the token is
    written literally: put these entries only in a settings file that is not committed and
    not readable by others (`.claude/settings.local.json` or `~/.claude/settings.json`).
    With `token_from_env=True` the header reads `$GATEWAY_SERVE_TOKEN` (listed in
    `allowedEnvVars`), which must then be exported in Claude Code's environment.
    """
    from gateway.hooks import runner

    if project is not None and not os.path.isabs(project):
        raise ValueError(f"project must be an absolute path, not {project!r}")
    if token_from_env:
        auth = "Bearer ${GATEWAY_SERVE_TOKEN}"
    elif project is not None:
        auth = "Bearer " + project_token(read_token(env, create=create_token), project)
    else:
        auth = "Bearer " + read_token(env, create=create_token)
    out = {}
    for name in runner.events():
        module = runner.module_for(name)
        event = getattr(module, "EVENT", None)
        if not isinstance(event, str):
            continue
        handler = {"type": "http", "url": f"http://{DEFAULT_HOST}:{int(port)}{HOOK_PATH}{name}",
                   "timeout": int(timeout), "headers": {"Authorization": auth}}
        if project is not None:
            handler["headers"][PROJECT_HEADER] = os.path.normpath(project)
        if event == "PreToolUse" and not early_allow:
            handler["headers"][EARLY_ALLOW_HEADER] = "0"
        if token_from_env:
            handler["allowedEnvVars"] = ["GATEWAY_SERVE_TOKEN"]
        if getattr(module, "ON_FAILURE_BLOCK", event == "PreToolUse") is True:
            handler["onFailure"] = "block"
        group = {}
        matcher = getattr(module, "MATCHER", None)
        if matcher is not None:
            group["matcher"] = matcher
        group["hooks"] = [handler]
        out.setdefault(event, []).append(group)
    return out


# --- the server ----------------------------------------------------------------------------


class StaleCode(Exception):
    """The installed gateway changed under a running server: its answers could differ from
    what the command hook would now say."""


class NotTaken(Exception):
    """A state-writing call the server must not apply: the hook process took it (it stopped
    waiting and applies it itself) or it waited longer than the hook waits for it."""


class CodeState:
    """A fingerprint (path, size, mtime) of every file of the gateway and bashlex packages,
    re-checked at most once a second: an upgrade or an edit makes the server refuse."""

    def __init__(self):
        self._roots = [os.path.dirname(os.path.abspath(__file__))]
        try:
            import bashlex

            self._roots.append(os.path.dirname(os.path.abspath(bashlex.__file__)))
        except ImportError:  # pragma: no cover
            pass
        self._print = self._fingerprint()
        self._checked = time.monotonic()
        self._stale = False

    def _fingerprint(self):
        out = []
        for root in self._roots:
            for dirpath, dirnames, filenames in os.walk(root):
                dirnames[:] = [d for d in dirnames if d != "__pycache__"]
                for name in filenames:
                    if name.endswith((".py", ".yaml")):
                        path = os.path.join(dirpath, name)
                        try:
                            st = os.stat(path)
                        except OSError:
                            continue
                        out.append((path, st.st_size, st.st_mtime_ns))
        out.sort()
        return out

    def changed(self) -> bool:
        if not self._stale and time.monotonic() - self._checked >= 1.0:
            self._stale = self._fingerprint() != self._print
            self._checked = time.monotonic()
        return self._stale


def _handler_class():
    from http.server import BaseHTTPRequestHandler

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "gateway"
        sys_version = ""
        timeout = _READ_TIMEOUT

        def setup(self):
            super().setup()
            import socket

            try:  # answers are small: send them at once, not after the peer's delayed ACK
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            except OSError:
                pass

        def log_message(self, fmt, *args):  # noqa: A003 - the stdlib's name
            if self.server.verbose:
                sys.stderr.write("gateway serve: " + (fmt % args) + "\n")

        def _send(self, status: int, body: str = "", started=None):
            data = body.encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            if started is not None:
                self.send_header(TIMING_HEADER, f"{(time.perf_counter() - started) * 1e3:.3f}")
            if status >= 400:
                self.send_header("Connection", "close")
                self.close_connection = True
            self.end_headers()
            self.wfile.write(data)

        def _host_ok(self) -> bool:
            host = (self.headers.get("Host") or "").strip().lower()
            if host.startswith("["):
                name = host[:host.find("]") + 1] if "]" in host else host
            else:
                name = host.rsplit(":", 1)[0] if ":" in host else host
            return name in _LOOPBACK_HOSTS or name == "[::1]"

        def do_GET(self):  # noqa: N802 - the stdlib's name
            if self.path == "/health" and self._host_ok():
                from gateway import __version__

                return self._send(200, '{"gateway":"' + __version__ + '","ok":true}')
            return self._send(404, "{}")

        def do_POST(self):  # noqa: N802
            started = time.perf_counter()
            server = self.server
            if not self._host_ok():
                return self._send(400, "{}")
            if not self.path.startswith(HOOK_PATH):
                return self._send(404, "{}")
            project = self.headers.get(PROJECT_HEADER)
            if not server.authorized(self.headers.get("Authorization"), project):
                return self._send(401, "{}")
            module = server.module(self.path[len(HOOK_PATH):])
            if module is None:
                return self._send(404, "{}")
            if self.headers.get("Transfer-Encoding"):
                return self._send(411, "{}")
            length = self.headers.get("Content-Length", "")
            if not length.isdigit():
                return self._send(411, "{}")
            from gateway.hooks.payload import MAX_PAYLOAD

            if int(length) > MAX_PAYLOAD:
                return self._send(413, "{}")
            raw = self.rfile.read(int(length))
            if len(raw) != int(length):
                return self._send(400, "{}")
            if project is not None and not os.path.isabs(project):
                return self._send(400, "{}")
            early = (self.headers.get(EARLY_ALLOW_HEADER) or "").strip()
            try:
                text = server.answer(module, raw, project, started, early_allow_off=early == "0")
            except StaleCode as exc:
                sys.stderr.write(f"gateway serve: {exc}\n")
                return self._send(503, "{}", started)
            except Exception as exc:  # never allow on an error: no decision
                sys.stderr.write(f"gateway serve: internal error: {type(exc).__name__}: {exc}\n")
                return self._send(500, "{}", started)
            server.count += 1
            return self._send(200, text or "{}", started)

        def _refuse(self):
            self._send(405, "{}")

        do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = _refuse  # noqa: N815

    return Handler


def make_server(port=DEFAULT_PORT, host=DEFAULT_HOST, token=None, env=None, verbose=False):
    """A bound, not yet serving, server. `token` defaults to the per-user token file's
    (created when absent). Raises OSError when the port is taken, ValueError for a host
    that is not the IPv4 loopback address."""
    from http.server import ThreadingHTTPServer

    from gateway.hooks import runner

    if host != DEFAULT_HOST:
        raise ValueError(f"gateway serve binds {DEFAULT_HOST} only, not {host!r}")
    base_env = dict(os.environ if env is None else env)
    base_env.pop("CLAUDE_PROJECT_DIR", None)  # the project comes with each request
    if token is None:
        token = read_token(base_env, create=True)
    token_bytes = ("Bearer " + token).encode("utf-8")

    class Server(ThreadingHTTPServer):
        daemon_threads = True
        allow_reuse_address = True
        request_queue_size = 64

        def __init__(self):
            super().__init__((host, int(port)), _handler_class())
            self.verbose = verbose
            self.count = 0
            self._lock = threading.Lock()
            self._modules = {}

        def authorized(self, header, project=None) -> bool:
            """The per-user token, or the token of the project the request names."""
            import hmac

            given = (header or "").strip().encode("utf-8", "replace")
            ok = hmac.compare_digest(given, token_bytes)
            if project is not None and os.path.isabs(project):
                want = ("Bearer " + project_token(token, project)).encode("utf-8")
                ok = hmac.compare_digest(given, want) or ok
            return ok

        def module(self, name):
            if name not in self._modules:
                self._modules[name] = runner.module_for(name) if name else None
            return self._modules[name]

        def answer(self, module, raw, project, started, early_allow_off=False):
            env = dict(base_env)
            if project:
                env["CLAUDE_PROJECT_DIR"] = project
            if early_allow_off:  # only ever off: the header cannot turn it on
                env["GATEWAY_EARLY_ALLOW"] = "0"
            return self.answer_env(module, raw, env, started)

        def answer_env(self, module, raw, env, started=None, as_process=False, call=None):
            """`as_process`: answer a hook process (gateway._resident) as that process
            would: with its environment as os.environ for the decision (the parts of the
            gateway that read os.environ -- CDPATH, XDG_CONFIG_HOME, git's environment --
            see the hook's, not the server's), and every lock wait ended before the
            process stops waiting for the answer.

            `call`: (calls directory, call id) of a state-writing hook's call: it is taken
            (gateway._resident.take) just before it is applied, or refused (NotTaken) when
            the hook process took it first; the answer is also left in ``<id>.done``."""
            if self.code.changed():
                raise StaleCode("the gateway's code changed since this server started; "
                                "restart `gateway serve`")
            with self._lock:  # one decision at a time: the parser and caches are shared
                if not as_process:
                    return runner.respond(module, raw, env, started)
                from gateway import _resident
                from gateway.state import lockwait

                if call is not None:
                    directory, call_id = call
                    if (started is not None
                            and time.perf_counter() - started > _resident.TIMEOUT - 3.0):
                        raise NotTaken("the hook stopped waiting for this call")
                    if not _resident.take(directory, call_id):
                        raise NotTaken("the hook process took this call itself")

                saved = dict(os.environ)
                previous = lockwait.answer_by(time.monotonic() + _resident.TIMEOUT - 3.0)
                os.environ.clear()
                os.environ.update(env)
                try:
                    if call is None:
                        return runner.respond(module, raw, env, started)
                    try:
                        text = runner.respond(module, raw, env, started)
                    except Exception as exc:  # taken: answered as the hook process would
                        sys.stderr.write(f"gateway serve: internal error in the "
                                         f"{module.EVENT} hook: {exc}\n")
                        text = ""
                    try:
                        _resident.finish(directory, call_id, text)
                    except OSError:
                        pass
                    return text
                finally:
                    os.environ.clear()
                    os.environ.update(saved)
                    lockwait.answer_by(previous)

    httpd = Server()
    httpd.code = CodeState()
    return httpd


def warm_up(server) -> None:
    """Load everything a first decision needs (parser tables, policy, catalogue)."""
    from gateway.hooks import runner

    for name in runner.events():
        server.module(name)
    module = server.module("permission-request")
    if module is not None:
        probe = b'{"tool_name":"Bash","tool_input":{"command":"git status"},"cwd":"/"}'
        env = {k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"}
        env["GATEWAY_AUDIT_LOG"] = "off"
        try:
            module.decide(probe, env)
        except Exception:
            pass


def serve_in_thread(server):
    """Start `server` in a daemon thread; returns the thread (tests, the benchmark)."""
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2},
                              daemon=True, name="gateway-serve")
    thread.start()
    return thread


# --- the command hook's fast path: a Unix socket -------------------------------------------


class ResidentListener:
    """Answers `gateway hook` processes (gateway._resident) on a Unix socket in the user's
    0700 state directory; only peers with this process's uid are served."""

    def __init__(self, httpd, env=None):
        import socket

        from gateway import _resident

        env = dict(os.environ if env is None else env)
        self.httpd = httpd
        self.home = os.path.normpath(os.path.expanduser("~"))
        self.path = _resident.socket_path(env)
        directory = os.path.dirname(self.path)
        os.makedirs(directory, mode=0o700, exist_ok=True)
        st = os.stat(directory)
        if st.st_uid != os.getuid() or st.st_mode & 0o077:
            raise PermissionError(f"{directory}: must be yours and mode 0700 to hold the "
                                  "hook socket")
        if os.path.lexists(self.path):
            probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                probe.settimeout(1.0)
                probe.connect(self.path)
            except OSError:
                os.unlink(self.path)  # left by a server that is gone
            else:
                raise OSError(98, f"another gateway serve answers on {self.path}")
            finally:
                probe.close()
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)
        try:
            self.sock.bind(self.path)
        finally:
            os.umask(old)
        self.sock.listen(64)
        self._closed = False
        self.calls = _resident.calls_dir(self.path)
        os.makedirs(self.calls, mode=0o700, exist_ok=True)
        self._taken = 0
        self.refused = 0
        self.prune()

    def prune(self, age: float = 600.0) -> None:
        """Forget the calls taken more than `age` seconds ago: no hook waits that long, and
        the server refuses a call older than the hook's wait (answer_env)."""
        try:
            names = os.listdir(self.calls)
        except OSError:
            return
        limit = time.time() - age
        for name in names:
            path = os.path.join(self.calls, name)
            try:
                if os.lstat(path).st_mtime < limit:
                    os.unlink(path)
            except OSError:
                pass

    def serve_forever(self):
        while not self._closed:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                if self._closed:
                    return
                continue
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def start(self):
        thread = threading.Thread(target=self.serve_forever, daemon=True,
                                  name="gateway-resident")
        thread.start()
        return thread

    def close(self):
        self._closed = True
        try:
            self.sock.close()
        finally:
            try:
                os.unlink(self.path)
            except OSError:
                pass

    def _handle(self, conn):
        import socket

        from gateway import _resident
        from gateway.hooks.payload import MAX_PAYLOAD

        started = time.perf_counter()
        reply = _resident.REFUSED
        try:
            conn.settimeout(_READ_TIMEOUT)
            cred = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
            if int.from_bytes(cred[4:8], sys.byteorder) != os.getuid():
                return
            chunks, size, limit = [], 0, MAX_PAYLOAD + (1 << 20)
            while True:
                chunk = conn.recv(65536)
                if not chunk:
                    break
                size += len(chunk)
                if size > limit:
                    return
                chunks.append(chunk)
            reply = self.answer(b"".join(chunks), started)
        except Exception as exc:
            if not isinstance(exc, (OSError, ValueError)):
                sys.stderr.write(f"gateway serve: hook socket: {type(exc).__name__}: {exc}\n")
        finally:
            try:
                conn.sendall(reply)
            except OSError:
                pass
            conn.close()

    def answer(self, data: bytes, started) -> bytes:
        from gateway import __version__, _resident

        event, version, pkg, env, raw, call = _resident.decode_request(data)
        if (event not in _resident.FORWARDED or version != __version__
                or (event not in _resident.PURE) != bool(call)
                or pkg != _resident.package_dir()
                or os.path.normpath(env.get("HOME") or "") != self.home
                or not env.get("CLAUDE_PROJECT_DIR", "").startswith("/")):
            return _resident.REFUSED
        module = self.httpd.module(event)
        if module is None:
            return _resident.REFUSED
        try:
            text = self.httpd.answer_env(module, raw, env, started, as_process=True,
                                         call=(self.calls, call) if call else None)
        except (StaleCode, NotTaken) as exc:
            self.refused += 1
            if self.httpd.verbose:
                sys.stderr.write(f"gateway serve: hook socket: {event} refused: {exc}\n")
            return _resident.REFUSED
        self.httpd.count += 1
        if call:
            self._taken += 1
            if self._taken % 256 == 0:
                self.prune()
        if self.httpd.verbose:
            sys.stderr.write(f"gateway serve: hook socket: {event} answered\n")
        return _resident.ANSWERED + text.encode("utf-8")
