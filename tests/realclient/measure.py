"""Run the client-behaviour table (behaviour.CASES × permission modes, print and interactive)
plus the PostToolUse, plan-mode, settings.local.json and bypassPermissions experiments, and
print the Markdown tables of docs/client-behaviour.md.

    python -m tests.realclient.measure --jsonl /tmp/cb.jsonl            # everything (~25 min)
    python -m tests.realclient.measure --jsonl /tmp/cb.jsonl --cases cat-env,Read-env \\
        --print-modes default --interactive-modes none
    python -m tests.realclient.measure --render /tmp/cb.jsonl > table.md

Sessions run one at a time (the project machine has 2 shared cores). Results are appended to
the JSONL file as they come, and a re-run with the same file skips what is already there.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any

from .behaviour import (
    CASES,
    CASES_BY_ID,
    INTERACTIVE_MODES,
    PRINT_MODES,
    find_executable,
    find_secrets,
    observe_interactive,
    observe_print,
    strip_budget,
)
from .client import ensure_client
from .experiments import EXPERIMENTS


def _load(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(ln) for ln in path.read_text().splitlines() if ln.strip()]


def run_matrix(
    claude: Path,
    out: Path,
    cases: list[str],
    print_modes: list[str],
    interactive_modes: list[str],
) -> None:
    done = {(o["case"], o["interface"], o["mode"]) for o in _load(out) if "case" in o}
    plan = [(c, "print", m) for c in cases for m in print_modes]
    plan += [(c, "interactive", m) for c in cases for m in interactive_modes]
    for n, (cid, iface, mode) in enumerate(plan, 1):
        if (cid, iface, mode) in done:
            continue
        case = CASES_BY_ID[cid]
        if case.needs and find_executable(case.needs) is None:
            print(f"[{n}/{len(plan)}] {cid}: skipped, {case.needs} not found", file=sys.stderr)
            continue
        root = Path(tempfile.mkdtemp(prefix="cb-"))
        try:
            t = time.monotonic()
            if iface == "print":
                obs = observe_print(claude, case, mode, root)
            else:
                obs = observe_interactive(claude, case, mode, root)
            row = obs.to_json()
        except Exception as e:  # record and go on: one broken session must not lose the rest
            row = {"case": cid, "interface": iface, "mode": mode, "error": repr(e)}
        finally:
            shutil.rmtree(root, ignore_errors=True)
        with out.open("a") as f:
            f.write(json.dumps(row) + "\n")
        print(
            f"[{n}/{len(plan)}] {cid} {iface} {mode}: {row.get('outcome', row.get('error'))} "
            f"({time.monotonic() - t:.1f}s)",
            file=sys.stderr,
        )


def run_experiments(claude: Path, out: Path, names: list[str]) -> None:
    done = {o["experiment"] for o in _load(out) if "experiment" in o}
    for name in names:
        if name in done:
            continue
        root = Path(tempfile.mkdtemp(prefix="cbx-"))
        try:
            rows = EXPERIMENTS[name](claude, root)
        finally:
            shutil.rmtree(root, ignore_errors=True)
        with out.open("a") as f:
            f.write(json.dumps({"experiment": name, "rows": rows}) + "\n")
        print(f"experiment {name}: {len(rows)} rows", file=sys.stderr)


# --------------------------------------------------------------------------- rendering


def _cell(o: dict[str, Any]) -> str:
    if "error" in o:
        return "error"
    if o["interface"] == "print":
        word = {"ran": "ran", "asks": "ask", "refused": "refused"}[o["outcome"]]
    else:
        word = {"ran": "ran", "dialog": "dialog", "refused": "refused"}[o["outcome"]]
        if o["outcome"] == "dialog" and not o["permission_request"]:
            word = "dialog, no PR"
    if o["outcome"] == "ran" and find_secrets(o.get("tool_result")):
        word = "**ran: SECRET**"
    if any("timed out" in n for n in o.get("notes", [])):
        word += " (timeout)"
    return word


def _excerpt(text: str | None, n: int = 110) -> str:
    if text is None:
        return "(no tool_result)"
    t = strip_budget(text).replace("\n", "⏎").replace("|", "\\|")
    return "`" + (t[:n] + "…" if len(t) > n else t) + "`" if t else "(empty)"


def render(rows: list[dict[str, Any]], experiments: bool = True) -> str:
    obs = [o for o in rows if "case" in o]
    by: dict[tuple[str, str, str], dict[str, Any]] = {
        (o["case"], o["interface"], o["mode"]): o for o in obs
    }
    pmodes = [m for m in PRINT_MODES if any(k[1] == "print" and k[2] == m for k in by)]
    imodes = [m for m in INTERACTIVE_MODES if any(k[1] == "interactive" and k[2] == m for k in by)]
    cases = [c for c in CASES if any(k[0] == c.id for k in by)]
    out = []
    for title, iface, modes, prefix in (
        ("Print mode (`claude -p`)", "print", pmodes, "-p"),
        ("Interactive (tty)", "interactive", imodes, "tty"),
    ):
        if not modes:
            continue
        out.append(f"### {title}")
        out.append("")
        head = ["call", *[f"{prefix} {m}" for m in modes]]
        out.append("| " + " | ".join(head) + " |")
        out.append("|" + "---|" * len(head))
        for c in cases:
            label = c.label + ("" if c.gitignore_env else " (.env not in .gitignore)")
            cells = [_cell(by[(c.id, iface, m)]) if (c.id, iface, m) in by else "" for m in modes]
            out.append("| " + " | ".join([label, *cells]) + " |")
        out.append("")
    out.append("### What each call returned (grouped where identical)")
    out.append("")
    out.append("| call | where | outcome | PermissionRequest | tool_result |")
    out.append("|---|---|---|---|---|")
    for c in cases:
        label = c.label + ("" if c.gitignore_env else " (.env not in .gitignore)")
        groups: OrderedDict[tuple, list[str]] = OrderedDict()
        for iface, modes in (("print", pmodes), ("interactive", imodes)):
            for m in modes:
                o = by.get((c.id, iface, m))
                if o is None:
                    continue
                key = (
                    iface,
                    o.get("outcome", "error"),
                    o.get("permission_request"),
                    _excerpt(o.get("tool_result")),
                )
                groups.setdefault(key, []).append(m)
        for (iface, outcome, pr, ex), modes in groups.items():
            where = ("-p " if iface == "print" else "tty ") + ", ".join(modes)
            leak = find_secrets(by[(c.id, iface, modes[0])].get("tool_result"))
            oc = outcome + (f": secret {', '.join(leak)}" if leak else "")
            out.append(f"| {label} | {where} | {oc} | {'yes' if pr else 'no'} | {ex} |")
    for e in (o for o in rows if "experiment" in o and experiments):
        out.append("")
        out.append(f"### Experiment `{e['experiment']}`")
        out.append("")
        out.append("```json")
        for r in e["rows"]:
            out.append(json.dumps(r, ensure_ascii=False))
        out.append("```")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--jsonl", type=Path, help="append results here (and skip those present)")
    ap.add_argument("--cases", default="all", help="comma-separated case ids (behaviour.CASES)")
    ap.add_argument("--print-modes", default=",".join(PRINT_MODES), help="or 'none'")
    ap.add_argument("--interactive-modes", default=",".join(INTERACTIVE_MODES), help="or 'none'")
    ap.add_argument(
        "--experiments", default="all", help=f"comma list of {sorted(EXPERIMENTS)}, or 'none'"
    )
    ap.add_argument("--render", type=Path, help="only print the Markdown of a JSONL file")
    ap.add_argument(
        "--no-experiment-data", action="store_true", help="leave the experiments' JSON out"
    )
    args = ap.parse_args(argv)
    if args.render:
        sys.stdout.write(render(_load(args.render), not args.no_experiment_data))
        return 0
    if not args.jsonl:
        ap.error("--jsonl is required to run measurements")
    inst = ensure_client()
    if not inst:
        print(f"client unavailable: {inst.reason}", file=sys.stderr)
        return 2

    def split(v: str, allv: list[str]) -> list[str]:
        return [] if v == "none" else (allv if v == "all" else v.split(","))

    cases = split(args.cases, [c.id for c in CASES])
    unknown = [c for c in cases if c not in CASES_BY_ID]
    if unknown:
        ap.error(f"unknown case ids: {unknown}")
    assert inst.claude is not None
    run_matrix(
        inst.claude,
        args.jsonl,
        cases,
        split(args.print_modes, list(PRINT_MODES)),
        split(args.interactive_modes, list(INTERACTIVE_MODES)),
    )
    run_experiments(inst.claude, args.jsonl, split(args.experiments, sorted(EXPERIMENTS)))
    sys.stdout.write(render(_load(args.jsonl), not args.no_experiment_data))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
