"""Codex guard (SPEC §5, seed-origins §B.3 "Breezing-codex mode"): while breezing-active.json
says impl_mode "codex", every session (the Lead included) may write only
.claude/state/breezing*, .claude/state/review* and *.md files, never through a symlink, and
Bash may not write -- judged from the parse."""

import json
import os

import pytest

from tests.guards.support import (
    LEAD_SESSION,
    denied,
    no_objection,
    register,
    set_active,
    silent,
    write,
)

FILE_TOOLS = ["Write", "Edit", "MultiEdit", "NotebookEdit"]
ACTIVE = ".claude/state/breezing-active.json"

#: Every kind of session the mode applies to (§B.3: "every session in the project").
IDENTITIES = {
    "lead": {},
    "registered-lead": {"session_id": "33333333-3333-4333-8333-333333333333"},
    "subagent": {"agent_id": "agent-sub"},
    "implementer": {"agent_id": "agent-impl"},
    "reviewer": {"agent_id": "agent-rev"},
}


def _input(tool, path):
    if tool == "NotebookEdit":
        return {"notebook_path": path, "new_source": "x"}
    if tool == "MultiEdit":
        return {"file_path": path, "edits": [{"old_string": "a", "new_string": "b"}]}
    if tool == "Edit":
        return {"file_path": path, "old_string": "a", "new_string": "b"}
    return {"file_path": path, "content": "x"}


@pytest.fixture()
def codex(proj):
    set_active(proj, "codex")
    register(proj, IDENTITIES["registered-lead"]["session_id"], "lead")
    register(proj, "agent-impl", "implementer", ["**"])  # owning everything changes nothing
    register(proj, "agent-rev", "reviewer")
    return proj


# --- file tools --------------------------------------------------------------------------------

@pytest.mark.parametrize("rel", [
    ".claude/state/breezing-notes.json", ".claude/state/breezing-timeline.jsonl",
    ".claude/state/review-result.json", ".claude/state/review-approved.json",
    "README.md", "docs/design.md", "src/auth/NOTES.md",
])
def test_state_and_markdown_files_may_be_written(guard, codex, rel):
    for who, ident in IDENTITIES.items():
        v = guard("Write", write(codex, rel), **ident)
        if who == "reviewer" and not rel.startswith(".claude/state/"):
            assert denied(v, "GW801"), (rel, v.code)  # the role guard stays stricter
        else:
            assert silent(v), (who, rel, v.code, v.message)


@pytest.mark.parametrize("rel", [
    "src/app.py", "src/auth/login.py", "package.json", "Makefile", "docs/design.txt",
    ".claude/state/other.json", ".claude/state/sub/breezing-x.json", "src/breezing-x.json",
    "src/review.py", "README.md.bak", "notes.md/x.py",
    ".claude/state/../../src/app.py",  # traversal out of the state directory
])
def test_everything_else_is_denied_for_every_session(guard, codex, rel):
    for who, ident in IDENTITIES.items():
        for tool in FILE_TOOLS:
            v = guard(tool, _input(tool, os.path.join(codex, rel)), **ident)
            assert denied(v, "GW810"), (who, tool, rel, v.code, v.message)
            assert "codex" in v.message


@pytest.mark.parametrize("who", sorted(IDENTITIES))
def test_no_writes_through_symlinks(guard, codex, who):
    os.symlink("README.md", os.path.join(codex, "link.md"))
    os.symlink("src", os.path.join(codex, "srclink.md"))
    os.symlink("../../src/app.py", os.path.join(codex, ".claude/state/breezing-link.json"))
    os.symlink("../../src", os.path.join(codex, ".claude/state/review-dir"))
    for rel in ("link.md", "srclink.md/notes.md", ".claude/state/breezing-link.json",
                ".claude/state/review-dir/x.md"):
        v = guard("Write", write(codex, rel), **IDENTITIES[who])
        assert denied(v, "GW812"), (who, rel, v.code, v.message)


def test_protected_paths_come_first(guard, codex):
    assert denied(guard("Write", write(codex, ".claude/settings.json")), "GW832")
    assert denied(guard("Write", write(codex, ".claude/state/breezing-session-roles.json")),
                  "GW834")


def test_role_marker_registration_still_works(guard, codex):
    path = os.path.join(codex, ".claude/state/breezing-role-impl-2.json")
    v = guard("Write", {"file_path": path, "content": '{"role": "implementer"}'},
              agent_id="agent-new")
    assert silent(v)


# --- breezing-active.json: the mode ends with `gateway state clean`, not with an edit ----------

def test_lead_may_rewrite_active_keeping_codex(guard, codex):
    body = json.dumps({"session_id": "breezing-20260206-0300", "impl_mode": "codex",
                       "team_name": "t"})
    assert silent(guard("Write", write(codex, ACTIVE, body)))
    v = guard("Edit", {"file_path": os.path.join(codex, ACTIVE),
                       "old_string": '"started_at"', "new_string": '"started_at"'})
    assert silent(v)


@pytest.mark.parametrize("content", [
    '{"impl_mode": "standard"}', "{}", '{"impl_mode": null}', "not json", "[]",
    '{"impl_mode": "Codex"}'])
def test_lead_cannot_switch_codex_off_with_a_write(guard, codex, content):
    v = guard("Write", write(codex, ACTIVE, content))
    assert denied(v, "GW813"), (content, v.code, v.message)


def test_lead_cannot_switch_codex_off_with_edits(guard, codex):
    path = os.path.join(codex, ACTIVE)
    v = guard("Edit", {"file_path": path, "old_string": '"codex"', "new_string": '"standard"'})
    assert denied(v, "GW813")
    v = guard("Edit", {"file_path": path, "old_string": "codex", "new_string": "x",
                       "replace_all": True})
    assert denied(v, "GW813")
    v = guard("MultiEdit", {"file_path": path, "edits": [
        {"old_string": '"started_at"', "new_string": '"started_at"'},
        {"old_string": '"codex"', "new_string": '"standard"'}]})
    assert denied(v, "GW813")
    v = guard("NotebookEdit", {"notebook_path": path, "new_source": "{}"})
    assert denied(v, "GW813")


def test_active_file_stays_the_leads(guard, codex):
    body = json.dumps({"impl_mode": "codex"})
    for who in ("subagent", "implementer", "reviewer"):
        v = guard("Write", write(codex, ACTIVE, body), **IDENTITIES[who])
        assert denied(v, "GW807"), who


# --- Bash --------------------------------------------------------------------------------------

@pytest.mark.parametrize("command", [
    "echo x > src/app.py", "echo x >> log.txt", "printf x >| out.txt", "ls &> out.txt",
    "cat a.txt | tee src/x.py", "tee -a log.txt < a.txt", "sed -i s/a/b/ src/app.py",
    "sed -i.bak s/a/b/ src/app.py", "awk -i inplace '{print}' src/app.py",
    "mv a.txt b.txt", "cp a.txt src/x.py", "rm a.txt", "mkdir newdir", "touch x.py",
    "ln -s a.txt b.txt", "install -m 644 a.txt src/x.py", "dd if=a.txt of=src/x.py",
    "git commit -m x", "git push", "git add .", "git checkout main", "git reset --hard",
    "git rebase main", "git merge x", "git cherry-pick abc", "git apply p.diff",
    "git am p.mbox", "git switch -c x", "git restore src/app.py", "git stash",
    "git pull", "git rm a.txt", "git mv a.txt b.txt", "git submodule update",
    "python3 -c \"open('x','w')\"", "node -e \"require('fs').writeFileSync('x','')\"",
    "perl -pi -e s/a/b/ src/app.py", "ruby -e 'File.write(\"x\",\"\")'",
    "bash -c 'echo x > y'", "sh ./scripts/run.sh", "cd src && rm app.py",
    "/bin/rm a.txt", "command cp a.txt b.txt", "env LC_ALL=C sort -o a.txt a.txt",
    "find src -name '*.orig' -delete", "truncate -s0 a.txt", "chmod +x a.txt",
    "echo x > docs/notes.md",  # Bash may not write at all, even Markdown
])
def test_bash_may_not_write(guard, codex, command):
    for who, ident in IDENTITIES.items():
        if who == "lead" or command.startswith(("git", "echo", "python3", "cat")):
            v = guard("Bash", {"command": command}, **ident)
            assert denied(v, "GW811"), (who, command, v.code, v.message)
            assert "codex" in v.message
    v = guard("Bash", {"command": command}, agent_id="agent-sub")
    assert denied(v, "GW811"), (command, v.code, v.message)


@pytest.mark.parametrize("command", [
    "git status", "git diff", "git log --oneline -5", "git show HEAD", "cat src/app.py",
    "ls -la", "grep -rn TODO src", "wc -l README.md", "echo hello", "echo x >/dev/null",
    "head -3 README.md 2>/dev/null", "git diff | head -20",
])
def test_bash_reads_get_no_decision(guard, codex, command):
    v = guard("Bash", {"command": command})
    assert silent(v), (command, v.code, v.message)


def test_lead_may_still_drive_the_workflow(guard, codex):
    for command in ("gateway breezing phase B", "gateway state clean"):
        assert no_objection(guard("Bash", {"command": command})), command
        v = guard("Bash", {"command": command}, agent_id="agent-sub")
        assert denied(v, "GW807"), command


def test_lead_drives_the_workflow_commands_and_teammates_read_them(guard, codex):
    for command in ("gateway breezing start --range x --yes", "gateway breezing finish",
                    "gateway breezing finish --cleanup", "gateway resume --yes"):
        assert no_objection(guard("Bash", {"command": command})), command
        assert denied(guard("Bash", {"command": command}, agent_id="agent-sub"), "GW807")
    for command in ("gateway breezing next", "gateway crew status", "gateway orch status"):
        assert no_objection(guard("Bash", {"command": command}, agent_id="agent-sub")), command


# --- when the mode is off -------------------------------------------------------------------

@pytest.mark.parametrize("impl_mode", ["standard", None])
def test_standard_mode_has_no_codex_restriction(guard, proj, impl_mode):
    set_active(proj, impl_mode)
    assert silent(guard("Write", write(proj, "src/app.py")))
    assert silent(guard("Bash", {"command": "echo x > src/app.py"}))


def test_no_breezing_session_no_codex_restriction(guard, proj):
    assert silent(guard("Write", write(proj, "src/app.py")))
    assert silent(guard("Bash", {"command": "git commit -m x"}))


def test_mode_ends_when_the_session_ends(guard, codex):
    assert denied(guard("Write", write(codex, "src/app.py")), "GW810")
    os.unlink(os.path.join(codex, ACTIVE))
    assert silent(guard("Write", write(codex, "src/app.py")))


def test_codex_applies_to_the_leads_session_id_too(guard, codex):
    register(codex, LEAD_SESSION, "lead")
    assert denied(guard("Write", write(codex, "src/app.py")), "GW810")
