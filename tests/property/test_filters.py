"""Class 3 (issue 13), filter semantics: grep's and ripgrep's include/exclude rules, glob
overrides, types and ignore files against the real tools.

Each example builds a small tree (visible and hidden files and directories, secrets among
them, ignore files with `!` rules), draws a grep or rg command with a random sequence of
filter options, runs the REAL tool in the tree (GNU grep, the client's ripgrep 14.1.1) with
`-l` on a marker every file holds, and takes the files it printed as the oracle of what the
command reads. Whenever the tool read a secret, the gateway must not allow the command
(GW506, or an ask for another reason); whenever it allows, no secret was read.
"""

import os
import shutil
import subprocess
import tempfile

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gateway.decision import ALLOW
from tests.property.conftest import budget
from tests.property.support import show, tick

RG = shutil.which("rg") or "/tmp/rgbin/rg"
MARK = "FILTERMARK"

#: files a tree may hold: (path, secret?)
FILES = [("a.py", False), ("b.txt", False), ("notes.md", False), (".env", True),
         (".env.production", True), ("prod.env", True), ("key.pem", True), (".hidden.py", False),
         ("sub/c.py", False), ("sub/.env", True), ("sub/d.PEM", False), (".cfg/x.py", False),
         (".cfg/.npmrc", True), ("sub/deep/e.txt", False), ("sub/deep/id_rsa", True),
         ("Env.PRODUCTION", False), ("café.env", True)]
GLOBS = ["*.py", "*.env", ".env*", "*.pem", "*.PEM", "*.PRODUCTION", "*", ".*", "?ey.pem",
         "*.txt", "e*", "*rc", "id_*", ".env.??????????", "caf?.env", "caf??.env", "*.md"]


def _tree(draw):
    chosen = draw(st.lists(st.sampled_from(FILES), min_size=3, max_size=10, unique=True))
    ignores = draw(st.lists(st.tuples(st.sampled_from(["", "sub/", ".cfg/"]),
                                      st.sampled_from([".ignore", ".rgignore", ".gitignore"]),
                                      st.sampled_from(["!.env", "!.npmrc", "!*.env", "*.py",
                                                       "!.env*", "sub"])),
                            max_size=2))
    return chosen, ignores


def _build(root, files, ignores):
    for rel, _secret in files:
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(MARK + "\n")
    for d, name, line in ignores:
        path = os.path.join(root, d, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(line + "\n")


def _read(cmd, root):
    """The files the real tool printed (relative, normalised)."""
    out = subprocess.run(["bash", "-c", cmd], cwd=root, capture_output=True, timeout=20,
                         env={"PATH": os.path.dirname(RG) + ":/usr/bin:/bin", "HOME": root,
                              "LC_ALL": "C.UTF-8"})
    names = set()
    for line in out.stdout.decode("utf-8", "surrogateescape").splitlines():
        names.add(os.path.normpath(line))
    return names


def _secret(rel, files):
    return dict(files).get(rel, False)


@st.composite
def grep_cmd(draw):
    opts = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["--include", "--exclude", "--exclude-dir", "--incl",
                                     "--exclude-d", "--excl"]))
        glob = draw(st.sampled_from(GLOBS + ["sub", ".cfg", "deep"]))
        opts.append(f"{kind}='{glob}'" if draw(st.booleans()) else f"{kind} '{glob}'")
    rec = draw(st.sampled_from(["-r", "-R", "--recursive", "-d recurse"]))
    return f"grep -l {rec} {' '.join(opts)} {MARK} ."


@st.composite
def rg_cmd(draw):
    opts = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["-g", "--iglob", "-t", "--type-add", "--hidden",
                                     "--glob-case-insensitive", "--no-glob-case-insensitive",
                                     "-u", "--no-ignore", "-T"]))
        if kind in ("-g", "--iglob"):
            glob = draw(st.sampled_from(GLOBS))
            neg = "!" if draw(st.booleans()) else ""
            opts.append(f"{kind} '{neg}{glob}'")
        elif kind in ("-t", "-T"):
            opts.append(f"{kind} {draw(st.sampled_from(['py', 'x', 'md', 'txt']))}")
        elif kind == "--type-add":
            opts.append(f"--type-add 'x:{draw(st.sampled_from(GLOBS))}'")
        else:
            opts.append(kind)
    return f"rg -l {' '.join(opts)} {MARK}"


@pytest.mark.skipif(not os.path.exists(RG), reason="ripgrep is not installed")
@budget(120)
@given(data=st.data(), tool=st.sampled_from(["grep", "rg", "rg"]))
def test_a_filter_never_hides_a_secret_the_tool_reads(policy, data, tool):
    tick("filters: grep and rg against the real tools")
    files, ignores = _tree(data.draw)
    cmd = data.draw(grep_cmd() if tool == "grep" else rg_cmd())
    root = tempfile.mkdtemp(prefix="gw-filters-")
    try:
        _build(root, files, ignores)
        read = _read(cmd, root)
        leaked = sorted(r for r in read if _secret(r, files))
        from gateway.settings import SettingsRules
        from gateway.validator.pipeline import validate

        v = validate(cmd, root, root, policy, "Bash", SettingsRules())
        if leaked:
            tick("filters: (examples where the tool read a secret)")
        if v.decision is ALLOW:
            tick("filters: (examples the gateway allowed)")
        if leaked:
            assert v.decision is not ALLOW, (
                f"{cmd!r} in a tree of {sorted(f for f, _ in files)} with ignore files "
                f"{ignores}: the real {tool} read {leaked}, the gateway says {show(v)}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


@budget(60)
@given(glob=st.sampled_from(GLOBS), name=st.sampled_from([f for f, _ in FILES]),
       fold=st.booleans())
def test_a_glob_filter_reads_a_name_when_any_matching_reads_it(glob, name, fold):
    """Walk.selects: one include glob over one base name is read when the name matches
    as characters or as UTF-8 bytes (`?` is one byte in the C locale)."""
    tick("filters: glob matching as characters and bytes")
    from fnmatch import fnmatchcase

    from gateway.validator.phase5_recursive import Walk

    base = os.path.basename(name)
    walk = Walk(["."], filters=[(True, glob, fold)], default_include=False)
    read, _ = walk.selects(base)
    as_bytes = base.encode().decode("latin-1")
    pattern_bytes = glob.encode().decode("latin-1")
    want = fnmatchcase(base.lower() if fold else base, glob.lower() if fold else glob) or \
        fnmatchcase(as_bytes.lower() if fold else as_bytes,
                    pattern_bytes.lower() if fold else pattern_bytes)
    assert read is want or (read and not want), (glob, base, fold, read, want)
