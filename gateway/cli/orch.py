"""`gateway orch status | info <session> | resume`: the orchestrator store under agent-coord/
(seed 003's `agent status`, `agent info`, `agent resume`); `new | task | claim | transition`
drive it (gateway/cli/_orch_act.py)."""

import json

import click

from gateway.cli._breezing_start import AS_JSON, PROJECT, fail, root_of


@click.group("orch")
def command():
    """The orchestrator store of seed 003 under agent-coord/ (docs/orch.md).

    \b
    Examples:
      gateway orch status                   sessions, tasks by state, runs
      gateway orch info planner-7682b3a8-...   one session in detail
      gateway orch resume --list            sessions and what a resume would run
      gateway orch new "instruction"        a new session (prints its id)
      gateway orch task SESSION_ID          a new READY task
      gateway orch claim WORKER             claim the next task (compare-and-swap)
      gateway orch transition TASK DONE --owner WORKER
      gateway orch resume SESSION_ID --claim WORKER
    """


def _store_error(as_json, e):
    from gateway.orchestration import coord

    if isinstance(e, coord.InvalidId):
        fail(as_json, "invalid_id", f"gateway: {e}", 2)
    if isinstance(e, coord.NotFound):
        fail(as_json, "not_found", f"gateway: {e}", 1)
    fail(as_json, "store_unusable", f"gateway: {e}", 3)


def _problems(problems):
    for p in problems:
        click.echo(f"⚠️ cannot be read: {p}")


@command.command("status")
@PROJECT
@AS_JSON
def status(project, as_json):
    """Every session with its task counts, the tasks by state and the runs (seed 003 `agent
    status`). Files that cannot be read are listed; the rest is shown.

    \b
    Exit status: 0; 3 the store cannot be used (agent-coord is a symlink, say).

    \b
    Examples:
      gateway orch status
      gateway orch status --json | jq '.task_counts'
    """
    from gateway.orchestration import coord, orchview
    from gateway.state.store import StateError

    try:
        view = orchview.overview(root_of(project))
    except (coord.CoordError, StateError) as e:
        _store_error(as_json, e)
    if as_json:
        click.echo(json.dumps(view, ensure_ascii=False, indent=2))
        return
    if not view["exists"]:
        click.echo(f"no orchestrator store ({view['store']} does not exist)")
        return
    click.echo(f"{len(view['sessions'])} session(s) in {view['store']}")
    for s in view["sessions"]:
        states = ", ".join(f"{k} {v}" for k, v in s["states"].items()) or "no tasks"
        done = {True: "; complete", False: "; not complete"}.get(s["complete"], "")
        click.echo(f"  {s['session_id']}  {s['created_at'][:19]}  «{s['instruction']}»  "
                   f"{s['tasks']} task(s): {states}{done}")
    click.echo("Tasks by state:")
    for state in coord.TASK_STATES:
        ids = view["tasks_by_state"].get(state)
        if ids:
            click.echo(f"  {state} ({len(ids)}): {', '.join(ids[:20])}"
                       + (" ..." if len(ids) > 20 else ""))
    runs = ", ".join(f"{k} {v}" for k, v in view["runs"].items() if v) or "none"
    click.echo(f"Runs: {runs}")
    for r in view["running_runs"]:
        click.echo(f"  running: {r['id']} ({r['task_id']}, since {r['started_at'][:19]})")
    if view["orphan_tasks"]:
        click.echo(f"Tasks of no known session: {', '.join(view['orphan_tasks'][:20])}")
    _problems(view["problems"])


@command.command("info")
@click.argument("session_id")
@PROJECT
@AS_JSON
def info(session_id, project, as_json):
    """One session in detail (seed 003 `agent info <sessionId>`): instruction, final
    judgement, continue count, every task with its state, claim and runs.

    SESSION_ID is planner-<uuid>, planner-additional-<uuid> or planner-replanning-<uuid>;
    anything else is refused before a file is read.

    \b
    Exit status: 0; 1 no such session; 2 not a session id; 3 a file cannot be used.

    \b
    Examples:
      gateway orch info planner-7682b3a8-1c1e-4f6a-9d57-3a3c2b1d0e9f
    """
    from gateway.orchestration import coord, orchview
    from gateway.state.store import StateError

    try:
        s = orchview.session_info(root_of(project), session_id)
    except (coord.CoordError, StateError) as e:
        _store_error(as_json, e)
    if as_json:
        click.echo(json.dumps(s, ensure_ascii=False, indent=2))
        return
    click.echo(f"Session {s['session_id']} (short {s['short']})")
    click.echo(f"  instruction: «{s['instruction']}»")
    click.echo(f"  created {s['created_at'][:19]}, updated {s['updated_at'][:19]}, version "
               f"{s['version']}, continued {s['continue_iteration_count']} time(s), "
               f"{s['messages']} message(s)")
    fj = s["final_judgement"]
    if fj is None:
        click.echo("  final judgement: none yet")
    else:
        score = f", score {fj['completion_score']}" if fj["completion_score"] is not None else ""
        click.echo(f"  final judgement: {'complete' if fj['is_complete'] else 'not complete'}"
                   f"{score}")
        for m in fj["missing_aspects"]:
            click.echo(f"    missing: {m}")
    click.echo(f"Tasks ({len(s['tasks'])}):")
    for t in s["tasks"]:
        extra = []
        if t["owner"]:
            extra.append(f"held by {t['owner']} until {(t['lease_expires_at'] or '?')[:19]}")
        if t["block_reason"]:
            extra.append(t["block_reason"])
        if t["dependencies"]:
            extra.append("after " + ", ".join(t["dependencies"]))
        if t["replaced_by"]:
            extra.append("replaced by " + ", ".join(t["replaced_by"]))
        click.echo(f"  {t['id']}  {t['state']}  {t['type']}  v{t['version']}"
                   + (f"  ({'; '.join(extra)})" if extra else ""))
        for r in t["runs"]:
            click.echo(f"    {r['id']}  {r['status']}  {r['agent']}  {r['started_at'][:19]}")
    _problems(s["problems"])


@command.command("resume")
@click.argument("session_id", required=False)
@click.option("--list", "list_", is_flag=True,
              help="List the sessions and what a resume would run.")
@click.option("--claim", "worker", default=None, metavar="WORKER",
              help="With SESSION_ID: claim its next task for WORKER (expired claims are "
                   "recovered first).")
@click.option("--lease", type=click.FloatRange(min=1, max=86400), default=600.0,
              show_default=True, help="Seconds the claim lives without a renewal.")
@PROJECT
@AS_JSON
def resume(session_id, list_, worker, lease, project, as_json):
    """Resume a session (seed 003 `agent resume --list` and `agent resume <sessionId>`).

    --list: the sessions, newest first, with their unfinished tasks (read-only). SESSION_ID:
    what a resume of that session runs -- the tasks claimable now, those running, those that
    wait, the blocked ones (read-only); with --claim WORKER the next claimable task is
    claimed for WORKER, as `gateway orch claim WORKER --session SESSION_ID` does.

    \b
    Exit status: 0; 1 nothing to claim (--claim) or no such session; 2 not a session id or
    neither --list nor SESSION_ID; 3 the store cannot be used.

    \b
    Examples:
      gateway orch resume --list
      gateway orch resume planner-7682b3a8-...
      gateway orch resume planner-7682b3a8-... --claim worker-1
    """
    from gateway.orchestration import coord, orchview
    from gateway.state.store import StateError

    if session_id is None:
        if not list_:
            fail(as_json, "usage", "gateway: give --list or a session id (gateway orch resume "
                                   "planner-<uuid>)", 2)
        try:
            rows, problems = orchview.resume_list(root_of(project))
        except (coord.CoordError, StateError) as e:
            _store_error(as_json, e)
        if as_json:
            click.echo(json.dumps({"sessions": rows, "problems": problems}, ensure_ascii=False,
                                  indent=2))
            return
        if not rows:
            click.echo("no sessions")
        for r in rows:
            state = ("resumable: " + (", ".join(r["unfinished"][:10]) or "final judgement "
                                      "says not complete (agent continue)")) \
                if r["resumable"] else "nothing left"
            click.echo(f"{r['session_id']}  {r['created_at'][:19]}  «{r['instruction']}»  "
                       f"{r['done']}/{r['tasks']} done; {state}")
        _problems(problems)
        return
    try:
        st = coord.CoordStore(root_of(project))
        st.get_session(session_id)
        if worker:
            t = st.claim_next_task(worker, lease=lease, session_id=session_id)
            if t is None:
                fail(as_json, "nothing_claimable", f"gateway: nothing in {session_id} can be "
                                                   "claimed now (`gateway orch info "
                                                   f"{session_id}` shows why)", 1)
            out = {"session_id": session_id, "claimed": t.id, "version": t.version,
                   "owner": t.owner}
            click.echo(json.dumps(out) if as_json else
                       f"{t.id} RUNNING for {worker}, version {t.version}")
            return
        tasks = st.list_tasks(session_id)
    except (coord.CoordError, StateError) as e:
        _store_error(as_json, e)
    groups = {"claimable": [], "running": [], "waiting": [], "blocked": [], "final": []}
    for t in tasks:
        if t.state in coord.CLAIMABLE:
            deps_done = all(any(x.id == d and x.state == "DONE" for x in tasks)
                            or _dep_done(st, d) for d in t.dependencies)
            groups["claimable" if deps_done else "waiting"].append(t.id)
        elif t.state == "RUNNING":
            groups["running"].append(t.id)
        elif t.state == "BLOCKED":
            groups["blocked"].append(t.id)
        else:
            groups["final"].append(t.id)
    if as_json:
        click.echo(json.dumps({"session_id": session_id, **groups}))
        return
    for k in ("claimable", "running", "waiting", "blocked"):
        click.echo(f"{k}: {', '.join(groups[k]) or 'none'}")
    if groups["claimable"]:
        click.echo(f"next: gateway orch resume {session_id} --claim WORKER")


def _dep_done(st, task_id) -> bool:
    from gateway.orchestration import coord

    try:
        return st.get_task(task_id).state == "DONE"
    except coord.CoordError:
        return False


def _register():
    from gateway.cli import _orch_act

    for cmd in (_orch_act.new, _orch_act.task, _orch_act.claim, _orch_act.transition):
        command.add_command(cmd)


_register()
