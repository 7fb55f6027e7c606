"""gateway.state.fast: the stdlib-only hot-path views, and their agreement with the models."""

import json
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from gateway.state import fast, layout, models, store
from gateway.state.store import StateCorrupt, StateInvalid, StateTooLarge, StateUnsafe


def _state(proj):
    d = proj / ".claude" / "state"
    d.mkdir(parents=True, exist_ok=True)
    return d


# --------------------------------------------------------------------------------------------
# roles
# --------------------------------------------------------------------------------------------


def test_roles_absent_is_empty(tmp_path):
    assert fast.load_session_roles(tmp_path) == {}
    assert fast.lookup_role(tmp_path, "a", "s") is None


def test_lookup_agent_id_first(tmp_path):
    (_state(tmp_path) / layout.SESSION_ROLES).write_text(json.dumps({
        "sess": {"role": "lead"}, "agent": {"role": "reviewer", "owns": []}}))
    assert fast.lookup_role(tmp_path, "agent", "sess") == ("agent", fast.RoleView("reviewer"))
    assert fast.lookup_role(tmp_path, "other", "sess")[1].role == "lead"
    assert fast.lookup_role(tmp_path, None, None) is None
    assert fast.lookup_role(tmp_path, "", "") is None


@pytest.mark.parametrize("content, needle", [
    (b'{"a": {"role": "lead"', "ends early"),
    (b'{"a": {"role": "admin"}}', "a.role: must be one of"),
    (b'{"a": {"role": "reviewer", "bypass": true}}', "a.bypass: unexpected field"),
    (b'{"a": {"role": "reviewer"}, "a": {"role": "lead"}}', "appears twice"),
    (b'["lead"]', "must be an object"),
    (b"\xff", "not UTF-8"),
])
def test_corrupt_roles_raise_with_file_and_repair(tmp_path, content, needle):
    p = _state(tmp_path) / layout.SESSION_ROLES
    p.write_bytes(content)
    with pytest.raises(StateCorrupt) as ei:
        fast.lookup_role(tmp_path, "a", None)
    msg = str(ei.value)
    assert needle in msg and str(p) in msg
    assert "written only by the gateway" in msg and "`gateway state repair` removes it" in msg


def test_update_session_roles(tmp_path):
    def register(roles):
        roles["agent-1"] = fast.role_entry("implementer", ["src/a/**"], agent_type="task-worker")
    out = fast.update_session_roles(tmp_path, register)
    assert out["agent-1"].owns == ("src/a/**",)
    raw = json.loads((_state(tmp_path) / layout.SESSION_ROLES).read_text())
    assert raw["agent-1"]["role"] == "implementer" and raw["agent-1"]["agent_type"] == "task-worker"
    assert models.SessionRoles.model_validate(raw)       # the model agrees

    # an escalation check inside fn aborts without writing
    class Refused(Exception):
        pass

    def escalate(roles):
        old = roles.get("agent-1")
        if old and fast.ROLE_RANK["lead"] > fast.ROLE_RANK[old.role]:
            raise Refused
        roles["agent-1"] = fast.role_entry("lead")
    with pytest.raises(Refused):
        fast.update_session_roles(tmp_path, escalate)
    assert fast.load_session_roles(tmp_path)["agent-1"].role == "implementer"

    # fn returning an invalid mapping is refused, file unchanged
    with pytest.raises(ValueError, match="refusing to write"):
        fast.update_session_roles(tmp_path, lambda r: {"x": {"role": "root"}})
    assert list(fast.load_session_roles(tmp_path)) == ["agent-1"]


def test_update_session_roles_refuses_corrupt_file(tmp_path):
    p = _state(tmp_path) / layout.SESSION_ROLES
    p.write_text('{"a": {"role": "superuser"}}')
    called = []
    with pytest.raises(StateInvalid):
        fast.update_session_roles(tmp_path, lambda r: called.append(1))
    assert called == [] and p.read_text() == '{"a": {"role": "superuser"}}'


def test_parse_role_marker():
    src = "/p/.claude/state/breezing-role-impl-1.json"
    assert fast.parse_role_marker('{"role":"implementer","owns":[]}', src) == \
        fast.RoleView("implementer", ())
    assert fast.parse_role_marker(b'{"role":"reviewer"}', src).role == "reviewer"
    for content, exc, needle in [
        ('{"role":"lead","owns":["**"],"trust":1}', StateInvalid, "trust: unexpected field"),
        ('{"role":"LEAD"}', StateInvalid, "role: must be one of"),
        ('{"owns":[]}', StateInvalid, "role: field required"),
        ('{"role":"reviewer","owns":"src"}', StateInvalid, "owns: must be a list"),
        ('{"role":"reviewer","owns":[1]}', StateInvalid, "owns.0: must be a string"),
        ('{"role":', StateCorrupt, "ends early"),
        ("", StateCorrupt, "empty"),
        ('{"role":"reviewer"' + " " * 70000 + "}", StateTooLarge, "limit"),
        (12, StateInvalid, "not text"),
    ]:
        with pytest.raises(exc) as ei:
            fast.parse_role_marker(content, src)
        assert needle in str(ei.value) and src in str(ei.value), str(ei.value)
        assert 'rewrite' in str(ei.value)


def test_load_role_marker_file(tmp_path):
    p = _state(tmp_path) / "breezing-role-reviewer.json"
    p.write_text('{"role": "reviewer"}')
    assert fast.load_role_marker(p).role == "reviewer"
    link = _state(tmp_path) / "breezing-role-x.json"
    link.symlink_to(p)
    with pytest.raises(StateUnsafe):
        fast.load_role_marker(link)


# --------------------------------------------------------------------------------------------
# active view, phase
# --------------------------------------------------------------------------------------------


def test_active_view(tmp_path):
    assert fast.load_active_view(tmp_path) is None
    p = _state(tmp_path) / layout.ACTIVE
    p.write_text('{"session_id": "breezing-1", "impl_mode": "codex"}')
    v = fast.load_active_view(tmp_path)
    assert v == ("breezing-1", "codex", False) and v.is_codex and not v.team
    p.write_text('{"session_id": "breezing-1", "team_name": "t"}')
    assert fast.load_active_view(tmp_path).team
    p.write_text('{"session_id": "breezing-1"}')
    assert not fast.load_active_view(tmp_path).is_codex
    for bad in ('{"impl_mode": "CODEX"}', '{"impl_mode": ["codex"]}', '"codex"',
                '{"session_id": 5}', '{"impl_mode": "codex", "impl_mode": "standard"}', "{"):
        p.write_text(bad)
        with pytest.raises(StateCorrupt) as ei:
            fast.load_active_view(tmp_path)
        assert str(p) in str(ei.value) and "gateway state clean" in str(ei.value)


def test_phase_set_load_effective_clear(tmp_path):
    assert fast.load_phase(tmp_path) is None and fast.effective_phase(tmp_path) is None
    (_state(tmp_path) / layout.ACTIVE).write_text('{"session_id": "breezing-1"}')
    v = fast.set_phase(tmp_path, "B")
    assert v.phase == "B" and v.session_id == "breezing-1"
    assert fast.load_phase(tmp_path) == v
    assert fast.effective_phase(tmp_path) == v
    assert models.BreezingPhase.model_validate(
        json.loads((_state(tmp_path) / layout.PHASE).read_text())).phase == "B"
    # a new breezing session: the old record is stale
    (_state(tmp_path) / layout.ACTIVE).write_text('{"session_id": "breezing-2"}')
    assert fast.load_phase(tmp_path) == v and fast.effective_phase(tmp_path) is None
    # breezing-active.json gone (Phase C / abort): no phase
    os.unlink(_state(tmp_path) / layout.ACTIVE)
    assert fast.effective_phase(tmp_path) is None
    assert fast.clear_phase(tmp_path) and fast.load_phase(tmp_path) is None
    with pytest.raises(ValueError):
        fast.set_phase(tmp_path, "D")
    assert fast.load_phase(tmp_path) is None


def test_effective_phase_with_unreadable_active_raises(tmp_path):
    fast.set_phase(tmp_path, "B", "breezing-1")
    (_state(tmp_path) / layout.ACTIVE).write_text('{"session_id": ')
    with pytest.raises(StateCorrupt):
        fast.effective_phase(tmp_path)


def test_corrupt_phase(tmp_path):
    p = _state(tmp_path) / layout.PHASE
    p.write_text('{"phase": "B", "set_at": "2026-01-01T00:00:00Z", "sticky": true}')
    with pytest.raises(StateInvalid, match="sticky"):
        fast.load_phase(tmp_path)


# --------------------------------------------------------------------------------------------
# fast == models (differential, hypothesis)
# --------------------------------------------------------------------------------------------

json_scalar = st.one_of(st.none(), st.booleans(), st.integers(-3, 3),
                        st.floats(allow_nan=False, allow_infinity=False, width=16),
                        st.sampled_from(["", "lead", "implementer", "reviewer", "Lead", "admin",
                                         "A", "B", "C", "D", "codex", "standard", "src/**",
                                         "2026-02-06T03:00:00Z", "2026-02-06", "yesterday",
                                         "x" * 257, "y" * 1025, "日本"]))
json_value = st.recursive(json_scalar, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(["role", "x"]), inner,
                                                 max_size=2)), max_leaves=6)
globs = st.lists(st.one_of(st.sampled_from(["src/**", "", "y" * 1025, "a"]), json_scalar),
                 max_size=3)


def _obj(fields: dict):
    return st.fixed_dictionaries({}, optional=fields)


entry = st.one_of(_obj({
    "role": st.one_of(st.sampled_from(["lead", "implementer", "reviewer"]), json_scalar),
    "owns": st.one_of(globs, json_value),
    "agent_type": json_scalar,
    "registered_at": json_scalar,
    "marker": json_scalar,
    "extra": json_value,
}), json_value)


def _accepts(fn):
    try:
        return True, fn()
    except (ValidationError, ValueError):
        return False, None


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(st.sampled_from(["", "agent-1", "s" * 257, "sess"]), entry, max_size=3))
def test_roles_fast_agrees_with_model(data):
    ok_m, mod = _accepts(lambda: models.SessionRoles.model_validate(data))
    ok_f, fst = _accepts(lambda: fast.check_session_roles(data))
    assert ok_m == ok_f, (data, ok_m, ok_f)
    if ok_m:
        assert mod.root.keys() == fst.keys()
        for k, e in mod.root.items():
            assert fst[k] == fast.RoleView(e.role, tuple(e.owns), e.agent_type, e.registered_at,
                                          e.marker)


@settings(max_examples=300, deadline=None)
@given(_obj({"role": st.one_of(st.sampled_from(["lead", "implementer", "reviewer"]), json_scalar),
             "owns": st.one_of(globs, json_value), "agent_type": json_scalar}))
def test_marker_fast_agrees_with_model(data):
    ok_m, mod = _accepts(lambda: models.RoleMarker.model_validate(data))
    ok_f, fst = _accepts(lambda: fast.check_role_marker(data))
    assert ok_m == ok_f, data
    if ok_m:
        assert fst == fast.RoleView(mod.role, tuple(mod.owns))


@settings(max_examples=300, deadline=None)
@given(st.one_of(
    st.fixed_dictionaries({"phase": st.sampled_from(["A", "B", "C"]),
                           "set_at": st.sampled_from(["2026-02-06T03:00:00Z", "2026-02-06",
                                                      "2026-02-06T03:00:00+09:00"])},
                          optional={"session_id": st.one_of(st.just("breezing-1"), json_scalar),
                                    "extra": json_scalar}),
    _obj({"phase": st.one_of(st.sampled_from(["A", "B", "C"]), json_scalar),
          "session_id": st.one_of(st.just("breezing-1"), json_scalar),
          "set_at": st.one_of(st.just("2026-02-06T03:00:00Z"), json_scalar),
          "extra": json_scalar})))
def test_phase_fast_agrees_with_model(data):
    ok_m, mod = _accepts(lambda: models.BreezingPhase.model_validate(data))
    ok_f, fst = _accepts(lambda: fast.check_phase(data))
    assert ok_m == ok_f, data
    if ok_m:
        assert fst == (mod.phase, mod.session_id, mod.set_at)


@settings(max_examples=300, deadline=None)
@given(st.one_of(_obj({"session_id": json_scalar, "impl_mode": json_scalar,
                       "status": json_scalar, "tasks": json_value,
                       "plans_md_mapping": json_value, "review": json_value}), json_value))
def test_active_view_agrees_with_model_when_model_accepts(data):
    ok_m, mod = _accepts(lambda: models.BreezingActive.model_validate(data))
    ok_f, fst = _accepts(lambda: fast.check_active_view(data))
    if ok_m:
        assert ok_f and fst[:2] == (mod.session_id, mod.impl_mode), data
    if not ok_f:
        assert not ok_m


def test_store_roundtrip_of_fast_writes_validates_with_models(tmp_path):
    fast.update_session_roles(tmp_path, lambda r: r.update(
        a=fast.role_entry("reviewer"), b=fast.role_entry("implementer", ["x/**"], "task-worker")))
    raw = store.read_json(layout.layout(tmp_path).session_roles)
    assert set(models.SessionRoles.model_validate(raw).root) == {"a", "b"}
