"""Bugs the property suite has found that are not fixed yet.

The suite must stay green on every change, so a generator that keeps finding an open bug
steers around that one shape (and only that shape) while the bug is listed here. Fixing a bug
means: remove its id from OPEN, run the suite (the generators now produce the shape again and
must pass), and add the reproducers to tests/property/regressions.py so it can never return.

Every entry names the reproducers that were reported; see the issue tracker for the details.
"""

OPEN = {
}


def is_open(bug: str) -> bool:
    """True while `bug` is open, unless GATEWAY_PROPERTY_SHOW_OPEN_BUGS=1 asks the suite to
    generate the shapes anyway (to see an open bug fail, or to check a fix)."""
    import os

    if os.environ.get("GATEWAY_PROPERTY_SHOW_OPEN_BUGS") == "1":
        return False
    return bug in OPEN
