"""Team sizing and progressive batching (seed 001 Implementer 数の自動決定; plans-to-tasklist's
Progressive Batch 戦略, which seed 000 persists as ``batching`` in breezing-active.json).

Implementer count
-----------------
``max(1, min(independent tasks, --parallel N, planner_max_parallel, 5))``; a bound that was not
given is ignored, and when neither ``--parallel`` nor ``planner_max_parallel`` is given the
default cap 3 applies. (The seed's table of examples writes the cap 3 into two rows that also
give ``--parallel``; the results of all five rows are those of this rule, see the tests.)

Progressive batching
--------------------
More than 8 tasks: batches of at most 8. Batch 1 is the independent frontier; each next batch
first takes the tasks that depended on the previous batch, then the other tasks whose
dependencies are all in earlier batches (plan order within each group). 9-20 tasks usually
make 2-3 batches; above 20 the user is advised to split the run. The next batch is
registered when 60 % of the current one is done (``next_batch_recommended``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from . import graph as _graph

__all__ = ["HARD_CAP", "DEFAULT_CAP", "BATCH_THRESHOLD", "BATCH_MAX", "SPLIT_ADVICE_ABOVE",
           "implementer_count", "plan_batches", "batching_state",
           "batch_progress"]

HARD_CAP = 5            # min(..., 5): never more implementers than this
DEFAULT_CAP = 3         # when neither --parallel nor planner_max_parallel is given
BATCH_THRESHOLD = 8     # more tasks than this → progressive batching
BATCH_MAX = 8           # tasks per batch
SPLIT_ADVICE_ABOVE = 20  # more tasks than this → advise splitting the run


def _positive(name: str, v) -> int | None:
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise ValueError(f"{name} must be a whole number of at least 1, not {v!r}")
    return v


def implementer_count(independent: int, parallel: int | None = None,
                      planner_max_parallel: int | None = None) -> int:
    """How many implementers to spawn (see the module docstring)."""
    if isinstance(independent, bool) or not isinstance(independent, int) or independent < 0:
        raise ValueError(f"independent task count must be a whole number >= 0, "
                         f"not {independent!r}")
    bounds = [independent, HARD_CAP]
    p = _positive("--parallel", parallel)
    q = _positive("planner_max_parallel", planner_max_parallel)
    if p is None and q is None:
        bounds.append(DEFAULT_CAP)
    bounds += [b for b in (p, q) if b is not None]
    return max(1, min(bounds))


def plan_batches(deps: Mapping[str, Iterable[str]], *, size: int = BATCH_MAX,
                 threshold: int = BATCH_THRESHOLD) -> list[list[str]]:
    """The batches for a task graph (plan order). At most ``threshold`` tasks → one batch with
    every task. Raises ``graph.GraphError`` for a missing dependency or a cycle."""
    g = _graph.validate(deps)
    tasks = list(g)
    if len(tasks) <= threshold:
        return [tasks] if tasks else []
    placed: dict[str, int] = {}
    batches: list[list[str]] = []
    while len(placed) < len(tasks):
        prev = set(batches[-1]) if batches else set()
        ready = [t for t in tasks if t not in placed and all(d in placed for d in g[t])]
        first = [t for t in ready if prev and any(d in prev for d in g[t])]
        rest = [t for t in ready if t not in first]
        batch = (first + rest)[:size]
        for t in batch:
            placed[t] = len(batches) + 1
        batches.append(batch)
    return batches


def batching_state(batches: list[list[str]], sections: Mapping[str, str] | None = None,
                   registered: Mapping[str, str] | None = None) -> dict | None:
    """The ``batching`` object of breezing-active.json for ``batches`` of plan tasks (the
    tasks are Plans.md sections or any plan ids). Batch 1 is ``in_progress`` with
    ``task_ids`` = the TaskList ids given in ``registered`` ({plan id: task id}); later
    batches are ``pending`` with no task ids yet and their ``sections`` kept, so a resume can
    register them from Plans.md (seed 000). None when there is at most one batch."""
    if len(batches) <= 1:
        return None
    registered = registered or {}
    out = []
    for i, batch in enumerate(batches, 1):
        entry = {"batch": i, "task_ids": [registered[t] for t in batch if t in registered]
                 if i == 1 else [],
                 "status": "in_progress" if i == 1 else "pending",
                 "sections": [sections.get(t, t) if sections else t for t in batch]}
        out.append(entry)
    return {"enabled": True, "total_tasks": sum(len(b) for b in batches), "current_batch": 1,
            "batches": out}


def batch_progress(total: int) -> tuple[int, int]:
    """The completed counts at which the two signals fire for a scope of ``total`` tasks:
    ``(partial review threshold, next batch threshold)``. The partial review threshold is 0
    when it never fires (ceil(total/2) <= 1: batches of 1-2 tasks get the full review)."""
    half = (total + 1) // 2
    sixty = (total * 60 + 99) // 100      # ceil(0.6 * total) in integers (10 * 0.6 > 6.0)
    return (half if half > 1 else 0), sixty
