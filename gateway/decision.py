"""The three outcomes of every check and the verdict that carries them.

`Decision` is ordered so that "strictest wins" is `max()`. `Verdict` is what the validator, the
guards and the CLI hand around: the decision, where it came from and why.
"""

from enum import IntEnum


class Decision(IntEnum):
    """What happens to a tool call. Ordered: ALLOW < ASK < DENY."""

    ALLOW = 0  # run without asking the human
    ASK = 1  # leave it to the human (the permission dialog)
    DENY = 2  # never run

    def __str__(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> "Decision":
        return cls[text.upper()]


ALLOW = Decision.ALLOW
ASK = Decision.ASK
DENY = Decision.DENY


class Step:
    """One line of a verdict's trace: what a phase saw and concluded."""

    __slots__ = ("phase", "status", "code", "message")

    def __init__(self, phase: str, status: str, code: str = "", message: str = ""):
        self.phase = phase  # phase label, e.g. "2" or "7B2"
        self.status = status  # "pass", "allow", "ask", "deny", "info" or "skip"
        self.code = code  # reason code, "" for a plain pass
        self.message = message  # one line for humans

    def as_dict(self) -> dict:
        return {"phase": self.phase, "status": self.status, "code": self.code,
                "message": self.message}

    def __repr__(self) -> str:
        return f"Step({self.phase!r}, {self.status!r}, {self.code!r}, {self.message!r})"


class Verdict:
    """A decision with its provenance.

    phase    the phase (or guard) that decided, e.g. "7B2" or "guard:role"
    code     the stable reason code, e.g. "GW702" (see gateway.codes)
    rule     the rule that matched, e.g. "subcommand_ask:git push" or "catalogue:ls"
    message  one sentence for the human (and, on deny, for the model)
    trace    every step that ran, in order
    """

    __slots__ = ("decision", "phase", "code", "rule", "message", "trace", "command")

    def __init__(self, decision: Decision, phase: str, code: str, rule: str = "",
                 message: str = "", trace: list | None = None, command: str = ""):
        self.decision = decision
        self.phase = phase
        self.code = code
        self.rule = rule
        self.message = message
        self.trace = trace if trace is not None else []
        self.command = command

    @property
    def allowed(self) -> bool:
        return self.decision is ALLOW

    def as_dict(self) -> dict:
        return {
            "decision": str(self.decision),
            "phase": self.phase,
            "code": self.code,
            "rule": self.rule,
            "message": self.message,
            "command": self.command,
            "trace": [s.as_dict() for s in self.trace],
        }

    def __repr__(self) -> str:
        return (f"Verdict({self.decision.name}, phase={self.phase!r}, code={self.code!r}, "
                f"rule={self.rule!r})")


def strictest(verdicts):
    """The first verdict with the highest decision (strictest wins, earliest breaks ties)."""
    best = None
    for v in verdicts:
        if best is None or v.decision > best.decision:
            best = v
    return best
