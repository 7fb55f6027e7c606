"""An implementer's Bash writes stay inside its owns (open limit 2 of the role guard): the
write targets the analyzer names (redirections, tee, sed -i, cp/mv/ln/install/touch/mkdir/
rm/dd...) are judged on their canonical paths like the file tools' (GW803); a known writer
whose target cannot be named is refused; read-only commands and programs whose effects are
not visible (interpreters, test runners) are left to the normal permission flow."""

import os

import pytest

from tests.guards.support import denied, marker, no_objection, register, roles_on_disk, silent

IMP = "agent-impl-1"


@pytest.fixture()
def impl(guard, proj):
    assert silent(guard("Write", marker(proj, "impl-1", "implementer", []), agent_id=IMP))
    assert silent(guard("Write", marker(proj, "impl-1", "implementer", ["src/auth/**"])))
    assert roles_on_disk(proj)[IMP]["owns"] == ["src/auth/**"]
    os.makedirs(os.path.join(proj, "src/auth"), exist_ok=True)
    os.makedirs(os.path.join(proj, "src/authz"), exist_ok=True)
    return IMP


OUTSIDE = [
    "echo x > src/authz/x", "echo x >> src/authz/x", "echo x >| src/authz/x",
    "echo x &> src/authz/x", "cat a | tee src/authz/x", "tee -a src/authz/x < a",
    "sed -i s/a/b/ src/authz/x", "sed -i.bak -e s/a/b/ src/authz/x", "gsed -i s/a/b/ src/authz/x",
    "awk -i inplace '{print}' src/authz/x", "perl -pi -e s/a/b/ src/authz/x",
    "cp src/auth/a src/authz/x", "cp src/auth/a src/authz/", "cp -r src/auth src/authz",
    "cp -t src/authz src/auth/a", "mv src/auth/a src/authz/x", "mv src/authz/x src/auth/x",
    "ln -s /etc/passwd src/authz/x", "ln src/auth/a src/authz/x",
    "install -m 644 src/auth/a src/authz/x", "install -d src/authz/new", "touch src/authz/x",
    "mkdir src/authz/new", "mkdir -p src/authz/a/b", "rm src/authz/x", "rm -rf src/authz",
    "rm -rf src", "rm -rf src/auth/../authz", "rmdir src/authz", "unlink src/authz/x",
    "truncate -s 0 src/authz/x", "shred src/authz/x", "chmod +x src/authz/x",
    "dd if=/dev/zero of=src/authz/x count=1", "sort -o src/authz/x src/auth/a",
    "uniq src/auth/a src/authz/x", "find src/authz -delete", "find src -name x -delete",
    "cd src/authz && echo x > y", "cd src && rm -f authz/x", "pushd src/authz; touch y",
    "echo x > ./src/authz/x", "echo x > src//authz/x", "echo x > src/auth/../authz/x",
    "echo x > README.md", "echo x > /tmp/outside", "echo x > ~/x", "echo x > $HOME/x",
    "echo x > src/auth", "bash -c 'echo x > src/authz/x'", "sh -c 'cp a src/authz/x'",
    "true && echo x > src/authz/x", "echo $(touch src/authz/x)", "(cd src && touch authz/x)",
    "nice -n 5 touch src/authz/x", "env touch src/authz/x", "command cp a src/authz/x",
    "timeout 5 tee src/authz/x < a", "/bin/cp a src/authz/x", "/usr/bin/touch src/authz/x",
    "git rm src/authz/x", "git rm -r src/authz", "git mv src/auth/a src/authz/a",
    "git checkout -- src/authz/x", "git restore src/authz/x", "git restore -W src/authz/x",
    "xargs rm < list", "xargs -I{} cp {} src/auth/ < list", "find src -exec rm {} +",
    "echo x > \"$F\"", "touch \"$F\"", "cp a \"$D\"", "cp \"$SRC\" src/auth/x", "rm $X",
    "sed -i s/a/b/ \"$F\"", "sed -i \"s/$A/b/\" src/authz/x", "tee \"$F\" < a",
    "dd if=a of=$OUT", "cd \"$D\" && touch x", "ls | xargs sed -i s/a/b/",
    "git checkout main", "git checkout -- '*.py'", "git checkout .", "git switch main",
    "git reset --hard", "git stash", "git stash pop", "git apply fix.patch",
    "git restore src", "git sparse-checkout set x",
    "git submodule update", "git worktree add ../x", "git read-tree -u HEAD",
    "git checkout-index -a -f", "git clone https://example.com/x y", "git restore -s HEAD '*'",
    "echo x > .claude/state/breezing-signals.jsonl", "echo {} > .claude/state/review-result.json",
    "cp a .claude/state/Review-Result.json", "echo x > .claude/state/gateway-x.json",
    "echo x > .claude/state/sub/x", "rm -rf .claude/state/scratch",
]


@pytest.mark.parametrize("command", OUTSIDE)
def test_implementer_bash_writes_outside_its_owns_are_denied(guard, proj, impl, command):
    v = guard("Bash", {"command": command}, agent_id=IMP)
    assert denied(v, "GW803"), (command, v.code, v.message)
    assert v.rule == "role:implementer:owns"


INSIDE = [
    "echo x > src/auth/x", "echo x >> src/auth/deep/x.py", "cat a | tee src/auth/x",
    "sed -i s/a/b/ src/auth/x", "cp README.md src/auth/x", "cp README.md src/auth/",
    "mv src/auth/a src/auth/b", "touch src/auth/x", "mkdir -p src/auth/a/b",
    "rm src/auth/x", "rm -rf src/auth/build", "cd src/auth && echo x > src/auth/y",
    "echo x > src/auth/x 2>/dev/null", "dd if=/dev/zero of=src/auth/x count=1",
    "git rm src/auth/x", "git checkout -- src/auth/x", "git restore src/auth/x",
    "git mv src/auth/a src/auth/b", "git restore --staged src/authz/x",
    "git rm --cached src/authz/x", "git reset", "git reset -- src/authz/x",
    "git stash list", "git add src/auth/x", "git status", "git diff src/authz",
    # scratch files and role markers in the state directory (a Bash write registers nothing)
    "echo x > .claude/state/impl-1-notes.txt", "echo {} > .claude/state/breezing-role-x.json",
    # read-only (left to the normal permission flow)
    "cat src/authz/x", "grep -rn x src", "ls -la",
    "echo x > /dev/null", "echo x 2>&1", "sed -n 1p src/authz/x", "sed s/a/b/ src/authz/x",
]

#: Code whose effects are not visible (a test runner, a build, a script, an interpreter): it
#: may write any file and commit, so it runs unasked only where the implementer's ownership
#: holds for all of it (issue 28, roles).
RUNS_CODE = ["python3 -m pytest -q", "pytest", "npm test", "make", "cargo test",
             "python3 -c 'print(1)'", "sh ./scripts/build.sh", "bash scripts/x.sh",
             "go test ./...", "cd src/auth && pytest -q",
             # an environment variable can make any program run code (LD_PRELOAD=...)
             "env X=1 touch src/auth/y"]


@pytest.mark.parametrize("command", RUNS_CODE)
def test_implementer_running_code_asks(guard, proj, impl, command):
    v = guard("Bash", {"command": command}, agent_id=IMP)
    assert (str(v.decision), v.code, v.rule) == ("ask", "GW852", "role:implementer:runs-code"), (
        command, v.code, v.message)


@pytest.mark.parametrize("command", RUNS_CODE)
def test_implementer_owning_the_project_runs_code(guard, proj, command):
    register(proj, IMP, "implementer", ["**"])
    v = guard("Bash", {"command": command}, agent_id=IMP)
    assert no_objection(v), (command, v.code, v.message)


@pytest.mark.parametrize("command", INSIDE)
def test_implementer_bash_inside_its_owns_gets_no_decision(guard, proj, impl, command):
    v = guard("Bash", {"command": command}, agent_id=IMP)
    assert no_objection(v), (command, v.code, v.message)


def test_implementer_bash_symlink_out_of_its_owns(guard, proj, impl):
    os.symlink("../authz", os.path.join(proj, "src/auth/link"))
    for command in ("echo x > src/auth/link/x", "cp a src/auth/link/", "touch src/auth/link/x",
                    "cd src/auth/link && touch x", "cd -P src/auth/link && touch x"):
        v = guard("Bash", {"command": command}, agent_id=IMP)
        assert denied(v, "GW803"), (command, v.code, v.message)
    v = guard("Bash", {"command": "echo x > src/auth/link/x"}, agent_id=IMP)
    assert "src/authz/x" in v.message


@pytest.mark.parametrize("command,code", [
    # trees that contain the gateway's own files are refused for everyone first (GW835);
    # a filtered removal over the project only asks for the surface (GW837), and the
    # implementer's owns refuse it (GW803)
    ("git clean -fd", "GW803"), ("git restore .claude", "GW835"),
    ("find . -exec rm {} +", "GW803"), ("echo {} > .claude/state/breezing-session-roles.json",
                                         "GW835"),
    ("echo {} > .claude/state/breezing-active.json", "GW807"),
    ("git checkout -- .claude/settings.json", "GW835"), ("git rm .claude/settings.json", "GW835"),
    # a cd that may not happen: the write is judged in both directories
    ("cd src/auth; echo x > y", "GW803"), ("cd src/auth || echo x > y", "GW803"),
    ("cd src/auth\necho x > y", "GW803"), ("(cd src/auth && true); echo x > y", "GW803"),
])
def test_implementer_bash_other_denies(guard, proj, impl, command, code):
    v = guard("Bash", {"command": command}, agent_id=IMP)
    assert denied(v, code), (command, v.code, v.message)


def test_implementer_bash_from_another_cwd(guard, proj, impl):
    assert silent(guard("Bash", {"command": "echo x > x.py"}, cwd="src/auth", agent_id=IMP))
    v = guard("Bash", {"command": "echo x > x.py"}, cwd="src/authz", agent_id=IMP)
    assert denied(v, "GW803")
    v = guard("Bash", {"command": "echo x > ../authz/x.py"}, cwd="src/auth", agent_id=IMP)
    assert denied(v, "GW803")


def test_implementer_with_no_owns_writes_nothing_through_bash(guard, proj):
    register(proj, IMP, "implementer", [])
    for command in ("echo x > src/a.py", "touch src/auth/x", "cp a b"):
        v = guard("Bash", {"command": command}, agent_id=IMP)
        assert denied(v, "GW803"), command
        assert "owns nothing" in v.message
    assert no_objection(guard("Bash", {"command": "git status"}, agent_id=IMP))


def test_only_implementers_are_held_to_owns(guard, proj, impl):
    for ident in ({}, {"agent_id": "agent-unregistered"}):
        assert silent(guard("Bash", {"command": "echo x > src/authz/x"}, **ident)), ident


# A plain `&&` chain runs what follows `cd X &&` only when the cd succeeded, so in X alone.
@pytest.mark.parametrize("cwd,command", [
    (None, "cd src/auth && echo x > y"), (None, "cd src/auth && true && echo x > y && cat y"),
    (None, "cd src && echo x > auth/y"), (None, "cd src && cd auth && touch y"),
    (None, "pushd src/auth && touch y"), (None, "builtin cd src/auth && touch y"),
    (None, "command cd src/auth && sed -i s/a/b/ y"), (None, "cd -P src/auth && touch y"),
    ("src/auth", "cd ../auth && touch y"), ("src", "cd auth && cp ../x y"),
    # a cd into a directory that does not exist there fails, and nothing after it runs
    ("src/auth", "cd src/authz && touch y"),
    # back where it started: popd and cd - are followed with their history
    ("src/auth", "pushd ../authz && popd && echo x > y"),
    ("src/auth", "cd ../authz && cd - && echo x > y"),
])
def test_implementer_write_after_a_cd_that_must_succeed(guard, proj, impl, cwd, command):
    kw = {"cwd": cwd} if cwd else {}
    v = guard("Bash", {"command": command}, agent_id=IMP, **kw)
    assert no_objection(v), (command, v.code, v.message)


# Where the shell ends up cannot be followed (or the chain is not plain): the write is judged
# in every directory it may be in, or refused as in an unknown one.
@pytest.mark.parametrize("cwd,command,where", [
    ("src/auth", "builtin cd ../authz && echo x > y", "src/authz/y"),
    ("src/auth", "command cd ../authz && echo x > y", "src/authz/y"),
    ("src/auth", "cd ../authz &>/dev/null && echo x > y", "src/authz/y"),
    ("src/auth", "cd .. | cat && echo x > y", "src/y"),
    ("src/auth", "true | cd .. && echo x > y", "src/y"),   # lastpipe
    (None, "! cd src/auth/nope && echo x > y", "'y' (y)"),
    (None, "cd src/auth && cd .. && echo x > y", "src/y"),
    ("src/auth", "X=cd && $X ../authz && echo x > y", "cannot be known"),
    ("src/auth", "eval cd ../authz && echo x > y", "cannot be known"),
    ("src/auth", "eval 'cd ../authz' && echo x > y", "cannot be known"),
    ("src/auth", "source ./cd.sh && echo x > y", "cannot be known"),
    ("src/auth", ". ./cd.sh && echo x > y", "cannot be known"),
    ("src/auth", "trap 'cd ../authz' DEBUG && echo x > y", "cannot be known"),
    ("src/auth", "cd - && echo x > y", "cannot be known"),
    ("src/auth", "CDPATH=.. cd authz && echo x > y", "cannot be known"),
    ("src/auth", "CDPATH=.. && cd authz && echo x > y", "cannot be known"),
    ("src/auth", "export CDPATH=.. && cd authz && echo x > y", "cannot be known"),
    ("src/auth", "read CDPATH < f && cd authz && echo x > y", "cannot be known"),
    ("src/auth", "printf -v CDPATH .. && cd authz && echo x > y", "cannot be known"),
    ("src/auth", "declare -n v=$N && v=.. && cd authz && echo x > y", "cannot be known"),
    ("src/auth", "shopt -s cdable_vars && d=../authz && cd d && echo x > y", "cannot be known"),
    ("src/auth", "HOME=../authz && cd && echo x > y", "cannot be known"),
])
def test_implementer_write_after_a_move_not_followed(guard, proj, impl, cwd, command, where):
    kw = {"cwd": cwd} if cwd else {}
    v = guard("Bash", {"command": command}, agent_id=IMP, **kw)
    assert denied(v, "GW803"), (command, v.code, v.message)
    assert where in v.message, v.message


def test_implementer_cd_through_an_inherited_cdpath(guard, proj, impl, monkeypatch):
    monkeypatch.setenv("CDPATH", os.path.join(proj, "src/authz"))
    v = guard("Bash", {"command": "cd auth && echo x > y"}, cwd="src", agent_id=IMP)
    assert denied(v, "GW803") and "cannot be known" in v.message, v.message
    # ./ and ../ are never searched in CDPATH
    assert silent(guard("Bash", {"command": "cd ./auth && echo x > y"}, cwd="src", agent_id=IMP))


@pytest.mark.parametrize("command", [
    "git checkout -b feat", "git switch -c feat", "git checkout -q -B feat",
    "git switch --create feat", "git switch -C feat -q",
    "git stash push src/auth/x", "git stash push -m wip -- src/auth/x",
    "git stash push -u src/auth/sub",
])
def test_implementer_git_that_rewrites_only_its_files(guard, proj, impl, command):
    # a new branch at HEAD changes no file; a stash of named paths touches only those
    v = guard("Bash", {"command": command}, agent_id=IMP)
    assert no_objection(v), (command, v.code, v.message)


@pytest.mark.parametrize("command,says", [
    ("git checkout -b feat origin/main", "rewrites working-tree files"),
    ("git switch -c feat main", "rewrites working-tree files"),
    ("git checkout -f -b feat", "rewrites working-tree files"),
    ("git checkout -b feat -m", "rewrites working-tree files"),
    ("git checkout --orphan feat", "rewrites working-tree files"),
    ("git switch --orphan feat", "rewrites working-tree files"),
    ("git switch -c feat --recurse-submodules", "rewrites working-tree files"),
    ("git checkout -b", "rewrites working-tree files"),
    ("git stash push -m wip", "rewrites working-tree files"),
    ("git stash save src/auth/x", "rewrites working-tree files"),
    ("git stash push -- ':!src/auth'", "rewrites working-tree files"),
    ("git stash push 'src/auth/*'", "rewrites working-tree files"),
    ("git stash push src/authz/x", "src/authz/x"),
    ("git stash push -m src/auth/x src/authz", "src/authz"),
])
def test_implementer_git_that_may_rewrite_other_files(guard, proj, impl, command, says):
    v = guard("Bash", {"command": command}, agent_id=IMP)
    assert denied(v, "GW803"), (command, v.code, v.message)
    assert says in v.message, v.message


# Found by a red-team pass over the cd following and the analyzer (each checked with a real
# bash: the file lands outside src/auth/**). Every one is refused.
@pytest.mark.parametrize("cwd,command", [
    (None, "pushd -n src/auth >/dev/null && cp a.txt README.md"),   # -n: no move
    (None, "ln -s ../authz src/auth/l && cd src/auth/l && touch y"),  # a link made here
    (None, "ln -s ../../README.md src/auth/r && cp a.txt src/auth/r"),
    (None, "ln README.md src/auth/r"),                                # a hard link shares it
    ("src/auth", "command -p cd .. && touch y"), ("src/auth", "command -- cd .. && touch y"),
    ("src/auth", "builtin -- cd .. && touch y"), ("src/auth", "cd -Pe .. && touch y"),
    ("src/auth", "cd -LP .. && touch y"), ("src/auth", "builtin eval cd .. && touch y"),
    ("src/auth", "command eval cd .. && touch y"),
    ("src/auth", "builtin trap 'cd ..' DEBUG && touch y"),
    ("src/auth", "mapfile -C 'cd ..;:' -c 1 arr <<< a && touch y"),
    ("src/auth/a", "for i in 1 2; do cd ..; done; touch authz/y"),    # a cd in a loop
    ("src/auth/a", "f() { cd ..; }; f; f; touch authz/y"),
    ("src/auth", ": ${CDPATH:=..} && cd authz && touch y"),
    ("src/auth", "true ${CDPATH:=..} && cd authz && touch y"),
    ("src/auth", "declare -n r=CDPATH && r=.. && cd authz && touch y"),
    ("src/auth", "typeset -n r=CDPATH && r=.. && cd authz && touch y"),
    ("src/auth", "printf -v 'CDPATH[0]' %s .. && cd authz && touch y"),
    ("src/auth", "declare 'CDPATH[0]=..' && cd authz && touch y"),
    ("src/auth", "PS4='${CDPATH:=..}' && set -x && cd authz && touch y"),
    ("src/auth", "for CDPATH in ..; do cd authz && touch y; done"),
    ("src/auth", "pushd . && printf -v 'DIRSTACK[1]' %s ../authz && popd && touch y"),
    ("src/auth", "CDPATH=.. bash -c 'cd authz && touch y'"),
    ("src/auth", "CDPATH=.. env bash -c 'cd authz && touch y'"),
    (None, "cat > README.md <<'EOF'\nhi\nEOF"),                      # quoted here-document
    (None, "cat <<EOF > src/auth/x\n$(cp a.txt README.md)\nEOF"),    # its substitution
    (None, "[[ 1 ]] && cp a.txt README.md"),                           # bashlex rejects [[
    (None, "time cp a.txt README.md"), (None, "env X=1 cp a.txt README.md"),
    (None, "env -C src/auth cp ../../a.txt ../../README.md"),
    (None, "cd src/auth && cd - && touch README.md"),
    (None, "pushd src/auth && popd && touch README.md"),
    (None, "cd src/auth && touch y && cd ../.. && touch README.md"),
    (None, "for ((i=0; i<1; i++)); do cp a.txt README.md; done"),
    (None, "env -S 'cp a.txt README.md'"),
])
def test_implementer_redteam_writes_outside_are_refused(guard, proj, impl, cwd, command):
    os.makedirs(os.path.join(proj, "src/auth/a"), exist_ok=True)
    kw = {"cwd": cwd} if cwd else {}
    v = guard("Bash", {"command": command}, agent_id=IMP, **kw)
    assert denied(v, "GW803"), (command, v.code, v.message)


# ...and what an honest implementer writes often is not refused
@pytest.mark.parametrize("command", [
    "[ -d src/auth/b ] || mkdir src/auth/b", "cd src/auth && touch y;",
    "cd src/auth && echo \"$(date)\" > y", "cd src/auth && cat > y <<EOF\nhi\nEOF",
    "cat > src/auth/y <<'EOF'\nhi $(x)\nEOF", "pushd src/auth >/dev/null && touch y && popd",
    "cd src/auth && cd - && touch src/auth/y", "ln -s a src/auth/y",
    "ln -s ../auth/x src/auth/y",
    "time touch src/auth/y",
])
def test_implementer_common_forms_inside_its_owns(guard, proj, impl, command):
    v = guard("Bash", {"command": command}, agent_id=IMP)
    assert no_objection(v), (command, v.code, v.message)
