#!/usr/bin/env python3
"""Run the ```console examples of the docs and compare their output with what the page shows.

    python3 docs/tools/run_examples.py                  # check every page listed below
    python3 docs/tools/run_examples.py --check docs/guards.md   # check one page (the default)
    python3 docs/tools/run_examples.py --fill docs/guards.md    # rewrite its outputs
    python3 docs/tools/run_examples.py --list           # the pages it knows

Exit status: 0 every page printed what it shows (or was filled); 1 a page differs or its
session ended early; 2 a usage error or a page without a known set-up.

In a ```console block, lines starting with "$ " are commands (a trailing backslash continues a
command on the next line) and the lines after one are its expected output (stdout and stderr
together). A block opened with ```console norun is not run. The commands of one page run in
order in one bash session, after the page's set-up below: a gateway built from the committed
HEAD of this repository, a scratch HOME and a scratch project.

Some pages start from a sample project under docs/examples/ (copied into /tmp/team).
The pages use fixed scratch paths, and this script DELETES AND RE-CREATES them:
/tmp/home, /tmp/demo, /tmp/team, /tmp/gateway-docs. Timestamps, backup names, latencies,
pids and tokens are ignored when comparing. pip needs an index (set PIP_CONFIG_FILE or
PIP_INDEX_URL as usual; they are passed through); the getting-started page installs the
package itself, so its first block also needs the network.
"""

import difflib
import os
import re
import subprocess
import sys
import uuid

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WORK = "/tmp/gateway-docs"

_BUILD = f"""
export HOME=/tmp/home PIP_DISABLE_PIP_VERSION_CHECK=1
rm -rf /tmp/home /tmp/demo /tmp/team {WORK}
mkdir -p {WORK}/src /tmp/home/.local/bin
git -C {REPO} archive HEAD | tar -x -C {WORK}/src
"""
_VENV = _BUILD + f"""
python3 -m venv {WORK}/venv && {WORK}/venv/bin/pip install -q {WORK}/src
ln -s {WORK}/venv/bin/gateway /tmp/home/.local/bin/gateway
export PATH="$HOME/.local/bin:$PATH"
cd /tmp
"""
PRELUDES = {
    # the page installs the package itself, from a checkout in ~/src/gateway
    "getting-started.md": _BUILD + "mkdir -p ~/src && cp -r " + WORK + "/src ~/src/gateway\ncd ~\n",
    "guards.md": _VENV,
    "state.md": _VENV,
    "rules.md": _VENV + "mkdir -p /tmp/team/.claude && cd /tmp/team && git init -q\n",
    "phases.md": _VENV,
}
# the orchestration pages: a scratch project, and python3 = the venv's (gateway importable)
_ORCHESTRATION = _VENV + f"export PATH={WORK}/venv/bin:$PATH\n" + \
    "mkdir -p /tmp/team && cd /tmp/team && git init -q\n"
for _page in ("team-progress.md", "resume.md", "workflow-state.md", "orchestrator-store.md",
              "crew.md"):
    PRELUDES[_page] = _ORCHESTRATION
# the workflow command pages: the scratch project is a copy of a sample under docs/examples/
for _page, _sample in (("breezing.md", "breezing"), ("crew-cli.md", "crew"),
                       ("orch.md", "orch"), ("spec-sync.md", "spec-sync")):
    PRELUDES[_page] = _ORCHESTRATION + f"cp -r {WORK}/src/docs/examples/{_sample}/. /tmp/team/\n"

FENCE = re.compile(r"^```console( norun)?\s*$")
NORM = [
    (re.compile(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d+)?Z?"), "<time>"),
    (re.compile(r"\d{8}T\d{6}\.\d{3}Z(-\d+)?"), "<stamp>"),
    (re.compile(r"latency_ms: [\d.]+"), "latency_ms: <n>"),
    (re.compile(r"install/[0-9a-f]{20}/"), "install/<key>/"),
    (re.compile(r"took it [\d.]+s ago"), "took it <n>s ago"),
    (re.compile(r"pid \d+"), "pid <n>"),
    (re.compile(r"\(\d+ decisions?\)"), "(<n> decisions)"),
    (re.compile(r"Bearer [A-Za-z0-9_-]{16,}"), "Bearer <token>"),
    (re.compile(r"/tmp/docrun/venv/|" + re.escape(WORK) + "/venv/"), "<venv>/"),
    (re.compile(r"breezing-\d{8}-\d{4}(?!\d)"), "breezing-<stamp>"),   # a resumed session
    (re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d(?![:\d])"), "<minute>"),
]


def parse(lines):
    """[(start, end, [(command lines, output lines)])] for every console block that runs."""
    blocks = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while not lines[j].startswith("```"):
            j += 1
        if not m.group(1):
            items = []
            k = i + 1
            while k < j:
                if lines[k].startswith("$ "):
                    cmd = [lines[k][2:]]
                    while cmd[-1].endswith("\\") and k + 1 < j:
                        k += 1
                        cmd.append(lines[k])
                    items.append((cmd, []))
                elif items:
                    items[-1][1].append(lines[k])
                else:
                    raise SystemExit(f"line {k + 1}: output before any command")
                k += 1
            blocks.append((i, j, items))
        i = j + 1
    return blocks


def norm(line):
    for rx, rep in NORM:
        line = rx.sub(rep, line)
    return line.rstrip()


def strip_tail(lines):
    lines = list(lines)
    while lines and lines[-1] == "":
        lines.pop()
    return lines


def run(page, fill=False):
    name = os.path.basename(page)
    if name not in PRELUDES:
        raise SystemExit(f"{page}: no set-up known for this page (see PRELUDES)")
    lines = open(page, encoding="utf-8").read().split("\n")
    blocks = parse(lines)
    mark = "@@" + uuid.uuid4().hex + "@@"
    script = [PRELUDES[name]]
    n = 0
    for _, _, items in blocks:
        for cmd, _ in items:
            script += [f"echo '{mark}{n}'", "\n".join(cmd) + " 2>&1"]
            n += 1
    script.append(f"echo '{mark}end'")
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "TERM": "dumb",
           "SHELL": "/bin/bash", "HOME": "/tmp/home"}
    for key in ("SSL_CERT_FILE", "SSL_CERT_DIR", "PIP_CONFIG_FILE", "PIP_INDEX_URL",
                "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_CERT", "HTTPS_PROXY", "HTTP_PROXY"):
        if key in os.environ:
            env[key] = os.environ[key]
    proc = subprocess.run(["bash", "--norc", "--noprofile"], input="\n".join(script) + "\n",
                          capture_output=True, text=True, env=env, timeout=1800)
    outs, cur = {}, None
    for line in proc.stdout.split("\n"):
        if line.startswith(mark):
            cur = line[len(mark):]
            outs[cur] = []
        elif cur is not None:
            outs[cur].append(line)
    if "end" not in outs:
        print(f"{page}: the session ended early:\n{proc.stderr[-2000:]}")
        return 1
    bad, n, new = 0, 0, list(lines)
    replacements = []
    for start, end, items in blocks:
        body = []
        for cmd, expected in items:
            got = strip_tail(outs.get(str(n), ["<not run>"]))
            expected = strip_tail(expected)
            if not fill and [norm(x) for x in got] != [norm(x) for x in expected]:
                bad += 1
                print(f"--- {page}: `{cmd[0]}` printed something else:")
                for d in difflib.unified_diff([norm(x) for x in expected],
                                              [norm(x) for x in got], "page", "run",
                                              lineterm="", n=1):
                    print("    " + d)
            body += ["$ " + cmd[0]] + cmd[1:] + got
            n += 1
        replacements.append((start, end, body))
    if fill:
        for start, end, body in reversed(replacements):
            new[start + 1:end] = body
        with open(page, "w", encoding="utf-8") as fh:
            fh.write("\n".join(new))
        print(f"{page}: {n} command(s), output filled in")
        return 0
    print(f"{page}: {n} command(s), {bad} printed something else")
    return 1 if bad else 0


def main(argv):
    import argparse
    import fcntl

    ap = argparse.ArgumentParser(
        prog="run_examples.py", description=__doc__.split("\n\n")[0],
        epilog="The scratch paths are shared: concurrent runs wait for each other (a lock "
               "on /tmp/gateway-docs.lock).")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true",
                      help="compare each command's output with the page (the default)")
    mode.add_argument("--fill", action="store_true",
                      help="rewrite the pages' outputs with what the commands print")
    mode.add_argument("--list", action="store_true", help="print the pages it knows")
    ap.add_argument("pages", nargs="*", metavar="PAGE",
                    help="docs pages (default: every page it knows)")
    args = ap.parse_args(argv)
    known = [os.path.join(REPO, "docs", p) for p in PRELUDES]
    if args.list:
        print("\n".join(os.path.relpath(p, REPO) for p in known))
        return 0
    for p in args.pages:
        if os.path.basename(p) not in PRELUDES:
            ap.error(f"{p}: no set-up known for this page (see PRELUDES)")
    with open(WORK + ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return max(run(p, args.fill) for p in args.pages or known)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
