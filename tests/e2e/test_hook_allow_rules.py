"""The user's own permissions.allow rules are honoured where no guarantee is at stake
(issue 25, GW716), and GW840 names the real reason: raw JSON on the stdin of `gateway hook
pre-tool-use` and `gateway hook permission-request`, in a project whose committed settings
allow `Bash(tox:*)` and a few broader rules.
"""

import json
import os
import subprocess

import pytest

SESSION = "9e4b2c1d-0a7f-4e3b-8c6d-5f2a1b0e9d8c"
RULES = ["Bash(tox:*)", "Bash(npm install:*)", "Bash(curl:*)", "Bash(python:*)",
         "Bash(frob *)"]


@pytest.fixture()
def project(tmp_path):
    p = tmp_path / "proj"
    (p / ".claude").mkdir(parents=True)
    (p / "conf").mkdir()
    (p / "conf" / ".env.local").write_text("K=1\n")
    (p / "src").mkdir()
    (p / "src" / "app.py").write_text("print(1)\n")
    (p / ".env").write_text("SECRET=1\n")
    (p / "tox.ini").write_text("[tox]\nenv_list = py311\n")
    (p / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"allow": RULES}}))
    subprocess.run(["git", "init", "-q", str(p)], check=True)
    return str(p)


def _hooks(run_hook, command, cwd, mode="default"):
    log = {"GATEWAY_AUDIT_LOG": os.path.join(os.path.dirname(cwd), "log", "audit.jsonl")}
    out = []
    for event, name in (("PreToolUse", "pre-tool-use"),
                        ("PermissionRequest", "permission-request")):
        data = {"session_id": SESSION, "transcript_path": "/tmp/t.jsonl", "cwd": cwd,
                "permission_mode": mode, "hook_event_name": event, "tool_name": "Bash",
                "tool_input": {"command": command}}
        proc = run_hook(name, data, log)
        assert proc.returncode == 0, proc.stderr
        text = proc.stdout.decode().strip()
        if not text:
            out.append((None, None, ""))
            continue
        hso = json.loads(text)["hookSpecificOutput"]
        if event == "PreToolUse":
            reason = hso["permissionDecisionReason"]
            code, _, message = reason.partition(":")
            out.append((hso["permissionDecision"], code.split()[-1], message.strip()))
        else:
            out.append((hso["decision"]["behavior"], None, ""))
    return out


@pytest.mark.parametrize("mode", ("default", "acceptEdits"))
@pytest.mark.parametrize("command", ["tox -e py311", "tox -l", "npm install",
                                     "frob --all src", "tox -e py311 -- -k test_x"])
def test_a_rule_for_an_unmodelled_program_leaves_it_to_the_client(run_hook, project, mode,
                                                                   command):
    # no hook decides: the client runs it by the user's rule; PermissionRequest gives no
    # allow of its own
    assert _hooks(run_hook, command, project, mode) == [(None, None, ""), (None, None, "")]


@pytest.mark.parametrize("command,code,says", [
    # a secret named in the arguments, in any spelling
    ("tox -e py311 -c .env", "GW503", "tox is given '.env', a secret file"),
    ("tox --conf=conf/.env.local", "GW503", "conf/.env.local"),
    ("frob @.env", "GW503", ".env', a secret file"),
    # a directory argument whose tree holds a secret
    ("tox -e py311 --root conf", "GW506", "holds the secret"),
    # what a rule never speaks for: code on the command line, expansions, floors
    ("python -c 'print(open(\".env\").read())'", "GW840", "python -c runs code"),
    ("tox -e \"$TOXENV\"", "GW840", "parameter expansion"),
    ("curl -d @notes.txt https://example.com", "GW840",
     "'example.com' of 'https://example.com' is not this machine's loopback (localhost, "
     "127.x.x.x, [::1]); curl is judged only when every URL is this machine's loopback "
     "(GW790)"),
    ("curl -sL localhost:8000/", "GW840", "curl -L (in '-sL') follows redirects, to any host "
     "the server names, which the gateway does not judge (GW791)"),
    ("tox -e py311 && cat .env", "GW503", ".env"),
    # no rule names it: the real reason, and a program given a secret reads it
    ("terraform plan", "GW840", "terraform is not in the command catalogue (GW703)"),
    ("base64 .env", "GW503", "base64 is given '.env', a secret file (.env)"),
])
def test_what_a_rule_never_vouches_for_still_asks(run_hook, project, command, code, says):
    pre, pr = _hooks(run_hook, command, project)
    assert pre[:2] == ("ask", code), pre
    assert says in pre[2], pre
    assert pr[0] is None


def test_the_dry_run_says_the_client_runs_it(gateway_exe, hook_env, project):
    env = dict(hook_env, GATEWAY_AUDIT_LOG="off")
    p = subprocess.run([gateway_exe, "check", "--guards", "tox -e py311"], cwd=project,
                       capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.startswith("ALLOW") and "permissions.allow rule Bash(tox:*)" in p.stdout
    p = subprocess.run([gateway_exe, "check", "--guards", "--no-settings", "tox -e py311"],
                       cwd=project, capture_output=True, text=True, env=env)
    assert p.returncode == 10, p.stdout
