"""Shared fixtures: an isolated environment (no real user rules, settings, cache or audit
log leak into tests), the compiled policy, and a sample project on disk."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from helpers import make_project  # noqa: E402


@pytest.fixture(scope="session", autouse=True)
def isolated_env(tmp_path_factory):
    home = tmp_path_factory.mktemp("home")
    saved = dict(os.environ)
    os.environ["HOME"] = str(home)
    os.environ["GATEWAY_USER_RULES"] = str(home / "no-user-rules.yaml")
    os.environ["GATEWAY_CACHE_DIR"] = str(tmp_path_factory.mktemp("cache"))
    os.environ["GATEWAY_AUDIT_LOG"] = "off"
    os.environ["XDG_CONFIG_HOME"] = str(home / ".config")
    os.environ["XDG_STATE_HOME"] = str(home / ".state")
    os.environ["CLAUDE_CONFIG_DIR"] = str(home / ".claude")
    os.environ.pop("CLAUDE_PROJECT_DIR", None)
    os.environ.pop("CDPATH", None)  # `cd src` would be searched there (tests set it themselves)
    yield home
    os.environ.clear()
    os.environ.update(saved)


@pytest.fixture(scope="session")
def policy(isolated_env):
    from gateway.runtime import get_policy

    return get_policy(None, use_cache=False)


@pytest.fixture(scope="session")
def project(tmp_path_factory):
    return make_project(tmp_path_factory.mktemp("proj"))


@pytest.fixture()
def judge(policy, project):
    """judge(command, cwd=None, **kw) -> Verdict, against the sample project."""
    from gateway.settings import SettingsRules
    from gateway.validator.pipeline import validate

    def _judge(command, cwd=None, tool_name="Bash", settings=None, pol=None, raw_input=None):
        where = os.path.join(project, cwd) if cwd else project
        return validate(command, where, project, pol or policy, tool_name,
                        settings or SettingsRules(), raw_input)

    return _judge
