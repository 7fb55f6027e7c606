"""`gateway breezing ...`: the /breezing workflow's steps (seeds 000/001): `start`, `abort`,
`next` (Phase A, gateway/cli/_breezing_start.py), `phase` (the delegate-mode guard's record),
`verify` and `finish` (Phase C, gateway/cli/_breezing_finish.py)."""

import os
import sys

import click

from gateway.cli._project import PROJECT_HELP, default_project

EXIT_PROBLEM = 1


@click.group("breezing")
def command():
    """The /breezing workflow (docs/breezing.md; phases: docs/guards.md#delegate-mode-guard).

    \b
    Examples:
      gateway breezing start --range 認証機能からユーザー管理まで   Phase A: the screen
      gateway breezing start --range ... --yes     the team initialisation (Step 3)
      gateway breezing next                        the task an implementer claims next
      gateway breezing phase B     enter delegate mode: the Lead uses only the Task tools
      gateway breezing phase C     leave it (every task done and approved)
      gateway breezing phase       show the recorded phase
      gateway breezing verify      the integration check
      gateway breezing finish      Phase C: fast path, check, Plans.md (then --cleanup)
    """


@command.command("phase")
@click.argument("phase", required=False, type=click.Choice(["A", "B", "C"],
                                                           case_sensitive=False))
@click.option("--project", type=click.Path(file_okay=False, exists=True), default=None,
              help=PROJECT_HELP)
def phase(phase, project):
    """Record (or, without PHASE, show) the breezing phase.

    Phase B is the delegate phase: while it is recorded for the running breezing session
    (breezing-active.json), the Lead may use only TaskCreate, TaskUpdate, TaskList, TaskGet
    and SendMessage, and the Bash command `gateway breezing phase C`. A (prepare) and C
    (finish) keep the user's permission mode. Removing breezing-active.json (Phase C cleanup,
    early abort, `gateway state clean`) ends the phase too. PHASE is A, B or C (either case).
    Exit 1 when the state cannot be read or written (the message names the file and the
    repair), or for B without a breezing session.

    \b
    Examples:
      gateway breezing phase                    # show: "phase B (since ...; in effect)"
      gateway breezing phase B                  # the Lead delegates from now on
      gateway breezing phase C                  # every task done and approved
      gateway breezing phase B --project ~/src/app
    """
    from gateway.state import fast
    from gateway.state.store import StateError

    root = os.path.abspath(project) if project else default_project()
    try:
        if phase is None:
            from gateway.state.layout import check_state_dir

            present = check_state_dir(root)     # a linked state directory: the guards' refusal
            rec = fast.load_phase(root) if present else None
            eff = fast.effective_phase(root) if present else None
            if rec is None:
                click.echo("no phase recorded")
            else:
                state = "in effect" if eff is not None else (
                    "not in effect: no breezing-active.json, or it belongs to another session")
                click.echo(f"phase {rec.phase} (since {rec.set_at}; {state})")
            return
        phase = phase.upper()
        active = fast.load_active_view(root)
        if active is None and phase == "B":
            click.echo("gateway: no breezing session (.claude/state/breezing-active.json is "
                       "absent): Phase B would have no effect. Start a run first: `gateway "
                       "breezing start --range ...` (seed 001 Step 0).", err=True)
            sys.exit(EXIT_PROBLEM)
        rec = fast.set_phase(root, phase)
    except StateError as exc:
        click.echo(f"gateway: {exc}", err=True)
        sys.exit(EXIT_PROBLEM)
    what = {"A": "prepare (the user's permission mode)",
            "B": "delegate (the Lead uses only the Task tools and SendMessage)",
            "C": "finish (the user's permission mode)"}[phase]
    session = f" for breezing session {rec.session_id}" if rec.session_id else ""
    click.echo(f"phase {phase}: {what}{session}")
    if phase == "B":
        missing = _unregistered(root)
        if missing:
            click.echo(f"gateway: {missing}; a teammate that starts later registers with one "
                       f"Bash command, `gateway breezing register implementer|reviewer` "
                       f"(allowed in Phase B), and the Lead assigns its files; until then it may "
                       f"only read (GW821)", err=True)


def _unregistered(root):
    """Phase B does not wait for the team: say which teammates have not registered yet."""
    from gateway.state import fast, files
    from gateway.state.store import StateError

    try:
        active = files.load_active(root)
        roles = fast.load_session_roles(root)
    except StateError:
        return None
    if active is None or active.team is None:
        return None
    want = {"implementer": active.team.implementer_count or 0,
            "reviewer": active.team.reviewer_count or 0}
    have = {r: sum(1 for v in roles.values() if v.role == r) for r in want}
    short = [f"{r} {have[r]}/{n}" for r, n in want.items() if have[r] < n]
    if not short:
        return None
    return "not every teammate is registered yet (" + ", ".join(short) + ")"


def _register():
    from gateway.cli import _breezing_finish, _breezing_start, _breezing_team

    for cmd in (_breezing_start.start, _breezing_start.abort, _breezing_start.next_task,
                _breezing_team.register, _breezing_team.review, _breezing_team.batch,
                _breezing_team.status, _breezing_finish.verify_cmd, _breezing_finish.finish):
        command.add_command(cmd)


_register()
