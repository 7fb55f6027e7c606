"""``work/cmd_NNN/`` of seed 004 (claude-crew): a new command directory, and finding the
existing ones.

A new directory takes the number after the highest existing ``cmd_NNN`` (three digits at least,
``cmd_001``), made with one ``mkdir`` -- atomic: of two callers asking for the same number, one
gets ``FileExistsError`` -- and retried at most 5 times (the seed's new_cmd.sh). The gateway's
callers also take a lock (``work/.cmd.lock``, flock) around the scan and the ``mkdir``, so they
never race each other at all; the retries cover other creators (the seed's own script, a
human). ``tasks/`` and ``results/`` are created inside.

``work`` must be a real directory inside the project: a symlink (``work -> /elsewhere``) is
refused, so a command id always names a directory under the project.
"""

from __future__ import annotations

import os
import re
import stat

from gateway.state import store

from .crew import CrewError

__all__ = ["WORK", "MAX_RETRIES", "CMD_RX", "new_cmd", "list_cmds", "cmd_dir", "latest_cmd"]

WORK = "work"
MAX_RETRIES = 5
CMD_RX = re.compile(r"cmd_(\d{3,9})")


def _work(root: str, create: bool) -> str:
    work = os.path.join(root, WORK)
    try:
        st = os.lstat(work)
    except FileNotFoundError:
        if not create:
            raise CrewError(f"{work} does not exist: no crew command has been created "
                            f"(gateway crew new)") from None
        os.makedirs(work, exist_ok=True)
        st = os.lstat(work)
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
        raise CrewError(f"{work} is not a plain directory (a symlink or a file): command "
                        f"directories are only made inside the project; replace it by a "
                        f"directory")
    return work


def list_cmds(root) -> list[tuple[int, str]]:
    """``[(number, name)]`` of the existing command directories, by number."""
    work = _work(os.fspath(root), create=False)
    out = []
    for name in os.listdir(work):
        m = CMD_RX.fullmatch(name)
        if m and os.path.isdir(os.path.join(work, name)) and \
                not os.path.islink(os.path.join(work, name)):
            out.append((int(m.group(1)), name))
    return sorted(out)


def new_cmd(root, *, retries: int = MAX_RETRIES, lock_timeout: float = 30.0) -> str:
    """Create ``work/cmd_NNN/`` (with ``tasks/`` and ``results/``); returns ``cmd_NNN``.
    Raises ``CrewError`` after ``retries`` lost races, or when ``work`` is unusable."""
    root = os.fspath(root)
    work = _work(root, create=True)
    with store.FileLock(os.path.join(work, ".cmd"), timeout=lock_timeout):
        for _attempt in range(retries):
            nums = [n for n, _ in _scan(work)]
            name = f"cmd_{(max(nums) + 1 if nums else 1):03d}"
            try:
                os.mkdir(os.path.join(work, name), 0o755)
            except FileExistsError:
                continue
            for sub in ("tasks", "results"):
                os.mkdir(os.path.join(work, name, sub), 0o755)
            return name
    raise CrewError(f"could not create a command directory in {work} after {retries} "
                    f"attempts: another process kept taking the next number; run it again")


def _scan(work: str) -> list[tuple[int, str]]:
    out = []
    for name in os.listdir(work):
        m = CMD_RX.fullmatch(name)
        if m:
            out.append((int(m.group(1)), name))
    return out


def cmd_dir(root, cmd: str) -> str:
    """The directory of ``cmd`` (``cmd_004``, ``4`` or ``work/cmd_004``), validated: an id is
    never a path. Raises ``CrewError``."""
    root = os.fspath(root)
    c = cmd.strip().rstrip("/")
    if c.startswith(WORK + "/"):
        c = c[len(WORK) + 1:]
    if c.isdigit() and len(c) <= 9:
        c = f"cmd_{int(c):03d}"
    if not CMD_RX.fullmatch(c):
        raise CrewError(f"{store.safe_text(cmd, 60)!r} is not a command id (cmd_NNN): give one "
                        f"of the directories in work/ (`ls work`), or none for the latest")
    work = _work(root, create=False)
    path = os.path.join(work, c)
    if not os.path.isdir(path) or os.path.islink(path):
        raise CrewError(f"{path} does not exist (or is not a directory): `ls work` lists the "
                        f"commands; `gateway crew new` creates one")
    return path


def latest_cmd(root) -> str:
    cmds = list_cmds(root)
    if not cmds:
        raise CrewError(f"no command directory in {os.path.join(os.fspath(root), WORK)}: "
                        f"`gateway crew new` creates one")
    return os.path.join(os.fspath(root), WORK, cmds[-1][1])
