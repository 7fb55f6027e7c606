"""The everyday corpus run FOR REAL through Claude Code, in its Bash sandbox, with the gateway
installed by `gateway install` (issue 23), and the sandbox's cost per Bash call.

    python benchmarks/sandbox/run.py --sample 80             # 80 rows, default + acceptEdits
    python benchmarks/sandbox/run.py --sample 0 --only git   # every git row
    python benchmarks/sandbox/run.py --cost                  # the cost per Bash call
    python benchmarks/sandbox/run.py --json out.json ...     # every row's outcome

Needs the real client (tests/realclient: npm, cached in ~/.cache/gateway-realclient), bubblewrap
and socat. Each row's command is the scripted model's one Bash call in a fresh copy of the
sample project (benchmarks/everyday/project.py), 8 rows per session; the outcome is read from
the tool_result the client sent back:

  no dialog       ran (its own exit status aside) with nobody asked
  asked           the PreToolUse hook asked (in -p a refusal whose text is the reason), or
                  the client asked (its "requires approval" texts)
  denied          the PreToolUse hook denied
  sandbox failed  ran, and the OS refused something: "Read-only file system", "Permission
                  denied", "Operation not permitted", the proxy's 403 (a domain not approved)

A row that ran but whose program is missing on this machine ("command not found") is counted
as "no dialog" and listed apart: the sandbox took no part.
"""

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests"))
sys.path.insert(0, REPO)

from benchmarks.everyday import project as sample  # noqa: E402
from benchmarks.everyday.run import load_corpus  # noqa: E402

GATEWAY = os.path.join(os.path.dirname(sys.executable), "gateway")
BATCH = 8
TOOLCHAIN_HOMES = (".rustup", ".cargo")
SANDBOX_SIGNS = ("Read-only file system", "Permission denied", "Operation not permitted",
                 "CONNECT tunnel failed", "sandbox_violations", "403 Forbidden")
CLIENT_ASKS = ("requires approval", "needs approval", "haven't granted", "was blocked",
               "sensitive file", "contains multiple operations", "Run outside of the sandbox")


def classify(text, is_error):
    t = text or ""
    if t.startswith("PreToolUse:Bash hook error:") or "hook error: gateway GW" in t:
        return "denied"
    if t.startswith("gateway GW"):
        return "asked"
    if any(s in t for s in CLIENT_ASKS) and is_error and len(t) < 600:
        return "asked"
    if is_error and any(s in t for s in SANDBOX_SIGNS):
        return "sandbox failed"
    return "no dialog"


class Env:
    def __init__(self, root, sandbox=True):
        self.root = root
        self.project = sample.build(root)
        self.home = os.path.join(root, "home")
        # the toolchains a developer's home holds (rustup's toolchains, cargo's registry):
        # linked from this machine's home, as a real home would have them
        real_home = os.path.expanduser("~")
        for name in TOOLCHAIN_HOMES:
            src = os.path.join(real_home, name)
            dst = os.path.join(self.home, name)
            if os.path.isdir(src) and not os.path.lexists(dst):
                os.symlink(src, dst)
        self.env = {"XDG_STATE_HOME": os.path.join(root, "state"),
                    "XDG_CACHE_HOME": os.path.join(root, "cache"),
                    "XDG_CONFIG_HOME": os.path.join(root, "config"),
                    "GATEWAY_USER_RULES": os.path.join(root, "no-user-rules.yaml")}
        args = [GATEWAY, "install", "--scope", "project", "--project", self.project,
                "--sandbox" if sandbox else "--no-sandbox"]
        env = dict(os.environ, HOME=self.home, **self.env)
        p = subprocess.run(args, cwd=self.project, env=env, capture_output=True, text=True)
        if p.returncode != 0:
            raise SystemExit(f"gateway install failed: {p.stdout}{p.stderr}")


def run_batch(claude, rows, mode):
    from realclient.client import run_session
    from realclient.mock_api import bash, text

    root = tempfile.mkdtemp(prefix="gateway-sandbox-bench-")
    try:
        box = Env(root)
        script = [[bash(r["command"])] for r in rows] + [[text("done")]]
        res = run_session(claude, box.project, script=script, home=box.home,
                          permission_mode=mode, env_extra=box.env, timeout=600)
        out = []
        results = {r.tool_use_id: r for r in res.tool_results}
        ordered = list(results.values())
        for i, row in enumerate(rows):
            r = ordered[i] if i < len(ordered) else None
            kind = classify(r.text, r.is_error) if r else "no result"
            out.append({"command": row["command"], "file": row["file"], "mode": mode,
                        "outcome": kind, "missing_program": bool(r and "command not found"
                                                                 in r.text),
                        "text": (r.text[:300] if r else res.describe()[:300])})
        return out
    finally:
        shutil.rmtree(root, ignore_errors=True)


def everyday(claude, sample_n, only, modes, seed=23):
    rows = []
    for r in load_corpus(only):
        rows.append({"command": r["command"], "file": r["file"]})
    if sample_n and sample_n < len(rows):
        rows = random.Random(seed).sample(rows, sample_n)
    results = []
    for mode in modes:
        for i in range(0, len(rows), BATCH):
            results += run_batch(claude, rows[i:i + BATCH], mode)
            done = sum(1 for x in results if x["mode"] == mode)
            print(f"  {mode}: {done}/{len(rows)}", file=sys.stderr)
    return results


def summary(results) -> str:
    lines = ["| mode | rows | no dialog | asked | denied | sandbox failed |",
             "|---|---|---|---|---|---|"]
    for mode in dict.fromkeys(r["mode"] for r in results):
        rs = [r for r in results if r["mode"] == mode]
        c = {k: sum(1 for r in rs if r["outcome"] == k)
             for k in ("no dialog", "asked", "denied", "sandbox failed")}
        lines.append(f"| {mode} | {len(rs)} | {c['no dialog']} | {c['asked']} | "
                     f"{c['denied']} | {c['sandbox failed']} |")
    fails = [r for r in results if r["outcome"] == "sandbox failed"]
    if fails:
        lines.append("\nFailed in the sandbox:\n")
        for r in fails:
            why = next((s for s in SANDBOX_SIGNS if s in r["text"]), "?")
            lines.append(f"- `{r['command']}` ({r['mode']}): {why}: "
                         f"{r['text'][:160]!r}")
    missing = sorted({r["command"] for r in results if r["missing_program"]})
    if missing:
        lines.append(f"\nProgram not installed on this machine ({len(missing)}): "
                     + ", ".join(f"`{m}`" for m in missing[:30]))
    return "\n".join(lines)


def cost(claude, n=10):
    """Median duration of a Bash call (the client's duration_ms, PostToolUse) and of the
    gateway's PreToolUse hook (its audit log), with the sandbox and without."""
    from realclient.client import run_session
    from realclient.mock_api import bash, text
    from realclient.standin import StandInHook, hooks_settings

    out = {}
    for label, sandbox in (("without the sandbox", False), ("with the sandbox", True)):
        root = tempfile.mkdtemp(prefix="gateway-sandbox-cost-")
        try:
            box = Env(root, sandbox=sandbox)
            post = StandInHook(os.path.join(root, "hooks"), "post")
            script = [[bash("git status --short")] for _ in range(n)] + [[text("done")]]
            t0 = time.monotonic()
            run_session(claude, box.project, script=script, home=box.home,
                        permission_mode="default", env_extra=box.env,
                        user_settings=hooks_settings(("PostToolUse", "Bash", post)))
            wall = time.monotonic() - t0
            bash_ms = [c.get("duration_ms") for c in post.calls()
                       if isinstance(c.get("duration_ms"), int)]
            audit = os.path.join(root, "state", "gateway", "audit.jsonl")
            hook_ms = []
            if os.path.exists(audit):
                for line in open(audit):
                    try:
                        e = json.loads(line)
                    except ValueError:
                        continue
                    if e.get("event") == "PreToolUse" and isinstance(e.get("latency_ms"),
                                                                     (int, float)):
                        hook_ms.append(e["latency_ms"])
            out[label] = {"bash_ms_median": statistics.median(bash_ms) if bash_ms else None,
                          "bash_ms": bash_ms,
                          "hook_ms_median": statistics.median(hook_ms) if hook_ms else None,
                          "session_s": round(wall, 1)}
        finally:
            shutil.rmtree(root, ignore_errors=True)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sample", type=int, default=80, help="rows (0: all)")
    ap.add_argument("--only", default=None, help="one corpus file (git, python, ...)")
    ap.add_argument("--modes", default="default,acceptEdits")
    ap.add_argument("--cost", action="store_true", help="measure the cost per Bash call")
    ap.add_argument("--json", default=None, help="write every row's outcome here")
    args = ap.parse_args(argv)
    from realclient.client import find_claude

    from gateway.sandbox import selftest

    claude = find_claude()
    if not claude:
        print("the real client is not installed (run pytest -m realclient once)",
              file=sys.stderr)
        return 2
    probe = selftest.os_probe()
    if not probe.ok:
        print("SANDBOX UNAVAILABLE: " + probe.summary(), file=sys.stderr)
        return 2
    if args.cost:
        print(json.dumps(cost(claude), indent=2))
        return 0
    results = everyday(claude, args.sample, args.only, args.modes.split(","))
    print(summary(results))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
