"""Role guard (SPEC §5, seed-origins §B.2/§B.3/§D.2): lead, implementer, reviewer from
breezing-session-roles.json keyed by agent_id first, then session_id; registration through a
role-marker Write; no self-escalation; reviewer read-only; implementer inside its owns globs
and never committing or pushing, in any spelling."""

import json
import os

import pytest

from tests.guards.support import (
    LEAD_SESSION,
    denied,
    marker,
    no_objection,
    register,
    roles_on_disk,
    set_active,
    silent,
    write,
)

FILE_TOOLS = ["Write", "Edit", "MultiEdit", "NotebookEdit"]
REV = "agent-reviewer-1"
IMP = "agent-impl-1"
TEAMMATE_SESSION = "22222222-2222-4222-8222-222222222222"


def _input(tool, path):
    if tool == "NotebookEdit":
        return {"notebook_path": path, "new_source": "x"}
    if tool == "MultiEdit":
        return {"file_path": path, "edits": [{"old_string": "a", "new_string": "b"}]}
    if tool == "Edit":
        return {"file_path": path, "old_string": "a", "new_string": "b"}
    return {"file_path": path, "content": "x"}


@pytest.fixture()
def reviewer(guard, proj):
    """A reviewer subagent, registered the way the workflow does it (its marker Write)."""
    v = guard("Write", marker(proj, "reviewer", "reviewer"), agent_id=REV)
    assert silent(v), (v.code, v.message)
    assert roles_on_disk(proj)[REV]["role"] == "reviewer"
    return REV


@pytest.fixture()
def implementer(guard, proj):
    v = guard("Write", marker(proj, "impl-1", "implementer", ["src/auth/**"]), agent_id=IMP)
    assert silent(v), (v.code, v.message)
    assert roles_on_disk(proj)[IMP] == {**roles_on_disk(proj)[IMP], "role": "implementer",
                                        "owns": ["src/auth/**"]}
    return IMP


# --- registration ------------------------------------------------------------------------------

def test_marker_write_registers_the_subagent_under_its_agent_id(guard, proj):
    v = guard("Write", marker(proj, "reviewer", "reviewer"), agent_id=REV,
              agent_type="code-reviewer")
    assert silent(v)  # the Write itself gets no decision: the normal flow continues
    roles = roles_on_disk(proj)
    assert set(roles) == {REV}  # never the shared session_id
    assert roles[REV]["role"] == "reviewer"
    assert roles[REV]["owns"] == []
    assert roles[REV]["agent_type"] == "code-reviewer"
    assert "registered_at" in roles[REV]


def test_subagent_registration_does_not_poison_the_lead(guard, proj, reviewer):
    """§D.2: registration keyed on session_id made every Lead write a reviewer write."""
    assert LEAD_SESSION not in roles_on_disk(proj)
    assert no_objection(guard("Write", write(proj, "src/app.py")))
    assert no_objection(guard("Edit", _input("Edit", os.path.join(proj, "src/app.py"))))
    assert no_objection(guard("Bash", {"command": "echo x > src/new.py"}))
    assert no_objection(guard("Bash", {"command": "git commit -m wip"}))
    # ... while the reviewer, in the same session, stays read-only
    assert denied(guard("Write", write(proj, "src/app.py"), agent_id=REV), "GW801")


def test_implementer_registration_does_not_poison_the_lead(guard, proj, implementer):
    assert no_objection(guard("Write", write(proj, "src/other.py")))
    assert no_objection(guard("Bash", {"command": "git push origin main"}))


def test_main_thread_registers_under_its_session_id(guard, proj):
    """An Agent Teams teammate is a main thread of its own session: no agent_id."""
    v = guard("Write", marker(proj, "reviewer", "reviewer"), session_id=TEAMMATE_SESSION)
    assert silent(v)
    assert roles_on_disk(proj)[TEAMMATE_SESSION]["role"] == "reviewer"
    assert denied(guard("Write", write(proj, "src/app.py"), session_id=TEAMMATE_SESSION),
                  "GW801")
    # the Lead's own session is another one
    assert silent(guard("Write", write(proj, "src/app.py")))


def test_agent_id_is_looked_up_before_session_id(guard, proj):
    register(proj, TEAMMATE_SESSION, "reviewer")
    register(proj, IMP, "implementer", ["src/auth/**"])
    both = {"agent_id": IMP, "session_id": TEAMMATE_SESSION}
    assert silent(guard("Write", write(proj, "src/auth/login.py"), **both))
    assert denied(guard("Write", write(proj, "src/app.py"), **both), "GW803")
    # an unregistered subagent of that session inherits the session's role
    v = guard("Write", write(proj, "src/auth/login.py"), agent_id="agent-x",
              session_id=TEAMMATE_SESSION)
    assert denied(v, "GW801")


@pytest.mark.parametrize("current,new", [
    ("reviewer", "lead"), ("reviewer", "implementer"), ("implementer", "lead")])
def test_no_self_escalation_through_a_marker_write(guard, proj, current, new):
    """§D.2: a reviewer re-registering as lead lost every restriction upstream."""
    owns = ["src/auth/**"] if current == "implementer" else None
    assert silent(guard("Write", marker(proj, "me", current, owns), agent_id=REV))
    before = roles_on_disk(proj)
    v = guard("Write", marker(proj, "me", new, ["**"]), agent_id=REV)
    assert denied(v, "GW805"), (v.code, v.message)
    assert current in v.message and new in v.message
    assert roles_on_disk(proj) == before  # nothing recorded


def test_reviewer_to_lead_escalation_then_writes_stay_denied(guard, proj, reviewer):
    assert denied(guard("Write", marker(proj, "reviewer", "lead"), agent_id=REV), "GW805")
    # another marker name changes nothing either
    assert denied(guard("Write", marker(proj, "lead", "lead"), agent_id=REV), "GW805")
    assert denied(guard("Write", write(proj, "src/x.ts"), agent_id=REV), "GW801")
    assert denied(guard("Bash", {"command": "echo x > src/x.ts"}, agent_id=REV), "GW802")
    assert roles_on_disk(proj)[REV]["role"] == "reviewer"


def test_escalation_is_judged_on_the_effective_role(guard, proj):
    """A subagent of a reviewer's session (inheriting "reviewer" through the session_id)
    cannot register itself as lead under its own agent_id."""
    register(proj, TEAMMATE_SESSION, "reviewer")
    v = guard("Write", marker(proj, "sub", "lead"), agent_id="agent-sub",
              session_id=TEAMMATE_SESSION)
    assert denied(v, "GW805")
    assert "agent-sub" not in roles_on_disk(proj)


def test_an_unregistered_subagent_cannot_make_itself_the_lead(guard, proj):
    """Found in review: an unregistered subagent registered as lead, then did what only the
    Lead may (GW807: gateway state clean)."""
    assert denied(guard("Bash", {"command": "gateway state clean"}, agent_id="sub-9"),
                  "GW807")
    v = guard("Write", marker(proj, "x", "lead"), agent_id="sub-9")
    assert denied(v, "GW805") and "subagent" in v.message
    assert "sub-9" not in roles_on_disk(proj)
    assert denied(guard("Bash", {"command": "gateway state clean"}, agent_id="sub-9"),
                  "GW807")


def test_the_main_thread_may_register_as_lead(guard, proj):
    assert silent(guard("Write", marker(proj, "lead", "lead")))
    assert roles_on_disk(proj)[LEAD_SESSION]["role"] == "lead"


@pytest.mark.parametrize("current,new", [
    ("lead", "reviewer"), ("lead", "implementer"), ("implementer", "reviewer"),
    ("reviewer", "reviewer"), ("implementer", "implementer")])
def test_moving_down_or_sideways_is_allowed(guard, proj, current, new):
    if current == "lead":  # a subagent cannot register as lead; a recorded one may step down
        register(proj, IMP, "lead", ["src/a/**"])
    else:
        assert silent(guard("Write", marker(proj, "me", current, ["src/a/**"]), agent_id=IMP))
    # sideways for an implementer keeps or narrows its owns (GW809 otherwise)
    assert silent(guard("Write", marker(proj, "me", new, ["src/a/sub/**"]), agent_id=IMP))
    assert roles_on_disk(proj)[IMP]["role"] == new
    assert roles_on_disk(proj)[IMP]["owns"] == ["src/a/sub/**"]


def test_implementer_gets_its_owns_at_first_claim(guard, proj):
    """owns: [] at spawn; at the first task claim the Lead writes the implementer's marker
    with its globs (the implementer itself may not widen them: GW809)."""
    assert silent(guard("Write", marker(proj, "impl-1", "implementer", []), agent_id=IMP))
    assert roles_on_disk(proj)[IMP]["marker"] == "breezing-role-impl-1.json"
    assert denied(guard("Write", write(proj, "src/auth/login.py"), agent_id=IMP), "GW803")
    v = guard("Write", marker(proj, "impl-1", "implementer", ["src/auth/**"]), agent_id=IMP)
    assert denied(v, "GW809"), (v.code, v.message)
    assert roles_on_disk(proj)[IMP]["owns"] == []
    # the Lead (the main thread) assigns them through the implementer's marker
    assert silent(guard("Write", marker(proj, "impl-1", "implementer", ["src/auth/**"])))
    roles = roles_on_disk(proj)
    assert roles[IMP]["owns"] == ["src/auth/**"] and roles[IMP]["role"] == "implementer"
    assert LEAD_SESSION not in roles  # the Lead's own role is unchanged
    assert silent(guard("Write", write(proj, "src/auth/login.py"), agent_id=IMP))


@pytest.mark.parametrize("tool", ["Edit", "MultiEdit"])
def test_a_role_is_registered_only_by_a_whole_file_write(guard, proj, tool):
    path = os.path.join(proj, ".claude/state/breezing-role-x.json")
    with open(path, "w") as fh:
        json.dump({"role": "reviewer"}, fh)
    v = guard(tool, _input(tool, path), agent_id=REV)
    assert denied(v, "GW806")
    assert roles_on_disk(proj) == {}


@pytest.mark.parametrize("content", [
    "not json", "", "[]", '{"role": "admin"}', '{"role": "Lead"}', '{"owns": []}',
    '{"role": "reviewer", "owns": "src/**"}', '{"role": "reviewer", "owns": [3]}',
    '{"role": "reviewer", "extra": 1}', '{"role": "reviewer"} trailing',
    '{"role": "reviewer", "role": "lead"}',
])
def test_invalid_marker_content_is_refused(guard, proj, content):
    path = os.path.join(proj, ".claude/state/breezing-role-x.json")
    v = guard("Write", {"file_path": path, "content": content}, agent_id=REV)
    assert denied(v, "GW806"), (content, v.code, v.message)
    assert roles_on_disk(proj) == {}


def test_marker_without_content_is_refused(guard, proj):
    v = guard("Write", {"file_path": os.path.join(proj, ".claude/state/breezing-role-x.json")},
              agent_id=REV)
    assert denied(v, "GW806")


def test_registration_needs_an_identity(guard, proj):
    v = guard("Write", marker(proj, "x", "reviewer"), session_id=None)
    assert denied(v, "GW806")
    assert roles_on_disk(proj) == {}


def test_dry_run_reports_but_does_not_register(guard, proj):
    v = guard("Write", marker(proj, "x", "reviewer"), agent_id=REV, record=False)
    assert silent(v)
    assert roles_on_disk(proj) == {}
    assert any("would register" in s.message for s in v.trace)


def test_registration_through_a_relative_path(guard, proj):
    v = guard("Write", {"file_path": "breezing-role-r.json", "content": '{"role":"reviewer"}'},
              cwd=".claude/state", agent_id=REV)
    assert silent(v)
    assert roles_on_disk(proj)[REV]["role"] == "reviewer"


def test_a_marker_elsewhere_registers_nothing(guard, proj):
    os.makedirs(os.path.join(proj, "other/.claude/state"))
    v = guard("Write", marker(proj, "x", "reviewer"), agent_id=REV)  # sanity: registers
    assert silent(v)
    path = os.path.join(proj, "other/.claude/state/breezing-role-y.json")
    assert silent(guard("Write", {"file_path": path, "content": '{"role":"reviewer"}'},
                        agent_id="agent-other"))
    assert "agent-other" not in roles_on_disk(proj)


# --- reviewer: file tools --------------------------------------------------------------------

@pytest.mark.parametrize("tool", FILE_TOOLS)
def test_reviewer_cannot_write_code(guard, proj, reviewer, tool):
    """MultiEdit and NotebookEdit too (§D.2: the upstream hook did not match MultiEdit)."""
    v = guard(tool, _input(tool, os.path.join(proj, "src/app.py")), agent_id=REV)
    assert denied(v, "GW801"), (tool, v.code, v.message)


@pytest.mark.parametrize("tool", FILE_TOOLS)
def test_reviewer_may_write_state_files(guard, proj, reviewer, tool):
    v = guard(tool, _input(tool, os.path.join(proj, ".claude/state/review-notes.json")),
              agent_id=REV)
    assert silent(v), (tool, v.code, v.message)


def test_reviewer_traversal_out_of_the_state_dir(guard, proj, reviewer):
    """§D.2: `<root>/.claude/state/../../src/x.ts` matched the `*/.claude/state/*` glob."""
    for path in (os.path.join(proj, ".claude/state/../../src/x.ts"),
                 os.path.join(proj, ".claude/state/../../README.md"),
                 os.path.join(proj, ".claude/state/./../state/../hooks/x.sh")):
        v = guard("Write", write(proj, path), agent_id=REV)
        assert denied(v), (path, v.code, v.message)
    v = guard("Write", write(proj, os.path.join(proj, ".claude/state/../../src/x.ts")),
              agent_id=REV)
    assert denied(v, "GW801")
    v = guard("Edit", _input("Edit", ".claude/state/../../src/app.py"), agent_id=REV)
    assert denied(v, "GW801")


def test_reviewer_symlink_out_of_the_state_dir(guard, proj, reviewer):
    """§D.2: `ln -s <project>/src .claude/state/escape`, then writes through it."""
    os.symlink("../../src", os.path.join(proj, ".claude/state/escape"))
    for tool in FILE_TOOLS:
        v = guard(tool, _input(tool, os.path.join(proj, ".claude/state/escape/x.ts")),
                  agent_id=REV)
        assert denied(v, "GW801"), (tool, v.code, v.message)
    # a symlinked file too
    os.symlink("../../src/app.py", os.path.join(proj, ".claude/state/notes.json"))
    v = guard("Write", write(proj, ".claude/state/notes.json"), agent_id=REV)
    assert denied(v, "GW801")


def test_reviewer_cannot_create_the_escape_link_with_bash(guard, proj, reviewer):
    v = guard("Bash", {"command": f"ln -s {proj}/src .claude/state/escape"}, agent_id=REV)
    assert denied(v, "GW802")


def test_reviewer_symlinked_marker_registers_nothing(guard, proj, reviewer):
    os.symlink("../../src/role.json", os.path.join(proj, ".claude/state/breezing-role-z.json"))
    v = guard("Write", {"file_path": os.path.join(proj, ".claude/state/breezing-role-z.json"),
                        "content": '{"role": "lead"}'}, agent_id=REV)
    assert denied(v, "GW801")
    assert roles_on_disk(proj)[REV]["role"] == "reviewer"


def test_reviewer_cannot_write_the_leads_files(guard, proj, reviewer):
    v = guard("Write", write(proj, ".claude/state/breezing-active.json", "{}"), agent_id=REV)
    assert denied(v, "GW807")
    v = guard("Write", write(proj, ".claude/state/breezing-session-roles.json", "{}"),
              agent_id=REV)
    assert denied(v, "GW834")


# --- reviewer: Bash ------------------------------------------------------------------------

@pytest.mark.parametrize("command", [
    "git status", "git diff HEAD~1", "git log --oneline -5", "cat src/app.py",
    "ls -la src | grep app", "grep -rn TODO src", "wc -l src/app.py", "git show HEAD:README.md",
    "head -n 5 README.md 2>/dev/null",
])
def test_reviewer_read_only_commands_get_no_decision(guard, proj, reviewer, command):
    v = guard("Bash", {"command": command}, agent_id=REV)
    assert silent(v), (command, v.code, v.message)


@pytest.mark.parametrize("command", [
    # §D.2: the regex rules upstream were bypassed by these
    "python3 -c \"open('src/x.ts','w').write('x')\"",
    "install -m 644 /dev/null src/x.ts",
    "dd if=/dev/zero of=src/x.ts count=1",
    "perl -i -pe 's/a/b/' src/app.py",
    "git apply fix.patch",
    # the upstream rules themselves
    "echo x > src/x.ts", "echo x >> src/app.py", "cat a.txt | tee src/x.ts",
    "sed -i s/a/b/ src/app.py", "mv src/app.py src/b.py", "cp a.txt src/x.ts", "rm src/app.py",
    "mkdir src/new", "touch src/x.ts", "git commit -m x", "git push", "git add .",
    "git checkout -- src", "git reset --hard", "git rebase main", "git merge x",
    "git cherry-pick abc",
    # and what else writes
    "ln -s ../src .claude/state/escape", "awk -i inplace '{print}' src/app.py",
    "node -e \"require('fs').writeFileSync('x','y')\"", "bash -c 'echo x > src/x.ts'",
    "find src -name '*.pyc' -delete", "sort -o src/app.py src/app.py", "git stash",
    "/usr/bin/git commit -m x", "command git push", "env FOO=1 touch src/x.ts",
    "xargs rm < list.txt", "truncate -s 0 src/app.py", "chmod +x src/app.py",
    "sh ./scripts/run.sh", "eval 'touch x'", "claude -p 'fix it'",
])
def test_reviewer_writing_commands_are_denied(guard, proj, reviewer, command):
    v = guard("Bash", {"command": command}, agent_id=REV)
    assert denied(v, "GW802"), (command, v.code, v.message)


def test_reviewer_bash_cannot_reach_the_state_it_must_not_write(guard, proj, reviewer):
    v = guard("Bash", {"command": "echo {} > .claude/state/breezing-session-roles.json"},
              agent_id=REV)
    assert denied(v, "GW835")
    v = guard("Bash", {"command": "gateway state clean"}, agent_id=REV)
    assert denied(v, "GW807")


# --- implementer -------------------------------------------------------------------------------

@pytest.mark.parametrize("tool", FILE_TOOLS)
def test_implementer_writes_inside_its_owns(guard, proj, implementer, tool):
    v = guard(tool, _input(tool, os.path.join(proj, "src/auth/login.py")), agent_id=IMP)
    assert silent(v), (tool, v.code, v.message)
    v = guard(tool, _input(tool, os.path.join(proj, "src/auth/deep/new.py")), agent_id=IMP)
    assert silent(v), (tool, v.code, v.message)


@pytest.mark.parametrize("tool", FILE_TOOLS)
@pytest.mark.parametrize("rel", [
    "src/authz/x.ts",  # §B.3: the prefix match admitted src/authz
    "src/auth",  # the directory itself is not below it
    "src/app.py", "README.md", "docs/notes.md", ".claude/state/review-notes.json",
    "SRC/auth/x.py", "src/auth/../app.py", "src/Auth/x.py",
])
def test_implementer_cannot_write_outside_its_owns(guard, proj, implementer, tool, rel):
    v = guard(tool, _input(tool, os.path.join(proj, rel)), agent_id=IMP)
    assert denied(v, "GW803"), (tool, rel, v.code, v.message)


def test_implementer_owns_is_judged_on_the_canonical_path(guard, proj, implementer):
    os.makedirs(os.path.join(proj, "src/authz"))
    os.symlink("../authz", os.path.join(proj, "src/auth/link"))
    v = guard("Write", write(proj, "src/auth/link/x.ts"), agent_id=IMP)
    assert denied(v, "GW803")
    assert "src/authz/x.ts" in v.message


def test_implementer_with_no_owns_writes_no_code(guard, proj):
    assert silent(guard("Write", marker(proj, "impl-2", "implementer", []), agent_id=IMP))
    for rel in ("src/app.py", "src/auth/login.py", "README.md", "x.py"):
        v = guard("Write", write(proj, rel), agent_id=IMP)
        assert denied(v, "GW803"), rel
        assert "owns nothing" in v.message
    # its own marker stays writable, but it cannot hand itself globs (GW809): the Lead does
    assert silent(guard("Write", marker(proj, "impl-2", "implementer", []), agent_id=IMP))
    assert denied(guard("Write", marker(proj, "impl-2", "implementer", ["src/**"]),
                        agent_id=IMP), "GW809")


def test_implementer_registered_on_the_session_id(guard, proj):
    v = guard("Write", marker(proj, "impl-3", "implementer", ["lib/**"]),
              session_id=TEAMMATE_SESSION)
    assert silent(v)
    assert silent(guard("Write", write(proj, "lib/a.py"), session_id=TEAMMATE_SESSION))
    assert denied(guard("Write", write(proj, "src/a.py"), session_id=TEAMMATE_SESSION),
                  "GW803")


COMMIT_PUSH = [
    "git commit -m x", "git push", "git push origin main --force",
    # §D.2 spellings
    "/usr/bin/git commit -m x", "git -c a=b commit -m x", "command git push",
    # and more of them
    "git -C src commit -m x", "git --git-dir=.git commit", "GIT_DIR=.git git commit",
    "env git push", "env -i git push", "\\git commit", "\"git\" commit", "'git' push",
    "git-commit -m x", "/usr/lib/git-core/git-push", "builtin git push", "command -p git push",
    "nice -n 5 git push", "timeout 60 git push", "xargs git commit -m", "cd src && git commit",
    "git add . && git commit -m x", "true; git push", "echo $(git commit -m x)",
    "sh -c 'git commit -m x'", "bash -lc 'git push'", "bash -c \"cd src; git push\"",
    "find . -maxdepth 0 -exec git commit -m x \\;", "git ci -m x",
    "git -c alias.ci=commit ci", "git merge feature", "git pull", "git rebase main",
    "git cherry-pick abc", "git revert HEAD", "git am patch", "git commit-tree HEAD^{tree}",
    "git update-ref refs/heads/main HEAD~1", "git send-pack origin", "git COMMIT -m x",
    "./git commit", "$GIT commit -m x",
    # bugs found writing these tests: not seen through before
    "bash -lc 'git push'", "bash --login -c 'git commit -m x'", "eval git commit -m x",
    "eval 'git push'", "eval \"$CMD\"", "exec git push", "nohup git push &",
    "sudo git push", "sudo -u me git commit -m x", "doas git push", "watch -n 60 git push",
    "time git push", "echo 'git commit -m x' | sh", "bash <<< 'git push'", "bash -s < cmds",
    "g=git; $g commit -m x", "$(echo git) push", "${GIT:-git} commit",
    "python3 -c 'import os; os.system(\"git commit -m x\")'", "bash -c \"$CMD\"",
    "sudo nohup sudo nohup sudo git push",
]


@pytest.mark.parametrize("command", COMMIT_PUSH)
def test_implementer_never_commits_or_pushes(guard, proj, implementer, command):
    v = guard("Bash", {"command": command}, agent_id=IMP)
    assert denied(v, "GW804"), (command, v.code, v.message)


@pytest.mark.parametrize("command", [
    "git status", "git diff", "git log -3", "git add src/auth/login.py", "git stash list",
    "cat src/app.py", "echo '{}' > src/auth/fixture.json",
])
def test_implementer_other_commands_get_no_decision(guard, proj, implementer, command):
    v = guard("Bash", {"command": command}, agent_id=IMP)
    assert no_objection(v), (command, v.code, v.message)


def test_implementer_test_runs_ask(guard, proj, implementer):
    """A test run is code that may write anywhere and commit: the implementer's ownership
    (src/auth/**) does not hold for it (issue 28)."""
    v = guard("Bash", {"command": "python3 -m pytest -q"}, agent_id=IMP)
    assert (str(v.decision), v.code) == ("ask", "GW852"), v.message


@pytest.mark.parametrize("command", [
    "claude -p 'commit and push everything'", "/usr/local/bin/claude -p x",
    "command claude --dangerously-skip-permissions -p x", "bash -c 'claude -p x'",
    "npx -y @anthropic-ai/claude-code -p x", "nohup claude -p x &",
])
def test_implementer_starts_no_agent_session_from_bash(guard, proj, implementer, command):
    """Reproducer: `claude -p` from Bash started a session with no role, which the guards
    take for the Lead (unrestricted)."""
    v = guard("Bash", {"command": command}, agent_id=IMP)
    assert denied(v, "GW808"), (command, v.code, v.message)
    # `claude --version` is no agent session: not denied (GW808); it runs a program whose
    # effects the rules do not describe, which the implementer's ownership cannot hold (GW852)
    v = guard("Bash", {"command": "claude --version"}, agent_id=IMP)
    assert (str(v.decision), v.code) == ("ask", "GW852"), v.message


def test_implementer_cannot_change_the_breezing_state(guard, proj, implementer):
    for command in ("gateway breezing phase B", "gateway state clean"):
        assert denied(guard("Bash", {"command": command}, agent_id=IMP), "GW807"), command
    v = guard("Write", write(proj, ".claude/state/breezing-active.json", "{}"), agent_id=IMP)
    assert denied(v, "GW807")


# --- spawning ------------------------------------------------------------------------------

@pytest.mark.parametrize("tool", ["Agent", "Task"])
def test_reviewer_and_implementer_start_no_agents(guard, proj, reviewer, implementer, tool):
    ti = {"description": "d", "prompt": "p", "subagent_type": "general-purpose"}
    assert denied(guard(tool, ti, agent_id=REV), "GW808")
    assert denied(guard(tool, ti, agent_id=IMP), "GW808")
    assert silent(guard(tool, ti))  # the Lead may


# --- lead ----------------------------------------------------------------------------------

@pytest.mark.parametrize("command", [
    "rm .claude/state/breezing-active.json",
    "echo '{\"impl_mode\": \"codex\"}' > .claude/state/breezing-active.json",
    "mv .claude/state/breezing-active.json /tmp/x", "cd .claude/state && rm breezing-active.json",
    "sed -i s/codex/standard/ .claude/state/breezing-active.json",
])
def test_only_the_lead_changes_breezing_active_through_bash(guard, proj, implementer, command):
    """Reproducer: the file tools refused it (GW807), Bash let an implementer or a subagent
    rewrite or delete the Lead's file (ending Phase B, switching codex mode on or off)."""
    set_active(proj)
    for ident in ({"agent_id": IMP}, {"agent_id": "agent-u"}):
        v = guard("Bash", {"command": command}, **ident)
        assert denied(v, "GW807"), (ident, command, v.code, v.message)
    assert no_objection(guard("Bash", {"command": command}))  # the Lead may
    assert no_objection(guard("Bash", {"command": "cat .claude/state/breezing-active.json"},
                        agent_id=IMP))


def test_unregistered_main_thread_is_the_lead(guard, proj):
    assert no_objection(guard("Write", write(proj, ".claude/state/breezing-active.json", "{}")))
    assert no_objection(guard("Bash", {"command": "gateway breezing phase A"}))
    assert no_objection(guard("Bash", {"command": "git commit -m x"}))


def test_registered_lead_is_unrestricted(guard, proj):
    register(proj, LEAD_SESSION, "lead")
    for rel in ("src/app.py", "README.md", "deep/new/file.ts"):
        assert no_objection(guard("Write", write(proj, rel))), rel
    for command in ("git commit -m x", "git push", "rm -rf build", "python3 -c 'print(1)'"):
        assert no_objection(guard("Bash", {"command": command})), command


def test_unregistered_subagent_is_not_the_lead(guard, proj):
    v = guard("Write", write(proj, ".claude/state/breezing-active.json", "{}"),
              agent_id="agent-u")
    assert denied(v, "GW807")
    assert denied(guard("Bash", {"command": "gateway breezing phase B"}, agent_id="agent-u"),
                  "GW807")
    # otherwise it has no role restrictions
    assert silent(guard("Write", write(proj, "src/app.py"), agent_id="agent-u"))


def test_protected_paths_apply_to_every_role(guard, proj, reviewer, implementer):
    register(proj, LEAD_SESSION, "lead")
    for ident in ({}, {"agent_id": REV}, {"agent_id": IMP}, {"agent_id": "agent-u"}):
        v = guard("Write", write(proj, ".claude/settings.json", "{}"), **ident)
        assert denied(v, "GW832"), ident
        v = guard("Write", write(proj, ".claude/state/../../../outside.txt"), **ident)
        assert denied(v, "GW830"), ident
