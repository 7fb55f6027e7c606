"""The search probe (gateway/validator/searchprobe.py) beyond the case table: what it cannot
reproduce asks (GW509), and every option the catalogue lets a search have is classified.
Each test builds its own small project with a .env that holds API_KEY=abc."""

import os
import shutil
import stat

import pytest

from gateway.settings import SettingsRules
from gateway.validator import searchprobe
from gateway.validator.pipeline import validate


@pytest.fixture()
def tree(tmp_path):
    root = os.path.realpath(str(tmp_path / "proj"))
    os.makedirs(os.path.join(root, "src"))
    with open(os.path.join(root, ".env"), "w") as fh:
        fh.write("API_KEY=abc\n")
    with open(os.path.join(root, "src", "a.py"), "w") as fh:
        fh.write("print('hi')\n")
    return root


def _judge(policy, root, command, **env):
    full = dict(os.environ, **env)
    for k, v in env.items():
        if v is None:
            full.pop(k)
    v = validate(command, root, root, policy, "Bash", SettingsRules(), None, env=full)
    return str(v.decision), v.code, v.message


def test_a_search_whose_pattern_matches_no_secret_line_is_allowed(policy, tree):
    assert _judge(policy, tree, "grep -rn hi .")[:2] == ("allow", "GW700")
    d, code, msg = _judge(policy, tree, "grep -rn API .")
    assert (d, code) == ("ask", "GW506")
    assert "lines of the secret '.env' (.env) match the pattern" in msg


def test_a_fifo_among_the_secrets_asks_at_once(policy, tree):
    os.mkfifo(os.path.join(tree, "src", "pipe.env"))
    d, code, msg = _judge(policy, tree, "grep -rn hi .")
    assert (d, code) == ("ask", "GW509")
    assert "is not a regular file" in msg


def test_a_probe_that_takes_too_long_asks(policy, tree, monkeypatch):
    monkeypatch.setattr(searchprobe, "TIMEOUT", 0.0)
    d, code, msg = _judge(policy, tree, "grep -rn hi .")
    assert (d, code) == ("ask", "GW509")
    assert "took longer than" in msg or "failed" in msg


def test_patterns_from_standard_input_or_a_file_written_first_ask(policy, tree):
    assert _judge(policy, tree, "grep -rn -f - .")[:2] == ("ask", "GW509")
    assert _judge(policy, tree, "grep -rn --file=/dev/stdin .")[:2] == ("ask", "GW509")
    with open(os.path.join(tree, "pats.txt"), "w") as fh:
        fh.write("hi\n")
    assert _judge(policy, tree, "grep -rn -f pats.txt .")[:2] == ("allow", "GW700")
    # another part of the command line may write the patterns file before grep reads it
    d, code, msg = _judge(policy, tree, "ls && grep -rn -f pats.txt .")
    assert (d, code) == ("ask", "GW509") and "may be written" in msg
    with open(os.path.join(tree, "pats.txt"), "w") as fh:
        fh.write("hi\nAPI\n")
    assert _judge(policy, tree, "grep -rn -f pats.txt .")[:2] == ("ask", "GW506")


def test_a_program_inside_the_project_is_never_run_by_the_hook(policy, tree):
    bindir = os.path.join(tree, "bin")
    os.makedirs(bindir)
    fake = os.path.join(bindir, "grep")
    with open(fake, "w") as fh:
        fh.write("#!/bin/sh\ntouch " + os.path.join(tree, "ran") + "\n")
    os.chmod(fake, stat.S_IRWXU)
    d, code, msg = _judge(policy, tree, "grep -rn hi .", PATH=bindir + ":/usr/bin:/bin")
    assert (d, code) == ("ask", "GW509") and "inside the project" in msg
    assert not os.path.exists(os.path.join(tree, "ran"))


def test_a_program_not_in_path_asks(policy, tree, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    d, code, msg = _judge(policy, tree, "grep -rn hi .", PATH=str(empty))
    assert (d, code) == ("ask", "GW509") and "not found in PATH" in msg


def test_grep_options_in_the_environment_ask(policy, tree):
    d, code, msg = _judge(policy, tree, "grep -rn hi src", GREP_OPTIONS="-v")
    assert (d, code) == ("ask", "GW509") and "GREP_OPTIONS" in msg
    assert _judge(policy, tree, "grep -rn hi src", GREP_OPTIONS=None)[:2] == ("allow", "GW700")


@pytest.mark.skipif(not shutil.which("rg"), reason="ripgrep is not installed")
def test_a_ripgrep_configuration_is_judged_like_the_command(policy, tree, tmp_path):
    cfg = tmp_path / "rgrc"
    cfg.write_text("--max-columns=150\n# a comment\n--smart-case\n")
    assert _judge(policy, tree, "rg hi", RIPGREP_CONFIG_PATH=str(cfg))[:2] == ("allow", "GW700")
    # an option that matches more: the probe runs with it (and finds API_KEY=abc)
    cfg.write_text("--ignore-case\n")
    assert _judge(policy, tree, "rg --hidden api", RIPGREP_CONFIG_PATH=str(cfg))[:2] == (
        "ask", "GW506")
    assert _judge(policy, tree, "rg --hidden api", RIPGREP_CONFIG_PATH=None)[:2] == (
        "allow", "GW700")
    # an option that changes the walk (here: hidden files) asks even where no secret is seen
    cfg.write_text("--hidden\n")
    d, code, msg = _judge(policy, tree, "rg hi src", RIPGREP_CONFIG_PATH=str(cfg))
    assert (d, code) == ("ask", "GW509") and "--hidden" in msg
    assert _judge(policy, tree, "rg --no-config hi src",
                  RIPGREP_CONFIG_PATH=str(cfg))[:2] == ("allow", "GW700")
    cfg.write_text("--passthru\n")
    assert _judge(policy, tree, "rg hi src", RIPGREP_CONFIG_PATH=str(cfg))[:2] == (
        "ask", "GW509")
    assert _judge(policy, tree, "rg hi src", RIPGREP_CONFIG_PATH=str(tmp_path / "none"))[:2] \
        == ("ask", "GW509")


def test_rg_passthru_prints_every_line(policy, tree):
    # decided from the options alone: it holds where ripgrep is not installed too
    d, code, msg = _judge(policy, tree, "rg --hidden --passthru NOMATCH")
    assert (d, code) == ("ask", "GW506") and "--passthru prints every line" in msg


@pytest.mark.parametrize("name,kind", [("grep", "grep"), ("rg", "rg"), ("git grep", "git-grep")])
def test_every_option_a_search_may_have_is_classified(policy, name, kind):
    """An option the catalogue allows is either passed to the probe, left out of it, or
    known to print every line; only the ones that stop a walk altogether (rg --files...)
    or that the catalogue asks for anyway (unsafe) are unknown to the probe."""
    spec = policy.command(name.split()[0])
    if " " in name:
        spec = spec.subcommands[name.split()[1]]
    unknown = []
    for flag in sorted(set(spec.safe_flags or ()) | set(spec.value_flags or ())):
        try:
            searchprobe._classify(kind, flag)
        except searchprobe.PrintsAll:
            pass
        except searchprobe.Unknown:
            unknown.append(flag)
    allowed = {"grep": set(), "git-grep": {"--recurse-submodules"},
               "rg": {"--generate", "--pcre2-version", "--type-list", "--pre-glob",
                      "--hostname-bin"}}[kind]
    assert set(unknown) == allowed, unknown
