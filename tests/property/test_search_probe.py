"""Searches that reach secrets (issue 13: "ask the tool itself"): the gateway runs the same
search on the secret files the walk reaches and asks only when it lists one of them
(gateway/validator/searchprobe.py).

Each example builds a sandbox project (a git repository with tracked and ignored secrets and
ordinary files, each holding random lines from a small vocabulary), draws a search: grep -r,
rg or git grep, with random patterns (-e, a patterns file, a positional) and matching options
(-i -w -x -F -E -v, rg's -s/-S/-U, context and output options, filters), runs the REAL command
in bash in the sandbox, with every file name printed before a NUL, and takes the output as
the oracle: a content line printed after a secret's name is a secret's line printed.
Whenever that happens, the gateway must not allow the command; whenever it allows, the
output holds no line of a secret. Both directions are counted, so a run that never allows
(or never leaks) shows in the statistics.
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
ENV_PATH = f"{os.path.dirname(RG)}:/usr/bin:/bin"

#: the vocabulary of lines: upper and lower case, regex metacharacters, words and parts of
#: words, a non-ASCII letter, a line that is only a number
WORDS = ["API_KEY=sk-live-0000", "api_key", "TODO fix", "todo", "BEGIN PRIVATE KEY",
         "token: abc", "a.c", "abc", "x*y", "(paren)", "Café", "café", "42", "KEY", "KEYS",
         "", "end"]
PATTERNS = ["API", "api", "KEY", "KEY=", "a.c", "x*y", "x\\*y", "(paren)", "\\(paren\\)",
            "^TODO", "fix$", "[0-9]+", "Café", "caf.", "BEGIN|TODO", "KEYS?", "nomatch", "e",
            "^$", "token"]
#: (path, secret?, tracked?)
FILES = [("src/app.py", False, True), ("notes.txt", False, True), (".env", True, False),
         ("config/.env.production", True, True), ("deploy/key.pem", True, True),
         ("sub/id_rsa", True, False), ("docs/a.md", False, True), ("sub/b.txt", False, False)]


@st.composite
def sandbox(draw):
    contents = {}
    for path, _secret, _tracked in FILES:
        lines = draw(st.lists(st.sampled_from(WORDS), min_size=0, max_size=4))
        contents[path] = "".join(line + "\n" for line in lines)
    return contents


def _build(root, contents):
    for path, text in contents.items():
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as fh:
            fh.write(text)
    with open(os.path.join(root, ".gitignore"), "w") as fh:
        fh.write(".env\nsub/id_rsa\npats.txt\n")
    env = {"PATH": ENV_PATH, "HOME": root, "GIT_CONFIG_NOSYSTEM": "1"}
    tracked = [p for p, _s, t in FILES if t] + [".gitignore"]
    for args in (["init", "-q"], ["add", "-f", *tracked],
                 ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def _q(word):
    return "'" + word.replace("'", "'\\''") + "'"


@st.composite
def search(draw):
    tool = draw(st.sampled_from(["grep", "grep", "rg", "rg", "git grep", "git grep"]))
    matching = {"grep": ["-i", "-w", "-x", "-F", "-E", "-v", "-n", "-c", "-l", "-o", "-A1",
                         "-h", "-s", "--include='*.py'", "--exclude='.env*'",
                         "--exclude='*.pem'", "-a", "-I", "-y"],
                "rg": ["-i", "-s", "-S", "-w", "-x", "-F", "-v", "-n", "-c", "-l", "-o",
                       "-A1", "-U", "--hidden", "-uu", "-g '!*.pem'", "-g '*.py'",
                       "--no-ignore", "-a", "--passthru"],
                "git grep": ["-i", "-w", "-F", "-E", "-v", "-n", "-c", "-l", "-o", "-A1",
                             "--cached", "-h", "--untracked", "--no-index"]}[tool]
    opts = draw(st.lists(st.sampled_from(matching), max_size=4, unique=True))
    pats = draw(st.lists(st.sampled_from(PATTERNS), min_size=1, max_size=3))
    form = draw(st.sampled_from(["positional", "-e", "-f"]))
    words = [tool]
    if tool == "grep":
        words.append(draw(st.sampled_from(["-r", "-R", "-rn"])))
    words += opts
    patfile = None
    if form == "positional":
        words.append(_q(pats[0]))
    elif form == "-e":
        for p in pats:
            words += ["-e", _q(p)]
    else:
        patfile = "".join(p + "\n" for p in pats)
        words += ["-f", "pats.txt"]
    if tool == "grep":
        words.append(draw(st.sampled_from([".", "config", "deploy sub", "."])))
    # every file name before a NUL: the oracle reads whose lines were printed
    # (grep's --null: its -Z is ugrep's --fuzzy in the client's grep, which asks)
    tail = {"grep": ["--null", "-H"], "rg": ["--null", "-H", "--no-heading"],
            "git grep": ["-z"]}[tool]
    if tool == "git grep":
        words[2:2] = tail
    else:
        words[1:1] = tail
    return " ".join(words), patfile, opts


def _leaked(output, opts, tool):
    """The secrets a content line of which the output holds."""
    if set(opts) & {"-c", "-l"}:
        return set()  # names and counts only
    secrets = {p for p, s, _t in FILES if s}
    out = set()
    for record in output.split(b"\n"):
        if b"\0" not in record:
            continue  # "Binary file x matches", a separator
        name, _content = record.split(b"\0", 1)
        name = os.path.normpath(os.fsdecode(name).split(":")[-1])
        if name in secrets:
            out.add(name)
    return out


@pytest.mark.skipif(not os.path.exists(RG), reason="ripgrep is not installed")
@budget(150)
@given(contents=sandbox(), drawn=search())
def test_a_search_is_allowed_only_when_it_prints_no_line_of_a_secret(policy, contents, drawn):
    tick("search probe: grep, rg, git grep against the real tools")
    cmd, patfile, opts = drawn
    root = os.path.realpath(tempfile.mkdtemp(prefix="gw-probe-"))
    try:
        _build(root, contents)
        if patfile is not None:
            with open(os.path.join(root, "pats.txt"), "w", encoding="utf-8") as fh:
                fh.write(patfile)
        env = {"PATH": ENV_PATH, "HOME": root, "LC_ALL": "C.UTF-8", "GIT_CONFIG_NOSYSTEM": "1"}
        real = subprocess.run(["bash", "-c", cmd], cwd=root, capture_output=True, timeout=20,
                              env=env, stdin=subprocess.DEVNULL)
        leaked = _leaked(real.stdout, opts, cmd.split()[0])
        from gateway.settings import SettingsRules
        from gateway.validator.pipeline import validate

        v = validate(cmd, root, root, policy, "Bash", SettingsRules(), env=env)
        if leaked:
            tick("search probe: (the real search printed a secret's line)")
        if v.decision is ALLOW:
            tick("search probe: (allowed)")
        if leaked:
            assert v.decision is not ALLOW, (
                f"{cmd!r} with {contents!r}: the real search printed lines of {leaked}, the "
                f"gateway says {show(v)}")
            assert v.code in ("GW503", "GW506", "GW509"), show(v)
    finally:
        shutil.rmtree(root, ignore_errors=True)
