"""Secrets by layout (issue 13, class 5): credentials git keeps in its configuration are
printed by reads that name no secret file: `git config -l`, `git remote -v`, `git remote
get-url`, `git var -l`. They ask (GW742) when what they print holds a credential; the same
reads of a clean configuration are allowed. Each case also runs the real read and checks the
premise: git does print the credential."""

import os
import subprocess

import pytest

from gateway.settings import SettingsRules
from gateway.tools.gitconfig import credential
from gateway.validator.pipeline import validate

ENV = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "t",
       "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
       "GIT_COMMITTER_EMAIL": "t@example.com"}


@pytest.fixture()
def root(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))  # no global configuration but the test's
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    root = os.path.realpath(str(tmp_path / "proj"))
    os.makedirs(root)
    git(root, "init", "-q")
    git(root, "config", "user.name", "Dev")
    git(root, "remote", "add", "origin", "https://github.com/o/r.git")
    return root


def git(root, *args):
    return subprocess.run(["git", "-C", root, *args], env={**ENV, "HOME": os.environ["HOME"]},
                          capture_output=True, text=True, check=True).stdout


def judge(policy, root, command):
    v = validate(command, root, root, policy, "Bash", SettingsRules(), None)
    return str(v.decision), v.code, v.message


READS = ["git config -l", "git config --list", "git config --list --show-origin",
         "git var -l", "git remote -v", "git remote get-url origin",
         "git remote show -n origin", "git config --get-regexp '.*'"]
#: (what is set, the secret text git then prints)
LAYOUTS = {
    "password in the remote URL": (("remote.origin.url", "https://dev:s3cr3tpw@example.com/r"),
                                   "s3cr3tpw"),
    "token as the URL's user": (("remote.origin.url",
                                 "https://ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789@github.com/o/r"),
                                "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"),
    "x-access-token": (("remote.origin.url",
                        "https://x-access-token:ghs_16CharacterTok@github.com/o/r"),
                       "ghs_16CharacterTok"),
    "push URL": (("remote.origin.pushurl", "https://oauth2:glpat-ABCDEFGHIJ12@gitlab.com/r"),
                 "glpat-ABCDEFGHIJ12"),
    "insteadOf base": (("url.https://tok3nvalue1234567890abcd@github.com/.insteadOf",
                        "https://github.com/"), "tok3nvalue1234567890abcd"),
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("command", READS)
def test_a_credential_in_a_url_asks(policy, root, layout, command):
    (key, value), secret = LAYOUTS[layout]
    git(root, "config", key, value)
    out = subprocess.run(command, shell=True, cwd=root, env={**ENV, "HOME": os.environ["HOME"]},
                         capture_output=True, text=True).stdout
    if secret not in out:
        pytest.skip(f"{command} does not print {layout}")  # (show -n: no pushurl, say)
    decision, code, message = judge(policy, root, command)
    assert (decision, code) == ("ask", "GW742"), message


@pytest.mark.parametrize("command", ["git config -l", "git var -l",
                                     "git config --get http.https://github.com/.extraheader",
                                     "git config --get-regexp http"])
def test_an_extraheader_asks(policy, root, command):
    # actions/checkout persists the job's token this way
    git(root, "config", "http.https://github.com/.extraheader",
        "AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46Z2hzXzE2")
    out = subprocess.run(command, shell=True, cwd=root, env={**ENV, "HOME": os.environ["HOME"]},
                         capture_output=True, text=True).stdout
    assert "eC1hY2Nlc3MtdG9rZW46Z2hzXzE2" in out
    assert judge(policy, root, command)[:2] == ("ask", "GW742")


@pytest.mark.parametrize("command", READS + [
    "git config user.name", "git config --get user.name", "git config --get remote.origin.url",
    "git config --get-regexp '^user'", "git config --list --name-only", "git remote"])
def test_reads_of_a_clean_configuration_are_allowed(policy, root, command):
    assert judge(policy, root, command)[:2] == ("allow", "GW700"), command


def test_only_the_entries_a_read_prints_count(policy, root):
    git(root, "remote", "add", "mirror", "https://dev:s3cr3tpw@example.com/r")
    assert judge(policy, root, "git config --get remote.origin.url")[:2] == ("allow", "GW700")
    assert judge(policy, root, "git config --get remote.mirror.url")[:2] == ("ask", "GW742")
    assert judge(policy, root, "git remote get-url origin")[:2] == ("allow", "GW700")
    assert judge(policy, root, "git remote get-url mirror")[:2] == ("ask", "GW742")
    assert judge(policy, root, "git config --get-regexp '^user'")[:2] == ("allow", "GW700")
    # --name-only prints keys: a credential in a value is not printed, one in a key is
    assert judge(policy, root, "git config -l --name-only")[:2] == ("allow", "GW700")
    git(root, "config", "url.https://tok3nvalue1234567890abcd@github.com/.insteadOf", "gh:")
    assert judge(policy, root, "git config -l --name-only")[:2] == ("ask", "GW742")


def test_the_global_configuration_counts(policy, root):
    with open(os.path.join(os.environ["HOME"], ".gitconfig"), "w") as fh:
        fh.write('[http "https://ci.example.com/"]\n\textraHeader = Authorization: Bearer x1y2z3w4v5\n')
    assert judge(policy, root, "git config --global -l")[:2] == ("ask", "GW742")
    assert judge(policy, root, "git config -l")[:2] == ("ask", "GW742")
    assert judge(policy, root, "git config --local -l")[:2] == ("allow", "GW700")


@pytest.mark.parametrize("key,value,why", [
    ("remote.origin.url", "https://u:p4ss@h/x", "a password in a URL"),
    ("remote.origin.url", "ftp://u:p4ss@h/x", "a password in a URL"),
    ("remote.origin.url", "https://ghp_xxxxxxxxxxxxxxxxxxxx@github.com/x", "a token in a URL"),
    ("remote.origin.url", "https://github_pat_11ABC@github.com/x", "a token in a URL"),
    ("remote.origin.url", "https://abcdefghij0123456789abcd@h/x", "a token in a URL"),
    ("http.proxy", "http://proxyuser:proxypass@proxy:3128", "a password in a URL"),
    ("url.https://u:p@h/.insteadof", "gh:", "a password in a URL"),
    ("http.https://h/.extraheader", "Authorization: Bearer abc", "an HTTP header"),
    ("sendemail.smtppass", "hunter2", "named like a password or token"),
    ("github.token", "ghp_x", "named like a password or token"),
    ("credential.helper", "!f() { echo password=hunter2; }; f", "a credential helper"),
])
def test_credential_finds(key, value, why):
    assert why in credential(key, value)


@pytest.mark.parametrize("key,value", [
    ("remote.origin.url", "https://github.com/o/r.git"),
    ("remote.origin.url", "git@github.com:o/r.git"),
    ("remote.origin.url", "ssh://git@host:22/r.git"),
    ("remote.origin.url", "https://jdoe@bitbucket.org/o/r.git"),
    ("remote.origin.url", "https://u:${TOKEN}@h/x"),
    ("user.name", "Dev"), ("user.signingkey", "ABCDEF0123456789"),
    ("credential.helper", "store"), ("credential.helper", "cache --timeout=3600"),
    ("credential.helper", "!f() { echo password=$TOKEN; }; f"),
    ("core.sshcommand", "ssh -i ~/.ssh/id_ed25519"), ("http.cookiefile", "~/.cookies"),
])
def test_credential_passes(key, value):
    assert credential(key, value) == ""
