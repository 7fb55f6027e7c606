"""Hostile rules and settings files through the real entry points (issue 14, items 7 and 8):
the hook commands with real payloads, and `gateway rules validate`.

A FIFO, device, directory or dangling link at a rules or settings path, an oversized file, or
YAML whose aliases expand without bound is a located error that fails closed -- the
PermissionRequest hook allows nothing (GW901/GW903), the PreToolUse guards ask (GW891) --
and never a hang (every process here has a timeout; a hang is a failure) or "absent"."""

import json
import os
import subprocess
import sys

import pytest

from tests.helpers import make_project

TIMEOUT = 60


@pytest.fixture(scope="module")
def exe():
    path = os.path.join(os.path.dirname(sys.executable), "gateway")
    assert os.path.exists(path), "install the package (pip install -e .) first"
    return path


@pytest.fixture()
def proj(tmp_path):
    return make_project(tmp_path / "proj")


@pytest.fixture()
def env(tmp_path, proj):
    home = tmp_path / "home"
    (home / ".config" / "gateway").mkdir(parents=True)
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "GATEWAY_CACHE_DIR": str(tmp_path / "cache"),
            "GATEWAY_AUDIT_LOG": str(tmp_path / "audit.jsonl"), "GATEWAY_RESIDENT": "off",
            "CLAUDE_CONFIG_DIR": str(home / ".claude"), "CLAUDE_PROJECT_DIR": proj,
            "LANG": "C.UTF-8"}


def user_rules(env):
    return os.path.join(env["HOME"], ".config", "gateway", "rules.yaml")


def _hook(exe, env, event, payload):
    p = subprocess.run([exe, "hook", event], input=json.dumps(payload).encode(), env=env,
                       capture_output=True, timeout=TIMEOUT)
    assert p.returncode == 0, p.stderr
    with open(env["GATEWAY_AUDIT_LOG"]) as fh:
        last = json.loads(fh.read().splitlines()[-1])
    return p.stdout.decode(), last


def permission_request(exe, env, proj, command="ls"):
    return _hook(exe, env, "permission-request", {
        "session_id": "s", "cwd": proj, "hook_event_name": "PermissionRequest",
        "tool_name": "Bash", "tool_input": {"command": command}})


def pre_tool_use_write(exe, env, proj):
    return _hook(exe, env, "pre-tool-use", {
        "session_id": "s", "cwd": proj, "hook_event_name": "PreToolUse", "tool_name": "Write",
        "tool_input": {"file_path": os.path.join(proj, "src", "app.py"), "content": "x\n"}})


def rules_validate(exe, env, *args):
    return subprocess.run([exe, "rules", "validate", *args], env=env, capture_output=True,
                          text=True, timeout=TIMEOUT, cwd=env["CLAUDE_PROJECT_DIR"])


def _fifo(path):
    os.mkfifo(path)


def _dir(path):
    os.mkdir(path)


def _dangling(path):
    os.symlink(path + ".gone", path)


def _device(path):
    os.symlink("/dev/zero", path)   # a character device that never ends


def _huge(path):
    with open(path, "w") as fh:
        fh.write("# " + "x" * (600 * 1024) + "\n")


KINDS = {
    "fifo": (_fifo, "is a FIFO (named pipe), not a regular file; only regular files are read"),
    "directory": (_dir, "is a directory, not a regular file; only regular files are read"),
    "dangling-link": (_dangling, "is a symbolic link to '{path}.gone', which does not exist"),
    "device": (_device, "is a character device, not a regular file; only regular files are "
                        "read"),
}


@pytest.mark.parametrize("where", ["project", "local", "user"])
@pytest.mark.parametrize("kind", sorted(KINDS) + ["huge"])
def test_a_rules_path_that_is_not_a_small_regular_file_fails_closed(exe, env, proj, where,
                                                                    kind):
    path = {"project": os.path.join(proj, ".claude", "gateway.yaml"),
            "local": os.path.join(proj, ".claude", "gateway.local.yaml"),
            "user": user_rules(env)}[where]
    if kind == "huge":
        _huge(path)
        problem = "is 614403 bytes, larger than the 524288-byte limit for this file"
    else:
        make, problem = KINDS[kind]
        make(path)
        problem = problem.format(path=path)
    out, audit = permission_request(exe, env, proj)
    assert out == ""                                    # no allow: the dialog decides
    assert (audit["code"], audit["message"]) == ("GW901", f"rules cannot be loaded: {path}: "
                                                          f"{problem}")
    out, audit = pre_tool_use_write(exe, env, proj)
    assert audit["code"] == "GW891" and f"{path}: {problem}" in audit["message"]
    # ask, not deny (issue 25): nothing can be checked, a human may still approve
    assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "ask"
    r = rules_validate(exe, env)
    assert r.returncode == 3
    assert r.stderr == f"{path}: {problem}\n1 problem(s)\n"
    # the same again, now answered from the cached result: the same located error
    out, audit = permission_request(exe, env, proj)
    assert out == "" and audit["code"] == "GW901" and problem in audit["message"]


@pytest.mark.parametrize("name", ["settings.json", "settings.local.json"])
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_settings_path_that_is_not_a_regular_file_makes_every_command_ask(exe, env, proj,
                                                                           name, kind):
    path = os.path.join(proj, ".claude", name)
    make, problem = KINDS[kind]
    make(path)
    out, audit = permission_request(exe, env, proj)
    assert out == ""
    assert (audit["code"], audit["message"]) == (
        "GW903", f"settings unreadable: {path}: {problem.format(path=path)}")


def test_a_user_settings_fifo_does_not_hang(exe, env, proj):
    os.makedirs(env["CLAUDE_CONFIG_DIR"])
    _fifo(os.path.join(env["CLAUDE_CONFIG_DIR"], "settings.json"))
    out, audit = permission_request(exe, env, proj)
    assert out == "" and audit["code"] == "GW903"


def test_rules_validate_given_a_fifo_does_not_hang(exe, env, proj, tmp_path):
    path = str(tmp_path / "rules.yaml")
    _fifo(path)
    r = rules_validate(exe, env, "--layer", "user", path)
    assert r.returncode == 3 and r.stderr.startswith(f"{path}: is a FIFO (named pipe)")


# --- item 8: YAML aliases ---------------------------------------------------------------------

def mapping_bomb(levels, fan=10):
    """`catalogue:` entries whose subcommands refer `fan` times to the entry before: 10^levels
    nodes once expanded, in well under a kilobyte."""
    lines = ["catalogue:", "  x0: &l0 {args: none}"]
    for i in range(1, levels + 1):
        subs = ", ".join(f"s{j}: *l{i - 1}" for j in range(fan))
        lines.append(f"  x{i}: &l{i} {{args: none, subcommands: {{{subs}}}}}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("levels", [6, 9])
def test_an_alias_bomb_in_the_user_layer_is_refused_where_it_explodes(exe, env, proj, levels):
    text = mapping_bomb(levels)
    assert len(text) < 1200
    with open(user_rules(env), "w") as fh:
        fh.write(text)
    # x5 (line 7) is the first entry that expands to more than 50,000 nodes
    problem = (f"{user_rules(env)}:7: the YAML from here expands to more than 50,000 nodes "
               "(aliases repeat what they refer to); rules files are small: write the entries "
               "out, or use fewer aliases")
    r = rules_validate(exe, env)
    assert r.returncode == 3 and r.stderr == f"{problem}\n1 problem(s)\n"
    out, audit = permission_request(exe, env, proj)
    assert out == "" and audit["message"] == f"rules cannot be loaded: {problem}"
    out, audit = pre_tool_use_write(exe, env, proj)
    assert audit["code"] == "GW891" and problem in audit["message"]


def test_a_small_alias_use_in_the_user_layer_is_accepted(exe, env, proj):
    with open(user_rules(env), "w") as fh:
        fh.write(mapping_bomb(2) + "always_ask: &tools [make]\nsubcommand_ask: ['git stash']\n")
    r = rules_validate(exe, env)
    assert r.returncode == 0, r.stderr
    out, audit = permission_request(exe, env, proj, "make")
    assert out == "" and audit["code"] == "GW701"


@pytest.mark.parametrize("text,line,what", [
    # a long text repeated: 40 KB written once, 100 times over
    ("x-big: &t '" + "y" * 40_000 + "'\nx-list: &l [" + ", ".join(["*t"] * 10) + "]\n"
     "x-more: [" + ", ".join(["*l"] * 10) + "]\n", 3, "more than 1,048,576 bytes of text"),
    # deep, through aliases: each level nests the previous one
    ("x-a0: &a0 [x]\n" + "".join(f"x-a{i}: &a{i} [[[[[[[[*a{i - 1}]]]]]]]]\n"
                                 for i in range(1, 10)), 9, "more than 64 levels of nesting"),
])
def test_other_expansions_are_bounded_too(exe, env, proj, text, line, what):
    with open(user_rules(env), "w") as fh:
        fh.write(text)
    r = rules_validate(exe, env)
    assert r.returncode == 3
    assert r.stderr.startswith(f"{user_rules(env)}:{line}: the YAML from here expands to {what}")


def test_a_recursive_alias_is_refused(exe, env, proj):
    with open(user_rules(env), "w") as fh:
        fh.write("always_ask: [make]\nx-loop: &loop\n  again: *loop\n")
    r = rules_validate(exe, env)
    assert r.returncode == 3
    assert r.stderr == (f"{user_rules(env)}:2: this node contains an alias to itself (a "
                        "recursive structure without end); write the entries out\n"
                        "1 problem(s)\n")


def test_aliases_stay_refused_in_a_project_layer(exe, env, proj):
    with open(os.path.join(proj, ".claude", "gateway.yaml"), "w") as fh:
        fh.write("always_ask: &a [make]\nsubcommand_ask: *a\n")
    r = rules_validate(exe, env)
    assert r.returncode == 3 and "YAML aliases are not allowed in this layer" in r.stderr


def test_a_failing_example_in_the_user_rules_asks_and_every_screen_says_so(exe, env, proj):
    """Issue 25: one failing `examples:` entry in ~/.config/gateway/rules.yaml made
    PreToolUse deny every call, even a Read of README.md; doctor said "every command asks"
    and codes.md that only writes and Bash are denied. Now all three say: every call asks
    until the file is fixed, and the message names the file."""
    path = user_rules(env)
    with open(path, "w") as fh:
        fh.write('catalogue:\n  frob:\n    args: text\n    examples:\n      allow: ["frob x"]\n'
                 '      ask: ["frob y"]\n')
    read = {"session_id": "s", "cwd": proj, "hook_event_name": "PreToolUse",
            "tool_name": "Read", "tool_input": {"file_path": os.path.join(proj, "README.md")}}
    for payload in (read, dict(read, tool_name="Bash", tool_input={"command": "ls"})):
        out, audit = _hook(exe, env, "pre-tool-use", payload)
        hso = json.loads(out)["hookSpecificOutput"]
        assert hso["permissionDecision"] == "ask", hso
        assert hso["permissionDecisionReason"].startswith("gateway GW891: the rules cannot "
                                                          "be loaded, so nothing can be "
                                                          "checked and every call asks")
        assert f"{path}: catalogue:frob: example 'frob y'" in hso["permissionDecisionReason"]
    out, audit = permission_request(exe, env, proj)
    assert out == "" and audit["code"] == "GW901"
    doctor = subprocess.run([exe, "doctor"], env=env, capture_output=True, text=True,
                            timeout=TIMEOUT, cwd=proj)
    assert "the rules cannot be loaded, so every call asks (GW891, GW901)" in doctor.stdout
    explain = subprocess.run([exe, "explain", "GW891"], env=env, capture_output=True,
                             text=True, timeout=TIMEOUT)
    assert "every call asks" in explain.stdout and "ask" in explain.stdout
    # with a team's breezing session in force the guards cannot apply its rules: deny
    state = os.path.join(proj, ".claude", "state")
    os.makedirs(state, exist_ok=True)
    with open(os.path.join(state, "breezing-active.json"), "w") as fh:
        json.dump({"session_id": "s", "impl_mode": "standard"}, fh)
    out, _audit = _hook(exe, env, "pre-tool-use", read)
    assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "deny"
