"""Which project a command without --project is about: the one function both `gateway install`
(gateway.install.ops) and the sandbox's configuration (gateway.sandbox.configure) use, in a
module of its own below both."""

import os


def find_project(cwd=None, env=None) -> str:
    """$CLAUDE_PROJECT_DIR, else the nearest folder up from cwd with a .claude/, else the
    nearest with a .git, else cwd."""
    env = os.environ if env is None else env
    explicit = env.get("CLAUDE_PROJECT_DIR")
    if explicit and os.path.isabs(explicit) and os.path.isdir(explicit):
        return os.path.normpath(explicit)
    cwd = os.path.abspath(cwd or os.getcwd())
    home = os.path.abspath(env.get("HOME") or os.path.expanduser("~"))
    for marker in (".claude", ".git"):
        probe = cwd
        while True:
            if os.path.exists(os.path.join(probe, marker)) and probe != home:
                return probe
            parent = os.path.dirname(probe)
            if parent == probe:
                break
            probe = parent
    return cwd
