"""The differential run: every corpus and case table through both hooks' decision functions,
written as sorted JSON lines, so that a change that must not change behaviour (issue 26's
moves and splits) is proven not to by comparing two runs.

    python benchmarks/differential/run.py -o before.jsonl          # on the old tree
    python benchmarks/differential/run.py -o after.jsonl           # on the new tree
    python benchmarks/differential/run.py --compare before.jsonl after.jsonl

Sources (each row's `source`):

* `cases/<name>`: the validator's case tables, tests/data/cases/*.tsv (command, and the
  directory it runs in), in the tests' sample project (tests/helpers.py make_project);
* `seed`: the public regression table tests/data/seed-regression-cases.tsv (the same file as
  /work/shared/reference/seed-regression-cases.tsv), decoded as its header says, every row:
  the Bash rows as Bash commands, the file-tool rows (Read, Write, ...) with their tool_input
  JSON, the tool names the table gives (missing, empty, another tool) as given;
* `composed`: tests/data/composed.tsv in the committed sample project (make_committed_project);
* `everyday/<file>`: the everyday benchmark's corpus (benchmarks/everyday/corpus/*.tsv) in its
  sample project (benchmarks/everyday/project.py);
* `redteam`: the red-team corpus (benchmarks/redteam/corpus.tsv), in the same project.

Each input is judged in every permission mode the hooks know of that the tables use
(`default`, `acceptEdits`, `plan`, and a payload with no permission_mode, which the case tables
are written for) by both real decision functions, fed the raw JSON payload a client sends:
gateway.hooks.permission_request.decide and gateway.hooks.pre_tool_use.decide. One output line
per (input, mode, hook): source, tool, input, cwd, mode, hook, decision, code, message.
Temporary paths in messages are replaced by placeholders ({PROJECT}, {ROOT}, {HOME}), and the
checkout's own path by {CHECKOUT} (a message may name the gateway's own rules), so two runs of
two checkouts on one machine compare equal when, and only when, every decision, code and
message is the same. `--compare A B` prints every difference (and exits 1 when there is one).
"""

import argparse
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, ROOT)
sys.path.append(os.path.join(ROOT, "tests"))

DATA = os.path.join(ROOT, "tests", "data")
CASES = os.path.join(DATA, "cases")
EVERYDAY = os.path.join(ROOT, "benchmarks", "everyday", "corpus")
REDTEAM = os.path.join(ROOT, "benchmarks", "redteam", "corpus.tsv")
MODES = (None, "default", "acceptEdits", "plan")
FILE_TOOLS = ("Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "Glob", "Grep")
KEY = ("source", "tool", "input", "cwd", "mode", "hook")


def _rows(path):
    """The non-comment, non-empty lines of a TSV file, split on tabs."""
    with open(path, encoding="utf-8") as fh:
        return [line.rstrip("\n").split("\t") for line in fh
                if line.strip() and not line.startswith("#")]


def inputs(projects):
    """[(source, project, tool, tool_input, cwd)] for every row of every table."""
    from helpers import decode

    sample, committed, everyday = projects["sample"], projects["committed"], projects["everyday"]
    out = []
    for name in sorted(n for n in os.listdir(CASES) if n.endswith(".tsv")):
        for cols in _rows(os.path.join(CASES, name)):
            cols += [""] * (5 - len(cols))
            command = decode(cols[0]).replace("{PROJECT}", sample)
            out.append((f"cases/{name[:-4]}", sample, "Bash", {"command": command},
                        cols[3] or None))
    seed = _rows(os.path.join(DATA, "seed-regression-cases.tsv"))
    header = seed[0]
    for cols in seed[1:]:
        row = dict(zip(header, cols, strict=True))
        text = decode(row["command"]).replace("{PROJECT_ROOT}", sample)
        text = text.replace("{A*4000}", "a" * 4000)
        tool = {"(missing)": None, "(empty)": ""}.get(row["tool_name"], row["tool_name"])
        tool_input = {"command": text}
        if tool in FILE_TOOLS:
            try:
                tool_input = json.loads(text)
            except ValueError:
                pass
        out.append(("seed", sample, tool, tool_input, None))
    for cols in _rows(os.path.join(DATA, "composed.tsv")):
        out.append(("composed", committed, "Bash", {"command": decode(cols[0])}, None))
    for name in sorted(n for n in os.listdir(EVERYDAY) if n.endswith(".tsv")):
        for cols in _rows(os.path.join(EVERYDAY, name)):
            command = cols[0].replace("\u23ce", "\n")  # ⏎ stands for a newline
            out.append((f"everyday/{name[:-4]}", everyday, "Bash", {"command": command}, None))
    for cols in _rows(REDTEAM):
        out.append(("redteam", everyday, "Bash", {"command": decode(cols[0])}, None))
    return out


def environment(root, project):
    """The hook process's environment: nothing of the caller's gateway or client settings."""
    home = os.path.join(root, "home")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GATEWAY_", "CLAUDE_")) and k not in ("CDPATH", "SHELL")}
    env.update(HOME=home, GATEWAY_AUDIT_LOG="off", GATEWAY_LANG="en",
               GATEWAY_USER_RULES=os.path.join(home, "no-rules.yaml"),
               GATEWAY_CACHE_DIR=os.path.join(root, "cache"), GATEWAY_EARLY_ALLOW="1",
               CLAUDE_CONFIG_DIR=os.path.join(home, ".claude"), CLAUDE_PROJECT_DIR=project,
               SHELL="/bin/bash", XDG_CONFIG_HOME=os.path.join(home, ".config"),
               XDG_STATE_HOME=os.path.join(home, ".state"))
    return env


def judge(root, project, tool, tool_input, cwd, mode):
    """[(hook, decision, code, message)] of both hooks for one payload."""
    from gateway.hooks import permission_request, pre_tool_use

    env = environment(root, project)
    where = os.path.join(project, cwd) if cwd else project
    payload = {"session_id": "differential", "transcript_path": "", "cwd": where,
               "hook_event_name": "PermissionRequest", "tool_input": tool_input}
    if tool is not None:
        payload["tool_name"] = tool
    if mode is not None:
        payload["permission_mode"] = mode
    out = []
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        for hook, fn in (("PermissionRequest", permission_request.decide),
                         ("PreToolUse", pre_tool_use.decide)):
            payload["hook_event_name"] = hook
            raw = json.dumps(payload).encode("utf-8", "surrogatepass")
            verdict, _ = fn(raw, env)
            out.append((hook, str(verdict.decision), verdict.code, verdict.message))
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return out


def run(root, only=None):
    from helpers import make_committed_project, make_project

    from benchmarks.everyday.project import build

    root = os.path.realpath(root)
    os.makedirs(os.path.join(root, "home"), exist_ok=True)
    projects = {"sample": make_project(os.path.join(root, "sample")),
                "committed": make_committed_project(os.path.join(root, "committed")),
                "everyday": build(os.path.join(root, "everyday"))}
    names = sorted(((p, "{PROJECT}") for p in projects.values()), key=lambda x: -len(x[0]))
    names += [(os.path.join(root, "home"), "{HOME}"), (root, "{ROOT}"), (ROOT, "{CHECKOUT}")]

    def clean(text):
        for path, name in names:
            text = text.replace(path, name)
        return text

    lines = []
    for source, project, tool, tool_input, cwd in inputs(projects):
        if only and not any(source.startswith(o) for o in only):
            continue
        for mode in MODES:
            for hook, decision, code, message in judge(root, project, tool, tool_input, cwd,
                                                       mode):
                row = {"source": source, "tool": tool,
                       "input": clean(json.dumps(tool_input, ensure_ascii=False,
                                                 sort_keys=True)),
                       "cwd": cwd, "mode": mode, "hook": hook, "decision": decision,
                       "code": code, "message": clean(message)}
                lines.append(json.dumps(row, ensure_ascii=True, sort_keys=True))
    return sorted(set(lines))


def _load(path):
    out = {}
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            out.setdefault(tuple(str(row[k]) for k in KEY), []).append(row)
    return out


def compare(a, b) -> list:
    """Human-readable differences between two runs (empty: none)."""
    ra, rb = _load(a), _load(b)
    diffs = []
    for key in sorted(set(ra) | set(rb)):
        va = sorted((r["decision"], r["code"], r["message"]) for r in ra.get(key, []))
        vb = sorted((r["decision"], r["code"], r["message"]) for r in rb.get(key, []))
        if va != vb:
            src, tool, inp, cwd, mode, hook = key
            diffs.append(f"{src} {tool} mode={mode} cwd={cwd} {hook}: {inp[:160]}\n"
                         f"  {a}: {va}\n  {b}: {vb}")
    return diffs


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-o", "--output", help="write the JSON lines here (default: stdout)")
    ap.add_argument("--only", nargs="*", help="sources to run (prefixes: cases, seed, "
                    "composed, everyday, redteam, everyday/go ...)")
    ap.add_argument("--compare", nargs=2, metavar=("A", "B"),
                    help="print the differences between two runs; exit 1 when there are any")
    args = ap.parse_args(argv)
    if args.compare:
        diffs = compare(*args.compare)
        for d in diffs:
            print(d)
        print(f"{len(diffs)} difference(s)")
        return 1 if diffs else 0
    with tempfile.TemporaryDirectory(prefix="gateway-differential-") as tmp:
        lines = run(tmp, args.only)
    text = "".join(line + "\n" for line in lines)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(text)
        print(f"{len(lines)} rows written to {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
