"""Places (issue 24): git's configuration holds credentials in remote URLs. `git remote -v`,
`git config -l`, `git var -l` and a submodule's config are judged by what they would print:
generated remotes with a password or a token in their user information ask (GW742 through
the validator's exposure question, the one the PreToolUse hook asks; GW503 for a submodule's
config read by name), remotes without stay allowed. Real git writes the configuration."""

import os
import subprocess

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gateway.settings import SettingsRules
from gateway.validator.pipeline import validate

USER = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=8)
SECRET = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
                 min_size=8, max_size=20)
TOKEN = st.builds(lambda p, s: p + s, st.sampled_from(["ghp_", "glpat-", "github_pat_"]),
                  SECRET)
HOST = st.sampled_from(["github.com", "gitlab.example.org", "git.internal:8443"])
READERS = ("git remote -v", "git config -l", "git var -l", "git config --get remote.origin.url")


@st.composite
def remotes(draw):
    """(url, holds a credential)."""
    host, repo = draw(HOST), draw(USER) + "/" + draw(USER) + ".git"
    kind = draw(st.sampled_from(["plain", "user", "password", "token"]))
    if kind == "plain":
        return f"https://{host}/{repo}", False
    if kind == "user":
        return f"https://{draw(USER)}@{host}/{repo}", False
    if kind == "password":
        return f"https://{draw(USER)}:{draw(SECRET)}@{host}/{repo}", True
    return f"https://{draw(TOKEN)}@{host}/{repo}", True


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(remote=remotes(), reader=st.sampled_from(READERS))
def test_a_remote_with_a_credential_asks_and_one_without_is_allowed(policy, tmp_path, remote,
                                                                     reader):
    url, secret = remote
    root = os.path.realpath(str(tmp_path / "repo"))
    if not os.path.isdir(os.path.join(root, ".git")):
        subprocess.run(["git", "init", "-q", root], check=True)
    subprocess.run(["git", "-C", root, "config", "remote.origin.url", url], check=True)
    v = validate(reader, root, root, policy, "Bash", SettingsRules(), None, exposure=True)
    if secret:
        assert (str(v.decision), v.code) == ("ask", "GW742"), (url, reader, v)
    else:
        assert str(v.decision) == "allow", (url, reader, v)


def test_a_submodules_config_is_a_secret_place(policy, tmp_path):
    root = os.path.realpath(str(tmp_path))
    os.makedirs(os.path.join(root, ".git/modules/lib"))
    with open(os.path.join(root, ".git/modules/lib/config"), "w") as fh:
        fh.write('[remote "origin"]\n\turl = https://u:tok12345678@host/x.git\n')
    v = validate("cat .git/modules/lib/config", root, root, policy, "Bash", SettingsRules(),
                 None, exposure=True)
    assert (str(v.decision), v.code) == ("ask", "GW503"), v
