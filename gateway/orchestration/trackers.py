"""The issue tracker behind a spec's task steps (seed 002: ``task/start`` puts the Sub Issue
In Progress, ``task/done`` puts it to Done and closes it), as one small interface:

    tracker.start(issue) -> str      what was done (one sentence)
    tracker.done(issue) -> str
    raises TrackerError              the step did not happen (the message says why)

Implementations (``get(name)``):

* ``none`` (the default) -- does nothing and says what to do by hand; the step is still
  recorded as run, because the user asked for it;
* ``gh`` -- the GitHub CLI: done is ``gh issue close N --reason completed``; GitHub issues have
  no In Progress state, so start only says so;
* ``craft-kit`` -- the seed's own commands, ``npx tsx .cc-craft-kit/commands/task/{start,done}
  .ts N`` in the project (project code, run with your privileges: the message says so);
* ``RecordingTracker`` -- records the calls, for tests (no network, no process).

Every command runs with a timeout, without a shell, from the project directory, and its
program is looked up in the absolute PATH directories only.
"""

from __future__ import annotations

import os
import subprocess

__all__ = ["TrackerError", "Tracker", "NoTracker", "GhTracker", "CraftKitTracker",
           "RecordingTracker", "NAMES", "get"]

NAMES = ("none", "gh", "craft-kit")
TIMEOUT = 120


class TrackerError(Exception):
    pass


class Tracker:
    name = "abstract"

    def start(self, issue: int) -> str:
        raise NotImplementedError

    def done(self, issue: int) -> str:
        raise NotImplementedError


class NoTracker(Tracker):
    name = "none"

    def start(self, issue: int) -> str:
        return f"no tracker configured: put issue #{issue} In Progress yourself"

    def done(self, issue: int) -> str:
        return f"no tracker configured: close issue #{issue} yourself"


def _which(program: str, env) -> str | None:
    for d in (env.get("PATH") or "").split(os.pathsep):
        if d and os.path.isabs(d):
            cand = os.path.join(d, program)
            if os.path.isfile(cand) and os.access(cand, os.X_OK):
                return cand
    return None


class _CommandTracker(Tracker):
    def __init__(self, project: str, env=None):
        self.project = project
        self.env = os.environ if env is None else env

    def _run(self, argv: list[str], what: str) -> str:
        exe = _which(argv[0], self.env)
        if exe is None:
            raise TrackerError(f"{argv[0]} was not found in PATH: {what} did not happen")
        try:
            p = subprocess.run([exe, *argv[1:]], cwd=self.project, capture_output=True,
                               text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL,
                               env=dict(self.env))
        except subprocess.TimeoutExpired:
            raise TrackerError(f"`{' '.join(argv)}` took longer than {TIMEOUT}s: {what} may "
                               f"not have happened") from None
        except OSError as e:
            raise TrackerError(f"`{' '.join(argv)}` could not run ({e.strerror})") from None
        if p.returncode != 0:
            err = " ".join((p.stderr or p.stdout or "").split())[:300]
            raise TrackerError(f"`{' '.join(argv)}` failed (exit {p.returncode}): {err}")
        return f"ran `{' '.join(argv)}`"


class GhTracker(_CommandTracker):
    name = "gh"

    def start(self, issue: int) -> str:
        return (f"GitHub issues have no In Progress state: nothing to do for issue #{issue} "
                f"(a project board needs --tracker craft-kit)")

    def done(self, issue: int) -> str:
        return self._run(["gh", "issue", "close", str(int(issue)), "--reason", "completed"],
                         f"closing issue #{issue}")


class CraftKitTracker(_CommandTracker):
    name = "craft-kit"
    SCRIPT = os.path.join(".cc-craft-kit", "commands", "task", "{step}.ts")

    def _step(self, step: str, issue: int) -> str:
        script = self.SCRIPT.format(step=step)
        if not os.path.isfile(os.path.join(self.project, script)):
            raise TrackerError(f"{script} does not exist in the project: the craft-kit "
                               f"tracker runs the project's own task/{step} command")
        return self._run(["npx", "tsx", script, str(int(issue))],
                         f"task/{step} for issue #{issue}") + " (project code)"

    def start(self, issue: int) -> str:
        return self._step("start", issue)

    def done(self, issue: int) -> str:
        return self._step("done", issue)


class RecordingTracker(Tracker):
    """For tests: ``calls`` is the list of ``(step, issue)``; ``fail`` makes a step raise."""

    name = "recording"

    def __init__(self, fail: str | None = None):
        self.calls: list[tuple[str, int]] = []
        self.fail = fail

    def _call(self, step: str, issue: int) -> str:
        self.calls.append((step, issue))
        if self.fail == step:
            raise TrackerError(f"recorded failure of {step} for issue #{issue}")
        return f"recorded {step} of issue #{issue}"

    def start(self, issue: int) -> str:
        return self._call("start", issue)

    def done(self, issue: int) -> str:
        return self._call("done", issue)


def get(name: str, project: str, env=None) -> Tracker:
    if name == "none":
        return NoTracker()
    if name == "gh":
        return GhTracker(project, env)
    if name == "craft-kit":
        return CraftKitTracker(project, env)
    raise TrackerError(f"unknown tracker {name!r}: one of {', '.join(NAMES)}")
