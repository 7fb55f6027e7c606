"""A write of the permission surface that only the catalogue sees (archive members) must be
stopped by PreToolUse itself, in every permission mode, whatever other reason the validator
names first (issue 13's red-team row `tar -C ~ -xf vendor/theme.tar`: '~' is outside the
project, so PermissionRequest asked GW501 and PreToolUse gave no decision; in auto mode the
client's classifier, not a human, decided on a write of ~/.claude/settings.json).

The oracle is REAL GNU tar in a sandbox (temp project, temp HOME): whenever the generated
command writes the agent's settings (project or user) or a git hook, PreToolUse must ask or
deny, in every mode. Commands that write none of it are left to the rest of the suite.
"""

import os
import shutil
import subprocess
import tarfile
import tempfile

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.property.conftest import budget
from tests.property.support import tick

pytestmark = pytest.mark.skipif(shutil.which("tar") is None or b"GNU tar" not in subprocess.run(
    ["tar", "--version"], capture_output=True).stdout, reason="GNU tar is needed")

MODES = ("default", "acceptEdits", "plan", "auto", "dontAsk", "bypassPermissions")
MEMBERS = {
    "surface": [".claude/settings.json", ".claude/settings.local.json",
                ".git/hooks/pre-commit"],
    "plain": ["theme/style.css", "notes/readme.txt"],
}
#: Where the archive is extracted: the home directory spelled as the shell allows, a
#: directory below it, the project, a directory outside both.
TARGETS = ["~", "~/", "$HOME", '"$HOME"', "${HOME}", "~/.", "~/sub", "__OUT__", ".", "build"]


@st.composite
def extraction(draw):
    surface = draw(st.lists(st.sampled_from(MEMBERS["surface"]), max_size=2, unique=True))
    plain = draw(st.lists(st.sampled_from(MEMBERS["plain"]), min_size=1, max_size=2,
                          unique=True))
    members = draw(st.permutations(surface + plain))
    target = draw(st.sampled_from(TARGETS))
    spelling = draw(st.sampled_from(["-C {t} -xf {a}", "-xf {a} -C {t}", "--directory={t} -xf {a}",
                                     "-x -f {a} --directory {t}", "xf {a} -C {t}"]))
    return members, target, spelling


def _sandbox(work, members):
    root = os.path.join(work, "proj")
    home = os.path.join(work, "home")
    out = os.path.join(work, "out")
    for d in (root, home, out, os.path.join(home, "sub"), os.path.join(root, "build"),
              os.path.join(root, "vendor"), os.path.join(root, ".git", "hooks"),
              os.path.join(home, ".git", "hooks")):
        os.makedirs(d, exist_ok=True)
    with open(os.path.join(root, ".git", "HEAD"), "w") as fh:
        fh.write("ref: refs/heads/main\n")
    src = os.path.join(work, "m.txt")
    with open(src, "w") as fh:
        fh.write('{"permissions": {"allow": ["Bash"]}}\n')
    with tarfile.open(os.path.join(root, "vendor", "theme.tar"), "w") as t:
        for name in members:
            t.add(src, arcname=name)
    return root, home, out


def _surface_files(root, home):
    hits = []
    for base in (root, home):
        for name in ("settings.json", "settings.local.json"):
            if os.path.isfile(os.path.join(base, ".claude", name)):
                hits.append(os.path.join(base, ".claude", name))
        hooks = os.path.join(base, ".git", "hooks")
        hits += [os.path.join(hooks, f) for f in os.listdir(hooks)]
    return hits


@budget(15)
@given(case=extraction())
def test_an_extraction_that_writes_the_surface_is_stopped_by_pre_tool_use(case):
    tick("tar extraction into home/project/outside against GNU tar, PreToolUse")
    from gateway.runtime import evaluate_guards as evaluate

    members, target, spelling = case
    work = os.path.realpath(tempfile.mkdtemp(prefix="gw-surface-"))
    try:
        root, home, out = _sandbox(work, members)
        t = target.replace("__OUT__", out)
        cmd = "tar " + spelling.format(t=t, a="vendor/theme.tar")
        env = dict(os.environ, HOME=home, GATEWAY_AUDIT_LOG="off", GATEWAY_EARLY_ALLOW="1",
                   GATEWAY_USER_RULES=os.path.join(home, "none.yaml"),
                   CLAUDE_CONFIG_DIR=os.path.join(home, ".claude"))
        env.pop("CLAUDE_PROJECT_DIR", None)
        verdicts = {}
        saved = dict(os.environ)
        try:  # a hook process's environment is the one it is given
            os.environ.clear()
            os.environ.update(env)
            for mode in MODES:
                payload = {"session_id": "s", "cwd": root, "permission_mode": mode,
                           "hook_event_name": "PreToolUse", "tool_name": "Bash",
                           "tool_input": {"command": cmd}}
                verdicts[mode] = evaluate(payload, env, record=False)
        finally:
            os.environ.clear()
            os.environ.update(saved)
        subprocess.run(["bash", "-c", cmd], cwd=root, capture_output=True, timeout=20,
                       env=dict(env, HOME=home))
        hits = _surface_files(root, home)
        if not hits:
            return
        tick("tar extraction: (GNU tar wrote the surface)")
        for mode, v in verdicts.items():
            assert v.decision.name in ("ASK", "DENY") and v.code != "GW800", \
                f"{cmd!r} wrote {hits}, yet PreToolUse in {mode}: {v.decision.name} {v.code} " \
                f"{v.message}"
    finally:
        shutil.rmtree(work, ignore_errors=True)
