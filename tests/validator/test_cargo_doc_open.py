"""cargo doc --open (issue 13): the documentation opens in the user's browser. The program
that opens it is configuration, judged like cargo's other program settings: $BROWSER and
CARGO_DOC_BROWSER must be a system program, a name on PATH or the project's own, and a
[doc] table in .cargo/config.toml (doc.browser) asks."""

import os

import pytest

from gateway.decision import ALLOW, ASK


@pytest.fixture()
def crate(tmp_path):
    root = os.path.realpath(str(tmp_path / "c"))
    os.makedirs(os.path.join(root, "src"))
    with open(os.path.join(root, "Cargo.toml"), "w") as fh:
        fh.write('[package]\nname = "c"\nversion = "0.1.0"\nedition = "2021"\n')
    with open(os.path.join(root, "Cargo.lock"), "w") as fh:
        fh.write("version = 3\n")
    with open(os.path.join(root, "src", "lib.rs"), "w") as fh:
        fh.write("pub fn f() {}\n")
    return root


def _judge(policy, command, root, env):
    from gateway.settings import SettingsRules
    from gateway.validator.pipeline import validate

    full = {k: v for k, v in os.environ.items() if k not in ("BROWSER", "CARGO_DOC_BROWSER")}
    full.update(env)
    return validate(command, root, root, policy, "Bash", SettingsRules(), env=full)


@pytest.mark.parametrize("env,config,decision,code", [
    ({}, None, ALLOW, "GW700"),
    ({"BROWSER": "firefox"}, None, ALLOW, "GW700"),
    ({"BROWSER": "/usr/bin/firefox"}, None, ALLOW, "GW700"),
    ({"BROWSER": "/tmp/evil"}, None, ASK, "GW761"),
    ({"BROWSER": "sh -c id"}, None, ASK, "GW761"),
    ({"BROWSER": "firefox:/tmp/evil"}, None, ASK, "GW761"),
    ({"CARGO_DOC_BROWSER": "/tmp/evil"}, None, ASK, "GW761"),
    ({}, '[doc]\nbrowser = ["sh", "-c", "id"]\n', ASK, "GW761"),
])
def test_the_program_that_opens_the_documentation_is_judged(policy, crate, env, config,
                                                            decision, code):
    if config is not None:
        os.makedirs(os.path.join(crate, ".cargo"))
        with open(os.path.join(crate, ".cargo", "config.toml"), "w") as fh:
            fh.write(config)
    v = _judge(policy, "cargo doc --open", crate, env)
    assert (v.decision, v.code) == (decision, code), (env, config, v.message)
    # without --open nothing is opened: the environment's browser is no reason
    if config is None:
        assert _judge(policy, "cargo doc", crate, env).decision is ALLOW
