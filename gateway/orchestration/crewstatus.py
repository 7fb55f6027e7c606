"""Where a crew command stands (seed 004 フェーズ2-4): the plan's waves with their ETA, and from
``execution_log.yaml`` the checkpoint, the failures, the failure summary, the duration warning,
the feedback loop and the retrospect mode. Read-only; built on ``gateway.orchestration.crew``.

The seed's rules, as implemented here:

* **waves and ETA**: ``crew.waves`` and ``crew.wave_start_message``; the statistics come from
  every ``work/cmd_*/execution_log.yaml`` (with 10 or more, per-persona averages; else the
  fallback); a wave of ``background_threshold`` tasks or more runs in the background and
  shows ``(background)`` instead of an ETA;
* **Phase 3 (集約)** by the seed's table: 1 task without dependencies 省略可, 2 任意, 3 or more
  必須, any dependency 必須;
* **checkpoint**: ``crew.checkpoint``;
* **progress messages** (手順 5): ``Wave N/M 完了 (s/n success)`` for each wave whose tasks are
  all settled, and ``Phase 2 完了: s/n タスク success`` once Phase 2 is complete (English
  outside a Japanese locale);
* **failure summary** (手順 8) once Phase 2 is complete (every task success, partial, failure
  or skipped) and a task is failure, partial or skipped: the seed's ``⚠️ Phase 2 completed
  with failures:`` block, with the action;
* **duration** (手順 9): ``⚠️ cmd_NNN has exceeded max duration (${elapsed}s > ${max}s)`` when
  ``max_cmd_duration_sec`` is set and the time since ``started`` (to ``finished``, or now) is
  longer -- a warning only;
* **feedback loop**: when partial + failure tasks are 50 % or more, once: re-decompose the
  failed tasks (``plan_retry.md``); if ``plan_retry.md`` exists already, it was used: go on to
  the aggregation and record it in report.md;
* **retrospect** (フェーズ4 モード判定) from report_summary.md's header: skipped when
  ``retrospect.enabled`` is false; **full** when status is failure/partial, quality RED,
  quality YELLOW with completeness below 80, or failed_tasks is not empty; else **light**.

``config.yaml`` (the crew's, at the project root) gives ``max_parallel`` (default 10),
``background_threshold`` (5), ``max_cmd_duration_sec`` (1800) and ``retrospect.enabled``
(true): claude-crew's defaults when the file or the key is absent.
"""

from __future__ import annotations

import os
from datetime import datetime

from gateway.state import store

from . import crew
from .crew import CrewError

__all__ = ["DEFAULTS", "load_config", "phase3_need", "plan_view", "status", "failure_summary",
           "duration_warning", "retrospect_mode", "feedback_loop", "TERMINAL"]

DEFAULTS = {"max_parallel": 10, "max_retries": 2, "background_threshold": 5,
            "max_cmd_duration_sec": 1800, "retrospect_enabled": True}
TERMINAL = ("success", "partial", "failure", "skipped")
FAILED = ("failure", "partial")
TIME_FORMAT = "%Y-%m-%d %H:%M:%S"
MAX_CONFIG_BYTES = 1 << 20


def _int(value, name, lo, hi, default):
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise CrewError(f"config.yaml: {name} must be a whole number from {lo} to {hi}, not "
                        f"{store.safe_text(value, 20)!r}")
    return value


def load_config(root) -> dict:
    """The settings this module uses, from ``config.yaml`` (claude-crew's defaults where it
    is silent). Raises ``CrewError`` for a file that cannot be read or a value out of range."""
    import yaml

    path = os.path.join(os.fspath(root), "config.yaml")
    try:
        data = store.read_bytes(path, MAX_CONFIG_BYTES)
    except store.StateMissing:
        return dict(DEFAULTS, source=None)
    except store.StateError as e:
        raise CrewError(f"{path} {e.problem}") from None
    try:
        doc = yaml.safe_load(data) or {}
    except yaml.YAMLError:
        raise CrewError(f"{path} is not valid YAML") from None
    if not isinstance(doc, dict):
        raise CrewError(f"{path} must be a mapping")
    retro = doc.get("retrospect")
    enabled = retro.get("enabled", True) if isinstance(retro, dict) else True
    if not isinstance(enabled, bool):
        raise CrewError(f"{path}: retrospect.enabled must be true or false")
    dur = doc.get("max_cmd_duration_sec", DEFAULTS["max_cmd_duration_sec"])
    return {
        "max_parallel": _int(doc.get("max_parallel"), "max_parallel", 1, 20,
                             DEFAULTS["max_parallel"]),
        "max_retries": _int(doc.get("max_retries"), "max_retries", 0, 10,
                            DEFAULTS["max_retries"]),
        "background_threshold": _int(doc.get("background_threshold"), "background_threshold",
                                     1, 20, DEFAULTS["background_threshold"]),
        "max_cmd_duration_sec": None if dur is None else _int(
            dur, "max_cmd_duration_sec", 1, 10 ** 9, None),
        "retrospect_enabled": enabled, "source": path,
    }


def phase3_need(n_tasks: int, has_dependencies: bool) -> str:
    """The seed's フェーズ省略の判断基準 for Phase 3 (集約): 必須, 任意 or 省略可."""
    from gateway.i18n import text

    if has_dependencies or n_tasks >= 3:
        return text("必須", "required")
    return text("任意", "optional") if n_tasks == 2 else text("省略可", "may be skipped")


def _past_logs(root: str) -> list[dict]:
    from .crewdirs import list_cmds

    logs = []
    try:
        cmds = list_cmds(root)
    except CrewError:
        return logs
    for _n, name in cmds:
        try:
            log = crew.load_log(os.path.join(root, "work", name, "execution_log.yaml"))
        except CrewError:
            continue
        if log is not None:
            logs.append(log)
    return logs


def plan_view(root, plan_path, *, max_parallel: int | None = None,
              background: bool | None = None) -> dict:
    """The plan's waves with the seed's progress messages. Raises ``CrewError``."""
    root = os.fspath(root)
    config = load_config(root)
    tasks = crew.load_plan(plan_path)
    ws = crew.waves(tasks)
    mp = max_parallel or config["max_parallel"]
    stats, n_logs = crew.persona_stats(_past_logs(root))
    persona = {t.id: t.persona for t in tasks}
    by_id = {t.id: t for t in tasks}
    waves = []
    for i, wave in enumerate(ws, 1):
        bg = background if background is not None else len(wave) >= \
            config["background_threshold"]
        eta = None if bg else crew.wave_eta_seconds([persona[t] for t in wave], stats, n_logs,
                                                    mp)
        waves.append({"wave": i, "tasks": [by_id[t].as_dict() for t in wave],
                      "background": bg, "eta_seconds": eta,
                      "message": crew.wave_start_message(i, len(ws), len(wave), eta, bg)})
    has_deps = any(t.depends for t in tasks)
    return {"plan": os.fspath(plan_path), "tasks": len(tasks), "waves": waves,
            "max_parallel": mp, "past_logs": n_logs,
            "eta_source": "stats" if n_logs >= crew.MIN_LOGS_FOR_STATS and stats else "fallback",
            "phase3": phase3_need(len(tasks), has_deps),
            "config": config.get("source")}


def failure_summary(rows: list[dict], action: str) -> str:
    """The seed's 失敗サマリ: rows of ``{task, persona, status, error}``."""
    lines = ["⚠️ Phase 2 completed with failures:"]
    for r in rows:
        err = " ".join(str(r.get("error") or "no error recorded").split())[:200]
        lines.append(f"- Task {r['task']} ({r.get('persona') or 'unknown'}): {r['status']} — "
                     f"{store.safe_text(err, 200)}")
    lines.append(f"Action: {action}")
    return "\n".join(lines)


def duration_warning(cmd_id: str, elapsed: int, maximum: int) -> str:
    return f"⚠️ {cmd_id} has exceeded max duration ({elapsed}s > {maximum}s)"


def feedback_loop(n_failed: int, n_total: int, retried: bool) -> dict:
    """``{"state": "not_needed" | "due" | "used", "rate": ...}`` (see the module docstring)."""
    rate = n_failed / n_total if n_total else 0.0
    if n_total == 0 or n_failed * 2 < n_total:
        return {"state": "not_needed", "rate": round(rate, 3)}
    return {"state": "used" if retried else "due", "rate": round(rate, 3)}


def _header(path: str) -> dict | None:
    import yaml

    try:
        data = store.read_bytes(path, 1 << 20)
    except store.StateMissing:
        return None
    except store.StateError as e:
        raise CrewError(f"{path} {e.problem}") from None
    lines = data.decode("utf-8", "replace").split("\n")[:20]
    if not lines or lines[0].strip() != "---":
        return {}
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        return {}
    try:
        doc = yaml.safe_load("\n".join(lines[1:end]))
    except yaml.YAMLError:
        return {}
    return doc if isinstance(doc, dict) else {}


def retrospect_mode(enabled: bool, header: dict | None) -> tuple[str, list[str]]:
    """``(mode, reasons)``: ``skip``, ``pending`` (no report_summary.md yet), ``full``,
    ``light``."""
    if not enabled:
        return "skip", ["retrospect.enabled is false"]
    if header is None:
        return "pending", ["no report_summary.md yet (Phase 3 writes it)"]
    why = []
    st, q = header.get("status"), header.get("quality")
    c = header.get("completeness")
    if st in ("failure", "partial"):
        why.append(f"status {st}")
    if q == "RED":
        why.append("quality RED")
    if q == "YELLOW" and isinstance(c, (int, float)) and not isinstance(c, bool) and c < 80:
        why.append(f"quality YELLOW with completeness {c} < 80")
    ft = header.get("failed_tasks")
    if isinstance(ft, list) and ft:
        why.append(f"failed_tasks {ft}")
    return ("full", why) if why else ("light", ["no failure in report_summary.md"])


def _elapsed(log: dict, now: datetime) -> int | None:
    def parse(v):
        if isinstance(v, datetime):
            return v
        if isinstance(v, str):
            try:
                return datetime.strptime(v.strip(), TIME_FORMAT)
            except ValueError:
                return None
        return None
    start = parse(log.get("started"))
    if start is None:
        return None
    end = parse(log.get("finished")) or now
    return int((end - start).total_seconds())


def status(root, cmd_path, *, now: datetime | None = None) -> dict:
    """Everything ``gateway crew status`` says about one command (see the module docstring).
    Raises ``CrewError``."""
    root = os.fspath(root)
    cmd_path = os.fspath(cmd_path)
    cmd_id = os.path.basename(cmd_path.rstrip("/"))
    config = load_config(root)
    plan_path = os.path.join(cmd_path, "plan.md")
    tasks = crew.load_plan(plan_path) if os.path.lexists(plan_path) else None
    log = crew.load_log(os.path.join(cmd_path, "execution_log.yaml"))
    results = os.path.join(cmd_path, "results")
    out = {"cmd": cmd_id, "path": cmd_path, "plan": tasks is not None, "log": log is not None,
           "status": (log or {}).get("status"), "started": (log or {}).get("started"),
           "finished": (log or {}).get("finished"), "warnings": []}
    if tasks is None:
        out["warnings"].append("no plan.md: Phase 1 (decompose) has not written it yet")
        out.update(resume=None, tasks=[], phase2_complete=False, failures=[],
                   feedback={"state": "not_needed", "rate": 0.0}, summary=None, progress=[])
    else:
        cp = crew.checkpoint(tasks, log, results, max_retries=config["max_retries"])
        latest = crew._latest(log)
        rows = []
        for t in tasks:
            e = latest.get(t.id) or {}
            st = e.get("status") or "pending"
            err = e.get("error")
            if t.id in cp.final:
                st = cp.final[t.id]
            elif t.id in cp.cascaded:
                st, err = "skipped", cp.cascaded[t.id]
            rows.append({"task": t.id, "persona": t.persona or crew.persona_of(e.get("role")),
                         "status": st, "error": err, "retries": e.get("retries"),
                         "done": t.id in cp.done or t.id in cp.final or t.id in cp.cascaded,
                         "why": cp.why.get(t.id)})
        complete = all(r["status"] in TERMINAL for r in rows) and bool(rows)
        failures = [r for r in rows if r["status"] in FAILED + ("skipped",)]
        n_failed = sum(1 for r in rows if r["status"] in FAILED)
        retried = os.path.lexists(os.path.join(cmd_path, "plan_retry.md"))
        fb = feedback_loop(n_failed, len(rows), retried) if complete else \
            {"state": "not_needed", "rate": 0.0}
        # the seed's progress messages (フェーズ2 手順 5): one per wave whose every task is
        # settled (none runs again), then the whole of Phase 2 once it is complete
        by_id = {r["task"]: r for r in rows}
        progress = []
        for i, wave in enumerate(cp.waves, 1):
            sts = [by_id[t]["status"] for t in wave if t in by_id]
            if sts and all(x in TERMINAL for x in sts) and \
                    (complete or not any(t in cp.run for t in wave)):
                progress.append(crew.wave_done_message(i, len(cp.waves),
                                                       sts.count("success"), len(sts)))
        if complete:
            progress.append(crew.phase_done_message(
                sum(1 for r in rows if r["status"] == "success"), len(rows)))
        summary = None
        if complete and failures:
            ids = ", ".join(r["task"] for r in failures)
            from gateway.i18n import is_ja

            ja = is_ja()
            if fb["state"] == "due":
                action = (("再分解" if ja else "re-decompose") + " (feedback loop: decomposer "
                          "re-plans the failed tasks into "
                          "plan_retry.md, once)")
            elif fb["state"] == "used" and not any(r["status"] == "success" for r in rows):
                action = ("手動介入" if ja else "manual intervention") + \
                    " (the retry plan failed too; nothing succeeded)"
            else:
                action = ("集約続行" if ja else "aggregate anyway") + \
                    f" (aggregator gets FAILED_TASKS: [{ids}])"
                if fb["state"] == "used":
                    action += "; feedback loop already used: record it in report.md"
            summary = failure_summary(failures, action)
        out.update(resume={"wave": cp.resume_wave, "of": len(cp.waves), "run": cp.run,
                           "done": cp.done, "final": cp.final, "cascaded": cp.cascaded,
                           "max_retries": config["max_retries"]},
                   tasks=rows, phase2_complete=complete,
                   failures=[{k: r[k] for k in ("task", "persona", "status", "error")}
                             for r in failures],
                   feedback=fb, summary=summary, progress=progress)
    limit = config["max_cmd_duration_sec"]
    elapsed = _elapsed(log, now or datetime.now()) if log else None
    out["elapsed_sec"] = elapsed
    if limit and elapsed is not None and elapsed > limit:
        out["warnings"].append(duration_warning(cmd_id, elapsed, limit))
    mode, why = retrospect_mode(config["retrospect_enabled"],
                                _header(os.path.join(cmd_path, "report_summary.md")))
    out["retrospect"] = {"mode": mode, "reasons": why}
    return out
