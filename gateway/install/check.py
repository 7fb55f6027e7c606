"""One finding of `gateway doctor` (gateway.install.doctor, gateway.sandbox.doctor): a
status, one line for the human and, for a problem, the fix. Below both doctors."""


class Check:
    __slots__ = ("status", "title", "fix")

    def __init__(self, status, title, fix=""):
        self.status = status  # "ok", "warn", "fail" or "info"
        self.title = title
        self.fix = fix

    def as_dict(self) -> dict:
        return {"status": self.status, "title": self.title, "fix": self.fix}

    def __repr__(self) -> str:
        return f"Check({self.status!r}, {self.title!r})"
