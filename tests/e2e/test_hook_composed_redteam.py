"""Issue 28 red team, held-back neighbours, through the real hook commands (raw JSON on stdin
of `gateway hook pre-tool-use` and `gateway hook permission-request`) in every permission
mode: each command below was allowed by both hooks before its fix and did its harm in real
bash (tests/property/test_composed_config_files.py proves the effects)."""

import os

import pytest

from tests.e2e.test_hook_composed import perm, pre, repo

assert repo  # the fixture, shared

MODES = ["default", "acceptEdits", "plan", "auto", "dontAsk", "bypassPermissions"]


@pytest.mark.parametrize("mode", ["acceptEdits", "auto", "bypassPermissions"])
@pytest.mark.parametrize("command", [
    # a makefile under a name only -f gives, written in the same command
    "printf 'x:\\n\\ttouch ~/pwned\\n' > mk && make --file=mk x",
    "printf 'x:\\n\\ttouch ~/pwned\\n' > build.rules; make -f build.rules x",
    "cp downloads/run.sh cf && make -fcf",
    # a configuration file given by the tool's config option
    "printf '[pytest]\\naddopts = --basetemp=/tmp/x\\n' > cfg.txt && pytest -c cfg.txt src",
    "printf 'cache-dir = \"/tmp/x\"\\n' > r.toml && ruff check --config r.toml src",
    # pytest >= 9 reads pytest.toml first
    "printf '[pytest]\\naddopts = [\"-q\"]\\n' > pytest.toml && pytest -q src",
    "printf '[pytest]\\naddopts = [\"-q\"]\\n' > .pytest.toml && pytest -q src",
])
def test_composed_configuration_asks(run_hook, repo, command, mode):
    assert pre(run_hook, repo, command, mode=mode) == ("ask", "gateway GW840")
    assert perm(run_hook, repo, command, mode=mode) is None


@pytest.mark.parametrize("mode", MODES)
def test_a_hostile_pytest_toml_gets_no_allow(run_hook, repo, mode):
    with open(os.path.join(repo, "pytest.toml"), "w") as fh:
        fh.write('[pytest]\naddopts = ["--junitxml=/tmp/r28-report.xml"]\n')
    decision = pre(run_hook, repo, "pytest -q src", mode=mode)
    assert decision[0] in ("none", "ask"), decision
    assert perm(run_hook, repo, "pytest -q src", mode=mode) is None


@pytest.mark.parametrize("command", ["make -f Makefile", "make --file=Makefile all",
                                     "echo hi > notes2.txt && make -f Makefile"])
def test_tracked_makefile_by_option_stays_allowed(run_hook, repo, command):
    assert pre(run_hook, repo, command) == ("allow", "gateway GW700")
    assert perm(run_hook, repo, command) == "allow"


def test_a_harmless_pytest_toml_stays_allowed(run_hook, repo):
    with open(os.path.join(repo, "pytest.toml"), "w") as fh:
        fh.write('[pytest]\naddopts = ["-q"]\n')
    assert pre(run_hook, repo, "pytest -q src") == ("allow", "gateway GW700")
    assert perm(run_hook, repo, "pytest -q src") == "allow"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("command", ["echo '@.env' >> claude.md",
                                     "echo '@~/.ssh/id_rsa' >> Claude.Local.md",
                                     "mkdir -p .Claude/Rules && echo '@.env' > .Claude/Rules/x.MD"])
def test_memory_file_in_another_case_asks(run_hook, repo, command, mode):
    """macOS's file system ignores case: claude.md is the CLAUDE.md the client loads."""
    assert pre(run_hook, repo, command, mode=mode) == ("ask", "gateway GW850")
    assert perm(run_hook, repo, command, mode=mode) is None


def test_memory_file_in_another_case_by_the_write_tool(run_hook, repo):
    assert pre(run_hook, repo, tool="Write", file_path=os.path.join(repo, "claude.md"),
               content="# notes\n@.env\n") == ("ask", "gateway GW850")
    assert pre(run_hook, repo, tool="Write", file_path=os.path.join(repo, "claude.md"),
               content="# notes\n@README.md\n")[0] == "none"


@pytest.mark.parametrize("mode", ["acceptEdits", "auto"])
@pytest.mark.parametrize("command", [
    # configuration files the catalogued tools read (code they run: pylint's init-hook,
    # mocha's require, babel's JS config, vitest's workspace), written then the tool run
    "printf '[tool.pylint.main]\\ninit-hook=\"import os\"\\n' > .pylintrc.toml && pylint src",
    "printf '[tool.pylint.main]\\ninit-hook=\"import os\"\\n' > pylintrc.toml && pylint src",
    "printf '{\"require\":[\"./x.js\"]}' > .mocharc.json && npm test",
    "printf 'module.exports={}' > .babelrc.js && jest",
    "printf 'export default []' > vitest.workspace.ts && vitest run",
    "printf 'packages: []' > pnpm-workspace.yaml && pnpm test",
    "printf '{}' > pyrightconfig.json && pyright",
    "printf '[settings]\\n' > .isort.cfg && isort src",
])
def test_tool_configuration_by_name_asks(run_hook, repo, command, mode):
    assert pre(run_hook, repo, command, mode=mode) == ("ask", "gateway GW840")
    assert perm(run_hook, repo, command, mode=mode) is None
