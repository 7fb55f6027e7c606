"""`gateway install` / `gateway uninstall` and the sandbox block, through the real console
script: written from the rules, taken out byte for byte, opted out, not written where the
sandbox cannot start (and said so)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

GW = str(Path(sys.executable).parent / "gateway")


@pytest.fixture()
def box(tmp_path):
    proj = tmp_path / "proj"
    proj.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=proj, check=True)
    env = dict(os.environ, HOME=str(tmp_path / "home"), XDG_STATE_HOME=str(tmp_path / "state"),
               CLAUDE_CONFIG_DIR=str(tmp_path / "home" / ".claude"))
    (tmp_path / "home").mkdir()
    return proj, env


def gw(proj, env, *args, check=True):
    p = subprocess.run([GW, *args], cwd=proj, env=env, capture_output=True, text=True,
                       timeout=120)
    if check:
        assert p.returncode == 0, p.stdout + p.stderr
    return p


def settings(proj):
    return json.loads((proj / ".claude" / "settings.json").read_text())


def test_install_writes_the_block_and_uninstall_gives_the_bytes_back(box):
    proj, env = box
    (proj / ".claude").mkdir()
    # the user's own formatting and sandbox choices
    original = (b'{\n    "model": "opus",\n    "sandbox": {\n        "enabled": false,\n'
                b'        "excludedCommands": ["docker *"],\n        "filesystem": {"denyRead": '
                b'["~/private", "**/.env"]}\n    }\n}\n')
    (proj / ".claude" / "settings.json").write_bytes(original)
    out = gw(proj, env, "install", "--sandbox").stdout
    assert "update sandbox (enabled): true (was false)" in out
    sb = settings(proj)["sandbox"]
    assert sb["enabled"] is True and sb["failIfUnavailable"] is True
    assert sb["allowUnsandboxedCommands"] is False
    assert sb["excludedCommands"] == ["docker *"]
    deny = sb["filesystem"]["denyRead"]
    assert deny[:2] == ["~/private", "**/.env"] and deny.count("**/.env") == 1
    assert "~/.claude/.credentials.json" in deny
    # idempotent
    assert "already up to date" in gw(proj, env, "install", "--sandbox").stdout
    out = gw(proj, env, "uninstall").stdout
    assert "back exactly as it was" in out
    assert (proj / ".claude" / "settings.json").read_bytes() == original


def test_uninstall_keeps_what_the_user_changed_since(box):
    proj, env = box
    gw(proj, env, "install", "--sandbox")
    data = settings(proj)
    data["sandbox"]["filesystem"]["denyRead"].append("~/mine")
    data["sandbox"]["autoAllowBashIfSandboxed"] = True
    (proj / ".claude" / "settings.json").write_text(json.dumps(data, indent=2))
    gw(proj, env, "uninstall")
    assert settings(proj) == {"sandbox": {"filesystem": {"denyRead": ["~/mine"]},
                                          "autoAllowBashIfSandboxed": True}}


def test_no_sandbox_takes_out_what_install_added_and_allow_unsandboxed(box):
    proj, env = box
    gw(proj, env, "install", "--sandbox")
    assert "sandbox" in settings(proj)
    out = gw(proj, env, "install", "--allow-unsandboxed", "--sandbox").stdout
    assert "remove sandbox (allowUnsandboxedCommands)" in out
    assert "allowUnsandboxedCommands" not in settings(proj)["sandbox"]
    out = gw(proj, env, "install", "--no-sandbox").stdout
    assert "--no-sandbox" in out
    assert "sandbox" not in settings(proj) and "hooks" in settings(proj)


def test_a_rule_removed_takes_its_entry_out_on_the_next_install(box):
    proj, env = box
    rules = proj / ".claude" / "gateway.yaml"
    rules.parent.mkdir()
    rules.write_text("version: 1\nsecrets:\n  patterns: [deploy-token.txt]\n")
    gw(proj, env, "install", "--sandbox")
    assert "**/deploy-token.txt" in settings(proj)["sandbox"]["filesystem"]["denyRead"]
    rules.write_text("version: 1\n")
    out = gw(proj, env, "install", "--sandbox").stdout
    assert "no longer generated" in out
    assert "**/deploy-token.txt" not in settings(proj)["sandbox"]["filesystem"]["denyRead"]


def _path_without(tmp_path, *names):
    d = tmp_path / "bin-without"
    d.mkdir()
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        if not os.path.isdir(folder):
            continue
        for n in os.listdir(folder):
            if n in names or (d / n).exists():
                continue
            try:
                (d / n).symlink_to(os.path.join(folder, n))
            except OSError:
                pass
    return str(d)


def test_install_without_bubblewrap_says_what_to_install_and_writes_no_block(box, tmp_path):
    proj, env = box
    env = dict(env, PATH=_path_without(tmp_path, "bwrap"))
    p = gw(proj, env, "install")
    assert "the sandbox was NOT configured" in p.stdout
    assert "bubblewrap (bwrap) is not installed" in p.stdout
    assert "apt-get install bubblewrap socat" in p.stdout
    assert "GW840" in p.stdout  # what it costs
    assert "sandbox" not in settings(proj) and "hooks" in settings(proj)
    # --sandbox writes it anyway (for a teammate's machine, a CI image)
    gw(proj, env, "install", "--sandbox")
    assert settings(proj)["sandbox"]["enabled"] is True


def test_dry_run_lists_the_sandbox_entries_and_writes_nothing(box):
    proj, env = box
    out = gw(proj, env, "install", "--sandbox", "--dry-run").stdout
    assert "add    sandbox (filesystem.denyRead)" in out and "dry run" in out
    assert not (proj / ".claude" / "settings.json").exists()


def test_a_sandbox_value_of_the_wrong_shape_is_refused(box):
    proj, env = box
    (proj / ".claude").mkdir()
    (proj / ".claude" / "settings.json").write_text('{"sandbox": {"filesystem": '
                                                    '{"denyRead": "**/.env"}}}')
    p = gw(proj, env, "install", "--sandbox", check=False)
    assert p.returncode == 3
    assert "sandbox.filesystem.denyRead must be a list of strings" in p.stderr
