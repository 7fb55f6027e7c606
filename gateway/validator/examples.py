"""Check the examples rules carry (like Codex's match / not_match): a catalogue entry must
allow its `allow` examples and must not allow its `ask` examples; a deny rule must match its
`match` examples and not its `not_match` ones. Run when rules are compiled, never per call.
"""

from gateway.decision import ALLOW
from gateway.policy.compiled import Policy
from gateway.policy.errors import PolicyError

SAMPLE_PROJECT = "/gateway-sample-project"


def check(merged) -> None:
    """Raise PolicyError listing every example that does not hold."""
    from gateway.shell.parse import ShellParseError, parse
    from gateway.validator.deny import matching_rule
    from gateway.validator.pipeline import validate

    policy = Policy(merged.policy)
    errors = []
    for origin, kind, command, expected in merged.examples:
        if kind == "catalogue":
            verdict = validate(command, SAMPLE_PROJECT, SAMPLE_PROJECT, policy)
            if (verdict.decision is ALLOW) != expected:
                want = "allowed" if expected else "not allowed"
                errors.append(f"{origin}: example {command!r} should be {want} but got "
                              f"{verdict.decision} ({verdict.code}: {verdict.message})")
        else:
            rule_id = origin.rsplit(" ", 1)[-1]
            try:
                script = parse(command)
            except ShellParseError as exc:
                errors.append(f"{origin}: example {command!r} does not parse: {exc}")
                continue
            only = Policy(dict(merged.policy, deny=[r for r in merged.policy["deny"]
                                                    if r["id"] == rule_id]))
            hit = matching_rule(only, script, home="/home/sample") is not None
            if hit != expected:
                want = "match" if expected else "not match"
                errors.append(f"{origin}: example {command!r} should {want} the rule")
    if errors:
        raise PolicyError(errors)
