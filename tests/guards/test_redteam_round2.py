"""A second red-team pass over the guards (each case run with real bash first: the file really
lands where the test says). The Lead and unregistered sessions may not touch the permission
surface; a reviewer writes nothing; an implementer stays inside its owns."""

import os

import pytest

from tests.guards.support import denied, register, silent

REV, IMP, SUB = "rev-1", "impl-1", "sub-x"


@pytest.fixture()
def team(proj):
    register(proj, REV, "reviewer")
    register(proj, IMP, "implementer", ["src/auth/**"])
    for d in ("src/auth", "src/authz", ".claude/state"):
        os.makedirs(os.path.join(proj, d), exist_ok=True)
    with open(os.path.join(proj, ".claude/settings.json"), "w") as fh:
        fh.write("{}\n")
    return proj


SURFACE = [
    # an unparseable fragment with a write of the surface, or one beside a parseable write
    "[[ 1 ]]; echo '{}' > .claude/state/breezing-session-roles.json",
    "echo $((1)) > .claude/settings.json",
    "echo $((1)); echo \"$(echo x > .claude/settings.json)\"",
    "for ((i=0;i<1;i++)); do echo x > .claude/settings.json; done",
    # code in a subscript or a prompt string
    "test -v 'a[$(echo x > .claude/settings.json)]'",
    "printf -v 'a[$(touch .git/hooks/pre-commit)]' x",
    "set -- '$(echo x > .claude/settings.json)'; echo \"${1@P}\"",
    # abbreviated long options
    "sort --out .claude/settings.json README.md", "sort --o=.claude/settings.json README.md",
    "cp --target .claude/hooks README.md", "uniq --skip-c 0 README.md .claude/settings.json",
    "sed --i s/a/b/ .claude/settings.json", "rm --r -f .claude",
    # a link made in the same command reaches the tree it points to
    "ln -s .claude c && echo x > c/settings.json",
    "ln -s .claude/state s && echo '{}' > s/breezing-session-roles.json",
    # bash's bracket expressions
    "echo '{}' > .claude/state/breezing-session-roles.jso[^x]",
    "echo x > .claude/setting[[:alpha:]].json",
    # the directory the command runs in, spelled as an expansion
    "echo x > \"$PWD/.claude/settings.json\"", "echo x > ~+/.claude/settings.json",
    "echo x > $\".claude/settings.json\"",
    # read-only git that writes
    "git format-patch --stdout --output=.claude/settings.json -1",
]


@pytest.mark.parametrize("command", SURFACE)
@pytest.mark.parametrize("who", [None, SUB])
def test_the_permission_surface_stays_closed(guard, team, command, who):
    v = guard("Bash", {"command": command}, agent_id=who)
    assert v is not None and v.decision.name == "DENY", (command, v and v.code,
                                                          v and v.message)
    assert v.code in ("GW832", "GW834", "GW835", "GW807"), (command, v.code, v.message)


@pytest.mark.parametrize("command", [
    "git config core.fsmonitor 'touch pwn' -l", "git config core.hooksPath x --get",
    "git ls-remote --upload-pack='touch pwn;git-upload-pack' .",
    "git archive --remote=. --exec='touch pwn;git-upload-archive' HEAD",
    "git grep -iO'touch pwn;true' x", "test -v 'a[$(touch pwn)]'",
    "ln -s ../x src/auth/y",
])
def test_a_reviewer_cannot_write_through_read_only_looking_commands(guard, team, command):
    v = guard("Bash", {"command": command}, agent_id=REV)
    # GW835 when what it writes is the surface itself (.git/config), for everyone
    assert denied(v, "GW802") or denied(v, "GW835"), (command, v and v.code,
                                                      v and v.message)


@pytest.mark.parametrize("command", [
    "cp --target src/authz src/auth/login.py", "install --target src/authz src/auth/a",
    "uniq --skip-f 1 src/auth/login.py src/authz/policy.py",
    "ln -sr src/authz src/auth/z && echo x > src/auth/z/policy.py",
    "ln -sr README.md src/auth/r && echo x > src/auth/r",
    "echo x > /tmp", "rm -rf /tmp",
])
def test_an_implementer_stays_inside_its_owns(guard, team, command):
    v = guard("Bash", {"command": command}, agent_id=IMP)
    assert denied(v, "GW803") or denied(v, "GW804") or denied(v, "GW835"), (
        command, v and v.code, v and v.message)


@pytest.mark.parametrize("command", [
    "git config core.fsmonitor 'touch pwn' -l",
    "git archive --remote=. --exec='git commit -qam x' HEAD",
])
def test_an_implementer_cannot_commit_through_programs_git_runs(guard, team, command):
    v = guard("Bash", {"command": command}, agent_id=IMP)
    assert denied(v, "GW804") or denied(v, "GW835"), (command, v and v.code, v and v.message)


# what honest agents write often is not refused
@pytest.mark.parametrize("who,command", [
    (REV, "[ -f README.md ] && cat README.md"), (REV, "[[ -f README.md ]] && cat README.md"),
    (IMP, "[[ -d src/auth/b ]] || mkdir src/auth/b"),
    (IMP, "if [[ -f src/auth/x ]]; then touch src/auth/y; fi"),
    (IMP, "cd \"$PWD/src/auth\" && touch y"),
    (IMP, "cd ~+/src/auth && touch y"), (IMP, "git config --get user.name"),
    (REV, "git config -l"), (REV, "git format-patch --stdout -1"),
    (None, "sort -o out.txt README.md"), (None, "ln -s src/auth/x link"),
])
def test_common_commands_are_not_refused(guard, team, who, command):
    v = guard("Bash", {"command": command}, agent_id=who)
    assert silent(v), (who, command, v.code, v.message)
