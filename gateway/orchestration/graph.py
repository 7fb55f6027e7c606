"""Task dependency graphs: waves, cycles, cascade skip (seed 004 フェーズ2, SPEC §6).

A graph is given as an ordered mapping ``{task id: [ids it depends on]}`` (plan order is the
mapping's order). Everything here is pure and stdlib only.

* ``waves(deps)`` -- Wave 1 holds the tasks without dependencies; a task is in wave
  ``1 + max(wave of its dependencies)``, i.e. the first wave after every task it depends on
  (seed 004 手順 2a-2c). Within a wave, tasks keep plan order.
* A dependency on a task that is not in the graph, and a cycle (a task depending on itself
  included), raise ``GraphError`` naming the task(s): ``dependency cycle: 2 -> 3 -> 2``.
* ``cascade_skip(deps, failed)`` -- every transitive dependant of a failed task is skipped,
  with the failed task it waits for (seed 004 手順 4g: ``dependency task_M failed``). A task
  that itself failed is not "skipped".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

__all__ = ["GraphError", "validate", "waves", "wave_of", "dependants", "independent",
           "cascade_skip", "transitive_dependants"]


class GraphError(ValueError):
    """The graph cannot be ordered. ``kind`` is ``"missing"`` or ``"cycle"``; ``tasks`` names
    the tasks involved (for a cycle: the cycle in order, first task repeated at the end)."""

    def __init__(self, kind: str, tasks: list[str], message: str):
        self.kind = kind
        self.tasks = tasks
        super().__init__(message)


def _norm(deps: Mapping[str, Iterable[str]]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for task, ds in deps.items():
        seen: list[str] = []
        for d in ds:
            if d not in seen:
                seen.append(d)
        out[task] = seen
    return out


def validate(deps: Mapping[str, Iterable[str]]) -> dict[str, list[str]]:
    """The graph with duplicate edges removed, or ``GraphError`` for a missing dependency
    (the first in plan order) or a cycle (the first found from plan order)."""
    graph = _norm(deps)
    for task, ds in graph.items():
        for d in ds:
            if d not in graph:
                raise GraphError("missing", [task, d],
                                 f"task {task} depends on {d}, which is not a task of the plan")
    cycle = _find_cycle(graph)
    if cycle:
        raise GraphError("cycle", cycle, "dependency cycle: " + " -> ".join(cycle))
    return graph


def _find_cycle(graph: dict[str, list[str]]) -> list[str] | None:
    WHITE, GREY, BLACK = 0, 1, 2
    colour = dict.fromkeys(graph, WHITE)
    for root in graph:
        if colour[root] != WHITE:
            continue
        path = [root]
        colour[root] = GREY
        stack = [iter(graph[root])]
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                stack.pop()
                colour[path.pop()] = BLACK
                continue
            if colour[nxt] == GREY:
                return path[path.index(nxt):] + [nxt]
            if colour[nxt] == WHITE:
                colour[nxt] = GREY
                path.append(nxt)
                stack.append(iter(graph[nxt]))
    return None


def wave_of(deps: Mapping[str, Iterable[str]]) -> dict[str, int]:
    """``{task: wave number}`` (1-based). Raises ``GraphError``."""
    graph = validate(deps)
    level: dict[str, int] = {}
    for root in graph:
        stack = [root]
        while stack:
            t = stack[-1]
            if t in level:
                stack.pop()
                continue
            pending = [d for d in graph[t] if d not in level]
            if pending:
                stack.extend(pending)
                continue
            level[t] = 1 + max((level[d] for d in graph[t]), default=0)
            stack.pop()
    return {t: level[t] for t in graph}


def waves(deps: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The waves, first to last, each in plan order. Raises ``GraphError``."""
    level = wave_of(deps)
    out: list[list[str]] = [[] for _ in range(max(level.values(), default=0))]
    for t, n in level.items():
        out[n - 1].append(t)
    return out


def dependants(deps: Mapping[str, Iterable[str]]) -> dict[str, list[str]]:
    """``{task: [tasks that depend on it directly]}``, in plan order."""
    graph = _norm(deps)
    out: dict[str, list[str]] = {t: [] for t in graph}
    for t, ds in graph.items():
        for d in ds:
            if d in out and t not in out[d]:
                out[d].append(t)
    return out


def independent(deps: Mapping[str, Iterable[str]]) -> list[str]:
    """Tasks with no dependency (Wave 1; seed 001's 独立タスク), in plan order."""
    return [t for t, ds in deps.items() if not list(ds)]


def transitive_dependants(deps: Mapping[str, Iterable[str]], roots: Iterable[str]) -> set[str]:
    """Every task that depends, directly or not, on one of ``roots`` (roots excluded unless
    they depend on another root)."""
    rev = dependants(deps)
    seen: set[str] = set()
    todo = [d for r in roots for d in rev.get(r, ())]
    while todo:
        t = todo.pop()
        if t in seen:
            continue
        seen.add(t)
        todo.extend(rev.get(t, ()))
    return seen


def cascade_skip(deps: Mapping[str, Iterable[str]], failed: Iterable[str]) -> dict[str, str]:
    """``{skipped task: the failed task it waits for}`` for every transitive dependant of a
    failed task that did not fail itself. When a task waits for several failed tasks, the
    one first in plan order is named. Order: plan order."""
    graph = _norm(deps)
    failed_set = set(failed)
    rev = dependants(graph)
    reason: dict[str, str] = {}
    for f in graph:                         # plan order decides which failure is named
        if f not in failed_set:
            continue
        todo = list(rev.get(f, ()))
        while todo:
            t = todo.pop(0)
            if t in failed_set or t in reason:
                continue
            reason[t] = f
            todo.extend(rev.get(t, ()))
    return {t: reason[t] for t in graph if t in reason}
