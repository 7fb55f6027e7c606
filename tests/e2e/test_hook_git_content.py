"""Secrets by content in git's objects (issue 24, containers), through the real hook commands.

A credential committed once under an ordinary name and scrubbed since is still printed by
`git show HEAD~1:deploy/settings.ini`, `git log -p`, `git diff HEAD~1`, `git grep aws HEAD~1`
(proven below in real git: the marker is in the command's output). Before the fix every one
of them was allowed (GW700) while `cat deploy/settings.ini` of the same text asked GW510.
Each must now ask GW510 in PreToolUse (raw JSON on stdin of `gateway hook pre-tool-use`) and
in PermissionRequest; reads that print no such version stay allowed.

The hypothesis test generates the neighbours: credential formats a project really holds
(ini, yaml, json, shell exports, .properties) under generated ordinary names, committed and
scrubbed, read by generated git read forms.
"""

import json
import os
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SESSION = "7a2c1e9b-3d4f-4a5b-8c6d-9e0f1a2b3c4d"
AWS = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYAWSMARKER1"
GHP = "ghp_" + "Zq7" * 12


def _git(cwd, *args, stdin=None):
    return subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", *args],
                          cwd=cwd, check=True, capture_output=True, input=stdin).stdout


def _project(root, rel="deploy/settings.ini", text=None):
    """A repository whose history holds a credential in `rel` (an ordinary name), scrubbed
    in the next commit."""
    os.makedirs(os.path.join(root, "src"), exist_ok=True)
    os.makedirs(os.path.join(root, ".claude"), exist_ok=True)
    with open(os.path.join(root, "README.md"), "w") as fh:
        fh.write("# demo\nSet your password in the settings.\n")
    with open(os.path.join(root, "src", "app.py"), "w") as fh:
        fh.write("a = 1\n")
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fh:
        fh.write(text if text is not None else
                 f"[default]\naws_access_key_id = AKIAIOSFODNN7ZZZZZZZ\n"
                 f"aws_secret_access_key = {AWS}\n")
    _git(root, "init", "-q")
    _git(root, "add", "README.md", "src", rel)
    _git(root, "commit", "-qm", "init")
    with open(path, "w") as fh:
        fh.write("[default]\nregion = eu-west-1\n")
    _git(root, "commit", "-qam", "scrub")
    return root


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    home = tmp_path_factory.mktemp("gitcontent-home")
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
            "GATEWAY_USER_RULES": str(home / "none.yaml"),
            "GATEWAY_CACHE_DIR": str(tmp_path_factory.mktemp("gitcontent-cache")),
            "GATEWAY_AUDIT_LOG": "off", "CLAUDE_CONFIG_DIR": str(home / ".claude"),
            "LANG": "C.UTF-8", "SHELL": "/bin/bash"}


@pytest.fixture(scope="module")
def proj(tmp_path_factory):
    return _project(str(tmp_path_factory.mktemp("gitcontent") / "proj"))


def hook(gateway_exe, env, event, command, cwd, mode="default"):
    """(decision, code) of the real hook command fed the client's raw JSON."""
    data = {"session_id": SESSION, "transcript_path": "/tmp/t.jsonl", "cwd": cwd,
            "permission_mode": mode, "hook_event_name": event, "tool_name": "Bash",
            "tool_input": {"command": command}}
    if event == "PreToolUse":
        data["tool_use_id"] = "toolu_1"
    name = "pre-tool-use" if event == "PreToolUse" else "permission-request"
    proc = subprocess.run([gateway_exe, "hook", name], input=json.dumps(data).encode(),
                          capture_output=True, env=dict(env, CLAUDE_PROJECT_DIR=cwd),
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout.decode().strip()
    if not text:
        return None, None
    out = json.loads(text)["hookSpecificOutput"]
    if event == "PreToolUse":
        decision, reason = out["permissionDecision"], out["permissionDecisionReason"]
    else:
        decision, reason = out["decision"]["behavior"], out["decision"].get("message", "")
    return decision, (reason.split(":", 1)[0].replace("gateway ", "") if reason else None)


PRINTS_IT = ["git show HEAD~1:deploy/settings.ini", "git cat-file -p HEAD~1:deploy/settings.ini",
             "git log -p", "git log -p -- deploy", "git show HEAD", "git show HEAD~1",
             "git diff HEAD~1", "git diff HEAD~1 HEAD", "git diff-tree -p HEAD",
             "git log --cc", "git log -pM -U1", "git grep aws HEAD~1",
             "git log --all --patch-with-stat", "git whatchanged -p"]
CLEAN = ["git log --oneline", "git log --stat", "git show HEAD --stat", "git diff",
         "git log -p -- src", "git show HEAD:deploy/settings.ini", "git grep region",
         "git status", "cat src/app.py", "cat README.md"]


@pytest.mark.parametrize("command", PRINTS_IT)
def test_each_form_really_prints_the_scrubbed_credential(proj, command):
    """The attack's effect in real git: the marker is printed."""
    out = subprocess.run(command, shell=True, cwd=proj, capture_output=True, text=True,
                         env=dict(os.environ, GIT_PAGER="cat")).stdout
    assert AWS in out, command


@pytest.mark.parametrize("mode", ["default", "acceptEdits", "plan", "bypassPermissions"])
@pytest.mark.parametrize("command", PRINTS_IT)
def test_a_git_read_printing_a_version_holding_a_credential_asks(gateway_exe, env, proj,
                                                                 command, mode):
    assert hook(gateway_exe, env, "PreToolUse", command, proj, mode) == ("ask", "GW510")


@pytest.mark.parametrize("command", PRINTS_IT[:6])
def test_permission_request_leaves_it_to_the_human(gateway_exe, env, proj, command):
    """PermissionRequest's ask is silence (the client's dialog); before the fix it allowed."""
    assert hook(gateway_exe, env, "PermissionRequest", command, proj) == (None, None)
    assert hook(gateway_exe, env, "PermissionRequest", "git log --oneline", proj) == \
        ("allow", None)


@pytest.mark.parametrize("command", CLEAN)
def test_reads_that_print_no_such_version_stay_allowed(gateway_exe, env, proj, command):
    assert hook(gateway_exe, env, "PreToolUse", command, proj) == ("allow", "GW700")


def test_a_credential_in_the_working_tree_or_index_asks_for_diff_and_grep(gateway_exe, env,
                                                                           tmp_path):
    root = _project(str(tmp_path / "p"))
    app = os.path.join(root, "src", "app.py")
    with open(app, "a") as fh:
        fh.write(f'token = "{GHP}"\n')
    assert hook(gateway_exe, env, "PreToolUse", "git diff", root) == ("ask", "GW510")
    assert hook(gateway_exe, env, "PreToolUse", "git grep token", root) == ("ask", "GW510")
    _git(root, "add", "src/app.py")
    with open(app, "w") as fh:
        fh.write("a = 1\n")
    assert hook(gateway_exe, env, "PreToolUse", "git diff --cached", root) == ("ask", "GW510")
    assert hook(gateway_exe, env, "PreToolUse", "git grep --cached token", root) == \
        ("ask", "GW510")
    assert hook(gateway_exe, env, "PreToolUse", "git grep token", root) == ("allow", "GW700")


# --- neighbours: generated formats, names and read forms --------------------------------------

_NAMES = st.sampled_from(["deploy/settings.ini", "config/app.yaml", "conf/prod.json",
                          "scripts/deploy.sh", "src/main/resources/app.properties",
                          "ops/notes.txt", "infra/vars.tf"])
_KEYS = st.sampled_from([("aws_secret_access_key", AWS), ("github_token", GHP),
                         ("password", "Zx9!qT7#mK2$vB8pL"), ("api_key", GHP)])
_FORMATS = st.sampled_from(["ini", "yaml", "json", "export", "properties"])
_FORMS = st.sampled_from(["git show HEAD~1:{rel}", "git log -p", "git log -p -- {rel}",
                          "git diff HEAD~1", "git show HEAD", "git diff-tree -p HEAD",
                          "git cat-file -p HEAD~1:{rel}", "git log -U0 -p --all"])


def _render(fmt, key, value):
    return {"ini": f"[prod]\n{key} = {value}\n",
            "yaml": f"prod:\n  {key}: \"{value}\"\n",
            "json": json.dumps({"prod": {key: value}}, indent=2) + "\n",
            "export": f"export {key.upper()}=\"{value}\"\n",
            "properties": f"prod.{key}={value}\n"}[fmt]


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rel=_NAMES, kv=_KEYS, fmt=_FORMATS, form=_FORMS)
def test_generated_credentials_in_history_ask(gateway_exe, env, tmp_path_factory, rel, kv,
                                              fmt, form):
    root = _project(str(tmp_path_factory.mktemp("gen") / "p"), rel, _render(fmt, *kv))
    command = form.format(rel=rel)
    out = subprocess.run(command, shell=True, cwd=root, capture_output=True, text=True).stdout
    assert kv[1] in out, command  # the effect: real git prints it
    assert hook(gateway_exe, env, "PreToolUse", command, root) == ("ask", "GW510"), \
        (command, fmt, kv[0])


# --- git grep prints only the lines that match (the search probe, as for grep -r and rg) -----

_GREP_FORMS = st.sampled_from(["git grep {p}", "git grep -n {p}", "git grep {p} HEAD",
                               "git grep --cached {p}", "git grep -i {p}", "git grep -e {p}",
                               "git grep -c {p}", "git grep -l {p}", "git grep -A3 {p}"])


def _tracked(root, rel, text):
    """A repository whose working tree, index and HEAD hold a credential in `rel` (an
    ordinary name); src/app.py holds a TODO."""
    _project(root, rel, text)
    with open(os.path.join(root, rel), "w") as fh:
        fh.write(text)
    with open(os.path.join(root, "src", "app.py"), "w") as fh:
        fh.write("a = 1  # TODO: tidy\n")
    _git(root, "commit", "-qam", "again")
    return root


@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rel=_NAMES, kv=_KEYS, fmt=_FORMATS, form=_GREP_FORMS,
       matching=st.booleans())
def test_git_grep_asks_only_when_a_line_of_a_credential_file_matches(
        gateway_exe, env, tmp_path_factory, rel, kv, fmt, form, matching):
    """Before: every git grep in a project tracking a credential asked GW510 (the over-ask of
    `git grep TODO`). Now: the files holding a credential are searched again by git with the
    same pattern; a search that prints none of their lines is allowed, one that would print
    one asks. The effect is checked in real git either way."""
    root = _tracked(str(tmp_path_factory.mktemp("gg") / "p"), rel, _render(fmt, *kv))
    pattern = kv[1][4:10] if matching else "TODO"
    command = form.format(p="'" + pattern + "'")
    out = subprocess.run(command, shell=True, cwd=root, capture_output=True, text=True,
                         env=dict(os.environ, GIT_PAGER="cat")).stdout
    if matching:
        assert rel in out, command  # the file's lines (or name, count) are printed
        assert hook(gateway_exe, env, "PreToolUse", command, root) == ("ask", "GW510"), \
            (command, fmt)
    else:
        assert kv[1] not in out and "app.py" in out, command
        assert hook(gateway_exe, env, "PreToolUse", command, root) == ("allow", "GW700"), \
            (command, fmt)


@pytest.mark.parametrize("mode", ["default", "acceptEdits", "plan"])
def test_git_grep_of_a_scrubbed_version(gateway_exe, env, proj, mode):
    """HEAD~1:deploy/settings.ini holds the credential: a search of that revision whose
    pattern matches none of its lines is allowed by both hooks; one that matches asks."""
    assert hook(gateway_exe, env, "PreToolUse", "git grep TODO HEAD~1", proj, mode) == \
        ("allow", "GW700")
    assert hook(gateway_exe, env, "PreToolUse", "git grep aws_secret HEAD~1", proj, mode) == \
        ("ask", "GW510")
    if mode == "default":
        assert hook(gateway_exe, env, "PermissionRequest", "git grep TODO HEAD~1", proj) == \
            ("allow", None)
        assert hook(gateway_exe, env, "PermissionRequest", "git grep aws_secret HEAD~1",
                    proj) == (None, None)
