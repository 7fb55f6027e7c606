"""The client's effective sandbox settings as the hook reads them (gateway.sandbox.posture):
layer precedence and path anchoring as measured with 2.1.330 (docs/client-behaviour.md, "The
Bash sandbox"), and when one call runs sandboxed."""

import json
import os

import pytest

from gateway import settings as settings_mod
from gateway.runtime import get_policy
from gateway.sandbox import posture, spec


@pytest.fixture()
def layout(tmp_path):
    home = tmp_path / "home"
    proj = tmp_path / "proj"
    (home / ".claude").mkdir(parents=True)
    (proj / ".claude").mkdir(parents=True)
    env = {"HOME": str(home), "PATH": os.environ["PATH"],
           "CLAUDE_CONFIG_DIR": str(home / ".claude")}

    def write(user=None, project=None, local=None):
        for path, data in ((home / ".claude" / "settings.json", user),
                           (proj / ".claude" / "settings.json", project),
                           (proj / ".claude" / "settings.local.json", local)):
            if data is None:
                if path.exists():
                    path.unlink()
            else:
                path.write_text(json.dumps(data))
        return posture.load(str(proj), env)

    return write, proj, home, env


def test_precedence_local_over_project_over_user(layout):
    write, proj, home, env = layout
    # measured: local enabled:false beats project true; project true beats user false
    assert not write(project={"sandbox": {"enabled": True}},
                     local={"sandbox": {"enabled": False}}).enabled
    assert write(user={"sandbox": {"enabled": False}},
                 project={"sandbox": {"enabled": True}}).enabled
    # measured: project autoAllow true beats user false
    assert write(user={"sandbox": {"autoAllowBashIfSandboxed": False}},
                 project={"sandbox": {"autoAllowBashIfSandboxed": True}}).auto_allow
    # measured: local allowUnsandboxedCommands true beats project false
    assert write(project={"sandbox": {"allowUnsandboxedCommands": False}},
                 local={"sandbox": {"allowUnsandboxedCommands": True}}).allow_unsandboxed
    # a false in the user's settings holds whatever the project says (client's schema)
    assert not write(user={"sandbox": {"allowUnsandboxedCommands": False}},
                     local={"sandbox": {"allowUnsandboxedCommands": True}}).allow_unsandboxed


def test_paths_are_anchored_where_the_client_anchors_them(layout):
    write, proj, home, env = layout
    p = write(user={"sandbox": {"filesystem": {"denyRead": ["rel", "~/.ssh", "//abs/x"]}}},
              project={"sandbox": {"filesystem": {"denyRead": ["**/.env", "./a", "/b/c"]}}})
    assert p.paths["denyRead"] == [str(home / ".claude" / "rel"), str(home / ".ssh"),
                                   "/abs/x", str(proj / "**" / ".env"), str(proj / "a"),
                                   "/b/c"]


def test_one_call_sandboxed_or_not(layout):
    write, proj, home, env = layout
    p = write(project={"sandbox": {"enabled": True, "failIfUnavailable": True,
                                   "allowUnsandboxedCommands": False,
                                   "excludedCommands": ["docker *"]}})
    assert p.runs_sandboxed("tox -e py311", {"command": "tox -e py311"}, env)
    # allowUnsandboxedCommands false: the parameter is ignored (measured)
    assert p.runs_sandboxed("tox", {"command": "tox", "dangerouslyDisableSandbox": True}, env)
    assert not p.runs_sandboxed("docker ps", {"command": "docker ps"}, env)
    assert not p.runs_sandboxed("make && docker run x", {}, env)
    assert "excludedCommands" in p.why_not("docker ps", {}, env)
    p = write(project={"sandbox": {"enabled": True, "failIfUnavailable": True}})
    assert not p.runs_sandboxed("tox", {"dangerouslyDisableSandbox": True}, env)
    assert "dangerouslyDisableSandbox" in p.why_not("tox", {"dangerouslyDisableSandbox": True},
                                                    env)


def test_without_fail_if_unavailable_it_counts_only_with_bubblewrap_on_path(layout, tmp_path):
    write, proj, home, env = layout
    p = write(project={"sandbox": {"enabled": True}})
    empty = tmp_path / "emptybin"
    empty.mkdir()
    assert not p.active(dict(env, PATH=str(empty)))
    assert "bubblewrap or socat" in p.why_not("ls", {}, dict(env, PATH=str(empty)))
    p = write(project={"sandbox": {"enabled": True, "failIfUnavailable": True}})
    assert p.active(dict(env, PATH=str(empty)))  # the client refuses to start without it


@pytest.mark.parametrize("bad", [
    {"sandbox": "on"},
    {"sandbox": {"enabled": "yes"}},
    {"sandbox": {"enabled": True, "filesystem": {"denyRead": "**/.env"}}},
    {"sandbox": {"enabled": True, "excludedCommands": "docker"}},
])
def test_a_shape_the_client_would_not_read_counts_as_no_sandbox(layout, bad):
    write, proj, home, env = layout
    p = write(local=bad, project={"sandbox": {"enabled": True, "failIfUnavailable": True}})
    assert not p.active(env) and p.problems


def test_switches_that_undo_the_floor(layout):
    write, proj, home, env = layout
    base = {"enabled": True, "failIfUnavailable": True}
    assert not write(project={"sandbox": dict(base, filesystem={"disabled": True})}).active(env)
    assert not write(project={"sandbox": dict(base, enabledPlatforms=["macos"])}).active(env)
    assert write(project={"sandbox": dict(base, enabledPlatforms=["linux"])}).active(env)


def test_the_installed_block_hides_every_secret_and_a_partial_one_does_not(layout):
    write, proj, home, env = layout
    policy = get_policy(str(proj))
    block = spec.generate(policy, str(proj), env=env).block()
    p = write(project={"sandbox": block})
    assert p.hides_secrets(policy, env) == []
    block["filesystem"]["denyRead"].remove("**/.env")
    p = write(project={"sandbox": block})
    assert p.hides_secrets(policy, env) == [str(proj / "**" / ".env")]
    # an allowRead of the user's that may re-open a secret: not hidden
    block["filesystem"]["denyRead"].append("**/.env")
    block["filesystem"]["allowRead"].append("config/.env.prod")
    p = write(project={"sandbox": block})
    assert p.hides_secrets(policy, env) == [f"allowRead {proj / 'config' / '.env.prod'}"]
    # a user-scope install hides the home's stores, not the project's secrets
    user = spec.generate(policy, str(proj), scope="user", env=env).block()
    p = write(user={"sandbox": user})
    missing = p.hides_secrets(policy, env)
    assert str(proj / "**" / ".env") in missing
    assert not any(m.startswith(str(home)) for m in missing)


def test_settings_load_collects_sandbox_and_allow_in_the_same_pass(layout):
    write, proj, home, env = layout
    write(project={"permissions": {"allow": ["Bash(tox:*)", "Read(x)"], "ask": ["Bash(rm:*)"]},
                   "sandbox": {"enabled": True}})
    s = settings_mod.load(str(proj), env)
    assert [r.text for r in s.allow] == ["Bash(tox:*)"]
    assert [r.text for r in s.rules] == ["Bash(rm:*)"]  # allow rules never decide an ask
    assert s.sandbox == [(str(proj / ".claude" / "settings.json"), {"enabled": True})]


def test_probe_block_moves_the_project_and_home_paths(layout):
    write, proj, home, env = layout
    p = write(project={"sandbox": {"enabled": True, "filesystem": {
        "denyRead": ["**/.env", "~/.ssh", "//opt/x"]}}})
    b = posture.probe_block(p, "/scratch/p", "/scratch/h")
    assert b["filesystem"]["denyRead"] == ["//scratch/p/**/.env", "//scratch/h/.ssh", "//opt/x"]


def test_every_generated_entry_counts_toward_hiding_the_secrets(layout):
    """Removing any one generated denyRead entry is noticed (no entry is decorative)."""
    write, proj, home, env = layout
    policy = get_policy(str(proj))
    block = spec.generate(policy, str(proj), env=env).block()
    entries = list(block["filesystem"]["denyRead"])
    for i in range(0, len(entries), max(1, len(entries) // 25)):
        gone = entries[i]
        block["filesystem"]["denyRead"] = entries[:i] + entries[i + 1:]
        p = write(project={"sandbox": block})
        missing = p.hides_secrets(policy, env)
        want = posture._absolute(gone, str(proj), str(home))
        assert missing == [want], (gone, missing)
