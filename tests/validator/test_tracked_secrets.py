"""A secret the repository tracks (a committed .env) is printed by git diff / show / log -p /
grep / cat-file as surely as by `cat .env`, which asks: those commands ask too (GW503) when
the index holds a path the secret rules name. The index is parsed by the gateway (running
git would run the repository's core.fsmonitor); the parser is checked against `git ls-files`
for every index format git writes. Each test builds its own repository with the real git."""

import os
import subprocess

import pytest

from gateway.settings import SettingsRules
from gateway.validator.checks._gitindex import git_dir_of, tracked_paths
from gateway.validator.pipeline import validate

GIT_ENV = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com"}


def git(root, *args, check=True):
    return subprocess.run(["git", "-C", root, *args], env=GIT_ENV, capture_output=True,
                          check=check).stdout


def repo(tmp_path, files, init=(), name="proj"):
    root = os.path.realpath(str(tmp_path / name))
    os.makedirs(root)
    git(root, "init", "-q", *init)
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as fh:
            fh.write(text)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "init")
    return root


FILES = {"src/app.py": "print(1)\n", "README.md": "hi\n", "docs/a b ü.txt": "x\n"}
SECRET = {**FILES, "config/.env": "TOKEN=1\n"}


def judge(policy, root, command, cwd=None):
    v = validate(command, os.path.join(root, cwd) if cwd else root, root, policy, "Bash",
                 SettingsRules(), None)
    return v.decision.name, v.code, v.message


# --- the index parser -----------------------------------------------------------------------

def _ls_files(root):
    return sorted(git(root, "ls-files", "-z").split(b"\0")[:-1])


@pytest.mark.parametrize("form", ["v2", "v3", "v4", "sha256", "sha256-v4", "split"])
def test_the_parser_lists_what_git_ls_files_lists(tmp_path, form):
    init = ("--object-format=sha256",) if form.startswith("sha256") else ()
    root = repo(tmp_path, {**SECRET, **{f"d{i}/deeper/name-{i}.py": "x" for i in range(40)}},
                init)
    if form == "v3":  # an intent-to-add entry carries the extended flags of version 3
        with open(os.path.join(root, "new.py"), "w") as fh:
            fh.write("x")
        git(root, "add", "-N", "new.py")
        assert git(root, "ls-files", "--debug", "new.py")  # it is in the index
    if form.endswith("v4"):
        git(root, "update-index", "--index-version", "4")
    if form == "split":
        git(root, "update-index", "--split-index")
        with open(os.path.join(root, "later.py"), "w") as fh:
            fh.write("x")
        git(root, "add", "later.py")
        assert [f for f in os.listdir(os.path.join(root, ".git"))
                if f.startswith("sharedindex.")]
    mine = tracked_paths(os.path.join(root, ".git"))
    assert mine is not None
    assert sorted(set(mine)) == _ls_files(root)
    assert b"config/.env" in mine and "docs/a b ü.txt".encode() in mine


def test_a_sparse_index_is_unknown(tmp_path):
    root = repo(tmp_path, {**SECRET, "deep/x.py": "x"})
    git(root, "sparse-checkout", "init", "--cone", "--sparse-index")
    git(root, "sparse-checkout", "set", "deep")
    assert tracked_paths(os.path.join(root, ".git")) is None


@pytest.mark.parametrize("damage", ["truncated", "bad-magic", "version-9", "garbage-tail"])
def test_a_damaged_index_is_unknown(tmp_path, damage):
    root = repo(tmp_path, SECRET)
    path = os.path.join(root, ".git", "index")
    data = open(path, "rb").read()
    data = {"truncated": data[:len(data) // 2], "bad-magic": b"XIRC" + data[4:],
            "version-9": data[:4] + b"\0\0\0\x09" + data[8:],
            "garbage-tail": data[:-20] + b"\xff" * 7 + data[-20:]}[damage]
    with open(path, "wb") as fh:
        fh.write(data)
    assert tracked_paths(os.path.join(root, ".git")) is None


def test_no_index_is_no_tracked_path(tmp_path):
    root = os.path.realpath(str(tmp_path))
    git(root, "init", "-q")
    assert tracked_paths(os.path.join(root, ".git")) == []


def test_an_index_that_is_a_symlink_is_unknown(tmp_path):
    root = repo(tmp_path, FILES)
    index = os.path.join(root, ".git", "index")
    os.rename(index, index + ".real")
    os.symlink(index + ".real", index)
    assert tracked_paths(os.path.join(root, ".git")) is None


def test_an_index_that_is_a_fifo_is_unknown_and_does_not_hang(tmp_path):
    """Reproducer: a FIFO at .git/index hung the PermissionRequest hook in open() on
    `git show HEAD:notes.txt` (found by the reliability pass)."""
    root = repo(tmp_path, FILES)
    index = os.path.join(root, ".git", "index")
    os.unlink(index)
    os.mkfifo(index)
    assert tracked_paths(os.path.join(root, ".git")) is None


def test_the_git_dir_of_a_worktree_and_a_subdirectory(tmp_path):
    root = repo(tmp_path, SECRET)
    assert git_dir_of(os.path.join(root, "src"), root) == os.path.join(root, ".git")
    git(root, "worktree", "add", "-q", os.path.join(root, "wt"))
    wt = os.path.join(root, "wt")
    assert git_dir_of(wt, root) == os.path.join(root, ".git", "worktrees", "wt")
    assert git_dir_of(os.path.realpath(str(tmp_path)), root) is None


# --- decisions ------------------------------------------------------------------------------

PRINTS = ["git diff", "git diff HEAD~0", "git diff --cached", "git show", "git show HEAD",
          "git log -p", "git log -p -3", "git log --patch", "git log -u", "git log -U5",
          "git log --pat", "git log --cc", "git log -pS x", "git log --word-diff",
          "git whatchanged -p", "git diff-tree -p HEAD", "git grep TOKEN", "git grep -l TOKEN",
          "git grep -s TOKEN", "git grep TOKEN HEAD", "git stash show", "git stash show -p",
          "git reflog -p", "git diff --stat -p", "git -C src diff", "git --no-pager show",
          # found by a red-team pass: each printed the secret while allowed
          "git log --check", "git show --stat --check", "git diff --src-prefix --stat HEAD",
          "git show --quiet --no-quiet HEAD", "git status -v", "git status -vv", "git add -p",
          "git commit -v", "git commit -p -m x", "git stash push -p", "git stash list -p",
          "git show -s 'abcd^{}'", "git show --stat 'abcd^{blob}'", "git show -s leak",
          "git for-each-ref --format='%(raw)'", "git tag -l --format='%(raw)'",
          "git diff --submodule=diff", "git grep --recurse-submodules TOKEN"]
QUIET = ["git log", "git log --oneline -5", "git log --stat", "git diff --stat",
         "git diff --name-only", "git diff --name-status", "git diff --numstat",
         "git show --stat", "git show -s HEAD", "git show --no-patch", "git status",
         "git cat-file -t HEAD", "git cat-file -s HEAD", "git shortlog -s", "git reflog",
         "git branch", "git diff --quiet", "git show --stat HEAD~1", "git show -s @",
         "git diff --stat-width=80 --stat", "git add src/app.py", "git commit -m x",
         "git stash list", "git for-each-ref", "git tag -l", "git branch -v"]


@pytest.mark.parametrize("command", PRINTS)
def test_commands_that_print_tracked_contents_ask_when_a_secret_is_tracked(
        tmp_path, policy, command):
    root = repo(tmp_path, SECRET)
    decision, code, message = judge(policy, root, command)
    assert (decision, code) == ("ASK", "GW503"), message
    assert "'config/.env'" in message and "git rm --cached config/.env" in message


@pytest.mark.parametrize("command", QUIET)
def test_commands_that_print_no_contents_are_allowed_with_a_tracked_secret(
        tmp_path, policy, command):
    root = repo(tmp_path, SECRET)
    assert judge(policy, root, command)[:2] == ("ALLOW", "GW700")


@pytest.mark.parametrize("command", PRINTS)
def test_without_a_tracked_secret_they_are_allowed(tmp_path, policy, command):
    root = repo(tmp_path, {**FILES, ".gitignore": ".env\n", ".env.example": "TOKEN=\n"})
    with open(os.path.join(root, ".env"), "w") as fh:  # present but not tracked
        fh.write("TOKEN=1\n")
    if "stash" in command:
        with open(os.path.join(root, "README.md"), "a") as fh:
            fh.write("more\n")
        git(root, "stash", "-q")
    assert judge(policy, root, command)[:2] == ("ALLOW", "GW700"), command


def test_cat_file_of_a_blob_asks_when_a_secret_is_tracked(tmp_path, policy):
    root = repo(tmp_path, SECRET)
    blob = git(root, "rev-parse", "HEAD:src/app.py").decode().strip()
    assert judge(policy, root, f"git cat-file -p {blob}")[:2] == ("ASK", "GW503")
    assert judge(policy, root, f"git cat-file blob {blob}")[:2] == ("ASK", "GW503")
    # git show of an object id may be a blob: its --stat does not keep the contents back
    assert judge(policy, root, f"git show --stat {blob[:10]}")[:2] == ("ASK", "GW503")


def test_a_secret_added_but_not_committed_counts(tmp_path, policy):
    root = repo(tmp_path, FILES)
    assert judge(policy, root, "git diff --cached")[:2] == ("ALLOW", "GW700")
    with open(os.path.join(root, "id_rsa"), "w") as fh:
        fh.write("-----BEGIN-----\n")
    git(root, "add", "id_rsa")
    decision, code, message = judge(policy, root, "git diff --cached")
    assert (decision, code) == ("ASK", "GW503") and "'id_rsa'" in message


def test_from_a_subdirectory_and_a_worktree(tmp_path, policy):
    root = repo(tmp_path, SECRET)
    assert judge(policy, root, "git diff", cwd="src")[:2] == ("ASK", "GW503")
    # a project that is a linked worktree: its index is in the main repository's git dir
    wt = os.path.realpath(str(tmp_path / "wt"))
    git(root, "worktree", "add", "-q", wt)
    decision, code, message = judge(policy, wt, "git diff")
    assert (decision, code) == ("ASK", "GW503") and "'config/.env'" in message
    assert judge(policy, wt, "git diff --stat")[:2] == ("ALLOW", "GW700")


def test_an_unreadable_index_asks(tmp_path, policy):
    root = repo(tmp_path, FILES)
    path = os.path.join(root, ".git", "index")
    with open(path, "r+b") as fh:
        fh.write(b"XXXX")
    decision, code, message = judge(policy, root, "git diff")
    assert (decision, code) == ("ASK", "GW503") and "could not be read" in message
    assert judge(policy, root, "git log --oneline")[:2] == ("ALLOW", "GW700")


def test_the_prefilter_keeps_every_secret(policy):
    """_suspects is a shortcut for is_secret over every tracked path: it may keep more, never
    less (case, secret directories, patterns with a directory part, exceptions)."""
    from gateway.paths import is_secret
    from gateway.validator.checks.git import _suspects

    names = [".env", ".ENV", "a.env", ".env.local", ".env.example", "id_rsa", "id_rsa.pub",
             "key.PEM", "x.py", "credentials", "config", "config.json", ".npmrc", "README"]
    dirs = ["", "src/", ".ssh/", "deep/.aws/", ".docker/", "a/.Ssh/b/", ".git/", "x.env/"]
    paths = [(d + n).encode() for d in dirs for n in names]
    secret = {p for p in paths if is_secret(("/r/" + p.decode(),), policy)}
    assert secret and secret <= set(_suspects(paths, policy))
    assert len(_suspects(paths, policy)) < len(paths)



def test_a_project_inside_a_larger_repository(tmp_path, policy):
    # a monorepo: the project is mono/svc, the repository (and its index) is mono/.git
    mono = repo(tmp_path, {"svc/app.py": "x\n", "svc/.env": "TOKEN=1\n"}, name="mono")
    svc = os.path.join(mono, "svc")
    decision, code, message = judge(policy, svc, "git show")
    assert (decision, code) == ("ASK", "GW503") and "'svc/.env'" in message
    assert judge(policy, svc, "git log --oneline")[:2] == ("ALLOW", "GW700")


def test_a_secret_in_a_submodule(tmp_path, policy):
    sub = repo(tmp_path, {"lib.py": "x\n", ".env": "TOKEN=1\n"}, name="sub")
    root = repo(tmp_path, FILES)
    git(root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "sub")
    git(root, "commit", "-q", "-m", "sub")
    for command in ("git grep --recurse-submodules TOKEN", "git diff --submodule=diff",
                    "git log -p"):
        decision, code, message = judge(policy, root, command)
        assert (decision, code) == ("ASK", "GW503") and "'.env'" in message, command


@pytest.mark.parametrize("command,code", [
    ("git stash -u", "GW704"), ("git stash push --include-untracked", "GW704"),
    ("git stash -a", "GW704"), ("git stash save -u wip", "GW704"),
    ("git restore -S -s HEAD -- '*env'", "GW704"),
    ("git restore -S --source=HEAD ':(glob)**/.env'", "GW704"),
    ("git config get --blob=abcd1234 x.y", "GW704"), ("git tag leak HEAD:.env", "GW503"),
])
def test_ways_around_the_check_ask_in_any_repository(tmp_path, policy, command, code):
    # untracked or ignored secrets stashed into a commit (git show stash^3 prints them), a
    # tracked one taken out of the index, a blob named by id
    root = repo(tmp_path, {**FILES, ".gitignore": ".env\n"})
    assert judge(policy, root, command)[:2] == ("ASK", code)
