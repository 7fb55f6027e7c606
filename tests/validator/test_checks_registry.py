"""Every check name the rules may use (gateway.policy.models.CHECKS) is registered and
resolves to a function of its module; no module registers a name the rules cannot use."""

import importlib

from gateway.policy.models import CHECKS
from gateway.validator import checks


def test_every_check_name_resolves_to_a_function():
    assert set(CHECKS) == set(checks._CHECKS)
    for name, (module, func) in checks._CHECKS.items():
        mod = importlib.import_module(f"gateway.validator.checks.{module}")
        assert callable(getattr(mod, func)), name
