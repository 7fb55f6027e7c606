"""Open gateway bugs the fuzz harnesses steer around, so the CI smoke run stays green.

The same pattern as tests/property/known_bugs.py (whose ids are honoured here too, so a bug
fixed there is fuzzed again here at once): while a bug is open, its id is in OPEN and one of
the functions below recognises exactly its shape, and the harness skips that shape (and
counts it: `known_bug:<id>` in the run's counters). Fixing a bug means removing its id and
its shape, running `python fuzz/run.py` (the shape is fuzzed again and must pass), and
keeping the reproducer in fuzz/regressions/<harness>/ and the test tables.

GATEWAY_FUZZ_SHOW_OPEN_BUGS=1 (or GATEWAY_PROPERTY_SHOW_OPEN_BUGS=1) stops the skipping, to
watch an open bug fail or to check a fix.

No bug is open. The eight the harnesses found (fuzz/README.md, "Bugs found") are fixed;
their shapes, for the record, were: a GW902 for `2>&-` (internal_error_bug), a deny lost to
`2>&-`, to a length or character refusal or to a tail bashlex rejects (lost_deny_bug), an
assignment after a redirection (claim_bug), a cwd with NUL or a lone surrogate (payload_bug)
and YAML that composes but does not construct, or has a non-scalar key (loader_bug).
"""

import os

OPEN = set()


def _property_open():
    try:
        from tests.property.known_bugs import OPEN as PROPERTY_OPEN
    except Exception:  # the tests are not there (an installed package): skip nothing extra
        return set()
    return set(PROPERTY_OPEN)


_ALL = None


def is_open(bug: str) -> bool:
    global _ALL
    if os.environ.get("GATEWAY_FUZZ_SHOW_OPEN_BUGS") == "1" or \
            os.environ.get("GATEWAY_PROPERTY_SHOW_OPEN_BUGS") == "1":
        return False
    if _ALL is None:
        _ALL = set(OPEN) | _property_open()
    return bug in _ALL


# --- shapes of open bugs (each returns the bug's id, or None) --------------------------------

def internal_error_bug(command, message: str):
    """A GW902 "internal error" verdict for `command` that is an open bug (validator, hook)."""
    return None


def lost_deny_bug(command, code=None):
    """A deny the gateway misses for `command` (its validator verdict had reason `code`)."""
    return None


def claim_bug(kind: str):
    """An oracle claim of this kind that the gateway gets wrong while a bug is open."""
    return None


def payload_bug(payload):
    """A hook payload (as a whole, e.g. its cwd) that runs into an open bug."""
    if isinstance(payload, dict) and isinstance(payload.get("cwd"), str) \
            and "\x00" in payload["cwd"] and is_open("nul-in-cwd"):
        return "nul-in-cwd"  # the property suite's id, should it be reopened
    return None


def loader_bug(exc):
    """An exception from the rules loader (other than PolicyError) that is an open bug."""
    return None
