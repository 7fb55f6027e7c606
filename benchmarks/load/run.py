"""Hook processes at once on one project: how long each waits for the stores' locks, and
whether anything is refused, lost or answered "locked" (issue 29).

One burst per level: N real hook processes (the lean launch line `gateway install`
registers, one process per call, JSON on stdin, every process spawned as fast as the parent
can) against one project with a running breezing session and a spec in implementation. The
mix is what a large Agent Teams session sends at once; every kind writes one of the stores:

    register   PostToolUse of a role marker Write: a registration (breezing-session-roles.json)
    complete   TaskCompleted: a timeline line, and the progress signals that are due
    idle       TeammateIdle: a timeline line
    compact    PreCompact: a write of the SQLite workflow store
    read       PreToolUse of a registered teammate: reads the roles (no lock)

`--kind register` sends registrations only (the worst case for one lock). The baseline row
is N bare interpreters (`python -I -S -c 'read stdin'`) started the same way: what the
machine gives N concurrent processes at that moment. Latency is from spawn to exit.

    python benchmarks/load/run.py                         # levels 1 10 50 100 250, mixed
    python benchmarks/load/run.py --levels 250 --kind register
    python benchmarks/load/run.py --json

After each burst the stores are read back: a registration confirmed but not in the file is
lost, a refused one (the hook said the lock was not acquired) is refused; a timeline line
or a workflow write that a hook reported as not recorded is refused too. Exit status 1 when
anything was refused, lost, wrong or hung (the issue's goal: none at 250).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, ROOT)

from tests.reliability import harness  # noqa: E402  (the suite's spawner and reaper)

SPEC_ID = "ed37057f-b8e2-499d-b564-505254a0c509"
SPEC = os.path.join(ROOT, "tests", "orchestration", "data", "seed002-spec.md")
KINDS = ("register", "complete", "idle", "compact", "read")


def project(tmp: str) -> tuple:
    """A project with a breezing session, one registered teammate, a spec in
    implementation, and the policy compiled; (project, env)."""
    from gateway.state import fast

    proj = os.path.join(tmp, "proj")
    state = os.path.join(proj, ".claude", "state")
    os.makedirs(state)
    os.makedirs(os.path.join(proj, "src"))
    with open(os.path.join(proj, "a.txt"), "w") as fh:
        fh.write("a\n")
    with open(os.path.join(state, "breezing-active.json"), "w") as fh:
        json.dump({"session_id": "S1", "impl_mode": "standard",
                   "plans_md_mapping": {str(i): f"2.{i}" for i in range(1, 401)}}, fh)
    fast.update_session_roles(proj, lambda r: {"impl-0": fast.role_entry("implementer",
                                                                         ["src/**"])})
    specs = os.path.join(proj, ".cc-craft-kit", "specs")
    os.makedirs(specs)
    shutil.copy(SPEC, os.path.join(specs, SPEC_ID + ".md"))
    home = os.path.join(tmp, "home")
    os.makedirs(home)
    env = harness.hook_env(home, os.path.join(tmp, "cache"), proj)
    warm = harness.burst("pre-tool-use", [payload("read", proj, 0)], env)
    assert warm[0].returncode == 0, warm[0].err
    return proj, env


def payload(kind: str, proj: str, i: int) -> dict:
    base = {"session_id": "S1", "cwd": proj}
    if kind == "register":
        path = os.path.join(proj, ".claude", "state", f"breezing-role-load-{i}.json")
        body = json.dumps({"role": "implementer", "owns": [f"src/m{i}/**"]})
        return {**base, "agent_id": f"load-{i}", "hook_event_name": "PostToolUse",
                "tool_name": "Write", "tool_input": {"file_path": path, "content": body},
                "tool_response": {"type": "create", "filePath": path}}
    if kind == "complete":
        return {**base, "hook_event_name": "TaskCompleted", "task_id": str(i + 1),
                "task_subject": f"task {i + 1}", "teammate_name": f"impl-{i}"}
    if kind == "idle":
        return {**base, "hook_event_name": "TeammateIdle", "teammate_name": f"idle-{i}",
                "team_name": "load"}
    if kind == "compact":
        return {**base, "hook_event_name": "PreCompact", "trigger": "auto",
                "custom_instructions": None}
    return {**base, "agent_id": "impl-0", "hook_event_name": "PreToolUse", "tool_name": "Read",
            "tool_input": {"file_path": os.path.join(proj, "a.txt")}}


EVENTS = {"register": "post-tool-use", "complete": "task-completed", "idle": "teammate-idle",
          "compact": "pre-compact", "read": "pre-tool-use"}


def baseline(n: int) -> list:
    """N bare interpreters, spawned and watched like the hooks."""
    argv = [sys.executable, "-I", "-S", "-c", "import sys; sys.stdin.buffer.read()"]
    reaper = harness.Reaper()
    calls = []
    for i in range(n):
        t0 = time.monotonic()
        p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        c = harness.Call(p, t0, i)
        p.stdin.write(b"{}")
        p.stdin.close()
        reaper.add(c)
        calls.append(c)
    reaper.finish()
    return [c.latency for c in calls]


def pct(xs, q):
    if not xs:
        return None
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, int(round(q * len(xs) + 0.5)) - 1))]


def outcome(kind: str, call) -> str:
    """ok / refused / wrong / hung for one call, from what it printed."""
    if call.hung:
        return "hung"
    if call.returncode != 0:
        return "wrong"
    text = call.out.decode("utf-8", "replace").strip()
    if kind == "read":
        return "ok" if text == "" else "wrong"
    if text == "":
        return "ok"
    return "refused" if ("not acquired within" in text or "locked" in text
                         or "not recorded" in text or "not saved" in text) else "wrong"


def burst(n: int, kinds) -> dict:
    from gateway.orchestration import workflow
    from gateway.state import fast, files

    tmp = tempfile.mkdtemp(prefix="gw-load-")
    try:
        proj, env = project(tmp)
        load = os.getloadavg()[0]
        chosen = [kinds[i % len(kinds)] for i in range(n)]
        reaper = harness.Reaper()
        calls = []
        for i, kind in enumerate(chosen):
            c = harness.start(EVENTS[kind], payload(kind, proj, i), env, tag=(kind, i))
            reaper.add(c)
            calls.append(c)
        reaper.finish()
        res = {"n": n, "load_before": round(load, 1), "kinds": {}}
        roles = fast.load_session_roles(proj)
        timeline = files.read_timeline(proj)
        lines = {(r.event, (r.model_extra or {}).get("teammate") or r.teammate)
                 for r in timeline.records}
        for kind in sorted(set(chosen), key=KINDS.index):
            mine = [c for c in calls if c.tag[0] == kind]
            outs = [outcome(kind, c) for c in mine]
            lost = 0
            for c, o in zip(mine, outs, strict=True):
                i = c.tag[1]
                if o != "ok":
                    continue
                if kind == "register" and f"load-{i}" not in roles:
                    lost += 1
                elif kind == "complete" and ("task_completed", f"impl-{i}") not in lines:
                    lost += 1
                elif kind == "idle" and ("teammate_idle", f"idle-{i}") not in lines:
                    lost += 1
            lat = [c.latency for c in mine if c.latency is not None]
            res["kinds"][kind] = {
                "processes": len(mine), "ok": outs.count("ok"), "refused": outs.count("refused"),
                "wrong": outs.count("wrong"), "hung": outs.count("hung"), "lost": lost,
                "p50": pct(lat, 0.5), "p99": pct(lat, 0.99), "max": max(lat) if lat else None,
                "examples": [c.out.decode("utf-8", "replace")[:300] for c, o in
                             zip(mine, outs, strict=True) if o != "ok"][:2]}
        if "compact" in chosen:
            with workflow.open_store(proj) as st:
                res["workflow_rows"] = len(st.all())
        allat = [c.latency for c in calls if c.latency is not None]
        res["all"] = {"p50": pct(allat, 0.5), "p99": pct(allat, 0.99), "max": max(allat)}
        base = baseline(n)
        res["baseline"] = {"p50": pct(base, 0.5), "p99": pct(base, 0.99), "max": max(base)}
        res["temp_files_left"] = sorted(n for n in os.listdir(os.path.join(proj, ".claude",
                                                                           "state"))
                                        if ".tmp-" in n)
        return res
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def table(results) -> str:
    out = ["| processes | load before | kind | ok | refused | lost | wrong/hung | p50 | p99 | "
           "worst | bare interpreters p50 / p99 |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        b = r["baseline"]
        for kind, k in r["kinds"].items():
            out.append(f"| {r['n']} | {r['load_before']} | {kind} | {k['ok']}/{k['processes']} | "
                       f"{k['refused']} | {k['lost']} | {k['wrong'] + k['hung']} | "
                       f"{k['p50']:.2f} s | {k['p99']:.2f} s | {k['max']:.2f} s | "
                       f"{b['p50']:.2f} s / {b['p99']:.2f} s |")
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--levels", default="1,10,50,100,250",
                    help="comma-separated numbers of concurrent hook processes")
    ap.add_argument("--kind", choices=("mixed", "register"), default="mixed")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    kinds = KINDS if a.kind == "mixed" else ("register",)
    results = []
    for n in (int(x) for x in a.levels.split(",")):
        results.append(burst(n, kinds))
        if not a.json:
            print(table(results[-1:]).split("\n", 2)[-1] if len(results) > 1 else
                  table(results[-1:]), flush=True)
    bad = sum(k["refused"] + k["lost"] + k["wrong"] + k["hung"]
              for r in results for k in r["kinds"].values())
    if a.json:
        print(json.dumps({"cpus": os.cpu_count(), "results": results}, indent=1))
    else:
        print(f"\n{os.cpu_count()} CPUs; load average now "
              f"{' / '.join(f'{x:.1f}' for x in os.getloadavg())}; refused, lost, wrong or "
              f"hung: {bad}")
        for r in results:
            for kind, k in r["kinds"].items():
                for ex in k["examples"]:
                    print(f"  {r['n']} {kind}: {ex}")
            if r["temp_files_left"]:
                print(f"  {r['n']}: temp files left: {r['temp_files_left'][:5]}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
