"""The real PreToolUse hook command (`gateway hook pre-tool-use`, the installed console script),
fed raw JSON on stdin as Claude Code feeds it, with and without agent_id: stdout is exactly one
deny object (hookEventName "PreToolUse", permissionDecision "deny", a reason with the GW code)
or nothing, and the exit code is 0 -- for good input, for every seed-origins §D.2 bypass, and
for hostile input (which is denied, never allowed, never a crash).

seed-origins §D.2's lesson: "test from raw JSON through the full pipeline" (the Go port's
unit tests passed on hand-built input while the wire path was dead)."""

import json
import os
import subprocess

import pytest

from tests.helpers import make_project

SESSION = "1807a74b-1111-4111-8111-111111111111"
EXPECTED_KEYS = {"hookEventName", "permissionDecision", "permissionDecisionReason"}


@pytest.fixture()
def proj(tmp_path_factory):
    # not below tmp_path: hook_env keeps the audit log there, a directory the gateway protects
    root = make_project(tmp_path_factory.mktemp("pretool") / "proj")
    os.makedirs(os.path.join(root, ".claude", "state"))
    return root


@pytest.fixture(scope="module")
def policy_cache(tmp_path_factory):
    """One compiled-policy cache for the module (a cold cache compiles the rules: slow)."""
    return str(tmp_path_factory.mktemp("pretool-cache"))


@pytest.fixture()
def hook(run_hook, hook_env, policy_cache):
    """hook(data) -> CompletedProcess of `gateway hook pre-tool-use`. Early allow is off
    (GATEWAY_EARLY_ALLOW=0): these tests are about the guards; test_hook_modes covers the
    allow and ask answers.

    A Write that PreToolUse does not refuse is then carried out as the client does: the
    file is written and `gateway hook post-tool-use` gets the PostToolUse payload (which
    records a role from a marker Write). `complete=False` stops after PreToolUse (the
    client or the human refused the Write)."""
    hook_env["GATEWAY_CACHE_DIR"] = policy_cache
    hook_env["GATEWAY_EARLY_ALLOW"] = "0"

    def _hook(data, env_extra=None, complete=True):
        proc = run_hook("pre-tool-use", data, env_extra)
        if complete and isinstance(data, dict) and data.get("tool_name") == "Write" \
                and b'"deny"' not in proc.stdout and b'"ask"' not in proc.stdout:
            post = complete_write(data)
            if post is not None:
                after = run_hook("post-tool-use", post, env_extra)
                assert after.returncode == 0 and after.stdout == b"", after.stdout
        return proc

    return _hook


def complete_write(data):
    """Write the file as the client would; the PostToolUse payload (None: not written)."""
    ti = data.get("tool_input") or {}
    path, content = ti.get("file_path"), ti.get("content")
    if not (isinstance(path, str) and isinstance(content, str)):
        return None
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as fh:
            fh.write(content)
    except OSError:
        return None
    post = dict(data, hook_event_name="PostToolUse",
                tool_response={"type": "create", "filePath": path, "content": content,
                               "structuredPatch": [], "originalFile": None})
    return post


def event(tool, tool_input, cwd, agent_id=None, session_id=SESSION, **extra):
    """A PreToolUse payload in the measured 2.1.330 shape (claude-code-hooks §4)."""
    data = {"session_id": session_id, "transcript_path": f"/home/u/.claude/projects/x/{SESSION}"
            ".jsonl", "cwd": cwd, "prompt_id": "1238d7be-0000-4000-8000-000000000000",
            "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": tool,
            "tool_input": tool_input, "tool_use_id": "toolu_17f2af1528f844cb8ea6"}
    if agent_id is not None:
        data["agent_id"] = agent_id
        data["agent_type"] = "general-purpose"
    data.update(extra)
    return data


def bash(command, cwd, **kw):
    return event("Bash", {"command": command, "description": "run it"}, cwd, **kw)


def write(path, cwd, content="x\n", **kw):
    return event("Write", {"file_path": path, "content": content}, cwd, **kw)


def marker(proj, name, role, owns=None, **kw):
    body = {"role": role} if owns is None else {"role": role, "owns": owns}
    return write(os.path.join(proj, f".claude/state/breezing-role-{name}.json"), proj,
                 json.dumps(body), **kw)


def denied(proc, code):
    """The reason of the one deny object on stdout; asserts the exact shape and code."""
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode("utf-8")
    assert out.endswith("\n") and out.count("\n") == 1, out
    obj = json.loads(out)
    assert list(obj) == ["hookSpecificOutput"], obj
    hso = obj["hookSpecificOutput"]
    assert set(hso) == EXPECTED_KEYS, hso
    assert hso["hookEventName"] == "PreToolUse"
    assert hso["permissionDecision"] == "deny"
    reason = hso["permissionDecisionReason"]
    assert reason.startswith(f"gateway {code}: "), (code, reason)
    return reason


def silent(proc):
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == b"", proc.stdout
    return True


def roles(proj):
    path = os.path.join(proj, ".claude/state/breezing-session-roles.json")
    return json.load(open(path)) if os.path.exists(path) else {}


# --- no decision ----------------------------------------------------------------------------

def test_ordinary_calls_print_nothing(hook, proj):
    assert silent(hook(write(os.path.join(proj, "src/app.py"), proj)))
    assert silent(hook(write(os.path.join(proj, "src/app.py"), proj, agent_id="agent-a")))
    assert silent(hook(bash("git status", proj)))
    # npm test runs the project's own script (the trust of `make test`, issue 13)
    assert silent(hook(bash("npm test", proj, agent_id="agent-a")))
    # npx of a package the project has not installed downloads it: what it reads cannot be
    # known, so the reads guard asks (no role objects)
    out = hook(bash("npx cowsay hi", proj, agent_id="agent-a"))
    assert b'"permissionDecision": "ask"' in out.stdout and b"GW840" in out.stdout, out.stdout
    assert silent(hook(event("Read", {"file_path": os.path.join(proj, "README.md")}, proj)))
    assert silent(hook(event("TaskList", {}, proj)))


def test_never_allow_never_ask(hook, proj):
    for data in (bash("git status", proj), bash("cat README.md", proj),
                 write(os.path.join(proj, "tests/test_x.py"), proj),  # harness auto-allowed it
                 write(os.path.join(proj, "src/a.ts"), proj),
                 event("Edit", {"file_path": os.path.join(proj, "README.md"),
                                "old_string": "a", "new_string": "b"}, proj)):
        proc = hook(data)
        assert silent(proc)
        assert b"allow" not in proc.stdout and b"ask" not in proc.stdout


# --- the core's hard denies, every tool -------------------------------------------------------

@pytest.mark.parametrize("agent_id", [None, "agent-a"])
def test_catastrophic_bash_is_denied(hook, proj, agent_id):
    reason = denied(hook(bash("rm -rf /", proj, agent_id=agent_id)), "GW750")
    assert "root" in reason
    denied(hook(bash(":(){ :|:& };:", proj, agent_id=agent_id)), "GW750")


@pytest.mark.parametrize("agent_id", [None, "agent-a"])
@pytest.mark.parametrize("tool,key,extra", [
    ("Write", "file_path", {"content": "{}"}),
    ("Edit", "file_path", {"old_string": "deny", "new_string": "allow"}),
    ("MultiEdit", "file_path", {"edits": [{"old_string": "deny", "new_string": "allow"}]}),
    ("NotebookEdit", "notebook_path", {"new_source": "x"}),
])
def test_settings_are_denied_for_every_file_tool(hook, proj, agent_id, tool, key, extra):
    for rel in (".claude/settings.json", ".claude/settings.local.json"):
        ti = {key: os.path.join(proj, rel), **extra}
        reason = denied(hook(event(tool, ti, proj, agent_id=agent_id)), "GW832")
        assert "protected" in reason


@pytest.mark.parametrize("agent_id", [None, "agent-a"])
def test_settings_are_denied_for_bash(hook, proj, agent_id, hook_env):
    for command in ("echo '{}' > .claude/settings.json", "cp x .claude/settings.local.json",
                    "sed -i s/deny/allow/ .claude/settings.json",
                    "echo '{}' > ~/.claude/settings.json"):
        denied(hook(bash(command, proj, agent_id=agent_id)), "GW835")


def test_home_settings_through_a_tilde_file_path(hook, proj):
    denied(hook(write("~/.claude/settings.json", proj)), "GW832")


def test_escapes(hook, proj):
    denied(hook(write(os.path.join(proj, "src/../../outside.txt"), proj)), "GW830")
    denied(hook(write(os.path.join(proj, "lnk/hosts"), proj)), "GW831")  # lnk -> /etc


# --- seed-origins §D.2, every row, through the real hook --------------------------------------

def test_d2_reviewer_reregistering_as_lead(hook, proj):
    assert silent(hook(marker(proj, "reviewer", "reviewer", agent_id="agent-rev")))
    assert roles(proj)["agent-rev"]["role"] == "reviewer"
    reason = denied(hook(marker(proj, "reviewer", "lead", agent_id="agent-rev")), "GW805")
    assert "reviewer" in reason and "lead" in reason
    assert roles(proj)["agent-rev"]["role"] == "reviewer"
    denied(hook(write(os.path.join(proj, "src/x.ts"), proj, agent_id="agent-rev")), "GW801")


def test_d2_reviewer_traversal(hook, proj):
    assert silent(hook(marker(proj, "reviewer", "reviewer", agent_id="agent-rev")))
    path = os.path.join(proj, ".claude/state/../../src/x.ts")
    denied(hook(write(path, proj, agent_id="agent-rev")), "GW801")
    assert not os.path.exists(os.path.join(proj, "src/x.ts"))


def test_d2_reviewer_symlink_escape(hook, proj):
    assert silent(hook(marker(proj, "reviewer", "reviewer", agent_id="agent-rev")))
    # the reviewer cannot make the link ...
    denied(hook(bash(f"ln -s {proj}/src .claude/state/escape", proj, agent_id="agent-rev")),
           "GW802")
    # ... and a link that is there anyway does not let it out
    os.symlink(os.path.join(proj, "src"), os.path.join(proj, ".claude/state/escape"))
    denied(hook(write(os.path.join(proj, ".claude/state/escape/x.ts"), proj,
                      agent_id="agent-rev")), "GW801")


def test_d2_session_id_registration_does_not_poison_the_lead(hook, proj):
    assert silent(hook(marker(proj, "reviewer", "reviewer", agent_id="agent-rev")))
    assert set(roles(proj)) == {"agent-rev"}
    # the Lead: same session_id, no agent_id
    assert silent(hook(write(os.path.join(proj, "src/app.py"), proj)))
    assert silent(hook(bash("echo x > src/new.py", proj)))
    denied(hook(write(os.path.join(proj, "src/app.py"), proj, agent_id="agent-rev")), "GW801")


@pytest.mark.parametrize("command", [
    "/usr/bin/git commit -m x", "git -c a=b commit -m x", "command git push",
    "git commit -m x", "env git push origin main",
])
def test_d2_implementer_commit_spellings(hook, proj, command):
    assert silent(hook(marker(proj, "impl-1", "implementer", ["src/auth/**"],
                              agent_id="agent-impl")))
    denied(hook(bash(command, proj, agent_id="agent-impl")), "GW804")


@pytest.mark.parametrize("command", [
    "python3 -c \"open('src/x.ts','w').write('x')\"", "install -m 644 /dev/null src/x.ts",
    "dd if=/dev/zero of=src/x.ts count=1", "perl -i -pe s/a/b/ src/app.py",
    "git apply fix.patch",
])
def test_d2_reviewer_bash_bypasses(hook, proj, command):
    assert silent(hook(marker(proj, "reviewer", "reviewer", agent_id="agent-rev")))
    denied(hook(bash(command, proj, agent_id="agent-rev")), "GW802")
    assert silent(hook(bash("git diff", proj, agent_id="agent-rev")))


def test_d2_multiedit_is_matched(hook, proj):
    assert silent(hook(marker(proj, "reviewer", "reviewer", agent_id="agent-rev")))
    ti = {"file_path": os.path.join(proj, "src/app.py"),
          "edits": [{"old_string": "a", "new_string": "b"}]}
    denied(hook(event("MultiEdit", ti, proj, agent_id="agent-rev")), "GW801")


def test_owns_prefix_does_not_admit_a_sibling(hook, proj):
    assert silent(hook(marker(proj, "impl-1", "implementer", ["src/auth/**"],
                              agent_id="agent-impl")))
    assert silent(hook(write(os.path.join(proj, "src/auth/x.ts"), proj, agent_id="agent-impl")))
    denied(hook(write(os.path.join(proj, "src/authz/x.ts"), proj, agent_id="agent-impl")),
           "GW803")


def test_teammate_main_thread_registers_on_its_session_id(hook, proj):
    other = "99999999-9999-4999-8999-999999999999"
    assert silent(hook(marker(proj, "reviewer", "reviewer", session_id=other)))
    assert set(roles(proj)) == {other}
    denied(hook(write(os.path.join(proj, "src/a.py"), proj, session_id=other)), "GW801")
    assert silent(hook(write(os.path.join(proj, "src/a.py"), proj)))


# --- codex and delegate mode ----------------------------------------------------------------

def _active(proj, impl_mode="standard"):
    with open(os.path.join(proj, ".claude/state/breezing-active.json"), "w") as fh:
        json.dump({"session_id": "breezing-20260206-0300", "impl_mode": impl_mode}, fh)


@pytest.mark.parametrize("agent_id", [None, "agent-a"])
def test_codex_mode(hook, proj, agent_id):
    _active(proj, "codex")
    denied(hook(write(os.path.join(proj, "src/app.py"), proj, agent_id=agent_id)), "GW810")
    assert silent(hook(write(os.path.join(proj, "docs/plan.md"), proj, agent_id=agent_id)))
    denied(hook(bash("sed -i s/a/b/ src/app.py", proj, agent_id=agent_id)), "GW811")
    assert silent(hook(bash("git diff", proj, agent_id=agent_id)))


def test_delegate_permission_mode(hook, proj):
    denied(hook(bash("ls", proj, permission_mode="delegate")), "GW820")
    assert silent(hook(event("TaskCreate", {"subject": "s", "description": "d"}, proj,
                             permission_mode="delegate")))
    assert silent(hook(bash("ls", proj, agent_id="agent-a", permission_mode="delegate")))


def test_phase_b_recorded_by_the_gateway_command(hook, proj, gateway_exe, hook_env):
    _active(proj)

    def phase(p):
        r = subprocess.run([gateway_exe, "breezing", "phase", p], cwd=proj, env=hook_env,
                           capture_output=True, timeout=60)
        assert r.returncode == 0, r.stderr

    phase("B")
    reason = denied(hook(bash("git status", proj)), "GW820")
    assert "gateway breezing phase C" in reason
    denied(hook(write(os.path.join(proj, "src/app.py"), proj)), "GW820")
    assert silent(hook(event("SendMessage", {"to": "impl-1", "message": "go"}, proj)))
    assert silent(hook(bash("git status", proj, agent_id="agent-a")))  # not the Lead
    out = hook(bash("gateway breezing phase C", proj))  # the Lead may end phase B
    # catalogued (rules/workflow.yaml): no ask, no deny
    assert b'"ask"' not in out.stdout and b'"deny"' not in out.stdout, out.stdout
    phase("C")
    assert silent(hook(bash("git status", proj)))


# --- state that cannot be read ----------------------------------------------------------------

@pytest.mark.parametrize("name", ["breezing-session-roles.json", "breezing-active.json",
                                  "gateway-breezing-phase.json"])
@pytest.mark.parametrize("agent_id", [None, "agent-a"])
def test_corrupt_state_denies_with_the_repair(hook, proj, name, agent_id):
    path = os.path.join(proj, ".claude/state", name)
    with open(path, "w") as fh:
        fh.write('{"half": "writ')
    reason = denied(hook(bash("ls", proj, agent_id=agent_id)), "GW890")
    assert path in reason and "To repair:" in reason
    assert open(path).read() == '{"half": "writ'


# --- hostile input: deny GW892, never a crash -------------------------------------------------

HOSTILE = [
    b"", b" ", b"not json at all", b"\xff\xfe\x00garbage", b"\x00" * 64, b"[]", b"null",
    b'"a string"', b"42", b"{}", b'{"tool_name": "Bash"}',
    b'{"tool_name": "Bash", "tool_input": "ls"}',
    b'{"tool_name": "Bash", "tool_input": {"command": ["rm", "-rf", "/"]}}',
    b'{"tool_name": "Bash", "tool_input": {"command": null}}',
    b'{"tool_name": 7, "tool_input": {"command": "ls"}}',
    b'{"tool_name": "Bash", "tool_input": {"command": "ls"}, "cwd": 5}',
    b'{"tool_name": "Bash", "tool_input": {"command": "ls"}, "agent_id": 5}',
    b'{"tool_name": "Bash", "tool_input": {"command": "ls"}, "session_id": []}',
    b'{"tool_name": "Bash", "tool_input": {"command": "ls"}, "permission_mode": {}}',
    b'{"tool_name": "Write", "tool_input": {"command": "ls"}}',
    b'{"tool_name": "Write", "tool_input": {"file_path": 1, "content": "x"}}',
    b'{"tool_name": "Write", "tool_input": {"file_path": "a\\u0000b", "content": "x"}}',
    b'{"tool_name": "NotebookEdit", "tool_input": {"file_path": "/x.ipynb"}}',
    b'{"tool_input": {"command": "ls"}}',
    b'{"tool_name": "", "tool_input": {"command": "ls"}}',
    b'{"tool_name": "Bash", "tool_input": {"command": "ls"}} trailing',
    b'{"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_name": "Write"}',
    b'{"tool_name": "Bash", "tool_input": {"command": "ls \xc3\x28"}}',
    b"[" * 100000,
    b'{"a":' * 50000,
    b'{"tool_name": "Bash", "tool_input": {"command": "ls"}',
    b"\xef\xbb\xbf{}",
]


@pytest.mark.parametrize("raw", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_input_is_denied(hook, raw):
    denied(hook(raw), "GW892")


def test_huge_input_is_denied(hook, proj):
    data = bash("echo " + "a" * (9 << 20), proj)
    denied(hook(data), "GW892")


def test_huge_command_is_answered_in_time(hook, proj):
    with open(os.path.join(proj, ".claude/state/breezing-session-roles.json"), "w") as fh:
        json.dump({"agent-rev": {"role": "reviewer"}}, fh)
    data = bash("echo " + "a " * 2_000_000, proj, agent_id="agent-rev")
    denied(hook(data), "GW802")  # run_hook's timeout is 60 s, Claude Code's hook timeout too


def test_huge_but_acceptable_input_is_judged(hook, proj):
    data = write(os.path.join(proj, "src/app.py"), proj, content="x" * (4 << 20))
    assert silent(hook(data))
    data = write(os.path.join(proj, ".claude/settings.json"), proj, content="x" * (4 << 20))
    denied(hook(data), "GW832")


@pytest.mark.parametrize("raw", [
    '{"tool_name":"Bash","tool_input":{"command":"echo \\ud800 > .claude/settings.json"},'
    '"cwd":"%s"}',
    '{"tool_name":"Bash","agent_id":"agent-rev","tool_input":{"command":"cat a; \\ud800x"},'
    '"cwd":"%s"}',
    '{"tool_name":"Write","agent_id":"agent-rev","tool_input":{"file_path":"%s/src/\\udc80",'
    '"content":"x"},"cwd":"%s"}',
])
def test_lone_surrogates_still_deny(hook, proj, raw):
    """Reproducer: a reason quoting a lone surrogate (a JSON "\\ud800" escape) made the hook
    crash while writing stdout (exit 1, no decision)."""
    with open(os.path.join(proj, ".claude/state/breezing-session-roles.json"), "w") as fh:
        json.dump({"agent-rev": {"role": "reviewer"}}, fh)
    data = (raw.replace("%s", proj)).encode("utf-8")
    for lang in ("C.UTF-8", "en_US.UTF-8", "C"):
        proc = hook(data, env_extra={"LANG": lang, "LC_ALL": lang})
        assert proc.stderr == b"", proc.stderr
        reason = denied(proc, "GW835" if "settings" in raw else
                        "GW802" if "Bash" in raw else "GW801")
        assert "\ud800" in reason or "\udc80" in reason or "settings" in raw


# --- project directory, audit log, dry run, hot path ------------------------------------------

def test_project_dir_from_the_environment(hook, proj, tmp_path):
    # cwd outside the project: CLAUDE_PROJECT_DIR names it
    other = tmp_path / "elsewhere"
    other.mkdir()
    data = write(os.path.join(proj, ".claude/settings.json"), str(other))
    denied(hook(data, env_extra={"CLAUDE_PROJECT_DIR": proj}), "GW832")
    # relative paths resolve against the payload's cwd
    data = write("settings.json", os.path.join(proj, ".claude"))
    denied(hook(data), "GW832")


def test_audit_log_records_guard_decisions(hook, proj, hook_env):
    assert silent(hook(marker(proj, "reviewer", "reviewer", agent_id="agent-rev")))
    denied(hook(write(os.path.join(proj, "src/x.ts"), proj, agent_id="agent-rev")), "GW801")
    with open(hook_env["GATEWAY_AUDIT_LOG"]) as fh:
        entries = [json.loads(line) for line in fh]
    last = entries[-1]
    assert (last["event"], last["decision"], last["code"]) == ("PreToolUse", "deny", "GW801")
    assert (last["agent"], last["session"], last["tool"]) == ("agent-rev", SESSION, "Write")
    assert last["command"] == os.path.join(proj, "src/x.ts")
    assert last["phase"] == "guard:role" and last["rule"] == "role:reviewer:write"
    assert entries[-2]["code"] == "GW800" and entries[-2]["decision"] == "ask"


def test_dry_run_shows_the_code_and_records_nothing(gateway_exe, hook_env, proj):
    def check(*args):
        r = subprocess.run([gateway_exe, "check", "--json", *args], cwd=proj, env=hook_env,
                           capture_output=True, timeout=60)
        return json.loads(r.stdout)

    out = check("--tool", "Write", "--input", '{"file_path": ".claude/settings.json"}')
    assert out["pretooluse"]["decision"] == "deny" and out["pretooluse"]["code"] == "GW832"
    out = check("--tool", "Write", "--agent-id", "agent-rev", "--input", json.dumps(
        {"file_path": ".claude/state/breezing-role-r.json", "content": '{"role": "reviewer"}'}))
    assert out["pretooluse"]["code"] == "GW800"
    assert roles(proj) == {}  # a dry run registers nothing
    with open(os.path.join(proj, ".claude/state/breezing-session-roles.json"), "w") as fh:
        json.dump({"agent-rev": {"role": "reviewer"}}, fh)
    out = check("--tool", "Write", "--agent-id", "agent-rev", "--input",
                '{"file_path": "src/app.py", "content": "x"}')
    assert out["pretooluse"]["code"] == "GW801"
    out = check("--tool", "Bash", "--agent-id", "agent-rev", "--input",
                '{"command": "git apply x.patch"}')
    assert out["pretooluse"]["code"] == "GW802"


def test_hook_path_imports_no_cli_framework(gateway_exe, hook_env, proj):
    """The hot path stays stdlib (no click, pydantic or PyYAML), also through registration,
    the Bash analyzer and the state reader."""
    python = os.path.join(os.path.dirname(gateway_exe), "python")
    code = ("import sys, io\n"
            "from gateway.hooks import runner\n"
            "for raw in sys.argv[1:]:\n"
            "    runner.run('pre-tool-use', stdin=io.BytesIO(raw.encode()), stdout=io.StringIO())\n"
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
            "('click', 'pydantic', 'yaml', 'pydantic_core'))\n"
            "print(','.join(bad))\n")
    calls = [json.dumps(d) for d in (
        bash("ls", proj),  # warms the compiled policy cache
        marker(proj, "r", "reviewer", agent_id="agent-rev"),
        bash("sed -i s/a/b/ src/app.py", proj, agent_id="agent-rev"),
        write(os.path.join(proj, "src/auth/x.py"), proj, agent_id="agent-rev"))]
    subprocess.run([python, "-c", code, calls[0]], env=hook_env, capture_output=True,
                   timeout=60, check=True)
    r = subprocess.run([python, "-c", code, *calls[1:]], env=hook_env, capture_output=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.decode().strip() == "", r.stdout


# --- owns: who widens them, and Bash writes (raw JSON through the real hook) ------------------

def test_owns_are_assigned_by_the_lead_and_hold_for_bash(hook, proj):
    imp = {"agent_id": "agent-impl-1"}
    assert silent(hook(marker(proj, "impl-1", "implementer", [], **imp)))
    # the implementer cannot hand itself owns, with its own marker or another one
    denied(hook(marker(proj, "impl-1", "implementer", ["src/**"], **imp)), "GW809")
    denied(hook(marker(proj, "impl-9", "implementer", ["**"], **imp)), "GW809")
    assert roles(proj)["agent-impl-1"]["owns"] == []
    # the Lead assigns them through the implementer's marker; nobody else may
    denied(hook(marker(proj, "impl-1", "implementer", ["**"], agent_id="agent-other")), "GW806")
    assert silent(hook(marker(proj, "impl-1", "implementer", ["src/auth/**"])))
    assert roles(proj)["agent-impl-1"]["owns"] == ["src/auth/**"]
    assert SESSION not in roles(proj)
    os.makedirs(os.path.join(proj, "src/auth"), exist_ok=True)
    for command in ("echo x > src/authz/x", "cp README.md src/authz/", "sed -i s/a/b/ src/authz/x",
                    "cat README.md | tee src/other.py", "mv src/auth/x src/authz/x",
                    "touch \"$F\"", "git checkout main"):
        denied(hook(bash(command, proj, **imp)), "GW803")
    for command in ("echo x > src/auth/x", "cp README.md src/auth/", "git status"):
        assert silent(hook(bash(command, proj, **imp))), command
    # a test runner is code that may write anywhere: its ownership does not hold for it
    out = json.loads(hook(bash("python3 -m pytest -q src", proj, **imp)).stdout)
    assert out["hookSpecificOutput"]["permissionDecision"] == "ask", out
    assert out["hookSpecificOutput"]["permissionDecisionReason"].startswith("gateway GW852: ")


def test_globs_and_mcp_tools_do_not_reach_the_roles_file(hook, proj):
    assert silent(hook(marker(proj, "rev", "reviewer", agent_id="agent-rev")))
    for ident in ({}, {"agent_id": "agent-u"}):
        denied(hook(bash("cp /tmp/x .claude/state/breezing-session-rol*.json", proj, **ident)),
               "GW835")
        denied(hook(event("mcp__filesystem__write_file", {
            "path": os.path.join(proj, ".claude/state/breezing-session-roles.json"),
            "content": "{}"}, proj, **ident)), "GW834")
    denied(hook(event("mcp__filesystem__write_file", {
        "path": os.path.join(proj, "src/x.py"), "content": "x"}, proj, agent_id="agent-rev")),
        "GW801")


def test_the_monitor_tool_is_judged_as_bash(hook, proj):
    # Monitor (Claude Code 2.1.98+) runs a Bash command under Bash's permission rules
    data = event("Monitor", {"command": "echo '{}' > .claude/settings.json",
                             "description": "watch"}, proj)
    assert "settings.json" in denied(hook(data), "GW835")
    data = event("Monitor", {"command": "rm -rf / --no-preserve-root", "description": "x"},
                 proj)
    denied(hook(data), "GW750")
    assert silent(hook(event("Monitor", {"command": "tail -n 3 README.md",
                                         "description": "x"}, proj)))


# --- a role exists only once its marker Write completed (PostToolUse) -----------------------

def test_a_role_is_registered_only_from_a_completed_write(hook, run_hook, proj):
    """Reproducer (issue 12): PreToolUse recorded the role although the client then refused
    the Write (.claude/ is sensitive to it) or the human said No."""
    data = marker(proj, "reviewer", "reviewer", agent_id="agent-rev")
    assert silent(hook(data, complete=False))  # checked, not recorded
    assert roles(proj) == {}
    post = complete_write(data)
    proc = run_hook("post-tool-use", post)
    assert proc.returncode == 0 and proc.stdout == b"", proc.stdout
    assert roles(proj)["agent-rev"]["role"] == "reviewer"
    # the registration holds: the reviewer may no longer write source files
    denied(hook(write(os.path.join(proj, "src/app.py"), proj, agent_id="agent-rev")), "GW801")


def test_a_write_that_did_not_complete_registers_nothing(run_hook, proj):
    post = complete_write(marker(proj, "reviewer", "reviewer", agent_id="agent-rev"))
    for response in ({"success": False}, {"error": "EACCES"}, {"is_error": True}):
        proc = run_hook("post-tool-use", dict(post, tool_response=response))
        assert proc.returncode == 0, proc.stderr
        out = json.loads(proc.stdout)["hookSpecificOutput"]
        assert out["hookEventName"] == "PostToolUse"
        assert out["additionalContext"].startswith("gateway GW806: "), out
        assert "did not complete" in out["additionalContext"]
    assert roles(proj) == {}


def test_a_registration_refused_after_the_write_is_told_to_the_model(hook, run_hook, proj):
    """The state may change between PreToolUse and the completed Write (another
    registration): every check runs again, and a refusal reaches the model."""
    assert silent(hook(marker(proj, "reviewer", "reviewer", agent_id="agent-rev")))
    post = complete_write(marker(proj, "reviewer", "lead", agent_id="agent-rev"))
    proc = run_hook("post-tool-use", post)
    out = json.loads(proc.stdout)["hookSpecificOutput"]
    assert out["additionalContext"].startswith("gateway GW805: the role marker was written "
                                               "but no role was registered"), out
    assert roles(proj)["agent-rev"]["role"] == "reviewer"


def test_post_tool_use_of_other_writes_says_nothing(run_hook, proj):
    for data in (write(os.path.join(proj, "src/app.py"), proj),
                 event("Edit", {"file_path": os.path.join(proj, "a.txt"), "old_string": "a",
                                "new_string": "b"}, proj)):
        post = dict(data, hook_event_name="PostToolUse", tool_response={"filePath": "x"})
        proc = run_hook("post-tool-use", post)
        assert proc.returncode == 0 and proc.stdout == b"", proc.stdout
    proc = run_hook("post-tool-use", b"\xff not json")
    assert proc.returncode == 0 and proc.stdout == b"", proc.stdout
