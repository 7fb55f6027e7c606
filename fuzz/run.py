"""Run the fuzz harnesses: the CI smoke run (about a minute in all) or a long run.

    python fuzz/run.py                  smoke: 60 s in all, fresh corpus, what .ci/run runs
    python fuzz/run.py --long           long: 10 min per harness, corpus kept in fuzz/corpus/
    python fuzz/run.py --seconds 600    total budget (split between the harnesses)
    python fuzz/run.py --only validator,rules

Environment: GATEWAY_FUZZ_MODE=long is --long; GATEWAY_FUZZ_SECONDS is --seconds;
GATEWAY_FUZZ_SLOW_SECONDS is the per-input time limit inside the harnesses (default 2).

Steps: the oracle's self-test (fuzz/selftest.py), the seed corpus from the regression tables
(fuzz/build_corpus.py), then each harness under libFuzzer (atheris) with its dictionary,
the seeds, the committed reproducers of fuzz/regressions/<harness>/ and a working corpus.
Prints executions, executions per second and the oracles' counters per harness; on a
failure prints the report and the saved input (fuzz/artifacts/<harness>/) and exits 1.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

FUZZ_DIR = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(FUZZ_DIR)

#: harness -> (share of the budget, dictionary)
HARNESSES = {
    "validator": (0.45, "bash.dict"),
    "hook": (0.30, "hook.dict"),
    "rules": (0.25, "rules.dict"),
}
SMOKE_SECONDS = 45  # + about 15 s of start-up, self-test and seeds: a minute
LONG_SECONDS_PER_HARNESS = 600
HANG_SECONDS = 10  # libFuzzer -timeout: one input running this long is a hang
MAX_LEN = 4096


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--long", action="store_true",
                    default=os.environ.get("GATEWAY_FUZZ_MODE", "smoke") == "long",
                    help="long run: more time, persistent corpus in fuzz/corpus/<harness>")
    ap.add_argument("--seconds", type=float,
                    default=float(os.environ["GATEWAY_FUZZ_SECONDS"])
                    if os.environ.get("GATEWAY_FUZZ_SECONDS") else None,
                    help="total time budget in seconds")
    ap.add_argument("--only", default="", help="comma-separated harness names")
    ap.add_argument("--jobs", type=int, default=1,
                    help="long mode: libFuzzer worker processes per harness")
    ap.add_argument("extra", nargs="*", help="more libFuzzer flags (e.g. -seed=1)")
    return ap.parse_args(argv)


def budgets(args, names):
    total = args.seconds
    if total is None:
        total = LONG_SECONDS_PER_HARNESS * len(names) if args.long else SMOKE_SECONDS
    share = sum(HARNESSES[n][0] for n in names)
    return {n: max(5, int(total * HARNESSES[n][0] / share)) for n in names}


def run_harness(name, seconds, corpus, seeds, artifacts, tmp, args):
    dictionary = os.path.join(FUZZ_DIR, "dicts", HARNESSES[name][1])
    regressions = os.path.join(FUZZ_DIR, "regressions", name)
    cmd = [sys.executable, os.path.join(FUZZ_DIR, f"fuzz_{name}.py"),
           f"-dict={dictionary}", f"-max_total_time={seconds}", f"-timeout={HANG_SECONDS}",
           f"-max_len={MAX_LEN}", "-rss_limit_mb=2048", "-print_final_stats=1",
           f"-artifact_prefix={artifacts}{os.sep}"]
    if args.long and args.jobs > 1:
        cmd += [f"-fork={args.jobs}", "-ignore_crashes=0"]
    cmd += list(args.extra) + [corpus, seeds]
    if os.path.isdir(regressions):
        cmd.append(regressions)
    log = os.path.join(tmp, f"{name}.log")
    env = dict(os.environ, GATEWAY_FUZZ_TMP=tmp, PYTHONHASHSEED="0")
    start = time.monotonic()
    with open(log, "wb") as fh:
        rc = subprocess.call(cmd, stdout=fh, stderr=subprocess.STDOUT, cwd=REPO, env=env,
                             timeout=seconds + 300)
    elapsed = time.monotonic() - start
    with open(log, encoding="utf-8", errors="replace") as fh:
        text = fh.read()
    return rc, elapsed, text, log


def summarise(name, rc, elapsed, text):
    runs = _last(r"stat::number_of_executed_units:\s*(\d+)", text)
    rate = _last(r"stat::average_exec_per_sec:\s*(\d+)", text)
    cov = _last(r"#\d+\s+(?:DONE|pulse|NEW|REDUCE|INITED)\s+cov: (\d+)", text)
    if runs is None:  # -fork mode: "#N: cov: C ft: ... exec/s R ..."
        runs = _last(r"^#(\d+): cov:", text)
        rate = rate or _last(r"^#\d+: cov: .* exec/s (\d+)", text)
        cov = cov or _last(r"^#\d+: cov: (\d+)", text)
    stats = {}
    for line in text.splitlines():
        if line.startswith(f"fuzz-stats {name} "):
            try:
                stats = json.loads(line.split(" ", 2)[2])
            except ValueError:
                pass
    if runs is None:  # the fallback (no atheris) prints its own count; else count inputs
        runs = stats.get("inputs")
    if rate is None and runs:
        rate = int(int(runs) / max(elapsed, 1e-9))
    seed = _last(r"INFO: Seed: (\d+)", text)
    return {"harness": name, "ok": rc == 0, "rc": rc, "seconds": round(elapsed, 1),
            "seed": seed,
            "executions": int(runs or 0), "exec_per_sec": int(rate or 0),
            "coverage": int(cov or 0), "oracle": stats}


def _last(pattern, text):
    found = re.findall(pattern, text, re.MULTILINE)
    return found[-1] if found else None


def failure_report(text):
    """The part of a libFuzzer log that says what failed and where the input is."""
    lines = text.splitlines()
    keep = []
    grab = False
    for line in lines:
        if ("Uncaught Python exception" in line or "ERROR: libFuzzer" in line
                or "==FAILURE==" in line or "ALARM:" in line):
            grab = True
        if grab and not line.startswith(("fuzz-stats", "#")):
            keep.append(line)
    return "\n".join(keep[-60:]) if keep else "\n".join(lines[-40:])


def main(argv=None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    names = [n for n in (args.only.split(",") if args.only else HARNESSES) if n]
    unknown = [n for n in names if n not in HARNESSES]
    if unknown:
        print(f"unknown harness(es): {', '.join(unknown)}; known: {', '.join(HARNESSES)}")
        return 2
    mode = "long" if args.long else "smoke"
    try:
        import atheris  # noqa: F401
        engine = "atheris (libFuzzer)"
    except ImportError:
        engine = "fallback random mutation (atheris is not installed)"
    print(f"== fuzz {mode} run: {', '.join(names)}; engine: {engine}")
    sys.stdout.flush()
    if subprocess.call([sys.executable, os.path.join(FUZZ_DIR, "selftest.py")], cwd=REPO):
        print("fuzz: the oracle's self-test failed; not fuzzing with a broken oracle")
        return 1
    tmp = tempfile.mkdtemp(prefix="gateway-fuzz-run-")
    results = []
    try:
        seeds_root = os.path.join(FUZZ_DIR, "corpus", "seeds") if args.long else \
            os.path.join(tmp, "seeds")
        subprocess.check_call([sys.executable, os.path.join(FUZZ_DIR, "build_corpus.py"),
                               "--out", seeds_root], cwd=REPO)
        for name, seconds in budgets(args, names).items():
            corpus = os.path.join(FUZZ_DIR, "corpus", name) if args.long else \
                os.path.join(tmp, "work", name)
            artifacts = os.path.join(FUZZ_DIR, "artifacts", name)
            os.makedirs(corpus, exist_ok=True)
            os.makedirs(artifacts, exist_ok=True)
            print(f"-- {name}: {seconds}s", flush=True)
            rc, elapsed, text, log = run_harness(name, seconds, corpus,
                                                 os.path.join(seeds_root, name), artifacts,
                                                 tmp, args)
            res = summarise(name, rc, elapsed, text)
            results.append(res)
            oracle = ", ".join(f"{k} {v}" for k, v in sorted(res["oracle"].items()))
            print(f"   {res['executions']} executions in {res['seconds']}s "
                  f"({res['exec_per_sec']}/s), coverage {res['coverage']}; {oracle}")
            if not res["ok"]:
                print(f"   FAILED (exit status {rc}):")
                print("   " + failure_report(text).replace("\n", "\n   "))
                print(f"   full log: {log} (kept); inputs: {artifacts}")
                print(f"   reproduce: python fuzz/fuzz_{name}.py <the crash-... file>; "
                      f"rerun the same search: python fuzz/run.py --only {name} "
                      f"-- -seed={res['seed']}")
    finally:
        if all(r["ok"] for r in results):
            shutil.rmtree(tmp, True)
    total = sum(r["executions"] for r in results)
    print(f"== fuzz {mode}: " + "; ".join(
        f"{r['harness']} {r['executions']} executions ({r['exec_per_sec']}/s)"
        for r in results) + f"; {total} in all: "
        + ("OK" if all(r["ok"] for r in results) else "FAILED"))
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
