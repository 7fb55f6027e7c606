"""Who changes an implementer's owns (open limit 1 of the role guard): a registered
implementer may keep or narrow its own owns, never widen them (GW809); the Lead assigns owns
by writing the role marker the implementer registered from (seed 001: owns "updated at first
task claim with patterns from Lead"), also in Phase B; nobody else touches another identity's
registration (GW806)."""

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.effects import files
from tests.guards.support import (
    LEAD_SESSION,
    denied,
    marker,
    register,
    roles_on_disk,
    set_active,
    set_phase,
    silent,
    write,
)

IMP = "agent-impl-1"
IMP2 = "agent-impl-2"
REV = "agent-reviewer-1"
TEAMMATE = "22222222-2222-4222-8222-222222222222"


@pytest.fixture()
def impl(guard, proj):
    """An implementer registered the way the workflow does it, then assigned src/auth/**."""
    assert silent(guard("Write", marker(proj, "impl-1", "implementer", []), agent_id=IMP))
    assert silent(guard("Write", marker(proj, "impl-1", "implementer", ["src/auth/**"])))
    assert roles_on_disk(proj)[IMP]["owns"] == ["src/auth/**"]
    return IMP


# --- the implementer itself -------------------------------------------------------------------

@pytest.mark.parametrize("owns", [
    ["**"], ["src/**"], ["src/authz/**"], ["src/auth"], ["src/auth/**", "lib/**"],
    ["src/auth*/**"], ["src/*/x.py"], ["/abs/**"], ["src/auth/../authz/**"],
    ["src/[a]uth/**"], ["./src/**"], ["src/auth/", "src/"], ["*"], ["src/**/x.py"],
])
@pytest.mark.parametrize("name", ["impl-1", "impl-9"])
def test_implementer_cannot_widen_its_owns(guard, proj, impl, owns, name):
    before = roles_on_disk(proj)
    v = guard("Write", marker(proj, name, "implementer", owns), agent_id=IMP)
    assert denied(v, "GW809"), (owns, v.code, v.message)
    assert v.rule == "role:escalation:owns"
    assert roles_on_disk(proj) == before
    assert denied(guard("Write", write(proj, "src/authz/x.py"), agent_id=IMP), "GW803")


@pytest.mark.parametrize("owns", [
    [], ["src/auth/**"], ["src/auth/login/**"], ["src/auth/*.py"], ["./src/auth/x.py"],
    ["src/auth/a/", "src/auth/b.py"], ["src/auth/**/test_*.py"],
])
def test_implementer_may_keep_or_narrow_its_owns(guard, proj, impl, owns):
    v = guard("Write", marker(proj, "impl-1", "implementer", owns), agent_id=IMP)
    assert silent(v), (owns, v.code, v.message)
    assert roles_on_disk(proj)[IMP]["owns"] == owns


def test_narrowing_is_one_way(guard, proj, impl):
    assert silent(guard("Write", marker(proj, "impl-1", "implementer", ["src/auth/a/**"]),
                        agent_id=IMP))
    assert denied(guard("Write", marker(proj, "impl-1", "implementer", ["src/auth/**"]),
                        agent_id=IMP), "GW809")


def test_a_subagent_cannot_widen_past_its_sessions_owns(guard, proj):
    """A subagent of an implementer session inherits that session's owns; registering under
    its own agent_id is judged against them."""
    register(proj, TEAMMATE, "implementer", ["lib/**"])
    ident = {"agent_id": "agent-sub", "session_id": TEAMMATE}
    assert denied(guard("Write", marker(proj, "sub", "implementer", ["src/**"]), **ident),
                  "GW809")
    assert silent(guard("Write", marker(proj, "sub", "implementer", ["lib/a/**"]), **ident))
    assert roles_on_disk(proj)["agent-sub"]["owns"] == ["lib/a/**"]


def test_the_binding_is_the_first_marker(guard, proj, impl):
    """Re-registering from another marker name keeps the first binding: the Lead still
    reaches the implementer through breezing-role-impl-1.json."""
    assert silent(guard("Write", marker(proj, "other", "implementer", ["src/auth/a/**"]),
                        agent_id=IMP))
    assert roles_on_disk(proj)[IMP]["marker"] == "breezing-role-impl-1.json"
    assert silent(guard("Write", marker(proj, "impl-1", "implementer", ["src/**"])))
    assert roles_on_disk(proj)[IMP]["owns"] == ["src/**"]


# --- the Lead assigns -----------------------------------------------------------------------

def test_lead_assigns_and_reassigns(guard, proj, impl):
    assert silent(guard("Write", marker(proj, "impl-1", "implementer", ["src/**", "lib/**"])))
    assert roles_on_disk(proj)[IMP]["owns"] == ["src/**", "lib/**"]
    assert silent(guard("Write", write(proj, "lib/a.py"), agent_id=IMP))
    # and takes them away again
    assert silent(guard("Write", marker(proj, "impl-1", "implementer", [])))
    assert denied(guard("Write", write(proj, "lib/a.py"), agent_id=IMP), "GW803")
    assert LEAD_SESSION not in roles_on_disk(proj)


def test_registered_lead_assigns_too(guard, proj, impl):
    assert silent(guard("Write", marker(proj, "lead", "lead")))
    assert silent(guard("Write", marker(proj, "impl-1", "implementer", ["lib/**"])))
    roles = roles_on_disk(proj)
    assert roles[IMP]["owns"] == ["lib/**"] and roles[LEAD_SESSION]["role"] == "lead"


def test_lead_may_demote_but_not_make_a_lead(guard, proj, impl):
    v = guard("Write", marker(proj, "impl-1", "lead"))
    assert denied(v, "GW805"), (v.code, v.message)
    assert roles_on_disk(proj)[IMP]["role"] == "implementer"
    assert silent(guard("Write", marker(proj, "impl-1", "reviewer")))
    assert roles_on_disk(proj)[IMP]["role"] == "reviewer"
    assert denied(guard("Write", write(proj, "src/auth/x.py"), agent_id=IMP), "GW801")


def test_lead_assigns_in_phase_b(guard, proj, impl):
    """Phase B is delegate mode, and the first task claim happens there: the Lead's Write of
    a registered teammate's marker is the one Write it may make."""
    set_active(proj)
    set_phase(proj, "B")
    assert denied(guard("Write", write(proj, "src/app.py")), "GW820")
    assert silent(guard("Write", marker(proj, "impl-1", "implementer", ["src/**"])))
    assert roles_on_disk(proj)[IMP]["owns"] == ["src/**"]
    # a marker nobody registered from would register the Lead itself: not in delegate mode
    v = guard("Write", marker(proj, "impl-7", "implementer", ["src/**"]))
    assert denied(v, "GW820"), (v.code, v.message)
    assert LEAD_SESSION not in roles_on_disk(proj)
    # other file tools on the marker stay refused
    path = os.path.join(proj, ".claude/state/breezing-role-impl-1.json")
    v = guard("Edit", {"file_path": path, "old_string": "a", "new_string": "b"})
    assert denied(v, "GW820")


def test_lead_dry_run_reports_the_assignment(guard, proj, impl):
    v = guard("Write", marker(proj, "impl-1", "implementer", ["lib/**"]), record=False)
    assert silent(v)
    assert any("would assign" in s.message for s in v.trace)
    assert roles_on_disk(proj)[IMP]["owns"] == ["src/auth/**"]


# --- nobody else -----------------------------------------------------------------------------

@pytest.mark.parametrize("ident", [
    {"agent_id": IMP2}, {"agent_id": REV}, {"agent_id": "agent-unregistered"},
    {"agent_id": "agent-lead-sub"},  # a subagent of the Lead's session
    {"session_id": TEAMMATE},  # a teammate session registered as implementer
])
def test_nobody_else_writes_a_bound_marker(guard, proj, impl, ident):
    register(proj, TEAMMATE, "implementer", ["x/**"])
    assert silent(guard("Write", marker(proj, "impl-2", "implementer", []), agent_id=IMP2))
    assert silent(guard("Write", marker(proj, "rev", "reviewer"), agent_id=REV))
    before = roles_on_disk(proj)
    v = guard("Write", marker(proj, "impl-1", "implementer", ["**"]), **ident)
    assert denied(v, "GW806"), (ident, v.code, v.message)
    assert "another registration" in v.message
    assert roles_on_disk(proj) == before


def test_the_leads_subagent_does_not_assign(guard, proj, impl):
    register(proj, LEAD_SESSION, "lead")
    v = guard("Write", marker(proj, "impl-1", "implementer", ["**"]), agent_id="agent-lead-sub")
    assert denied(v, "GW806")
    assert roles_on_disk(proj)[IMP]["owns"] == ["src/auth/**"]


# --- owns_within is sound -------------------------------------------------------------------

_SEGS = ["a", "b", "ab", "*", "**", "a*", "*b", "?", "", ".", "x.py"]
_PATH_SEGS = ["a", "b", "ab", "ba", "x.py", "c", "aa"]
_globs = st.lists(st.sampled_from(_SEGS), min_size=1, max_size=4).map("/".join) | \
    st.lists(st.sampled_from(_SEGS), min_size=1, max_size=3).map(lambda s: "/".join(s) + "/")
_paths = st.lists(st.sampled_from(_PATH_SEGS), min_size=1, max_size=5).map("/".join)


@settings(max_examples=600, deadline=None)
@given(_globs, st.lists(_globs, min_size=1, max_size=2), st.lists(_paths, max_size=25))
def test_owns_within_is_sound(new, current, sample):
    if not files.owns_within(new, current):
        return
    for p in sample:
        if files.owns_match([new], p, "/proj/" + p):
            assert files.owns_match(current, p, "/proj/" + p), (new, current, p)


@settings(max_examples=400, deadline=None)
@given(st.lists(_globs, min_size=1, max_size=2), _paths, st.lists(_paths, max_size=15))
def test_owns_tree_is_sound(owns, rel, below):
    if not files.owns_tree(owns, rel, "/proj/" + rel):
        return
    for b in below:
        p = rel + "/" + b
        assert files.owns_match(owns, p, "/proj/" + p), (owns, rel, p)


@pytest.mark.parametrize("new,current,expected", [
    ("src/auth/x/**", ["src/auth/**"], True), ("src/authz/**", ["src/auth/**"], False),
    ("src/auth/*.py", ["src/auth/**"], True), ("src/auth", ["src/auth/**"], False),
    ("src/auth/x.py", ["src/auth"], True), ("src/a/**", ["src/*/**"], True),
    ("src/**", ["src/*"], False), ("**", ["src/**"], False), ("a/**", ["**"], True),
    ("src/[ab]", ["src/**"], False), ("src/[ab]", ["src/[ab]"], True),
])
def test_owns_within_examples(new, current, expected):
    assert files.owns_within(new, current) is expected
