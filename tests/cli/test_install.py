"""gateway install / uninstall: what is registered, idempotence, the byte-for-byte round
trip, and refusing what cannot be merged safely."""

import json
import os
import stat
import sys
import types
from pathlib import Path

import pytest
from click.testing import CliRunner

import gateway
from gateway import launch
from gateway.cli.app import cli
from gateway.install import InstallError, backup, entries, jsonfile, merge, ops

GW = str(Path(sys.executable).parent / "gateway")
REPO = Path(__file__).resolve().parents[2]


def launch_command(name, python, paths) -> str:
    """A lean launch line as gateway.launch writes it, for any interpreter and directories."""
    return entries.command_string(launch.prefix(python, paths), name)


LEAN = launch_command("permission-request", "/v/bin/python",
                      ["/v/lib/python3.11/site-packages"])


from gateway.hooks import runner as _runner  # noqa: E402

REAL_EVENTS = _runner.events


@pytest.fixture(autouse=True)
def one_hook(monkeypatch):
    """Most tests pin the hook list to PermissionRequest alone, so their expectations do not
    change as hooks are added; the tests of the real list use `real_hooks`."""
    monkeypatch.setattr(_runner, "events", lambda: ["permission-request"])


@pytest.fixture()
def real_hooks(monkeypatch):
    monkeypatch.setattr(_runner, "events", REAL_EVENTS)


@pytest.fixture(autouse=True)
def private_state(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "userclaude"))
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)


@pytest.fixture()
def gw(tmp_path):
    """An executable stand-in for the gateway console script (its path is what counts)."""
    path = tmp_path / "venv" / "bin" / "gateway"
    path.parent.mkdir(parents=True)
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o755)
    return str(path)


def install(path, gw, **kw):
    return ops.install(settings_file=str(path), gateway_path=gw, **kw)


def uninstall(path, **kw):
    return ops.uninstall(settings_file=str(path), **kw)


@pytest.fixture()
def fake_guard(monkeypatch):
    """A PreToolUse hook module that does not exist in gateway/hooks/ (only in this test)."""
    from gateway.hooks import runner

    module = types.ModuleType("gateway.hooks.fake_guard")
    module.EVENT = "PreToolUse"
    module.MATCHER = "Write|Edit"
    monkeypatch.setitem(sys.modules, "gateway.hooks.fake_guard", module)
    monkeypatch.setattr(runner, "events", lambda: ["permission-request", "fake-guard"])
    return module


# --- what is registered -----------------------------------------------------------------


def test_specs_come_from_the_hook_modules(real_hooks):
    specs = {s.name: s for s in entries.hook_specs()}
    pr = specs["permission-request"]
    assert (pr.event, pr.matcher, pr.on_failure_block, pr.timeout) == \
        ("PermissionRequest", "Bash", False, 30)
    assert sorted(specs) == sorted(REAL_EVENTS())
    if "pre-tool-use" in specs:
        ptu = specs["pre-tool-use"]
        assert ptu.event == "PreToolUse" and ptu.on_failure_block


def test_a_hook_added_later_is_registered_with_on_failure_block(tmp_path, gw, fake_guard):
    path = tmp_path / "s.json"
    install(path, gw)
    hooks = json.loads(path.read_text())["hooks"]
    assert hooks["PreToolUse"] == [{"matcher": "Write|Edit", "hooks": [
        {"type": "command", "command": f"{gw} hook fake-guard", "timeout": 30,
         "onFailure": "block"}]}]
    assert "onFailure" not in hooks["PermissionRequest"][0]["hooks"][0]


def test_hook_module_data_overrides(tmp_path, gw, fake_guard):
    fake_guard.MATCHER = None
    fake_guard.ON_FAILURE_BLOCK = False
    fake_guard.TIMEOUT = 5
    path = tmp_path / "s.json"
    install(path, gw)
    group = json.loads(path.read_text())["hooks"]["PreToolUse"][0]
    assert "matcher" not in group
    assert group["hooks"][0] == {"type": "command", "command": f"{gw} hook fake-guard",
                                 "timeout": 5}


@pytest.mark.parametrize("attr,value,words", [
    ("MATCHER", "Write|(", "not a regex"),
    ("MATCHER", "", "non-empty string"),
    ("EVENT", "pre_tool_use", "Claude Code event name"),
    ("ON_FAILURE_BLOCK", "yes", "True or False"),
    ("TIMEOUT", 0, "whole seconds"),
])
def test_broken_hook_module_data_stops_install(tmp_path, gw, fake_guard, attr, value, words):
    setattr(fake_guard, attr, value)
    path = tmp_path / "s.json"
    path.write_text("{}")
    with pytest.raises(InstallError, match=words):
        install(path, gw)
    assert path.read_text() == "{}"


def test_no_handler_before_its_module_exists(tmp_path, gw, real_hooks):
    path = tmp_path / "s.json"
    install(path, gw)
    assert set(json.loads(path.read_text())["hooks"]) == \
        {s.event for s in entries.hook_specs()}


@pytest.mark.parametrize("handler,name", [
    ({"type": "command", "command": "/v/bin/gateway hook permission-request"},
     "permission-request"),
    ({"type": "command", "command": LEAN}, "permission-request"),
    ({"command": LEAN.replace(" -I -S ", " -I -S -B ")}, "permission-request"),
    ({"command": launch_command("pre-tool-use", "/a b/python", ["/it's", '/q"x', "/\u00e9"])},
     "pre-tool-use"),
    ({"command": LEAN.replace(" -S ", " -X importtime ")}, None),
    ({"command": LEAN.replace("sys.exit(main())", "sys.exit(main()); import os")}, None),
    ({"command": LEAN.replace('["/v/lib', '[__import__(\"os\").sep, "/v/lib')}, None),
    ({"command": LEAN.replace("-c 'import", "-c 'import os; import")}, None),
    ({"command": "'/a b/gateway' hook pre-tool-use"}, "pre-tool-use"),
    ({"type": "command", "command": "/usr/bin/python3 -m gateway hook x-y"}, "x-y"),
    ({"type": "command", "command": "gateway hook permission-request"}, "permission-request"),
    ({"type": "http", "url": "http://127.0.0.1:8787/hook/permission-request"},
     "permission-request"),
    ({"type": "command", "command": "/v/bin/gatewayx hook permission-request"}, None),
    ({"type": "command", "command": "echo gateway hook permission-request"}, None),
    ({"type": "command", "command": "/v/bin/gateway hook permission-request; rm x"}, None),
    ({"type": "command", "command": "/v/bin/gateway check x"}, None),
    ({"type": "http", "url": "http://example.com:8787/hook/permission-request"}, None),
    ({"type": "prompt", "prompt": "gateway hook x"}, None),
    ("not a dict", None),
])
def test_recognising_the_gateways_own_handlers(handler, name):
    assert entries.owned_hook_name(handler) == name


def test_gateway_command_resolution(gw, tmp_path):
    assert entries.gateway_command(gw) == [gw]
    assert entries.gateway_command(gw, "script") == [gw]
    with pytest.raises(InstallError, match="not an executable"):
        entries.gateway_command(str(tmp_path / "nope"))
    with pytest.raises(InstallError, match="--launcher script"):
        entries.gateway_command(gw, "lean")
    with pytest.raises(InstallError, match="unknown launcher"):
        entries.gateway_command(None, "fast")
    found = entries.gateway_command()  # other callers (the Gemini adapter): the script
    assert os.path.isabs(found[0]) and found == entries.gateway_command(launcher="script")
    assert found == [GW] or found[1:] == ["-m", "gateway"]
    lean = entries.gateway_command(launcher="lean")
    assert lean == launch.prefix()
    assert lean[:4] == [os.path.abspath(sys.executable), "-I", "-S", "-c"]
    parsed = entries.parse_command(entries.command_string(lean, "pre-tool-use"))
    assert (parsed.kind, parsed.program, parsed.name) == ("lean", lean[0], "pre-tool-use")
    gateway_parent = os.path.dirname(os.path.dirname(os.path.abspath(gateway.__file__)))
    assert gateway_parent in parsed.paths and all(os.path.isabs(p) for p in parsed.paths)


def test_lean_line_that_does_not_start_is_refused(tmp_path):
    broken = tmp_path / "bin" / "python"
    broken.parent.mkdir()
    broken.write_text("#!/bin/sh\necho 'ModuleNotFoundError: no gateway here' >&2\nexit 1\n")
    broken.chmod(0o755)
    with pytest.raises(InstallError, match="no gateway here.*--launcher script"):
        entries.lean_command(str(broken))
    with pytest.raises(InstallError, match="not an executable"):
        entries.lean_command(str(tmp_path / "none"))


def test_command_with_spaces_is_quoted(tmp_path):
    odd = tmp_path / "my venv" / "gateway"
    odd.parent.mkdir()
    odd.write_text("#!/bin/sh\n")
    odd.chmod(0o755)
    path = tmp_path / "s.json"
    install(path, str(odd))
    cmd = json.loads(path.read_text())["hooks"]["PermissionRequest"][0]["hooks"][0]["command"]
    assert cmd == f"'{odd}' hook permission-request"
    assert entries.owned_hook_name({"command": cmd}) == "permission-request"


# --- merging: keep everything else, never duplicate --------------------------------------


OTHERS = {
    "model": "opus",
    "permissions": {"allow": ["Bash(npm test)"], "deny": ["Read(./.env)"]},
    "hooks": {
        "PermissionRequest": [{"matcher": "*", "hooks": [
            {"type": "command", "command": "notify-send asked"}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}],
    },
    "env": {"FOO": "1"},
}


def test_keeps_every_other_key_and_hook_in_order(tmp_path, gw):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(OTHERS, indent=2))
    install(path, gw)
    data = json.loads(path.read_text())
    assert list(data) == list(OTHERS)
    assert data["permissions"] == OTHERS["permissions"]
    assert data["hooks"]["Stop"] == OTHERS["hooks"]["Stop"]
    assert data["hooks"]["PermissionRequest"][0] == OTHERS["hooks"]["PermissionRequest"][0]
    assert data["hooks"]["PermissionRequest"][1]["hooks"][0]["command"] == \
        f"{gw} hook permission-request"


def test_idempotent_no_write_no_backup(tmp_path, gw):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(OTHERS))
    first = install(path, gw)
    assert first.changed and first.backup
    before = path.read_bytes()
    mtime = path.stat().st_mtime_ns
    second = install(path, gw)
    assert not second.changed and second.backup is None
    assert [c.action for c in second.changes] == ["keep"]
    assert path.read_bytes() == before and path.stat().st_mtime_ns == mtime


def test_moved_gateway_is_updated_in_place_not_duplicated(tmp_path, gw):
    old = {"hooks": {"PermissionRequest": [
        {"matcher": "Bash", "hooks": [{"type": "command",
                                       "command": "/old/venv/bin/gateway hook permission-request"}]},
        {"matcher": "*", "hooks": [{"type": "command", "command": "other"}]}]}}
    path = tmp_path / "s.json"
    path.write_text(json.dumps(old))
    res = install(path, gw)
    assert [c.action for c in res.changes] == ["update"]
    groups = json.loads(path.read_text())["hooks"]["PermissionRequest"]
    assert len(groups) == 2 and groups[1] == old["hooks"]["PermissionRequest"][1]
    assert groups[0]["hooks"][0]["command"] == f"{gw} hook permission-request"


def test_duplicates_stale_and_misplaced_gateway_handlers_are_removed(tmp_path, gw):
    mine = f"{gw} hook permission-request"
    data = {"hooks": {
        "PermissionRequest": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": mine, "timeout": 30}]},
            {"matcher": "Bash", "hooks": [{"type": "command", "command": mine}]},
            {"matcher": "*", "hooks": [{"type": "command", "command": "keep-me"},
                                       {"type": "command", "command": "/x/gateway hook gone"}]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "/x/gateway hook permission-request"}]}],
        "Stop": []}}
    path = tmp_path / "s.json"
    path.write_text(json.dumps(data))
    res = install(path, gw)
    assert sorted(c.action for c in res.changes) == ["keep", "remove", "remove", "remove"]
    hooks = json.loads(path.read_text())["hooks"]
    assert hooks == {"PermissionRequest": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": mine, "timeout": 30}]},
        {"matcher": "*", "hooks": [{"type": "command", "command": "keep-me"}]}],
        "Stop": []}


def test_merge_is_pure_and_idempotent():
    spec = entries.hook_specs()[0]
    want = [(spec, entries.group(spec, ["/x/gateway"]))]
    src = json.loads(json.dumps(OTHERS))
    once, _ = merge.install(src, want)
    assert src == OTHERS
    twice, changes = merge.install(once, want)
    assert twice == once and [c.action for c in changes] == ["keep"]
    back, _ = merge.uninstall(once, OTHERS)
    assert back == OTHERS


# --- the byte-for-byte round trip ----------------------------------------------------------


STYLES = {
    "claude-code (2 spaces, no final newline)": json.dumps(OTHERS, indent=2).encode(),
    "4 spaces + newline": (json.dumps(OTHERS, indent=4) + "\n").encode(),
    "tabs": (json.dumps(OTHERS, indent="\t") + "\n").encode(),
    "one line": json.dumps(OTHERS).encode(),
    "compact": json.dumps(OTHERS, separators=(",", ":")).encode(),
    "crlf": (json.dumps(OTHERS, indent=2) + "\n").replace("\n", "\r\n").encode(),
    "bom": ("\ufeff" + json.dumps(OTHERS, indent=2)).encode(),
    "raw non-ascii": json.dumps({"model": "ünïcødé ✓", **OTHERS}, indent=2,
                                ensure_ascii=False).encode(),
    "escaped non-ascii": json.dumps({"model": "ünïcødé ✓"}, indent=2).encode(),
    "hand-formatted": b'{ "model" : "opus",\n  "permissions": {"allow": [ "Bash(ls)" ]},\n'
                      b'"hooks":{"Stop":[{"hooks":[{"type":"command","command":"x"}]}]}  }\n\n',
    "empty hooks object": b'{\n  "hooks": {},\n  "model": "x"\n}\n',
    "empty object": b"{}",
    "empty file": b"",
    "already has PermissionRequest": json.dumps(
        {"hooks": {"PermissionRequest": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "other-tool"}]}]}}, indent=2).encode(),
}


@pytest.mark.parametrize("name", list(STYLES))
def test_install_uninstall_round_trips_byte_for_byte(tmp_path, gw, fake_guard, name):
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_bytes(STYLES[name])
    install(path, gw)
    assert path.read_bytes() != STYLES[name]
    res = uninstall(path)
    assert res.changed and res.restored
    assert path.read_bytes() == STYLES[name]


def _gateway_commands(path) -> list:
    hooks = json.loads(path.read_text())["hooks"]
    return [h["command"] for groups in hooks.values() for g in groups for h in g["hooks"]
            if entries.owned_hook_name(h)]


@pytest.mark.parametrize("name", ["claude-code (2 spaces, no final newline)", "hand-formatted",
                                  "empty file", "already has PermissionRequest"])
def test_lean_launcher_is_the_default_idempotent_and_round_trips(tmp_path, real_hooks, name):
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_bytes(STYLES[name])
    ops.install(settings_file=str(path))
    installed = path.read_bytes()
    commands = _gateway_commands(path)
    assert len(commands) == len(REAL_EVENTS())
    for cmd in commands:
        parsed = entries.parse_command(cmd)
        assert parsed.kind == "lean" and parsed.program == os.path.abspath(sys.executable)
        assert cmd == entries.command_string(launch.prefix(), parsed.name)
    again = ops.install(settings_file=str(path))
    assert not again.changed and {c.action for c in again.changes} == {"keep"}
    assert path.read_bytes() == installed
    res = uninstall(path)
    assert res.restored and path.read_bytes() == STYLES[name]
    assert uninstall(path).changes == []


def test_switching_launchers_updates_in_place_and_still_round_trips(tmp_path, gw, real_hooks):
    path = tmp_path / "settings.json"
    path.write_bytes(STYLES["hand-formatted"])
    install(path, gw)  # the console script (--gateway-path)
    groups = {e: len(g) for e, g in json.loads(path.read_text())["hooks"].items()}
    res = ops.install(settings_file=str(path))  # the default: lean
    assert {c.action for c in res.changes} == {"update"}
    assert {e: len(g) for e, g in json.loads(path.read_text())["hooks"].items()} == groups
    assert {entries.parse_command(c).kind for c in _gateway_commands(path)} == {"lean"}
    res = ops.install(settings_file=str(path), gateway_path=gw, launcher="script")
    assert {c.action for c in res.changes} == {"update"}
    assert {entries.parse_command(c).kind for c in _gateway_commands(path)} == {"script"}
    ops.install(settings_file=str(path), launcher="lean")
    res = uninstall(path)
    assert res.restored and path.read_bytes() == STYLES["hand-formatted"]


def test_handlers_of_older_versions_are_replaced_by_the_lean_line(tmp_path, real_hooks):
    """Installs before the lean line registered the console script (or `python -m
    gateway`): a new install updates them in place, uninstall takes them out."""
    old = {"model": "x", "hooks": {
        "PermissionRequest": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "/old/venv/bin/gateway hook permission-request",
             "timeout": 30}]}],
        "PreToolUse": [
            {"matcher": "*", "hooks": [{"type": "command", "command": "keep-me"}]},
            {"hooks": [{"type": "command", "timeout": 30, "onFailure": "block",
                        "command": "/old/venv/bin/python3 -m gateway hook pre-tool-use"}]}]}}
    path = tmp_path / "settings.json"
    path.write_text(json.dumps(old, indent=2))
    res = ops.install(settings_file=str(path))
    old_names = ("permission-request", "pre-tool-use")
    assert sorted(c.action for c in res.changes if c.hook in old_names) == ["update", "update"]
    # the hooks added since those versions (role registration, the lifecycle hooks) are new
    added = {c.event for c in res.changes if c.hook not in old_names}
    assert {c.action for c in res.changes if c.hook not in old_names} == {"add"}
    assert {"PostToolUse", "SessionStart", "PreCompact"} <= added, added
    hooks = json.loads(path.read_text())["hooks"]
    assert hooks["PreToolUse"][0] == old["hooks"]["PreToolUse"][0]
    assert [len(hooks[e]) for e in ("PermissionRequest", "PreToolUse")] == [1, 2]
    assert {entries.parse_command(c).kind for c in _gateway_commands(path)} == {"lean"}
    uninstall(path)
    assert json.loads(path.read_text()) == {"model": "x", "hooks": {"PreToolUse": [
        old["hooks"]["PreToolUse"][0]]}}


def test_installed_lean_command_runs_from_anywhere(tmp_path, project):
    """Claude Code runs the command through a shell, in the agent's cwd, with the agent's
    environment: a PYTHONPATH or a json.py there, or a PATH without the venv, change
    nothing."""
    import subprocess

    path = tmp_path / "settings.json"
    ops.install(settings_file=str(path))
    cmd = json.loads(path.read_text())["hooks"]["PermissionRequest"][0]["hooks"][0]["command"]
    evil = tmp_path / "evil"
    (evil / "gateway").mkdir(parents=True)
    (evil / "gateway" / "__init__.py").write_text("raise SystemExit('hijacked')\n")
    for name in ("json.py", "re.py", "os.py", "bashlex.py"):
        (evil / name).write_text("raise SystemExit('hijacked')\n")
    env = {k: v for k, v in os.environ.items() if k.startswith(("GATEWAY_", "XDG_"))}
    env.update(PATH=str(tmp_path / "nothing"), PYTHONPATH=str(evil), PYTHONHOME=str(evil),
               HOME=os.environ["HOME"], CLAUDE_PROJECT_DIR=project, GATEWAY_RESIDENT="off")
    for command, expected in (("git status", '"behavior": "allow"'), ("cat .env", "")):
        body = json.dumps({"cwd": project, "tool_name": "Bash",
                           "tool_input": {"command": command}})
        p = subprocess.run(["/bin/sh", "-c", cmd], input=body, text=True, cwd=evil, env=env,
                           capture_output=True, timeout=120)
        assert p.returncode == 0, p.stderr
        assert (expected in p.stdout) if expected else p.stdout == "", (command, p.stdout)


@pytest.mark.parametrize("name", [n for n in STYLES if n not in ("hand-formatted",)])
def test_round_trip_without_the_record_keeps_the_files_own_style(tmp_path, gw, name):
    """A teammate's machine has no record: the file's detected style still gives it back."""
    path = tmp_path / "settings.json"
    path.write_bytes(STYLES[name])
    install(path, gw)
    backup.drop_record(str(path))
    uninstall(path)
    if name == "empty hooks object":
        # without the record, the empty "hooks" the gateway filled looks like its own
        assert json.loads(path.read_bytes()) == {"model": "x"}
    elif name == "empty file":
        assert path.read_bytes() == b"{}\n"
    else:
        assert path.read_bytes() == STYLES[name]


def test_installed_file_keeps_the_style(tmp_path, gw):
    path = tmp_path / "s.json"
    path.write_bytes(STYLES["tabs"])
    install(path, gw)
    text = path.read_text()
    assert text.endswith("}\n") and "\n\t\"hooks\": {\n\t\t" in text


def test_file_created_by_install_is_removed_with_its_folder(tmp_path, gw):
    project = tmp_path / "proj"
    project.mkdir()
    res = ops.install("project", str(project), gateway_path=gw)
    path = project / ".claude" / "settings.json"
    assert res.path == str(path) and path.exists() and res.backup is None
    res = ops.uninstall("project", str(project))
    assert res.removed_file and not path.exists() and not (project / ".claude").exists()


@pytest.mark.parametrize("order", [("project", "local"), ("local", "project")])
def test_folder_created_by_install_goes_when_both_project_files_are_uninstalled(
        tmp_path, gw, order):
    project = tmp_path / "proj"
    project.mkdir()
    ops.install("project", str(project), gateway_path=gw)  # creates .claude/
    ops.install("local", str(project), gateway_path=gw)
    ops.uninstall(order[0], str(project))  # .claude/ still holds the other file
    assert (project / ".claude").is_dir()
    ops.uninstall(order[1], str(project))
    assert not (project / ".claude").exists()


def test_folder_that_was_there_stays(tmp_path, gw):
    project = tmp_path / "proj"
    (project / ".claude").mkdir(parents=True)
    ops.install("project", str(project), gateway_path=gw)
    ops.install("local", str(project), gateway_path=gw)
    ops.uninstall("local", str(project))
    ops.uninstall("project", str(project))
    assert (project / ".claude").is_dir() and not any((project / ".claude").iterdir())


def test_user_changes_after_install_survive_uninstall(tmp_path, gw):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(OTHERS, indent=2))
    install(path, gw)
    data = json.loads(path.read_text())
    data["permissions"]["allow"].append("Bash(make)")  # e.g. "always allow" in a dialog
    path.write_text(json.dumps(data, indent=2))
    res = uninstall(path)
    assert res.changed and not res.restored
    after = json.loads(path.read_text())
    assert after["permissions"]["allow"] == ["Bash(npm test)", "Bash(make)"]
    assert after["hooks"] == OTHERS["hooks"]
    assert not merge.owned(after)


@pytest.mark.parametrize("before,after", [
    ("1", "true"),       # Python: 1 == True
    ("0", "false"),      # 0 == False
    ("1", "1.0"),        # 1 == 1.0
    ("true", "1.0"),
])
def test_a_value_whose_type_changed_after_install_survives_uninstall(tmp_path, gw, before,
                                                                     after):
    """Uninstall gives back the recorded original bytes only when nothing but the gateway's
    entries changed. `1 -> true` (or `1 -> 1.0`) is a change in JSON, even though the two
    compare equal in Python; it must not be thrown away by restoring the original."""
    path = tmp_path / "s.json"
    path.write_text(f'{{\n  "includeCoAuthoredBy": {before}\n}}\n')
    install(path, gw)
    data = json.loads(path.read_text())
    data["includeCoAuthoredBy"] = json.loads(after)  # the user edits the value
    path.write_text(json.dumps(data, indent=2) + "\n")
    res = uninstall(path)
    assert res.changed and not res.restored
    assert path.read_text() == f'{{\n  "includeCoAuthoredBy": {after}\n}}\n'


def test_round_trip_gives_back_the_file_mode_an_http_install_narrowed(tmp_path, gw):
    """An http install makes the settings file private (it holds the token); the round trip
    gives the file back as it was, permission bits included."""
    path = tmp_path / "settings.local.json"
    path.write_bytes(STYLES["4 spaces + newline"])
    path.chmod(0o644)
    install(path, gw)
    install(path, gw, http=True, port=9913)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    res = uninstall(path)
    assert res.restored and path.read_bytes() == STYLES["4 spaces + newline"]
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


def test_reinstall_keeps_the_first_original(tmp_path, gw, fake_guard):
    path = tmp_path / "s.json"
    path.write_bytes(STYLES["hand-formatted"])
    fake_guard.MATCHER = "Write"
    install(path, gw)
    fake_guard.MATCHER = "Write|Edit"  # a new release changes a matcher
    assert [c.action for c in install(path, gw).changes] == ["keep", "update"]
    uninstall(path)
    assert path.read_bytes() == STYLES["hand-formatted"]


def test_backups_hold_the_previous_bytes(tmp_path, gw):
    path = tmp_path / "s.json"
    path.write_bytes(b'{"model": "x"}')
    res = install(path, gw)
    assert Path(res.backup).read_bytes() == b'{"model": "x"}'
    installed = path.read_bytes()
    res = uninstall(path)
    assert Path(res.backup).read_bytes() == installed


def test_symlinked_settings_stay_a_symlink(tmp_path, gw):
    real = tmp_path / "dotfiles" / "settings.json"
    real.parent.mkdir()
    real.write_text('{"model": "x"}')
    link = tmp_path / "settings.json"
    link.symlink_to(real)
    install(link, gw)
    assert link.is_symlink() and "hooks" in json.loads(real.read_text())
    uninstall(link)
    assert link.is_symlink() and real.read_text() == '{"model": "x"}'


def test_file_mode_is_kept(tmp_path, gw):
    path = tmp_path / "s.json"
    path.write_text("{}")
    path.chmod(0o600)
    install(path, gw)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_dry_run_writes_nothing(tmp_path, gw):
    path = tmp_path / "s.json"
    path.write_text('{"model": "x"}')
    res = install(path, gw, dry_run=True)
    assert res.changed and "+" in res.diff and "permission-request" in res.diff
    assert path.read_text() == '{"model": "x"}'
    assert backup.read_record(str(path)) is None
    install(path, gw)
    res = uninstall(path, dry_run=True)
    assert res.changed and "permission-request" in res.diff and merge.owned(
        json.loads(path.read_text()))


# --- refusing what cannot be merged safely -------------------------------------------------


@pytest.mark.parametrize("content,words", [
    (b'{"model": "x",\n  "hooks": {,}}', r"s\.json:2:\d+: invalid JSON"),
    (b'{"hooks": {}, "hooks": {}}', "appears twice"),
    (b"[1, 2]", "top level must be a JSON object"),
    (b'{"hooks": []}', '"hooks" must be an object'),
    (b'{"hooks": {"PreToolUse": {}}}', "must be a list"),
    (b'{"hooks": {"PreToolUse": [1]}}', r"PreToolUse\[0\] must be an object"),
    (b"\xff\xfe{}", "not UTF-8"),
])
def test_unusable_settings_are_refused_untouched(tmp_path, gw, content, words):
    path = tmp_path / "s.json"
    path.write_bytes(content)
    with pytest.raises(InstallError, match=words):
        install(path, gw)
    assert path.read_bytes() == content


def test_scopes_and_project_discovery(tmp_path, monkeypatch):
    proj = tmp_path / "repo"
    (proj / ".git").mkdir(parents=True)
    (proj / "src" / "deep").mkdir(parents=True)
    assert ops.find_project(str(proj / "src" / "deep")) == str(proj)
    (proj / "src" / ".claude").mkdir()
    assert ops.find_project(str(proj / "src" / "deep")) == str(proj / "src")
    assert ops.settings_path("project", str(proj)) == str(proj / ".claude" / "settings.json")
    assert ops.settings_path("local", str(proj)) == \
        str(proj / ".claude" / "settings.local.json")
    assert ops.settings_path("user") == str(tmp_path / "userclaude" / "settings.json")
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(proj))
    assert ops.find_project(str(tmp_path)) == str(proj)


def test_home_claude_dir_is_not_a_project(tmp_path, monkeypatch):
    home = tmp_path / "h"
    (home / ".claude").mkdir(parents=True)
    (home / "work").mkdir()
    assert ops.find_project(str(home / "work"), {"HOME": str(home)}) == str(home / "work")


# --- http ----------------------------------------------------------------------------------


def test_http_install_local_scope_holds_the_token_privately(tmp_path, gw):
    project = tmp_path / "p"
    project.mkdir()
    res = ops.install("local", str(project), http=True, port=9911, gateway_path=gw)
    path = Path(res.path)
    assert path.name == "settings.local.json"
    assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0
    h = json.loads(path.read_text())["hooks"]["PermissionRequest"][0]["hooks"][0]
    assert h["type"] == "http" and h["url"] == "http://127.0.0.1:9911/hook/permission-request"
    assert h["headers"]["Authorization"].startswith("Bearer ") and len(
        h["headers"]["Authorization"]) > 30
    assert h["headers"]["X-Gateway-Project"] == str(project)
    assert "<token>" in ops.install("local", str(project), http=True, port=9912,
                                    gateway_path=gw, dry_run=True).diff
    assert not ops.install("local", str(project), http=True, port=9911, gateway_path=gw).changed
    ops.uninstall("local", str(project))
    assert not path.exists()


def test_http_install_project_scope_reads_the_token_from_the_environment(tmp_path, gw,
                                                                         fake_guard):
    project = tmp_path / "p"
    project.mkdir()
    res = ops.install("project", str(project), http=True, gateway_path=gw)
    hooks = json.loads(Path(res.path).read_text())["hooks"]
    h = hooks["PermissionRequest"][0]["hooks"][0]
    assert h["headers"]["Authorization"] == "Bearer ${GATEWAY_SERVE_TOKEN}"
    assert h["allowedEnvVars"] == ["GATEWAY_SERVE_TOKEN"]
    # every hook goes over http; the guards with onFailure: block (a server that is down
    # blocks the call, never "no guard"), the others without (down = no decision)
    from gateway.hooks import runner

    by_event = {e: [h for g in gs for h in g["hooks"]] for e, gs in hooks.items()}
    assert {runner.module_for(n).EVENT for n in runner.events()} == set(by_event)
    for event, handlers in by_event.items():
        assert [h["type"] for h in handlers] == ["http"], event
        assert handlers[0].get("onFailure") == ("block" if event == "PreToolUse" else None), event
    assert any("GATEWAY_SERVE_TOKEN" in n for n in res.notes)
    # switching back to command handlers replaces the http one
    ops.install("project", str(project), gateway_path=gw)
    hooks = json.loads(Path(res.path).read_text())["hooks"]
    assert [g["hooks"][0]["type"] for g in hooks["PermissionRequest"]] == ["command"]
    assert {g["hooks"][0]["type"] for gs in hooks.values() for g in gs} == {"command"}


def test_http_install_no_early_allow_is_a_header_the_server_honours(tmp_path, gw,
                                                                  real_hooks):
    project = tmp_path / "p"
    project.mkdir()
    res = ops.install("local", str(project), http=True, port=9914, gateway_path=gw,
                      early_allow=False)
    hooks = json.loads(Path(res.path).read_text())["hooks"]
    assert hooks["PreToolUse"][0]["hooks"][0]["headers"]["X-Gateway-Early-Allow"] == "0"
    assert "X-Gateway-Early-Allow" not in hooks["PermissionRequest"][0]["hooks"][0]["headers"]


# --- the command line and the plugin layout ------------------------------------------------


def run_cli(*args, cwd=None):
    runner = CliRunner()
    old = os.getcwd()
    try:
        if cwd:
            os.chdir(cwd)
        return runner.invoke(cli, list(args), catch_exceptions=False)
    finally:
        os.chdir(old)


def test_cli_install_uninstall(tmp_path, gw):
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    r = run_cli("install", "--gateway-path", gw, cwd=proj)
    assert r.exit_code == 0, r.output
    assert "add" in r.output and ".claude/settings.json" in r.output
    assert "gateway doctor" in r.output
    r = run_cli("install", "--gateway-path", gw, cwd=proj)
    assert "already up to date" in r.output
    r = run_cli("uninstall", cwd=proj)
    assert r.exit_code == 0 and "removed" in r.output
    r = run_cli("uninstall", cwd=proj)
    assert r.exit_code == 0 and "nothing to uninstall" in r.output


def test_cli_install_errors_exit_3_and_say_where(tmp_path, gw):
    path = tmp_path / "s.json"
    path.write_text('{"a": 1,,}')
    r = run_cli("install", "--settings", str(path), "--gateway-path", gw)
    assert r.exit_code == 3
    assert f"{path}:1:" in r.output and "nothing was changed" in r.output
    r = run_cli("install", "--port", "1234")
    assert r.exit_code == 2 and "--http" in r.output
    r = run_cli("install", "--settings", str(path), "--gateway-path", gw, "--launcher", "lean")
    assert r.exit_code == 2 and "--launcher script" in r.output


def test_cli_launcher_option(tmp_path, gw):
    path = tmp_path / "s.json"
    r = run_cli("install", "--settings", str(path), "--launcher", "script", "--gateway-path",
                gw)
    assert r.exit_code == 0, r.output
    assert _gateway_commands(path) == [f"{gw} hook permission-request"]
    r = run_cli("install", "--settings", str(path))
    assert r.exit_code == 0 and "update" in r.output and " -I -S -c <gateway from " in r.output
    assert entries.parse_command(_gateway_commands(path)[0]).kind == "lean"


def test_cli_dry_run_shows_diff(tmp_path, gw):
    path = tmp_path / "s.json"
    path.write_text("{}")
    r = run_cli("install", "--settings", str(path), "--gateway-path", gw, "--dry-run")
    assert r.exit_code == 0 and "dry run: nothing was written" in r.output
    assert '+  "hooks": {' in r.output and path.read_text() == "{}"


def test_plugin_hooks_json_is_generated_from_the_hook_modules(real_hooks):
    """hooks/hooks.json must list exactly the implemented hooks. When a hook module is added,
    regenerate it: gateway install --plugin-hooks > hooks/hooks.json"""
    on_disk = json.loads((REPO / "hooks" / "hooks.json").read_text())
    assert on_disk == entries.plugin_hooks(), \
        "hooks/hooks.json is stale: run `gateway install --plugin-hooks > hooks/hooks.json`"
    r = run_cli("install", "--plugin-hooks")
    assert json.loads(r.output) == on_disk


def test_plugin_manifest_and_launcher():
    manifest = json.loads((REPO / ".claude-plugin" / "plugin.json").read_text())
    assert manifest["name"] == "gateway"
    import gateway
    assert manifest["version"] == gateway.__version__
    launcher = REPO / "hooks" / "gateway-hook"
    assert os.access(launcher, os.X_OK)


def test_plugin_launcher_finds_the_gateway(tmp_path):
    import subprocess
    launcher = str(REPO / "hooks" / "gateway-hook")
    payload = json.dumps({"tool_name": "Bash", "tool_input": {"command": "ls"},
                          "cwd": str(tmp_path)})
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "GATEWAY_BIN": GW,
           "GATEWAY_AUDIT_LOG": "off", "GATEWAY_CACHE_DIR": str(tmp_path / "c"),
           "GATEWAY_USER_RULES": str(tmp_path / "none.yaml")}
    p = subprocess.run([launcher, "permission-request"], input=payload, text=True,
                       capture_output=True, env=env, timeout=60)
    assert p.returncode == 0 and '"behavior": "allow"' in p.stdout, p.stderr
    env.pop("GATEWAY_BIN")
    env["PATH"] = str(tmp_path / "empty")
    p = subprocess.run(["/bin/sh", launcher, "permission-request"], input=payload, text=True,
                       capture_output=True, env=env, timeout=60)
    assert p.returncode == 1 and p.stdout == "" and "not installed" in p.stderr
    p = subprocess.run(["/bin/sh", launcher, "x; rm -rf /"], input=payload, text=True,
                       capture_output=True, env=env, timeout=60)
    assert p.returncode == 1 and "bad hook name" in p.stderr


def test_jsonfile_style_detection_examples():
    for text in (b'{\n  "a": [\n    1\n  ]\n}', b'{"a": [1]}\n', b'{\n\t"a": 1\n}'):
        data, style = jsonfile.parse(text)
        assert jsonfile.dumps(data, style).encode() == text


# --- settings.local.json stays out of git, as the client keeps it --------------------------

def _git(*args, cwd, env):
    import subprocess

    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True)


@pytest.mark.parametrize("configured", [False, True])
def test_local_install_makes_git_ignore_the_local_settings(tmp_path, real_hooks, monkeypatch,
                                                           configured):
    """Reproducer (issue 12): --scope local left .claude/settings.local.json untracked but
    not ignored. The client adds **/.claude/settings.local.json to the global excludes file
    (core.excludesFile, else ~/.config/git/ignore); install does the same."""
    home = tmp_path / "home"
    home.mkdir()
    env = {"HOME": str(home), "PATH": os.environ["PATH"], "XDG_STATE_HOME": str(tmp_path / "s")}
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    target = home / ".config" / "git" / "ignore"
    if configured:
        target = tmp_path / "my-excludes"
        _git("config", "--global", "core.excludesFile", str(target), cwd=tmp_path, env=env)
    proj = tmp_path / "proj"
    proj.mkdir()
    _git("init", "-q", cwd=proj, env=env)
    res = ops.install("local", str(proj))
    local = proj / ".claude" / "settings.local.json"
    assert any(str(target) in n and "git now ignores" in n for n in res.notes), res.notes
    assert target.read_text().splitlines() == ["**/.claude/settings.local.json"]
    assert _git("check-ignore", "-q", str(local), cwd=proj, env=env).returncode == 0
    assert _git("status", "--porcelain", "--untracked-files=all", cwd=proj,
                env=env).stdout.strip() == ""
    # a second install (or one where git already ignores it) changes nothing there
    local.unlink()
    res = ops.install("local", str(proj))
    assert not any("git now ignores" in n for n in res.notes), res.notes
    assert target.read_text().splitlines() == ["**/.claude/settings.local.json"]


def test_project_install_touches_no_git_excludes(tmp_path, real_hooks, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    proj = tmp_path / "proj"
    proj.mkdir()
    _git("init", "-q", cwd=proj, env=dict(os.environ))
    ops.install("project", str(proj))
    assert not (home / ".config" / "git" / "ignore").exists()


def _local_env(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {"HOME": str(home), "PATH": os.environ["PATH"], "XDG_STATE_HOME": str(tmp_path / "s")}
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    return env, home / ".config" / "git" / "ignore"


def _repo(tmp_path, name, env):
    proj = tmp_path / name
    proj.mkdir()
    _git("init", "-q", cwd=proj, env=env)
    return proj


def test_uninstall_takes_out_the_excludes_line_install_added(tmp_path, real_hooks,
                                                              monkeypatch):
    """Issue 25: `install --scope local` left its line in ~/.config/git/ignore after
    uninstall. It goes again once no other local install relies on it; a file install
    created goes with it."""
    env, target = _local_env(tmp_path, monkeypatch)
    a, b = _repo(tmp_path, "a", env), _repo(tmp_path, "b", env)
    ops.install("local", str(a))
    ops.install("local", str(b))  # git ignores it already: b adds nothing
    assert target.read_text().splitlines() == ["**/.claude/settings.local.json"]
    res = ops.uninstall("local", str(b))
    assert target.exists() and not any("took" in n for n in res.notes), res.notes
    res = ops.uninstall("local", str(a))
    assert any("took **/.claude/settings.local.json out of" in n for n in res.notes), res.notes
    assert not target.exists()


def test_uninstall_keeps_an_excludes_line_that_was_there_before(tmp_path, real_hooks,
                                                                  monkeypatch):
    env, target = _local_env(tmp_path, monkeypatch)
    target.parent.mkdir(parents=True)
    target.write_text("*.swp\n**/.claude/settings.local.json\n")  # Claude Code's own
    a = _repo(tmp_path, "a", env)
    ops.install("local", str(a))
    ops.uninstall("local", str(a))
    assert target.read_text() == "*.swp\n**/.claude/settings.local.json\n"
    # added by install to a file the user had: only the line goes
    target.write_text("*.swp\n")
    ops.install("local", str(a))
    assert target.read_text() == "*.swp\n**/.claude/settings.local.json\n"
    ops.uninstall("local", str(a))
    assert target.read_text() == "*.swp\n"


def test_uninstall_in_the_wrong_scope_names_the_right_one(tmp_path, real_hooks, monkeypatch):
    """Issue 25: with the hooks in settings.local.json, `gateway uninstall` said only "no
    gateway hooks in .claude/settings.json"."""
    env, _target = _local_env(tmp_path, monkeypatch)
    proj = _repo(tmp_path, "p", env)
    ops.install("local", str(proj))
    res = ops.uninstall("project", str(proj))
    assert any("settings.local.json (`gateway uninstall --scope local`)" in n
               for n in res.notes), res.notes
    r = CliRunner().invoke(cli, ["uninstall", "--project", str(proj)])
    assert "--scope local" in r.output, r.output
    (proj / ".claude" / "settings.json").write_text("{}\n")
    res = ops.uninstall("project", str(proj))
    assert any("no gateway hooks in" in n and "--scope local" in n for n in res.notes)


def test_install_keeps_the_files_layout_inline_arrays_included(tmp_path, gw):
    """Issue 25: install reflowed `"allow": ["Bash(tox:*)", "Read"]` onto five lines;
    getting-started promises the file keeps its formatting. Only the hooks member is
    written; uninstall gives the bytes back."""
    path = tmp_path / "settings.json"
    text = ('{\n  "permissions": {\n    "allow": ["Bash(tox:*)", "Read"],\n'
            '    "deny": []\n  },\n  "model": "sonnet"\n}\n')
    path.write_text(text)
    install(path, gw)
    now = path.read_text()
    assert now.startswith('{\n  "permissions": {\n    "allow": ["Bash(tox:*)", "Read"],\n'
                          '    "deny": []\n  },\n  "model": "sonnet",\n  "hooks": {\n'), now
    assert json.loads(now)["hooks"]["PermissionRequest"]
    uninstall(path)
    assert path.read_text() == text
    # a file whose hooks the user changed since: still only the hooks member is rewritten
    install(path, gw)
    data = json.loads(path.read_text())
    data["hooks"]["Stop"] = [{"hooks": [{"type": "command", "command": "echo"}]}]
    path.write_text(path.read_text().replace('  "hooks": {\n', '  "hooks": {\n    "Stop": '
                                             '[{"hooks": [{"type": "command", "command": '
                                             '"echo"}]}],\n', 1))
    assert json.loads(path.read_text()) == data
    uninstall(path)
    assert '"allow": ["Bash(tox:*)", "Read"],' in path.read_text()
    assert json.loads(path.read_text())["hooks"] == {"Stop": data["hooks"]["Stop"]}


def test_http_install_opens_the_sandbox_proxy_to_the_servers_port_only(tmp_path, gw):
    """Claude Code sends http hooks through its sandbox's network proxy, which refuses (403)
    a host the sandbox does not allow: every guard would then block every call. `--http`
    with the sandbox adds `127.0.0.1:PORT` (that port only) to network.allowedDomains; an
    install without --http takes it out again, and so does uninstall."""
    from gateway.sandbox.configure import Choice

    project = tmp_path / "p"
    project.mkdir()
    path = project / ".claude" / "settings.local.json"
    path.parent.mkdir()
    path.write_text('{"sandbox": {"network": {"allowedDomains": ["example.com"]}}}\n')
    ops.install("local", str(project), http=True, port=9917, gateway_path=gw,
                sandbox=Choice("on"))
    sb = json.loads(path.read_text())["sandbox"]
    assert sb["network"]["allowedDomains"] == ["example.com", "127.0.0.1:9917"]
    ops.install("local", str(project), http=True, port=9918, gateway_path=gw,
                sandbox=Choice("on"))
    sb = json.loads(path.read_text())["sandbox"]
    assert sb["network"]["allowedDomains"] == ["example.com", "127.0.0.1:9918"]
    ops.install("local", str(project), gateway_path=gw, sandbox=Choice("on"))
    sb = json.loads(path.read_text())["sandbox"]
    assert sb["network"]["allowedDomains"] == ["example.com"]
    ops.install("local", str(project), http=True, port=9917, gateway_path=gw,
                sandbox=Choice("on"))
    ops.uninstall("local", str(project))
    assert json.loads(path.read_text()) == {"sandbox": {"network": {"allowedDomains":
                                                                    ["example.com"]}}}
    # no network list before: none after
    path.write_text("{}\n")
    ops.install("local", str(project), http=True, port=9917, gateway_path=gw,
                sandbox=Choice("on"))
    assert json.loads(path.read_text())["sandbox"]["network"] == {
        "allowedDomains": ["127.0.0.1:9917"]}
    ops.uninstall("local", str(project))
    assert json.loads(path.read_text()) == {}
    # a network block of another shape is the user's to fix, never guessed at
    path.write_text('{"sandbox": {"network": {"allowedDomains": "127.0.0.1"}}}\n')
    with pytest.raises(InstallError, match="sandbox.network.allowedDomains must be a list"):
        ops.install("local", str(project), http=True, port=9917, gateway_path=gw,
                    sandbox=Choice("on"))
