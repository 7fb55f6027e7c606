"""Drive many real hook processes at once, kill some of them, and keep the figures.

The hook runs as Claude Code runs it: the lean launch line `gateway install` registers
(`gateway.launch.hook_argv`), one process per call, JSON on stdin. Nothing here is timed
against a limit: latencies are measured and printed, the tests assert outcomes only.

Scale: the suite runs a bounded budget by default (CI); set ``GATEWAY_RELIABILITY=long`` for
the full run (200 concurrent first calls, 100 kill trials...):

    GATEWAY_RELIABILITY=long .venv/bin/python -m pytest -q -p no:cacheprovider tests/reliability
"""

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time

from gateway import launch

LONG = os.environ.get("GATEWAY_RELIABILITY", "").lower() == "long"

#: A call that has not answered after this long is a hang (it is reported, never waited for).
HANG_SECONDS = 120.0


def scale(ci: int, long: int) -> int:
    return long if LONG else ci


class Figures:
    """What a scenario did: processes, kills, registrations confirmed / lost, wrong decisions,
    latencies. One instance per scenario; the suite prints them all at the end."""

    ALL: list = []

    def __init__(self, name: str):
        self.name = name
        self.processes = 0
        self.kills = 0
        self.confirmed = 0
        self.lost = 0
        self.wrong = 0
        self.hung = 0
        self.busy = 0   # refused because a lock wait ran out (GW890): must stay 0
        self.latencies: list = []
        self.notes: list = []
        Figures.ALL.append(self)

    def percentile(self, q: float):
        if not self.latencies:
            return None
        xs = sorted(self.latencies)
        return xs[min(len(xs) - 1, max(0, int(round(q * len(xs) + 0.5)) - 1))]

    def line(self) -> str:
        parts = [f"processes {self.processes}", f"kills {self.kills}"]
        if self.confirmed or self.lost:
            parts.append(f"registrations confirmed {self.confirmed}, lost {self.lost}")
        if self.busy:
            parts.append(f"REFUSED because a lock wait ran out (GW890) {self.busy}")
        parts.append(f"wrong decisions {self.wrong}")
        if self.hung:
            parts.append(f"HUNG {self.hung}")
        if self.latencies:
            p50, p99 = self.percentile(0.5), self.percentile(0.99)
            parts.append(f"latency p50 {p50:.2f}s p99 {p99:.2f}s worst "
                         f"{max(self.latencies):.2f}s")
        text = f"{self.name}: " + ", ".join(parts)
        for n in self.notes:
            text += f"\n    {n}"
        return text


def hook_env(home: str, cache: str, project: str, **extra) -> dict:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home,
           "GATEWAY_USER_RULES": os.path.join(home, "no-user-rules.yaml"),
           "GATEWAY_CACHE_DIR": cache, "GATEWAY_AUDIT_LOG": "off",
           "GATEWAY_RESIDENT": "off", "XDG_STATE_HOME": os.path.join(home, ".state"),
           "CLAUDE_CONFIG_DIR": os.path.join(home, ".claude"), "CLAUDE_PROJECT_DIR": project,
           "LANG": "C.UTF-8"}
    env.update(extra)
    return env


def hook_argv(event: str) -> list:
    return launch.hook_argv(event, python=sys.executable)


class Call:
    """One hook process: its answer, exit status and latency (spawn to exit)."""

    __slots__ = ("proc", "start", "end", "out", "err", "killed", "hung", "tag", "_bufs")

    def __init__(self, proc, start, tag):
        self.proc, self.start, self.tag = proc, start, tag
        self.end = None
        self.out = self.err = b""
        self.killed = False
        self.hung = False       # killed by the harness after HANG_SECONDS: a hang
        self._bufs = {}

    @property
    def latency(self):
        return None if self.end is None else self.end - self.start

    @property
    def returncode(self):
        return self.proc.returncode

    def decision(self):
        """'deny' / 'allow' / None (no decision) from the hook's stdout; 'error' if the
        process did not end normally or printed something that is not a hook answer. For
        PostToolUse (role registration) None is "registered", 'deny' "not registered"."""
        if self.proc.returncode != 0:
            return "error"
        text = self.out.decode("utf-8", "replace").strip()
        if not text:
            return None
        try:
            obj = json.loads(text)["hookSpecificOutput"]
        except (ValueError, KeyError, TypeError):
            return "error"
        if "permissionDecision" in obj:
            return obj["permissionDecision"]
        if obj.get("hookEventName") == "PostToolUse" and "additionalContext" in obj:
            return "deny"  # PostToolUse: the role was not registered (the reason follows)
        return obj.get("decision", {}).get("behavior", "error")

    def reason(self) -> str:
        return self.out.decode("utf-8", "replace")


def start(event: str, payload, env, tag=None) -> Call:
    """Spawn one hook process and hand it its payload at once (as Claude Code does). The
    payload fits the pipe buffer, so the write never waits for the process."""
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    t0 = time.monotonic()
    p = subprocess.Popen(hook_argv(event), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=env, cwd="/")
    call = Call(p, t0, tag)
    try:
        p.stdin.write(data)
        p.stdin.close()
    except (BrokenPipeError, OSError):
        pass
    return call


def kill(call: Call) -> None:
    try:
        call.proc.send_signal(signal.SIGKILL)
        call.killed = True
    except ProcessLookupError:
        pass


class Reaper:
    """Reads the output of calls and notes the moment each one ends, in a thread of its own
    that runs from before the first spawn: a call that ends while the others are still being
    started gets its true latency. Kills calls at scheduled moments, and any call still
    running HANG_SECONDS after its start (counted as hung)."""

    def __init__(self):
        import selectors

        self._sel = selectors.DefaultSelector()
        self._lock = threading.Lock()
        self._done = threading.Condition(self._lock)
        self._rfd, self._wfd = os.pipe()
        os.set_blocking(self._rfd, False)
        self._sel.register(self._rfd, selectors.EVENT_READ, None)
        self._incoming, self._kills, self._calls = [], [], []
        self._live = 0
        self._closing = False
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def _wake(self):
        try:
            os.write(self._wfd, b"x")
        except OSError:
            pass

    def add(self, call) -> None:
        with self._lock:
            self._incoming.append(call)
            self._live += 1
        self._wake()

    def kill_at(self, when: float, call) -> None:
        with self._lock:
            self._kills.append((when, id(call), call))
            self._kills.sort(key=lambda k: k[0])
        self._wake()

    def finish(self) -> None:
        with self._lock:
            while self._live:
                self._done.wait()
            self._closing = True
        self._wake()
        self._thread.join()
        self._sel.close()
        os.close(self._rfd)
        os.close(self._wfd)

    def _loop(self):
        import selectors

        open_fds = {}
        while True:
            with self._lock:
                new, self._incoming = self._incoming, []
                if self._closing:
                    return
            for c in new:
                self._calls.append(c)
                for name, f in (("out", c.proc.stdout), ("err", c.proc.stderr)):
                    os.set_blocking(f.fileno(), False)
                    self._sel.register(f, selectors.EVENT_READ, (c, name))
                    open_fds.setdefault(id(c), set()).add(name)
                    c._bufs[name] = []
            now = time.monotonic()
            with self._lock:
                due = [k for k in self._kills if k[0] <= now]
                self._kills = [k for k in self._kills if k[0] > now]
                next_kill = self._kills[0][0] if self._kills else None
            for _, _, c in due:
                if c.end is None and c.proc.poll() is None:
                    kill(c)
            for c in self._calls:
                if c.end is None and now - c.start > HANG_SECONDS and not c.hung:
                    c.hung = True
                    kill(c)
            timeout = 0.5 if next_kill is None else max(0.0, min(0.5, next_kill - now))
            for key, _ in self._sel.select(timeout=timeout):
                if key.data is None:
                    try:
                        os.read(self._rfd, 4096)
                    except BlockingIOError:
                        pass
                    continue
                c, name = key.data
                try:
                    chunk = os.read(key.fd, 65536)
                except BlockingIOError:
                    continue
                if chunk:
                    c._bufs[name].append(chunk)
                    continue
                self._sel.unregister(key.fileobj)
                key.fileobj.close()
                open_fds[id(c)].discard(name)
                if not open_fds[id(c)]:
                    c.proc.wait()
                    c.end = time.monotonic()
                    c.out = b"".join(c._bufs["out"])
                    c.err = b"".join(c._bufs["err"])
                    with self._lock:
                        self._live -= 1
                        self._done.notify_all()


def wait(calls, kills=()) -> None:
    """Wait for calls started with ``start`` (``kills``: [(monotonic time, call)])."""
    reaper = Reaper()
    for c in calls:
        reaper.add(c)
    for when, c in kills:
        reaper.kill_at(when, c)
    reaper.finish()


def burst(event: str, payloads, env, *, kill_rate: float = 0.0, rng=None,
          kill_window: float = 0.5) -> list:
    """Start one process per payload, as fast as they can be spawned, each watched from its
    start; kill a fraction at random moments within ``kill_window`` seconds of the first
    start. Returns the Calls once every process has ended."""
    rng = rng or random.Random(0)
    reaper = Reaper()
    calls = []
    for i, p in enumerate(payloads):
        c = start(event, p, env, tag=i)
        reaper.add(c)
        calls.append(c)
    t0 = calls[0].start if calls else time.monotonic()
    for c in calls:
        if rng.random() < kill_rate:
            reaper.kill_at(t0 + rng.uniform(0, kill_window), c)
    reaper.finish()
    return calls


def busy(call) -> bool:
    """A registration refused because the roles file's lock stayed taken past the wait's
    bound: fail-closed (the message says to retry), never a lost or wrong decision, but
    since issue 29 hooks wait in turn and it must not happen at the suite's scale."""
    return (call.decision() == "deny" and "cannot record the role registration" in call.reason()
            and "not acquired within" in call.reason())


def record(fig: Figures, calls, expected, registrations=()) -> list:
    """Count processes, kills and wrong decisions; ``expected(call)`` gives the decision a
    survivor must print. A call in ``registrations`` refused as busy is counted apart.
    Returns the wrong calls (for the assertion message)."""
    wrong = []
    for c in calls:
        if c in registrations and not c.killed and busy(c):
            fig.processes += 1
            fig.busy += 1
            if c.latency is not None:
                fig.latencies.append(c.latency)
            continue
        fig.processes += 1
        if c.hung:
            fig.hung += 1
            continue
        if c.killed and c.proc.returncode == -signal.SIGKILL:
            fig.kills += 1
            continue
        if c.latency is not None:
            fig.latencies.append(c.latency)
        if c.decision() != expected(c):
            fig.wrong += 1
            wrong.append((c.tag, c.decision(), expected(c), c.reason()[:400],
                          c.err.decode("utf-8", "replace")[-300:]))
    for w in wrong[:3]:
        fig.notes.append(f"WRONG: {w}")
    return wrong
