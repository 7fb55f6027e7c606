"""The `gateway` command. Hook calls take a fast path that never loads the CLI framework."""

import sys


def main(argv=None) -> int:
    """`argv=None` is the process entry (the console script, `python -m gateway`, the lean
    launch line); an explicit argv is a caller in a longer-lived process."""
    process_entry = argv is None
    argv = sys.argv[1:] if argv is None else list(argv)
    if len(argv) == 2 and argv[0] == "hook" and not argv[1].startswith("-"):
        finder = None
        if process_entry:
            _short_lived()
            from gateway import _codecache
            finder = _codecache.install()
        from gateway.hooks.runner import run
        status = run(argv[1], hook_process=process_entry)
        if process_entry:
            try:
                sys.stdout.flush()  # the answer first: the cache is written after it
            except BaseException:
                pass
            _codecache.refresh(finder)
            _exit_now(status)
        return status
    from gateway.cli.app import main as cli_main
    return cli_main(argv)


def _short_lived() -> None:
    """A hook process decides once and exits: the cyclic garbage collector would only walk
    the freshly imported modules' objects again and again (~1.3 ms of a hook call), and
    what one decision allocates is bounded by the payload limit. Reference counting still
    frees everything that is not in a cycle."""
    import gc

    gc.disable()


def _exit_now(status: int) -> None:
    """End a hook process without the interpreter's finalisation, which would only tear
    down the ~100 modules the call imported, one object at a time (~3 ms of a hook call).

    Nothing is lost: the answer is written and flushed by the runner, and everything else
    a hook writes (the audit line, state files and their locks, the policy cache) goes
    through file descriptors it has closed before run() returns. The exit status is the
    same. The normal exit is kept whenever finalisation still has work: an atexit callback
    (coverage, logging...), a second thread, or standard streams that cannot be flushed
    (the interpreter reports those as it always did)."""
    import atexit

    pending = getattr(atexit, "_ncallbacks", None)
    if pending is None or pending():
        return
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        return
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except BaseException:
        return
    import os

    os._exit(status)


if __name__ == "__main__":
    sys.exit(main())
