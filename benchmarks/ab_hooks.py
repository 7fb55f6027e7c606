"""A/B of hook processes: the CPU (user + system, the hook and its children) of
`gateway hook EVENT` started through the lean launch line from two source trees, against
`python -I -S -c pass`, in alternating rounds of one run (ratios, not milliseconds).

    python benchmarks/ab_hooks.py PAYLOAD.json TREE_A TREE_B [--event pre-tool-use] [--rounds 25]

Each TREE is a checkout (its `gateway` package is imported); the dependencies come from the
running interpreter's site-packages. The payload's cwd is where the hooks run.
"""

import argparse
import json
import resource
import site
import statistics
import subprocess
import sys


def _cpu(cmd, payload, cwd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(cmd, input=payload, capture_output=True, cwd=cwd)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    ms = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return ms, out.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("payload")
    ap.add_argument("trees", nargs="+")
    ap.add_argument("--event", default="permission-request")
    ap.add_argument("--rounds", type=int, default=25)
    a = ap.parse_args()
    payload = open(a.payload, "rb").read()
    cwd = json.loads(payload)["cwd"]
    deps = site.getsitepackages()
    bare, res = [], {t: [] for t in a.trees}
    answers = {}
    for _ in range(a.rounds):
        bare.append(_cpu([sys.executable, "-I", "-S", "-c", "pass"], b"", cwd)[0])
        for t in a.trees:
            code = (f"import sys; sys.path.extend({[t] + deps!r}); "
                    "from gateway._entry import main; sys.exit(main())")
            ms, out = _cpu([sys.executable, "-I", "-S", "-c", code, "hook", a.event],
                           payload, cwd)
            res[t].append(ms)
            answers[t] = out.decode(errors="replace").strip()[:100]
    b = statistics.median(bare)
    print(f"bare python: {b:.1f} ms CPU (median of {a.rounds})")
    for t in a.trees:
        m = statistics.median(res[t])
        print(f"{t}: {m:.1f} ms CPU, {m / b:.2f}x bare   {answers[t]}")


if __name__ == "__main__":
    main()
