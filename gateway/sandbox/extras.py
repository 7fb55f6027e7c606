"""rules/sandbox.yaml: the run-later files and toolchain caches of the sandbox block.

Read by `gateway install` and `gateway doctor` (never by the hooks), validated strictly: an
entry that is not a plain project-relative path (deny_write) or a `~/` path (a toolchain's
allow_write) is an error, since the client takes no glob there and a path outside the
home directory would open the machine to sandboxed writes.
"""

import os

from pydantic import BaseModel, ConfigDict, field_validator

FILE = "sandbox.yaml"


class DenyWrite(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    path: str
    why: str

    @field_validator("path")
    @classmethod
    def _plain(cls, v):
        if not v or v.startswith(("/", "~")) or ".." in v.split("/") or any(c in v for c in "*?[{"):
            raise ValueError("must be a plain path relative to the project (no glob, no ..)")
        return v


class Toolchain(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str
    detect: list[str]
    allow_write: list[str]
    why: str

    @field_validator("allow_write")
    @classmethod
    def _home_only(cls, v):
        for p in v:
            rest = p[2:] if p.startswith("~/") else ""
            if not rest or ".." in rest.split("/") or any(c in p for c in "*?[{"):
                raise ValueError(f"{p!r}: must be a plain path below ~/ (no glob, no ..)")
        return v


class Extras(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    version: int
    deny_write: list[DenyWrite]
    client_protects: list[str]
    toolchains: list[Toolchain]


def path() -> str:
    from gateway.policy.load import builtin_rules_dir

    return os.path.join(builtin_rules_dir(), FILE)


def load():
    """(deny_write, toolchains) of rules/sandbox.yaml. Raises PolicyError when unusable."""
    extras = load_all()
    return extras.deny_write, extras.toolchains


def load_all() -> Extras:
    """rules/sandbox.yaml, validated. Raises PolicyError when unusable."""
    from pydantic import ValidationError

    from gateway.policy.errors import PolicyError
    from gateway.policy.load import parse_yaml, read_text

    where = path()
    data, _lines = parse_yaml(where, read_text(where), allow_aliases=False)
    try:
        return Extras.model_validate(data)
    except ValidationError as exc:
        raise PolicyError([f"{where}: {'.'.join(str(x) for x in e['loc'])}: {e['msg']}"
                           for e in exc.errors()]) from None
