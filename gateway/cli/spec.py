"""`gateway spec status | start | done`: seed 002's spec task steps (task/start, task/done) with
the workflow state that survives compaction."""

import json
import os
import re

import click

from gateway.cli._breezing_start import AS_JSON, PROJECT, fail, root_of
from gateway.orchestration.specsteps import label, ref

_TRACKER = click.option(
    "--tracker", type=click.Choice(["none", "gh", "craft-kit"]),
    default=lambda: os.environ.get("GATEWAY_SPEC_TRACKER") or "none", show_default="none, "
    "or $GATEWAY_SPEC_TRACKER",
    help="Who moves the issue: none (say what to do by hand), gh (GitHub CLI: done closes the "
         "issue), craft-kit (the project's npx tsx .cc-craft-kit/commands/task/*.ts).")
_SPEC = click.option("--spec", "spec_id", default=None, help="The spec id, when the issue "
                                                             "is in several specs.")


def _issue(ctx, param, value):
    if value is None:
        return None
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
        click.echo("no spec in the implementation phase (a Markdown file in "
                   ".cc-craft-kit/specs/ or specs/ with **フェーズ:** implementation): "
                   "nothing to track")
    for s in view["specs"]:
        click.echo(f"«{s['title']}» ({s['spec_id']}): {s['checked']} of {s['tasks']} tasks "
                   f"checked")
        for d in s["done_due"]:
            click.echo(f"  DUE: task {d['task']} ({label(d.get('issue'))}) is checked; its done "
                       f"step has not run: gateway spec done {ref(d.get('issue'), d['task'])}")
        c = s["current"]
        if c is None:
            click.echo("  every task is checked")
        else:
            click.echo(f"  current: task {c['task']} ({label(c['issue'])}) «{c['title']}»: "
                       f"next action {s['next_action']} (gateway spec "
                       f"{'start' if s['next_action'] == 'task_start' else 'done'} "
                       f"{ref(c['issue'], c['task'])})")
    for p in view["problems"]:
        click.echo(f"⚠️ {p}")


def _step(step, issue, tracker, spec_id, project, as_json, task=None):
    from gateway.orchestration import specsteps, trackers

    root = root_of(project)
    if (issue is None) == (task is None):
        fail(as_json, "usage", f"gateway: name the task by its issue (gateway spec {step} 541) "
                               f"or, for a task without an issue number, by its position "
                               f"(gateway spec {step} --task 3)", 2)
    try:
        t = trackers.get(tracker, root)
        out = specsteps.run_step(root, step, issue, t, spec_id=spec_id, task_number=task)
    except trackers.TrackerError as e:
        fail(as_json, "tracker", f"gateway: {e}", 2)
    except specsteps.StepError as e:
        fail(as_json, "refused", f"gateway: {e}", e.exit_code)
    if as_json:
        click.echo(json.dumps(out, ensure_ascii=False, indent=2))
        return
    word = "started" if step == "start" else "done"
    issue = out["issue"]
    click.echo(f"task {out['task']} ({label(issue)}) «{out['title']}» {word}: "
               f"{out['tracker_said']}")
    n = out["next_task"]
    if step == "done":
        click.echo("next: " + ("every task is checked" if n is None else
                               f"task {n['task']} ({label(n['issue'])}) «{n['title']}»: gateway "
                               f"spec start {ref(n['issue'], n['task'])}"))
    else:
        click.echo(f"next: implement it, check its box, then gateway spec done "
                   f"{ref(issue, out['task'])}")


@command.command("start")
@click.argument("issue", callback=_issue, required=False)
@click.option("--task", "task", type=click.IntRange(min=1), default=None, metavar="N",
              help="The task's position in the spec's task list (for a task without an issue "
                   "number).")
@_TRACKER
@_SPEC
@PROJECT
@AS_JSON
def start(issue, task, tracker, spec_id, project, as_json):
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
    _step("start", issue, tracker, spec_id, project, as_json, task)


@command.command("done")
@click.argument("issue", callback=_issue, required=False)
@click.option("--task", "task", type=click.IntRange(min=1), default=None, metavar="N",
              help="The task's position in the spec's task list (for a task without an issue "
                   "number).")
@_TRACKER
@_SPEC
@PROJECT
@AS_JSON
def done(issue, task, tracker, spec_id, project, as_json):
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
    _step("done", issue, tracker, spec_id, project, as_json, task)
