"""A second red-team pass over the guards (each case run with real bash first: the file really
lands where the test says). The Lead and unregistered sessions may not touch the permission
surface; a reviewer writes nothing; an implementer stays inside its owns."""

import os

import pytest

from tests.guards.support import denied, no_objection, register, silent

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
    assert no_objection(v), (who, command, v.code, v.message)


# --- a third pass: the other tools ------------------------------------------------------------

@pytest.mark.parametrize("who,command,code", [
    (REV, "echo x > src/app.py", "GW802"), (IMP, "git commit -am wip && git push", "GW804"),
    (None, "echo '{}' > .claude/settings.json", "GW835"),
    (IMP, "echo '{}' > .claude/state/breezing-session-roles.json", "GW835"),
    (None, "rm -rf / --no-preserve-root", "GW750"),
])
def test_monitor_is_judged_as_bash(guard, team, who, command, code):
    # Claude Code's Monitor tool runs a Bash command ("the same permission rules as Bash")
    v = guard("Monitor", {"command": command, "description": "x"}, agent_id=who)
    assert denied(v, code), (who, command, v and v.code, v and v.message)
    assert silent(guard("Monitor", {"command": "tail -n 5 README.md"}, agent_id=REV))


@pytest.mark.parametrize("who,code", [(REV, "GW802"), (IMP, "GW803")])
def test_powershell_is_not_analysed_so_it_is_refused_to_who_may_not_write(guard, team, who,
                                                                        code):
    v = guard("PowerShell", {"command": "Set-Content src/app.py x"}, agent_id=who)
    assert denied(v, code), (who, v and v.code)
    assert silent(guard("PowerShell", {"command": "Get-ChildItem"}))  # the Lead: the dialog


def test_powershell_in_codex_mode(guard, team):
    from tests.guards.support import set_active

    set_active(team, impl_mode="codex")
    v = guard("PowerShell", {"command": "Set-Content src/app.py x"})
    assert denied(v, "GW811"), v and v.code


@pytest.mark.parametrize("tool,tool_input", [
    ("mcp__filesystem__write_file",
     {"path": "src/" + "src/../" * 700 + ".claude/settings.json", "content": "{}"}),
    ("mcp__filesystem__move_file", {"source": ".claude", "destination": "tmpdir"}),
    ("mcp__filesystem__move_file", {"source": ".claude/state", "destination": "old"}),
    ("mcp__filesystem__write_file", {"path": "file://localhost/PROJ/.claude/settings.json"}),
    ("mcp__filesystem__write_file", {"path": "file:///PROJ/.claude/state/breezing-session-"
                                             "roles%2Ejson"}),
    ("mcp__fs__write_files", {"paths": ["src/auth/x"] * 64 + [".claude/settings.json"]}),
    ("mcp__fs__write_file", {"a": {"b": {"c": {"d": {"path": ".claude/settings.json"}}}}}),
])
def test_mcp_paths_that_were_not_judged(guard, team, tool, tool_input):
    import json

    tool_input = json.loads(json.dumps(tool_input).replace("/PROJ", team))
    v = guard(tool, tool_input)
    assert v is not None and v.decision.name == "DENY" and v.code in (
        "GW832", "GW834", "GW835"), (tool, v and v.code, v and v.message)


def test_an_unregistered_subagent_of_the_leads_session_is_not_the_lead(guard, team):
    from tests.guards.support import set_active

    register(team, "11111111-1111-4111-8111-111111111111", "lead")  # the Lead's session
    set_active(team)
    v = guard("Bash", {"command": "gateway breezing phase A"}, agent_id=SUB)
    assert denied(v, "GW807"), v and v.code
    v = guard("Write", {"file_path": ".claude/state/breezing-active.json", "content": "{}"},
              agent_id=SUB)
    assert denied(v, "GW807"), v and v.code
    v = guard("mcp__filesystem__write_file", {"path": ".claude/state/breezing-active.json"},
              agent_id=SUB)
    assert denied(v, "GW807"), v and v.code


def test_codex_mode_cannot_be_switched_off_with_curly_quotes_or_mcp(guard, team):
    from tests.guards.support import set_active

    set_active(team, impl_mode="codex")
    active = ".claude/state/breezing-active.json"
    v = guard("Edit", {"file_path": active, "old_string": "\u201ccodex\u201d",
                       "new_string": "\"standard\""})
    assert denied(v, "GW813"), v and v.code
    v = guard("mcp__filesystem__write_file", {"path": active, "content": "{}"})
    assert denied(v, "GW813"), v and v.code
    v = guard("mcp__filesystem__move_file", {"source": active, "destination": "x.md"})
    assert denied(v, "GW813"), v and v.code


@pytest.mark.parametrize("path", [".claude/agents/x.md", ".claude/skills/s/SKILL.md",
                                  ".claude/commands/c.md", ".mcp.json", "~/.claude.json",
                                  "~/.claude/agents/x.md", "~/.gitconfig",
                                  "~/.claude/plugins/p/hooks/hooks.json"])
def test_files_that_set_up_agents_servers_or_permissions_are_protected(guard, team, path):
    v = guard("Write", {"file_path": path, "content": "x"})
    assert denied(v, "GW832"), (path, v and v.code, v and v.message)


@pytest.mark.parametrize("path", [".claude/state/gateway-breezing-phase.json/x",
                                  ".claude/state/.breezing-session-roles.json.lock/x",
                                  ".claude/state/breezing-session-roles.json/x"])
def test_a_reviewer_cannot_put_a_directory_in_place_of_the_gateways_files(guard, team, path):
    v = guard("Write", {"file_path": path, "content": "x"}, agent_id=REV)
    assert denied(v, "GW834"), (path, v and v.code, v and v.message)


@pytest.mark.parametrize("tool,tool_input", [
    ("mcp__git__git_checkout", {"repo_path": ".", "branch_name": "main"}),
    ("mcp__git__git_add", {"repo_path": ".", "files": ["src/app.py"]}),
    ("mcp__git__git_reset", {"repo_path": "."}),
    ("mcp__jetbrains__reformat_file", {"path": "src/app.py"}),
    ("mcp__fetch__download_file", {"url": "http://x", "path": "src/app.py"}),
    ("mcp__fs__writefile", {"path": "src/app.py"}),
])
def test_a_reviewer_may_not_use_mcp_tools_that_change_files(guard, team, tool, tool_input):
    v = guard(tool, tool_input, agent_id=REV)
    assert denied(v, "GW801"), (tool, v and v.code)
    assert silent(guard("mcp__fs__read_file", {"path": "src/app.py"}, agent_id=REV))


@pytest.mark.parametrize("tool,tool_input", [
    ("mcp__fs__writefile", {"path": "src/app.py"}),
    ("mcp__fetch__download_file", {"url": "http://x", "path": "README.md"}),
])
def test_an_implementer_mcp_write_in_one_token_is_held_to_its_owns(guard, team, tool,
                                                                   tool_input):
    v = guard(tool, tool_input, agent_id=IMP)
    assert denied(v, "GW803"), (tool, v and v.code)
