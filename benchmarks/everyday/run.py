"""The everyday benchmark: how much of a developer's routine work the gateway lets run.

Each corpus row (corpus/*.tsv) is a command of everyday Python, JS/TS, Go, Rust, git or
shell work, with the decision expected in each permission mode and why. Every row is judged
as the client's hooks would judge it, in the sample project (project.py): the PreToolUse
hook (guards, reads of secrets, early allow) and the PermissionRequest validator, per mode.

    python benchmarks/everyday/run.py            # the figures and every miss
    python benchmarks/everyday/run.py --check    # exit 1 when a goal is not met
    python benchmarks/everyday/run.py --json     # one JSON object

Goals (issue 25): of the commands the corpus expects to run with no dialog, >= 95 % run in
default and acceptEdits and >= 90 % in plan mode (issue 13's older figures, the share of all
commands, are reported beside them); no routine command is denied; the two hooks never contradict
each other (a PreToolUse deny or ask of what PermissionRequest allows, a PreToolUse allow of
what it does not); and nothing is allowed that the corpus says must ask (an over-allow is a
safety regression, whatever the shares).

Corpus format (tab-separated, `#` comments; ⏎ in a command is a newline): command, kind (read | run | edit | build |
net | install | vcs: changes the repository, not the files named), expected decision in
default, acceptEdits and plan (allow | ask | deny), why. The expectation is the right
decision, not today's: a row the gateway gets wrong is a miss until the model is fixed. "allowed" means the gateway lets it run without a human (a PreToolUse or a
PermissionRequest allow).
"""

import argparse
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))
MODES = ("default", "acceptEdits", "plan")
#: Issue 25's goals: of the commands the corpus expects to run with no dialog in a mode,
#: the share the gateway lets run (95 % in default and acceptEdits, 90 % in plan).
GOALS = {"default": 0.95, "acceptEdits": 0.95, "plan": 0.90}


def load_corpus(only=None):
    rows = []
    cdir = os.path.join(HERE, "corpus")
    for name in sorted(os.listdir(cdir)):
        if not name.endswith(".tsv") or (only and name[:-4] not in only):
            continue
        with open(os.path.join(cdir, name), encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                if not line.strip() or line.startswith("#"):
                    continue
                cols = line.rstrip("\n").split("\t")
                if len(cols) != 6:
                    raise SystemExit(f"{name}:{n}: want 6 tab-separated columns, got "
                                     f"{len(cols)}: {line!r}")
                command, kind, d, a, p, why = cols
                command = command.replace("\u23ce", "\n")  # ⏎ stands for a newline
                for v in (d, a, p):
                    if v not in ("allow", "ask", "deny"):
                        raise SystemExit(f"{name}:{n}: {v!r} is not allow, ask or deny")
                rows.append({"file": name[:-4], "line": n, "command": command, "kind": kind,
                             "expected": dict(zip(MODES, (d, a, p), strict=True)),
                             "why": why})
    return rows


class Judge:
    """Both hooks' decisions for a command in the sample project."""

    def __init__(self, root, project=None, home=None):
        from benchmarks.everyday.project import build

        # `project`: judge in an existing project instead (tests/agreement: the test cases'
        # sample project; the independent lists' projects, with their own `home`)
        self.project = project or build(root)
        home = home or os.path.join(os.path.realpath(root), "home")
        self.env = dict(os.environ, HOME=home, GATEWAY_AUDIT_LOG="off",
                        GATEWAY_USER_RULES=os.path.join(home, "no-rules.yaml"),
                        GATEWAY_CACHE_DIR=os.path.join(root, "cache"),
                        GATEWAY_EARLY_ALLOW="1", CLAUDE_CONFIG_DIR=os.path.join(home, ".claude"),
                        SHELL="/bin/bash")
        for k in ("CLAUDE_PROJECT_DIR", "CDPATH"):
            self.env.pop(k, None)

    def __call__(self, command, mode):
        # a hook process's environment is the one it is given: the parts of the gateway that
        # read the process's own ($HOME for `~/` patterns, git's environment) see it too
        saved = dict(os.environ)
        os.environ.clear()
        os.environ.update(self.env)
        try:
            return self._judge(command, mode)
        finally:
            os.environ.clear()
            os.environ.update(saved)

    def _judge(self, command, mode):
        from gateway import runtime
        from gateway.runtime import evaluate_guards as evaluate
        from gateway.hooks import permission_request

        payload = {"session_id": "bench", "cwd": self.project, "permission_mode": mode,
                   "hook_event_name": "PermissionRequest", "tool_name": "Bash",
                   "tool_input": {"command": command}}
        # the PermissionRequest hook's judgement (gateway.hooks.permission_request.decide):
        # the validator, and no allow where the PreToolUse guards object
        core = runtime.judge_bash(command, self.project, self.project, env=self.env, mode=mode)
        pr = permission_request.agree(core, payload, self.env) if core.allowed else core
        pre = evaluate(dict(payload, hook_event_name="PreToolUse"), self.env)
        pre_d = {"allow": "allow", "deny": "deny"}.get(str(pre.decision),
                                                       "none" if pre.code == "GW800" else "ask")
        if pre_d == "deny":
            final = "deny"
        elif pre_d == "allow" or str(pr.decision) == "allow":
            final = "allow" if pre_d != "ask" else "ask"
        else:
            final = "ask" if pre_d == "ask" or str(pr.decision) == "ask" else str(pr.decision)
        if pre_d == "none" and final != "allow" and mode != "plan":
            # no hook decides: the client runs it by the user's own permissions.allow rule
            from gateway import client
            from gateway import settings as settings_mod

            if client.allow_rule(settings_mod.load(self.project, self.env), command):
                final = "allow"
        return {"final": final, "pretooluse": pre_d, "pre_code": pre.code,
                "permission_request": str(pr.decision), "pr_code": pr.code,
                "validator": str(core.decision), "validator_code": core.code,
                "message": (pre.message if pre_d in ("ask", "deny") else pr.message)}


def contradiction(r) -> str:
    pre, pr = r["pretooluse"], r["permission_request"]
    if pre in ("deny", "ask") and pr == "allow":
        return f"PreToolUse {pre}s ({r['pre_code']}) what PermissionRequest allows"
    if pre == "allow" and pr != "allow":
        return f"PreToolUse allows what PermissionRequest does not ({r['pr_code']})"
    if pre != "deny" and pr == "deny":
        return f"PermissionRequest denies ({r['pr_code']}) what PreToolUse does not"
    if pre in ("deny", "ask") and r.get("validator") == "allow":
        # one model: the validator alone (gateway check, the early allow) agrees too, not
        # only the PermissionRequest hook that consults the guards
        return f"PreToolUse {pre}s ({r['pre_code']}) what the validator alone allows"
    return ""


def run(rows, judge):
    results = []
    for row in rows:
        out = dict(row, actual={})
        for mode in MODES:
            out["actual"][mode] = judge(row["command"], mode)
        results.append(out)
    return results


def figures(results):
    fig = {"commands": len(results), "files": {}}
    for r in results:
        fig["files"][r["file"]] = fig["files"].get(r["file"], 0) + 1
    for mode in MODES:
        # what the corpus expects to run in this mode, and how much of it runs
        pool = [r for r in results if r["expected"][mode] == "allow"]
        allowed = sum(r["actual"][mode]["final"] == "allow" for r in pool)
        # issue 13's older measure: of all commands (in default, all but the edits)
        every = [r for r in results if mode != "default" or r["kind"] != "edit"]
        fig[mode] = {"eligible": len(pool), "allowed": allowed,
                     "share": allowed / len(pool) if pool else 1.0,
                     "all": len(every),
                     "all_allowed": sum(r["actual"][mode]["final"] == "allow" for r in every)}
    fig["denied"] = [(r["command"], m) for r in results for m in MODES
                     if r["actual"][m]["final"] == "deny" and r["expected"][m] != "deny"]
    fig["contradictions"] = [(r["command"], m, contradiction(r["actual"][m]))
                             for r in results for m in MODES if contradiction(r["actual"][m])]
    fig["over_allowed"] = [(r["command"], m) for r in results for m in MODES
                           if r["actual"][m]["final"] == "allow" and r["expected"][m] != "allow"]
    fig["misses"] = [(r, m) for r in results for m in MODES
                     if r["actual"][m]["final"] != r["expected"][m]]
    return fig


def report(fig) -> str:
    lines = [f"everyday corpus: {fig['commands']} commands ("
             + ", ".join(f"{k} {v}" for k, v in sorted(fig["files"].items())) + ")"]
    for mode in MODES:
        f = fig[mode]
        goal = GOALS.get(mode)
        mark = "" if goal is None else ("  ok" if f["share"] >= goal else "  BELOW GOAL")
        what = "non-edit commands" if mode == "default" else "all commands"
        lines.append(f"{mode:12} expected to run, runs {f['allowed']}/{f['eligible']} "
                     f"({100 * f['share']:.1f} %)"
                     + (f"  goal >= {100 * goal:.0f} %{mark}" if goal else "")
                     + f"   ({what} allowed: {f['all_allowed']}/{f['all']})")
    lines.append(f"routine commands denied: {len(fig['denied'])} (goal 0)")
    lines.append(f"hooks contradicting each other: {len(fig['contradictions'])} (goal 0)")
    for cmd, mode, why in fig["contradictions"]:
        lines.append(f"  {mode:12} {cmd}: {why}")
    lines.append(f"allowed where the corpus says ask: {len(fig['over_allowed'])} (goal 0)")
    for cmd, mode in fig["over_allowed"]:
        lines.append(f"  {mode:12} {cmd}")
    lines.append(f"misses (the decision differs from the corpus): {len(fig['misses'])}")
    for r, mode in fig["misses"]:
        a = r["actual"][mode]
        code = a["pre_code"] if a["pretooluse"] in ("ask", "deny", "allow") else a["pr_code"]
        lines.append(f"  {r['file']}:{r['line']} {mode:12} {a['final']:5} {code} "
                     f"`{r['command']}` (expected {r['expected'][mode]}: {r['why']}) "
                     f"- {a['message'][:100]}")
    return "\n".join(lines)


def goals_met(fig) -> bool:
    return (all(fig[m]["share"] >= g for m, g in GOALS.items()) and not fig["denied"]
            and not fig["contradictions"] and not fig["over_allowed"])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when a goal is not met")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--only", nargs="*", help="corpus files (without .tsv) to run")
    args = ap.parse_args(argv)
    rows = load_corpus(args.only)
    with tempfile.TemporaryDirectory(prefix="gateway-everyday-") as tmp:
        fig = figures(run(rows, Judge(tmp)))
    if args.json:
        out = {k: v for k, v in fig.items() if k != "misses"}
        out["misses"] = [{"file": r["file"], "line": r["line"], "command": r["command"],
                          "mode": m, "expected": r["expected"][m], "actual": r["actual"][m]}
                         for r, m in fig["misses"]]
        print(json.dumps(out, indent=2))
    else:
        print(report(fig))
    return 0 if goals_met(fig) or not args.check else 1


if __name__ == "__main__":
    sys.exit(main())
