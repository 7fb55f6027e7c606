"""The content scanner's cost per hook call (issue 24), cold and cached.

    python benchmarks/secret_scan.py [--runs N]

In a temporary project with its own cache, alternating rounds of `gateway hook pre-tool-use`
(the lean launch line, as `gateway install` registers it) with a Read payload:

* bare      `python -c pass` of the same interpreter (the baseline);
* cached    Read of src/app.py, whose verdict is in the cache (one stat, one small read);
* prefilter Read of a new file each round that the scanner's own patterns clear in the hook
            (plain code: no keyword, no token shape);
* scanner   Read of a new file each round that the patterns cannot clear (it says
            "password" in prose): the worker process runs detect-secrets on it;
* name      Read of `.env` (decided by the name grammar: no content scan), for comparison;
* worker    the scanner's worker alone on a new prose file, started as the hook starts it
            (gateway.secrets.content._run_worker's command line, its lean start:
            gateway.secrets.scan._lean_imports);
* worker-full the same with the library's full import (`requests` imported first, as
            before the lean start): the ratio worker/worker-full is the lean start's gain.

Prints the median wall time of each and its ratio to bare python in the same run.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _hook_cmd():
    from gateway.install.entries import lean_command

    return lean_command() + ["hook", "pre-tool-use"]


def _payload(proj, path):
    return json.dumps({"session_id": "bench", "cwd": proj, "permission_mode": "default",
                       "hook_event_name": "PreToolUse", "tool_name": "Read",
                       "tool_input": {"file_path": os.path.join(proj, path)}})


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args(argv)
    tmp = tempfile.mkdtemp(prefix="gw-scan-bench-")
    try:
        proj = os.path.join(tmp, "proj")
        os.makedirs(os.path.join(proj, "src"))
        with open(os.path.join(proj, "src", "app.py"), "w") as fh:
            fh.write("def main():\n    return 42\n" * 40)
        with open(os.path.join(proj, ".env"), "w") as fh:
            fh.write("A=1\n")
        env = dict(os.environ, CLAUDE_PROJECT_DIR=proj, GATEWAY_CACHE_DIR=os.path.join(tmp, "c"),
                   GATEWAY_AUDIT_LOG="off", HOME=os.path.join(tmp, "home"),
                   GATEWAY_USER_RULES=os.path.join(tmp, "none.yaml"))
        os.makedirs(env["HOME"])

        def hook(path):
            t = time.perf_counter()
            p = subprocess.run(_hook_cmd(), input=_payload(proj, path), env=env,
                               capture_output=True, text=True)
            d = time.perf_counter() - t
            if p.returncode != 0:
                raise SystemExit(p.stderr)
            return d, p.stdout

        def bare():
            t = time.perf_counter()
            subprocess.run([sys.executable, "-c", "pass"], env=env)
            return time.perf_counter() - t

        for _ in range(3):  # warm-up: compiled policy, code cache, the prefilter file
            hook("src/app.py")
            bare()
        times = {k: [] for k in ("bare", "cached", "prefilter", "scanner", "name", "worker",
                                 "worker-full")}
        from gateway.runtime import get_policy
        from gateway.secrets import content

        plugins = content.settings(get_policy(None, use_cache=False))[0]
        search = [p for p in sys.path if p and os.path.isabs(p)]
        wroot = os.path.join(tmp, "wcache")
        os.makedirs(wroot, mode=0o700)

        def worker(path, first=""):
            code = (f"import sys; sys.path[:] = {search!r}; {first}"
                    "from gateway.secrets.scan import main; sys.exit(main())")
            argv = [sys.executable, "-I", "-c", code, "--root", wroot, "--key",
                    "full" if first else "lean"]
            for p in plugins:
                argv += ["--plugin", p]
            t = time.perf_counter()
            subprocess.run(argv + ["--", path], check=True, cwd=wroot)
            return time.perf_counter() - t

        for i in range(args.runs):
            code = os.path.join("src", f"new_{i}.py")
            with open(os.path.join(proj, code), "w") as fh:
                fh.write(f"def f{i}(x):\n    return x + {i}\n" * 40)
            prose = f"doc_{i}.md"
            with open(os.path.join(proj, prose), "w") as fh:
                fh.write(f"# Notes {i}\n\nSet the password in the settings page.\n")
            times["bare"].append(bare())
            times["cached"].append(hook("src/app.py")[0])
            times["prefilter"].append(hook(code)[0])
            d, out = hook(prose)
            if out.strip():
                raise SystemExit(f"the prose file was not cleared: {out}")
            times["scanner"].append(d)
            times["name"].append(hook(".env")[0])
            for k, first in (("worker", ""), ("worker-full", "import requests; ")):
                doc = os.path.join(proj, f"w_{k}_{i}.md")
                with open(doc, "w") as fh:
                    fh.write(f"# Notes {i}\n\nSet the password in the settings page.\n")
                times[k].append(worker(doc, first))
        base = statistics.median(times["bare"])
        full = statistics.median(times["worker-full"])
        print(f"{'case':11} {'median ms':>10} {'x bare':>7}")
        for k, v in times.items():
            m = statistics.median(v)
            print(f"{k:11} {1000 * m:10.1f} {m / base:7.2f}")
        print(f"worker/worker-full {statistics.median(times['worker']) / full:.2f}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
