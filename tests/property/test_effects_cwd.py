"""The guards' effects analyzer against real bash: for generated scripts that move around
(cd, pushd, popd, cd -, through a symbolic link, into directories that do not exist) and
write files between the moves, joined by every list operator, every file bash really creates
is among the places the analyzer says the script may write -- or the analyzer says it cannot
know the directory. This is the property the implementer's owns check (GW803) stands on."""

import os
import shutil
import subprocess

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from gateway.effects.analysis import analyze
from tests.property.conftest import budget
from tests.property.support import tick

BASH = shutil.which("bash")

DIRS = ["a", "b", "a/c", "..", "../b", "link", "link/..", "nope", "a/../b", ".", "/x"]
MOVES = [f"cd {d}" for d in DIRS] + [f"pushd {d}" for d in DIRS[:6]] + [
    "popd", "cd -", "cd -P link", "cd -P link/..", "pushd -n a", "builtin cd a",
    "command cd b", "cd a | cat", "! cd nope", "! cd b", "(cd a)", "cd", "cd -Pe ..",
] + ["popd", "cd -", "pushd ..", "pushd b", "! cd nope"] * 3  # the ones with history
WRITES = ["touch f{n}", "echo x > f{n}", "mkdir -p d{n}", "cp /dev/null f{n}",
          "echo x > a/f{n}", "touch ../f{n}"]
OPERATORS = [" && "] * 12 + ["; ", " || ", "\n"]


@st.composite
def scripts(draw):
    n = draw(st.integers(1, 5))
    parts = []
    for i in range(n):
        if draw(st.booleans()):
            parts.append(draw(st.sampled_from(MOVES)))
        parts.append(draw(st.sampled_from(WRITES)).format(n=i))
    text = parts[0]
    for p in parts[1:]:
        text += draw(st.sampled_from(OPERATORS)) + p
    return text


def _tree(root):
    """root/top/{a/c, b, link -> b}; the script runs in top (.. is root, /x does not exist)."""
    top = os.path.join(root, "top")
    os.makedirs(os.path.join(top, "a", "c"))
    os.makedirs(os.path.join(top, "b"))
    os.symlink("b", os.path.join(top, "link"))
    return top


def _files(root):
    out = set()
    for d, dirs, files in os.walk(root):
        for name in files + [x for x in dirs if not os.listdir(os.path.join(d, x))]:
            out.add(os.path.join(d, name))
    return out


@pytest.mark.skipif(BASH is None, reason="needs bash")
@budget(300)
@given(script=scripts())
@example(script="! cd nope && touch f0")
@example(script="pushd b && pushd .. && popd && touch f0")
@example(script="cd b && cd .. && cd - && touch f0")
@example(script="cd -P link/.. && touch f0")
@example(script="pushd -n b && popd && touch f0")
@example(script="cd b | cat && touch f0")
def test_the_analyzer_covers_where_bash_writes(tmp_path_factory, script):
    root = os.path.realpath(str(tmp_path_factory.mktemp("cwd")))
    top = _tree(root)
    cwd = top
    before = _files(root)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.path.join(top, "b"),
           "LANG": "C"}
    subprocess.run([BASH, "--norc", "--noprofile", "-c", script], cwd=cwd, env=env,
                   capture_output=True, timeout=10)
    created = {os.path.realpath(p) for p in _files(root) - before}
    eff = analyze(script, cwd, home=os.path.join(top, "b"))
    if eff.unresolved or any(not w.paths for w in eff.writes):
        tick("effects: writes vs bash (directory unknown)")
        return  # the directory is unknown: the implementer is refused
    tick("effects: writes vs bash (checked)")
    named = set()
    for w in eff.writes:
        for p in w.paths:
            named.add(p)
            named.add(os.path.realpath(p))
    missed = {p for p in created if p not in named
              and not any(p.startswith(t + "/") for t in named)}  # mkdir -p d: its parents
    assert not missed, (script, sorted(missed), [(w.target, w.paths) for w in eff.writes])
