"""gateway.effects.analysis: what a Bash command writes, judged from the parse, failing closed."""

import os

import pytest

from gateway.effects.analysis import analyze

CWD = "/proj"

READ_ONLY = [
    "less a.txt", "less -N README.md", "git log | less -R", "git clean -n", "git clean -nfd",
    "ls -la", "cat a.txt | grep x | wc -l", "head -n 5 a.txt", "tail -f log.txt",
    "grep -rn TODO src", "rg -n foo src", "find . -name '*.py'", "find . -type f -newer a",
    "find . -name x -exec grep -l foo {} ;", "sed -n '1,20p' a.py", "sed 's/a/b/g' a.txt",
    "awk '{print $1}' a.txt", "jq . package.json", "diff a b", "sort a.txt", "uniq -c a.txt",
    "wc -l a.txt", "echo hi", "echo hi 2>&1", "ls 2>/dev/null", "ls > /dev/null",
    "echo x >&2", "printf '%s\\n' x", "pwd", "cd src && ls", "stat a.txt", "file a.txt",
    "git status", "git log --oneline -5", "git diff HEAD~1", "git show HEAD:src/a.py",
    "git -C src status", "git --no-pager log", "/usr/bin/git status", "git branch",
    "git branch -a", "git branch --list 'feat/*'", "git tag", "git tag -l 'v*'",
    "git stash list", "git remote -v", "git config --get user.name", "git config --list",
    "git rev-parse HEAD", "git blame a.py", "git grep foo", "git ls-files",
    "git reflog", "git worktree list", "git apply --check x.patch",
    "command -v git", "nice -n 5 cat a", "timeout 5 cat a", "xargs grep foo",
    "env", "gateway state show", "gateway state validate", "gateway check 'ls'",
    "gateway explain GW801", "gateway rules show", "gateway breezing phase",
    "python3 --version", "node -v", "bash -c 'ls -la'", "sh -c 'git status'",
    "date +%s", "hostname", "xxd a.bin", "tree -L 2", "sort -k 2 a.csv",
    "echo \"$(cat <<'EOF'\nhello\nEOF\n)\"", "true && false || echo x",
    # the shell's own state, last in the line; a loop judged as its unrolled body
    "export X=1", "X=1", "ls; export A=1 B", "for f in a b; do cat \"$f\" | wc -l; done",
]


@pytest.mark.parametrize("command", READ_ONLY)
def test_read_only(command):
    eff = analyze(command, CWD)
    assert eff.readonly, (command, eff.reasons())


WRITES = [
    # (command, via, absolute candidate path)
    ("echo hi > out.txt", "redirection >", "/proj/out.txt"),
    ("echo hi >> out.txt", "redirection >>", "/proj/out.txt"),
    ("echo hi >| out.txt", "redirection >|", "/proj/out.txt"),
    ("ls &> out.txt", "redirection &>", "/proj/out.txt"),
    ("ls >& out.txt", "redirection >&", "/proj/out.txt"),
    ("cat <> f", "redirection <>", "/proj/f"),
    ("echo x | tee -a log.txt", "tee", "/proj/log.txt"),
    ("sed -i 's/a/b/' f.py", "sed -i", "/proj/f.py"),
    ("sed -i.bak -e 's/a/b/' f.py", "sed -i", "/proj/f.py"),
    ("sed --in-place 's/a/b/' f.py", "sed -i", "/proj/f.py"),
    ("awk -i inplace '{print}' f.py", "awk -i inplace", "/proj/f.py"),
    ("perl -i -pe 's/a/b/' f.py", "perl -i", "/proj/f.py"),
    ("perl -pi -e 's/a/b/' f.py", "perl -i", "/proj/f.py"),
    ("ruby -i -pe 'x' f.rb", "ruby -i", "/proj/f.rb"),
    ("dd if=/dev/zero of=disk.img bs=1M count=1", "dd of=", "/proj/disk.img"),
    ("sort -o out.txt a.txt", "sort -o", "/proj/out.txt"),
    ("sort --output=out.txt a.txt", "sort --output", "/proj/out.txt"),
    ("uniq a.txt b.txt", "uniq", "/proj/b.txt"),
    ("xxd a.bin b.hex", "xxd", "/proj/b.hex"),
    ("xxd -ps a.bin b.hex", "xxd", "/proj/b.hex"),  # -ps is one option, not -p -s VALUE
    ("xxd a.bin -x", "xxd", "/proj/-x"),  # options end at the first file
    ("find . -name x -fprint /tmp/o", "find -fprint", "/tmp/o"),
    ("find build -delete", "find -delete", "/proj/build"),
    ("git diff --output=/tmp/x", "git diff --output", "/tmp/x"),
    ("git log --output /tmp/y", "git log --output", "/tmp/y"),
    ("git config core.hooksPath x", "git config", "/proj/.git/config"),
    ("/usr/bin/time -o t.txt ls", "time -o", "/proj/t.txt"),
    ("rm -rf build", "rm", "/proj/build"),
    ("for d in build dist; do rm -rf \"$d\"; done", "rm", "/proj/dist"),
    ("for f in a b; do touch \"$f.txt\"; done", "touch", "/proj/b.txt"),
    ("rmdir d", "rmdir", "/proj/d"),
    ("unlink f", "unlink", "/proj/f"),
    ("shred -n 3 f", "shred", "/proj/f"),
    ("truncate -s 0 f", "truncate", "/proj/f"),
    ("touch notes.txt", "touch", "/proj/notes.txt"),
    ("mkdir -p build/out", "mkdir", "/proj/build/out"),
    ("chmod -R 755 build", "chmod", "/proj/build"),
    ("chown me f", "chown", "/proj/f"),
    ("mv a b", "mv", "/proj/b"),
    ("mv a b", "mv (source)", "/proj/a"),
    ("cp a b", "cp", "/proj/b"),
    ("cp -t dest a", "cp", "/proj/dest/a"),
    ("install -m 755 a /usr/local/bin/a", "install", "/usr/local/bin/a"),
    ("install -d d1 d2", "install -d", "/proj/d2"),
    ("ln -sf /etc e", "ln", "/proj/e"),
    ("/usr/bin/rm x", "rm", "/proj/x"),
    ("command rm x", "rm", "/proj/x"),
    ("nice -n 5 rm x", "rm", "/proj/x"),
    ("timeout -s KILL 5 rm x", "rm", "/proj/x"),
    ("env -u A rm x", "rm", "/proj/x"),
    ("bash -c 'rm x'", "rm", "/proj/x"),
    ("sh -ec 'echo > y'", "redirection >", "/proj/y"),
    ("ls $(rm z)", "rm", "/proj/z"),
    ("(cd sub; touch y)", "touch", "/proj/sub/y"),
    ("cd .claude && rm settings.json", "rm", "/proj/.claude/settings.json"),
    ("cat <<EOF > f.txt\nhi\nEOF", "redirection >", "/proj/f.txt"),
    ("echo x > >(tee copy.txt)", "tee", "/proj/copy.txt"),
]


@pytest.mark.parametrize("command,via,path", WRITES)
def test_named_writes(command, via, path):
    eff = analyze(command, CWD)
    assert not eff.readonly
    found = [(w.via, p) for w in eff.writes for p in w.paths]
    assert (via, path) in found, (command, found)


def test_rm_recursive_is_a_tree_write():
    (w,) = analyze("rm -r -f build", CWD).writes
    assert w.tree
    (w,) = analyze("rm build", CWD).writes
    assert not w.tree


def test_copy_into_an_existing_directory_names_the_file(tmp_path):
    (tmp_path / "hooks").mkdir()
    eff = analyze("cp evil.sh hooks", str(tmp_path))
    assert eff.writes[0].paths == (str(tmp_path / "hooks" / "evil.sh"),)
    eff = analyze("cp evil.sh newname", str(tmp_path))
    assert eff.writes[0].paths == (str(tmp_path / "newname"),)


UNKNOWN = [
    "npm test", "make", "pytest", "python3 scripts/foo.py", "python3 -c 'print(1)'",
    "python3 -c \"open('x','w').write('y')\"", "node -e 'x'", "perl -e 'unlink q(x)'",
    "bash script.sh", "sh", "echo ls | sh", "bash -c \"$CMD\"", "$CMD x", "eval 'rm x'",
    "source env.sh", ". env.sh", "exec rm x", "export X=1; ls", "X=1 ls", "PAGER=sh git log",
    "env X=1 ls", "env -S 'rm x' ", "sudo ls", "nohup ls", "watch ls", "flock l ls",
    "curl http://x", "wget http://x", "tar xf a.tar", "unzip a.zip", "patch -p1 < x.patch",
    "f() { ls; }; f", "./scripts/run.sh", "/tmp/evil/cat x", "rm $X", "echo x > $OUT",
    "echo x > ~/y", "sed -f prog.sed a", "sed 's/a/b/w out' a", "sed 'e id' a",
    "awk 'BEGIN{system(\"id\")}'", "awk '{print > \"out\"}' a", "awk -f p.awk a",
    "find . -exec rm {} +", "xargs rm", "xargs sed -i s/a/b/", "rg --pre cat x",
    "date -s 2020-01-01", "file -C -m x", "sort --compress-program=sh a", "tree -R",
    "git -c core.pager=sh log", "git grep -O foo", "git diff --ext-diff", "ls 'unclosed",
    "python3 <<EOF\nprint(1)\nEOF", "bash <<'EOF'\nrm x\nEOF", "gateway serve",
    # less: a +cmd runs a less command, -o writes a log (the plain form is read-only)
    "less +G a.txt", "less -o log.txt a.txt", "less --lesskey-src=k a.txt",
    "vim a.txt", "git config --get-regexp . ; git config alias.x y",
    # git clean: -n in force at the end only (git reads the last of -n and --no-dry-run)
    "git clean -n --no-dry-run -f", "git clean -fe -n", "git clean -f --end-of-options -n .",
]


@pytest.mark.parametrize("command", UNKNOWN)
def test_not_read_only(command):
    eff = analyze(command, CWD)
    assert not eff.readonly, command
    assert eff.reasons(), command


GIT_MUTATING = ["git commit -m x", "git push", "git add .", "git checkout main",
                "git reset --hard", "git rebase main", "git merge x", "git cherry-pick a",
                "git apply x.patch", "git am x.mbox", "git switch x", "git restore a",
                "git stash", "git stash pop", "git pull", "git clean -fd", "git rm a",
                "git mv a b", "git submodule update", "git fetch", "git branch new",
                "git branch -D old", "git tag v1", "git tag -d v1", "git config user.name x",
                "git init", "git clone x", "git gc", "git update-ref -d refs/x",
                "git reflog expire --all", "git remote add o u", "git notes add -m x",
                "git worktree add ../w", "git Status"]


@pytest.mark.parametrize("command", GIT_MUTATING)
def test_mutating_git(command):
    eff = analyze(command, CWD)
    assert eff.git, command
    assert not eff.readonly


COMMIT_PUSH = ["git commit -m x", "git push", "/usr/bin/git commit -m x",
               "git -c a=b commit", "git -C . push", "command git push", "env git commit",
               "nice git commit", "GIT commit", "git COMMIT -m x", "git-commit -m x",
               "/usr/lib/git-core/git-commit -m x", "git --git-dir=.git push",
               "git commit-tree HEAD^{tree}", "git merge feature", "git pull", "git rebase x",
               "git update-ref refs/heads/main abc", "git send-pack o", "sh -c 'git push'",
               "bash -c \"git commit -am wip\"", "echo x | xargs git commit -m",
               "git --no-pager commit", "git -C src commit -m x", "ls && git push"]


@pytest.mark.parametrize("command", COMMIT_PUSH)
def test_commit_and_push_in_every_spelling(command):
    eff = analyze(command, CWD)
    assert eff.commit_push, (command, eff.reasons())


MAYBE = ["git ci -m x", "git p", "git Commit", "git -c alias.x=commit x",
         "git --exec-path=/tmp/evil status", "git submodule foreach git commit",
         "git bisect run make", "git difftool -x sh", "git lfs push", "git $SUB"]


@pytest.mark.parametrize("command", MAYBE)
def test_forms_that_may_commit_or_push(command):
    eff = analyze(command, CWD)
    assert eff.commit_push or eff.commit_push_maybe, (command, eff.reasons())


@pytest.mark.parametrize("command", ["git status", "git log", "git stash", "git add .",
                                     "git fetch", "git checkout main"])
def test_not_commit_or_push(command):
    eff = analyze(command, CWD)
    assert not eff.commit_push and not eff.commit_push_maybe, command


@pytest.mark.parametrize("command,op", [
    ("gateway state clean", "state clean"), ("gateway state clean --all", "state clean"),
    ("gateway breezing phase B", "breezing phase B"),
    ("/opt/venv/bin/gateway breezing phase C", "breezing phase C"), ("gateway breezing phase C", "breezing phase C"),
    ("gateway hook pre-tool-use", "hook pre-tool-use")])
def test_gateway_state_operations(command, op):
    assert analyze(command, CWD).gateway_ops == [op]


@pytest.mark.parametrize("command,op", [
    ("gateway breezing start --range x --yes", "breezing start"),
    ("gateway breezing abort", "breezing abort"), ("gateway breezing verify", "breezing verify"),
    ("gateway breezing finish --cleanup", "breezing finish"),
    ("gateway spec done 541", "spec done 541"), ("gateway spec start 541", "spec start 541"),
    ("gateway crew new", "crew new"), ("gateway breezing batch", "breezing batch"),
    ("gateway breezing review REQUEST_CHANGES", "breezing review REQUEST_CHANGES"),
    ("gateway orch claim worker-1", "orch claim worker-1"),
    ("gateway resume --yes", "resume --yes"), ("gateway resume -y", "resume --yes")])
def test_gateway_workflow_steps_are_state_operations(command, op):
    eff = analyze(command, CWD)
    assert eff.gateway_ops == [op] and not eff.unknown


@pytest.mark.parametrize("command", [
    "gateway breezing next", "gateway breezing verify --dry-run", "gateway crew plan p.md",
    "gateway crew validate-result r.md coder", "gateway crew status", "gateway orch status",
    "gateway orch info planner-x", "gateway orch resume --list", "gateway spec status",
    "gateway resume", "gateway resume --json", "gateway breezing start --help",
    "gateway breezing phase", "gateway breezing status", "gateway resume --list",
    "gateway orch resume planner-x"])
def test_gateway_workflow_views_are_read_only(command):
    eff = analyze(command, CWD)
    assert eff.readonly, (command, eff.reasons())


@pytest.mark.parametrize("command", ["gateway breezing frobnicate", "gateway spec close 1",
                                     "gateway crew new --bogus", "gateway serve"])
def test_other_gateway_verbs_are_not_known_read_only(command):
    assert analyze(command, CWD).unknown


def test_gateway_install_rewrites_the_settings():
    eff = analyze("gateway install", CWD)
    assert eff.surface_ops and not eff.readonly


def test_cd_is_followed_for_relative_targets():
    eff = analyze("cd a; cd b; touch x", CWD)
    assert set(eff.writes[0].paths) == {"/proj/x", "/proj/a/x", "/proj/b/x", "/proj/a/b/x"}


def test_unknown_directory_makes_relative_targets_unknown():
    eff = analyze("cd $D && rm settings.json", CWD)
    assert eff.writes[0].paths == ()
    assert any("cannot be known" in u for u in eff.unknown)
    # an absolute target is still known
    eff = analyze("cd $D && rm /proj/.claude/settings.json", CWD)
    assert eff.writes[0].paths == ("/proj/.claude/settings.json",)


def test_git_dash_c_changes_the_directory_of_git_config():
    eff = analyze("git -C sub config x.y z", CWD)
    assert eff.writes[0].paths == ("/proj/sub/.git/config",)


def test_git_config_finds_the_enclosing_repository(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "src").mkdir()
    eff = analyze("git config core.fsmonitor evil", str(tmp_path / "src"))
    assert eff.writes[0].paths == (os.path.join(str(tmp_path), ".git/config"),)


@pytest.mark.parametrize("bad", [None, 3, b"ls", "ls\x00"])
def test_odd_input_is_never_read_only(bad):
    assert not analyze(bad, CWD).readonly


def test_deep_nesting_fails_closed():
    command = "bash -c " + "'bash -c " * 1 + "ls" + "'" * 1
    assert analyze(command, CWD).readonly  # two levels are fine
    deep = "ls"
    for _ in range(8):
        deep = "bash -c " + __import__("shlex").quote(deep)
    assert not analyze(deep, CWD).readonly


def test_as_dict_is_json_ready():
    import json

    d = analyze("rm -r x; git push; npm i", CWD).as_dict()
    json.dumps(d)
    assert d["readonly"] is False and d["commit_push"] == ["git push"]


@pytest.mark.parametrize("command,handlers", [
    ("ls -la", set()),
    ("git status", {"git"}),
    ("rm -rf x", set()),  # derived from its catalogue entry (_base._flags)
    ("cp a b", {"programs"}),
    ("timeout 5 cat a", {"wrappers"}),
])
def test_handler_modules_are_imported_when_a_command_needs_them(command, handlers):
    """The PreToolUse Bash path imports the analyzer on every call: git, the argument-
    dependent programs and the wrappers/shells/interpreters are loaded only for commands
    that need them."""
    import subprocess
    import sys

    script = ("import sys; from gateway.effects.analysis import analyze; "
              f"analyze({command!r}, '/'); "
              "print(sorted(m for m in sys.modules if m.startswith('gateway.effects.analysis.')))")
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                       timeout=60, cwd=os.path.dirname(os.path.dirname(os.path.dirname(
                           os.path.abspath(__file__)))))
    assert p.returncode == 0, p.stderr
    loaded = {m.rsplit(".", 1)[1] for m in eval(p.stdout)}  # a list literal printed above
    # the core is _core with what it shares with the handlers (_base) and its cd following
    # (_cd); the handler modules stay lazy
    assert loaded == {"_core", "_base", "_cd"} | handlers, loaded
