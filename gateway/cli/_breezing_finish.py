"""`gateway breezing verify | finish`: Phase C of /breezing (seed 001 完了ステージ)."""

import json
import sys

import click

from gateway.cli._breezing_start import AS_JSON, PROJECT, fail, root_of

_PKG = click.option("--pkg-manager", type=click.Choice(["npm", "pnpm", "yarn", "bun"]),
                    default=None, help="{pkg_mgr} of the package.json steps (default: from "
                                       "packageManager or the lock file, else npm).")
_PYTEST = click.option("--pytest", "pytest_cmd", default=None, metavar="COMMAND",
                       help="The pytest command (default: pytest), e.g. '.venv/bin/python -m "
                            "pytest -q'.")
_TIMEOUT = click.option("--timeout", type=click.FloatRange(min=1), default=1800.0,
                        show_default=True, help="Seconds each step may take.")

_ICON = {"passed": "✅", "no-tests": "✅", "failed": "❌", "timeout": "❌", "refused": "⛔",
         "not-run": "·"}


def _describe(p) -> str:
    return f"{p.step.number}. {p.step.trigger}: {p.display}"


def _printer(as_json, indent=""):
    """on_step for verify.run: the human screen prints each step as it starts and ends."""
    if as_json:
        return None

    def echo(text):
        click.echo(indent + text)

    def on_step(p):
        if not p.applies:
            echo(f"{p.step.number}. {p.step.trigger}: not present")
            return
        if p.result is None:
            echo(_describe(p))
            for n in p.notes:
                echo(f"   {n}")
            return
        r = p.result
        if r["status"] == "not-run":
            echo(f"{_describe(p)}: not run ({r['reason']})")
            return
        parts = [f"exit {r['exit_code']}"] if r.get("exit_code") not in (None, 0) else []
        if (r.get("duration_s") or 0) >= 1:
            parts.append(f"{round(r['duration_s'])}s")
        if r.get("tests"):
            parts.append(f"{r['tests']['passed']}/{r['tests']['total']} tests passed")
        echo(f"   {_ICON.get(r['status'], '?')} {r['status']}"
             + (f" ({', '.join(parts)})" if parts else ""))
        if r["status"] == "refused":
            echo(f"   {r['reason']}")
        elif r["status"] not in ("passed", "no-tests"):
            tail = [ln for ln in (r.get("output_tail") or "").splitlines() if ln.strip()][-20:]
            for ln in tail:
                echo(f"   | {ln}")
    return on_step


HEADER = ("The project's own checks, in seed 001's order (project code, run with your "
          "privileges in the project directory):")


@click.command("verify")
@_PKG
@_PYTEST
@_TIMEOUT
@click.option("--dry-run", is_flag=True, help="Show what would run; run nothing.")
@PROJECT
@AS_JSON
def verify_cmd(pkg_manager, pytest_cmd, timeout, dry_run, project, as_json):
    """The integration check (seed 001 検証実行規則): the project's checks in order, each only
    when its file exists, stopping at the first failure.

    \b
      1 ./tests/validate-plugin.sh        bash ./tests/validate-plugin.sh
      2 ./scripts/ci/check-consistency.sh bash ./scripts/ci/check-consistency.sh
      3 package.json "test" script        {pkg_mgr} test
      4 package.json "lint" script        {pkg_mgr} run lint
      5 pytest.ini / pyproject.toml       pytest
      6 Cargo.toml                        cargo test
      7 go.mod                            go test ./...

    These are the project's own programs: the screen says what runs and where each program
    was found (only absolute PATH directories are searched; a program inside the project is
    marked; a script leading out of the project is refused). Each step's result is recorded
    in .claude/state/gateway-breezing-verify.json.

    \b
    Exit status: 0 every step that applies passed (or none applies); 1 a step failed, timed
    out or was refused; 2 a bad option or an unreadable package.json.

    \b
    Examples:
      gateway breezing verify --dry-run
      gateway breezing verify
      gateway breezing verify --pytest '.venv/bin/python -m pytest -q' --json
    """
    from gateway.orchestration import review, verify
    from gateway.state import files
    from gateway.state.statedir import prepare_state_dir
    from gateway.state.store import StateError

    root = root_of(project)
    try:
        planned = verify.plan(root, pkg_manager=pkg_manager, pytest=pytest_cmd)
    except verify.VerifyError as e:
        fail(as_json, "bad_option", f"gateway: {e}", 2)
    if dry_run:
        if as_json:
            click.echo(json.dumps({"dry_run": True, "steps": [p.as_dict() for p in planned]},
                                  ensure_ascii=False, indent=2))
            return
        click.echo(HEADER)
        for p in planned:
            if not p.applies:
                click.echo(f"{p.step.number}. {p.step.trigger}: not present")
                continue
            click.echo(_describe(p) + (" (refused)" if p.refused else " (would run)"))
            for n in p.notes + ([p.refused] if p.refused else []):
                click.echo(f"   {n}")
        return
    try:
        active = files.load_active(root)
    except StateError:
        active = None
    try:
        prepare_state_dir(root)     # where the record goes: refused before anything runs
    except StateError as e:
        fail(as_json, "state", f"gateway: {e}", 1)
    if not as_json:
        click.echo(HEADER)
    try:
        record = verify.run(root, planned, timeout=timeout,
                            session_id=active.session_id if active else None,
                            head=review.git_head(root), on_step=_printer(as_json))
    except StateError as e:
        fail(as_json, "state", f"gateway: {e}", 1)
    if as_json:
        click.echo(json.dumps(record, ensure_ascii=False, indent=2))
    else:
        ran = [s for s in record["steps"] if s["applies"]]
        if record["ok"]:
            click.echo(f"Result: ✅ {len(ran)} step(s) passed" if ran else
                       "Result: no step applies (none of the files exists)")
        else:
            rest = [str(s["number"]) for s in ran if s["status"] == "not-run"]
            click.echo(f"Result: ❌ stopped at step {record['stopped_at']}"
                       + (f"; not run: {', '.join(rest)}" if rest else ""))
    if not record["ok"]:
        sys.exit(1)


@click.command("finish")
@click.option("--approved", is_flag=True,
              help="The user confirmed the Reviewer's APPROVE (needed when the fast path "
                   "does not hold).")
@click.option("--cleanup", is_flag=True,
              help="After the commit: remove the session's state and print the report.")
@click.option("--no-commit", is_flag=True,
              help="With --cleanup: there was nothing to commit (otherwise the cleanup waits "
                   "for a commit after finish).")
@_PKG
@_PYTEST
@_TIMEOUT
@click.option("--plans", "plans_path", type=click.Path(dir_okay=False), default=None,
              help="Plans.md (default: Plans.md in the project).")
@PROJECT
@AS_JSON
def finish(approved, cleanup, no_commit, pkg_manager, pytest_cmd, timeout, plans_path, project,
           as_json):
    """Phase C (seed 001 完了ステージ), in two calls around the Lead's commit.

    \b
    gateway breezing finish            2. APPROVE fast path (review-result.json: APPROVE,
                                          commit_hash = HEAD, this session), else --approved
                                       3. the integration check (gateway breezing verify)
                                       4. Plans.md: the session's tasks cc:TODO → cc:done,
                                          in one atomic write
    (the Lead)                         5. git commit (Conventional Commits)
    gateway breezing finish --cleanup  6-7. breezing-active.json, review-result.json, the
                                          role files, signals and phase record removed
                                       9. the completion report (also --json)
    (the Lead)                         8. Team cleanup

    Needs `gateway breezing phase C` first, and every task of the team's task list
    completed. Nothing is changed when a step refuses.

    \b
    Exit status: 0 done; 1 refused (the message says why and what to do); 2 a bad option;
    3 a state file or Plans.md cannot be used.

    \b
    Examples:
      gateway breezing phase C && gateway breezing finish
      gateway breezing finish --approved          # the user confirmed APPROVE
      git commit -am 'feat: auth flow' && gateway breezing finish --cleanup
    """
    from gateway.orchestration import finish as fin

    root = root_of(project)
    if cleanup:
        try:
            report = fin.cleanup(root, plans_path=plans_path, no_commit=no_commit)
        except fin.FinishError as e:
            fail(as_json, e.code, str(e), e.exit_code)
        if as_json:
            click.echo(json.dumps(report, ensure_ascii=False, indent=2))
            return
        click.echo(fin.render(report))
        click.echo("", err=True)
        from gateway.i18n import text

        removed = ", ".join(report["removed"])
        click.echo(text("削除: " + (removed or "なし") + "。次: Team クリーンアップ (Agent Teams)",
                        "removed: " + (removed or "nothing") + ". Next: clean up the team "
                        "(Agent Teams)"), err=True)
        return
    def on_fast_path(fp):
        if not as_json:
            from gateway.i18n import text

            click.echo(text("Phase C (seed 001 完了ステージ):", "Phase C (seed 001, finishing):"))
            click.echo(f"2. APPROVE fast path: {'yes' if fp['ok'] else 'no'} ({fp['reason']})"
                       + ("" if fp["ok"] else "; the user confirmed APPROVE (--approved)"))
            click.echo("3. integration check:")

    try:
        done = fin.complete(root, approved=approved, pkg_manager=pkg_manager,
                            pytest=pytest_cmd, timeout=timeout, plans_path=plans_path,
                            on_step=_printer(as_json, "   "), on_fast_path=on_fast_path)
    except fin.FinishError as e:
        extra = {"detail": e.detail} if as_json and e.detail is not None else {}
        fail(as_json, e.code, str(e), e.exit_code, **extra)
    if as_json:
        click.echo(json.dumps(done, ensure_ascii=False, indent=2))
        return
    ran = [s for s in done["verify"]["steps"] if s["applies"]]
    click.echo(f"   ✅ {len(ran)} step(s) passed" if ran else "   no step applies")
    click.echo("4. Plans.md: cc:done " + (", ".join(done["plans_done"]) if done["plans_done"]
                                          else "(already done)"))
    for note in done["notes"]:
        click.echo(f"⚠️ {note}")
    from gateway.i18n import text

    click.echo(text("次:", "Next:"))
    for step in done["next"]:
        click.echo(f"  - {step}")
