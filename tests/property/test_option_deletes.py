"""Red team 2, class 7 (deny rules that see only literals): options whose directory the tool
deletes before it starts. `pytest --basetemp=$HOME` (with a test that uses tmp_path),
`python3 -m venv --clear ~`, `cargo clean --target-dir ~` and `git --work-tree=$HOME clean
-fdx` each removed a home directory in a sandbox while both hooks only asked.

The value words are generated from the spellings bash offers (glued or separate, long-option
abbreviations, parameter expansions, quotes), and REAL bash prints what each value becomes
with the test's $HOME: the home directory or the root must be denied (GW750); a directory
below them must not be.
"""

import os
import subprocess
import tempfile

from hypothesis import assume, given
from hypothesis import strategies as st

from gateway.decision import DENY
from tests.property.conftest import budget
from tests.property.support import show, tick

VALUES = ["~", "$HOME", "${HOME}", '"$HOME"', '"${HOME:?}"', "${HOME%/}", "/", "//", "$HOME/",
          "~/", "$HOME/build", "~/x", "build", "/tmp/gw-x"]
#: (command before the value, option spellings that take it, command after)
TOOLS = [("pytest", ["--basetemp", "--basetem", "--basetemp="], "tests"),
         ("python3 -m pytest -q", ["--basetemp", "--basetemp="], ""),
         ("cargo clean", ["--target-dir", "--target-dir="], ""),
         ("git", ["--work-tree", "--work-tree="], "clean -fdx"),
         ("python3 -m venv --clear", [""], ""),
         ("virtualenv --clear", [""], "")]


def _bash_value(word, home):
    out = subprocess.run(["bash", "-c", f"printf '%s\\0' {word}"], capture_output=True,
                         timeout=10, env={"PATH": "/usr/bin:/bin", "HOME": home},
                         cwd=tempfile.gettempdir())
    vals = [v for v in out.stdout.decode().split("\0") if v]
    return vals if out.returncode == 0 and len(vals) == 1 else None


@budget(150)
@given(tool=st.sampled_from(TOOLS), data=st.data(), value=st.sampled_from(VALUES))
def test_options_that_delete_their_directory(policy, tool, data, value):
    tick("option deletes: spellings against bash")
    from gateway.validator.pipeline import validate

    head, opts, tail = tool
    opt = data.draw(st.sampled_from(opts))
    if opt.endswith("="):
        assume(not value.startswith("~"))  # bash does not expand ~ after = in an argument
        word = opt + value
        shown = value
    else:
        word = f"{opt} {value}".strip()
        shown = value
    home = os.environ["HOME"].rstrip("/")
    vals = _bash_value(shown, home)
    assume(vals is not None)
    target = "/" + os.path.normpath(vals[0]).lstrip("/") if vals[0].startswith("/") else None
    cmd = f"{head} {word} {tail}".strip()
    v = validate(cmd, "/tmp", "/tmp", policy, deny_only=True)
    if target in (home, "/"):
        tick("option deletes: (home or root)")
        assert v.decision is DENY and v.code == "GW750", f"{cmd!r} deletes {target}: {show(v)}"
    else:
        assert v.decision is not DENY, f"{cmd!r} deletes {vals[0]!r} only: {show(v)}"
