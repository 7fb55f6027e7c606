"""Check the examples rules carry (like Codex's match / not_match): a catalogue entry must
allow its `allow` examples and must not allow its `ask` examples; a deny rule must match its
`match` examples and not its `not_match` ones. Run when rules are compiled, never per call.

Each example is checked against the policy as it stood when the layer that wrote it was
merged: a stricter layer above may make an allowed example ask, and that is its purpose. An
example that must not be allowed is also checked against the final policy: no layer above
may make it run without asking (replace the entry with `remove:` first).
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

    policies = {None: Policy(merged.policy)}
    snapshots = getattr(merged, "example_policies", {})
    errors = []
    for origin, kind, command, expected, *rest in merged.examples:
        layer = rest[0] if rest and rest[0] in snapshots else None
        if len(rest) > 1 and rest[1] and kind == "catalogue":
            origin = f"{rest[1]}: {origin}"  # the file that wrote it
        if layer not in policies:
            policies[layer] = Policy(snapshots[layer])
        policy = policies[layer]
        if kind == "catalogue":
            # "must ask" also holds in the final policy: a layer above may tighten, never
            # make such an example run without asking
            for pol in (policy,) if expected or layer is None else (policy, policies[None]):
                # an empty environment: the built-in examples hold whatever the machine's
                # GOFLAGS or PYTEST_ADDOPTS say
                verdict = validate(command, SAMPLE_PROJECT, SAMPLE_PROJECT, pol, env={})
                if (verdict.decision is ALLOW) != expected:
                    want = "allowed" if expected else "not allowed"
                    errors.append(f"{origin}: example {command!r} should be {want} but got "
                                  f"{verdict.decision} ({verdict.code}: {verdict.message})")
                    break
        else:
            rule_id = origin.rsplit(" ", 1)[-1]
            try:
                script = parse(command)
            except ShellParseError as exc:
                errors.append(f"{origin}: example {command!r} does not parse: {exc}")
                continue
            base = snapshots[layer] if layer is not None else merged.policy
            only = Policy(dict(base, deny=[r for r in base["deny"] if r["id"] == rule_id]))
            hit = matching_rule(only, script, home="/home/sample") is not None
            if hit != expected:
                want = "match" if expected else "not match"
                errors.append(f"{origin}: example {command!r} should {want} the rule")
    if errors:
        raise PolicyError(errors)
