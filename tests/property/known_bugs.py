"""Bugs the property suite has found that are not fixed yet.

The suite must stay green on every change, so a generator that keeps finding an open bug
steers around that one shape (and only that shape) while the bug is listed here. Fixing a bug
means: remove its id from OPEN, run the suite (the generators now produce the shape again and
must pass), and add the reproducers to tests/property/regressions.py so it can never return.

Every entry names the reproducers that were reported; see the issue tracker for the details.
"""

OPEN = {
    # A working directory outside the project (the payload's cwd after an approved `cd`, or
    # a symlinked directory): commands whose path argument is implicitly "." are allowed
    # there: `grep -r root` in /etc, `ls -R`, `tree`, `du -a`, `rg x`, `git status`.
    "implicit-cwd-outside",
    # A project/local (or user) layer that adds an interpreter (python3, bash, sh...) to
    # always_ask has no effect: `python3 scripts/foo.py` stays allow GW600. The interpreter
    # path (segment._interpreter) never consults ALWAYS_ASK.
    "always-ask-interpreters",
    # Robustness, not an allow: a working directory containing NUL makes validate() raise
    # ValueError (os.path.realpath) and makes `gateway check --batch` die with a traceback on
    # a JSONL line like {"command": "ls", "cwd": "/tmp/\u0000x"} (policy cache open()).
    # The hook survives (its catch-all prints nothing).
    "nul-in-cwd",
    # Not an allow, a deny downgraded to ask: a line continuation (backslash-newline) inside
    # $(...) hides the substitution's commands from the deny rules.
    # `echo $(dd if=/dev/zero \<newline> of=/dev/sda)` is ask GW201, not deny GW750.
    "deny-continuation-in-substitution",
}


def is_open(bug: str) -> bool:
    """True while `bug` is open, unless GATEWAY_PROPERTY_SHOW_OPEN_BUGS=1 asks the suite to
    generate the shapes anyway (to see an open bug fail, or to check a fix)."""
    import os

    if os.environ.get("GATEWAY_PROPERTY_SHOW_OPEN_BUGS") == "1":
        return False
    return bug in OPEN
