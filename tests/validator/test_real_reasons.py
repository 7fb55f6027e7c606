"""Asks say the real reason (issue 13): a private key named with `~` is "a secret file", not
"tilde expansion"; a home path outside the project says so; `python3 -m x` runs a module, not
"code on the command line"; `git log --help` is help and `git check-ignore .env` looks at a
name only. Judged by both hooks in the everyday benchmark's sample project (its home holds
~/.ssh/id_ed25519, ~/.aws/credentials and ~/.bashrc)."""

import pytest


@pytest.fixture(scope="module")
def judge(tmp_path_factory):
    from benchmarks.everyday.run import Judge

    return Judge(str(tmp_path_factory.mktemp("reasons")))


@pytest.mark.parametrize("command,code,fragment", [
    ("cat ~/.ssh/id_ed25519", "GW503", "'~/.ssh/id_ed25519' is a secret file (.ssh/)"),
    ("cat ~/.aws/credentials", "GW503", "'~/.aws/credentials' is a secret file (.aws/)"),
    ("head ~/.bashrc", "GW501", "'~/.bashrc' resolves outside the project ("),
    # ls looks at names: the directory is outside the project, no secret is read
    ("ls ~/.ssh", "GW501", "'~/.ssh' resolves outside the project ("),
    ("python3 -m http.server", "GW401", "python3 -m runs the module 'http.server'"),
    ("python -m shop.app", "GW401", "python -m runs the module 'shop.app'"),
    ("python3 -c 'import os'", "GW401", "python3 -c runs code given on the command line"),
])
def test_the_permission_request_names_the_real_reason(judge, command, code, fragment):
    from gateway import runtime

    for mode in ("default", "acceptEdits"):
        v = runtime.judge_bash(command, judge.project, judge.project, env=judge.env, mode=mode)
        assert (str(v.decision), v.code) == ("ask", code), (mode, v.message)
        assert fragment in v.message, (mode, v.message)
        assert "tilde expansion" not in v.message


def test_a_home_secret_is_a_secret_for_both_hooks(judge):
    r = judge("cat ~/.ssh/id_ed25519", "default")
    assert (r["pretooluse"], r["pre_code"]) == ("ask", "GW503")
    assert (r["permission_request"], r["pr_code"]) == ("ask", "GW503")
    assert "is a secret file (.ssh/)" in r["message"]


def test_a_module_run_is_not_called_inline_code():
    from gateway import runtime

    v = runtime.judge_bash("python3 -m pip_audit", "/", "/")
    assert v.code == "GW401"
    assert "runs the module 'pip_audit'" in v.message
    assert "code given on the command line" not in v.message


@pytest.mark.parametrize("command", ["git log --help", "git push --help", "git stash --help",
                                     "git -C src diff --help", "git nosuchcmd --help",
                                     "git check-ignore -v .env",
                                     "git check-ignore -v .env deploy/key.pem"])
def test_help_and_names_only_git_forms_are_allowed(judge, command):
    for mode in ("default", "acceptEdits"):
        r = judge(command, mode)
        assert r["final"] == "allow", (mode, r)


@pytest.mark.parametrize("command,code", [
    ("git log --help --output=x", "GW704"),   # not help alone: an option that writes
    ("git -c core.pager=sh log --help", "GW713"),
    ("git log --outp=x", "GW704"),
])
def test_help_is_help_only_alone(judge, command, code):
    r = judge(command, "default")
    assert (r["permission_request"], r["pr_code"]) == ("ask", code), r
