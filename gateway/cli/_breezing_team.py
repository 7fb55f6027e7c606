"""`gateway breezing register | review | batch | status`: the steps of /breezing while the
team works (Phase B), each one Bash command the Lead (or a teammate, for `register`) may run in
delegate mode (rules/workflow.yaml `delegate`)."""

import json

import click

from gateway.cli._breezing_start import AS_JSON, PROJECT, fail, root_of

REGISTERED_LINE = "gateway: registration requested"


@click.command("register")
@click.argument("role", type=click.Choice(["implementer", "reviewer", "lead"]))
@click.option("--owns", multiple=True, metavar="GLOB",
              help="A glob of the files an implementer writes (repeat it).")
@click.option("--name", default=None, metavar="NAME",
              help="The registration's name (default: the role and the caller's id). The Lead "
                   "assigns a registered teammate its files by registering again with the "
                   "teammate's name.")
@PROJECT
@AS_JSON
def register(role, owns, name, project, as_json):
    """Register the calling agent's role in the breezing team (seeds 000/001: the role marker
    `.claude/state/breezing-role-NAME.json` = {"role": ROLE, "owns": [GLOB...]}).

    Run it through Claude Code's Bash tool: the gateway's PostToolUse hook binds the request
    to the caller's agent_id (a subagent) or session_id (a session), with the same rules as a
    role marker Write -- no self-escalation, a subagent never registers as lead, an
    implementer only keeps or narrows its files. It is the channel the client does not refuse:
    a Write into .claude/state/ is a sensitive-file refusal in print mode. Run from a
    terminal, it registers nothing (no hook sees it).

    \b
    Examples:
      gateway breezing register implementer --name impl-1        # a teammate, at its start
      gateway breezing register reviewer --name reviewer
      gateway breezing register implementer --owns 'src/auth/**' --name impl-1   # the Lead
    """
    from gateway.state import fast

    try:
        fast.check_role_marker({"role": role, "owns": list(owns)})
    except ValueError as e:
        fail(as_json, "invalid", f"gateway: cannot register: {e}. Give a role and globs "
                                 "such as --owns 'src/auth/**'", 2)
    what = role + (f" owning {', '.join(owns)}" if owns else "") + \
        (f" under the name {name}" if name else "")
    if as_json:
        click.echo(json.dumps({"ok": True, "requested": {"role": role, "owns": list(owns),
                                                        "name": name},
                               "note": REGISTERED_LINE}, ensure_ascii=False))
        return
    click.echo(f"{REGISTERED_LINE}: {what}")
    click.echo("The gateway's PostToolUse hook records it for the agent that ran this command "
               "(the hook's reply says so when it refuses); `gateway state show` lists the "
               "registrations.")


@click.command("review")
@click.argument("verdict", type=click.Choice(["APPROVE", "REQUEST_CHANGES", "REJECT", "STOP"],
                                             case_sensitive=False))
@click.option("--grade", type=click.Choice(["A", "B", "C", "D", "N/A"]), default=None,
              help="The Reviewer's grade.")
@click.option("--reviewer", default=None, help="Who reviewed (a teammate name).")
@PROJECT
@AS_JSON
def review(verdict, grade, reviewer, project, as_json):
    """Record the Reviewer's VERDICT (APPROVE, REQUEST_CHANGES, REJECT or STOP; seed 001
    リテイクループ): review-result.json for the current HEAD and this session, and the retake
    counter. REQUEST_CHANGES is a retake while
    fewer than max_retakes (3) were made, beyond that the Lead escalates to the user; REJECT
    and STOP stop at once; APPROVE leads to Phase C.

    \b
    Exit status: 0 recorded; 3 no breezing session or a state file cannot be used.

    \b
    Examples:
      gateway breezing review REQUEST_CHANGES --reviewer reviewer
      gateway breezing review APPROVE --grade A
    """
    from gateway.orchestration import review as rv
    from gateway.state.store import StateError

    root = root_of(project)
    try:
        result, obs = rv.record_review(root, verdict.upper(), grade=grade, reviewer=reviewer)
    except StateError as e:
        fail(as_json, "state", f"gateway: {e}", 3)
    except ValueError as e:
        fail(as_json, "invalid", f"gateway: {e}", 2)
    if as_json:
        click.echo(json.dumps({"ok": True, **obs.as_dict(),
                               "commit_hash": result.commit_hash}, ensure_ascii=False))
        return
    counted = "" if obs.new else " (this review was recorded already: counted once)"
    click.echo(f"verdict {obs.verdict}: {obs.step}; retakes {obs.retake_count} of "
               f"{obs.max_retakes}{counted}")
    click.echo(f"next: {obs.next}")


@click.command("batch")
@click.option("--plans", "plans_path", type=click.Path(dir_okay=False), default=None,
              help="Plans.md (default: Plans.md in the project).")
@PROJECT
@AS_JSON
def batch(plans_path, project, as_json):
    """Register the next batch of a progressive run (more than 8 tasks; seed 001: when
    next_batch_recommended arrives, 60 % of the current batch done): its task ids, its
    sections in plans_md_mapping, the batch in progress. Prints the tasks to create, in order.

    \b
    Exit status: 0 registered; 1 no batch is waiting; 2 the tasks cannot be registered; 3 a
    state file or Plans.md cannot be used.

    \b
    Examples:
      gateway breezing batch
      gateway breezing batch --json
    """
    from gateway.orchestration import batches
    from gateway.state.store import safe_text

    root = root_of(project)
    try:
        done = batches.register_next(root, plans_path)
    except batches.BatchError as e:
        fail(as_json, e.code, str(e), e.exit_code)
    if as_json:
        click.echo(json.dumps(done, ensure_ascii=False, indent=2))
        return
    click.echo(f"batch {done['batch']} registered (session {done['session_id']}); create "
               f"these tasks in order (TaskCreate):")
    for e in done["register"]:
        blocked = f" blockedBy {', '.join(e['blockedBy'])}" if e["blockedBy"] else ""
        click.echo(f"  {e['id']}: {safe_text(e['subject'], 120)}{blocked}")
        click.echo(f"      activeForm: {safe_text(e['activeForm'], 120)}; owns: "
                   f"{safe_text(', '.join(e['owns']) or 'auto', 200)}")
    left = done["pending_batches"]
    click.echo("batches still waiting: " + (", ".join(map(str, left)) if left else "none"))


@click.command("status")
@click.option("--tasks-dir", type=click.Path(file_okay=False), default=None,
              help="Root of the Agent Teams task lists (default: $GATEWAY_TASKS_DIR, else "
                   "$CLAUDE_CONFIG_DIR/tasks, else ~/.claude/tasks).")
@PROJECT
@AS_JSON
def status(tasks_dir, project, as_json):
    """Where the breezing session stands (read-only): the Plans.md tasks completed (from the
    TaskCompleted hook's record and the team's task list), the batches, the fix tasks still
    open, the retakes, the registered teammates, and what the Lead does next.

    \b
    Exit status: 0; 3 no breezing session or a state file cannot be used.

    \b
    Examples:
      gateway breezing status
      gateway breezing status --json
    """
    from gateway.orchestration import teamstatus

    root = root_of(project)
    try:
        st = teamstatus.status(root, tasks_root=tasks_dir)
    except teamstatus.StatusError as e:
        fail(as_json, e.code, str(e), 3)
    if as_json:
        click.echo(json.dumps(st, ensure_ascii=False, indent=2))
        return
    click.echo(teamstatus.render(st))
