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
- only hooks listed in FORWARDED (whose decision is a pure function of stdin and the
  environment) and only calls with an absolute CLAUDE_PROJECT_DIR are forwarded;
- the server refuses (and the hook decides in-process) when its code is not the code this
  process would run (package directory, version, files changed since it started) or HOME
  differs; no server, a refusal, a timeout or anything malformed: the hook decides
  in-process, exactly as without a server. GATEWAY_RESIDENT=off turns the fast path off.
"""

import os
import sys

#: Hooks whose answer may come from the resident server: the two every tool call pays for.
#: Their decision is a function of stdin, the environment and the files they read; neither
#: writes state (PreToolUse checks a role registration, PostToolUse records it). The other
#: hooks write the team's state or run programs: a forward that timed out and was decided
#: again in-process could apply that twice, so they stay in-process.
FORWARDED = ("permission-request", "pre-tool-use")
#: What an answer for each forwarded hook starts with when it decides (an answer may also
#: be empty: no decision). Anything else is not the server's answer: decide in-process.
_ANSWER_PREFIX = {
    "permission-request": '{"hookSpecificOutput": {"hookEventName": "PermissionRequest"',
    "pre-tool-use": '{"hookSpecificOutput": {"hookEventName": "PreToolUse"',
}
SOCKET_NAME = "hook.sock"
MAGIC = b"GWR1"
TIMEOUT = 10.0
MAX_ANSWER = 1 << 20
ANSWERED, REFUSED = b"A", b"R"


def socket_path(env) -> str:
    base = env.get("XDG_STATE_HOME") or os.path.join(
        env.get("HOME") or os.path.expanduser("~"), ".local", "state")
    return os.path.join(base, "gateway", SOCKET_NAME)


def package_dir() -> str:
    return os.path.dirname(os.path.abspath(__file__))


def _field(data: bytes) -> bytes:
    return len(data).to_bytes(4, "big") + data


def encode_request(event: str, raw: bytes, env) -> bytes:
    from gateway import __version__

    blob = b"\0".join(f"{k}={v}".encode("utf-8", "surrogateescape") for k, v in env.items())
    parts = [event.encode(), __version__.encode(), package_dir().encode("utf-8",
             "surrogateescape"), blob, raw]
    return MAGIC + b"".join(_field(p) for p in parts)


def decode_request(data: bytes):
    """(event, version, package_dir, env dict, raw) or raise ValueError."""
    if not data.startswith(MAGIC):
        raise ValueError("not a gateway request")
    i = len(MAGIC)
    parts = []
    for _ in range(5):
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
    event, version, pkg, blob, raw = parts
    env = {}
    for item in blob.split(b"\0") if blob else ():
        key, sep, value = item.partition(b"=")
        if not sep:
            raise ValueError("bad environment entry")
        env[key.decode("utf-8", "surrogateescape")] = value.decode("utf-8", "surrogateescape")
    return (event.decode("ascii"), version.decode("ascii"),
            pkg.decode("utf-8", "surrogateescape"), env, raw)


def forward(event: str, raw: bytes, env):
    """The hook's output text from the resident server, or None to decide in-process."""
    if event not in FORWARDED or env.get("GATEWAY_RESIDENT", "").lower() in ("off", "0", "no"):
        return None
    project = env.get("CLAUDE_PROJECT_DIR", "")
    if not project.startswith("/"):
        return None
    path = socket_path(env)
    if not os.path.exists(path):
        return None
    try:
        import _socket

        peercred = getattr(_socket, "SO_PEERCRED", None)
        if peercred is None:  # no way to know who answers: do not ask
            return None
        sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        try:
            sock.settimeout(TIMEOUT)
            sock.connect(path)
            cred = sock.getsockopt(_socket.SOL_SOCKET, peercred, 12)
            if int.from_bytes(cred[4:8], sys.byteorder) != os.getuid():
                return None
            sock.sendall(encode_request(event, raw, env))
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
    answer = b"".join(chunks)
    if answer[:1] != ANSWERED:
        return None
    try:
        text = answer[1:].decode("utf-8")
    except UnicodeDecodeError:
        return None
    if text and not text.startswith(_ANSWER_PREFIX.get(event, "\0")):
        return None
    return text
