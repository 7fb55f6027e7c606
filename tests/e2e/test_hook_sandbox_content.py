"""With the sandbox installed, a reader the gateway does not model is left to the OS - which
hides secrets by name only. A file whose content is a credential under an ordinary name, or
a container holding one, was printed with no dialog under `autoAllowBashIfSandboxed`:
`find deploy -exec cat {} +` (the validator asks GW704, PreToolUse said nothing, the client's
auto-allow ran it), `grep -r --bool aws deploy` (the client's ugrep), `zcat prod.ini.gz`.
PreToolUse now judges the files such a command names (directories walked, bounded) by
content: GW510. Through the real hook command, raw JSON on stdin; each attack's effect in
real bash."""

import gzip
import json
import os
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gateway.sandbox import selftest

SESSION = "3c4d5e6f-7081-4293-a4b5-c6d7e8f90a1b"
AWS = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYAWSMARKER1"
TEXT = f"[default]\naws_secret_access_key = {AWS}\n"

pytestmark = pytest.mark.skipif(not selftest.os_probe().ok,
                                reason="SANDBOX UNAVAILABLE: gateway install writes no sandbox")


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    home = tmp_path_factory.mktemp("sbc-home")
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
            "GATEWAY_USER_RULES": str(home / "none.yaml"),
            "GATEWAY_CACHE_DIR": str(tmp_path_factory.mktemp("sbc-cache")),
            "GATEWAY_AUDIT_LOG": "off", "CLAUDE_CONFIG_DIR": str(home / ".claude"),
            "LANG": "C.UTF-8", "SHELL": "/bin/bash"}


def _project(root, gateway_exe, env, secret_rel="deploy/settings.ini", text=TEXT):
    os.makedirs(os.path.join(root, "src"))
    os.makedirs(os.path.join(root, ".claude"))
    with open(os.path.join(root, "src", "app.py"), "w") as fh:
        fh.write("a = 1\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", "add", "src"],
                   cwd=root, check=True)
    subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "i"],
                   cwd=root, check=True)
    path = os.path.join(root, secret_rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fh:
        fh.write(text)
    with gzip.open(os.path.join(root, "prod.ini.gz"), "wt") as fh:
        fh.write(text)
    p = subprocess.run([gateway_exe, "install", "--project", root], cwd=root,
                       env=dict(env, CLAUDE_PROJECT_DIR=root), capture_output=True, text=True)
    assert p.returncode == 0 and "sandbox (enabled)" in p.stdout, p.stdout + p.stderr
    sp = os.path.join(root, ".claude", "settings.json")
    with open(sp) as fh:
        data = json.load(fh)
    data["sandbox"]["autoAllowBashIfSandboxed"] = True
    with open(sp, "w") as fh:
        json.dump(data, fh)
    return root


@pytest.fixture(scope="module")
def proj(tmp_path_factory, gateway_exe, env):
    return _project(str(tmp_path_factory.mktemp("sbc") / "p"), gateway_exe, env)


def hook(gateway_exe, env, command, cwd, mode="default"):
    data = {"session_id": SESSION, "transcript_path": "/tmp/t.jsonl", "cwd": cwd,
            "permission_mode": mode, "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": command}, "tool_use_id": "toolu_1"}
    proc = subprocess.run([gateway_exe, "hook", "pre-tool-use"],
                          input=json.dumps(data).encode(), capture_output=True,
                          env=dict(env, CLAUDE_PROJECT_DIR=cwd), timeout=60)
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout.decode().strip()
    if not text:
        return None, None
    out = json.loads(text)["hookSpecificOutput"]
    return (out["permissionDecision"],
            out["permissionDecisionReason"].split(":", 1)[0].replace("gateway ", ""))


ATTACKS = ["find deploy -exec cat {} +", "find deploy -type f -exec cat {} \\;",
           "zcat prod.ini.gz", "zcat < prod.ini.gz", "bzcat -f deploy/settings.ini",
           "find . -exec cat {} +"]


@pytest.mark.parametrize("command", ATTACKS)
def test_each_attack_really_prints_it(proj, command):
    out = subprocess.run(["bash", "-c", command], cwd=proj, capture_output=True).stdout
    assert AWS.encode() in out, command


@pytest.mark.parametrize("mode", ["default", "acceptEdits"])
@pytest.mark.parametrize("command", ATTACKS)
def test_an_unmodelled_reader_of_a_content_secret_asks(gateway_exe, env, proj, command,
                                                        mode):
    want = ("GW510", "GW503") if command == "find . -exec cat {} +" else ("GW510",)
    decision, code = hook(gateway_exe, env, command, proj, mode)
    # find . lists the .env too: a read of a secret by name (GW503) may come first
    assert decision == "ask" and code in want, (command, code)


def test_the_same_reader_of_clean_files_is_left_to_the_os(gateway_exe, env, tmp_path):
    """In a project no file of which holds a credential (by content, in the tree or in git's
    history), a reader the gateway does not model is left to the OS. In `proj` it asks: the
    read set of a command the gateway cannot model is every file the sandbox lets it read
    (tests/e2e/test_hook_unnamed_reads.py)."""
    root = str(tmp_path / "clean")
    os.makedirs(os.path.join(root, "src"))
    with open(os.path.join(root, "src", "app.py"), "w") as fh:
        fh.write("a = 1\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    p = subprocess.run([gateway_exe, "install", "--project", root], cwd=root,
                       env=dict(env, CLAUDE_PROJECT_DIR=root), capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    # find -exec CMD {} + is CMD on the files find lists (session 5): clean files, a read
    # the gateway itself allows
    assert hook(gateway_exe, env, "find src -exec cat {} +", root) == ("allow", "GW700")


_DIRS = st.sampled_from(["deploy", "config", "ops/prod", "etc"])
_FILES = st.sampled_from(["settings.ini", "app.yaml", "notes.txt", "vars.json", "run.sh"])
_READERS = st.sampled_from(["find {d} -exec cat {{}} +", "find {d} -type f -exec head {{}} +",
                            "zcat -f {d}/{f}", "find {d} -name '*' -exec tail -n 50 {{}} \\;"])
_SECRETS = st.sampled_from([TEXT, "password: Zx9!qT7#mK2$vB8pL\n",
                            "export GITHUB_TOKEN=ghp_" + "Zq7" * 12 + "\n"])


@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(d=_DIRS, f=_FILES, reader=_READERS, text=_SECRETS)
def test_generated_readers_and_places_ask(gateway_exe, env, tmp_path_factory, d, f, reader,
                                          text):
    root = _project(str(tmp_path_factory.mktemp("gen") / "p"), gateway_exe, env,
                    f"{d}/{f}", text)
    command = reader.format(d=d, f=f)
    out = subprocess.run(["bash", "-c", command], cwd=root, capture_output=True,
                         text=True).stdout
    assert text.strip().split()[-1].strip('"') in out, command
    assert hook(gateway_exe, env, command, root) == ("ask", "GW510"), command
