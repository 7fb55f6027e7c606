"""printenv NAME (checks/tools.py printenv; the catalogue's public_names): generated lists of
variable names. Every name a place or a setting (PATH, HOME, LC_ALL, VIRTUAL_ENV ...) is
allowed, in plan mode too; one other name among them (a token, a URL that may carry a
password, a case variant, a glob-looking word), an unknown option, or no name at all (every
variable) asks. Also proven in real bash: `printenv PATH` prints PATH's value only."""

import os
import subprocess

from hypothesis import given
from hypothesis import strategies as st

from gateway.decision import ALLOW, ASK
from tests.property.conftest import budget
from tests.property.support import tick

PUBLIC = ["PATH", "HOME", "USER", "SHELL", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "VIRTUAL_ENV",
          "PYTHONPATH", "DJANGO_SETTINGS_MODULE", "NODE_ENV", "GOPATH", "GOROOT", "JAVA_HOME",
          "CARGO_HOME", "XDG_CONFIG_HOME", "TMPDIR"]
PRIVATE = ["GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "DATABASE_URL", "NPM_TOKEN", "API_KEY",
           "GOPROXY", "PIP_INDEX_URL", "OPENAI_API_KEY", "SECRET_KEY", "path", "Path", "PATH2",
           "XDG_TOKEN", "HOME_TOKEN", "LC", "*", "P*", "CARGO_REGISTRY_TOKEN",
           "GOOGLE_API_KEY", "VITE_API_KEY"]


def _v(policy, project, command, mode):
    from gateway.validator.pipeline import validate

    return validate(command, project, project, policy, mode=mode)


@budget(60)
@given(names=st.lists(st.sampled_from(PUBLIC), min_size=1, max_size=4),
       null=st.booleans(), mode=st.sampled_from(["default", "acceptEdits", "plan"]))
def test_public_names_print(policy, project, names, null, mode):
    tick("printenv:public")
    cmd = "printenv " + ("-0 " if null else "") + " ".join(names)
    v = _v(policy, project, cmd, mode)
    assert (v.decision, v.code) == (ALLOW, "GW700"), (cmd, v.code, v.message)


@budget(60)
@given(names=st.lists(st.sampled_from(PUBLIC), max_size=3), bad=st.sampled_from(PRIVATE),
       at=st.integers(0, 3), mode=st.sampled_from(["default", "acceptEdits", "plan"]))
def test_any_other_name_asks(policy, project, names, bad, at, mode):
    tick("printenv:private")
    names.insert(min(at, len(names)), bad)
    cmd = "printenv " + " ".join(f"'{n}'" for n in names)
    v = _v(policy, project, cmd, mode)
    assert v.decision is ASK, (cmd, v.code, v.message)
    assert v.code == "GW704", (cmd, v.code, v.message)


def test_every_variable_and_unknown_options_ask(policy, project):
    for cmd in ("printenv", "printenv -0", "printenv --bogus PATH", "printenv -x PATH",
                "env", "env | grep -i token", "printenv $VAR", "printenv PATH > /tmp/x"):
        v = _v(policy, project, cmd, "acceptEdits")
        assert v.decision is ASK, (cmd, v.code, v.message)


def test_printenv_prints_only_the_named_variable(tmp_path):
    # the effect the allow relies on, in real bash
    env = {"PATH": os.environ["PATH"], "GITHUB_TOKEN": "ghp_secretvalue", "HOME": str(tmp_path)}
    out = subprocess.run(["bash", "-c", "printenv PATH HOME"], env=env, capture_output=True,
                         text=True, check=True).stdout
    assert out.splitlines() == [os.environ["PATH"], str(tmp_path)]
    assert "ghp_" not in out
