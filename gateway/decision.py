"""The three outcomes of every check and the verdict that carries them.

`Decision` is ordered so that "strictest wins" is `max()`. `Verdict` is what the validator, the
guards and the CLI hand around: the decision, where it came from and why.
"""

class Decision(int):
    """What happens to a tool call. Ordered: ALLOW < ASK < DENY.

    An int with three members, as `enum.IntEnum` would make it (`Decision(1) is ASK`,
    `.name`, `.value`, `Decision.parse("ask")`), written out because importing `enum` (and
    with it `functools` and `collections`) was a tenth of a hook call's CPU."""

    __slots__ = ()
    _NAMES = ("ALLOW", "ASK", "DENY")

    def __new__(cls, value):
        members = cls.__dict__.get("_members")
        if members is None:  # creating the three members below
            return int.__new__(cls, value)
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 2:
            return members[value]
        raise ValueError(f"{value!r} is not a valid Decision")

    @property
    def name(self) -> str:
        return Decision._NAMES[self]

    @property
    def value(self) -> int:
        return int(self)

    def __str__(self) -> str:
        return Decision._NAMES[self].lower()

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __repr__(self) -> str:
        return f"<Decision.{self.name}: {int(self)}>"

    def __reduce__(self):
        return Decision, (int(self),)

    @classmethod
    def parse(cls, text: str) -> "Decision":
        """The member named `text` (any case); KeyError for another name."""
        try:
            return cls._members[cls._NAMES.index(text.upper())]
        except ValueError:
            raise KeyError(text) from None


Decision.ALLOW, Decision.ASK, Decision.DENY = (Decision(0), Decision(1), Decision(2))
Decision._members = (Decision.ALLOW, Decision.ASK, Decision.DENY)

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
