"""Decisions that know the sandbox, through the real hook command (raw JSON on stdin of
`gateway hook pre-tool-use`): what the OS stops is no longer asked, what it does not stop
still is, and the sandbox's auto-allow does not run an edit or a removal unseen."""

import json
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

GW = str(Path(sys.executable).parent / "gateway")


def _git(proj, *args):
    subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", *args], cwd=proj,
                   check=True, capture_output=True)


@pytest.fixture()
def proj(tmp_path):
    p = tmp_path / "proj"
    (p / "src").mkdir(parents=True)
    (p / "src" / "a.py").write_text("a = 1\n")
    (p / ".env").write_text("API_KEY=sk-MARKER\n")
    (p / ".gitignore").write_text(".env\n")
    _git(p, "init", "-q")
    _git(p, "add", ".gitignore", "src")
    _git(p, "commit", "-qm", "init")
    return p


def env_for(proj):
    home = proj.parent / "home"
    home.mkdir(exist_ok=True)
    return dict(os.environ, HOME=str(home), XDG_STATE_HOME=str(proj.parent / "state"),
                CLAUDE_CONFIG_DIR=str(home / ".claude"), CLAUDE_PROJECT_DIR=str(proj),
                GATEWAY_AUDIT_LOG="off")


def install(proj, *extra):
    subprocess.run([GW, "install", "--sandbox", *extra], cwd=proj, env=env_for(proj),
                   check=True, capture_output=True)


def edit_sandbox(proj, **kw):
    path = proj / ".claude" / "settings.json"
    data = json.loads(path.read_text())
    for k, v in kw.items():
        if v is None:
            data["sandbox"].pop(k, None)
        else:
            data["sandbox"][k] = v
    path.write_text(json.dumps(data, indent=2))


def allow_rule(proj, rule):
    path = proj / ".claude" / "settings.json"
    data = json.loads(path.read_text())
    data.setdefault("permissions", {}).setdefault("allow", []).append(rule)
    path.write_text(json.dumps(data, indent=2))


def hook(proj, command, mode="default", env=None, **tool_input):
    payload = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "session_id": "s",
               "tool_input": dict(command=command, **tool_input), "cwd": str(proj),
               "permission_mode": mode}
    p = subprocess.run([GW, "hook", "pre-tool-use"], input=json.dumps(payload), text=True,
                       capture_output=True, env=env or env_for(proj), timeout=120)
    assert p.returncode == 0, p.stderr
    if not p.stdout.strip():
        return "none", ""
    out = json.loads(p.stdout)["hookSpecificOutput"]
    reason = out["permissionDecisionReason"]
    return out["permissionDecision"], reason.split(":", 1)[0].replace("gateway ", "") + \
        " " + reason


def code(result):
    return result[1].split(" ", 1)[0] if result[1] else ""


# --- reads: left to the OS where it hides them -----------------------------------------


def test_unknown_program_asks_without_the_sandbox_and_is_left_to_the_os_with_it(proj):
    assert code(hook(proj, "tox -e py311")) == "GW840"
    install(proj)
    assert hook(proj, "tox -e py311") == ("none", "")
    assert hook(proj, "python3 -c 'import os'") == ("none", "")


def test_the_trace_says_the_os_hides_the_reads(proj):
    install(proj)
    p = subprocess.run([GW, "check", "--guards", "--json", "tox -e py311"], cwd=proj,
                       env=env_for(proj), capture_output=True, text=True)
    out = json.loads(p.stdout)
    steps = [s for s in out["pretooluse"]["trace"] if s.get("code") == "GW860"]
    assert steps and "hides every secret" in steps[0]["message"]


def test_a_certain_read_of_a_secret_still_asks(proj):
    install(proj)
    assert code(hook(proj, "cat .env")) == "GW503"


@pytest.mark.parametrize("setup,why", [
    ("committed", "git's history holds the secret 'config/.env.prod'"),
    ("history", "git's history holds the secret 'old/.env'"),
    ("remote", "git's configuration holds a credential"),
    ("upper", "'Deploy.ENV' is a secret"),
    ("backup", "'.npmrc.bak' is a secret"),
    ("zip", "the archive 'fixtures/a.zip' holds the secret '.env'"),
    ("tar", "the archive 'a.tar' holds the secret 'x/id_rsa'"),
    ("nested-repo", "vendor/lib/.git"),
])
def test_secrets_the_sandbox_cannot_hide_keep_the_ask(proj, setup, why):
    if setup == "committed":
        (proj / "config").mkdir()
        (proj / "config" / ".env.prod").write_text("K=v\n")
        _git(proj, "add", "-f", "config/.env.prod")
        _git(proj, "commit", "-qm", "c")
    elif setup == "history":
        (proj / "old").mkdir()
        (proj / "old" / ".env").write_text("K=v\n")
        _git(proj, "add", "-f", "old/.env")
        _git(proj, "commit", "-qm", "c")
        _git(proj, "rm", "-q", "--cached", "old/.env")
        _git(proj, "commit", "-qm", "d")
        (proj / "old" / ".env").unlink()
    elif setup == "remote":
        _git(proj, "remote", "add", "origin", "https://bob:s3cretpass@example.com/x.git")
    elif setup == "upper":
        (proj / "Deploy.ENV").write_text("K=v\n")
    elif setup == "backup":
        (proj / ".npmrc.bak").write_text("//registry/:_authToken=x\n")
    elif setup == "zip":
        (proj / "fixtures").mkdir()
        with zipfile.ZipFile(proj / "fixtures" / "a.zip", "w") as z:
            z.writestr(".env", "K=v\n")
    elif setup == "tar":
        src = proj.parent / "id_rsa"
        src.write_text("KEY\n")
        with tarfile.open(proj / "a.tar", "w") as t:
            t.add(src, arcname="x/id_rsa")
    elif setup == "nested-repo":
        (proj / "vendor" / "lib").mkdir(parents=True)
        _git(proj / "vendor" / "lib", "init", "-q")
    install(proj)
    decision, reason = hook(proj, "tox -e py311")
    assert decision == "ask" and code((decision, reason)) == "GW840"
    assert "the sandbox does not hide every secret" in reason and why in reason, reason


def test_a_harmless_archive_does_not_keep_the_ask(proj):
    with zipfile.ZipFile(proj / "docs.zip", "w") as z:
        z.writestr("README.md", "x\n")
    install(proj)
    assert hook(proj, "tox -e py311") == ("none", "")


@pytest.mark.parametrize("change,tool_input,why", [
    ({"failIfUnavailable": None}, {}, "bubblewrap or socat is not on PATH"),
    ({"allowUnsandboxedCommands": None}, {"dangerouslyDisableSandbox": True},
     "dangerouslyDisableSandbox"),
    ({"excludedCommands": ["tox *"]}, {}, "excludedCommands"),
    ({"enabled": False}, {}, "not enabled"),
])
def test_a_call_that_does_not_run_sandboxed_is_judged_as_today(proj, tmp_path, change,
                                                                 tool_input, why):
    install(proj)
    edit_sandbox(proj, **change)
    env = env_for(proj)
    if "failIfUnavailable" in change:
        empty = tmp_path / "nobwrap"
        empty.mkdir()
        for tool in ("git",):
            (empty / tool).symlink_to(subprocess.run(["which", tool], capture_output=True,
                                                     text=True).stdout.strip())
        env["PATH"] = str(empty)
    assert code(hook(proj, "tox -e py311", env=env, **tool_input)) == "GW840"
    p = subprocess.run([GW, "check", "--guards", "--json", "tox -e py311"], cwd=proj,
                       env=env, capture_output=True, text=True)
    trace = json.loads(p.stdout)["pretooluse"]["trace"]
    if not tool_input:
        assert any(why in (s.get("message") or "") for s in trace), trace


def test_allow_unsandboxed_false_keeps_a_call_asking_to_leave_sandboxed(proj):
    install(proj)
    assert hook(proj, "tox -e py311", dangerouslyDisableSandbox=True) == ("none", "")


def test_a_denyread_missing_a_secret_keeps_the_ask(proj):
    install(proj)
    path = proj / ".claude" / "settings.json"
    data = json.loads(path.read_text())
    data["sandbox"]["filesystem"]["denyRead"].remove("**/.env")
    path.write_text(json.dumps(data))
    decision, reason = hook(proj, "tox -e py311")
    assert decision == "ask" and "denyRead lacks 1 secret path" in reason


# --- auto-allow: what would run with no dialog -----------------------------------------


@pytest.fixture()
def auto(proj):
    install(proj)
    edit_sandbox(proj, autoAllowBashIfSandboxed=True)
    return proj


@pytest.mark.parametrize("mode", ["default", "acceptEdits", "auto", "dontAsk", "plan"])
@pytest.mark.parametrize("command", ["rm -rf src", "rm src/a.py", "find src -delete",
                                     "git reset --hard", "git checkout .", "git push",
                                     "tox -e py311"])
def test_auto_allow_never_runs_a_removal_or_unknown_program_unseen(auto, mode, command):
    # work no commit holds: a changed file and a new one (a removal of what HEAD holds is an
    # edit in acceptEdits, below)
    (auto / "src" / "a.py").write_text("a = 2\n")
    (auto / "src" / "new.py").write_text("b = 1\n")
    assert code(hook(auto, command, mode)) == "GW862"


@pytest.mark.parametrize("mode,want", [("default", "GW862"), ("dontAsk", "GW862"),
                                       ("plan", "GW862"), ("acceptEdits", "GW700"),
                                       ("auto", "GW700")])
@pytest.mark.parametrize("command", ["rm -rf src", "rm src/a.py"])
def test_auto_allow_and_a_removal_of_committed_files(auto, mode, want, command):
    # issue 25: in acceptEdits removing what the HEAD commit holds (git checkout brings it
    # back) or what git ignores is an edit, as the client itself runs it; the sandbox's
    # auto-allow changes nothing for it. In the other modes it needs a human.
    assert code(hook(auto, command, mode)) == want
    (auto / "src" / "new.py").write_text("b = 1\n")
    assert code(hook(auto, "rm -rf src", mode)) == "GW862"


@pytest.mark.parametrize("mode", ["default", "acceptEdits", "auto", "dontAsk"])
def test_what_the_gateway_asks_or_allows_anyway_is_unchanged(auto, mode):
    # git clean over a tree holding protected paths asks for its own reason
    assert code(hook(auto, "git clean -fdx", mode)) == "GW837"
    # the validator allows a commit (not in dontAsk, where only the user's rules allow)
    want = "GW862" if mode == "dontAsk" else "GW700"
    assert code(hook(auto, "git commit -am x", mode)) == want


@pytest.mark.parametrize("mode,want", [("default", "GW861"), ("dontAsk", "GW861"),
                                       ("plan", "GW861"), ("acceptEdits", ""), ("auto", "")])
def test_auto_allow_and_an_edit(auto, mode, want):
    # sed -i is an edit the validator does not allow in default mode
    got = hook(auto, "sed -i s/a/b/ src/a.py", mode)
    if want:
        assert code(got) == want
    else:
        assert got[0] in ("none", "allow")


def test_auto_allow_read_only_runs(auto):
    assert code(hook(auto, "ls src")) == "GW700"  # the validator allows it anyway
    # read-only outside the project: the validator does not allow it, the OS confines it
    assert hook(auto, "head -c 4 /etc/hostname") == ("none", "")


def test_a_user_allow_rule_is_honoured_under_the_sandbox(auto):
    assert code(hook(auto, "tox -e py311")) == "GW862"
    allow_rule(auto, "Bash(tox:*)")
    assert hook(auto, "tox -e py311") == ("none", "")
    # the rule names tox, not what is chained to it
    assert code(hook(auto, "tox -e py311 && rm -rf src")) == "GW862"
    # plan mode: no writes, whatever the rules
    assert code(hook(auto, "tox -e py311", "plan")) == "GW862"
    assert code(hook(auto, "touch notes.txt", "plan")) == "GW861"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(prefix=st.sampled_from(["ls", "git status", "echo hi", "tox -e py311", "cat README.md"]),
       op=st.sampled_from([" && ", "; ", " || ", " | "]),
       destroy=st.sampled_from(["rm -rf src", "rm -r src", "rmdir src", "git clean -fd",
                                "find . -name '*.py' -delete", "git reset --hard HEAD~1",
                                "unlink src/a.py"]),
       mode=st.sampled_from(["default", "acceptEdits", "auto"]))
def test_a_removal_anywhere_in_the_line_is_asked(auto, prefix, op, destroy, mode):
    (auto / "src" / "a.py").write_text("a = 2\n")       # work no commit holds
    for cmd in (prefix + op + destroy, destroy + op + prefix):
        decision, _ = hook(auto, cmd, mode)
        assert decision in ("ask", "deny"), cmd


# --- the dry run tells the truth ----------------------------------------------------------


def check(proj, command, mode="default"):
    p = subprocess.run([GW, "check", "--guards", "--json", "--permission-mode", mode, command],
                       cwd=proj, env=env_for(proj), capture_output=True, text=True, timeout=120)
    return json.loads(p.stdout)


def test_check_says_whether_it_runs_sandboxed_and_what_the_os_stops(proj):
    out = check(proj, "tox -e py311")
    assert out["sandbox"]["sandboxed"] is False
    assert "not enabled" in out["sandbox"]["why_not"]
    install(proj)
    out = check(proj, "cp src/a.py /opt/x.py")
    assert out["sandbox"]["sandboxed"] is True and out["sandbox"]["hides_secrets"] is True
    assert any("/opt/x.py: outside the project" in s for s in out["sandbox"]["os_stops"])
    out = check(proj, "cp src/a.py src/b.py")
    assert any("src/b.py (inside the project)" in s for s in out["sandbox"]["runs"])


def test_check_decision_is_allow_for_what_runs_with_no_dialog(auto):
    # the sandbox's auto-allow runs it; every write it makes the OS refuses
    out = check(auto, "cp src/a.py /opt/x.py")
    assert out["decision"] == "allow" and "auto-allow" in out["how"]
    assert out["pretooluse"]["decision"] == "none"
    # the hook asks: not allow
    assert check(auto, "rm -rf src")["decision"] == "ask"
    # the user's own rule
    allow_rule(auto, "Bash(tox:*)")
    out = check(auto, "tox -e py311")
    assert out["decision"] == "allow" and "Bash(tox:*)" in out["how"]


def test_check_decision_for_the_clients_own_read_only_run(proj):
    install(proj)
    # no hook decides; the client runs a read-only command inside the project by itself
    out = check(proj, "frob --version")
    assert out["pretooluse"]["decision"] == "none"
    assert out["decision"] == "none"  # frob is unknown: not read-only by the model
    out = check(proj, "head -c 4 /etc/hostname")
    assert out["decision"] == "none"  # outside the project: the client asks
