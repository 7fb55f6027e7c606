"""python -c looks in its working directory first (sys.path[0] is ''): an import the model
allows must not load a file the working directory holds (red team, session 5: an untracked
mymod.py, and a json.py shadowing the standard library, ran on `python3 -c "import ..."`)."""

import subprocess
import sys

import pytest

from gateway.runtime import get_policy
from gateway.settings import SettingsRules
from gateway.validator.pipeline import validate


def _judge(project, command):
    return validate(command, str(project), str(project), get_policy(str(project)), "Bash",
                    SettingsRules(), None)


@pytest.mark.parametrize("shadow", ["mymod.py", "json.py", "json.pyc", "json/__init__.py",
                                    "mymod.cpython-311-x86_64-linux-gnu.so"])
def test_a_module_of_the_working_directory_asks(tmp_path, shadow):
    (tmp_path / "sub").mkdir()
    target = tmp_path / "sub" / shadow
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("open('/tmp/pyc_ran', 'w')\n")
    name = shadow.split(".")[0].split("/")[0]
    code = f"import {name}; print({name}.__file__)"
    v = _judge(tmp_path, f"cd sub && python3 -c '{code}'")
    assert (v.decision.name, v.code) == ("ASK", "GW401"), v.message
    assert "working directory has a module" in v.message
    # and the effect it guards against, in real python: the file beside it is what runs
    if shadow.endswith(".py") and "/" not in shadow:
        out = subprocess.run([sys.executable, "-c", f"import {name}; print({name}.__file__)"],
                             cwd=tmp_path / "sub", capture_output=True, text=True).stdout
        assert str(tmp_path / "sub") in out


def test_without_one_the_import_runs(tmp_path):
    v = _judge(tmp_path, "python3 -c 'import json, sys; print(json.__file__, sys.version)'")
    assert (v.decision.name, v.code) == ("ALLOW", "GW700"), v.message
