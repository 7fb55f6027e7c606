"""Why the stores' lock waits sleep in the kernel: N processes take one lock at once and hold
it for a critical section like a registration's (a small write, fsync, rename), with
the old strategy -- ``LOCK_NB`` tried again after 1, 2, 4 ... 50 ms -- and the new one
(``gateway.state.lockwait``: a blocking ``flock`` with a deadline), in alternating rounds of
one run; the processes arrive spread over ``--spread`` seconds, as a burst of hooks does. Printed per strategy: the time until every process had its turn, the longest wait,
how far the order of service was from the order of arrival, and the CPU and the voluntary
context switches the waiting cost.

    python benchmarks/load/locks.py                 # 100 processes, 3 rounds
    python benchmarks/load/locks.py --n 250 --rounds 2
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

CHILD = r"""
import fcntl, os, resource, sys, time
sys.path.insert(0, sys.argv[4])
lock, strategy, start_at = sys.argv[1], sys.argv[2], float(sys.argv[3])
fd = os.open(lock, os.O_RDWR)
if strategy != "poll":
    from gateway.state import lockwait
while time.time() < start_at:
    time.sleep(0.001)
arrived = time.time()
r0 = resource.getrusage(resource.RUSAGE_SELF)
if strategy == "poll":                     # the store's loop before issue 29
    delay = 0.001
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            time.sleep(delay)
            delay = min(delay * 2, 0.05)
else:
    assert lockwait.acquire(fd, True, time.monotonic() + 600)
got = time.time()
r1 = resource.getrusage(resource.RUSAGE_SELF)
# the critical section: what a registration does under the lock, roughly
data = os.urandom(30_000)
tmp = lock + f".tmp-{os.getpid()}"
t = os.open(tmp, os.O_WRONLY | os.O_CREAT, 0o600)
os.write(t, data)
os.fsync(t)
os.close(t)
os.replace(tmp, lock + ".data")
fcntl.flock(fd, fcntl.LOCK_UN)
print(arrived, got, r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime,
      r1.ru_nvcsw - r0.ru_nvcsw, flush=True)
"""


def one(strategy: str, n: int, spread: float) -> dict:
    d = tempfile.mkdtemp(prefix="gw-locks-")
    lock = os.path.join(d, "lock")
    open(lock, "w").close()
    start_at = time.time() + 1.0 + n * 0.01        # every process is started and waiting
    procs = [subprocess.Popen([sys.executable, "-c", CHILD, lock, strategy,
                               str(start_at + spread * i / n), ROOT],
                              stdout=subprocess.PIPE, text=True) for i in range(n)]
    rows = []
    for p in procs:
        out, _ = p.communicate(timeout=900)
        a, g, cpu, sw = out.split()
        rows.append((float(a), float(g), float(cpu), int(sw)))
    t0 = min(r[0] for r in rows)
    waits = [r[1] - r[0] for r in rows]
    by_arrival = [i for i, _ in sorted(enumerate(rows), key=lambda x: x[1][0])]
    served = {i: k for k, (i, _) in enumerate(sorted(enumerate(rows), key=lambda x: x[1][1]))}
    displacement = [abs(served[i] - k) for k, i in enumerate(by_arrival)]
    return {"strategy": strategy, "n": n, "all_served_after": max(r[1] for r in rows) - t0,
            "wait_p50": statistics.median(waits), "wait_max": max(waits),
            "order_displacement_mean": statistics.mean(displacement),
            "waiting_cpu_total": sum(r[2] for r in rows),
            "switches_mean": statistics.mean(r[3] for r in rows)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--spread", type=float, default=2.0,
                    help="seconds over which the processes arrive (a burst is not an instant)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    results = []
    for _ in range(a.rounds):
        for strategy in ("poll", "block"):
            results.append(one(strategy, a.n, a.spread))
    if a.json:
        print(json.dumps(results, indent=1))
        return 0
    print(f"{a.n} processes arriving over {a.spread:g} s, {a.rounds} alternating rounds; load "
          f"average "
          f"{' / '.join(f'{x:.1f}' for x in os.getloadavg())}; {os.cpu_count()} CPUs")
    print("| strategy | every process served after | longest wait | median wait | mean "
          "distance from arrival order | CPU spent waiting (all) | context switches per "
          "waiter |")
    print("|---|---|---|---|---|---|---|")
    for s in ("poll", "block"):
        rs = [r for r in results if r["strategy"] == s]

        def med(k, rs=rs):
            return statistics.median(r[k] for r in rs)
        print(f"| {'LOCK_NB + sleep 1..50 ms (before)' if s == 'poll' else 'blocking flock (now)'}"
              f" | {med('all_served_after'):.2f} s | {med('wait_max'):.2f} s | "
              f"{med('wait_p50'):.2f} s | {med('order_displacement_mean'):.1f} | "
              f"{med('waiting_cpu_total'):.2f} s | {med('switches_mean'):.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
