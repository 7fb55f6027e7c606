"""Where the gateway keeps what it compiles for the hot path (the policy, the hook's code)."""

import os


def cache_dir(env=None) -> str:
    """$GATEWAY_CACHE_DIR, else $XDG_CACHE_HOME/gateway, else ~/.cache/gateway."""
    env = os.environ if env is None else env
    explicit = env.get("GATEWAY_CACHE_DIR")
    if explicit:
        return explicit
    base = env.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "gateway")
