"""Property: no read of a secret gets past the PreToolUse hook unasked, by any tool.

Claude Code runs read-only commands and in-project reads by itself, so the PreToolUse hook
is where every read of a secret must be stopped (issue: "every never must hold in the real
client"). The generators build commands that certainly read a secret, in the forms bash
accepts: every reader of the catalogue and beyond, the secret named as written, through
./ and .., through a symlink, after a cd, as an input redirection, inside pipelines and
lists, spelled with every quoting style; and recursive readers over trees that hold one.
The hook must answer ask (or deny) for each, in every permission mode, with early allow on.
"""

import os
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.property.conftest import budget
from tests.property.strategies import spell

MODES = ("default", "acceptEdits", "plan", "auto", "dontAsk", "bypassPermissions", None)

#: (relative path as typed, directory to cd into first or None). Each names a secret of the
#: sample project (tests/helpers.py): .env, config/.env.production, keys/server.pem, and
#: notes.txt (a symlink to .env).
SECRETS = [(".env", None), ("./.env", None), ("src/../.env", None), ("notes.txt", None),
           ("config/.env.production", None), (".env.production", "config"),
           ("../.env", "src"), ("keys/server.pem", None), ("server.pem", "keys"),
           ("./keys//server.pem", None)]

#: Readers that print (or copy) the contents of the file they are given: `{}` is the path.
READERS = ["cat {}", "cat -n {}", "head {}", "head -n 1 {}", "tail -n 2 {}", "less {}",
           "more {}", "sort {}", "uniq {}", "nl {}", "od -c {}", "xxd {}", "base64 {}",
           "strings {}", "tac {}", "rev {}", "cut -c1- {}", "wc -c {}", "grep -h SECRET {}",
           "grep -e x -- {}", "awk 1 {}", "sed -n p {}", "diff {} /dev/null", "cmp {} a.txt",
           "cp {} leak.txt", "ln -s {} leak", "jq . {}", "python3 scripts/foo.py {}",
           "git diff --no-index {} a.txt", "cat < {}", "tr a b < {}", "file {}",
           "perl -ne print {}", "python3 -c 'print(1)' {}", "bash -c 'cat \"$0\"' {}",
           "vim {}", "nano {}", "iconv -f utf8 {}", "hexdump -C {}", "column {}"]

#: Recursive readers over a directory (`{}`), with the trees where they reach a secret. The
#: secrets below the project: .env and config/.env.production (hidden: ripgrep skips them
#: unless --hidden, -uu or a glob that matches them) and keys/server.pem.
_ALL = (".", "./", "src/..", "config", "config/", "keys")
_VISIBLE = (".", "./", "src/..", "keys")  # what ripgrep reads with no option
WALKERS = [
    ("grep -r SECRET {}", _ALL), ("grep -R SECRET {}", _ALL), ("grep -rl SECRET {}", _ALL),
    ("grep --recursive SECRET {}", _ALL),
    ("grep -r --include=*.production SECRET {}", (".", "config")),
    ("grep -r --exclude=.env* --include=.env* SECRET {}", (".", "config")),  # last wins
    ("grep -r --include=*.py --include=*.pem SECRET {}", (".", "keys")),
    ("rg SECRET {}", _VISIBLE), ("rg --hidden SECRET {}", _ALL), ("rg -uu SECRET {}", _ALL),
    ("rg -. SECRET {}", _ALL),
    ("rg -g '*.production' SECRET {}", (".", "config")),  # a glob overrides the hidden rule
    ("rg -g '.env*' SECRET {}", (".", "config")), ("rg --iglob '*.PEM' SECRET {}", (".", "keys")),
    ("rg -g '!*.py' --hidden SECRET {}", _ALL), ("rg -g 'config/*' SECRET {}", (".",)),
    ("diff -r {} src", _ALL), ("cp -r {} backup", _ALL), ("tar cf - {}", _ALL),
    ("zip -r x.zip {}", _ALL), ("find {} -type f -exec cat {{}} +", _ALL),
]
CASES = [(w, t) for w, trees in WALKERS for t in trees]


def _spelled(template, path, rng):
    return template.format(spell(path, rng))


def _wrap(command, cd, rng):
    """The command in one of the shapes agents write around a read."""
    if cd:
        command = f"cd {cd} && {command}"
    shape = rng.randrange(6)
    if shape == 1:
        command = f"{command} | head -5"
    elif shape == 2:
        command = f"ls && {command}"
    elif shape == 3:
        command = f"{command} 2>/dev/null"
    elif shape == 4:
        command = f"echo start; {command}"
    return command


@pytest.fixture(scope="module")
def hook(pproject, tmp_path_factory):
    from gateway.runtime import evaluate_guards as evaluate

    home = tmp_path_factory.mktemp("exposure-home")
    env = dict(os.environ, HOME=str(home), GATEWAY_EARLY_ALLOW="1")
    env.pop("CLAUDE_PROJECT_DIR", None)

    def _hook(tool, tool_input, mode):
        data = {"session_id": "s-1", "cwd": pproject, "hook_event_name": "PreToolUse",
                "tool_name": tool, "tool_input": tool_input, "tool_use_id": "t"}
        if mode is not None:
            data["permission_mode"] = mode
        return evaluate(data, env, record=False)

    return _hook


def _stopped(v):
    return str(v.decision) in ("ask", "deny") and v.code != "GW800"


@budget(300)
@given(reader=st.sampled_from(READERS), secret=st.sampled_from(SECRETS),
       mode=st.sampled_from(MODES), seed=st.integers(0, 2**32 - 1))
def test_a_read_of_a_secret_is_never_let_through(hook, reader, secret, mode, seed):
    rng = random.Random(seed) if seed % 4 else None
    path, cd = secret
    command = _wrap(_spelled(reader, path, rng), cd, rng or random.Random(seed))
    v = hook("Bash", {"command": command}, mode)
    assert _stopped(v), (command, mode, v.decision, v.code, v.message)


@budget(200)
@given(case=st.sampled_from(CASES), mode=st.sampled_from(MODES),
       seed=st.integers(0, 2**32 - 1))
def test_a_walk_through_a_tree_with_a_secret_is_never_let_through(hook, case, mode, seed):
    walker, tree = case
    rng = random.Random(seed) if seed % 4 else None
    command = _wrap(_spelled(walker, tree, rng), None, rng or random.Random(seed))
    v = hook("Bash", {"command": command}, mode)
    assert _stopped(v), (command, mode, v.decision, v.code, v.message)


@budget(100)
@given(secret=st.sampled_from(SECRETS), mode=st.sampled_from(MODES),
       tool=st.sampled_from(["Read", "Grep", "mcp__fs__read_text_file", "mcp__fs__grep"]))
def test_file_tools_never_read_a_secret_unasked(hook, pproject, secret, mode, tool):
    path, cd = secret
    full = os.path.normpath(os.path.join(pproject, cd or "", path)) if tool != "Read" or \
        "/../" not in path else os.path.join(pproject, cd or "", path)
    key = {"Read": "file_path", "Grep": "path"}.get(tool, "path")
    ti = {key: full}
    if tool == "Grep":
        ti["pattern"] = "SECRET"
    v = hook(tool, ti, mode)
    assert _stopped(v) and str(v.decision) == "ask", (tool, ti, mode, v.code, v.message)


@budget(60)
@given(tree=st.sampled_from([".", "config", "keys"]), mode=st.sampled_from(MODES),
       glob=st.sampled_from([None, "*", "*.production", ".env*", "*.pem", "**/*", "{*.pem,x}",
                             "!*.py", "config/*"]),
       type_=st.sampled_from([None, "yaml", "sh", "unknown-type"]))
def test_grep_over_a_tree_with_a_secret_asks_unless_its_filter_excludes_it(
        hook, pproject, tree, mode, glob, type_):
    """Only filters the model reproduces exactly narrow the walk (plain base-name globs,
    known types); a filter that excludes the secret for certain lets it pass."""
    ti = {"pattern": "SECRET", "path": os.path.join(pproject, tree)}
    if glob is not None:
        ti["glob"] = glob
    if type_ is not None:
        ti["type"] = type_
    v = hook("Grep", ti, mode)
    # the oracle: the secrets below each tree (base names), and what each filter selects
    # where ripgrep's meaning is modelled; anything else selects everything
    below = {".": {".env", ".env.production", "server.pem"}, "config": {".env.production"},
             "keys": {"server.pem"}}[tree]
    by_glob = {None: below, "*": below, "*.production": below & {".env.production"},
               ".env*": below & {".env", ".env.production"}, "*.pem": below & {"server.pem"}}
    chosen = by_glob.get(glob, below)
    if type_ == "yaml":
        chosen = chosen & set() if glob is None else below
    elif type_ is not None:
        chosen = below
    if chosen:
        assert _stopped(v), (ti, mode, v.code, v.message)
    else:
        assert v.code == "GW800", (ti, v.code, v.message)


# --- the PreToolUse hook judges an allowed command once ---------------------------------------

def _table_commands():
    """Every command of the data tables (tests/data/cases/*.tsv): allows and asks alike."""
    import glob

    from tests.helpers import decode

    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = []
    for path in sorted(glob.glob(os.path.join(here, "data", "cases", "*.tsv"))):
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("#") or not line.strip():
                    continue
                out.append(decode(line.split("\t", 1)[0]))
    return out


def test_an_allow_is_never_a_read_of_a_secret(pjudge, pproject):
    """gateway/guards/engine.py asks the validator once for an allowed command: an allow (in
    any mode) must imply that every file the command reads is known and none is a secret,
    i.e. the exposure judgement allows it too. Checked on every table command and mode."""
    from gateway.validator.pipeline import validate
    from tests.property.support import STATS

    checked = 0
    for command in _table_commands():
        filled = command.replace("{PROJECT}", pproject)
        for mode in (None, "acceptEdits"):  # plan allows a subset of default's
            v = pjudge(filled, mode=mode)
            if str(v.decision) != "allow":
                continue
            e = validate(filled, pproject, pproject, pjudge.policy, "Bash", pjudge.settings,
                         exposure=True, home=os.environ.get("HOME"))
            assert str(e.decision) == "allow", (filled, mode, e.code, e.message)
            checked += 1
    STATS["cases"]["allow implies no secret read"] += checked
    assert checked > 300, checked


def test_the_exposure_judgement_never_fails_on_a_table_command(pjudge, pproject):
    """Reproducer (found by the fuzz smoke run): `Rm x` in exposure mode hit an internal
    error (a case-mismatched catalogued command skipped ALWAYS_ASK and fell through)."""
    from gateway.validator.pipeline import validate

    for command in _table_commands():
        filled = command.replace("{PROJECT}", pproject)
        e = validate(filled, pproject, pproject, pjudge.policy, "Bash", pjudge.settings,
                     exposure=True, home=os.environ.get("HOME"))
        assert e.code != "GW902", (filled, e.message)
