"""A contained script is the file the interpreter opens: a directory (python's __main__.py,
node's index.js) or a name node completes (`node scripts/y` runs scripts/y.js) is another
file, which may lead out of the project, so it asks (GW601); a name that does not exist at
all only makes the interpreter fail."""

import os

import pytest
from helpers import commit_paths

from gateway.settings import SettingsRules
from gateway.validator.pipeline import validate


@pytest.fixture()
def proj(tmp_path):
    root = os.path.realpath(str(tmp_path / "proj"))
    os.makedirs(os.path.join(root, "scripts", "d2"))
    outside = str(tmp_path / "outside.js")
    open(outside, "w").close()
    os.symlink(outside, os.path.join(root, "scripts", "y.js"))
    os.symlink(outside, os.path.join(root, "scripts", "d2", "__main__.py"))
    with open(os.path.join(root, "scripts", "ok.py"), "w") as fh:
        fh.write("print(1)\n")
    commit_paths(root, ["scripts/ok.py"])  # code a human has seen (trusted_code)
    return root


@pytest.mark.parametrize("command,expected", [
    ("node scripts/y", ("ASK", "GW601")), ("python3 scripts/d2", ("ASK", "GW601")),
    ("node scripts/y.js", ("ASK", "GW502")), ("python3 scripts/ok.py", ("ALLOW", "GW600")),
    ("python3 scripts/missing.py", ("ALLOW", "GW600")),
])
def test_the_script_the_interpreter_opens(policy, proj, command, expected):
    v = validate(command, proj, proj, policy, "Bash", SettingsRules(), None)
    assert (v.decision.name, v.code) == expected, v.message
