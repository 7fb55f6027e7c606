"""Bypasses found red-teaming the guards: globs and braces that expand to the gateway's own
state files (GW835 saw only literal words), and MCP tools that write files (the role and codex
guards knew only the built-in file tools)."""

import os

import pytest

from tests.guards.support import denied, marker, no_objection, register, set_active, silent

IMP = "agent-impl-1"
REV = "agent-reviewer-1"


@pytest.fixture()
def roles_file(proj):
    register(proj, "someone", "reviewer")
    assert os.path.exists(os.path.join(proj, ".claude/state/breezing-session-roles.json"))


@pytest.mark.parametrize("command", [
    "cp /tmp/x .claude/state/breezing-session-rol*.json",
    "cp /tmp/x .claude/state/breezing-session-role?.json",
    "cp /tmp/x .claude/stat[e]/breezing-session-roles.json",
    "echo {} > .claude/state/breezing-session-rol*.json",
    "echo {} > .claude/state/*roles.json",
    "cp /tmp/x .claude/state/breezing-session-{x,roles}.json",
    "tee .claude/state/breezing-session-*.json < /tmp/x",
    "rm .claude/state/*.json", "rm -rf .claude/sta*",
    "cd .claude && cp /tmp/x state/breezing-session-rol*.json",
])
@pytest.mark.parametrize("ident", [{}, {"agent_id": "agent-unregistered"}])
def test_globs_do_not_reach_the_roles_file(guard, proj, roles_file, command, ident):
    v = guard("Bash", {"command": command}, **ident)
    assert denied(v, "GW835"), (command, v.code, v.message)


def test_globs_expand_to_what_bash_would_pass(guard, proj):
    """An implementer's globs are judged on what they match: inside its owns is fine."""
    os.makedirs(os.path.join(proj, "src/auth"), exist_ok=True)
    os.makedirs(os.path.join(proj, "src/authz"), exist_ok=True)
    for rel in ("src/auth/a.py", "src/authz/b.py"):
        with open(os.path.join(proj, rel), "w") as fh:
            fh.write("a\n")
    register(proj, IMP, "implementer", ["src/auth/**"])
    assert no_objection(guard("Bash", {"command": "sed -i s/a/b/ src/auth/*.py"}, agent_id=IMP))
    for command in ("sed -i s/a/b/ src/*/*.py", "rm src/auth*/*.py", "touch src/{auth,authz}/c",
                    "echo x > src/authz/*.py"):
        v = guard("Bash", {"command": command}, agent_id=IMP)
        assert denied(v, "GW803"), (command, v.code, v.message)


def test_glob_expansion_is_bounded(guard, proj, monkeypatch):
    """`/*/*/*/*/*/*` walks the whole file system (/proc included): the hook ran for more than
    ten minutes. Past a number of directory entries a glob is a computed target: an
    implementer's write is refused (it cannot be named), everyone else gets no decision."""
    from gateway.guards.effects import _core

    register(proj, IMP, "implementer", ["src/auth/**"])
    # The bound is on the work, not the clock: count the directory entries the guard looks at.
    seen = [0]
    real_scandir = os.scandir

    class _Counting:
        def __init__(self, it):
            self._it = it

        def __enter__(self):
            self._it.__enter__()
            return self

        def __exit__(self, *exc):
            return self._it.__exit__(*exc)

        def __iter__(self):
            for entry in self._it:
                seen[0] += 1
                yield entry

    monkeypatch.setattr(os, "scandir", lambda *a, **k: _Counting(real_scandir(*a, **k)))
    calls = 0
    for ident in ({}, {"agent_id": "agent-unregistered"}):
        assert no_objection(guard("Bash", {"command": "cp x /*/*/*/*/*/*/*"}, **ident))
        calls += 1
    v = guard("Bash", {"command": "cp x /*/*/*/*/*/*/*"}, agent_id=IMP)
    calls += 1
    assert denied(v, "GW803") and "computed argument" in v.message, (v.code, v.message)
    monkeypatch.setattr(os, "scandir", real_scandir)
    print("entries looked at:", seen[0])
    assert seen[0] <= calls * 4 * _core._MAX_GLOB_ENTRIES, seen[0]
    os.makedirs(os.path.join(proj, "src/auth/many"))
    for i in range(30):
        open(os.path.join(proj, f"src/auth/many/f{i}"), "w").close()
    assert no_objection(guard("Bash", {"command": "rm src/auth/many/f*"}, agent_id=IMP))
    monkeypatch.setattr(_core, "_MAX_GLOB_ENTRIES", 20)
    v = guard("Bash", {"command": "rm src/auth/many/f*"}, agent_id=IMP)
    assert denied(v, "GW803") and "computed argument" in v.message, (v.code, v.message)


# --- MCP tools ------------------------------------------------------------------------------

def _mcp(proj, rel, **extra):
    return {"path": os.path.join(proj, rel), "content": "x", **extra}


@pytest.mark.parametrize("tool", ["mcp__filesystem__write_file", "mcp__fs__editFile",
                                  "mcp__filesystem__move_file", "mcp__x__create_directory"])
def test_mcp_write_tools_respect_owns(guard, proj, tool):
    register(proj, IMP, "implementer", ["src/auth/**"])
    v = guard(tool, _mcp(proj, "src/authz/x"), agent_id=IMP)
    assert denied(v, "GW803"), (tool, v.code, v.message)
    assert v.rule == "role:implementer:tool"
    assert silent(guard(tool, _mcp(proj, "src/auth/x"), agent_id=IMP))
    v = guard(tool, {"source": os.path.join(proj, "src/auth/x"),
                     "destination": os.path.join(proj, "src/authz/x")}, agent_id=IMP)
    assert denied(v, "GW803")


def test_mcp_tools_for_a_reviewer(guard, proj):
    register(proj, REV, "reviewer")
    for tool in ("mcp__filesystem__write_file", "mcp__shell__run_command", "mcp__x__exec"):
        v = guard(tool, _mcp(proj, ".claude/state/x"), agent_id=REV)
        assert denied(v, "GW801"), tool
    assert silent(guard("mcp__filesystem__read_text_file", _mcp(proj, "src/x"), agent_id=REV))


def test_mcp_tools_without_a_path_are_left_to_the_permission_flow(guard, proj):
    register(proj, IMP, "implementer", ["src/auth/**"])
    assert silent(guard("mcp__github__createIssue", {"title": "t"}, agent_id=IMP))
    assert silent(guard("mcp__filesystem__read_file", _mcp(proj, "src/authz/x"), agent_id=IMP))


@pytest.mark.parametrize("rel,code", [
    (".claude/state/breezing-session-roles.json", "GW834"), (".claude/settings.json", "GW832"),
    (".env", "GW833"),
])
@pytest.mark.parametrize("ident", [{}, {"agent_id": "agent-unregistered"}])
def test_mcp_write_tools_cannot_reach_protected_paths(guard, proj, rel, code, ident):
    v = guard("mcp__filesystem__write_file", _mcp(proj, rel), **ident)
    assert denied(v, code), (rel, ident, v.code, v.message)


def test_mcp_write_tools_in_codex_mode(guard, proj):
    set_active(proj, "codex")
    v = guard("mcp__filesystem__write_file", _mcp(proj, "src/x.py"))
    assert denied(v, "GW810")
    assert silent(guard("mcp__filesystem__write_file", _mcp(proj, "NOTES.md")))
    assert silent(guard("mcp__filesystem__read_file", _mcp(proj, "src/x.py")))


def test_marker_of_the_lead_is_not_assignable_by_a_subagent(guard, proj):
    """The Lead registered from a marker; a subagent of its session rewriting that marker
    does not change the Lead's role."""
    assert silent(guard("Write", marker(proj, "lead", "lead")))
    v = guard("Write", marker(proj, "lead", "reviewer"), agent_id="agent-sub")
    assert denied(v, "GW806")
