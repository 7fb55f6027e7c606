"""gateway.orchestration.team: seed 001's implementer-count table and progressive batching."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.orchestration import team
from gateway.state.models import BreezingActive


# seed 001 「計算例」: (独立タスク数, --parallel, planner_max_parallel) → Implementer 数
@pytest.mark.parametrize("independent,parallel,planner,expected", [
    (5, None, None, 3),      # min(5, 3) = 3
    (5, 2, None, 2),         # min(5, 2, 3) = 2
    (8, 5, 4, 4),            # min(8, 5, 4) = 4
    (1, 5, None, 1),         # max(1, min(1, 5, 3)) = 1
    (20, 10, None, 5),       # max(1, min(20, 10, 5)) = 5
])
def test_seed_implementer_count_table(independent, parallel, planner, expected):
    assert team.implementer_count(independent, parallel, planner) == expected


@pytest.mark.parametrize("independent,parallel,planner,expected", [
    (0, None, None, 1),      # max(1, ...): never starve
    (0, 4, 4, 1),
    (9, None, 4, 4),         # planner given alone: no default cap 3
    (9, 4, None, 4),         # --parallel given alone: no default cap 3
    (9, 9, 9, 5),            # the hard cap
    (2, None, None, 2),
])
def test_implementer_count_bounds(independent, parallel, planner, expected):
    assert team.implementer_count(independent, parallel, planner) == expected


@pytest.mark.parametrize("bad", [{"parallel": 0}, {"parallel": True}, {"parallel": "3"},
                                 {"planner_max_parallel": -1}, {"independent": -1},
                                 {"independent": 2.5}])
def test_implementer_count_refuses_nonsense(bad):
    args = {"independent": 3, **bad}
    with pytest.raises(ValueError):
        team.implementer_count(**args)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 50), st.none() | st.integers(1, 20), st.none() | st.integers(1, 20))
def test_implementer_count_is_the_formula(independent, parallel, planner):
    n = team.implementer_count(independent, parallel, planner)
    bounds = [independent, 5] + [b for b in (parallel, planner) if b is not None]
    if parallel is None and planner is None:
        bounds.append(3)
    assert n == max(1, min(bounds))
    assert 1 <= n <= 5


# --- progressive batching ----------------------------------------------------------------


def test_eight_tasks_are_one_batch():
    deps = {str(i): [] for i in range(1, 9)}
    assert team.plan_batches(deps) == [[str(i) for i in range(1, 9)]]
    assert team.batching_state(team.plan_batches(deps)) is None


def test_fifteen_independent_tasks_make_two_batches():
    deps = {str(i): [] for i in range(1, 16)}
    assert team.plan_batches(deps) == [[str(i) for i in range(1, 9)],
                                       [str(i) for i in range(9, 16)]]


def test_next_batch_takes_the_dependants_of_the_previous_one_first():
    # 12 tasks: 1-10 independent, 11 depends on 1, 12 on 11.
    deps = {str(i): [] for i in range(1, 11)}
    deps["11"] = ["1"]
    deps["12"] = ["11"]
    assert team.plan_batches(deps) == [[str(i) for i in range(1, 9)],
                                       ["11", "9", "10"], ["12"]]


def test_batching_state_is_a_valid_breezing_active_batching():
    deps = {f"4.{i}": [] for i in range(1, 11)}
    b = team.plan_batches(deps)
    state = team.batching_state(b, registered={"4.1": "task-1", "4.2": "task-2"})
    assert state["enabled"] is True and state["total_tasks"] == 10
    assert state["current_batch"] == 1
    assert [x["status"] for x in state["batches"]] == ["in_progress", "pending"]
    assert state["batches"][0]["task_ids"] == ["task-1", "task-2"]
    assert state["batches"][1] == {"batch": 2, "task_ids": [], "status": "pending",
                                   "sections": ["4.9", "4.10"]}
    active = BreezingActive.model_validate({"session_id": "s", "batching": state})
    assert active.in_progress_batch().batch == 1
    assert active.signal_scope() == ["task-1", "task-2"]


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 40), st.data())
def test_batches_respect_dependencies_and_size(n, data):
    ids = [str(i) for i in range(1, n + 1)]
    deps = {t: data.draw(st.lists(st.sampled_from(ids[:i]), max_size=3, unique=True))
            if i else [] for i, t in enumerate(ids)}
    batches = team.plan_batches(deps)
    flat = [t for b in batches for t in b]
    assert sorted(flat, key=int) == ids                       # every task exactly once
    if n <= 8:
        assert len(batches) <= 1
        return
    where = {t: i for i, b in enumerate(batches) for t in b}
    for t, ds in deps.items():
        for d in ds:
            assert where[d] < where[t]                        # dependencies in earlier batches
    assert all(1 <= len(b) <= 8 for b in batches)


# signal thresholds per scope size: (partial review at, next batch at); seed 001: 50 %, but
# never for 1-2 tasks; 60 % rounded up.
@pytest.mark.parametrize("total,expected", [
    (1, (0, 1)), (2, (0, 2)), (3, (2, 2)), (4, (2, 3)), (5, (3, 3)), (8, (4, 5)),
    (10, (5, 6)), (15, (8, 9)),
])
def test_signal_thresholds(total, expected):
    assert team.batch_progress(total) == expected
