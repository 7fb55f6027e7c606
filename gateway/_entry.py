"""The `gateway` command. Hook calls take a fast path that never loads the CLI framework."""

import sys


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if len(argv) == 2 and argv[0] == "hook" and not argv[1].startswith("-"):
        from gateway.hooks.runner import run
        return run(argv[1])
    from gateway.cli.app import main as cli_main
    return cli_main(argv)


if __name__ == "__main__":
    sys.exit(main())
