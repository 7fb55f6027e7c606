"""Does the sandbox really apply here? Proved by running a command in it, judged by effect.

Two probes, each a real run (not a settings read):

* `os_probe()`  bubblewrap itself, started the way Claude Code starts it on Linux (a new user,
  PID and network namespace, the root read-only, one directory writable, a canary file
  covered the way denyRead covers a file): the canary's text must not come back, a write
  outside must fail, a write inside must land. It tells what is missing when it fails:
  bubblewrap, socat, user namespaces (the kernel switch, AppArmor's restriction of
  unprivileged user namespaces on Ubuntu 23.10 and later), or a container that forbids them.
* `client_probe()`  the real Claude Code, against a scripted local stand-in for the model
  (nothing leaves the machine), in a scratch project and home holding canary secrets, with
  the sandbox settings in effect for the real project: one Bash call reads the canaries and
  writes outside the project and inside it, one asks to leave the sandbox. Judged by what
  reached the "model" and what is on disk afterwards.
"""

import json
import os
import secrets
import shutil
import subprocess
import tempfile
import threading

#: What a missing sandbox costs, in one paragraph (install and doctor print it).
COST = ("Without the sandbox Bash runs unconfined: the gateway decides by prediction alone, "
        "so programs it does not know keep asking (GW840) even where your own "
        "permissions.allow rules name them, a secret is kept from a command only by the "
        "hooks' asks, and nothing stops a write the prediction missed (outside the project, "
        "or to a file that runs later).")

INSTALL_HINT = ("Debian/Ubuntu: sudo apt-get install bubblewrap socat; Fedora: sudo dnf "
                "install bubblewrap socat; Arch: sudo pacman -S bubblewrap socat")


class Finding:
    __slots__ = ("status", "title", "fix")

    def __init__(self, status, title, fix=""):
        self.status = status  # ok | fail | warn | info
        self.title = title
        self.fix = fix

    def __repr__(self) -> str:
        return f"Finding({self.status!r}, {self.title!r})"


class Probe:
    """A probe's result: ok, what it saw, and the findings that explain a failure."""

    def __init__(self, ok, detail, findings=()):
        self.ok = ok
        self.detail = detail
        self.findings = list(findings)

    def summary(self) -> str:
        """What is missing and how to fix it, in one line."""
        missing = [f for f in self.findings if f.status == "fail"]
        if not missing:
            return self.detail + "."
        fixes = list(dict.fromkeys(f.fix for f in missing if f.fix))
        return "; ".join(f.title for f in missing) + ". To fix: " + "; ".join(fixes) + "."


def _which(name, env):
    return shutil.which(name, path=(env or os.environ).get("PATH"))


def _read(path):
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read().strip()
    except OSError:
        return None


def in_container() -> str:
    """A hint that this runs in a container (Docker, Podman, LXC), or ""."""
    if os.path.exists("/.dockerenv"):
        return "Docker"
    if os.path.exists("/run/.containerenv"):
        return "Podman"
    cg = _read("/proc/1/cgroup") or ""
    for word in ("docker", "kubepods", "containerd", "lxc"):
        if word in cg:
            return word
    env1 = ""
    try:
        with open("/proc/1/environ", "rb") as fh:
            env1 = fh.read().decode("utf-8", "replace")
    except OSError:
        pass
    if "container=" in env1:
        return env1.split("container=", 1)[1].split("\x00", 1)[0] or "a container"
    return ""


def dependencies(env=None) -> list:
    """What the sandbox needs on Linux, each found or not, with the fix."""
    env = os.environ if env is None else env
    out = []
    bwrap = _which("bwrap", env)
    if bwrap:
        try:
            v = subprocess.run([bwrap, "--version"], capture_output=True, text=True,
                               timeout=10, stdin=subprocess.DEVNULL).stdout.strip()
        except (OSError, subprocess.TimeoutExpired):
            v = "?"
        out.append(Finding("ok", f"bubblewrap: {bwrap} ({v or 'version unknown'})"))
    else:
        out.append(Finding("fail", "bubblewrap (bwrap) is not installed (not on PATH)",
                           "install it: " + INSTALL_HINT))
    socat = _which("socat", env)
    if socat:
        out.append(Finding("ok", f"socat: {socat}"))
    else:
        out.append(Finding("fail", "socat is not installed (not on PATH); the sandbox's "
                           "network proxy needs it", "install it: " + INSTALL_HINT))
    max_ns = _read("/proc/sys/user/max_user_namespaces")
    if max_ns is not None and max_ns.isdigit() and int(max_ns) == 0:
        out.append(Finding("fail", "user namespaces are switched off "
                           "(user.max_user_namespaces = 0)",
                           "sudo sysctl -w user.max_user_namespaces=15000 (and in "
                           "/etc/sysctl.d/ to keep it)"))
    clone = _read("/proc/sys/kernel/unprivileged_userns_clone")
    if clone == "0" and os.geteuid() != 0:
        out.append(Finding("fail", "unprivileged user namespaces are switched off "
                           "(kernel.unprivileged_userns_clone = 0)",
                           "sudo sysctl -w kernel.unprivileged_userns_clone=1"))
    aa = _read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns")
    if aa == "1":
        out.append(Finding("warn", "AppArmor restricts unprivileged user namespaces "
                           "(kernel.apparmor_restrict_unprivileged_userns = 1, Ubuntu 23.10+): "
                           "bubblewrap needs an AppArmor profile allowing them",
                           "add bubblewrap's AppArmor profile (see "
                           "https://code.claude.com/docs/en/sandboxing), or sudo sysctl -w "
                           "kernel.apparmor_restrict_unprivileged_userns=0"))
    return out


def _bwrap_argv(bwrap, rw, canary):
    return [bwrap, "--new-session", "--die-with-parent", "--unshare-user", "--unshare-pid",
            "--unshare-net", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
            "--bind", rw, rw, "--ro-bind", "/dev/null", canary, "--chdir", rw, "--"]


def os_probe(env=None, timeout=20.0) -> Probe:
    """Run a command in bubblewrap as the client would and judge it by its effect."""
    env = dict(os.environ if env is None else env)
    deps = dependencies(env)
    bwrap = _which("bwrap", env)
    if not bwrap:
        return Probe(False, "bubblewrap is not installed", deps)
    nonce = secrets.token_hex(8)
    base = tempfile.mkdtemp(prefix="gateway-sandbox-probe-")
    try:
        rw = os.path.join(base, "project")
        os.mkdir(rw)
        canary = os.path.join(rw, ".env")
        with open(canary, "w") as fh:
            fh.write(f"CANARY={nonce}\n")
        outside = os.path.join(base, "outside.txt")
        script = ('cat .env 2>&1; echo x > "$1" 2>/dev/null && echo OUTSIDE-WRITTEN; '
                  'echo ok > inside.txt && echo INSIDE-WRITTEN')
        argv = _bwrap_argv(bwrap, rw, canary) + ["/bin/sh", "-c", script, "probe", outside]
        try:
            p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                               stdin=subprocess.DEVNULL, env={"PATH": "/usr/bin:/bin"})
        except subprocess.TimeoutExpired:
            return Probe(False, f"bubblewrap did not finish within {timeout:g} s", deps)
        except OSError as exc:
            return Probe(False, f"bubblewrap cannot be started: {exc}", deps)
        out = (p.stdout or "") + (p.stderr or "")
        if p.returncode != 0 and "INSIDE-WRITTEN" not in out:
            err = (p.stderr or p.stdout).strip().splitlines()
            why = err[-1] if err else f"exit status {p.returncode}"
            findings = list(deps)
            findings.append(_explain_bwrap_error(why))
            return Probe(False, f"bubblewrap could not start a sandbox: {why}", findings)
        problems = []
        if nonce in out:
            problems.append("the covered canary's text came back")
        if os.path.exists(outside) or "OUTSIDE-WRITTEN" in out:
            problems.append("a write outside the writable directory landed")
        if not os.path.exists(os.path.join(rw, "inside.txt")):
            problems.append("a write inside the writable directory did not land")
        if problems:
            return Probe(False, "bubblewrap ran but did not confine the command: "
                         + "; ".join(problems), deps)
        missing = [f for f in deps if f.status == "fail"]
        if missing:
            return Probe(False, "bubblewrap confines commands, but " + missing[0].title, deps)
        return Probe(True, "bubblewrap starts a sandbox here: a covered file read empty, a "
                     "write outside failed, a write inside landed", deps)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _explain_bwrap_error(line) -> Finding:
    low = line.lower()
    where = in_container()
    if "uid map" in low or "user namespace" in low or "operation not permitted" in low \
            or "permission denied" in low or "no permissions to create" in low:
        if where:
            return Finding("fail", f"user namespaces are not allowed here ({where}: {line})",
                           "run the container with user namespaces allowed (Docker: "
                           "--security-opt seccomp=unconfined --security-opt "
                           "apparmor=unconfined, or a profile allowing unshare/clone of "
                           "CLONE_NEWUSER), or run Claude Code outside the container")
        return Finding("fail", f"user namespaces cannot be created ({line})",
                       "allow unprivileged user namespaces (AppArmor: bubblewrap's profile or "
                       "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0; "
                       "Debian: sudo sysctl -w kernel.unprivileged_userns_clone=1)")
    return Finding("fail", f"bubblewrap failed: {line}",
                   "run `bwrap --ro-bind / / --unshare-user --unshare-net true` to see why")


# --- the real client ---------------------------------------------------------------------


def _sse(event, data) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


def _turn_sse(blocks, model) -> bytes:
    out = [_sse("message_start", {"type": "message_start", "message": {
        "id": "msg_gateway_probe", "type": "message", "role": "assistant", "model": model,
        "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1}}})]
    for i, b in enumerate(blocks):
        if b["type"] == "text":
            out.append(_sse("content_block_start", {"type": "content_block_start", "index": i,
                                                    "content_block": {"type": "text",
                                                                      "text": ""}}))
            out.append(_sse("content_block_delta", {"type": "content_block_delta", "index": i,
                                                    "delta": {"type": "text_delta",
                                                              "text": b["text"]}}))
        else:
            out.append(_sse("content_block_start", {"type": "content_block_start", "index": i,
                                                    "content_block": {
                                                        "type": "tool_use", "id": b["id"],
                                                        "name": b["name"], "input": {}}}))
            out.append(_sse("content_block_delta", {"type": "content_block_delta", "index": i,
                                                    "delta": {"type": "input_json_delta",
                                                              "partial_json":
                                                                  json.dumps(b["input"])}}))
        out.append(_sse("content_block_stop", {"type": "content_block_stop", "index": i}))
    stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
    out.append(_sse("message_delta", {"type": "message_delta",
                                      "delta": {"stop_reason": stop, "stop_sequence": None},
                                      "usage": {"output_tokens": 1}}))
    out.append(_sse("message_stop", {"type": "message_stop"}))
    return b"".join(out)


class _Model:
    """A scripted stand-in for the Messages API on 127.0.0.1: the first agent request gets
    the tool calls, every later one "done"; the tool_results sent back are kept."""

    def __init__(self, calls):
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.calls = calls
        self.results = {}
        self.served = False
        model = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def do_POST(self):  # noqa: N802
                n = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(n) if n else b""
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = {}
                path = self.path.split("?", 1)[0]
                if path.endswith("/count_tokens"):
                    return self._send(b'{"input_tokens": 1}', "application/json")
                model.collect(body)
                blocks = [{"type": "text", "text": "done"}]
                if body.get("tools") and not model.served:
                    model.served = True
                    blocks = model.calls
                self._send(_turn_sse(blocks, body.get("model") or "claude"),
                           "text/event-stream")

            def do_GET(self):  # noqa: N802
                self._send(b'{"type":"error","error":{"type":"not_found_error"}}',
                           "application/json", 404)

            do_HEAD = do_GET  # noqa: N815

            def _send(self, data, ctype, status=200):
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def collect(self, body):
        for msg in body.get("messages") or [] if isinstance(body, dict) else []:
            if not isinstance(msg, dict) or not isinstance(msg.get("content"), list):
                continue
            for b in msg["content"]:
                if isinstance(b, dict) and b.get("type") == "tool_result":
                    c = b.get("content")
                    if isinstance(c, list):
                        c = "\n".join(x.get("text", "") for x in c if isinstance(x, dict))
                    self.results.setdefault(b.get("tool_use_id"), (bool(b.get("is_error")),
                                                                   str(c or "")))

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"


def _sh_quote(text) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def client_probe(claude, sandbox_block, env=None, timeout=90.0) -> Probe:
    """Run one Bash call through the real client with `sandbox_block` as the scratch
    project's sandbox settings (a callable gets (project, home) and returns it), judged by
    effect."""
    env = dict(os.environ if env is None else env)
    nonce = secrets.token_hex(8)
    base = tempfile.mkdtemp(prefix="gateway-sandbox-client-")
    try:
        project = os.path.join(base, "project")
        home = os.path.join(base, "home")
        if callable(sandbox_block):
            sandbox_block = sandbox_block(project, home)
        os.makedirs(os.path.join(project, ".claude"))
        os.makedirs(os.path.join(home, ".ssh"))
        with open(os.path.join(project, ".env"), "w") as fh:
            fh.write(f"PROJECT_CANARY={nonce}A\n")
        with open(os.path.join(home, ".ssh", "id_rsa"), "w") as fh:
            fh.write(f"HOME_CANARY={nonce}B\n")
        # a PreToolUse hook allows every call, so that only the sandbox stands between the
        # command and the canaries (the client's own checks would refuse some parts)
        allow = json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                                   "permissionDecision": "allow",
                                                   "permissionDecisionReason": "probe"}})
        settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "printf '%s\\n' " + _sh_quote(allow)}]}]},
                    "sandbox": sandbox_block}
        with open(os.path.join(project, ".claude", "settings.json"), "w") as fh:
            json.dump(settings, fh)
        outside = os.path.join(home, "outside-written.txt")
        calls = [
            {"type": "tool_use", "id": "toolu_gateway_probe_1", "name": "Bash",
             "input": {"command": 'cat .env; cat "$HOME/.ssh/id_rsa"; '
                                  'echo x > "$HOME/outside-written.txt"; '
                                  'echo x > inside-written.txt; echo PROBE-RAN',
                       "description": "gateway doctor: sandbox self-test"}},
        ]
        dds = sandbox_block.get("allowUnsandboxedCommands") is False
        if dds:
            calls.append({"type": "tool_use", "id": "toolu_gateway_probe_2", "name": "Bash",
                          "input": {"command": 'echo x > "$HOME/outside-unsandboxed.txt"',
                                    "description": "gateway doctor: leave the sandbox?",
                                    "dangerouslyDisableSandbox": True}})
        with _Model(calls) as model:
            run_env = {"HOME": home, "PATH": env.get("PATH", "/usr/bin:/bin"),
                       "ANTHROPIC_BASE_URL": model.url, "ANTHROPIC_API_KEY": "gateway-probe",
                       "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}
            for k in ("LANG", "LC_ALL", "TMPDIR"):
                if k in env:
                    run_env[k] = env[k]
            try:
                p = subprocess.run([claude, "-p", "gateway doctor sandbox self-test"],
                                   cwd=project, env=run_env, capture_output=True, text=True,
                                   timeout=timeout, stdin=subprocess.DEVNULL,
                                   start_new_session=True)
            except subprocess.TimeoutExpired:
                return Probe(False, f"the client did not finish within {timeout:g} s")
            except OSError as exc:
                return Probe(False, f"the client cannot be started: {exc}")
        if p.returncode != 0 and not model.results:
            err = (p.stderr or p.stdout).strip()
            return Probe(False, "the client refused to run: " + err[-400:])
        first = model.results.get("toolu_gateway_probe_1")
        if first is None:
            return Probe(False, "the client ran no command (no tool result came back)")
        text = first[1]
        problems = []
        if f"{nonce}A" in text:
            problems.append("a project secret (.env) was printed")
        if f"{nonce}B" in text:
            problems.append("a home credential (~/.ssh/id_rsa) was printed")
        if os.path.exists(outside):
            problems.append("a write to the home directory landed")
        if dds and os.path.exists(os.path.join(home, "outside-unsandboxed.txt")):
            problems.append("a call with dangerouslyDisableSandbox ran outside the sandbox")
        if "PROBE-RAN" not in text or not os.path.exists(
                os.path.join(project, "inside-written.txt")):
            problems.append("the command did not run to its end inside the project "
                            f"({text[:200]!r})")
        if problems:
            return Probe(False, "the client's sandbox did not hold: " + "; ".join(problems))
        return Probe(True, "Claude Code ran a Bash command in its sandbox: the project's "
                     ".env and ~/.ssh/id_rsa read as denied, a write to the home directory "
                     "failed" + (", dangerouslyDisableSandbox was ignored" if dds else "")
                     + ", a write in the project landed")
    finally:
        shutil.rmtree(base, ignore_errors=True)
