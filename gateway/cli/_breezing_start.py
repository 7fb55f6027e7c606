"""`gateway breezing start | abort | next`: Phase A of /breezing (seed 001 Step 0-3)."""

import json
import os
import sys

import click

from gateway.cli._project import PROJECT_HELP, default_project

PROJECT = click.option("--project", type=click.Path(file_okay=False, exists=True),
                       default=None, help=PROJECT_HELP)
AS_JSON = click.option("--json", "as_json", is_flag=True, help="Print JSON (for skills).")


def root_of(project):
    return os.path.abspath(project) if project else default_project()


def fail(as_json, code, message, exit_code, **extra):
    """Report an error (stderr, or a JSON object on stdout with --json) and exit."""
    if as_json:
        click.echo(json.dumps({"ok": False, "error": code, "message": message, **extra},
                              ensure_ascii=False, indent=2))
    else:
        click.echo(message, err=True)
    sys.exit(exit_code)


def _positive(ctx, param, value):
    if value is not None and value < 1:
        raise click.BadParameter("must be at least 1")
    return value


@click.command("start")
@click.option("--range", "range_text", required=True, metavar="TEXT",
              help="The tasks, as the user said it: 「認証機能からユーザー管理まで」, a keyword, "
                   "a comma list, 全部やって, 続きやって.")
@click.option("--codex", is_flag=True, help="/breezing --codex: impl_mode codex "
                                            "(codex-implementers).")
@click.option("--parallel", type=int, default=None, callback=_positive, metavar="N",
              help="--parallel N of the skill: at most N implementers.")
@click.option("--planner-max-parallel", type=int, default=None, callback=_positive,
              metavar="N", help="The parallelism Phase 0's Planner recommended.")
@click.option("--no-discuss", is_flag=True, help="Skip Phase 0 (the planning discussion).")
@click.option("--yes", "-y", is_flag=True,
              help="The user approved the screen: initialise the team (Step 3).")
@click.option("--team", default=None, help="Team name (default: the session id).")
@click.option("--model", default=None, help="The implementers' model, recorded in team.model.")
@click.option("--codex-review", is_flag=True, help="Record options.codex_review (Codex MCP "
                                                   "review).")
@click.option("--plans", "plans_path", type=click.Path(dir_okay=False), default=None,
              help="Plans.md to read (default: Plans.md in the project).")
@PROJECT
@AS_JSON
@click.pass_context
def start(ctx, range_text, codex, parallel, planner_max_parallel, no_discuss, yes, team, model,
          codex_review, plans_path, project, as_json):
    """Prepare a /breezing run (Phase A): Step 0, the environment check, the range, the
    confirmation screen; with --yes (after the user approved it) the team initialisation.

    Step 0 writes .claude/state/breezing-active.json at once (impl_mode codex with --codex,
    else standard). Agent Teams must be enabled (CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS in the
    environment or the "env" of a settings file). The range is read from Plans.md:
    "AからBまで" (from the first task matching A through the last matching B), a keyword, a comma
    list, 全部やって (every unfinished task); 続きやって resumes the recorded session (the
    same as `gateway resume`). Tasks that touch the same file wait for each other (V5).
    Any failure after Step 0 removes breezing-active.json again (early abort); so does
    `gateway breezing abort` when the user says no.

    \b
    Exit status: 0 the screen / the team initialised; 1 Agent Teams not enabled (the seed's
    message); 2 the range or the tasks cannot be used; 3 a state file or Plans.md cannot be
    used, or a session with a team is already recorded.

    \b
    Examples:
      gateway breezing start --range 認証機能からユーザー管理まで      # the screen
      gateway breezing start --range 認証機能からユーザー管理まで --yes
      gateway breezing start --range 'Header, Footer' --codex --parallel 2 --json
      gateway breezing start --range 続きやって                      # = gateway resume
    """
    from gateway.orchestration import prepare as pr
    from gateway.orchestration import rangesel

    root = root_of(project)
    try:
        spec = rangesel.parse_range(range_text)
    except rangesel.RangeError as e:
        fail(as_json, f"range_{e.code}", f"gateway: {e}", pr.EXIT_BAD_RANGE)
    if spec.kind == "resume":
        from gateway.cli.resume import command as resume_command

        ctx.invoke(resume_command, project=project, yes=yes, as_json=as_json, team=team,
                   include_added=False, mode="codex" if codex else "standard",
                   tasks_dir=None, plans_path=plans_path, list_=False)
        return
    try:
        prepared = pr.prepare(root, range_text, codex=codex, parallel=parallel,
                              planner_max_parallel=planner_max_parallel,
                              discuss=not no_discuss, plans_path=plans_path, confirmed=yes)
    except pr.StartError as e:
        fail(as_json, e.code, str(e), e.exit_code, aborted=e.aborted)
    if not yes:
        if as_json:
            click.echo(json.dumps(pr.as_json(prepared), ensure_ascii=False, indent=2))
            return
        from gateway.i18n import text

        click.echo(pr.screen(prepared))
        hint = []
        if not no_discuss:
            hint.append(text("Phase 0 (Planner + Critic, 最大 3 ラウンド) の後に確認してください。",
                             "Ask after Phase 0 (Planner + Critic, at most 3 rounds)."))
        hint.append(text(f"承認: {pr.confirm_command(prepared)}   中止: gateway breezing abort",
                         f"yes: {pr.confirm_command(prepared)}   no: gateway breezing abort"))
        click.echo("\n".join(hint), err=True)
        return
    try:
        done = pr.initialise(root, prepared, team=team, model=model, codex_review=codex_review)
    except pr.StartError as e:
        fail(as_json, e.code, str(e), e.exit_code, aborted=e.aborted)
    if as_json:
        click.echo(json.dumps(done, ensure_ascii=False, indent=2))
        return
    from gateway.i18n import text
    from gateway.state.store import safe_text

    click.echo(text("Team 初期化 (Step 3)", "Team initialised (Step 3)")
               + f": session {done['session_id']}, Team {done['team_name']}, "
               f"impl_mode {done['impl_mode']}")
    click.echo(text("登録するタスク (この順に TaskCreate):",
                    "Tasks to register (TaskCreate, in this order):"))
    for e in done["register"]:
        blocked = f" blockedBy {', '.join(e['blockedBy'])}" if e["blockedBy"] else ""
        click.echo(f"  {e['id']}: {safe_text(e['subject'], 120)}{blocked}")
        click.echo(f"      activeForm: {safe_text(e['activeForm'], 120)}; owns: "
                   f"{safe_text(', '.join(e['owns']) or 'auto', 200)}")
    if done["batching"]:
        b = done["batching"]
        click.echo(f"Progressive Batch: batch 1 of {len(b['batches'])} registered now; the "
                   f"next when 60 % of it is done (next_batch_recommended): `gateway breezing "
                   f"batch`")
    for p in done["removed"]:
        click.echo(text("削除 (前のセッションの残り): ", "removed (left by an earlier session): ")
                   + p)
    click.echo(text("次:", "Next:"))
    for step in done["next"]:
        click.echo(f"  - {step}")


@click.command("abort")
@PROJECT
@AS_JSON
def abort(project, as_json):
    """End a /breezing preparation the user said no to (seed 001 早期中断): remove
    breezing-active.json, the phase record and the role files.

    A session whose team was already initialised is not removed here (resume it, or end it
    with `gateway state clean`). Exit 0 when removed or nothing was there; 3 when the state
    cannot be used or a team exists.

    \b
    Examples:
      gateway breezing abort
      gateway breezing abort --json
    """
    from gateway.orchestration import prepare as pr
    from gateway.state.store import StateError

    root = root_of(project)
    try:
        removed = pr.abort(root)
    except pr.StartError as e:
        fail(as_json, e.code, str(e), e.exit_code)
    except StateError as e:
        fail(as_json, "state_unusable", f"gateway: {e}", 3)
    if as_json:
        click.echo(json.dumps({"ok": True, "removed": removed}, ensure_ascii=False))
        return
    from gateway.i18n import text

    click.echo(text("中止しました: ", "aborted: ") + (", ".join(removed) if removed else text(
        "削除するファイルはありません", "there was nothing to remove")))


@click.command("next")
@click.option("--tasks-dir", type=click.Path(file_okay=False), default=None,
              help="Root of the Agent Teams task lists (default: $GATEWAY_TASKS_DIR, else "
                   "$CLAUDE_CONFIG_DIR/tasks, else ~/.claude/tasks).")
@PROJECT
@AS_JSON
def next_task(tasks_dir, project, as_json):
    """The task an implementer claims next (seed 001 Implementer の自律ループ): pending, every
    blockedBy completed, the lowest id. Reads the team's task list (read-only).

    Exit 0 with the id; 1 when nothing can be claimed now (the reason is printed); 3 when the
    session or the task list cannot be used.

    \b
    Examples:
      gateway breezing next                 # task-3
      gateway breezing next --json
    """
    from gateway.orchestration import registration, tasklist
    from gateway.state import files
    from gateway.state.store import StateError, safe_text

    root = root_of(project)
    try:
        active = files.load_active(root)
    except StateError as e:
        fail(as_json, "active_unusable", f"gateway: {e}", 3)
    if active is None or not active.team_name:
        fail(as_json, "no_team", "gateway: no breezing team is recorded (breezing-active.json "
                                 "has no team_name)", 3)
    try:
        team = tasklist.read_team(active.team_name, root=tasks_dir)
    except ValueError as e:
        fail(as_json, "team_name_unsafe", f"gateway: {e}", 3)
    if not team.exists or team.problem:
        fail(as_json, "tasklist_missing", f"gateway: the team's task list {team.path} is not "
                                          f"there{f' ({team.problem})' if team.problem else ''}",
             3)
    rows = [{"id": t.id, "status": t.status if not t.problem else "broken",
             "blocked_by": list(t.blocked_by)} for t in team.tasks.values()]
    tid = registration.claim_next(rows)
    counts = team.counts()
    if as_json:
        click.echo(json.dumps({"next": tid, "counts": counts}, ensure_ascii=False))
        if tid is None:
            sys.exit(1)
        return
    if tid is None:
        why = ("every task is completed" if counts["pending"] + counts["in_progress"] == 0
               else "every pending task waits for a task that is not completed")
        click.echo(f"nothing to claim: {why}", err=True)
        sys.exit(1)
    t = team.tasks.get(tid)
    click.echo(f"{safe_text(tid, 64)}" + (f" {safe_text(t.subject, 120)}" if t and t.subject
                                          else ""))
