"""Read a rules or settings file as hostile input: a regular file only, never blocking, bounded.

A FIFO at `.claude/gateway.yaml` or `.claude/settings.local.json` used to hang every hook
call in `open()` (a FIFO's open waits for a writer); a device could be opened with side
effects, a directory or a huge file read without end. Here the path is examined first
(`stat`, following links: rules and settings files are legitimately symlinked into dotfile
repositories), anything but a regular file is refused without being opened, and the file
is then opened with O_NONBLOCK and checked again on the open descriptor (a swap between the
two is caught), and read up to a size limit.

Absent is only "nothing there": a missing file, or a parent that is not a directory (nothing
can be there). A link whose target is missing, a link loop, a FIFO, socket, device or
directory, a file over the limit, or a permission problem are `ConfigFileError`s whose
message names the path and the problem; callers fail closed with it (no allow).

Standard library only: it is on the hook path (`gateway.settings`, `gateway.policy.cache`).
"""

import os
import stat

__all__ = ["ConfigFileError", "read", "kind"]


class ConfigFileError(Exception):
    """A file is there but cannot be used. `str(err)` is `<path>: <problem>`."""

    def __init__(self, path, problem):
        self.path = path
        self.problem = problem
        super().__init__(f"{path}: {problem}")


def kind(mode: int) -> str:
    """What a file is, for a message: "a FIFO", "a directory"..."""
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISLNK, "a symbolic link")):
        if test(mode):
            return name
    return "not a regular file"


def _refuse(path, mode):
    return ConfigFileError(path, f"is {kind(mode)}, not a regular file; only regular files "
                                 "are read")


def read(path, limit: int):
    """The bytes of the regular file at `path`, or None when nothing is there.
    Raises ConfigFileError for everything else (see the module docstring)."""
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        if os.path.islink(path):
            raise ConfigFileError(path, f"is a symbolic link to {os.readlink(path)!r}, which "
                                        "does not exist") from None
        return None
    except OSError as exc:
        raise ConfigFileError(path, f"cannot read: {exc.strerror or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        raise _refuse(path, st.st_mode)
    if st.st_size > limit:
        raise ConfigFileError(path, f"is {st.st_size} bytes, larger than the {limit}-byte "
                                    "limit for this file")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY",
                                                                                0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigFileError(path, f"cannot read: {exc.strerror or exc}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _refuse(path, st.st_mode)
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise ConfigFileError(path, f"is larger than the {limit}-byte limit for this "
                                            "file")
        return b"".join(chunks)
    except OSError as exc:
        raise ConfigFileError(path, f"cannot read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
