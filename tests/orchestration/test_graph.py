"""gateway.orchestration.graph: the waves of seed 004 (手順 2a-2c), cycles and missing tasks
named, cascade skip (手順 4g) -- worked examples and hypothesis properties."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.orchestration import graph
from gateway.orchestration.graph import GraphError


def test_seed_wave_grouping():
    # Depends On "-" → Wave 1; dependants of Wave 1 → Wave 2; then tasks whose dependencies
    # are all placed → the next wave.
    deps = {"1": [], "2": [], "3": ["1"], "4": ["1", "2"], "5": ["3", "4"], "6": []}
    assert graph.waves(deps) == [["1", "2", "6"], ["3", "4"], ["5"]]
    assert graph.wave_of(deps) == {"1": 1, "2": 1, "3": 2, "4": 2, "5": 3, "6": 1}
    assert graph.independent(deps) == ["1", "2", "6"]


def test_a_task_waits_for_its_slowest_dependency():
    deps = {"a": [], "b": ["a"], "c": ["b"], "d": ["a", "c"]}
    assert graph.waves(deps) == [["a"], ["b"], ["c"], ["d"]]


def test_empty_graph_has_no_waves():
    assert graph.waves({}) == []


def test_missing_dependency_names_both_tasks():
    with pytest.raises(GraphError) as e:
        graph.waves({"1": [], "2": ["7"]})
    assert e.value.kind == "missing" and e.value.tasks == ["2", "7"]
    assert str(e.value) == "task 2 depends on 7, which is not a task of the plan"


def test_cycle_is_named_in_order():
    with pytest.raises(GraphError) as e:
        graph.waves({"1": [], "2": ["3"], "3": ["4"], "4": ["2"]})
    assert e.value.kind == "cycle"
    assert str(e.value) == "dependency cycle: 2 -> 3 -> 4 -> 2"


def test_self_dependency_is_a_cycle():
    with pytest.raises(GraphError, match=r"^dependency cycle: 5 -> 5$"):
        graph.waves({"5": ["5"]})


def test_duplicate_edges_are_one_edge():
    assert graph.validate({"1": [], "2": ["1", "1"]}) == {"1": [], "2": ["1"]}


def test_cascade_skip_names_the_failed_task():
    # seed 004 4g: Wave N tasks depending on a failed Wave N-1 task are skipped with
    # error "dependency task_M failed"; transitively too.
    deps = {"1": [], "2": [], "3": ["1"], "4": ["3"], "5": ["2"], "6": ["1", "2"]}
    assert graph.cascade_skip(deps, ["1"]) == {"3": "1", "4": "1", "6": "1"}
    # two failures: the one first in plan order is named
    assert graph.cascade_skip(deps, ["2", "1"]) == {"3": "1", "4": "1", "5": "2", "6": "1"}
    assert graph.cascade_skip(deps, []) == {}


def test_a_failed_task_is_not_also_skipped():
    deps = {"1": [], "2": ["1"], "3": ["2"]}
    assert graph.cascade_skip(deps, ["1", "2"]) == {"3": "2"}


# --- properties --------------------------------------------------------------------------


@st.composite
def dags(draw, max_size=14):
    n = draw(st.integers(0, max_size))
    ids = [f"t{i}" for i in range(n)]
    deps = {}
    for i, t in enumerate(ids):
        deps[t] = draw(st.lists(st.sampled_from(ids[:i]), max_size=4)) if i else []
    order = draw(st.permutations(ids))        # plan order need not be topological
    return {t: deps[t] for t in order}


def _reachable_dependants(deps, roots):
    out = set()
    changed = True
    while changed:
        changed = False
        for t, ds in deps.items():
            if t not in out and any(d in roots or d in out for d in ds):
                out.add(t)
                changed = True
    return out


@settings(max_examples=300, deadline=None)
@given(dags())
def test_waves_respect_every_dependency_and_are_minimal(deps):
    ws = graph.waves(deps)
    level = {t: i for i, w in enumerate(ws, 1) for t in w}
    assert sorted(level) == sorted(deps)                      # every task exactly once
    assert sum(len(w) for w in ws) == len(deps)
    for t, ds in deps.items():
        for d in ds:
            assert level[d] < level[t]                        # after every dependency
        assert level[t] == 1 + max((level[d] for d in ds), default=0)   # as early as possible
    order = list(deps)
    for w in ws:                                              # plan order inside a wave
        assert w == sorted(w, key=order.index)
        assert w                                              # no empty wave


@settings(max_examples=300, deadline=None)
@given(dags(), st.data())
def test_cascade_skip_is_exactly_the_transitive_dependants(deps, data):
    failed = data.draw(st.lists(st.sampled_from(list(deps)), max_size=3, unique=True)) \
        if deps else []
    skipped = graph.cascade_skip(deps, failed)
    assert set(skipped) == _reachable_dependants(deps, set(failed)) - set(failed)
    for t, f in skipped.items():
        assert f in failed
        assert t in _reachable_dependants(deps, {f})          # it really waits for f
    assert graph.transitive_dependants(deps, failed) - set(failed) == set(skipped)


@settings(max_examples=200, deadline=None)
@given(dags(max_size=10), st.data())
def test_adding_a_back_edge_is_a_cycle_that_really_exists(deps, data):
    edges = [(t, d) for t, ds in deps.items() for d in ds]
    if not edges:
        return
    t, d = data.draw(st.sampled_from(edges))
    bad = {k: list(v) for k, v in deps.items()}
    bad[d] = bad[d] + [t]                                     # d → t closes t → d
    with pytest.raises(GraphError) as e:
        graph.waves(bad)
    cyc = e.value.tasks
    assert e.value.kind == "cycle" and cyc[0] == cyc[-1]
    for a, b in zip(cyc, cyc[1:], strict=False):
        assert b in bad[a]                                    # every step is a real edge
