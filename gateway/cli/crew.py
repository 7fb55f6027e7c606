"""`gateway crew new | plan | validate-result | status`: the parent session's bookkeeping of a
claude-crew command (seed 004), instead of new_cmd.sh, validate_result.sh and reading logs."""

import json
import os
import sys

import click

from gateway.cli._breezing_start import AS_JSON, PROJECT, fail, root_of


@click.group("crew")
def command():
    """A claude-crew command's directory, plan, results and log (seed 004; docs/crew-cli.md).

    \b
    Examples:
      gateway crew new                                   # cmd_004
      gateway crew plan work/cmd_004/plan.md             # the waves and their ETA
      gateway crew validate-result work/cmd_004/results/result_1.md coder
      gateway crew status                                # the latest command
    """


@command.command("new")
@PROJECT
@AS_JSON
def new(project, as_json):
    """Create work/cmd_NNN/ (with tasks/ and results/) and print its id.

    The number is one more than the highest existing one; the directory is made with one
    atomic mkdir under a lock, so concurrent callers never get the same number (at most 5
    retries against other creators). work/ must be a real directory.

    \b
    Exit status: 0 created; 1 it could not be created (the message says why).

    \b
    Examples:
      gateway crew new                   # cmd_001
      CMD=$(gateway crew new) && echo "request" > work/$CMD/request.md
    """
    from gateway.orchestration import crewdirs
    from gateway.orchestration.crew import CrewError
    from gateway.state.store import StateError

    root = root_of(project)
    try:
        name = crewdirs.new_cmd(root)
    except (CrewError, StateError, OSError) as e:
        fail(as_json, "not_created", f"gateway: {e}", 1)
    if as_json:
        click.echo(json.dumps({"id": name, "path": os.path.join(root, crewdirs.WORK, name)}))
    else:
        click.echo(name)


@command.command("plan")
@click.argument("plan", type=click.Path(dir_okay=False))
@click.option("--max-parallel", type=click.IntRange(min=1, max=20), default=None,
              help="Divide the wave's time by this (default: config.yaml max_parallel, 10).")
@click.option("--background/--foreground", default=None,
              help="Every wave runs in the background (no ETA) / none does (default: a wave "
                   "of config.yaml background_threshold tasks or more, 5).")
@PROJECT
@AS_JSON
def plan(plan, max_parallel, background, project, as_json):
    """PLAN's task table (work/cmd_NNN/plan.md) as waves, with the seed's progress messages
    and ETA.

    Wave 1 holds the tasks without dependencies; each task is in the first wave after all it
    depends on. The ETA uses the per-persona averages of the past execution logs when there
    are 10 or more, else the fallback (researcher 60 s, writer 90 s, coder 120 s, reviewer
    45 s), divided by max_parallel. Also says whether Phase 3 (集約) is 必須, 任意 or 省略可.

    \b
    Exit status: 0; 2 the plan cannot be used (no task table, a bad row, a missing task or a
    cycle, named).

    \b
    Examples:
      gateway crew plan work/cmd_001/plan.md
      gateway crew plan work/cmd_001/plan.md --max-parallel 3 --json
    """
    from gateway.orchestration import crewstatus
    from gateway.orchestration.crew import CrewError
    from gateway.state.store import safe_text

    root = root_of(project)
    try:
        view = crewstatus.plan_view(root, plan, max_parallel=max_parallel,
                                    background=background)
    except CrewError as e:
        fail(as_json, "plan_unusable", f"gateway: {e}", 2)
    if as_json:
        click.echo(json.dumps(view, ensure_ascii=False, indent=2))
        return
    src = ("averages of the past logs" if view["eta_source"] == "stats" else
           f"fallback estimates ({view['past_logs']} past log(s), 10 needed for averages)")
    click.echo(f"{view['plan']}: {view['tasks']} task(s) in {len(view['waves'])} wave(s); ETA "
               f"from {src}, max_parallel {view['max_parallel']}")
    for w in view["waves"]:
        click.echo(w["message"])
        for t in w["tasks"]:
            deps = f" after {', '.join(t['depends'])}" if t["depends"] else ""
            click.echo(f"  task_{t['id']} {t['persona'] or '?'} {t['model'] or '-'}: "
                       f"{safe_text(t['title'], 80)}{deps}")
    from gateway.i18n import text

    click.echo(text("Phase 3 (集約): ", "Phase 3 (aggregate): ") + view["phase3"])


@command.command("validate-result")
@click.argument("result", type=click.Path(dir_okay=False))
@click.argument("persona")
@AS_JSON
def validate_result(result, persona, as_json):
    """Check a worker's RESULT file (seed 004 手順 4b-4d) for PERSONA (researcher, writer,
    coder, reviewer, default; worker_coder works too).

    File checks: it exists, its last line is <!-- COMPLETE -->, it has 20 lines or more
    (else fail); a researcher's has "## Sources", a coder's a code block (else a warning).
    Metadata header (YAML front matter in the first 20 lines): a missing status is failure,
    a missing quality YELLOW, a missing completeness 0 -- each recorded in metadata_issues.
    Verdict: retry (fail, or status partial/failure), else done; "record" says the issues
    go to execution_log.yaml's metadata_issues. Only the header and the two markers are
    read, never the body's content.

    \b
    Exit status: 0 done; 1 retry; 2 a bad persona or a file that cannot be read safely.

    \b
    Examples:
      gateway crew validate-result work/cmd_001/results/result_1.md coder
      gateway crew validate-result work/cmd_001/results/result_2.md researcher --json
    """
    from gateway.orchestration import crewresult
    from gateway.orchestration.crew import CrewError

    try:
        out = crewresult.check_result(result, persona)
    except CrewError as e:
        fail(as_json, "bad_input", f"gateway: {e}", 2)
    if as_json:
        click.echo(json.dumps(out, ensure_ascii=False, indent=2))
    else:
        word = "PASS" if out["status"] == "pass" else "FAIL"
        click.echo(f"{result} ({out['persona']}): {word} → {out['verdict']}"
                   + (" (record the issues in metadata_issues)" if out["record"] else ""))
        if out["header"]:
            click.echo(f"  metadata: status {out['result_status']}, quality "
                       f"{out['result_quality']}, completeness {out['result_completeness']}")
        else:
            click.echo("  no metadata header: judged by the file checks only")
        for i in out["issues"]:
            click.echo(f"  - {i}")
        for i in out["metadata_issues"]:
            click.echo(f"  - metadata: {i}")
    if out["verdict"] != "done":
        sys.exit(1)


@command.command("status")
@click.argument("cmd", required=False)
@PROJECT
@AS_JSON
def status(cmd, project, as_json):
    """Where a crew command stands (default: the latest): from plan.md, execution_log.yaml
    and results/ -- the wave to resume from (checkpoint rules), the failed and skipped tasks,
    the seed's failure summary, the max-duration warning, the feedback loop (partial +
    failure ≥ 50 %, once) and the retrospect mode (full / light).

    CMD is cmd_NNN (or NNN); it is never a path.

    \b
    Exit status: 0; 2 CMD is not a command id or does not exist; 3 a file cannot be used.

    \b
    Examples:
      gateway crew status
      gateway crew status cmd_004 --json
    """
    from gateway.orchestration import crewdirs, crewstatus
    from gateway.orchestration.crew import CrewError
    from gateway.state.store import safe_text

    root = root_of(project)
    try:
        path = crewdirs.cmd_dir(root, cmd) if cmd else crewdirs.latest_cmd(root)
    except CrewError as e:
        fail(as_json, "no_cmd", f"gateway: {e}", 2)
    try:
        st = crewstatus.status(root, path)
    except CrewError as e:
        fail(as_json, "unusable", f"gateway: {e}", 3)
    if as_json:
        click.echo(json.dumps(st, ensure_ascii=False, indent=2, default=str))
        return
    state = st["status"] or ("not recorded in execution_log.yaml" if st["log"]
                             else "no execution_log.yaml")
    click.echo(f"{st['cmd']}: status {state}"
               + (f", started {st['started']}" if st["started"] else "")
               + (f", finished {st['finished']}" if st["finished"] else ""))
    r = st["resume"]
    if r is not None:
        if r["wave"] is None:
            settled = len(r["done"]) + len(r["final"]) + len(r["cascaded"])
            click.echo(f"Phase 2: nothing left to run ({settled} task(s) settled"
                       + (f"; {len(r['final'])} failed at the retry limit, "
                          f"{len(r['cascaded'])} skipped after them" if r["final"] else "")
                       + ")")
        else:
            click.echo(f"Resume: Wave {r['wave']}/{r['of']}; to run: "
                       + ", ".join(f"task_{t}" for t in r["run"])
                       + (f"; done: {', '.join(f'task_{t}' for t in r['done'])}"
                          if r["done"] else ""))
        for t in st["tasks"]:
            if not t["done"] or t["task"] in r["final"] or t["task"] in r["cascaded"]:
                why = t["why"] if t["why"] != t["status"] else (t["error"] or "run again")
                why = why.removeprefix(f"{t['status']}: ")
                click.echo(f"  task_{t['task']} ({t['persona'] or '?'}): {t['status']} — "
                           f"{safe_text(why, 120)}")
    for line in st["progress"]:
        click.echo(line)
    if st["summary"]:
        click.echo(st["summary"])
    fb = st["feedback"]
    if fb["state"] == "due":
        click.echo(f"Feedback loop: {round(fb['rate'] * 100)} % partial/failure: re-decompose "
                   f"the failed tasks (plan_retry.md), once")
    elif fb["state"] == "used":
        click.echo(f"Feedback loop: already used (plan_retry.md exists); "
                   f"{round(fb['rate'] * 100)} % partial/failure again: aggregate and record "
                   f"it in report.md")
    elif st["summary"]:
        click.echo(f"Feedback loop: not needed ({round(fb['rate'] * 100)} % partial/failure, "
                   f"under 50 %)")
    for w in st["warnings"]:
        click.echo(w)
    rm = st["retrospect"]
    click.echo(f"Retrospect: {rm['mode']} ({'; '.join(rm['reasons'])})")
