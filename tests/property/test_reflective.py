"""Class 4 (issue 13), reflective program languages: awk and jq programs against the real
interpreters.

The generators compose programs from everyday statements and, in some examples, one way of
reaching what the gateway must keep out of reach: the environment (a canary variable),
another file (a canary file) or a command (a marker file it creates), spelled the many ways
the languages allow (gawk's SYMTAB with the name computed from pieces, ARGV through SYMTAB,
indirect calls, getline, pipes, redirections; jq's env and $ENV through scopes, definitions
and string interpolation). Each program is run by the REAL gawk or jq in a sandbox: when it
printed a canary or created the marker, the gateway must not allow the command. Programs of
the everyday statements alone must be allowed (the safe subset is usable).
"""

import os
import shlex
import shutil
import subprocess
import tempfile

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gateway.decision import ALLOW
from tests.property.conftest import budget
from tests.property.support import show, tick

GAWK = shutil.which("gawk")
JQ = shutil.which("jq")
CANARY_ENV = "canaryENV7731"
CANARY_FILE = "canaryFILE4417"

AWK_SAFE = ["print $1", "n++", "s += $2", "x = length($0)", "if (NR > 1) print NF",
            "a[$1] = $2", 'printf "%s\\n", $0', 'sub(/a/, "b")', "y = toupper($1)",
            "for (k in a) print k, a[k]", "m = (m > $2) ? m : $2", 'split($0, p, ",")',
            "print NR \": \" $0", "c = c + 1; print c", 'print substr($0, 1, 3)']


def _split(word, cut):
    cut = max(1, min(len(word) - 1, cut))
    return f'"{word[:cut]}" "{word[cut:]}"'


@st.composite
def awk_payload(draw):
    cut = draw(st.integers(1, 6))
    env = _split("ENVIRON", cut)
    argv = _split("ARGV", min(cut, 3))
    argc = _split("ARGC", min(cut, 3))
    return draw(st.sampled_from([
        f'print ENVIRON["{CANARY_ENV[:0]}CANARY"]',
        f'print SYMTAB[{env}]["CANARY"]',
        f'k = {env}; print SYMTAB[k]["CANARY"]',
        f'for (v in SYMTAB[{env}]) print SYMTAB[{env}][v]',
        f'SYMTAB[{argv}][1] = "canary.txt"; SYMTAB[{argc}] = 2',
        'ARGV[1] = "canary.txt"; ARGC = 2',
        'while ((getline line < "canary.txt") > 0) print line',
        '"cat canary.txt" | getline x; print x',
        'system("touch marker")',
        f'f = {_split("system", cut)}; @f("touch marker")',
        'print "x" > "marker"',
        'print "touch marker" | "sh"',
        'printf "x" >> "marker"',
        'print awk::ENVIRON["CANARY"]',
        'print PROCINFO["argv"][0] > "marker"',
    ]))


@st.composite
def awk_program(draw, payload):
    stmts = draw(st.lists(st.sampled_from(AWK_SAFE), min_size=1, max_size=3))
    where = draw(st.sampled_from(["BEGIN", "main", "END"]))
    blocks = {"BEGIN": [], "main": list(stmts), "END": []}
    if payload is not None:
        blocks[where].append(payload)
    sep = draw(st.sampled_from(["; ", "\n", ";\n  "]))
    parts = []
    for name in ("BEGIN", "main", "END"):
        if blocks[name]:
            head = "" if name == "main" else name + " "
            parts.append(head + "{ " + sep.join(blocks[name]) + " }")
    return "\n".join(parts) if draw(st.booleans()) else " ".join(parts)


def _sandbox():
    d = tempfile.mkdtemp(prefix="gw-reflective-")
    with open(os.path.join(d, "data.txt"), "w") as fh:
        fh.write("a 1\nb 2\nc 3\n")
    with open(os.path.join(d, "data.json"), "w") as fh:
        fh.write('{"a": 1, "env": "field", "b": [1, 2]}\n')
    with open(os.path.join(d, "canary.txt"), "w") as fh:
        fh.write(CANARY_FILE + "\n")
    return d


def _run(argv, d):
    out = subprocess.run(argv, cwd=d, capture_output=True, timeout=10,
                         env={"PATH": "/usr/bin:/bin", "HOME": d, "CANARY": CANARY_ENV})
    text = out.stdout.decode("utf-8", "replace")
    return (CANARY_ENV in text or CANARY_FILE in text
            or os.path.exists(os.path.join(d, "marker")))


def _judge(policy, command, d):
    from gateway.settings import SettingsRules
    from gateway.validator.pipeline import validate

    return validate(command, d, d, policy, "Bash", SettingsRules())


@pytest.mark.skipif(GAWK is None, reason="gawk is not installed")
@budget(150)
@given(data=st.data(), has_payload=st.booleans())
def test_awk_programs_that_reach_out_are_never_allowed(policy, data, has_payload):
    tick("reflective: awk programs against gawk")
    payload = data.draw(awk_payload()) if has_payload else None
    prog = data.draw(awk_program(payload))
    d = _sandbox()
    try:
        reached = _run([GAWK, prog, "data.txt"], d)
        v = _judge(policy, f"gawk {shlex.quote(prog)} data.txt", d)
        if reached:
            tick("reflective: (awk programs that reached out)")
            assert v.decision is not ALLOW, f"gawk {prog!r} reached out, yet {show(v)}"
        if payload is None:
            assert not reached, prog
            assert v.decision is ALLOW, f"the everyday program {prog!r}: {show(v)}"
    finally:
        shutil.rmtree(d, ignore_errors=True)


JQ_SAFE = [".a", ".env", "{env}", "{a, b}", ".b | length", "[.b[] | . * 2]", ". as $ENV | $ENV.a",
           "def env: 1; env", "to_entries | map(.key)", '"\\(.a)-\\(.env)"', "keys",
           "reduce .b[] as $x (0; . + $x)", "if .a then .b else [] end", "{env: .a}",
           "try .a catch 0"]
JQ_PAYLOADS = ["env.CANARY", "$ENV.CANARY", '"\\(env.CANARY)"', "(1 as $ENV | .), $ENV.CANARY",
               "[env][0].CANARY", "def f: env; f.CANARY", "if true then env.CANARY else 1 end",
               "reduce 1 as $x (env; .CANARY)", "{a: env.CANARY}", "$ENV | .CANARY",
               "label $f | env.CANARY", "(def env: 1; .), env.CANARY",
               "try (1 as $ENV | error) catch $ENV.CANARY", "$ ENV.CANARY", "{$ENV} | .ENV.CANARY",
               "if false then def env: 1; env else env.CANARY end", "def g(env): env; env.CANARY",
               "reduce 1 as $ENV (0; .), $ENV.CANARY"]


@pytest.mark.skipif(JQ is None, reason="jq is not installed")
@budget(150)
@given(safe=st.lists(st.sampled_from(JQ_SAFE), min_size=1, max_size=3),
       payload=st.none() | st.sampled_from(JQ_PAYLOADS), joiner=st.sampled_from([", ", " | ", "; "]),
       position=st.integers(0, 3))
def test_jq_programs_that_read_the_environment_are_never_allowed(policy, safe, payload, joiner,
                                                                  position):
    tick("reflective: jq programs against jq")
    joiner = ", " if joiner == "; " else joiner
    parts = list(safe)
    if payload is not None:
        parts.insert(min(position, len(parts)), "(" + payload + ")")
    prog = joiner.join("(" + p + ")" for p in parts)
    d = _sandbox()
    try:
        reached = _run([JQ, prog, "data.json"], d)
        v = _judge(policy, f"jq {shlex.quote(prog)} data.json", d)
        if reached:
            tick("reflective: (jq programs that read the environment)")
            assert v.decision is not ALLOW, f"jq {prog!r} printed the canary, yet {show(v)}"
        if payload is None:
            assert v.decision is ALLOW, f"the everyday program {prog!r}: {show(v)}"
    finally:
        shutil.rmtree(d, ignore_errors=True)
