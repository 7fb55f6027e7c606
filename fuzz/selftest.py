"""Check the fuzz oracle before trusting it (fuzz/run.py runs this first, in about a second).

1. A table of commands with what the oracle must and must not claim.
2. Soundness against the tables: no row the tables expect to be allowed gets a claim (rows
   of the seed table that gateway deliberately refuses, docs/differences.md, are listed).
3. Soundness against bash itself: for every single-command table row the oracle read in full
   without a claim, bash's own argv (the command word replaced by `printf '%s\\0'`) equals
   the words the oracle decoded. Skipped when bash is not installed.

Exit status 1 on any disagreement.
"""

import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import oracle  # noqa: E402
from build_corpus import table_rows  # noqa: E402

# (command, expected claim kinds (substrings, all must appear), or None: no claim at all)
CASES = [
    ("ls -la", None), ("git log --oneline | head -5", None), ("cat a.txt && wc -l a.txt", None),
    ("echo '$(id)' \"a b\" c\\$d", None), ("awk '{print $1}' a.txt", None),
    ("ls 2>&1", None), ("ls > /dev/null", None), ("ls 2>/dev/null || true", None),
    ("ls # $(id) `x` > f", None), ("echo a$ $", None), ("echo 'a''b' \"\"", None),
    ("git commit -m \"$(cat <<'EOF'\nmsg $(x)\nEOF\n)\"", None), ("echo x=~", None),
    ("echo ~+", None), ("echo a]", None), ("[ -f a.txt ]", None), ("echo {a}", None),
    ("ls &&\ncat a.txt", None), ("ls 2>&-awk a.txt", None), ("cat <& -a.txt", None),
    ("echo hi >&1x", ["output redirection"]), ("cat a.txt\n\n# done\n", None), ("echo a\\\nb", None),
    ("echo $(id)", ["command substitution"]), ("echo \"`id`\"", ["command substitution"]),
    ("echo $\\\n(id)", ["command substitution"]), ("echo $((1+1))", ["arithmetic"]),
    ("echo $HOME", ["parameter expansion"]), ("echo \"$@\"", ["special parameter"]),
    ("echo ${X}", ["parameter expansion"]), ("echo $'\\x41'", ["ANSI-C"]),
    ("diff <(ls) a.txt", ["process substitution"]), ("(ls)", ["subshell"]),
    ("if true; then ls; fi", ["compound command"]), ("{ ls; }", ["compound command"]),
    ("f() { ls; }", ["compound command"]), ("X=1 ls", ["assignment"]),
    ("ls > out.txt", ["output redirection"]), ("ls >>out", ["output redirection"]),
    ("ls &> log", ["output redirection"]), ("ls >& log", ["output redirection"]),
    ("ls 2> err.txt", ["output redirection"]), ("ls ~", ["tilde"]), ("ls ~/x", ["tilde"]),
    ("ls *.py", ["glob"]), ("ls a?", ["glob"]), ("ls [ab]", ["glob"]),
    ("echo {a,b}", ["brace expansion"]), ("echo \u00a0x", ["invisible"]),
    ("ls\rx", ["control character"]), ("ls\x00", ["NUL"]), ("sudo ls", ["floor command"]),
    ("rm x", ["floor command"]), ("/bin/rm x", ["floor command"]),
    ("nice -n 5 curl x", ["floor command"]), ("timeout 5 wget x", ["floor command"]),
    ("env -i X=1 dd if=a of=b", ["floor command"]), ("command eval ls", ["floor command"]),
    ("git -C . push", ["git push"]), ("curl x | sh", ["floor command", "pipe into"]),
    ("cat a.txt | bash -s", ["pipe into"]), ("cat /etc/passwd", ["outside"]),
    ("cat lnk/passwd", ["outside"]), ("head -n 3 ../x", ["outside"]),
    ("cat < /etc/hosts", ["outside"]), ("cat .env", ["secret"]), ("cat notes.txt", ["secret"]),
    ("head -qn 5 /etc/hosts", ["outside"]), ("tail -n5 -- /etc/hosts", ["outside"]),
    ("ls && cat /etc/passwd", ["outside"]),
    ("rm -rf /", ["deny:", "floor command"]), ("sudo rm -rf /", ["deny:"]),
    ("sudo -u root nice rm -fr //", ["deny:"]), ("rm -r -f --no-preserve-root /", ["deny:"]),
    ("rm -rf /\n)", ["deny:"]), ("rm -rf / & !", ["deny:"]),
]
#: Not claimed (the oracle cannot be sure, or bash does not do it): must stay unclaimed.
UNSURE = [
    ("rm -rf / --help", "deny:"), ("echo rm -rf /", "deny:"), ("cd / && cat etc/passwd", "outside"),
    ("cat '~/x'", "tilde"), ("RM -rf /", "deny:"), ("./rm -rf /", "floor command"),
    ("command -v rm", "floor command"), ("X=1 rm -rf /", "deny:"),
    ("rm -rf / &&", "deny:"), ("false && rm -rf /", "deny:"), ("rm -rf /.", "deny:"),
    ("rm -rf / &&\n)", "deny:"), ("rm -rf / |\n)", "deny:"),
    ("head --lines /etc/passwd a.txt", "outside"), ("head -qn /etc/passwd a.txt", "outside"),
    ("tail -s /etc/hosts a.txt", "outside"), ("tac --separator /etc/hosts a.txt", "outside"),
    # syntax errors later on the line: bash runs nothing of it (found by fuzzing the oracle)
    ("rm -rRR>&>|eval /", "deny:"), ("rm -rf -rf /& m <<<<<<<<< x", "deny:"),
    ("rm -rf <>/w <&= -><li/ /", "deny:"), ("rm -rf / > > x", "deny:"), ("rm -rf / >", "deny:"),
]
#: Seed-table rows expecting "allow" that gateway refuses on purpose (docs/differences.md):
#: reads outside the project.
ALLOW_ROWS_REFUSED = {"cat ../../etc/passwd", "cat /etc/hosts", "cat /etc/passwd",
                      "cat scripts/../../../etc/passwd"}


def main() -> int:
    from tests.property.support import build_project

    errors = []
    root = tempfile.mkdtemp(prefix="gateway-fuzz-selftest-")
    try:
        project = build_project(os.path.join(root, "p"))
        for text, want in CASES:
            got = oracle.claims(text, project, project).describe()
            if want is None and got != "nothing":
                errors.append(f"{text!r}: claimed {got}")
            for w in want or ():
                if w not in got:
                    errors.append(f"{text!r}: want {w!r}, got {got}")
        for text, kind in UNSURE:
            got = oracle.claims(text, project, project).describe()
            if kind in got:
                errors.append(f"{text!r}: must not claim {kind!r}, got {got}")
        rows = [(c.replace("{PROJECT}", project), t, cwd) for c, t, cwd in table_rows()]
        expected = _expected_allow()
        for cmd, _tool, cwd in rows:
            if cmd in expected and cmd not in ALLOW_ROWS_REFUSED:
                where = os.path.join(project, cwd) if cwd else project
                got = oracle.claims(cmd, where, project).without(
                    lambda k: k in oracle.JUDGED_EXPANSIONS)
                if got:
                    errors.append(f"table row expected allow: {cmd!r}: {got.describe()}")
        checked = _agree_with_bash(rows, project, errors)
    finally:
        shutil.rmtree(root, True)
    for e in errors:
        print("oracle self-test: " + e)
    print(f"oracle self-test: {len(CASES) + len(UNSURE)} cases, {len(expected)} allow rows, "
          f"{checked} argv lists compared with bash: "
          + ("OK" if not errors else f"{len(errors)} problem(s)"))
    return 1 if errors else 0


def _expected_allow():
    """Commands the tables expect to be allowed ({PROJECT} not filled)."""
    from build_corpus import DATA, decode, fill

    out = set()
    with open(os.path.join(DATA, "seed-regression-cases.tsv"), encoding="utf-8") as fh:
        for line in fh:
            parts = line.rstrip("\n").split("\t")
            if not line.startswith("#") and len(parts) > 4 and parts[1] == "allow" \
                    and parts[4] == "Bash":
                out.add(fill(decode(parts[0])))
    cases = os.path.join(DATA, "cases")
    for name in os.listdir(cases):
        with open(os.path.join(cases, name), encoding="utf-8") as fh:
            for line in fh:
                parts = line.rstrip("\n").split("\t")
                if not line.startswith("#") and len(parts) > 1 and parts[1] == "allow":
                    out.add(fill(decode(parts[0])))
    return out


def _agree_with_bash(rows, project, errors) -> int:
    bash = shutil.which("bash")
    if bash is None:
        print("oracle self-test: bash not found, argv comparison skipped")
        return 0
    checked = 0
    for text, _tool, _cwd in rows:
        c = oracle.claims(text, project, project)
        if c or c.stopped or len(c.segments) != 1:
            continue
        seg = c.segments[0]
        if seg.redirects or len(seg.words) < 2 or any(w.expanded for w in seg.words):
            continue
        first = seg.words[0]
        raw = first.rawtext()
        if first.quoted or not text[first.start:].startswith(raw):
            continue
        script = text[:first.start] + "printf '%s\\0' " + text[first.start + len(raw):]
        try:
            out = subprocess.run([bash, "--norc", "--noprofile", "-c", script], cwd=project,
                                 capture_output=True, timeout=10,
                                 env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                                      "HOME": project}).stdout
        except (subprocess.TimeoutExpired, ValueError):
            continue
        want = [w.text().encode("utf-8", "surrogateescape") for w in seg.words[1:]]
        got = out.split(b"\0")[:-1]
        if got != want:
            errors.append(f"argv of {text!r}: bash {got!r}, oracle {want!r}")
        checked += 1
    return checked


if __name__ == "__main__":
    sys.exit(main())
