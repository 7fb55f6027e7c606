"""The `gateway` command. Hook calls take a fast path that never loads the CLI framework."""

import sys


def main(argv=None) -> int:
    """`argv=None` is the process entry (the console script, `python -m gateway`, the lean
    launch line); an explicit argv is a caller in a longer-lived process."""
    process_entry = argv is None
    argv = sys.argv[1:] if argv is None else list(argv)
    if len(argv) == 2 and argv[0] == "hook" and not argv[1].startswith("-"):
        if process_entry:
            _short_lived()
        from gateway.hooks.runner import run
        return run(argv[1])
    from gateway.cli.app import main as cli_main
    return cli_main(argv)


def _short_lived() -> None:
    """A hook process decides once and exits: the cyclic garbage collector would only walk
    the freshly imported modules' objects again and again (~1.3 ms of a hook call), and
    what one decision allocates is bounded by the payload limit. Reference counting still
    frees everything that is not in a cycle."""
    import gc

    gc.disable()


if __name__ == "__main__":
    sys.exit(main())
