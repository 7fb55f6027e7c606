"""`gateway orch new | task | claim | transition | resume SESSION`: drive the orchestrator
store of seed 003 (agent-coord/) from the command line, with the store's own rules: ids are
checked before any file is touched, a task is created under its lock (an existing id is
refused), a claim is a compare-and-swap on the task's version, a state change names the
version it was decided on (--version) or is made by the claim's holder (--owner), only the
legal transitions are accepted and DONE, CANCELLED and REPLACED_BY_REPLAN are final.

Exit status of each: 0 done; 1 refused by the store's rules (the message says why and what to
do); 2 a bad id or option; 3 the store cannot be used.
"""

import json

import click

from gateway.cli._breezing_start import AS_JSON, PROJECT, fail, root_of


def _store(project):
    from gateway.orchestration.coord import CoordStore

    return CoordStore(root_of(project))


def _refused(as_json, e):
    from gateway.orchestration import coord
    from gateway.state.store import StateError

    if isinstance(e, coord.InvalidId):
        fail(as_json, "invalid_id", f"gateway: {e}", 2)
    if isinstance(e, coord.NotFound):
        fail(as_json, "not_found", f"gateway: {e}", 1)
    if isinstance(e, (coord.ConcurrentModification, coord.IllegalTransition,
                      coord.NotOwner, coord.NotClaimable)):
        fail(as_json, type(e).__name__, f"gateway: {e}", 1)
    if isinstance(e, StateError):
        fail(as_json, "store_unusable", f"gateway: {e}", 3)
    fail(as_json, "refused", f"gateway: {e}", 1)


def _task_out(t) -> dict:
    return {"id": t.id, "state": t.state, "version": t.version, "owner": t.owner,
            "lease_expires_at": t.lease_expires_at, "dependencies": list(t.dependencies)}


def _errors():
    from gateway.orchestration import coord
    from gateway.state.store import StateError

    return (coord.CoordError, StateError, ValueError)


@click.command("new")
@click.argument("instruction")
@click.option("--kind", type=click.Choice(["normal", "additional", "replanning"]),
              default="normal", show_default=True,
              help="planner-<uuid>, planner-additional-<uuid> (agent continue) or "
                   "planner-replanning-<uuid>.")
@click.option("--id", "session_id", default=None, metavar="SESSION_ID",
              help="A given id (planner-<uuid> of the kind) instead of a new one.")
@PROJECT
@AS_JSON
def new(instruction, kind, session_id, project, as_json):
    """A new planner session for INSTRUCTION (seed 003 `agent run`'s session). Prints its id.

    \b
    Examples:
      gateway orch new "ユーザー認証機能を実装して"
      gateway orch new "add the docs" --kind additional --json
    """
    try:
        s = _store(project).create_session(instruction, kind, session_id=session_id)
    except _errors() as e:
        _refused(as_json, e)
    click.echo(json.dumps({"session_id": s.session_id}) if as_json else s.session_id)


@click.command("task")
@click.argument("session_id")
@click.option("--seq", type=click.IntRange(min=1), default=None,
              help="The task's number in the session (default: the next one).")
@click.option("--type", "task_type", default="implementation", show_default=True,
              type=click.Choice(["implementation", "documentation", "investigation",
                                 "integration"]),
              help="The task type of seed 003.")
@click.option("--depends", multiple=True, metavar="TASK_ID", help="A task it waits for.")
@click.option("--acceptance", default="", help="The acceptance criteria.")
@click.option("--branch", default="", help="The working branch.")
@click.option("--conflict", is_flag=True, help="A conflict resolution task "
                                               "(task-<short>-conflict-resolution-<uuid8>).")
@PROJECT
@AS_JSON
def task(session_id, seq, task_type, depends, acceptance, branch, conflict, project, as_json):
    """Add a READY task to SESSION_ID (version 0, listed in its generatedTasks). An existing
    id is refused.

    \b
    Examples:
      gateway orch task planner-7682b3a8-... --acceptance "login works"
      gateway orch task planner-7682b3a8-... --depends task-7682b3a8-1
    """
    try:
        st = _store(project)
        if conflict:
            t = st.add_conflict_resolution_task(session_id, depends, acceptance or
                                                "resolve the merge conflict")
        else:
            if seq is None:
                nums = [int(x.id.rsplit("-", 1)[1]) for x in st.list_tasks(session_id)
                        if x.id.rsplit("-", 1)[1].isdigit()]
                seq = max(nums, default=0) + 1
            t = st.add_task(session_id, seq, task_type=task_type, dependencies=depends,
                            acceptance=acceptance, branch=branch)
    except _errors() as e:
        _refused(as_json, e)
    if as_json:
        click.echo(json.dumps(_task_out(t)))
    else:
        click.echo(f"{t.id} {t.state} v{t.version}")


@click.command("claim")
@click.argument("worker")
@click.option("--session", "session_id", default=None, help="Only this session's tasks.")
@click.option("--task", "task_id", default=None, help="Claim this task (else the first "
                                                      "claimable one in id order).")
@click.option("--lease", type=click.FloatRange(min=1, max=86400), default=600.0,
              show_default=True, help="Seconds the claim lives without a renewal.")
@PROJECT
@AS_JSON
def claim(worker, session_id, task_id, lease, project, as_json):
    """Claim a task for WORKER (seed 003 Scheduler's claimNextTask): READY or
    NEEDS_CONTINUATION with every dependency DONE becomes RUNNING, held by WORKER; never one
    task to two workers. Expired claims are recovered first. Exit 1 when nothing can be
    claimed now.

    \b
    Examples:
      gateway orch claim worker-1
      gateway orch claim worker-1 --task task-7682b3a8-2 --json
    """
    try:
        st = _store(project)
        if task_id:
            st.recover_claims()
            t = st.claim_task(task_id, worker, lease=lease)
        else:
            t = st.claim_next_task(worker, lease=lease, session_id=session_id)
    except _errors() as e:
        _refused(as_json, e)
    if t is None:
        fail(as_json, "nothing_claimable", "gateway: nothing can be claimed now: every task "
                                           "is RUNNING, final, or waits for a dependency "
                                           "(`gateway orch status`)", 1)
    if as_json:
        click.echo(json.dumps(_task_out(t)))
    else:
        click.echo(f"{t.id} RUNNING for {worker}, version {t.version}, lease until "
                   f"{t.lease_expires_at[:19]}")


_TARGETS = ("DONE", "NEEDS_CONTINUATION", "BLOCKED", "CANCELLED", "REPLACED_BY_REPLAN",
            "READY")


@click.command("transition")
@click.argument("task_id")
@click.argument("state", type=click.Choice(_TARGETS, case_sensitive=False))
@click.option("--version", "version", type=click.IntRange(min=0), default=None,
              help="The version the change was decided on (a compare-and-swap).")
@click.option("--owner", default=None, help="The claim's holder making the change.")
@click.option("--reason", default=None, help="BLOCKED: MAX_RETRIES, CONFLICT, ... "
                                             "(default UNKNOWN).")
@click.option("--feedback", default=None, help="The Judge's feedback (JSON object or text).")
@click.option("--by", "by", default=None, metavar="TASK_IDS",
              help="REPLACED_BY_REPLAN: the new tasks, comma separated.")
@PROJECT
@AS_JSON
def transition(task_id, state, version, owner, reason, feedback, by, project, as_json):
    """Move TASK_ID to STATE (seed 003 Judge and Replanning operations): DONE,
    NEEDS_CONTINUATION, BLOCKED, CANCELLED, REPLACED_BY_REPLAN, or READY (the holder gives
    its claim back). Give --version (compare-and-swap: refused when the task changed since)
    or --owner (the claim's holder), or both. Only legal transitions are accepted; a final
    task (DONE, CANCELLED, REPLACED_BY_REPLAN) never changes.

    \b
    Examples:
      gateway orch transition task-7682b3a8-1 DONE --owner worker-1
      gateway orch transition task-7682b3a8-1 BLOCKED --version 3 --reason MAX_RETRIES
    """
    state = state.upper()
    fb = None
    if feedback is not None:
        try:
            fb = json.loads(feedback)
        except ValueError:
            fb = {"text": feedback}
        if not isinstance(fb, dict):
            fb = {"text": feedback}
    try:
        st = _store(project)
        if version is None and owner is None:
            fail(as_json, "usage", "gateway: give the version the change was decided on "
                                   "(--version N, from `gateway orch info`) or the claim's "
                                   "holder (--owner WORKER)", 2)
        kw = {"expected_version": version, "owner": owner}
        if state == "DONE":
            t = st.complete_task(task_id, feedback=fb, **kw)
        elif state == "NEEDS_CONTINUATION":
            t = st.continue_task(task_id, feedback=fb, **kw)
        elif state == "BLOCKED":
            t = st.block_task(task_id, reason or "UNKNOWN", **kw)
        elif state == "REPLACED_BY_REPLAN":
            new = [x.strip() for x in (by or "").split(",") if x.strip()]
            if not new:
                fail(as_json, "usage", "gateway: REPLACED_BY_REPLAN needs --by with the new "
                                       "task ids", 2)
            t = st.transition(task_id, state, replaced_by=new, **kw)
        else:
            t = st.transition(task_id, state, **kw)
    except _errors() as e:
        _refused(as_json, e)
    if as_json:
        click.echo(json.dumps(_task_out(t)))
    else:
        click.echo(f"{t.id} {t.state} v{t.version}")
