"""The project a CLI command works on when --project is not given."""

import os

PROJECT_HELP = ("Project directory (default: $CLAUDE_PROJECT_DIR, else the nearest parent with "
                "a .claude/ other than ~/.claude, else the nearest with a .git, else the "
                "current directory).")


def default_project(cwd=None) -> str:
    """Found as `gateway install` and `gateway doctor` find it: $CLAUDE_PROJECT_DIR, else the
    nearest folder up from `cwd` with a .claude/ that is not your ~/.claude, else the nearest
    with a .git, else `cwd`. Claude Code sets $CLAUDE_PROJECT_DIR for the hooks; a dry run
    from a project without .claude/ yet must not take your home directory (whose .claude/ is
    Claude Code's user configuration) for the project."""
    from gateway.install.ops import find_project

    return find_project(os.path.abspath(cwd) if cwd else None)
