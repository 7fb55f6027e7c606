"""Readers of files they do not name (issue 24): `find -exec cat {} +` with no start
directory, `cat $(git ls-files)`, `ls | while read f; do cat "$f"; done`, `xargs cat <
list`, an interpreter's code. A file whose name decides nothing but whose content is a
credential (config/settings.ini holding `aws_secret_access_key = ...`) is among what they
read.

Without the sandbox each of them asks already (the validator cannot bound its reads: GW840 in
PreToolUse). With the sandbox installed (`gateway install`: denyRead of every secret name,
autoAllowBashIfSandboxed on), PreToolUse used to leave such a call to the OS when the files
it *named* held no credential - and the sandbox hides by name only: `find -exec cat {} +`,
`cat $(git ls-files)` and the `while read` loop printed the credential with no dialog
(shown below in real bash; under auto-allow the client runs what PreToolUse leaves alone).

Now the read set of a call the gateway cannot model is every file the OS lets it read: the
project's files (and the working directory's, when outside it) are judged by content,
cached by identity, and a version in git's history is judged by blob (a scrubbed credential
is printed by `git show` from the objects). One that holds a credential asks GW510 (PreToolUse
raw JSON on stdin of the real hook command), in every mode, sandbox or not; a project with
none is left to the OS. The hypothesis tests generate read forms x trees (credential formats,
places, depths).
"""

import json
import os
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gateway.sandbox import selftest

SESSION = "5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9"
AWS = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYAWSMARKER7"
TEXT = f"[default]\naws_secret_access_key = {AWS}\n"

SANDBOX = selftest.os_probe().ok
needs_sandbox = pytest.mark.skipif(not SANDBOX, reason="SANDBOX UNAVAILABLE: gateway "
                                   "install writes no sandbox")


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    home = tmp_path_factory.mktemp("unnamed-home")
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
            "GATEWAY_USER_RULES": str(home / "none.yaml"),
            "GATEWAY_CACHE_DIR": str(tmp_path_factory.mktemp("unnamed-cache")),
            "GATEWAY_AUDIT_LOG": "off", "CLAUDE_CONFIG_DIR": str(home / ".claude"),
            "LANG": "C.UTF-8", "SHELL": "/bin/bash"}


def _git(root, *args):
    subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", *args], cwd=root,
                   check=True, capture_output=True)


def _project(root, gateway_exe, env, rel="config/settings.ini", text=TEXT, sandbox=True,
             scrub=False):
    """A project tracking `rel` holding `text` (scrub: committed, then removed from the tree
    and the index: only git's history holds it)."""
    os.makedirs(os.path.join(root, "src"))
    with open(os.path.join(root, "src", "app.py"), "w") as fh:
        fh.write("a = 1  # TODO\n")
    with open(os.path.join(root, "README.md"), "w") as fh:
        fh.write("# demo\nSet your password in config/.\n")
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fh:
        fh.write(text)
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "init")
    if scrub:
        _git(root, "rm", "-q", rel)
        _git(root, "commit", "-qm", "scrub")
    if sandbox:
        p = subprocess.run([gateway_exe, "install", "--project", root], cwd=root,
                           env=dict(env, CLAUDE_PROJECT_DIR=root), capture_output=True,
                           text=True)
        assert p.returncode == 0 and "sandbox (enabled)" in p.stdout, p.stdout + p.stderr
        sp = os.path.join(root, ".claude", "settings.json")
        with open(sp) as fh:
            data = json.load(fh)
        data["sandbox"]["autoAllowBashIfSandboxed"] = True
        with open(sp, "w") as fh:
            json.dump(data, fh)
    return root


def hook(gateway_exe, env, command, cwd, mode="default", event="PreToolUse"):
    data = {"session_id": SESSION, "transcript_path": "/tmp/t.jsonl", "cwd": cwd,
            "permission_mode": mode, "hook_event_name": event, "tool_name": "Bash",
            "tool_input": {"command": command}}
    if event == "PreToolUse":
        data["tool_use_id"] = "toolu_1"
    else:
        data["permission_suggestions"] = []
    name = "pre-tool-use" if event == "PreToolUse" else "permission-request"
    proc = subprocess.run([gateway_exe, "hook", name], input=json.dumps(data).encode(),
                          capture_output=True, env=dict(env, CLAUDE_PROJECT_DIR=cwd),
                          timeout=90)
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout.decode().strip()
    if not text:
        return None, None
    out = json.loads(text)["hookSpecificOutput"]
    if event == "PreToolUse":
        return (out["permissionDecision"],
                out["permissionDecisionReason"].split(":", 1)[0].replace("gateway ", ""))
    return out["decision"]["behavior"], None


# (`find -exec cat {} +` names its files now: find's listing is judged as reads of the files
# it selects, p25, session 5; test_find_exec_readers_ask below)
ATTACKS = ["cat $(git ls-files)", "cat `git ls-files`", "ls -d */* | while read f; do cat \"$f\"; done",
           "awk 1 $(find . -type f -not -path './.git/*')",
           "xargs cat < list.txt", "python3 -c \"print(open('config/settings.ini').read())\""]


@pytest.fixture(scope="module")
def sbproj(tmp_path_factory, gateway_exe, env):
    root = _project(str(tmp_path_factory.mktemp("unnamed") / "p"), gateway_exe, env)
    with open(os.path.join(root, "list.txt"), "w") as fh:
        fh.write("config/settings.ini\n")
    return root


@pytest.fixture(scope="module")
def plainproj(tmp_path_factory, gateway_exe, env):
    root = _project(str(tmp_path_factory.mktemp("unnamed-plain") / "p"), gateway_exe, env,
                    sandbox=False)
    with open(os.path.join(root, "list.txt"), "w") as fh:
        fh.write("config/settings.ini\n")
    return root


@pytest.mark.parametrize("command", ATTACKS)
def test_each_form_really_prints_it(sbproj, command):
    out = subprocess.run(["bash", "-c", command], cwd=sbproj, capture_output=True).stdout
    assert AWS.encode() in out, command


@needs_sandbox
@pytest.mark.parametrize("mode", ["default", "acceptEdits", "plan"])
@pytest.mark.parametrize("command", ATTACKS)
def test_sandboxed_reader_of_unnamed_files_asks(gateway_exe, env, sbproj, command, mode):
    """The credential is tracked, so git's objects hold it too: the sandbox cannot hide it
    (GW840, naming the version in the history)."""
    assert hook(gateway_exe, env, command, sbproj, mode) == ("ask", "GW840"), command


UNTRACKED = [c for c in ATTACKS if "git" not in c]


@needs_sandbox
@pytest.mark.parametrize("mode", ["default", "acceptEdits", "plan"])
@pytest.mark.parametrize("command", UNTRACKED)
def test_an_untracked_credential_asks_by_content(gateway_exe, env, tmp_path_factory, command,
                                                 mode):
    root = str(tmp_path_factory.mktemp("untracked") / "p")
    _project(root, gateway_exe, env, rel="src/app.py", text="a = 1\n")
    os.makedirs(os.path.join(root, "config"))
    with open(os.path.join(root, "config", "settings.ini"), "w") as fh:
        fh.write(TEXT)
    with open(os.path.join(root, "list.txt"), "w") as fh:
        fh.write("config/settings.ini\n")
    out = subprocess.run(["bash", "-c", command], cwd=root, capture_output=True).stdout
    assert AWS.encode() in out, command
    assert hook(gateway_exe, env, command, root, mode) == ("ask", "GW510"), command


@pytest.mark.parametrize("mode", ["default", "acceptEdits", "plan"])
@pytest.mark.parametrize("command", ATTACKS)
def test_without_the_sandbox_it_asks_too(gateway_exe, env, plainproj, command, mode):
    decision, code = hook(gateway_exe, env, command, plainproj, mode)
    assert decision == "ask" and code in ("GW840", "GW510"), (command, code)
    # PermissionRequest gives no allow: the client's dialog
    assert hook(gateway_exe, env, command, plainproj, mode, "PermissionRequest") == \
        (None, None)


@needs_sandbox
def test_a_credential_only_in_git_history_asks(gateway_exe, env, tmp_path):
    """Scrubbed from the tree, the credential is still printed by git from its objects; a
    program the gateway cannot model may run that git (the sandbox does not hide .git)."""
    root = _project(str(tmp_path / "p"), gateway_exe, env, scrub=True)
    command = "python3 -c \"import subprocess; subprocess.run(['git', 'log', '-p'])\""
    out = subprocess.run(["bash", "-c", command], cwd=root, capture_output=True).stdout
    assert AWS.encode() in out
    assert hook(gateway_exe, env, command, root) == ("ask", "GW840")


@needs_sandbox
def test_a_clean_project_is_left_to_the_os(gateway_exe, env, tmp_path):
    root = _project(str(tmp_path / "p"), gateway_exe, env, rel="config/app.ini",
                    text="[app]\nregion = eu-west-1\n")
    for command in ATTACKS[:2]:  # the while loop: auto-allow asks GW862 (unknown effects)
        assert hook(gateway_exe, env, command, root) == (None, None), command


_PLACES = st.sampled_from(["config/settings.ini", "deploy/prod/app.yaml", "ops/notes.txt",
                           "vars.json", "scripts/run.sh", "a/b/c/d/settings.properties"])
_TEXTS = st.sampled_from([TEXT, f"prod:\n  aws_secret_access_key: \"{AWS}\"\n",
                          json.dumps({"aws_secret_access_key": AWS}) + "\n",
                          f"export AWS_SECRET_ACCESS_KEY=\"{AWS}\"\n",
                          f"prod.aws_secret_access_key={AWS}\n"])
_FORMS = st.sampled_from(["cat $(git ls-files)", "tail -n +1 $(git ls-files)",
                          "git ls-files | while read f; do cat \"$f\"; done",
                          "for f in $(find . -type f -not -path './.git/*'); do cat \"$f\"; done",
                          "sort -m $(git ls-files)", "xargs -a list.txt cat",
                          "cat $(cat list.txt)", "find -type f -print0 | xargs -0 -I{{}} cat {{}}"])


@needs_sandbox
@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rel=_PLACES, text=_TEXTS, form=_FORMS,
       mode=st.sampled_from(["default", "acceptEdits", "plan"]))
def test_generated_read_forms_and_trees(gateway_exe, env, tmp_path_factory, rel, text, form,
                                        mode):
    root = _project(str(tmp_path_factory.mktemp("gen") / "p"), gateway_exe, env, rel, text)
    with open(os.path.join(root, "list.txt"), "w") as fh:
        fh.write(rel + "\n")
    command = form.format()
    out = subprocess.run(["bash", "-c", command], cwd=root, capture_output=True).stdout
    assert AWS.encode() in out, command  # the effect in real bash
    decision, code = hook(gateway_exe, env, command, root, mode)
    # tracked: git's history holds it too, which the sandbox cannot hide (GW840)
    assert (decision, code) == ("ask", "GW840"), (command, rel, code)


@needs_sandbox
@pytest.mark.parametrize("command", ["find -L . -exec cat {} +", "cat ext/*",
                                     "python3 -c \"print(open('ext/app.ini').read())\""])
def test_a_link_to_a_credential_outside_the_project_asks(gateway_exe, env, tmp_path, command):
    """A link in the project to a directory outside it: the tree walk used to skip links, so
    a reader that follows them (find -L) printed the target's credential with no dialog."""
    out_dir = tmp_path / "outside"
    out_dir.mkdir()
    (out_dir / "app.ini").write_text(TEXT)
    root = _project(str(tmp_path / "p"), gateway_exe, env, rel="src/app.py", text="a = 1\n")
    os.symlink(str(out_dir), os.path.join(root, "ext"))
    out = subprocess.run(["bash", "-c", command], cwd=root, capture_output=True).stdout
    assert AWS.encode() in out, command
    assert hook(gateway_exe, env, command, root) == ("ask", "GW510"), command


@needs_sandbox
@pytest.mark.parametrize("command", ["find -exec cat {} +", "find . -type f -exec cat {} \\;"])
@pytest.mark.parametrize("mode", ["default", "acceptEdits", "plan"])
def test_find_exec_readers_ask(gateway_exe, env, sbproj, command, mode):
    """find -exec CMD {} + is judged as CMD on the files find selects (session 5): the
    project's credential file among them asks, by name or by content."""
    decision, _code = hook(gateway_exe, env, command, sbproj, mode)
    assert decision == "ask", (command, mode)
