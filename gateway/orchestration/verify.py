"""The integration check of Phase C (seed 001 検証実行規則, the same as ultrawork's): the project's
own checks, in the seed's order, each only when its file exists, stopping at the first failure.

==  ==================================  ===================================  ==========
#   runs when this exists               command                              kind
==  ==================================  ===================================  ==========
1   ``./tests/validate-plugin.sh``      ``bash ./tests/validate-plugin.sh``  check
2   ``./scripts/ci/check-consistency``  ``bash ./scripts/ci/check-...sh``    check
3   ``package.json`` ``test`` script    ``{pkg_mgr} test``                   test
4   ``package.json`` ``lint`` script    ``{pkg_mgr} run lint``               lint
5   ``pytest.ini`` / ``pyproject.toml`` ``pytest``                           test
6   ``Cargo.toml``                      ``cargo test``                       test
7   ``go.mod``                          ``go test ./...``                    test
==  ==================================  ===================================  ==========

``{pkg_mgr}`` is the package manager the project uses (``packageManager`` of package.json, else
its lock file: pnpm, yarn, bun; else npm) or ``--pkg-manager``; ``pytest`` can be replaced
(``--pytest '.venv/bin/python -m pytest -q'``). Nothing else is configurable: the seed says
every check that applies runs.

These are the project's own programs, run with the user's privileges in the project
directory. So before running anything the plan says what will run and where each program was
found: programs are looked up in the absolute directories of ``PATH`` only (a relative entry
such as ``.`` is skipped and said), a program found inside the project is marked so, and a
script step whose file is a symlink leading out of the project -- or not a regular file -- is
refused (the step fails, naming why). pytest's exit 5 (no tests collected) is recorded as
``no-tests`` and is not a failure.

Every step's result (status, exit code, duration, the tail of its output) is written to
``.claude/state/gateway-breezing-verify.json`` after the step (atomically), so the record is
there even when the run is interrupted.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import threading
import time

from gateway.state import fast, store
from gateway.state.layout import layout
from gateway.state.statedir import prepare_state_dir

__all__ = ["RECORD", "STEPS", "Step", "Planned", "plan", "run", "load_record",
           "package_manager", "test_counts", "VerifyError"]

RECORD = "gateway-breezing-verify.json"
DEFAULT_TIMEOUT = 1800.0
OUTPUT_TAIL = 8192
MAX_PACKAGE_JSON = 1 << 20
PKG_MANAGERS = ("npm", "pnpm", "yarn", "bun")


class VerifyError(Exception):
    """The check cannot be planned (a bad option, an unreadable package.json)."""


class Step:
    """One rung of the ladder: ``name``, the ``trigger`` file(s), ``kind``."""

    __slots__ = ("number", "name", "trigger", "kind")

    def __init__(self, number, name, trigger, kind):
        self.number, self.name, self.trigger, self.kind = number, name, trigger, kind


STEPS = (
    Step(1, "validate-plugin", "./tests/validate-plugin.sh", "check"),
    Step(2, "check-consistency", "./scripts/ci/check-consistency.sh", "check"),
    Step(3, "package-test", "package.json test script", "test"),
    Step(4, "package-lint", "package.json lint script", "lint"),
    Step(5, "pytest", "pytest.ini / pyproject.toml", "test"),
    Step(6, "cargo-test", "Cargo.toml", "test"),
    Step(7, "go-test", "go.mod", "test"),
)


class Planned:
    """A step as planned: ``applies`` (its file exists), ``argv`` (program resolved to an
    absolute path when found), ``display`` (the command as the seed writes it), ``notes``
    (where the program was found, why it is refused), ``refused`` (a reason, or None)."""

    __slots__ = ("step", "applies", "argv", "display", "notes", "refused", "result")

    def __init__(self, step, applies, argv=None, display="", notes=(), refused=None):
        self.step, self.applies, self.argv, self.display = step, applies, argv, display
        self.notes, self.refused = list(notes), refused
        self.result: dict | None = None

    def as_dict(self) -> dict:
        d = {"number": self.step.number, "name": self.step.name, "trigger": self.step.trigger,
             "kind": self.step.kind, "applies": self.applies, "command": self.display,
             "argv": self.argv, "notes": self.notes, "refused": self.refused}
        if self.result is not None:
            d.update(self.result)
        else:
            d["status"] = "not-present" if not self.applies else "not-run"
        return d


def _inside(root: str, path: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _package_json(project: str) -> dict | None:
    path = os.path.join(project, "package.json")
    try:
        data = store.read_json(path, max_bytes=MAX_PACKAGE_JSON)
    except store.StateMissing:
        return None
    except store.StateError as e:
        raise VerifyError(f"{path} {e.problem}: the package.json steps cannot be planned; fix "
                          f"the file") from None
    return data if isinstance(data, dict) else {}


def package_manager(project: str, pkg: dict | None) -> str:
    """The project's package manager: ``packageManager`` (``pnpm@8``), else the lock file."""
    pm = (pkg or {}).get("packageManager")
    if isinstance(pm, str):
        name = pm.split("@", 1)[0].strip()
        if name in PKG_MANAGERS:
            return name
    for lock, name in (("pnpm-lock.yaml", "pnpm"), ("yarn.lock", "yarn"),
                       ("bun.lockb", "bun"), ("bun.lock", "bun")):
        if os.path.lexists(os.path.join(project, lock)):
            return name
    return "npm"


def _which(program: str, env) -> tuple[str | None, list[str]]:
    """(absolute path or None, notes). Only absolute PATH entries are searched."""
    notes = []
    if "/" in program:
        return (os.path.abspath(program) if os.path.isfile(program)
                and os.access(program, os.X_OK) else None), notes
    skipped = []
    for d in (env.get("PATH") or "").split(os.pathsep):
        if not d or not os.path.isabs(d):
            skipped.append(d or "(empty)")
            continue
        cand = os.path.join(d, program)
        if os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand, notes
    if skipped:
        notes.append("relative PATH entries were not searched: " + ", ".join(skipped[:3]))
    return None, notes


def _script(project: str, rel: str) -> tuple[bool, str | None]:
    """(exists, refusal or None) for a script step's file."""
    path = os.path.join(project, rel)
    if not os.path.lexists(path):
        return False, None
    real = os.path.realpath(path)
    if not _inside(os.path.realpath(project), real):
        return True, f"{rel} leads out of the project (to {real}); it is not run"
    if not os.path.isfile(real):
        return True, f"{rel} is not a regular file; it is not run"
    return True, None


def plan(project_dir, *, pkg_manager: str | None = None, pytest: str | None = None,
         env=None) -> list[Planned]:
    """The seven steps, each with whether it applies and what it would run."""
    project = os.path.abspath(os.fspath(project_dir))
    env = os.environ if env is None else env
    if pkg_manager is not None and pkg_manager not in PKG_MANAGERS:
        raise VerifyError(f"--pkg-manager must be one of {', '.join(PKG_MANAGERS)}, not "
                          f"{pkg_manager!r}")
    pytest_argv = ["pytest"]
    if pytest:
        try:
            pytest_argv = shlex.split(pytest)
        except ValueError as e:
            raise VerifyError(f"--pytest {pytest!r} cannot be split into words: {e}") from None
        if not pytest_argv:
            raise VerifyError("--pytest is empty")
    pkg = _package_json(project)
    scripts = pkg.get("scripts") if isinstance(pkg, dict) else None
    scripts = scripts if isinstance(scripts, dict) else {}
    pm = pkg_manager or package_manager(project, pkg)
    real_root = os.path.realpath(project)
    out: list[Planned] = []
    for step in STEPS:
        argv: list[str] | None = None
        refused = None
        if step.number in (1, 2):
            rel = step.trigger[2:]
            applies, refused = _script(project, rel)
            argv = ["bash", "./" + rel]
        elif step.number in (3, 4):
            key = "test" if step.number == 3 else "lint"
            applies = isinstance(scripts.get(key), str) and bool(scripts.get(key).strip())
            argv = [pm, "test"] if step.number == 3 else [pm, "run", "lint"]
        elif step.number == 5:
            applies = any(os.path.lexists(os.path.join(project, f))
                          for f in ("pytest.ini", "pyproject.toml"))
            argv = list(pytest_argv)
        elif step.number == 6:
            applies = os.path.lexists(os.path.join(project, "Cargo.toml"))
            argv = ["cargo", "test"]
        else:
            applies = os.path.lexists(os.path.join(project, "go.mod"))
            argv = ["go", "test", "./..."]
        display = " ".join(shlex.quote(a) for a in argv)
        notes: list[str] = []
        if applies and refused is None:
            program = argv[0]
            if "/" in program and not os.path.isabs(program):
                program = os.path.join(project, program)
            found, notes = _which(program, env)
            if found is None:
                refused = (f"{argv[0]} was not found (the step applies because "
                           f"{step.trigger} exists)")
            else:
                real = os.path.realpath(found)
                where = f"{argv[0]} is {found}"
                if _inside(real_root, real) or _inside(project, found):
                    where += " (inside the project: the project's own program)"
                notes.insert(0, where)
                argv = [found] + argv[1:]
        out.append(Planned(step, applies, argv if applies else None, display, notes, refused))
    return out


_COUNTS = (
    (re.compile(rb"(\d+) passed"), re.compile(rb"(\d+) failed"), re.compile(rb"(\d+) errors?\b")),
)
_CARGO = re.compile(rb"test result: \w+\. (\d+) passed; (\d+) failed")
_JEST = re.compile(rb"Tests:\s+(?:(\d+) failed, )?(?:\d+ \w+, )*?(\d+) passed, (\d+) total")


def test_counts(output: bytes) -> tuple[int, int] | None:
    """(passed, total) from a test run's summary (pytest, cargo test, jest), or None."""
    m = _JEST.search(output)
    if m:
        return int(m.group(2)), int(m.group(3))
    cargo = _CARGO.findall(output)
    if cargo:
        p = sum(int(a) for a, _ in cargo)
        return p, p + sum(int(b) for _, b in cargo)
    tail = output[-4096:]
    lines = [ln for ln in tail.splitlines() if ln.strip().startswith(b"=") or b" in " in ln]
    for ln in reversed(lines):
        p = _COUNTS[0][0].search(ln)
        f = _COUNTS[0][1].search(ln)
        e = _COUNTS[0][2].search(ln)
        if p or f:
            passed = int(p.group(1)) if p else 0
            return passed, passed + (int(f.group(1)) if f else 0) + (int(e.group(1)) if e else 0)
    return None


def _run_one(argv: list[str], cwd: str, timeout: float,
             env=None) -> tuple[int | None, bytes, float, bool]:
    start = time.monotonic()
    proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True,
                            env=None if env is None else dict(env))
    tail = bytearray()

    def pump():
        for chunk in iter(lambda: proc.stdout.read(4096), b""):
            tail.extend(chunk)
            if len(tail) > 4 * OUTPUT_TAIL:
                del tail[:-OUTPUT_TAIL]

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    timed_out = False
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        proc.wait()
    except BaseException:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        proc.wait()
        raise
    reader.join(timeout=5)
    return (None if timed_out else proc.returncode), bytes(tail[-OUTPUT_TAIL:]), \
        time.monotonic() - start, timed_out


def load_record(project_dir) -> dict | None:
    """The last recorded run, or None (a record that cannot be read is None too)."""
    try:
        data = store.read_json(layout(project_dir).path(RECORD))
    except store.StateError:
        return None
    return data if isinstance(data, dict) else None


def run(project_dir, planned: list[Planned], *, timeout: float = DEFAULT_TIMEOUT,
        session_id: str | None = None, head: str | None = None, on_step=None,
        env=None) -> dict:
    """Run the applicable steps in order, stopping at the first failure; record after each
    step. ``on_step(planned)`` is called once for a step that does not apply, and before
    (``result`` None) and after each step that does. ``env``: the programs' environment
    (default: this process's). Returns the record."""
    project = os.path.abspath(os.fspath(project_dir))
    path = layout(project).path(RECORD)
    prepare_state_dir(project)      # refused before any program runs, never through a link
    record = {"session_id": session_id, "head": head, "started_at": fast.now_iso(),
              "finished_at": None, "ok": None, "stopped_at": None, "steps": []}

    def save():
        record["steps"] = [p.as_dict() for p in planned]
        with store.FileLock(path):
            store.atomic_write_json(path, record)

    stopped = None
    for p in planned:
        if not p.applies:
            if on_step:
                on_step(p)
            continue
        if stopped is not None:
            p.result = {"status": "not-run", "reason": f"stopped at step {stopped}"}
            if on_step:
                on_step(p)
            continue
        if on_step:
            on_step(p)
        if p.refused:
            p.result = {"status": "refused", "exit_code": None, "duration_s": 0.0,
                        "output_tail": "", "reason": p.refused}
        else:
            code, out, took, timed_out = _run_one(p.argv, project, timeout, env)
            status = ("timeout" if timed_out else "passed" if code == 0 else
                      "no-tests" if code == 5 and p.step.name == "pytest" else "failed")
            p.result = {"status": status, "exit_code": code, "duration_s": round(took, 2),
                        "output_tail": out.decode("utf-8", "replace")[-OUTPUT_TAIL:]}
            counts = test_counts(out) if p.step.kind == "test" else None
            if counts:
                p.result["tests"] = {"passed": counts[0], "total": counts[1]}
        if p.result["status"] not in ("passed", "no-tests"):
            stopped = p.step.number
            record["stopped_at"] = stopped
        save()
        if on_step:
            on_step(p)
    record["ok"] = stopped is None
    record["finished_at"] = fast.now_iso()
    save()
    return record
