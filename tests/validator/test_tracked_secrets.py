"""A secret the repository tracks (a committed .env) is printed by git diff / show / log -p /
grep / cat-file as surely as by `cat .env`, which asks: those commands ask too (GW503) when
git says the files they print include one; a secret elsewhere in the repository (another
commit, a path the pathspec leaves out) is no reason to ask. The index is also parsed by the
gateway (untracked files, submodules, refs' contents); the parser is checked against `git
ls-files` for every index format git writes. Each test builds its own repository with the
real git."""

import os
import subprocess

import pytest

from gateway.settings import SettingsRules
from gateway.tools.gitindex import git_dir_of, tracked_paths
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

def _write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fh:
        fh.write(text)


def printing_state(tmp_path):
    """A repository where every command of PRINTS prints config/.env: HEAD changes it, the
    index holds a further change, the working tree one more, the top stash one, and the tag
    `leak` names its blob."""
    root = repo(tmp_path, SECRET)
    _write(root, "config/.env", "TOKEN=2\n")
    git(root, "commit", "-qam", "rotate")
    _write(root, "config/.env", "TOKEN=3\n")
    git(root, "stash", "-q")
    _write(root, "config/.env", "TOKEN=4\n")
    git(root, "add", "config/.env")
    _write(root, "config/.env", "TOKEN=5\n")
    blob = git(root, "rev-parse", "HEAD:config/.env").decode().strip()
    git(root, "tag", "leak", blob)
    return root


def quiet_state(tmp_path):
    """config/.env is tracked (the first commit adds it), but HEAD, the index, the working
    tree and the stash change only README.md and src/."""
    root = repo(tmp_path, SECRET)
    _write(root, "README.md", "more\n")
    git(root, "commit", "-qam", "docs")
    _write(root, "src/app.py", "print(2)\n")
    git(root, "stash", "-q")
    _write(root, "src/app.py", "print(3)\n")
    git(root, "add", "src/app.py")
    _write(root, "README.md", "even more\n")
    return root


PRINTS = ["git diff", "git diff HEAD~0", "git diff HEAD", "git diff --cached", "git show",
          "git show HEAD", "git log -p", "git log -p -1", "git log --patch", "git log -u",
          "git log -U5", "git log --cc", "git log -pS TOKEN", "git log --word-diff",
          "git whatchanged -p", "git diff-tree -p HEAD", "git grep TOKEN", "git grep -l TOKEN",
          "git grep -h TOKEN", "git grep TOKEN HEAD", "git grep -c TOKEN", "git stash show",
          "git stash show -p", "git reflog -p", "git diff --stat -p", "git -C src diff",
          "git --no-pager show", "git log --check", "git show --stat --check",
          "git diff --src-prefix --stat HEAD", "git show --quiet --no-quiet HEAD",
          "git status -v", "git status -vv", "git commit -v", "git stash list -p",
          "git diff HEAD~1 HEAD", "git diff HEAD~1..HEAD", "git log -p --follow config/.env",
          "git log -p --all", "git show --first-parent HEAD", "git log -p -M -1",
          "git log -p --graph -1", "git diff -R", "git diff --no-renames HEAD~1"]
#: Allowed although config/.env is tracked: what they print does not include it.
QUIET = ["git diff", "git diff HEAD", "git diff --cached", "git show", "git show HEAD",
         "git log -p -1", "git diff HEAD~1", "git diff HEAD~1 HEAD -- src", "git stash show -p",
         "git grep TOKEN -- src", "git grep -n TOKEN -- src README.md", "git grep -c NOPE",
         "git grep TOKEN -- . ':!config/.env'", "git log -p -- src", "git diff -- src",
         "git status -v", "git status -vv", "git commit -v -m x", "git stash list -p -1",
         "git show HEAD:src/app.py", "git log -p -1 --stat", "git diff --stat -p",
         "git -C src diff", "git log -p --format=%H -1", "git show --name-only"]
#: No contents at all: allowed whatever the repository tracks.
NO_CONTENTS = ["git log", "git log --oneline -5", "git log --stat", "git diff --stat",
               "git diff --name-only", "git diff --name-status", "git diff --numstat",
               "git show --stat", "git show -s HEAD", "git show --no-patch", "git status",
               "git cat-file -t HEAD", "git cat-file -s HEAD", "git shortlog -s", "git reflog",
               "git branch", "git diff --quiet", "git show --stat HEAD~1", "git show -s @",
               "git diff --stat-width=80 --stat", "git add src/app.py", "git commit -m x",
               "git stash list", "git for-each-ref", "git tag -l", "git branch -v"]


@pytest.mark.parametrize("command", PRINTS)
def test_commands_that_print_a_tracked_secret_ask(tmp_path, policy, command):
    root = printing_state(tmp_path)
    decision, code, message = judge(policy, root, command)
    assert (decision, code) == ("ASK", "GW503"), message
    assert "'config/.env'" in message and "secret file" in message


@pytest.mark.parametrize("command", QUIET)
def test_a_tracked_secret_that_is_not_printed_is_no_reason_to_ask(tmp_path, policy, command):
    root = quiet_state(tmp_path)
    assert judge(policy, root, command)[:2] == ("ALLOW", "GW700"), command


@pytest.mark.parametrize("command", NO_CONTENTS)
def test_commands_that_print_no_contents_are_allowed_with_a_secret_everywhere(
        tmp_path, policy, command):
    root = printing_state(tmp_path)
    assert judge(policy, root, command)[:2] == ("ALLOW", "GW700"), command


def test_history_that_holds_a_secret_asks_for_what_prints_it(tmp_path, policy):
    root = quiet_state(tmp_path)
    # the first commit added config/.env: any command that prints that commit's patch asks
    for command in ("git log -p", "git show HEAD~1", "git log -p --reverse",
                    "git diff 4b825dc642cb6eb9a060e54bf8d69288fbee4904 HEAD -- config", "git log -p -- config"):
        decision, code, message = judge(policy, root, command)
        assert (decision, code) == ("ASK", "GW503"), command
        assert "'config/.env'" in message


def test_a_secret_removed_from_the_index_is_still_printed_from_history(tmp_path, policy):
    # committed, then untracked: the index no longer names it, the history does (issue 13,
    # class 1: a secret in an object the index check never looked at)
    root = repo(tmp_path, FILES)
    _write(root, "deploy/id_ed25519", "-----BEGIN OPENSSH PRIVATE KEY-----\n")
    git(root, "add", "deploy/id_ed25519")
    git(root, "commit", "-qm", "key")
    git(root, "rm", "-q", "--cached", "deploy/id_ed25519")
    git(root, "commit", "-qm", "untrack")
    assert b"deploy/id_ed25519" not in b"".join(tracked_paths(os.path.join(root, ".git")))
    for command in ("git show HEAD~1", "git log -p -2", "git show HEAD", "git log -p"):
        decision, code, message = judge(policy, root, command)
        assert (decision, code) == ("ASK", "GW503"), command
        assert "'deploy/id_ed25519'" in message
    assert judge(policy, root, "git log -p -1 -- src")[:2] == ("ALLOW", "GW700")


def test_without_a_tracked_secret_they_are_allowed(tmp_path, policy):
    root = repo(tmp_path, {**FILES, ".gitignore": ".env\n", ".env.example": "TOKEN=\n"})
    _write(root, ".env", "TOKEN=1\n")  # present but not tracked
    _write(root, "README.md", "more\n")
    git(root, "stash", "-q")
    _write(root, "README.md", "again\n")
    git(root, "add", "README.md")
    _write(root, "src/app.py", "print(9)\n")
    for command in PRINTS:
        if "config/.env" in command or "HEAD~1" in command or "-C src" in command:
            continue
        assert judge(policy, root, command)[:2] == ("ALLOW", "GW700"), command


def test_objects_named_by_id(tmp_path, policy):
    root = printing_state(tmp_path)
    blob = git(root, "rev-parse", "HEAD:src/app.py").decode().strip()
    tree = git(root, "rev-parse", "HEAD^{tree}").decode().strip()
    commit = git(root, "rev-parse", "HEAD").decode().strip()
    for command in (f"git cat-file -p {blob}", f"git cat-file blob {blob}",
                    f"git show --stat {blob[:10]}", f"git show -s {blob}", "git show -s leak",
                    "git show --stat leak", f"git diff {blob} {blob}"):
        decision, code, message = judge(policy, root, command)
        assert (decision, code) == ("ASK", "GW744"), (command, message)
    for command in (f"git cat-file -p {tree}", f"git cat-file -p {commit}",
                    "git cat-file -p HEAD:src/app.py", "git cat-file -t leak",
                    f"git show {tree}"):
        assert judge(policy, root, command)[:2] == ("ALLOW", "GW700"), command
    assert judge(policy, root, "git cat-file -p HEAD:config/.env")[:2] == ("ASK", "GW503")


def test_a_secret_added_but_not_committed_counts(tmp_path, policy):
    root = repo(tmp_path, FILES)
    assert judge(policy, root, "git diff --cached")[:2] == ("ALLOW", "GW700")
    _write(root, "id_rsa", "-----BEGIN-----\n")
    git(root, "add", "id_rsa")
    decision, code, message = judge(policy, root, "git diff --cached")
    assert (decision, code) == ("ASK", "GW503") and "'id_rsa'" in message


def test_from_a_subdirectory_and_a_worktree(tmp_path, policy):
    root = printing_state(tmp_path)
    assert judge(policy, root, "git diff", cwd="src")[:2] == ("ASK", "GW503")
    # a project that is a linked worktree: git is asked there, in its own index and HEAD
    wt = os.path.realpath(str(tmp_path / "wt"))
    git(root, "worktree", "add", "-q", wt)
    decision, code, message = judge(policy, wt, "git log -p")
    assert (decision, code) == ("ASK", "GW503") and "'config/.env'" in message
    assert judge(policy, wt, "git diff")[:2] == ("ALLOW", "GW700")  # a fresh checkout
    _write(wt, "config/.env", "TOKEN=7\n")
    assert judge(policy, wt, "git diff")[:2] == ("ASK", "GW503")
    assert judge(policy, wt, "git diff --stat")[:2] == ("ALLOW", "GW700")


def test_when_git_cannot_answer_it_asks(tmp_path, policy):
    root = repo(tmp_path, FILES)
    path = os.path.join(root, ".git", "index")
    with open(path, "r+b") as fh:
        fh.write(b"XXXX")  # git refuses a damaged index
    decision, code, message = judge(policy, root, "git diff")
    assert (decision, code) == ("ASK", "GW740"), message
    assert judge(policy, root, "git log --oneline")[:2] == ("ALLOW", "GW700")


def test_a_partial_clone_is_never_asked(tmp_path, policy):
    # git would fetch a missing object over the network to answer
    root = repo(tmp_path, FILES)
    pack = os.path.join(root, ".git", "objects", "pack")
    os.makedirs(pack, exist_ok=True)
    open(os.path.join(pack, "pack-0000.promisor"), "w").close()
    assert judge(policy, root, "git show")[:2] == ("ASK", "GW740")
    assert judge(policy, root, "git status")[:2] == ("ALLOW", "GW700")


def test_a_slow_git_asks(tmp_path, policy, monkeypatch):
    from gateway.tools import gitquery as _gitquery

    root = repo(tmp_path, FILES)
    monkeypatch.setattr(_gitquery, "TIMEOUT", 0.000001)
    _gitquery._CACHE.clear()
    assert judge(policy, root, "git show")[:2] == ("ASK", "GW740")


def test_the_prefilter_keeps_every_secret(policy):
    """_suspects is a shortcut for is_secret over every tracked path: it may keep more, never
    less (case, secret directories, patterns with a directory part, exceptions, backups)."""
    from gateway.paths import is_secret
    from gateway.validator.checks.gitprint import _suspects

    names = [".env", ".ENV", "a.env", ".env.local", ".env.example", "id_rsa", "id_rsa.pub",
             "key.PEM", "x.py", "credentials", "config", "config.json", ".npmrc", "README",
             ".npmrc.bak", "key.pem~", ".pgpass.orig", "main.tf", "terraform.tfstate"]
    dirs = ["", "src/", ".ssh/", "deep/.aws/", ".docker/", "a/.Ssh/b/", ".git/", "x.env/",
            ".git/modules/a/", ".git/modules/a/b/"]
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
                    "git log -p --submodule=diff"):
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
