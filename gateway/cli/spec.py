"""`gateway spec status | start | done`: seed 002's spec task steps (task/start, task/done) with
the workflow state that survives compaction."""

import json
import os
import re

import click

from gateway.cli._breezing_start import AS_JSON, PROJECT, fail, root_of

_TRACKER = click.option(
    "--tracker", type=click.Choice(["none", "gh", "craft-kit"]),
    default=lambda: os.environ.get("GATEWAY_SPEC_TRACKER") or "none", show_default="none, "
    "or $GATEWAY_SPEC_TRACKER",
    help="Who moves the issue: none (say what to do by hand), gh (GitHub CLI: done closes the "
         "issue), craft-kit (the project's npx tsx .cc-craft-kit/commands/task/*.ts).")
_SPEC = click.option("--spec", "spec_id", default=None, help="The spec id, when the issue "
                                                             "is in several specs.")


def _issue(ctx, param, value):
    m = re.fullmatch(r"#?(\d{1,9})", value.strip())
    if not m:
        raise click.BadParameter(f"{value!r} is not an issue number (541 or #541)")
    return int(m.group(1))


@click.group("spec")
def command():
    """A spec's task steps and where the spec workflow stands (seed 002; docs/spec-sync.md).

    \b
    Examples:
      gateway spec status           the current task, the next action, the done steps due
      gateway spec start 541        task/start: the issue goes to In Progress
      gateway spec done 541         task/done: the issue goes to Done (its box is checked)
    """


@command.command("status")
@PROJECT
@AS_JSON
def status(project, as_json):
    """The specs in implementation: the current task (the first unchecked), the next action
    and the done steps that are due (a box was checked, its done step has not run).

    \b
    Exit status: 0.

    \b
    Examples:
      gateway spec status
      gateway spec status --json
    """
    from gateway.orchestration import specsteps

    view = specsteps.status(root_of(project))
    if as_json:
        click.echo(json.dumps(view, ensure_ascii=False, indent=2))
        return
    if not view["specs"]:
        click.echo("no spec in the implementation phase")
    for s in view["specs"]:
        click.echo(f"«{s['title']}» ({s['spec_id']}): {s['checked']} of {s['tasks']} tasks "
                   f"checked")
        for d in s["done_due"]:
            click.echo(f"  DUE: task {d['task']} (#{d['issue']}) is checked; its done step has "
                       f"not run: gateway spec done {d['issue']}")
        c = s["current"]
        if c is None:
            click.echo("  every task is checked")
        else:
            issue = f"#{c['issue']}" if c["issue"] else "no issue"
            click.echo(f"  current: task {c['task']} ({issue}) «{c['title']}»: next action "
                       f"{s['next_action']}")
    for p in view["problems"]:
        click.echo(f"⚠️ {p}")


def _step(step, issue, tracker, spec_id, project, as_json):
    from gateway.orchestration import specsteps, trackers

    root = root_of(project)
    try:
        t = trackers.get(tracker, root)
        out = specsteps.run_step(root, step, issue, t, spec_id=spec_id)
    except trackers.TrackerError as e:
        fail(as_json, "tracker", f"gateway: {e}", 2)
    except specsteps.StepError as e:
        fail(as_json, "refused", f"gateway: {e}", e.exit_code)
    if as_json:
        click.echo(json.dumps(out, ensure_ascii=False, indent=2))
        return
    word = "started" if step == "start" else "done"
    click.echo(f"task {out['task']} (#{issue}) «{out['title']}» {word}: {out['tracker_said']}")
    n = out["next_task"]
    if step == "done":
        click.echo("next: " + (f"task {n['task']} (#{n['issue']}) «{n['title']}»: gateway "
                               f"spec start {n['issue']}" if n and n["issue"] else
                               "every task is checked" if n is None else
                               f"task {n['task']} «{n['title']}»"))
    else:
        click.echo(f"next: implement it, check its box, then gateway spec done {issue}")


@command.command("start")
@click.argument("issue", callback=_issue)
@_TRACKER
@_SPEC
@PROJECT
@AS_JSON
def start(issue, tracker, spec_id, project, as_json):
    """task/start for ISSUE: the tracker puts it In Progress and the state records the task
    as started. ISSUE must be the spec's current task (the first unchecked one).

    \b
    Exit status: 0; 1 refused or the tracker failed (nothing recorded); 2 no such issue or
    a bad tracker; 3 the workflow state cannot be written.

    \b
    Examples:
      gateway spec start 541
      gateway spec start '#541' --tracker gh
    """
    _step("start", issue, tracker, spec_id, project, as_json)


@command.command("done")
@click.argument("issue", callback=_issue)
@_TRACKER
@_SPEC
@PROJECT
@AS_JSON
def done(issue, tracker, spec_id, project, as_json):
    """task/done for ISSUE: the tracker puts it to Done (gh: closes it) and the done step is
    no longer due. ISSUE's box must be checked in the spec.

    \b
    Exit status: 0; 1 refused or the tracker failed (nothing recorded); 2 no such issue or
    a bad tracker; 3 the workflow state cannot be written.

    \b
    Examples:
      gateway spec done 541
      gateway spec done 541 --tracker gh --json
    """
    _step("done", issue, tracker, spec_id, project, as_json)
