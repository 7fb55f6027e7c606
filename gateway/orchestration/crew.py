"""The parent session's bookkeeping of seed 004 (claude-crew): the plan's task table, the waves,
``execution_log.yaml`` checkpoints and the wave progress messages with their ETA.

Plan table (``work/cmd_NNN/plan.md``, the decomposer's format)::

    | # | Task | Persona | Model | Depends On | Output |
    |---|------|---------|-------|------------|--------|
    | 1 | ...  | worker_coder (keyword) | sonnet | - | `results/result_1.md` |
    | 2 | ...  | worker_researcher      | haiku  | 1 | `results/result_2.md` |

Checkpoint resume (チェックポイント再開): a task is done when its latest log entry is
``success`` *and* its ``results/result_N.md`` exists, ``running`` with the result file there
(the run finished, the log did not catch up), ``partial`` (the retry limit was reached and the
run moved on) or ``skipped`` -- unless a task it depends on runs again, then it runs again
too; ``running`` without a result, ``pending``, ``failure``, ``timeout``, ``retrying`` and no
entry at all are not. Execution resumes at the first wave
with a task that is not done; no log at all means from the start.

ETA (Wave 進捗メッセージの ETA 計算): with 10 or more past execution logs, a persona's time is
its average ``duration_sec`` over their successful tasks; otherwise (and for a persona without
data) the fallback (researcher 60 s, writer 90 s, coder 120 s, reviewer 45 s). The wave's
estimate is the sum over its tasks divided by ``max_parallel``, shown as ``~1 min`` below 90 s,
``~2 min`` from 90 to 150 s, else ``~N min`` rounded to the nearest minute; no estimate when a
task's persona has neither data nor a fallback; ``(background)`` instead for background work.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping

from gateway.state import store

from . import graph

__all__ = ["CrewError", "PlanTask", "parse_plan", "load_plan", "LOG_STATUSES", "load_log",
           "parse_log", "Checkpoint", "checkpoint", "FALLBACK_SECONDS", "MIN_LOGS_FOR_STATS",
           "persona_stats", "wave_eta_seconds", "format_eta", "wave_start_message",
           "wave_done_message", "phase_done_message", "persona_of"]

LOG_STATUSES = ("pending", "running", "retrying", "success", "partial", "failure", "timeout",
                "skipped")
DONE_STATUSES = ("success", "partial", "skipped")
FAILED_STATUSES = ("failure", "partial")      # their dependants are skipped (手順 4g)
FALLBACK_SECONDS = {"researcher": 60, "writer": 90, "coder": 120, "reviewer": 45}
MIN_LOGS_FOR_STATS = 10
MAX_LOG_BYTES = 1 << 20
MAX_PLAN_BYTES = 1 << 20

_CELL_NUM = re.compile(r"(?:task_)?(\d{1,6})")


class CrewError(Exception):
    """A plan or log cannot be used; the message names the file and the problem."""


class PlanTask:
    __slots__ = ("id", "title", "persona", "model", "depends", "output")

    def __init__(self, id, title, persona, model, depends, output):  # noqa: A002
        self.id, self.title, self.persona, self.model = id, title, persona, model
        self.depends, self.output = list(depends), output

    def as_dict(self) -> dict:
        return {"id": self.id, "title": self.title, "persona": self.persona,
                "model": self.model, "depends": self.depends, "output": self.output}

    def __repr__(self) -> str:
        return f"PlanTask({self.id!r}, persona={self.persona!r}, depends={self.depends})"


def persona_of(role: str | None) -> str | None:
    """``worker_coder (keyword)`` / ``worker_coder`` → ``coder``; None if not a worker."""
    if not isinstance(role, str):
        return None
    m = re.match(r"\s*`?worker_([a-z][a-z0-9_-]*)", role)
    return m.group(1) if m else None


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def parse_plan(text: str, source: str = "plan.md") -> list[PlanTask]:
    """The task table of a plan. Raises ``CrewError`` (no table, a bad row, a dependency on
    a missing task, a cycle)."""
    lines = text.split("\n")
    header = None
    tasks: list[PlanTask] = []
    for i, line in enumerate(lines, 1):
        if not line.lstrip().startswith("|"):
            if tasks:
                break                       # the task table ended
            header = None                   # some other table ended
            continue
        cells = _cells(line)
        low = [c.lower().strip("* ") for c in cells]
        if header is None:
            if "#" in low and "depends on" in low:
                header = {name: low.index(name) for name in low}
            continue
        if all(set(c) <= set("-: ") for c in cells):
            continue

        def col(name, default="", cells=cells, header=header):
            j = header.get(name)
            return cells[j] if j is not None and j < len(cells) else default

        num = _CELL_NUM.fullmatch(col("#").strip("`* "))
        if num is None:
            raise CrewError(f"{source}:{i}: the task number {col('#')!r} is not a number")
        dep_text = col("depends on").strip("` ")
        depends = []
        if dep_text not in ("", "-", "—", "–", "なし", "none"):
            for part in re.split(r"[,\s、]+", dep_text):
                if not part:
                    continue
                m = _CELL_NUM.fullmatch(part.strip("`#"))
                if m is None:
                    raise CrewError(f"{source}:{i}: Depends On {dep_text!r} is not a list of "
                                    f"task numbers")
                depends.append(str(int(m.group(1))))
        tasks.append(PlanTask(str(int(num.group(1))), col("task"),
                              persona_of(col("persona")), col("model").strip("` ") or None,
                              depends, col("output").strip("` ") or None))
    if not tasks:
        raise CrewError(f"{source}: no task table (a table with the columns '#' and "
                        f"'Depends On')")
    seen = set()
    for t in tasks:
        if t.id in seen:
            raise CrewError(f"{source}: task {t.id} appears twice")
        seen.add(t.id)
    try:
        graph.validate({t.id: t.depends for t in tasks})
    except graph.GraphError as e:
        raise CrewError(f"{source}: {e}") from None
    return tasks


def load_plan(path) -> list[PlanTask]:
    path = os.fspath(path)
    try:
        data = store.read_bytes(path, MAX_PLAN_BYTES)
    except store.StateError as e:
        raise CrewError(f"{path}: {e.problem}") from None
    try:
        return parse_plan(data.decode("utf-8"), path)
    except UnicodeDecodeError:
        raise CrewError(f"{path}: not UTF-8 text") from None


def waves(tasks: list[PlanTask]) -> list[list[str]]:
    return graph.waves({t.id: t.depends for t in tasks})


# --------------------------------------------------------------------------------------------
# execution_log.yaml
# --------------------------------------------------------------------------------------------

def parse_log(data: bytes | str, source: str = "execution_log.yaml") -> dict:
    """The log as a dict with a ``tasks`` list, validated: every entry's ``status`` is one of
    LOG_STATUSES and ``task`` is ``task_N`` or null. Raises ``CrewError``."""
    import yaml

    try:
        doc = yaml.safe_load(data)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise CrewError(f"{source}: not valid YAML{where}") from None
    if not isinstance(doc, dict):
        raise CrewError(f"{source}: must be a mapping with a 'tasks' list")
    entries = doc.get("tasks") or []
    if not isinstance(entries, list):
        raise CrewError(f"{source}: 'tasks' must be a list")
    for k, e in enumerate(entries):
        if not isinstance(e, dict):
            raise CrewError(f"{source}: tasks[{k}] must be a mapping")
        if e.get("status") not in LOG_STATUSES:
            raise CrewError(f"{source}: tasks[{k}].status {store.safe_text(e.get('status'))!r}"
                            f" is not one of {', '.join(LOG_STATUSES)}")
        t = e.get("task")
        if t is not None and not (isinstance(t, str) and re.fullmatch(r"task_\d{1,6}", t)):
            raise CrewError(f"{source}: tasks[{k}].task {store.safe_text(t)!r} is not task_N")
    return doc


def load_log(path) -> dict | None:
    """The parsed log, or None when it does not exist."""
    path = os.fspath(path)
    try:
        data = store.read_bytes(path, MAX_LOG_BYTES)
    except store.StateMissing:
        return None
    except store.StateError as e:
        raise CrewError(f"{path}: {e.problem}") from None
    return parse_log(data, path)


def _latest(log: dict | None) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for e in (log or {}).get("tasks") or []:
        t = e.get("task")
        if isinstance(t, str):
            out[str(int(t[5:]))] = e          # later entries win (retries rewrite in place)
    return out


class Checkpoint:
    """``resume_wave`` (1-based; None = nothing is left to run), ``waves``, ``done``/``run``
    task ids (plan order), ``why`` {task: reason}, ``final`` {task: status} (failed at the
    retry limit: failure, or partial for a timeout) and ``cascaded`` {task: "dependency
    task_M failed"} (skipped because a task it depends on failed for good)."""

    __slots__ = ("resume_wave", "waves", "done", "run", "why", "final", "cascaded")

    def __init__(self, resume_wave, waves_, done, run, why, final=None, cascaded=None):
        self.resume_wave, self.waves, self.done, self.run, self.why = (
            resume_wave, waves_, done, run, why)
        self.final = final or {}
        self.cascaded = cascaded or {}

    def as_dict(self) -> dict:
        return {"resume_wave": self.resume_wave, "waves": self.waves, "done": self.done,
                "run": self.run, "why": self.why, "final": self.final,
                "cascaded": self.cascaded}


def _retries(e) -> int:
    r = (e or {}).get("retries")
    return r if isinstance(r, int) and not isinstance(r, bool) and r >= 0 else 0


def checkpoint(tasks: list[PlanTask], log: dict | None, results_dir,
               max_retries: int | None = None) -> Checkpoint:
    """Where to resume (see the module docstring). With ``max_retries`` (config.yaml), a
    task whose latest entry is failure or timeout after that many retries is final (手順 4e-f,
    6c: failure, a timeout partial) and is not run again; the tasks that depend on it are
    skipped with ``dependency task_M failed`` (手順 4g), transitively, and not run either."""
    ws = waves(tasks)
    order = [t.id for t in tasks]
    if log is None:
        return Checkpoint(1 if order else None, ws, [], order,
                          dict.fromkeys(order, "no execution_log.yaml: run from the start"))
    latest = _latest(log)
    done, why, final = set(), {}, {}
    for tid in order:
        e = latest.get(tid)
        result = os.path.join(os.fspath(results_dir), f"result_{tid}.md")
        has_result = os.path.isfile(result) and not os.path.islink(result)
        st = e.get("status") if e else None
        if st is None:
            why[tid] = "not started"
        elif st == "success" and not has_result:
            why[tid] = f"success in the log but results/result_{tid}.md is missing"
        elif st == "running":
            if has_result:
                done.add(tid)
                why[tid] = "was running and its result file exists: done"
            else:
                why[tid] = "was running and has no result file: run again"
        elif st in DONE_STATUSES:
            done.add(tid)
            why[tid] = st
        elif st in ("failure", "timeout") and max_retries is not None and \
                _retries(e) >= max_retries:
            final[tid] = "failure" if st == "failure" else "partial"
            why[tid] = (f"{st} at the retry limit ({_retries(e)} of max_retries "
                        f"{max_retries}): recorded as {final[tid]}, not run again")
        else:
            why[tid] = st
    # a task skipped because a dependency failed runs again when that dependency does
    deps = {t.id: t.depends for t in tasks}
    again = graph.transitive_dependants(deps, [t for t in order if t not in done])
    for tid in order:
        if tid in done and tid in again and (latest.get(tid) or {}).get("status") == "skipped":
            done.discard(tid)
            why[tid] = "skipped, and a task it depends on runs again: run again"
    deps = {t.id: t.depends for t in tasks}
    gone = [t for t in order if t in final or (t in done and (latest.get(t) or {}).get(
        "status") in FAILED_STATUSES)]
    cascaded = {t: f"dependency task_{f} failed"
                for t, f in graph.cascade_skip(deps, gone).items() if t not in final}
    for t, reason in cascaded.items():
        if (latest.get(t) or {}).get("status") in ("success",) and t in done:
            continue        # it ran and succeeded before the failure: keep it
        done.discard(t)
        why[t] = f"skipped: {reason}"
    settled = done | set(final) | set(cascaded)
    resume = next((i for i, w in enumerate(ws, 1) if any(t not in settled for t in w)), None)
    run = [t for t in order if t not in settled]
    return Checkpoint(resume, ws, [t for t in order if t in done], run, why, final,
                      {t: r for t, r in cascaded.items() if t not in done})


# --------------------------------------------------------------------------------------------
# ETA and progress messages
# --------------------------------------------------------------------------------------------

def persona_stats(logs: Iterable[dict]) -> tuple[dict[str, float], int]:
    """``({persona: average seconds}, number of logs)`` over past execution logs' successful
    worker tasks with a ``duration_sec``."""
    sums: dict[str, list[float]] = {}
    n = 0
    for log in logs:
        n += 1
        for e in (log or {}).get("tasks") or []:
            p = persona_of(e.get("role"))
            d = e.get("duration_sec")
            if p and e.get("status") == "success" and isinstance(d, (int, float)) \
                    and not isinstance(d, bool) and d >= 0:
                sums.setdefault(p, []).append(float(d))
    return {p: sum(v) / len(v) for p, v in sums.items()}, n


def wave_eta_seconds(personas: Iterable[str | None], stats: Mapping[str, float] | None = None,
                     n_logs: int = 0, max_parallel: int = 1) -> float | None:
    """The wave's estimate in seconds, or None when it cannot be computed."""
    if isinstance(max_parallel, bool) or not isinstance(max_parallel, int) or max_parallel < 1:
        raise ValueError("max_parallel must be a whole number >= 1")
    use_stats = stats if stats and n_logs >= MIN_LOGS_FOR_STATS else {}
    total = 0.0
    personas = list(personas)
    if not personas:
        return None
    for p in personas:
        if p in use_stats:
            total += use_stats[p]
        elif p in FALLBACK_SECONDS:
            total += FALLBACK_SECONDS[p]
        else:
            return None
    return total / max_parallel


def format_eta(seconds: float) -> str:
    if seconds < 90:
        return "~1 min"
    if seconds <= 150:
        return "~2 min"
    return f"~{int(seconds / 60 + 0.5)} min"


def wave_start_message(wave: int, n_waves: int, n_tasks: int, eta: float | None = None,
                       background: bool = False) -> str:
    noun = "task" if n_tasks == 1 else "tasks"
    tail = " (background)" if background else (f" ({format_eta(eta)} est.)"
                                                if eta is not None else "")
    return f"Wave {wave}/{n_waves}: {n_tasks} {noun} running{tail}"


def wave_done_message(wave: int, n_waves: int, n_success: int, n_tasks: int) -> str:
    from gateway.i18n import text

    return text(f"Wave {wave}/{n_waves} 完了 ({n_success}/{n_tasks} success)",
                f"Wave {wave}/{n_waves} done ({n_success}/{n_tasks} success)")


def phase_done_message(n_success: int, n_tasks: int) -> str:
    from gateway.i18n import text

    return text(f"Phase 2 完了: {n_success}/{n_tasks} タスク success",
                f"Phase 2 done: {n_success}/{n_tasks} tasks success")
