"""Build the fuzz harnesses' seed corpus from the regression tables.

    python fuzz/build_corpus.py [--out fuzz/corpus/seeds]

writes one file per input (named by its SHA-1, the way libFuzzer names corpus files) into
OUT/validator, OUT/hook and OUT/rules:

validator  every command of tests/data/seed-regression-cases.tsv (decoded as its header
           says; {PROJECT_ROOT} becomes the harness placeholder {PROJECT}, {A*4000} 4,000 a's)
           and of tests/data/cases/*.tsv
hook       each of those commands as a PermissionRequest/PreToolUse payload (the table's
           tool_name, "(missing)" and "(empty)" included; rows that hold a tool_input JSON
           become that tool's payload), the payload's cwd being the row's; plus payloads for
           the guards (file tools, role markers, team tools, identities of the sample team,
           the codex-mode project {CODEX}) and malformed input
rules      project/local/user rules layers: tightening layers the gateway must accept,
           loosening ones it must refuse, broken YAML, and the built-in rules files

Also committed inputs from fuzz/regressions/<harness>/ are replayed by fuzz/run.py as a
separate corpus directory; this script does not touch them. The output is a pure function
of the tables, so it is rebuilt on every run and not committed.
"""

import argparse
import hashlib
import json
import os
import shutil
import sys

FUZZ_DIR = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(FUZZ_DIR)
DATA = os.path.join(REPO, "tests", "data")
sys.path.insert(0, FUZZ_DIR)

from hook_payloads import IMPLEMENTER, LEAD, REVIEWER, guard_payloads  # noqa: E402


def decode(text: str) -> str:
    """The tables' escapes: \\\\ \\t \\n \\r \\uXXXX (see the header of the seed table)."""
    out = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            n = text[i + 1]
            simple = {"\\": "\\", "t": "\t", "n": "\n", "r": "\r"}
            if n in simple:
                out.append(simple[n])
                i += 2
                continue
            if n == "u" and i + 6 <= len(text):
                try:
                    out.append(chr(int(text[i + 2:i + 6], 16)))
                    i += 6
                    continue
                except ValueError:
                    pass
        out.append(c)
        i += 1
    return "".join(out)


def fill(text: str) -> str:
    return text.replace("{PROJECT_ROOT}", "{PROJECT}").replace("{A*4000}", "a" * 4000)


def table_rows():
    """(command, tool_name or None for missing, cwd relative to the project or "")."""
    rows = []
    header = None
    with open(os.path.join(DATA, "seed-regression-cases.tsv"), encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("#") or not line.strip():
                continue
            parts = line.rstrip("\n").split("\t")
            if header is None:
                header = parts
                continue
            row = dict(zip(header, parts, strict=False))
            tool = row.get("tool_name", "Bash")
            tool = {"(missing)": None, "(empty)": ""}.get(tool, tool)
            rows.append((fill(decode(row["command"])), tool, ""))
    cases = os.path.join(DATA, "cases")
    for name in sorted(os.listdir(cases)):
        if not name.endswith(".tsv"):
            continue
        with open(os.path.join(cases, name), encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("#") or not line.strip():
                    continue
                parts = line.rstrip("\n").split("\t") + ["", "", "", ""]
                rows.append((fill(decode(parts[0])), "Bash", parts[3]))
    return rows


def hook_payload(command, tool, cwd, event, identity):
    payload = {"session_id": identity.get("session_id", LEAD), "transcript_path":
               "/tmp/t.jsonl", "cwd": "{PROJECT}" + ("/" + cwd if cwd else ""),
               "permission_mode": "default", "hook_event_name": event}
    if "agent_id" in identity:
        payload["agent_id"] = identity["agent_id"]
        payload["agent_type"] = "general-purpose"
    if tool is not None:
        payload["tool_name"] = tool
    tool_input = None
    if tool not in ("Bash", None, "") and command.startswith("{"):
        try:
            tool_input = json.loads(command)
        except ValueError:
            tool_input = None
    payload["tool_input"] = tool_input if isinstance(tool_input, dict) else {
        "command": command, "description": "x"}
    return json.dumps(payload, ensure_ascii=False).encode("utf-8", "surrogatepass")


MALFORMED = [b"", b"{}", b"[]", b"null", b"\"Bash\"", b"{\"tool_name\": \"Bash\"}",
             b"{\"tool_name\": \"Bash\", \"tool_input\": {}}",
             b"{\"tool_name\": \"Bash\", \"tool_input\": {\"command\": 1}}",
             b"{\"tool_name\": \"Bash\", \"tool_input\": {\"command\": \"ls\"}, \"cwd\": 7}",
             b"{\"tool_name\": \"Bash\", \"tool_input\": {\"command\": \"ls\"",
             b"\xff\xfe{\"tool_name\": \"Bash\"}", b"[" * 2000 + b"]" * 2000,
             b"{\"tool_name\": \"Bash\", \"tool_input\": {\"command\": \"ls\"}, \"cwd\": "
             b"\"relative/dir\"}",
             b"{\"tool_name\": \"Bash\", \"tool_input\": {\"command\": \"cat \\u0000\"}}"]


RULES = [
    # tightening layers (project): accepted
    "always_ask: [make, terraform]\n",
    "version: 1\nalways_ask: [LS]\nsubcommand_ask: ['git commit', 'git log --all']\n",
    "subcommand_ask:\n  - git stash\n  - gh pr create\n",
    "compound:\n  enabled: false\n",
    "limits:\n  max_command_length: 200\n  max_segments: 2\n",
    "secrets:\n  patterns: ['*.secret', config/prod.yaml]\n  directories: [private]\n",
    "protected_paths: [docs/**, Makefile]\n",
    "wrappers:\n  frob: {value_flags: [-n], skip_positionals: 1}\n",
    "shell_builtins: [ulimit]\n",
    "deny:\n  - id: no-make-clean\n    message: never clean\n    command: [make]\n"
    "    words_any: [clean]\n    examples:\n      match: [make clean]\n"
    "      not_match: [make all]\n",
    "deny:\n  - id: no-pipe-python\n    message: no piping into python\n"
    "    pipe_from: [cat]\n    pipe_to: [python3]\n",
    "deny:\n  - id: no-redirect-etc\n    message: no writes to etc\n"
    "    redirect_globs: ['/etc/*']\n",
    "x-anchor: &a [one]\nalways_ask: [two]\n",
    "# only a comment\n",
    "",
    # loosening layers (project): refused with a located error
    "catalogue:\n  frob:\n    args: paths\n",
    "interpreters:\n  python3:\n    safe_flags: [c]\n",
    "allowed_dirs: [/etc]\n",
    "containment_dirs: [vendor/scripts]\n",
    "remove:\n  always_ask: [curl]\n",
    "floors:\n  always_ask: []\n",
    "safe_suffixes:\n  literal: [' ; rm -rf /']\n",
    "limits:\n  max_segments: 1000\n",
    "secrets:\n  exceptions: ['.env']\n",
    "deny:\n  - id: rm-root\n    message: redefined\n    command: [rm]\n",
    # broken layers
    "always_ask: [make\n", "always_ask: make\n", "always_ask: [1, 2]\n", "[]\n", "42\n",
    "always_ask: [a]\nalways_ask: [b]\n", "a: &x [1]\nb: *x\n", "version: 2\n",
    "limits: {max_segments: -1}\n", "deny: [{id: X, message: m}]\n", "\t- x\n", "%YAML 9.9\n---\n",
    "!!python/object:os.system [ls]\n", "always_ask: !!binary aGk=\n",
    "wrappers:\n  w: {value_flags: [x]}\n", "catalogue: {x: {check: nope}}\n",
    # several layers: project, then local and user after their marker lines
    "always_ask: [make]\n#>local\nalways_ask: [cmake]\n",
    "subcommand_ask: ['git commit']\n#>local\ncompound: {enabled: false}\n#>user\n"
    "always_ask: [bazel]\n",
    "#>user\nremove:\n  always_ask: [ssh]\ncatalogue:\n  frob: {args: paths}\n",
    "#>user\nallowed_dirs: [/opt/shared]\n",
    "#>local\ncatalogue:\n  frob: {}\n",
]


def write(out_dir, items):
    os.makedirs(out_dir, exist_ok=True)
    names = set()
    for data in items:
        name = hashlib.sha1(data).hexdigest()
        if name in names:
            continue
        names.add(name)
        with open(os.path.join(out_dir, name), "wb") as fh:
            fh.write(data)
    return len(names)


def build(out: str) -> dict:
    if os.path.isdir(out):
        shutil.rmtree(out)
    rows = table_rows()
    validator = [cmd.encode("utf-8", "surrogatepass") for cmd, tool, _ in rows
                 if tool == "Bash" or not cmd.startswith("{")]
    identities = [{}, {"agent_id": IMPLEMENTER}, {"agent_id": REVIEWER}]
    hook = []
    for k, (cmd, tool, cwd) in enumerate(rows):
        event = "PreToolUse" if k % 2 else "PermissionRequest"
        hook.append(hook_payload(cmd, tool, cwd, event, identities[k % len(identities)]))
    hook += [json.dumps(p, ensure_ascii=False).encode("utf-8") for p in guard_payloads()]
    hook += MALFORMED
    rules = [r.encode("utf-8") for r in RULES]
    builtin = os.path.join(REPO, "rules")
    for name in sorted(os.listdir(builtin)):
        if name.endswith(".yaml"):
            with open(os.path.join(builtin, name), "rb") as fh:
                rules.append(fh.read())
    return {"validator": write(os.path.join(out, "validator"), validator),
            "hook": write(os.path.join(out, "hook"), hook),
            "rules": write(os.path.join(out, "rules"), rules)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(FUZZ_DIR, "corpus", "seeds"))
    args = ap.parse_args(argv)
    counts = build(args.out)
    where = os.path.relpath(args.out, REPO) if args.out.startswith(REPO + os.sep) else args.out
    print("seed corpus: " + ", ".join(f"{k} {v}" for k, v in counts.items())
          + f" inputs in {where}")


if __name__ == "__main__":
    main()
