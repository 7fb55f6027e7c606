"""What the user reads when a read of a credential by content asks (GW510): the place (a
file, an archive member, a member of a nested archive, a version of a file in git's
history), the kind and line of what detect-secrets found, and what to do - through the real
hook (`gateway hook pre-tool-use`, raw JSON on stdin). The advice is proven: the
allowlist comment the message names makes the next read of the file allowed."""

import io
import json
import os
import re
import subprocess
import tarfile

import pytest

AWS = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYMESSAGE01"
LINE = f"aws_secret_access_key = {AWS}"
TEXT = f"[default]\n{LINE}\n"
HINT = "pragma: allowlist secret"


def _tar(path, mode, name, data):
    with tarfile.open(path, mode) as t:
        info = tarfile.TarInfo(name)
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))


@pytest.fixture(scope="module")
def proj(tmp_path_factory, gateway_exe):
    home = tmp_path_factory.mktemp("msg-home")
    root = str(tmp_path_factory.mktemp("msg") / "proj")
    os.makedirs(os.path.join(root, "deploy"))
    git = ["git", "-c", "user.email=a@b", "-c", "user.name=a"]
    subprocess.run(["git", "init", "-q", root], check=True)
    with open(os.path.join(root, "deploy", "prod.ini"), "w") as fh:
        fh.write(TEXT)
    subprocess.run(git + ["add", "deploy/prod.ini"], cwd=root, check=True)
    subprocess.run(git + ["commit", "-qm", "x"], cwd=root, check=True)
    subprocess.run(git + ["rm", "-q", "deploy/prod.ini"], cwd=root, check=True)
    subprocess.run(git + ["commit", "-qm", "y"], cwd=root, check=True)  # in history only
    os.makedirs(os.path.join(root, "deploy"), exist_ok=True)
    with open(os.path.join(root, "deploy", "live.ini"), "w") as fh:
        fh.write(TEXT)
    _tar(os.path.join(root, "backup.tar"), "w", "deploy/prod.ini", TEXT.encode())
    with open(os.path.join(root, "backup.tar"), "rb") as fh:
        _tar(os.path.join(root, "outer.tgz"), "w:gz", "old/site.tar", fh.read())
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
           "GATEWAY_USER_RULES": str(home / "none.yaml"), "GATEWAY_AUDIT_LOG": "off",
           "GATEWAY_CACHE_DIR": str(tmp_path_factory.mktemp("msg-cache")),
           "CLAUDE_CONFIG_DIR": str(home / ".claude"), "LANG": "C.UTF-8",
           "CLAUDE_PROJECT_DIR": root}
    return root, env, gateway_exe


def reason(proj, command):
    root, env, exe = proj
    data = {"session_id": "s-msg", "transcript_path": "/tmp/t.jsonl", "cwd": root,
            "permission_mode": "default", "hook_event_name": "PreToolUse",
            "tool_name": "Bash", "tool_input": {"command": command}}
    p = subprocess.run([exe, "hook", "pre-tool-use"], input=json.dumps(data), text=True,
                       capture_output=True, env=env, timeout=60)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)["hookSpecificOutput"]
    return out["permissionDecision"], out["permissionDecisionReason"]


@pytest.mark.parametrize("command,place", [
    ("cat deploy/live.ini", "'deploy/live.ini' holds a credential: detect-secrets finds "),
    ("cat backup.tar", "'backup.tar' holds a credential: in its archive member "
     "'deploy/prod.ini', detect-secrets finds "),
    ("cat outer.tgz", "'outer.tgz' holds a credential: in its archive member "
     "'old/site.tar!/deploy/prod.ini', detect-secrets finds "),
])
def test_the_message_names_the_place_the_kind_and_what_to_do(proj, command, place):
    decision, text = reason(proj, command)
    assert decision == "ask" and text.startswith("gateway GW510: "), text
    assert place in text, text
    assert re.search(r"finds an? (AWS Access Key|Secret Keyword|Credential Assignment) on "
                     r"line 2\. ", text), text
    assert HINT in text and "say yes" in text, text


@pytest.mark.parametrize("command", ["git log -p", "git show HEAD~1:deploy/prod.ini"])
def test_a_version_in_gits_history_is_named_by_its_path(proj, command):
    decision, text = reason(proj, command)
    assert decision == "ask" and text.startswith("gateway GW510: "), text
    assert "a version of 'deploy/prod.ini' in git's history (blob " in text, text
    assert "pathspec" in text, text


def test_the_advice_works(proj, tmp_path):
    root = proj[0]
    path = os.path.join(root, "deploy", "marked.ini")
    with open(path, "w") as fh:
        fh.write(f"[default]\n{LINE}  # {HINT}\n")
    assert reason(proj, "cat deploy/marked.ini")[1].startswith("gateway GW700: ")
