"""Every reason code gateway can give, with what it means and an example.

Codes are stable: never renumbered, never reused. `gateway explain CODE` prints an entry;
docs/codes.md documents each one (a test keeps the two in step, in this order).
Each entry: (phase, decision it leads to, title, explanation, example command or input).

The table is in two parts, by the hook that gives the codes: validator.py (the
PermissionRequest validator's phases S0 to 8 and the composed effects: GW0xx to GW7xx) and
guards.py (the PreToolUse guards, the PostToolUse spec task sync and the errors: GW8xx and
GW9xx). A new code goes into its part, in its phase's section. Standard library only (the
hook path reads it).
"""

from gateway.codes.guards import GUARDS
from gateway.codes.validator import VALIDATOR

CODES = {**VALIDATOR, **GUARDS}


def explain(code: str):
    """The entry for `code` (case-insensitive), or None."""
    return CODES.get(code.upper())
