"""Waiting for a lock: bounded, asleep in the kernel, with the hook's timeout in mind (stdlib
only: the hooks wait here).

Why not polling. The stores' locks (``store.FileLock``) used to be taken with ``LOCK_NB`` in a
loop that slept 1, 2, 4 ... 50 ms between tries. With 250 hook processes on one project and
two cores, every waiter woke up to try again (up to 20 times a second each) and the lock
went to whoever happened to poll, not to who had waited longest; 41 to 88 of 250
registrations waited more than the 5 s bound and were refused. Here a waiter sleeps in
``flock`` itself: the kernel wakes it when the lock is released and queues blocked waiters
behind each other: no CPU is spent waiting, and the order is closer to the order of arrival.
(The time until everyone has had the lock is about the same: on overloaded cores a woken
waiter must first be scheduled. What shortened it is less work under the lock; what ended
the refusals is a bound that fits the hook's timeout: docs/performance.md.)

How the wait is bounded: ``flock`` has no timeout, so an interval timer (``SIGALRM``, as
util-linux's ``flock -w`` does it) interrupts it at the deadline. That needs the main thread
and a timer nobody else uses; otherwise (a worker thread, a caller with its own alarm) the
wait polls every 1 to 10 ms up to the same deadline.

How long: ``deadline(timeout)``. A command waits ``timeout`` seconds (the callers' default is
``store.DEFAULT_LOCK_TIMEOUT``; ``GATEWAY_LOCK_WAIT`` overrides it). A hook process
(``in_hook``) never waits past its own timeout less ``HOOK_MARGIN`` seconds, counted from the
start of the process: Claude Code stops a hook that has not answered after the ``timeout``
``gateway install`` registers (30 s), and a refusal that says why is worth more than a hook
killed mid-wait. A wait that runs out is a refusal (``StateLocked``), never an allow.
"""

import os
import time

#: The hook timeout ``gateway install`` registers (gateway.install.entries.DEFAULT_TIMEOUT;
#: a test holds the two equal).
HOOK_TIMEOUT = 30
#: What a hook keeps for itself after the wait: the change under the lock and its answer.
HOOK_MARGIN = 5.0
_POLL_MAX = 0.01

_hook_timeout = None
#: A monotonic time no wait may pass (gateway serve answering a hook process: it must
#: answer before the hook gives up on it and decides in-process). None: no such bound.
_until = None


def in_hook(timeout: float = HOOK_TIMEOUT) -> None:
    """This process is a hook that Claude Code stops after ``timeout`` seconds."""
    global _hook_timeout
    _hook_timeout = float(timeout)


def answer_by(until):
    """Bound every wait of this process by the monotonic time `until` (None: unbounded);
    returns the previous bound (gateway.server, one decision at a time)."""
    global _until
    previous, _until = _until, until
    return previous


def hook_timeout():
    """The hook timeout this process runs under, or None (not a hook)."""
    return _hook_timeout


def process_age() -> float:
    """Seconds since this process started (0.0 when /proc cannot tell)."""
    try:
        with open("/proc/self/stat", "rb") as fh:
            stat = fh.read()
        with open("/proc/uptime", "rb") as fh:
            uptime = float(fh.read().split()[0])
        ticks = int(stat.rsplit(b")", 1)[1].split()[19])
        return max(0.0, uptime - ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return 0.0


def configured(timeout: float) -> float:
    """``timeout``, or ``GATEWAY_LOCK_WAIT`` seconds when that is set to a number (a wait of
    0, "try once", stays 0)."""
    if timeout <= 0:
        return timeout
    raw = os.environ.get("GATEWAY_LOCK_WAIT")
    if raw:
        try:
            value = float(raw)
        except ValueError:
            return timeout
        if 0 <= value <= 3600:
            return value
    return timeout


def deadline(timeout: float) -> tuple:
    """``(monotonic deadline, capped)``: ``timeout`` from now, or the hook's own limit when
    that comes first (``capped`` True)."""
    now = time.monotonic()
    end = now + max(float(timeout), 0.0)
    if _until is not None and _until < end:
        return max(_until, now), True
    if _hook_timeout is not None:
        limit = now - process_age() + _hook_timeout - HOOK_MARGIN
        if limit < end:
            return max(limit, now), True
    return end, False


def acquire(fd: int, exclusive: bool, until: float) -> bool:
    """Take ``flock`` on ``fd`` before the monotonic time ``until``; True when taken."""
    import fcntl

    op = fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH
    try:
        fcntl.flock(fd, op | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        pass
    if time.monotonic() >= until:
        return False
    got = _blocking(fd, op, until)
    if got is None:
        got = _poll(fd, op, until)
    return got


class _Expired(Exception):
    pass


_armed = [False]


def _on_alarm(signum, frame):
    if _armed[0]:
        _armed[0] = False
        raise _Expired


def _blocking(fd: int, op: int, until: float):
    """A blocking ``flock`` interrupted at ``until``; None when no timer can be used here."""
    import _signal
    import fcntl

    try:
        if _signal.getitimer(_signal.ITIMER_REAL)[0] > 0:
            return None                  # someone else's alarm: do not disturb it
        previous = _signal.signal(_signal.SIGALRM, _on_alarm)
    except (ValueError, OSError):        # not the main thread
        return None
    got = False
    try:
        left = until - time.monotonic()
        if left <= 0:
            return False
        _armed[0] = True
        _signal.setitimer(_signal.ITIMER_REAL, left)
        try:
            try:
                fcntl.flock(fd, op)
                got = True
            finally:
                _armed[0] = False        # from here on the alarm only interrupts nothing
        except _Expired:
            got = False
    finally:
        _armed[0] = False
        _signal.setitimer(_signal.ITIMER_REAL, 0)
        _signal.signal(_signal.SIGALRM, previous if previous is not None else
                       _signal.SIG_DFL)
    return got


def _poll(fd: int, op: int, until: float) -> bool:
    import fcntl

    delay = 0.001
    while True:
        try:
            fcntl.flock(fd, op | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            pass
        now = time.monotonic()
        if now >= until:
            return False
        time.sleep(min(delay, until - now))
        delay = min(delay * 2, _POLL_MAX)


def refusal(lock_path: str, timeout: float, waited: float, capped: bool, pid, since) -> tuple:
    """``(problem, repair)`` of a wait that ran out: what was waited for, how long, who took
    the lock last (the pid its exclusive holder writes into it) and what to do."""
    from .store import _pid_alive

    if pid is not None:
        state = {True: "running", False: "no longer running", None: "state unknown"}[
            _pid_alive(pid)]
        held = f" (last exclusive holder: pid {pid}, {state}"
        if since is not None:
            held += f", took it {max(0.0, time.time() - since):.1f}s ago"
        held += ")"
    else:
        held = " (holder unknown: a reader, or a lock file without a pid)"
    if capped:
        bound = (f"within {waited:.1f}s, as long as a hook may wait (Claude Code stops it "
                 f"after {_hook_timeout:g}s)")
    else:
        bound = f"within {timeout:g}s"
    return (f"lock {lock_path} not acquired {bound}{held}",
            "wait and retry; if the holding process is hung, stop that process (the lock is "
            "released automatically when it exits)")
