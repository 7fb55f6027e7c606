"""Red team 2, class 1 (composed git state): revisions with a colon that are not a blob named
by path. `:/<text>` is the newest commit whose message matches, `<rev>:<dir>` and `<rev>:` are
trees (a diff of two trees prints every file below them), `HEAD@{<date> <time>}` is a commit by
date. The checks once took every word with a colon for <rev>:<path>, left it out of the names
asked of git, and `git show ':/add key'` printed a deploy key committed once and removed since.

The oracle is REAL git: the generated command runs in a repository whose history holds the
key; whenever its output contains the key, the validator must not allow the command (it asks,
GW503). Commands whose output does not contain it are not asserted (the key is elsewhere).
"""

import os
import subprocess

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gateway.decision import ALLOW
from gateway.settings import SettingsRules
from tests.property.conftest import budget
from tests.property.support import show, tick

KEY = "-----BEGIN OPENSSH PRIVATE KEY-----MARKER"
ENV = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "t",
       "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
       "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_PAGER": "cat", "PAGER": "cat"}


def _git(root, *args, check=True):
    return subprocess.run(["git", "-C", root, *args], env=ENV, capture_output=True, text=True,
                          check=check, timeout=20)


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    """main: init (README, src/), docs, deploy: add key, deploy: remove key, tests."""
    root = os.path.realpath(str(tmp_path_factory.mktemp("revs") / "proj"))
    os.makedirs(os.path.join(root, "src"))
    _git(root, "init", "-q", "-b", "main")

    def commit(message, files):
        for rel, text in files.items():
            path = os.path.join(root, rel)
            if text is None:
                _git(root, "rm", "-q", rel)
                continue
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as fh:
                fh.write(text)
            _git(root, "add", rel)
        _git(root, "commit", "-q", "-m", message)

    commit("init", {"README.md": "hi\n", "src/app.py": "x = 1\n", "deploy/run.sh": "echo\n"})
    commit("docs: usage", {"docs/usage.md": "use it\n"})
    commit("deploy: add key", {"deploy/id_ed25519": KEY + "\n"})
    commit("deploy: remove key", {"deploy/id_ed25519": None})
    commit("tests: utils", {"tests/test_x.py": "def test_x():\n    pass\n"})
    return root


#: Spellings of the commit that adds the key (or of its trees), all with a colon.
ADDING = [":/add key", ":/deploy: add", ":/^deploy: add", ":/add", ":/key$", ":/d.ploy: a"]
TREES = ["{r}:", "{r}:deploy", "{r}:deploy/", "{r}:./deploy"]
REVS = ["HEAD~2", "main~2", "HEAD~1", "HEAD~3", "@~2", "HEAD"]


@st.composite
def command(draw):
    kind = draw(st.sampled_from(["show", "show2", "diff", "difftree", "logp"]))
    opts = draw(st.sampled_from(["", "-p ", "--stat -p ", "--format=%H ", "-M "]))
    if kind == "show":
        return f"git show {opts}{draw(st.sampled_from(ADDING))!r}".replace("'", "'")
    if kind == "show2":
        return f"git show {opts}{draw(st.sampled_from(ADDING))!r} -- deploy"
    if kind == "logp":
        return f"git log -p -1 {draw(st.sampled_from(ADDING))!r}"
    a, b = draw(st.sampled_from(REVS)), draw(st.sampled_from(REVS))
    form = draw(st.sampled_from(TREES))
    left, right = form.format(r=a), form.format(r=b)
    if kind == "difftree":
        left = draw(st.sampled_from([left, ":/add key", ":/remove key", a]))
        right = draw(st.sampled_from([right, ":/add key", ":/remove key", b]))
    return f"git diff {opts.replace('--format=%H ', '')}{left!r} {right!r}"


def _prints_key(root, cmd):
    out = subprocess.run(["bash", "-c", cmd], cwd=root, env=ENV, capture_output=True,
                         text=True, timeout=20)
    return KEY in out.stdout


@budget(80)
@given(cmd=command())
def test_a_revision_with_a_colon_that_prints_the_key_is_not_allowed(policy, repo, cmd):
    tick("git revisions with a colon against real git")
    from gateway.validator.pipeline import validate

    if not _prints_key(repo, cmd):
        return
    tick("git revisions with a colon: (the key printed)")
    v = validate(cmd, repo, repo, policy, "Bash", SettingsRules(), None)
    assert v.decision is not ALLOW, f"{cmd!r} prints the key, yet {show(v)}"
    assert v.code == "GW503", f"{cmd!r}: {show(v)}"


@pytest.mark.parametrize("cmd", ["git show HEAD:README.md", "git show HEAD~2:deploy",
                                 "git diff HEAD~1:README.md HEAD:README.md",
                                 "git diff HEAD~4:src HEAD:src", "git show ':/docs: usage'"])
def test_colon_revisions_without_the_key_stay_allowed(policy, repo, cmd):
    from gateway.validator.pipeline import validate

    assert not _prints_key(repo, cmd)
    v = validate(cmd, repo, repo, policy, "Bash", SettingsRules(), None)
    assert (v.decision, v.code) == (ALLOW, "GW700"), show(v)
