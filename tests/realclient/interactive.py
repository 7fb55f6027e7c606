"""Interactive (TTY) sessions of the real Claude Code client against the scripted mock.

``run_session`` in :mod:`client` covers print mode (``claude -p``). This module runs the same
pinned client **without** ``-p``, in a pseudo-terminal, the way a human uses it: the prompt is
given on the command line, the scripted model makes its tool call(s), and the harness watches
the screen (a small terminal emulator, :mod:`screen`) for the permission dialog. It can answer
the dialog (Yes / No / Esc), notices when the turn is over, and always ends the session: on
timeout the whole process group is killed, so a test never hangs.

    res = run_interactive(CLAUDE, tmp_path / "proj", home=tmp_path / "home",
                          tool_use=bash("touch marker"), permission_mode="default",
                          user_settings=hooks_settings(("PreToolUse", "Bash", pre)),
                          hooks=[pre], answer="no")
    assert res.dialog_shown and "touch marker" in res.dialog_text
    assert res.tool_result.is_error           # the model was told the user said no

How the end of a turn is detected: the mock answers every agent request after the script with
a unique end token (``res.end_token``); the turn is over when that text is on the screen. A
dialog answered with No or Esc interrupts the turn before the client sends the tool_result;
the harness then submits ``followup`` (default ``"continue"``) so the next request carries
the tool_result and the mock can record it, unless ``followup=None``.

Stdlib only (pty, os, select). POSIX only.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import pty
import re
import select
import shutil
import signal
import struct
import tempfile
import termios
import time
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .client import (
    DEFAULT_PROMPT,
    ToolResult,
    _write_json,
    clean_env,
    seed_claude_json,
)
from .mock_api import Block, LoggedRequest, MockAnthropic, Turn, text
from .screen import Screen
from .standin import StandInHook

# --------------------------------------------------------------------------- dialog recognition

#: 2.1.330 permission dialogs: a question ("Do you want to proceed?", "Do you want to create
#: x?", ...), a list of choices (numbered "1. Yes" ... "4. No", or, in auto mode's fallback,
#: unnumbered "No" / "Yes"), and a footer line with "Esc to cancel".
_DIALOG_FOOTER = re.compile(r"Esc to cancel")
_DIALOG_QUESTION = re.compile(r"^\s*(?:Do you want to\b|Allow this\b.*\?$)")
_OPTION = re.compile(r"^\s*(❯)?\s*(?:(\d)\.\s+)?(\S.*?)\s*$")
_INTERRUPTED = "Interrupted · What should Claude do instead?"
_WORKING = "esc to interrupt"  # footer text while the client is busy
#: Auto mode with a mock API: the server-side safety check is unreachable; the client asks once
#: whether to stay in auto mode (then asks the human for each call that needed the check).
_AUTO_NOTICE = "Auto mode can't check actions in this session"
_AUTO_NOTICE_KEYS = "Enter to stay in auto mode"
#: The separator line above the dialog ("─" rule across the terminal).
_RULE = re.compile(r"^─{20,}$")
_UP, _DOWN = b"\x1b[A", b"\x1b[B"


@dataclass(frozen=True)
class Choice:
    number: str | None  # "1", "2", ... or None for an unnumbered list
    label: str
    selected: bool  # the ❯ cursor is on it


def _dialog_span(lines: list[str]) -> tuple[int, int, int] | None:
    """(first line, question line, footer line) of a dialog on the screen, or None."""
    q = next((i for i, ln in enumerate(lines) if _DIALOG_QUESTION.match(ln)), None)
    if q is None:
        return None
    foot = next((i for i in range(q, len(lines)) if _DIALOG_FOOTER.search(lines[i])), None)
    if foot is None:
        return None
    start = q
    for i in range(q, -1, -1):
        if _RULE.match(lines[i].strip()):
            start = i + 1
            break
    return start, q, foot


def dialog_choices(dialog_text: str) -> list[Choice]:
    """The choices of a dialog's text, top to bottom."""
    lines = dialog_text.splitlines()
    span = _dialog_span(lines)
    if span is None:
        return []
    _, q, foot = span
    out = []
    for ln in lines[q + 1 : foot]:
        m = _OPTION.match(ln)
        if m and ln.strip():
            out.append(Choice(m.group(2), m.group(3), m.group(1) is not None))
    return out


def find_dialog(screen_text: str) -> str | None:
    """The permission dialog's text if one is on the screen, else None.

    Recognised by the question line ("Do you want to …", or "Allow this … ?" for auto mode's
    read outside the working directories), a choice list containing a "Yes"
    choice, and the "Esc to cancel" footer. The text runs from the rule above the dialog to the
    footer.
    """
    lines = screen_text.splitlines()
    span = _dialog_span(lines)
    if span is None:
        return None
    start, _, foot = span
    text_ = "\n".join(ln.rstrip() for ln in lines[start : foot + 1]).strip("\n")
    if not any(_is_yes(c.label) for c in dialog_choices(text_)):
        return None
    return text_


def _is_no(label: str) -> bool:
    return label == "No" or label.startswith(("No,", "No "))


def _is_yes(label: str) -> bool:
    return label == "Yes" or label.startswith(("Yes,", "Yes "))


def _pick(choices: list[Choice], want: Any) -> int | None:
    """The index of the plain choice ("Yes" / "No"), else of the one that asks again next time
    (so the answer is not remembered), else of the first that matches at all."""
    matching = [i for i, c in enumerate(choices) if want(c.label)]
    for i in matching:
        if choices[i].label in ("Yes", "No"):
            return i
    for i in matching:
        if "ask again next time" in choices[i].label:
            return i
    return matching[0] if matching else None


def keys_for(answer: str, dialog_text: str) -> bytes:
    """The keystrokes that give ``answer`` (yes | no | esc) to the dialog."""
    if answer == "esc":
        return b"\x1b"
    if answer not in ("yes", "no"):
        raise ValueError(f"unknown answer {answer!r} (yes | no | esc | kill | None)")
    choices = dialog_choices(dialog_text)
    target = _pick(choices, _is_yes if answer == "yes" else _is_no)
    if target is None:
        raise ValueError(f"no {answer!r} choice in the dialog:\n{dialog_text}")
    if choices[target].number is not None:
        return choices[target].number.encode()  # a digit picks a numbered choice at once
    cur = next((i for i, c in enumerate(choices) if c.selected), 0)
    move = _DOWN * (target - cur) if target >= cur else _UP * (cur - target)
    return move + b"\r"


# --------------------------------------------------------------------------- result


@dataclass
class Dialog:
    text: str
    shown_at: float  # seconds since the client started
    closed_at: float | None = None
    answer: str | None = None  # what the harness pressed, if anything
    answered_at: float | None = None

    @property
    def visible_for(self) -> float | None:
        """Seconds the dialog was on the screen (None if it never closed)."""
        return None if self.closed_at is None else self.closed_at - self.shown_at


@dataclass
class InteractiveResult:
    dialogs: list[Dialog]
    tool_results: list[ToolResult]
    requests: list[LoggedRequest]
    auto_notices: list[float]  # when auto mode's "can't check actions" notice was answered
    hook_logs: dict[str, list[dict[str, Any]]]  # hook name -> payloads, in call order
    hook_times: dict[str, list[float]]  # hook name -> call times (seconds since start)
    screen: str  # the last screen
    raw: bytes  # everything the client wrote to the terminal
    project_dir: Path
    home: Path
    argv: list[str]
    duration: float
    done: str  # "end" (end token shown) | "interrupted" | "killed" (answer="kill") | "exited" | "timeout"
    end_token: str
    returncode: int | None
    script_left: int

    @property
    def timed_out(self) -> bool:
        return self.done == "timeout"

    @property
    def dialog_shown(self) -> bool:
        return bool(self.dialogs)

    @property
    def dialog_text(self) -> str | None:
        return self.dialogs[0].text if self.dialogs else None

    @property
    def tool_result(self) -> ToolResult:
        assert len(self.tool_results) == 1, (
            f"expected exactly one tool_result, got:\n{self.describe()}"
        )
        return self.tool_results[0]

    def describe(self) -> str:
        lines = [
            f"argv={self.argv!r} done={self.done} rc={self.returncode} "
            f"duration={self.duration:.1f}s script_left={self.script_left}",
            "dialogs:",
        ]
        for d in self.dialogs:
            lines.append(
                f"  shown_at={d.shown_at:.2f} closed_at={d.closed_at} answer={d.answer}\n"
                + "\n".join("    | " + ln for ln in d.text.splitlines())
            )
        lines.append("hooks:")
        for name, calls in self.hook_logs.items():
            ev = [c.get("hook_event_name") for c in calls]
            lines.append(f"  {name}: {ev} at {[round(t, 2) for t in self.hook_times[name]]}")
        lines.append("requests:")
        for r in self.requests:
            n_tools = len(r.body.get("tools") or []) if isinstance(r.body, dict) else 0
            lines.append(f"  #{r.seq} {r.method} {r.path} kind={r.kind} tools={n_tools}")
        lines.append("tool_results:")
        for t in self.tool_results:
            lines.append(f"  is_error={t.is_error} text={t.text[:500]!r}")
        lines.append(f"auto-mode notices answered at: {self.auto_notices}")
        lines.append("last screen (blank lines dropped):")
        lines += ["  | " + ln for ln in self.screen.splitlines() if ln.strip()]
        return "\n".join(lines)


# --------------------------------------------------------------------------- the session


def _waiting_for_user(shown: str, last: Dialog, now: float) -> bool:
    """After a rejected dialog: has the client stopped the turn and gone back to its prompt?

    A rejected Bash call prints "Interrupted · What should Claude do instead?"; a rejected
    edit prints "Rejected update to …" and nothing else. Both leave the working indicator
    ("esc to interrupt" in the footer) off once the client is idle.
    """
    if _INTERRUPTED in shown:
        return True
    closed = last.closed_at
    return closed is not None and now - closed >= 0.6 and _WORKING not in shown


def _spawn(
    argv: list[str], cwd: Path, env: dict[str, str], rows: int, cols: int
) -> tuple[int, int]:
    """fork a child on a new pty (it becomes session and process-group leader) and exec argv."""
    pid, fd = pty.fork()
    if pid == 0:  # child: set the size before the client reads it, then exec
        try:
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
            os.chdir(cwd)
            os.execve(argv[0], argv, env)
        finally:
            os._exit(127)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    return pid, fd


def _send(fd: int, data: bytes) -> None:
    """Type ``data``; a client that already exited is not an error (the loop sees EOF next)."""
    with contextlib.suppress(OSError):
        os.write(fd, data)


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _reap(pid: int, wait: float) -> int | None:
    deadline = time.monotonic() + wait
    while True:
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return None
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.02)


def run_interactive(
    claude: str | os.PathLike[str],
    project_dir: str | os.PathLike[str],
    *,
    tool_use: Block | list[Block] | None = None,
    script: list[Turn] | None = None,
    user_settings: dict[str, Any] | None = None,
    project_settings: dict[str, Any] | None = None,
    local_settings: dict[str, Any] | None = None,
    home: str | os.PathLike[str] | None = None,
    hooks: Iterable[StandInHook] = (),
    prompt: str = DEFAULT_PROMPT,
    permission_mode: str | None = None,
    model: str | None = None,
    extra_args: Sequence[str] = (),
    env_extra: dict[str, str] | None = None,
    api_key: str = "dummy",
    answer: str | Sequence[str | None] | None = None,
    answer_delay: float = 0.2,
    followup: str | None = "continue",
    settle: float = 0.3,
    rows: int = 50,
    cols: int = 140,
    timeout: float = 60.0,
) -> InteractiveResult:
    """Run the pinned client interactively in a pty, in ``project_dir``, against a fresh mock.

    ``answer``: what to do when a permission dialog is drawn, ``answer_delay`` seconds after
    it first appears: ``"yes"`` (choice 1), ``"no"`` (the "No" choice), ``"esc"``, ``"kill"``
    (end the session right away: for "is a dialog shown?" measurements) or ``None`` (leave it:
    it stays until a hook closes it or the timeout). A single word answers every dialog; a
    sequence gives one answer per dialog, in order, and dialogs beyond it are left alone.

    The other arguments are those of :func:`client.run_session`; ``hooks`` are stand-in hooks
    whose logs are returned in ``hook_logs`` / ``hook_times``. Settings files and the
    ``~/.claude.json`` trust entry are written as ``run_session`` writes them.
    """
    if (tool_use is None) == (script is None):
        raise ValueError("give exactly one of tool_use= or script=")
    if script is None:
        blocks = tool_use if isinstance(tool_use, list) else [tool_use]
        script = [list(blocks)]
    every: str | None = answer if isinstance(answer, str) or answer is None else None
    answers: list[str | None] = [] if every is not None or answer is None else list(answer)
    for a in [every, *answers]:
        if a not in (None, "yes", "no", "esc", "kill"):
            raise ValueError(f"unknown answer {a!r} (yes | no | esc | kill | None)")

    project = Path(project_dir).resolve()
    project.mkdir(parents=True, exist_ok=True)
    own_home = home is None
    home_path = (
        Path(tempfile.mkdtemp(prefix="realclient-home-")) if own_home else Path(home).resolve()
    )
    home_path.mkdir(parents=True, exist_ok=True)
    hooks = list(hooks)
    end_token = f"END-OF-TURN-{uuid.uuid4().hex[:8]}"

    try:
        (home_path / ".claude").mkdir(parents=True, exist_ok=True)
        if user_settings is not None:
            _write_json(home_path / ".claude" / "settings.json", user_settings)
        if project_settings is not None:
            _write_json(project / ".claude" / "settings.json", project_settings)
        if local_settings is not None:
            _write_json(project / ".claude" / "settings.local.json", local_settings)
        seed_claude_json(home_path, project, api_key)

        argv = [str(claude), prompt]
        if permission_mode:
            argv += ["--permission-mode", permission_mode]
        if model:
            argv += ["--model", model]
        argv += list(extra_args)

        with MockAnthropic(script=script, default_turn=[text(end_token)]) as mock:
            env = clean_env(home_path, mock.base_url, api_key, env_extra)
            env.setdefault("TERM", "xterm-256color")
            scr = Screen(rows, cols)
            raw = bytearray()
            dialogs: list[Dialog] = []
            current: Dialog | None = None
            pending_key: tuple[float, bytes, str] | None = None  # (when, key, answer)
            # after a No / Esc the client stops the turn and waits for the user: (requests
            # the mock had seen at that answer, whether the follow-up was typed already)
            rejected: list[Any] | None = None
            notices: list[float] = []
            notice_on = False
            done = "timeout"
            done_at: float | None = None
            t0_wall = time.time()
            t0 = time.monotonic()
            pid, fd = _spawn(argv, project, env, rows, cols)
            rc: int | None = None
            try:
                while True:
                    now = time.monotonic() - t0
                    if now >= timeout:
                        done = "timeout"
                        break
                    wait = 0.05
                    try:
                        ready, _, _ = select.select([fd], [], [], wait)
                    except InterruptedError:
                        ready = []
                    if ready:
                        try:
                            chunk = os.read(fd, 65536)
                        except OSError as e:
                            if e.errno != errno.EIO:
                                raise
                            chunk = b""
                        if not chunk:  # the client exited (EIO on Linux)
                            done = "exited"
                            break
                        raw += chunk
                        scr.feed(chunk)
                    now = time.monotonic() - t0
                    shown = scr.text()

                    notice = _AUTO_NOTICE in shown and _AUTO_NOTICE_KEYS in shown
                    if notice and not notice_on:
                        notice_on = True
                        notices.append(now)
                        time.sleep(0.2)
                        _send(fd, b"\r")  # stay in auto mode (once per appearance)
                        continue
                    notice_on = notice

                    dialog = find_dialog(shown)
                    if dialog is not None and current is None:
                        current = Dialog(text=dialog, shown_at=now)
                        dialogs.append(current)
                        idx = len(dialogs) - 1
                        ans = (
                            every
                            if every is not None
                            else (answers[idx] if idx < len(answers) else None)
                        )
                        if ans == "kill":
                            current.answer = "kill"
                            done = "killed"
                            # give parallel hooks (PermissionRequest) a moment to log
                            time.sleep(settle)
                            break
                        if ans is not None:
                            pending_key = (now + answer_delay, keys_for(ans, dialog), ans)
                    elif dialog is None and current is not None:
                        current.closed_at = now
                        current = None
                        pending_key = None

                    if pending_key is not None and now >= pending_key[0] and current is not None:
                        _send(fd, pending_key[1])
                        current.answer, current.answered_at = pending_key[2], now
                        if pending_key[2] in ("no", "esc"):
                            rejected = [len(mock.requests), False]
                        pending_key = None

                    if done_at is None:
                        if end_token in shown:
                            done_at = now
                            done = "end"
                        elif (
                            rejected is not None
                            and not rejected[1]
                            and current is None
                            and _waiting_for_user(shown, dialogs[-1], now)
                            and len(mock.requests) == rejected[0]
                        ):
                            if followup:
                                rejected[1] = True
                                time.sleep(0.2)
                                _send(fd, followup.encode())
                                time.sleep(0.2)
                                _send(fd, b"\r")
                            else:
                                done_at = now
                                done = "interrupted"
                    elif now - done_at >= settle:
                        break
            finally:
                _kill_group(pid)
                rc = _reap(pid, 5.0)
                os.close(fd)
            duration = time.monotonic() - t0
            requests = list(mock.requests)
            results = [
                ToolResult(r["tool_use_id"], r["is_error"], r["text"], r["raw"])
                for r in mock.tool_results()
            ]
            left = mock.remaining
        hook_logs: dict[str, list[dict[str, Any]]] = {}
        hook_times: dict[str, list[float]] = {}
        for h in hooks:
            entries = h.entries()
            hook_logs[h.name] = [e["payload"] for e in entries]
            hook_times[h.name] = [e["at"] - t0_wall for e in entries]
        return InteractiveResult(
            dialogs=dialogs,
            tool_results=results,
            requests=requests,
            auto_notices=notices,
            hook_logs=hook_logs,
            hook_times=hook_times,
            screen=scr.text(),
            raw=bytes(raw),
            project_dir=project,
            home=home_path,
            argv=argv,
            duration=duration,
            done=done,
            end_token=end_token,
            returncode=rc,
            script_left=left,
        )
    finally:
        if own_home:
            if os.environ.get("GATEWAY_REALCLIENT_KEEP") == "1":
                print(f"[realclient] kept HOME {home_path}")
            else:
                shutil.rmtree(home_path, ignore_errors=True)


__all__ = [
    "Dialog",
    "InteractiveResult",
    "Choice",
    "dialog_choices",
    "keys_for",
    "find_dialog",
    "run_interactive",
]
