"""Fixtures for the PreToolUse guards: a fresh project per test (the guards write state) and
`guard(...)`, which runs the whole guard engine on a payload built like Claude Code's."""

import os
import shutil

import pytest

from tests.guards.support import payload
from tests.helpers import make_project


@pytest.fixture()
def proj(tmp_path_factory):
    """A fresh sample project for every test, always at the same path: the compiled policy is
    cached by the paths of the rules layers, so one path means one compile per session."""
    base = tmp_path_factory.getbasetemp() / "guards-project"
    if base.exists():
        shutil.rmtree(base)
    root = make_project(base)
    os.makedirs(os.path.join(root, ".claude", "state"), exist_ok=True)
    return root


@pytest.fixture()
def guard(proj):
    """guard(tool, tool_input, cwd=None, record=True, env=None, **identity) -> Verdict.
    Early allow is off (GATEWAY_EARLY_ALLOW=0) unless `env` turns it on."""
    from gateway.runtime import evaluate_guards as evaluate

    def _guard(tool, tool_input, cwd=None, record=True, env=None, **identity):
        where = cwd if cwd and cwd.startswith("/") else (
            os.path.join(proj, cwd) if cwd else proj)
        # the guards' own decisions: early allow (tested on its own) is off unless asked for
        full = dict(os.environ, GATEWAY_EARLY_ALLOW="0", **(env or {}))
        full.pop("CLAUDE_PROJECT_DIR", None)
        return evaluate(payload(tool, tool_input, where, **identity), full, record=record)

    return _guard
