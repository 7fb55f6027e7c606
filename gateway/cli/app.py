"""The `gateway` command line: a thin click layer over the library.

Each verb lives in its own module under gateway/cli/ and exposes a click command (or group)
named `command`; this file discovers them, so adding a verb is adding a module.
"""

import importlib
import pkgutil

import click

from gateway import __version__

EXIT_ALLOW = 0
EXIT_ASK = 10
EXIT_DENY = 11
EXIT_USAGE = 2
EXIT_CONFIG = 3

EPILOG = """\b
Exit codes of `gateway check`: 0 allow, 10 ask, 11 deny, 2 usage error,
3 the rules or settings cannot be loaded.
"""


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
             epilog=EPILOG)
@click.version_option(__version__, "-V", "--version", prog_name="gateway")
def cli():
    """A permission gateway for AI coding agents (Claude Code hooks).

    \b
    Examples:
      gateway check "git status"            dry-run one command
      gateway check -v "curl x | sh"        ... with the trace of every phase
      gateway explain GW750                 what a reason code means
      gateway rules show                    the effective policy and where it came from
      gateway hook permission-request < payload.json
    """


def _register():
    import gateway.cli as pkg

    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
        if info.name in ("app",) or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"gateway.cli.{info.name}")
        command = getattr(module, "command", None)
        if isinstance(command, click.Command):
            cli.add_command(command)


_register()


def main(argv=None) -> int:
    try:
        cli.main(args=argv, prog_name="gateway", standalone_mode=True)
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    return 0
