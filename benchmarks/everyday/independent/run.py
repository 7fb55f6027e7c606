"""The everyday benchmark on lists the project did not write (issue 25).

python.txt, node.txt, go.txt, rust.txt and java.txt were written by someone who had not seen
the gateway (README.md in this folder says how and why; they are kept as they were written).
Each row is `command<TAB>run|edit|ask`. Every row is judged as the client's hooks judge it
(benchmarks/everyday/run.py's Judge: PreToolUse, then PermissionRequest) in default,
acceptEdits and plan mode, in a sample project of its ecosystem (projects.py).

    python benchmarks/everyday/independent/run.py            # the figures and every miss
    python benchmarks/everyday/independent/run.py --check    # exit 1 when a goal is not met
    python benchmarks/everyday/independent/run.py --json
    python benchmarks/everyday/independent/run.py --only go rust

Goals (issue 25), measured per list and over all five:

* default: >= 95 % of the `run` rows allowed (no dialog);
* acceptEdits: >= 95 % of the `run` and `edit` rows allowed;
* plan: >= 90 % of the read-only `run` rows allowed (labels.tsv names the `run` rows that
  write: builds, tests and their caches, servers, fetches; every other `run` row reads only);
* no `ask` row allowed in any mode where the ask is for a guarantee (labels.tsv gives each
  `ask` row its reason: secret, outside, publish, install, remote-code, or a judgement the
  list's author made: loses-work, deletes, kill, database...); judgement asks allowed are
  reported beside;
* no `run` or `edit` row denied, the two hooks never contradicting each other.
"""

import argparse
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(HERE))))

from benchmarks.everyday import run as bench  # noqa: E402

ECOSYSTEMS = ("python", "node", "go", "rust", "java")
MODES = bench.MODES
GOALS = {"default": 0.95, "acceptEdits": 0.95, "plan": 0.90}
#: the ask reasons that are guarantees (secrets, outside the project, publishing, network
#: installs, code from the network): none of these rows may ever be allowed
GUARANTEES = ("secret", "outside", "publish", "install", "remote-code")


def _unescape(command):
    # the lists' one convention: only in a command with a here-document, \n and \t stand
    # for a newline and a tab (README.md, to_jsonl.py)
    if "<<" in command:
        command = command.replace("\\n", "\n").replace("\\t", "\t")
    return command


def load(only=None):
    rows = []
    for eco in ECOSYSTEMS:
        if only and eco not in only:
            continue
        section = ""
        with open(os.path.join(HERE, f"{eco}.txt"), encoding="utf-8") as fh:
            for n, line in enumerate(fh.read().splitlines(), 1):
                if line.startswith("# ---"):
                    section = line.strip("# -")
                    continue
                if not line or line.startswith("#"):
                    continue
                raw, expect = line.rsplit("\t", 1)
                if expect not in ("run", "edit", "ask"):
                    raise SystemExit(f"{eco}.txt:{n}: {expect!r} is not run, edit or ask")
                rows.append({"file": eco, "line": n, "section": section, "raw": raw,
                             "command": _unescape(raw), "expect": expect})
    return rows


def load_labels():
    """{(ecosystem, raw command): (label, why)} from labels.tsv."""
    out = {}
    with open(os.path.join(HERE, "labels.tsv"), encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.rstrip("\n").split("\t")
            if len(cols) != 4:
                raise SystemExit(f"labels.tsv:{n}: want 4 tab-separated columns: {line!r}")
            eco, raw, label, why = cols
            out[(eco, raw)] = (label, why)
    return out


def label_rows(rows, labels):
    """Each row's `readonly` (a run row that writes nothing) and `reason` (an ask row's)."""
    seen = set()
    for r in rows:
        key = (r["file"], r["raw"])
        label, why = labels.get(key, ("", ""))
        if key in labels:
            seen.add(key)
        if r["expect"] == "run":
            if label not in ("", "writes"):
                raise SystemExit(f"labels.tsv: a run row is labelled {label!r}: {key}")
            r["readonly"] = label != "writes"
        elif r["expect"] == "ask":
            if not label:
                raise SystemExit(f"labels.tsv: the ask row {key} has no reason")
            r["reason"] = label
        elif label:
            raise SystemExit(f"labels.tsv: an edit row is labelled: {key}")
        r["label_why"] = why
    loaded = {r["file"] for r in rows}
    stale = {k for k in labels if k[0] in loaded} - seen
    if stale:
        raise SystemExit(f"labels.tsv: rows not in the lists: {sorted(stale)[:5]}")
    return rows


def judge_all(rows, root):
    from benchmarks.everyday.independent.projects import build, dev_servers

    by_eco = {}
    for r in rows:
        by_eco.setdefault(r["file"], []).append(r)
    for eco, eco_rows in by_eco.items():
        project, home = build(root, eco)
        judge = bench.Judge(os.path.join(root, eco), project=project, home=home)
        with dev_servers(project, eco):
            for r in eco_rows:
                r["actual"] = {m: judge(r["command"], m) for m in MODES}
    return rows


def _share(pool, mode):
    allowed = sum(r["actual"][mode]["final"] == "allow" for r in pool)
    return {"allowed": allowed, "eligible": len(pool),
            "share": allowed / len(pool) if pool else 1.0}


def figures(rows):
    fig = {"rows": len(rows), "per": {}}
    groups = {eco: [r for r in rows if r["file"] == eco] for eco in ECOSYSTEMS}
    groups = {k: v for k, v in groups.items() if v}
    groups["all"] = rows
    for name, rs in groups.items():
        run_rows = [r for r in rs if r["expect"] == "run"]
        fig["per"][name] = {
            "rows": len(rs),
            "default": _share(run_rows, "default"),
            "acceptEdits": _share([r for r in rs if r["expect"] in ("run", "edit")],
                                  "acceptEdits"),
            "plan": _share([r for r in run_rows if r["readonly"]], "plan"),
            "edits_default": _share([r for r in rs if r["expect"] == "edit"], "default"),
        }
    fig["guarantee_allowed"] = [(r, m) for r in rows for m in MODES
                                if r["expect"] == "ask" and r["reason"] in GUARANTEES
                                and r["actual"][m]["final"] == "allow"]
    fig["judgement_allowed"] = [(r, m) for r in rows for m in MODES
                                if r["expect"] == "ask" and r["reason"] not in GUARANTEES
                                and r["actual"][m]["final"] == "allow"]
    fig["plan_writes_allowed"] = [r for r in rows if r["actual"]["plan"]["final"] == "allow"
                                  and not (r["expect"] == "run" and r["readonly"])]
    fig["denied"] = [(r, m) for r in rows for m in MODES
                     if r["expect"] != "ask" and r["actual"][m]["final"] == "deny"]
    fig["contradictions"] = [(r, m, bench.contradiction(r["actual"][m])) for r in rows
                             for m in MODES if bench.contradiction(r["actual"][m])]
    fig["misses"] = []
    for r in rows:
        for m in MODES:
            want = _wanted(r, m)
            if want is not None and r["actual"][m]["final"] != want:
                fig["misses"].append((r, m, want))
    return fig


def _wanted(r, mode):
    """What the list expects of a row in a mode (None: no expectation there)."""
    if r["expect"] == "ask":
        return "ask"
    if mode == "acceptEdits":
        return "allow"
    if mode == "default":
        return "allow" if r["expect"] == "run" else None
    return "allow" if r["expect"] == "run" and r["readonly"] else None


def goals_met(fig) -> bool:
    return (all(fig["per"]["all"][m]["share"] >= g for m, g in GOALS.items())
            and not fig["guarantee_allowed"] and not fig["denied"]
            and not fig["contradictions"] and not fig["plan_writes_allowed"])


def _code(a):
    return a["pre_code"] if a["pretooluse"] in ("ask", "deny", "allow") else a["pr_code"]


def report(fig) -> str:
    out = [f"independent everyday lists: {fig['rows']} rows"]
    out.append(f"{'':8} {'default (run)':>20} {'acceptEdits (run+edit)':>24} "
               f"{'plan (read-only run)':>22} {'edits in default':>18}")
    for name, f in fig["per"].items():
        cells = []
        for key, width in (("default", 20), ("acceptEdits", 24), ("plan", 22),
                           ("edits_default", 18)):
            s = f[key]
            cells.append(f"{s['allowed']}/{s['eligible']} {100 * s['share']:5.1f} %"
                         .rjust(width))
        out.append(f"{name:8} " + " ".join(cells))
    allf = fig["per"]["all"]
    for m, g in GOALS.items():
        ok = "met" if allf[m]["share"] >= g else "BELOW GOAL"
        out.append(f"goal {m}: >= {100 * g:.0f} %: {ok}")
    out.append(f"ask rows allowed where the ask is a guarantee: {len(fig['guarantee_allowed'])}"
               " (goal 0)")
    for r, m in fig["guarantee_allowed"]:
        out.append(f"  {m:12} {r['file']}:{r['line']} `{r['command']}` ({r['reason']})")
    out.append(f"ask rows allowed where the ask is the list's judgement: "
               f"{len(fig['judgement_allowed'])}")
    for r, m in fig["judgement_allowed"]:
        out.append(f"  {m:12} {r['file']}:{r['line']} `{r['command']}` ({r['reason']}: "
                   f"{r['label_why']})")
    out.append(f"plan mode allowed a row that writes: {len(fig['plan_writes_allowed'])}")
    for r in fig["plan_writes_allowed"]:
        out.append(f"  {r['file']}:{r['line']} `{r['command']}`")
    out.append(f"run/edit rows denied: {len(fig['denied'])} (goal 0)")
    for r, m in fig["denied"]:
        out.append(f"  {m:12} {r['file']}:{r['line']} `{r['command']}` "
                   f"{_code(r['actual'][m])}")
    out.append(f"hooks contradicting each other: {len(fig['contradictions'])} (goal 0)")
    for r, m, why in fig["contradictions"]:
        out.append(f"  {m:12} {r['file']}:{r['line']} `{r['command']}`: {why}")
    out.append(f"misses: {len(fig['misses'])}")
    for r, m, _want in fig["misses"]:
        a = r["actual"][m]
        out.append(f"  {r['file']}:{r['line']} {m:12} {a['final']:5} {_code(a)} "
                   f"`{r['command'][:90]}` (list: {r['expect']}) - {a['message'][:110]}")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when a goal is not met")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--only", nargs="*", choices=ECOSYSTEMS, help="lists to run")
    args = ap.parse_args(argv)
    rows = label_rows(load(args.only), load_labels())
    with tempfile.TemporaryDirectory(prefix="gateway-independent-") as tmp:
        fig = figures(judge_all(rows, tmp))
    if args.json:
        def row(r):
            return {k: r[k] for k in ("file", "line", "command", "expect")}
        out = {"per": fig["per"],
               "guarantee_allowed": [dict(row(r), mode=m) for r, m in fig["guarantee_allowed"]],
               "judgement_allowed": [dict(row(r), mode=m) for r, m in fig["judgement_allowed"]],
               "denied": [dict(row(r), mode=m) for r, m in fig["denied"]],
               "contradictions": [dict(row(r), mode=m, why=w)
                                  for r, m, w in fig["contradictions"]],
               "misses": [dict(row(r), mode=m, wanted=w, actual=r["actual"][m])
                          for r, m, w in fig["misses"]]}
        print(json.dumps(out, indent=2))
    else:
        print(report(fig))
    return 0 if goals_met(fig) or not args.check else 1


if __name__ == "__main__":
    sys.exit(main())
