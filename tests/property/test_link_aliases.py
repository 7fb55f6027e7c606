"""Red team 2: writable aliases of the permission surface. `cp -al .claude x` (which the client
runs by itself in acceptEdits: an in-project cp) made x/settings.json a hard link to
.claude/settings.json, and `echo ... > x/settings.json` then rewrote the agent's settings: the
second write names no protected path, so a hard link to the surface must be refused when it
is made.

Copies are generated from cp's link options and spellings; REAL cp runs each in a fresh
project, and whenever a file it created shares its inode with a file of the surface
(.claude/settings.json, .claude/hooks/*, .git/hooks/*, .git/config), the PreToolUse hook must
deny the command, in acceptEdits.
"""

import os
import shutil
import subprocess
import tempfile

from hypothesis import given
from hypothesis import strategies as st

from tests.property.conftest import budget
from tests.property.support import tick

SURFACE = {".claude/settings.json": "{}\n", ".claude/hooks/check.sh": "exit 0\n",
           ".git/hooks/pre-commit": "exit 0\n", ".git/config": "[core]\n"}
PLAIN = {"src/app.py": "x = 1\n", "docs/a.md": "a\n", ".claude/CLAUDE.md": "notes\n"}


def _project(root):
    for rel, text in {**SURFACE, **PLAIN}.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as fh:
            fh.write(text)


@st.composite
def copy(draw):
    opts = draw(st.sampled_from(["-al", "-rl", "-Rl", "-r --link", "--archive --link",
                                 "-a -l", "-lr", "-r --li", "-l", "-a", "-r"]))
    src = draw(st.sampled_from([".claude", ".claude/hooks", ".git/hooks", ".git", "src",
                                "docs", ".claude/settings.json", "./.claude", ".claude/"]))
    dest = draw(st.sampled_from(["x", "build/x", "docs/x"]))
    return f"cp {opts} {src} {dest}"


def _aliases_surface(root, cmd):
    os.makedirs(os.path.join(root, "build"), exist_ok=True)
    subprocess.run(["bash", "-c", cmd], cwd=root, capture_output=True, timeout=20)
    surface = {os.stat(os.path.join(root, rel)).st_ino for rel in SURFACE}
    for d, _dirs, files in os.walk(root):
        rel = os.path.relpath(d, root)
        if rel.split(os.sep)[0] in (".claude", ".git"):
            continue  # the originals
        for f in files:
            if os.lstat(os.path.join(d, f)).st_ino in surface:
                return True
    return False


@budget(60)
@given(cmd=copy())
def test_a_copy_that_aliases_the_surface_is_denied(cmd):
    tick("cp link copies against real cp")
    from gateway.runtime import evaluate_guards as evaluate

    work = tempfile.mkdtemp(prefix="gw-alias-")
    try:
        root = os.path.realpath(os.path.join(work, "proj"))
        _project(root)
        payload = {"session_id": "s", "cwd": root, "permission_mode": "acceptEdits",
                   "hook_event_name": "PreToolUse", "tool_name": "Bash",
                   "tool_input": {"command": cmd}}
        env = dict(os.environ, CLAUDE_PROJECT_DIR=root, GATEWAY_AUDIT_LOG="off")
        v = evaluate(payload, env)
        if _aliases_surface(root, cmd):
            tick("cp link copies: (real cp made an alias of the surface)")
            assert str(v.decision) == "deny" and v.code == "GW835", (cmd, v.code, v.message)
    finally:
        shutil.rmtree(work, ignore_errors=True)
