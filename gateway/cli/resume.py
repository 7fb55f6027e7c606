"""`gateway resume`: continue the previous /breezing session (seed 000 「続きやって」)."""

import json
import os
import sys

import click

from gateway.cli._project import PROJECT_HELP, default_project


@click.command("resume")
@click.option("--project", type=click.Path(file_okay=False, exists=True), default=None,
              help=PROJECT_HELP)
@click.option("--yes", "-y", is_flag=True,
              help="Perform Step 3's state changes (after the user approved the screen).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (for skills).")
@click.option("--team", default=None,
              help="Name of the new team (default: the old name with -r2, -r3, ...).")
@click.option("--include-added", is_flag=True,
              help="Also register the unfinished Plans.md tasks added next to the mapped ones.")
@click.option("--mode", type=click.Choice(["standard", "codex"]), default=None,
              help="The mode of the skill that is running (/breezing --codex: codex); a "
                   "mismatch with impl_mode is reported.")
@click.option("--tasks-dir", type=click.Path(file_okay=False), default=None,
              help="Root of the Agent Teams task lists (default: $GATEWAY_TASKS_DIR, else "
                   "$CLAUDE_CONFIG_DIR/tasks, else ~/.claude/tasks).")
@click.option("--plans", "plans_path", type=click.Path(dir_okay=False), default=None,
              help="Plans.md to read (default: Plans.md in the project).")
@click.option("--list", "list_", is_flag=True,
              help="Show the recorded session (the same as without options: one breezing "
                   "session is recorded per project).")
def command(project, yes, as_json, team, include_added, mode, tasks_dir, plans_path, list_):
    """Show the previous /breezing session (Step 2) and, with --yes, reset it for a new team
    (Step 3): in-progress tasks back to pending, new task ids in plans_md_mapping, a new
    session id and team name, stale role files and the phase record removed.

    Reads .claude/state/breezing-active.json, the team's task list and Plans.md; when the task
    list is gone the states come from the Plans.md markers, tasks already cc:done or removed
    from Plans.md are skipped, and a renumbered section is found again by its title. Creating
    the team, TaskCreate and spawning stay with the Lead: --yes prints the tasks to register,
    in order, with the ids they will get.

    \b
    Exit status: 0 shown / done; 1 no previous session (前回のセッションが見つかりません /
    no previous session was found); 3 the state cannot be used (the message names the file
    and the repair). Screens are in Japanese for a Japanese locale (LANG=ja_JP.UTF-8) or
    GATEWAY_LANG=ja, else in English.

    \b
    Examples:
      gateway resume                       # the screen: 前回のセッション: ...
      gateway resume --json                # the same for a skill
      gateway resume --yes                 # after the user said yes
      gateway resume --yes --team breezing-auth-2 --include-added
    """
    from gateway.orchestration import resume as rs
    from gateway.orchestration.restore import mode_mismatch

    root = os.path.abspath(project) if project else default_project()
    try:
        report = rs.inspect(root, tasks_root=tasks_dir, plans_path=plans_path)
    except rs.ResumeError as exc:
        if as_json:
            click.echo(json.dumps({"found": exc.code != "not_found", "error": exc.code,
                                   "message": str(exc)}, ensure_ascii=False))
        else:
            click.echo(str(exc), err=exc.exit_code != rs.EXIT_NOT_FOUND)
        sys.exit(exc.exit_code)
    mismatch = mode_mismatch(report.active.impl_mode, mode)
    if not yes:
        if as_json:
            out = rs.as_json(report, include_added)
            out["mode_mismatch"] = mismatch
            click.echo(json.dumps(out, ensure_ascii=False, indent=2))
        else:
            click.echo(rs.screen(report))
            if mismatch:
                click.echo(f"gateway: {mismatch}", err=True)
        return
    try:
        done = rs.apply(root, report, team=team, include_added=include_added)
    except rs.ResumeError as exc:
        click.echo(str(exc), err=True)
        sys.exit(exc.exit_code)
    done["mode_mismatch"] = mismatch
    if as_json:
        click.echo(json.dumps(done, ensure_ascii=False, indent=2))
        return
    from gateway.i18n import text
    from gateway.orchestration.restore import IMPLEMENTER_AGENT, REVIEWER_AGENT
    from gateway.state.store import safe_text

    click.echo(rs.screen(report).rsplit("\n", 1)[0].rstrip("\n"))
    click.echo("")
    click.echo(text(f"再開の準備ができました: session {done['session_id']} "
                    f"(前回 {safe_text(done['resumed_from'])}), Team {done['team_name']}",
                    f"Ready to resume: session {done['session_id']} (previously "
                    f"{safe_text(done['resumed_from'])}), Team {done['team_name']}"))
    if done["tasks"] or done["fix_tasks"]:
        click.echo(text("登録するタスク (この順に TaskCreate):",
                        "Tasks to register (TaskCreate, in this order):"))
        for t in done["tasks"]:
            was = text(" (前回は中断)", " (interrupted before)") if t["was"] == "in_progress" \
                else ""
            deps = f" blockedBy {', '.join(t['blocked_by'])}" if t["blocked_by"] else ""
            click.echo(f"  {t['id']} ({safe_text(t['section'])}) {safe_text(t['title'], 120)}"
                       f"{was}{deps}")
    for f in done["fix_tasks"]:
        click.echo(text(f"  {safe_text(f['subject'], 120)} (REQUEST_CHANGES の修正タスク: この件名で "
                        f"TaskCreate)",
                        f"  {safe_text(f['subject'], 120)} (a fix task after REQUEST_CHANGES: "
                        f"TaskCreate with this subject)"))
    if not done["tasks"] and not done["fix_tasks"]:
        click.echo(text("登録するタスクはありません: 全タスク完了済み (Phase C へ)",
                        "Nothing to register: every task is completed (go on to Phase C)"))
    for p in done["removed"]:
        click.echo(text("削除: ", "removed: ") + p)
    n = done["implementer_count"]
    click.echo(text(f"次: Team {done['team_name']} を作成し、Implementer "
                    f"{n if n else 'N'} 個 ({IMPLEMENTER_AGENT[done['impl_mode']]}) と Reviewer 1 個 "
                    f"({REVIEWER_AGENT}) を spawn、delegate mode (gateway breezing phase B) で"
                    f"実装サイクルから再開",
                    f"Next: create Team {done['team_name']}, spawn {n if n else 'N'} "
                    f"implementer(s) ({IMPLEMENTER_AGENT[done['impl_mode']]}) and 1 reviewer "
                    f"({REVIEWER_AGENT}), enter delegate mode (gateway breezing phase B) and "
                    f"resume the implementation cycle"))
    if mismatch:
        click.echo(f"gateway: {mismatch}", err=True)
