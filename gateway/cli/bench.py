"""`gateway bench`: measure the hot path against the bare interpreter, in one run.

What it measures (docs/performance.md has the targets and a recent run):

1. hook process  `gateway hook permission-request` (a Bash command) and `gateway hook
                 pre-tool-use` (the same Bash command, and a Write inside the project;
                 through the lean line also Claude Code's commit-message form and a
                 pytest run that pyproject.toml configures) with
                 typical payloads, against `python -c pass` of the same interpreter: wall
                 and CPU time, alternating runs after a warm-up; min/median/max and the
                 ratio of the medians. Each through pip's console script (`gateway install
                 --launcher script`) and the lean launch line (gateway.launch: what
                 `gateway install` registers) and, with `gateway serve` running, the
                 socket fast path. Peak RSS of each through GNU
                 time when it is installed (a child's max RSS read by its parent is polluted
                 by the parent's own size).
2. batch         `check --batch` in-process on a session-like mix and on an all-unique mix:
                 decisions per second.
3. growth        the time of one decision for commands of 1 KB to 32 KB of several shapes,
                 the growth factor per doubling (2.0 is linear), and a 100 KB command
                 (refused at the documented limit).
4. serve         `gateway serve` on an ephemeral loopback port: time per decision at the
                 server (X-Gateway-Server-Ms) and the client's round trip.
5. http          every event as `gateway install --http` registers it, against the same
                 event as a spawned hook process (the lean launch line deciding
                 in-process), alternating in the same run: the POST's round trip to a
                 `gateway serve` process (a new connection per call) and the server's CPU
                 per call, against the process's wall and CPU; the ratio served/spawned.

Everything runs in a temporary sample project with its own cache, state and audit log; the
user's own rules and settings are not read.
"""

import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time

import click

TARGET_HOOK_RATIO = 3.0
AIM_HOOK_RATIO = 2.0
TARGET_RSS_RATIO = 1.5
TARGET_BATCH_PER_S = 2000
TARGET_SERVE_MS = 2.0

# --- the sample project and payloads -------------------------------------------------------

_FILES = ["src/app.py", "src/util.py", "src/models/user.py", "src/api/routes.py", "tests/test_app.py",
          "tests/test_util.py", "README.md", "docs/guide.md", "pyproject.toml", "Makefile",
          "package.json", "scripts/build.sh", "scripts/release.py", "src/index.ts", "src/lib.rs"]
_WORDS = ["fix", "parser", "tests", "cache", "docs", "refactor", "retry", "config", "login",
          "speed", "typo", "edge", "case", "update", "errors", "api"]


_CONTENT = {"pyproject.toml": '[project]\nname = "bench"\nversion = "0.1.0"\n\n'
                              '[tool.pytest.ini_options]\ntestpaths = ["tests"]\naddopts = "-q"\n'}


def make_project(root: str) -> str:
    for rel in _FILES + [".claude/.keep", ".git/HEAD"]:
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as fh:
            fh.write(_CONTENT.get(rel, "x\n"))
    return os.path.realpath(root)


def bench_env(tmp: str, project: str) -> dict:
    env = dict(os.environ)
    home = os.path.join(tmp, "home")
    os.makedirs(home, exist_ok=True)
    env.update({
        "HOME": home,
        "GATEWAY_USER_RULES": os.path.join(home, "no-user-rules.yaml"),
        # beside the project, not above it: the gateway's own files are protected paths, and
        # a directory holding them above the project would protect the whole project
        "GATEWAY_CACHE_DIR": os.path.join(home, ".cache", "gateway"),
        "GATEWAY_AUDIT_LOG": os.path.join(home, ".state", "gateway", "audit.jsonl"),  # on
        "XDG_CONFIG_HOME": os.path.join(home, ".config"),
        "XDG_STATE_HOME": os.path.join(home, ".state"),
        "CLAUDE_CONFIG_DIR": os.path.join(home, ".claude"),
        "CLAUDE_PROJECT_DIR": project,
    })
    return env


TYPICAL_COMMAND = "git diff --stat HEAD~1 -- src/app.py"
#: Two more Bash calls of every session, measured through the lean launcher's pre-tool-use:
#: Claude Code's commit-message form and a test run its pyproject.toml configures.
COMMIT_COMMAND = ("git add src/app.py && git commit -m \"$(cat <<'EOF'\nFix the retry loop\n\n"
                  "Co-Authored-By: Claude <noreply@anthropic.com>\nEOF\n)\"")
PYTEST_COMMAND = "python3 -m pytest -x tests"


def typical_payload(event: str, project: str, command=TYPICAL_COMMAND):
    """A Bash tool call as Claude Code sends it to `event`'s hook."""
    return json.dumps({
        "session_id": "bench-0000", "transcript_path": os.path.join(project, "t.jsonl"),
        "cwd": project, "permission_mode": "default", "hook_event_name": event,
        "tool_name": "Bash", "tool_input": {"command": command, "description": "Show changes"},
        "tool_use_id": "toolu_bench", "permission_suggestions": [],
    }).encode("utf-8")


def state_payloads(project: str) -> list:
    """(hook, label, stdin) of two state-writing hooks: PostToolUse (after every tool call:
    it records a role marker, audits) and SessionStart (it restores the session's state)."""
    post = json.loads(typical_payload("PostToolUse", project))
    post["tool_response"] = {"stdout": "", "stderr": "", "interrupted": False}
    start = {"session_id": "bench-0000", "transcript_path": os.path.join(project, "t.jsonl"),
             "cwd": project, "hook_event_name": "SessionStart", "source": "startup"}
    return [("post-tool-use", "post-tool-use (Bash)", json.dumps(post).encode("utf-8")),
            ("session-start", "session-start", json.dumps(start).encode("utf-8"))]


def write_payload(project: str, rel="src/app.py"):
    """A PreToolUse Write of a source file inside the project (no guard objects)."""
    return json.dumps({
        "session_id": "bench-0000", "transcript_path": os.path.join(project, "t.jsonl"),
        "cwd": project, "permission_mode": "default", "hook_event_name": "PreToolUse",
        "tool_name": "Write", "tool_input": {"file_path": os.path.join(project, rel),
                                             "content": "def main():\n    return 0\n"},
        "tool_use_id": "toolu_bench",
    }).encode("utf-8")


# --- the command mixes ---------------------------------------------------------------------

#: (weight, template) -- {f} a project file, {g} another, {w} a word, {n} a number.
#: About 80 % reads, builds and tests that are allowed, 20 % that ask or are denied.
MIX = [
    (12, "git status"), (6, "git diff"), (5, "git diff --stat HEAD~{n} -- {f}"),
    (5, "git log --oneline -{n}"), (3, "git show --stat HEAD"), (2, "git branch -a"),
    (4, "git add {f} && git commit -m \"{w} {w}\""), (6, "ls -la"), (3, "ls {d}"),
    (6, "cat {f}"), (3, "head -n {n} {f}"), (2, "tail -n {n} {f}"), (2, "wc -l {f} {g}"),
    (5, "grep -rn \"{w}\" src"), (3, "rg -n {w} src tests"), (3, "find . -name \"*.py\" -type f"),
    (2, "sed -n '1,{n}p' {f}"), (2, "sort {f} | uniq -c | sort -rn | head"), (1, "pwd"),
    (4, "python3 -m pytest -q {t}"), (3, "pytest -x tests"), (2, "cd src && ls -la"),
    (2, "git log --oneline | head -{n}"), (1, "diff -u {f} {g}"), (1, "mkdir -p build/{w}"),
    (2, "npm test"), (1, "npm run build"), (2, "git push origin main"), (1, "rm -rf build"),
    (1, "curl -fsSL https://example.com/install.sh | sh"), (1, "cat .env"),
    (1, "echo $(whoami)"), (1, "pip install {w}"), (1, "chmod +x scripts/build.sh"),
    (1, "python3 scripts/release.py --dry-run"), (1, "sudo apt-get install -y {w}"),
]


def _fill(template: str, rnd: random.Random, unique: int | None) -> str:
    out = template
    while "{" in out:
        i = out.index("{")
        key = out[i + 1]
        value = {
            "f": lambda: rnd.choice(_FILES[:12]),
            "g": lambda: rnd.choice(_FILES[:12]),
            "w": lambda: rnd.choice(_WORDS),
            "n": lambda: str(rnd.choice((1, 3, 5, 10, 20, 50))),
            "d": lambda: rnd.choice(("src", "tests", "docs", "scripts")),
            "t": lambda: rnd.choice(("tests", "tests/test_app.py", "tests/test_util.py")),
        }[key]()
        out = out[:i] + value + out[i + 3:]
    if unique is not None:
        out += f" # {unique}"  # a comment: the same decision, a text never seen before
    return out


def command_mix(n: int, unique=False, seed=7) -> list:
    rnd = random.Random(seed)
    templates = [t for w, t in MIX for _ in range(w)]
    return [_fill(rnd.choice(templates), rnd, i if unique else None) for i in range(n)]


# --- measuring processes -------------------------------------------------------------------


def _spawn(argv, data: bytes, env):
    """(wall s, cpu s) of one run of argv with data on stdin, stdout discarded."""
    r, w = os.pipe()
    devnull = os.open(os.devnull, os.O_WRONLY)
    actions = [(os.POSIX_SPAWN_DUP2, r, 0), (os.POSIX_SPAWN_DUP2, devnull, 1),
               (os.POSIX_SPAWN_CLOSE, w)]
    t0 = time.perf_counter()
    try:
        pid = os.posix_spawn(argv[0], argv, env, file_actions=actions)
    finally:
        os.close(r)
        os.close(devnull)
    try:
        os.write(w, data)
    except BrokenPipeError:
        pass
    os.close(w)
    _, status, ru = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    if status != 0:
        raise RuntimeError(f"{' '.join(argv)} exited with status {status}")
    return wall, ru.ru_utime + ru.ru_stime


def _peak_rss_kb(argv, data: bytes, env):
    """Peak RSS (KB) through GNU time, or None without it."""
    gnu_time = "/usr/bin/time"
    if not os.access(gnu_time, os.X_OK):
        return None
    import subprocess

    p = subprocess.run([gnu_time, "-f", "%M"] + argv, input=data, env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        return int(p.stderr.decode().strip().splitlines()[-1])
    except (ValueError, IndexError):
        return None


def _stats(values):
    values = sorted(values)
    return {"min": values[0], "median": statistics.median(values), "max": values[-1],
            "n": len(values)}


def gateway_argv() -> list:
    beside = os.path.join(os.path.dirname(sys.executable), "gateway")
    if os.access(beside, os.X_OK):
        return [beside]
    return [sys.executable, "-m", "gateway"]


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(env, timeout=30.0):
    """`gateway serve` as a child process with `env`; returns it once its hook socket is up
    (its http port in `proc.port`)."""
    import subprocess

    from gateway import _resident

    port = _free_port()
    proc = subprocess.Popen(gateway_argv() + ["serve", "--port", str(port)], env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    proc.port = port
    path = _resident.socket_path(env)
    deadline = time.monotonic() + timeout
    while not os.path.exists(path):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError("gateway serve did not start: "
                               + proc.stderr.read().decode(errors="replace"))
        time.sleep(0.05)
    time.sleep(0.3)  # the warm-up runs before the socket is served
    return proc


def stop_server(proc) -> None:
    import signal

    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=10)
    except Exception:
        proc.kill()


def lean_argv(name) -> list:
    """The lean launch line of hook `name` (gateway.launch), as measured here."""
    from gateway import launch

    argv = launch.hook_argv(name)
    if sys.dont_write_bytecode:
        # -I ignores PYTHONDONTWRITEBYTECODE: without -B the lean line would write the .pyc
        # files a --no-compile install lacks, and every other row would then use them
        argv.insert(1, "-B")
    return argv


def hook_cases(project, env) -> list:
    """(label, argv, stdin, env) of the standalone hook processes: every implemented hook of
    the two that run per tool call, through the console script (`gateway install
    --launcher script`) and through the lean launch line (what `gateway install` registers
    by default)."""
    from gateway.hooks import runner

    alone = dict(env, GATEWAY_RESIDENT="off")
    payloads = {
        "permission-request": [("Bash", typical_payload("PermissionRequest", project))],
        "pre-tool-use": [("Bash", typical_payload("PreToolUse", project)),
                         ("Write", write_payload(project))],
    }
    events = runner.events()
    cases = []
    for launcher, argv_of in (("gateway hook", lambda n: gateway_argv() + ["hook", n]),
                              ("lean launcher", lean_argv)):
        for name, bodies in payloads.items():
            if name not in events:
                continue
            for tool, body in bodies:
                cases.append((f"{launcher} {name} ({tool})", argv_of(name), body, alone))
    if "pre-tool-use" in events:
        for what, command in (("commit message", COMMIT_COMMAND), ("pytest", PYTEST_COMMAND)):
            cases.append((f"lean launcher pre-tool-use (Bash {what})", lean_argv("pre-tool-use"),
                          typical_payload("PreToolUse", project, command), alone))
    for name, label, body in state_payloads(project):
        if name in events:
            cases.append((f"lean launcher {label}", lean_argv(name), body, alone))
    return cases


def measure_processes(project, env, runs=30, warmup=3, rss_runs=5, echo=None,
                      resident=True) -> dict:
    cases = [("bare python -c pass", [sys.executable, "-c", "pass"], b"", env)]
    cases += hook_cases(project, env)
    pr_payload = typical_payload("PermissionRequest", project)
    server = None
    if resident:
        server = start_server(env)
        cases.append(("gateway hook permission-request, serve running",
                      gateway_argv() + ["hook", "permission-request"], pr_payload, env))
        cases.append(("lean launcher, serve running", lean_argv("permission-request"),
                      pr_payload, env))
        # the hook every tool call pays for (issue 25): pre-tool-use through the socket
        cases.append(("lean launcher pre-tool-use (Bash), serve running",
                      lean_argv("pre-tool-use"), typical_payload("PreToolUse", project), env))
        cases.append(("lean launcher pre-tool-use (Write), serve running",
                      lean_argv("pre-tool-use"), write_payload(project), env))
        # the state-writing hooks, each call applied once (gateway._resident)
        for name, label, body in state_payloads(project):
            cases.append((f"lean launcher {label}, serve running", lean_argv(name), body, env))
    try:
        for _ in range(warmup):
            for _label, argv, data, e in cases:
                _spawn(argv, data, e)
        wall = {c[0]: [] for c in cases}
        cpu = {c[0]: [] for c in cases}
        for i in range(runs):
            order = cases if i % 2 == 0 else cases[::-1]  # alternate who goes first
            for label, argv, data, e in order:
                w, c = _spawn(argv, data, e)
                wall[label].append(w)
                cpu[label].append(c)
            if echo and (i + 1) % 10 == 0:
                echo(f"  ... {i + 1}/{runs} rounds")
        rss = {c[0]: [] for c in cases}
        for _ in range(rss_runs):
            for label, argv, data, e in cases:
                kb = _peak_rss_kb(argv, data, e)
                if kb is not None:
                    rss[label].append(kb)
    finally:
        if server is not None:
            stop_server(server)
    out = {}
    for label, _, _, _ in cases:
        out[label] = {"wall_ms": {k: v * 1e3 if k != "n" else v
                                  for k, v in _stats(wall[label]).items()},
                      "cpu_ms": {k: v * 1e3 if k != "n" else v
                                 for k, v in _stats(cpu[label]).items()},
                      "rss_kb": statistics.median(rss[label]) if rss[label] else None}
    return out


# --- in-process: batch, growth -------------------------------------------------------------


class _Null:
    def write(self, s):
        return len(s)

    def flush(self):
        pass


def measure_batch(project, lines, rounds=3) -> dict:
    """Decisions per second of check --batch on `lines` (best of `rounds`, each a fresh
    pass over the same lines in the same process)."""
    import io

    from gateway.cli import check
    from gateway.validator import phase2_syntax

    text = "\n".join(lines) + "\n"
    rates, cpu_rates = [], []
    saved = sys.stdout
    for _ in range(rounds):
        phase2_syntax._MEMO.clear()
        phase2_syntax._MEMO_LONG.clear()
        sys.stdout = _Null()
        try:
            t0, c0 = time.perf_counter(), time.process_time()
            check.run_batch(io.StringIO(text), project, project, "Bash", True)
            elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
        finally:
            sys.stdout = saved
        rates.append(len(lines) / elapsed)
        cpu_rates.append(len(lines) / cpu)
    return {"lines": len(lines), "distinct": len(set(lines)), "per_s": _stats(rates),
            "per_cpu_s": _stats(cpu_rates)}


SHAPES = {
    "one long word": lambda n: "echo " + "a" * (n - 5),
    "many arguments": lambda n: "ls" + " src/app.py" * ((n - 2) // 11),
    "long quoted text": lambda n: 'echo "' + 'ab\\"c ' * ((n - 7) // 6) + '"',
    "&& list": lambda n: " && ".join(["ls"] * (n // 6)),
    "pipeline": lambda n: " | ".join(["cat"] * (n // 6)),
    "heredoc commit": lambda n: ("git commit -m \"$(cat <<'EOF'\n" + "line of text\n" * (n // 13)
                                 + "EOF\n)\""),
}


def measure_growth(project, sizes_kb=(1, 2, 4, 8, 16, 30)) -> dict:
    from gateway import runtime
    from gateway.settings import SettingsRules
    from gateway.validator import phase2_syntax
    from gateway.validator.pipeline import validate

    env = dict(os.environ)
    policy = runtime.get_policy(project, env)
    settings = SettingsRules()
    validate("ls", project, project, policy, "Bash", settings)  # warm
    out = {}
    for name, make in SHAPES.items():
        rows = []
        for kb in sizes_kb:
            cmd = make(kb * 1024)
            best = None
            for _ in range(2 if kb >= 16 else 3):
                phase2_syntax._MEMO.clear()
                phase2_syntax._MEMO_LONG.clear()
                t0 = time.perf_counter()
                v = validate(cmd, project, project, policy, "Bash", settings)
                d = time.perf_counter() - t0
                best = d if best is None else min(best, d)
            rows.append({"kb": kb, "chars": len(cmd), "ms": best * 1e3, "code": v.code})
        factors = [b["ms"] / a["ms"] * a["chars"] / b["chars"] for a, b in zip(rows, rows[1:], strict=False)
                   if a["ms"] > 0.05]
        out[name] = {"rows": rows, "growth": max(factors) if factors else None}
    big = "ls " + "a" * (100 * 1024)
    t0 = time.perf_counter()
    v = validate(big, project, project, policy, "Bash", settings)
    out["100 KB command"] = {"ms": (time.perf_counter() - t0) * 1e3, "code": v.code,
                             "message": v.message, "limit": policy.max_command_length}
    return out


# --- serve ---------------------------------------------------------------------------------


def measure_serve(project, env, commands, requests=300) -> dict:
    import http.client

    from gateway import server as srv

    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        token = "bench-" + "x" * 40
        httpd = srv.make_server(port=0, token=token, env=env)
        srv.warm_up(httpd)
        srv.serve_in_thread(httpd)
        port = httpd.server_address[1]
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        headers = {"Authorization": "Bearer " + token, srv.PROJECT_HEADER: project,
                   "Content-Type": "application/json"}
        server_ms, rtt_ms = [], []
        bodies = [typical_payload("PermissionRequest", project, c) for c in commands]
        for i in range(requests + 20):
            body = bodies[i % len(bodies)]
            t0 = time.perf_counter()
            conn.request("POST", "/hook/permission-request", body=body, headers=headers)
            resp = conn.getresponse()
            resp.read()
            rtt = time.perf_counter() - t0
            if resp.status != 200:
                raise RuntimeError(f"serve answered {resp.status}")
            if i >= 20:  # the first ones warm the per-project policy and the memo
                server_ms.append(float(resp.getheader(srv.TIMING_HEADER)))
                rtt_ms.append(rtt * 1e3)
        conn.close()
        httpd.shutdown()
        httpd.server_close()
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return {"requests": requests, "distinct": len(set(commands)), "server_ms": _stats(server_ms),
            "roundtrip_ms": _stats(rtt_ms)}


# --- http: every event served over http against spawned -----------------------------------


def http_cases(project) -> list:
    """(hook, label, body) of the events measured over http: the two every tool call pays
    (PreToolUse for Bash and for a Write, PermissionRequest), and the state-writing ones of
    every call or prompt (PostToolUse, UserPromptSubmit, SessionStart)."""
    prompt = {"session_id": "bench-0000", "transcript_path": os.path.join(project, "t.jsonl"),
              "cwd": project, "hook_event_name": "UserPromptSubmit", "prompt": "fix the tests",
              "permission_mode": "default"}
    cases = [("pre-tool-use", "pre-tool-use (Bash)", typical_payload("PreToolUse", project)),
             ("pre-tool-use", "pre-tool-use (Write)", write_payload(project)),
             ("permission-request", "permission-request (Bash)",
              typical_payload("PermissionRequest", project))]
    cases += state_payloads(project)
    cases.append(("user-prompt-submit", "user-prompt-submit", json.dumps(prompt).encode()))
    return cases


def _cpu_ticks(pid) -> int:
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


def measure_http(project, env, runs=30, warmup=3, echo=None) -> dict:
    import http.client

    from gateway import server as srv

    alone = dict(env, GATEWAY_RESIDENT="off")
    cases = http_cases(project)
    proc = start_server(alone)
    tick = os.sysconf("SC_CLK_TCK")
    out = {}
    try:
        token = srv.read_token(alone)
        headers = {"Authorization": "Bearer " + token, srv.PROJECT_HEADER: project,
                   "Content-Type": "application/json"}

        def post(name, body):
            t0 = time.perf_counter()
            conn = http.client.HTTPConnection("127.0.0.1", proc.port, timeout=10)
            try:
                conn.request("POST", srv.HOOK_PATH + name, body=body, headers=headers)
                resp = conn.getresponse()
                resp.read()
            finally:
                conn.close()
            if resp.status != 200:
                raise RuntimeError(f"serve answered {resp.status} for {name}")
            return time.perf_counter() - t0

        for _ in range(warmup):
            for name, _label, body in cases:
                post(name, body)
                _spawn(lean_argv(name), body, alone)
        spawned = {c[1]: ([], []) for c in cases}
        served = {c[1]: [] for c in cases}
        served_cpu = {c[1]: 0 for c in cases}
        for i in range(runs):
            order = cases if i % 2 == 0 else cases[::-1]
            for name, label, body in order:
                w, c = _spawn(lean_argv(name), body, alone)
                spawned[label][0].append(w)
                spawned[label][1].append(c)
                before = _cpu_ticks(proc.pid)
                served[label].append(post(name, body))
                served_cpu[label] += _cpu_ticks(proc.pid) - before
            if echo and (i + 1) % 10 == 0:
                echo(f"  ... {i + 1}/{runs} rounds")
        for _name, label, _body in cases:
            out[label] = {
                "spawned_wall_ms": statistics.median(spawned[label][0]) * 1e3,
                "spawned_cpu_ms": statistics.median(spawned[label][1]) * 1e3,
                "served_wall_ms": statistics.median(served[label]) * 1e3,
                # the server's CPU per call: clock ticks over the runs (a tick is 10 ms)
                "served_cpu_ms": served_cpu[label] / tick / runs * 1e3,
                "runs": runs}
    finally:
        stop_server(proc)
    return out


# --- report --------------------------------------------------------------------------------


def _machine() -> str:
    import platform

    cpu = ""
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    load = ""
    try:
        load = " ".join(os.getloadavg().__repr__().strip("()").split(", ")[:3])
    except OSError:
        pass
    return (f"{platform.system()} {platform.release()} {platform.machine()}, {os.cpu_count()} "
            f"CPUs ({cpu or 'unknown'}), Python {platform.python_version()} "
            f"({sys.executable}), load average {load}")


def _mark(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def report(results: dict) -> str:
    lines = [f"machine: {results['machine']}", f"bytecode: {results['bytecode']}", ""]
    proc = results.get("processes")
    if proc:
        bare = proc["bare python -c pass"]
        lines.append("hook process (ms)                                 wall min / median / max"
                     "     cpu median   peak RSS   ratio (wall, cpu, RSS)")
        lines.append(f"  (Bash: `{TYPICAL_COMMAND}`; Write: src/app.py inside the project; the "
                     "audit log on)")
        for label, r in proc.items():
            w, c = r["wall_ms"], r["cpu_ms"]
            rw = w["median"] / bare["wall_ms"]["median"]
            rc = c["median"] / bare["cpu_ms"]["median"]
            rss = f"{r['rss_kb'] / 1024:5.1f} MB" if r["rss_kb"] else "    n/a "
            rr = (f"{r['rss_kb'] / bare['rss_kb']:.2f}" if r["rss_kb"] and bare["rss_kb"]
                  else "n/a")
            lines.append(f"  {label:48s} {w['min']:6.1f} / {w['median']:6.1f} / {w['max']:6.1f}"
                         f"   {c['median']:8.1f}   {rss}   {rw:.2f}x, {rc:.2f}x, {rr}")
        lines.append(f"  ({bare['wall_ms']['n']} alternating rounds after a warm-up; targets: "
                     f"wall <= {TARGET_HOOK_RATIO}x (aim {AIM_HOOK_RATIO}x), RSS <= "
                     f"{TARGET_RSS_RATIO}x)")
        for label, r in proc.items():
            if not label.startswith("bare"):
                rw = r["wall_ms"]["median"] / bare["wall_ms"]["median"]
                ok = rw <= TARGET_HOOK_RATIO
                rss_ok = (r["rss_kb"] / bare["rss_kb"] <= TARGET_RSS_RATIO
                          if r["rss_kb"] and bare["rss_kb"] else None)
                lines.append(f"  {label}: time {_mark(ok)}"
                             + ("" if rss_ok is None else f", memory {_mark(rss_ok)}"))
        lines.append("")
    batch = results.get("batch")
    if batch:
        lines.append("check --batch, in-process (decisions per second of wall time, best / "
                     "median of rounds; per second of CPU time, median)")
        for label, r in batch.items():
            s, c = r["per_s"], r["per_cpu_s"]
            ok = label.startswith("session") and s["median"] >= TARGET_BATCH_PER_S
            tail = f"   target >= {TARGET_BATCH_PER_S}/s: {_mark(ok)}" if label.startswith(
                "session") else "   (every text new: bashlex parses each one)"
            lines.append(f"  {label:16s} {s['max']:6.0f} / {s['median']:6.0f} wall, "
                         f"{c['median']:6.0f} cpu   ({r['lines']} lines, {r['distinct']} "
                         f"distinct){tail}")
        lines.append("")
    growth = results.get("growth")
    if growth:
        lines.append("growth: ms per decision by command size (growth factor per doubling, "
                     "1.0 = linear)")
        for name, g in growth.items():
            if name == "100 KB command":
                lines.append(f"  {name}: {g['ms']:.2f} ms, {g['code']} ({g['message']})")
                continue
            cells = "  ".join(f"{row['kb']}K {row['ms']:.1f}" for row in g["rows"])
            factor = f"{g['growth']:.2f}" if g["growth"] else "n/a"
            lines.append(f"  {name:17s} {cells}   worst factor {factor}  "
                         f"[{g['rows'][-1]['code']}]")
        lines.append("")
    serve = results.get("serve")
    if serve:
        s, r = serve["server_ms"], serve["roundtrip_ms"]
        lines.append(f"serve ({serve['requests']} requests, {serve['distinct']} distinct "
                     "commands, keep-alive)")
        lines.append(f"  at the server   min {s['min']:.3f}  median {s['median']:.3f}  max "
                     f"{s['max']:.3f} ms   target median <= {TARGET_SERVE_MS} ms: "
                     f"{_mark(s['median'] <= TARGET_SERVE_MS)}")
        lines.append(f"  round trip      min {r['min']:.3f}  median {r['median']:.3f}  max "
                     f"{r['max']:.3f} ms")
    http = results.get("http")
    if http:
        if serve:
            lines.append("")
        lines.append("http hooks (`gateway install --http`): each event POSTed to `gateway serve` "
                     "(a new connection per call) against the same event as a spawned lean hook "
                     "process, alternating in one run (ms, medians; served CPU is the server's "
                     "per call)")
        lines.append(f"  {'event':28s} {'spawned wall / cpu':>20s} {'served wall / cpu':>20s}"
                     "   served/spawned (wall, cpu)")
        for label, r in http.items():
            sw, sc, vw, vc = (r["spawned_wall_ms"], r["spawned_cpu_ms"], r["served_wall_ms"],
                              r["served_cpu_ms"])
            lines.append(f"  {label:28s} {sw:9.1f} / {sc:6.1f}    {vw:9.1f} / {vc:6.1f}"
                         f"     {vw / sw:.3f}x, {vc / sc if sc else 0:.3f}x")
    return "\n".join(lines)


def _bytecode_state() -> str:
    import gateway.validator.pipeline as probe

    cached = getattr(probe, "__cached__", None)
    has_pyc = bool(cached) and os.path.exists(cached)
    return ("installed .pyc present" if has_pyc else "no .pyc for the package (every import "
            "compiles from source)") + (", PYTHONDONTWRITEBYTECODE set"
                                        if os.environ.get("PYTHONDONTWRITEBYTECODE") else "")


@click.command("bench")
@click.option("--runs", type=click.IntRange(5, 1000), default=30, show_default=True,
              help="Alternating rounds of process runs (after a warm-up).")
@click.option("--batch-lines", type=click.IntRange(100, 200000), default=4000,
              show_default=True, help="Lines per batch measurement.")
@click.option("--serve-requests", type=click.IntRange(10, 100000), default=400,
              show_default=True, help="Requests sent to the resident server.")
@click.option("--only", type=click.Choice(["processes", "batch", "growth", "serve", "http"]),
              multiple=True, help="Run only these parts (repeatable).")
@click.option("--json", "as_json", is_flag=True, help="Print the raw results as JSON.")
def command(runs, batch_lines, serve_requests, only, as_json):
    """Measure the hook's cost against the bare interpreter, check --batch throughput, the
    growth with command size, `gateway serve`'s time per decision, and every event over http
    (`gateway install --http`) against the same event spawned; print the ratios.

    Timing varies with machine load: run it on a quiet machine and read the medians. With the
    defaults it takes about 20 s; progress goes to stderr, the report to stdout.

    \b
    Examples:
      gateway bench                          # everything (docs/performance.md has a run)
      gateway bench --only processes         # just the hook's process cost
      gateway bench --only http --runs 15    # every event: http to serve vs spawned
      gateway bench --runs 5 --batch-lines 500 --serve-requests 50   # a quick look
      gateway bench --json > bench.json
    """
    parts = set(only) or {"processes", "batch", "growth", "serve", "http"}
    def echo(message):
        click.echo(message, err=True)

    tmp = tempfile.mkdtemp(prefix="gateway-bench-")
    saved = dict(os.environ)
    try:
        project = make_project(os.path.join(tmp, "project"))
        env = bench_env(tmp, project)
        results = {"machine": _machine(), "bytecode": _bytecode_state()}
        if "processes" in parts:
            echo(f"hook processes: {runs} rounds ...")
            results["processes"] = measure_processes(project, env, runs=runs, echo=echo)
        if "http" in parts:
            echo(f"http hooks, every event against spawned: {runs} rounds ...")
            results["http"] = measure_http(project, env, runs=runs, echo=echo)
        os.environ.clear()
        os.environ.update(env)
        os.environ["GATEWAY_AUDIT_LOG"] = "off"  # the batch verb does not audit either
        if "batch" in parts:
            echo("check --batch ...")
            results["batch"] = {
                "session mix": measure_batch(project, command_mix(batch_lines)),
                "all-unique mix": measure_batch(project, command_mix(batch_lines, unique=True)),
            }
        if "growth" in parts:
            echo("growth with command size ...")
            results["growth"] = measure_growth(project)
        if "serve" in parts:
            echo("serve ...")
            results["serve"] = measure_serve(project, env, command_mix(serve_requests, seed=11),
                                             requests=serve_requests)
    finally:
        os.environ.clear()
        os.environ.update(saved)
        shutil.rmtree(tmp, ignore_errors=True)
    if as_json:
        click.echo(json.dumps(results, indent=2))
    else:
        click.echo(report(results))
