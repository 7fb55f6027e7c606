"""Shared fixtures: an isolated environment (no real user rules, settings, cache or audit
log leak into tests), the compiled policy, and a sample project on disk."""

import json
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from helpers import make_project  # noqa: E402

from tests import tiers  # noqa: E402

# --- the two tiers (tests/tiers.py): plain `pytest` quick, `pytest --full` what CI runs -----


def pytest_addoption(parser):
    parser.getgroup("gateway").addoption(
        tiers.OPTION, action="store_true", default=False, dest="gateway_full",
        help="run the full tier: every test, the real Claude Code client and the slow tests "
             "included (what CI runs). Plain `pytest` runs the quick tier (tests/tiers.py); "
             "GATEWAY_TESTS=full in the environment is the same as --full.")


def pytest_report_header(config):
    if tiers.quick(config):
        return [f"tier: quick (plain pytest; leaves out the tests marked "
                f"{' or '.join(tiers.FULL_ONLY_MARKERS)}, the files of tests/tiers.py and the "
                f"measured slow tests of tests/data/slow-tests.tsv). "
                f"`python -m pytest {tiers.OPTION}` runs every test (what CI runs)"]
    lines = ["tier: full (every test)" if tiers.full_requested(config) else
             "tier: as selected (arguments or -m given: nothing left out by the tiers)"]
    lines.extend(_realclient_line(config))
    return lines


def _realclient_line(config):
    """One line before the real client's first download: what, how big, where, how to skip."""
    from tests.realclient.conftest import _realclient_deselected

    if _realclient_deselected(config.getoption("markexpr", "") or ""):
        return []
    here = os.path.join(str(config.rootpath), "tests", "realclient")
    args = [os.path.abspath(str(a).split("::")[0]) for a in config.args]
    if not any(here.startswith(a.rstrip(os.sep) + os.sep) or a == here
               or a.startswith(here + os.sep) for a in args):
        return []  # no real-client test among the paths asked for
    from tests.realclient.client import PACKAGE, PINNED_VERSION, default_cache_dir

    where = default_cache_dir(PINNED_VERSION)
    if (where / "node_modules").is_dir():
        return [f"realclient: Claude Code {PINNED_VERSION} cached in {where}"]
    return [f"realclient: the real-client tests first download Claude Code {PINNED_VERSION} "
            f"with npm ({PACKAGE}, about 364 MB) into {where}; -m 'not realclient' skips "
            "them"]


def pytest_ignore_collect(collection_path, config):
    if tiers.quick(config) and tiers.ignored_path(config, collection_path):
        return True
    return None


def pytest_collection_modifyitems(config, items):
    if not tiers.quick(config):
        return
    keep, left = tiers.split(items)
    if left:
        config.hook.pytest_deselected(items=left)
        items[:] = keep


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
    # the workflow screens' language (gateway.i18n): the seeds' Japanese screens, exactly, are
    # what most tests compare with; the English ones are tested with GATEWAY_LANG=en
    os.environ["GATEWAY_LANG"] = "ja"
    os.environ.pop("CLAUDE_PROJECT_DIR", None)
    os.environ.pop("CDPATH", None)  # `cd src` would be searched there (tests set it themselves)
    # the client's shell: bash (with SHELL unset or /bin/sh, the client runs zsh where it is
    # installed, and zsh's reading is judged: tests/validator/test_user_shell.py)
    os.environ["SHELL"] = "/bin/bash"
    os.environ.pop("CLAUDE_CODE_SHELL", None)
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


# --- the property suite's figures, also when the run is spread over xdist workers ----------


def _stats():
    from tests.property.support import STATS

    return STATS


def pytest_sessionfinish(session):
    """An xdist worker hands the property suite's statistics to the controller."""
    out = getattr(session.config, "workeroutput", None)
    if out is not None and "tests.property.support" in sys.modules:
        s = _stats()
        out["property_stats"] = json.dumps({"examples": dict(s["examples"]),
                                            "cases": dict(s["cases"]),
                                            "validations": s["validations"],
                                            "seconds": s["seconds"]})


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    data = getattr(node, "workeroutput", {}).get("property_stats")
    if data:
        d, s = json.loads(data), _stats()
        s["examples"].update(d["examples"])
        s["cases"].update(d["cases"])
        s["validations"] += d["validations"]
        s["seconds"] += d["seconds"]


def pytest_terminal_summary(terminalreporter):
    _sandbox_banner(terminalreporter)
    if "tests.property.support" not in sys.modules:
        return
    s = _stats()
    examples, cases = s["examples"], s["cases"]
    if not examples and not cases:
        return
    profile = os.environ.get("HYPOTHESIS_PROFILE", "ci")
    terminalreporter.write_sep("-", "property suite")
    terminalreporter.write_line(
        f"hypothesis profile {profile!r}: {len(examples)} properties, "
        f"{sum(examples.values())} examples tried; {sum(cases.values())} table rows "
        f"through the invariants; {s['validations']} validator/hook calls; "
        f"{s['seconds']:.1f}s of test time")
    for name, n in sorted(examples.items()):
        terminalreporter.write_line(f"  {n:6d}  {name}")
    if cases:
        terminalreporter.write_line(f"  {sum(cases.values()):6d}  table rows: "
                                    + ", ".join(f"{k} {v}" for k, v in sorted(cases.items())))



def _sandbox_banner(terminalreporter) -> None:
    """A skipped OS-floor test (the client's Bash sandbox cannot start here) is repeated in a
    red banner, never a quiet pass; GATEWAY_SANDBOX_REQUIRED=1 makes it a failure instead."""
    for rep in terminalreporter.stats.get("skipped", []):
        longrepr = getattr(rep, "longrepr", None)
        reason = (longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3
                  else str(longrepr))
        if "SANDBOX UNAVAILABLE" in reason:
            terminalreporter.section("sandbox (OS floor): NOT RUN", sep="!", red=True,
                                     bold=True)
            terminalreporter.line(reason.removeprefix("Skipped: "), red=True)
            break
