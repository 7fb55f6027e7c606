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


def key(text: str) -> str:
    """A short stable name for `text` (a path) in a cache file's name: FNV-1a, 64 bits, hex."""
    h = 0xcbf29ce484222325
    for byte in text.encode("utf-8", "surrogatepass"):
        h = ((h ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"
