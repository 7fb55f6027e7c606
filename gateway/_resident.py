"""The command hook's fast path: hand the call to a running `gateway serve` over a Unix socket.

A hook process that imports the validator pays for bashlex, `re`, `enum` and json on every
tool call, several times the cost of the bare interpreter. When `gateway serve` runs, the hook
process instead sends its stdin, environment and the event to the server's Unix socket and
prints the answer: the decision is made by the same code (gateway.hooks.runner.respond) in
the resident process, with this process's environment. This module imports nothing but
`_socket`, a C module.

Fail safe and never trusted blindly:
- the socket is $XDG_STATE_HOME/gateway/hook.sock (or ~/.local/state/...) in a 0700
  directory, and the peer's uid is checked with SO_PEERCRED: only a server run by this same
  user is ever asked (no other local user can stand in for it);
- every hook event is forwarded (FORWARDED), only calls with an absolute CLAUDE_PROJECT_DIR;
- the server refuses (and the hook decides in-process) when its code is not the code this
  process would run (package directory, version, files changed since it started) or HOME
  differs; no server, a refusal, a timeout or anything malformed: the hook decides
  in-process, exactly as without a server. GATEWAY_RESIDENT=off turns the fast path off.

Exactly once (the hooks that write state: every event but PURE). Deciding a PreToolUse
twice is harmless; applying a TaskCreated, a SessionStart or a PostToolUse twice is not
(a record, an audit line, a phase written twice). So a state-writing call carries a random
call id, and whoever applies it -- the server or this process -- first takes it: creates
``calls/<id>`` next to the socket with O_EXCL, which only one of them can do.
- the server takes the call under its decision lock, just before it applies it, and writes
  the hook's answer to ``calls/<id>.done`` (atomically) once applied; a call it cannot take
  (this process has it) or that waited longer than the hook waits is refused, not applied;
- this process, when it got no answer (no server, refused, timeout, killed mid-call), tries
  to take the call itself: if it can, the server never applied it and never will: it
  decides in-process. If it cannot, the server took it: it waits for the server's answer
  (``.done``) while the server process lives, and otherwise says so on stderr and prints
  what the hook prints on an internal error (these hooks never allow anything: nothing).
  A server killed between taking and answering is a hook process killed mid-call: the
  event is applied once or not at all, never twice.
"""

import os
import sys

#: Every hook event (gateway.hooks.runner.events(); a test holds the two equal), with
#: Claude Code's name for it: the resident server answers them all.
EVENTS = {
    "permission-request": "PermissionRequest", "pre-tool-use": "PreToolUse",
    "post-tool-use": "PostToolUse", "pre-compact": "PreCompact",
    "session-end": "SessionEnd", "session-start": "SessionStart",
    "subagent-start": "SubagentStart", "task-completed": "TaskCompleted",
    "task-created": "TaskCreated", "teammate-idle": "TeammateIdle",
    "user-prompt-submit": "UserPromptSubmit",
}
FORWARDED = tuple(EVENTS)
#: The hooks whose answer is a pure function of stdin, the environment and the files they
#: read (PreToolUse checks a role registration, PostToolUse records it): asking twice is
#: harmless, so they carry no call id. Every other event writes state: exactly once.
PURE = ("permission-request", "pre-tool-use")
SOCKET_NAME = "hook.sock"
CALLS_DIR = "calls"
DONE = ".done"
MAGIC = b"GWR2"
TIMEOUT = 10.0
MAX_ANSWER = 1 << 20
ANSWERED, REFUSED = b"A", b"R"


def socket_path(env) -> str:
    base = env.get("XDG_STATE_HOME") or os.path.join(
        env.get("HOME") or os.path.expanduser("~"), ".local", "state")
    return os.path.join(base, "gateway", SOCKET_NAME)


def calls_dir(socket: str) -> str:
    """Where the state-writing calls are taken: next to the socket (the same 0700 directory
    for the server and the hook that reached it)."""
    return os.path.join(os.path.dirname(socket), CALLS_DIR)


def package_dir() -> str:
    return os.path.dirname(os.path.abspath(__file__))


def _field(data: bytes) -> bytes:
    return len(data).to_bytes(4, "big") + data


def encode_request(event: str, raw: bytes, env, call: str = "") -> bytes:
    from gateway import __version__

    blob = b"\0".join(f"{k}={v}".encode("utf-8", "surrogateescape") for k, v in env.items())
    parts = [event.encode(), __version__.encode(), package_dir().encode("utf-8",
             "surrogateescape"), blob, raw, call.encode("ascii")]
    return MAGIC + b"".join(_field(p) for p in parts)


def decode_request(data: bytes):
    """(event, version, package_dir, env dict, raw, call id) or raise ValueError."""
    if not data.startswith(MAGIC):
        raise ValueError("not a gateway request")
    i = len(MAGIC)
    parts = []
    for _ in range(6):
        if i + 4 > len(data):
            raise ValueError("truncated request")
        n = int.from_bytes(data[i:i + 4], "big")
        i += 4
        if i + n > len(data):
            raise ValueError("truncated request")
        parts.append(data[i:i + n])
        i += n
    if i != len(data):
        raise ValueError("trailing bytes")
    event, version, pkg, blob, raw, call = parts
    env = {}
    for item in blob.split(b"\0") if blob else ():
        key, sep, value = item.partition(b"=")
        if not sep:
            raise ValueError("bad environment entry")
        env[key.decode("utf-8", "surrogateescape")] = value.decode("utf-8", "surrogateescape")
    call = call.decode("ascii")
    if call and not valid_call(call):
        raise ValueError("bad call id")
    return (event.decode("ascii"), version.decode("ascii"),
            pkg.decode("utf-8", "surrogateescape"), env, raw, call)


def valid_call(call: str) -> bool:
    return len(call) == 32 and all(c in "0123456789abcdef" for c in call)


def take(directory: str, call: str) -> bool:
    """Take the call `call` (create ``calls/<id>`` with O_EXCL, holding this pid): True when
    this process now owns it, False when someone else took it first. Raises OSError when
    the directory is not usable (then nobody can have taken it: see forward())."""
    fd = None
    try:
        fd = os.open(os.path.join(directory, call),
                     os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except FileExistsError:
        return False
    try:
        os.write(fd, str(os.getpid()).encode())
    finally:
        os.close(fd)
    return True


def finish(directory: str, call: str, text: str) -> None:
    """The server's answer to a call it took, for a hook that stopped waiting on the socket."""
    path = os.path.join(directory, call)
    tmp = f"{path}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0),
                 0o600)
    try:
        os.write(fd, text.encode("utf-8"))
    finally:
        os.close(fd)
    os.replace(tmp, path + DONE)


def forward(event: str, raw: bytes, env, timeout=None):
    """The hook's output text from the resident server, or None to decide in-process.
    `timeout`: how long to wait on the socket (default TIMEOUT)."""
    if event not in FORWARDED or env.get("GATEWAY_RESIDENT", "").lower() in ("off", "0", "no"):
        return None
    project = env.get("CLAUDE_PROJECT_DIR", "")
    if not project.startswith("/"):
        return None
    path = socket_path(env)
    if not os.path.exists(path):
        return None
    call = "" if event in PURE else os.urandom(16).hex()
    answer = _ask(path, encode_request(event, raw, env, call),
                  TIMEOUT if timeout is None else timeout)
    text = _answer_text(event, answer)
    if not call:
        return text
    directory = calls_dir(path)
    if text is not None:  # answered: the server applied it; its record of the call goes
        for name in (call, call + DONE):
            try:
                os.unlink(os.path.join(directory, name))
            except OSError:
                pass
        return text
    try:
        if take(directory, call):
            return None  # the server never applied it and now never will: in-process
    except OSError:
        return None      # no calls directory: no server could take the call
    return _await(event, directory, call)


def _ask(path: str, request: bytes, timeout: float):
    """The server's raw answer, or None (no server, not this user's, timeout, closed)."""
    try:
        import _socket

        peercred = getattr(_socket, "SO_PEERCRED", None)
        if peercred is None:  # no way to know who answers: do not ask
            return None
        sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        try:
            sock.settimeout(timeout)
            sock.connect(path)
            cred = sock.getsockopt(_socket.SOL_SOCKET, peercred, 12)
            if int.from_bytes(cred[4:8], sys.byteorder) != os.getuid():
                return None
            sock.sendall(request)
            sock.shutdown(_socket.SHUT_WR)
            chunks = []
            size = 0
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                size += len(chunk)
                if size > MAX_ANSWER:
                    return None
                chunks.append(chunk)
        finally:
            sock.close()
    except Exception:  # no server, refused, timeout: decide in-process
        return None
    return b"".join(chunks)


def _answer_text(event: str, answer):
    """The hook's output in a server's answer, or None when it is none of this hook's."""
    if not answer or answer[:1] != ANSWERED:
        return None
    try:
        text = answer[1:].decode("utf-8")
    except UnicodeDecodeError:
        return None
    if not text:
        return text
    if text.startswith('{"hookSpecificOutput": {"hookEventName": "' + EVENTS[event] + '"'):
        return text
    if event not in PURE and text.startswith('{"systemMessage": '):
        return text
    return None


#: How long a hook waits for the answer of a call the server took, counted from then.
AWAIT = 15.0


def _await(event: str, directory: str, call: str) -> str:
    """The answer of a call the server took (it applies it, once): ``calls/<id>.done``
    while the server lives; else what the hook prints on an internal error."""
    import time

    path = os.path.join(directory, call)
    end = time.monotonic() + AWAIT
    pid = 0
    while True:
        try:
            with open(path + DONE, "rb") as fh:
                text = _answer_text(event, ANSWERED + fh.read(MAX_ANSWER))
            if text is None:
                break
            for name in (call, call + DONE):
                try:
                    os.unlink(os.path.join(directory, name))
                except OSError:
                    pass
            return text
        except OSError:
            pass
        if not pid:
            try:
                with open(path, "rb") as fh:
                    pid = int(fh.read(32) or b"0")
            except (OSError, ValueError):
                pid = 0
        try:
            if pid > 0:  # (0: the server has just created the file, not yet written its pid)
                os.kill(pid, 0)
        except ProcessLookupError:  # the server is gone: its answer is there now or never
            if not os.path.exists(path + DONE):
                break
            continue
        except OSError:
            pass
        if time.monotonic() > end:
            break
        time.sleep(0.02)
    sys.stderr.write(f"gateway: the running `gateway serve` took this {EVENTS[event]} call and "
                     "gave no answer (stopped or too slow); it is not applied a second time "
                     "here. If the server was killed mid-call, the call may not be recorded, "
                     "as when a hook process is killed.\n")
    return ""
