"""The git entries of the catalogue are allowlists, checked against the installed git itself:

* every entry with an `options` list names every long option git knows for the subcommand
  (`git <sub> --git-completion-helper-all`), so a prefix is resolved against the complete list
  and never stands for an option the catalogue has not seen;
* every option the catalogue says takes the next word as its value does in git, and the
  options that take a value only glued or after `=` (--format, --pretty, --color...) do not
  (`git show --pretty HEAD:.env` prints the blob: the word is a revision, not a value);
* an option a subcommand does not list asks, a prefix asks unless all it can stand for is safe.
"""

import os
import shutil
import subprocess

import pytest

from gateway.settings import SettingsRules
from gateway.validator.pipeline import validate

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
ENV = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "t",
       "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
       "GIT_COMMITTER_EMAIL": "t@example.com"}


def _entries(policy):
    """(label, spec) of every git subcommand entry, nested ones too."""
    out = []

    def walk(label, spec):
        out.append((label, spec))
        if spec.subcommands is not None:
            for name in spec.subcommands:
                walk(f"{label} {name}", spec.subcommands[name])

    git = policy.command("git")
    for name in git.subcommands:
        walk(name, git.subcommands[name])
    return out


def _git_options(sub):
    r = subprocess.run(["git", *sub.split(), "--git-completion-helper-all"], env=ENV,
                       capture_output=True, text=True, check=False)
    return {t.rstrip("=") for t in r.stdout.split() if t.startswith("--") and t != "--"}


def test_every_entry_is_an_allowlist_or_a_check(policy):
    for label, spec in _entries(policy):
        if spec.subcommands is not None and spec.check is None:
            continue  # its subcommands (or the default one) judge the words
        assert spec.safe_flags is not None or spec.check is not None, label


def test_the_option_lists_are_complete(policy):
    checked = 0
    for label, spec in _entries(policy):
        if not spec.options:
            continue
        missing = _git_options(label) - set(spec.options)
        assert not missing, f"git {label}: options git knows but the catalogue does not: " \
                            f"{sorted(missing)}"
        checked += 1
    assert checked >= 25


def test_every_safe_long_option_exists(policy):
    """A typo in safe_flags would be an option git rejects, never a gap; but a name git does
    not know under a subcommand with a complete list is a mistake in the catalogue."""
    for label, spec in _entries(policy):
        if not spec.options or spec.safe_flags is None:
            continue
        unknown = {f for f in spec.safe_flags if f.startswith("--")} - set(spec.options)
        assert not unknown, f"git {label}: {sorted(unknown)}"


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("gitcat"))
    subprocess.run(["git", "init", "-q", root], env=ENV, check=True)
    with open(os.path.join(root, "a.txt"), "w") as fh:
        fh.write("a\n")
    subprocess.run(["git", "-C", root, "add", "a.txt"], env=ENV, check=True)
    subprocess.run(["git", "-C", root, "commit", "-qm", "a"], env=ENV, check=True)
    return root


def _takes_next_word(root, sub, flag):
    """Does `git <sub> <flag> ZZNOTAREV` consume ZZNOTAREV as the flag's value? None when
    git does not know the option there (it refuses the command: nothing runs)."""
    r = subprocess.run(["git", sub, flag, "ZZNOTAREV", "-1"] if sub == "log" else
                       ["git", sub, flag, "ZZNOTAREV"], cwd=root, env=ENV,
                       capture_output=True, text=True, check=False)
    err = r.stderr
    if f"unrecognized argument: {flag}" in err or f"invalid option: {flag}" in err:
        return None
    return not ("ambiguous argument 'ZZNOTAREV'" in err or "must come before non-option" in err
                or "bad revision 'ZZNOTAREV'" in err)


@pytest.mark.parametrize("sub", ["log", "show", "diff"])
def test_value_options_take_the_next_word_and_the_others_do_not(policy, repo, sub):
    spec = policy.command("git").subcommands[sub]
    unsafe = {"--output", "-O", "--rotate-to", "--skip-to"}
    for flag in sorted(spec.value_flags - unsafe):
        if flag in ("-L",) or (sub != "log" and flag in ("--grep-reflog",)):
            continue  # -L needs a range; --grep-reflog needs -g
        assert _takes_next_word(repo, sub, flag) is not False, \
            f"git {sub} {flag} ZZNOTAREV: git does not take the word as the option's value"
    for flag in ("--format", "--pretty", "--color", "--relative", "--abbrev", "--stat",
                 "--decorate", "--word-diff", "--submodule", "--notes", "--find-renames"):
        if flag in spec.safe_flags:
            assert flag not in spec.value_flags, flag
            assert _takes_next_word(repo, sub, flag) is False, \
                f"git {sub} {flag}: git takes the next word after all"


def judge(policy, root, command):
    v = validate(command, root, root, policy, "Bash", SettingsRules(), None)
    return str(v.decision), v.code


@pytest.mark.parametrize("command,expected", [
    # prefixes that stand only for safe options
    ("git status --porc", ("allow", "GW700")), ("git status --sh", ("allow", "GW700")),
    ("git commit --no-ver -m x", ("allow", "GW700")),  # --no-verify or --no-verbose
    ("git branch --lis", ("allow", "GW700")), ("git ls-files --others --exclude-st",
                                               ("allow", "GW700")),
    # prefixes that may stand for an unsafe or unknown option
    ("git branch --d x", ("ask", "GW707")), ("git branch --del x", ("ask", "GW707")),
    ("git tag --del v1", ("ask", "GW704")), ("git fetch --up origin", ("ask", "GW704")),
    ("git merge --ab", ("ask", "GW704")), ("git log --outp=x", ("ask", "GW704")),
    ("git commit --fi=x", ("allow", "GW700")),  # --file or --fixup: git refuses, both safe
    ("git add --pat", ("ask", "GW704")),
    ("git add --inter", ("ask", "GW704")), ("git grep --op x", ("ask", "GW704")),
    # options a subcommand does not list
    ("git status --xyz", ("ask", "GW704")), ("git log --show-signature", ("ask", "GW704")),
    ("git blame --contents /etc/passwd a.txt", ("ask", "GW704")),
    ("git show --ext-diff", ("ask", "GW704")), ("git diff --textconv", ("ask", "GW704")),
    ("git add -p", ("ask", "GW704")), ("git commit -e -m x", ("ask", "GW704")),
    ("git cat-file --batch", ("ask", "GW704")), ("git help -w log", ("ask", "GW704")),
    # value-only-after-= options: the next word is a revision (`HEAD:.env` a secret's blob)
    ("git show --pretty HEAD:.env", ("ask", "GW503")),
    ("git log --format HEAD:.env", ("ask", "GW503")),
    ("git show --color HEAD:.env", ("ask", "GW503")),
])
def test_allowlists_and_prefixes(policy, repo, command, expected):
    assert judge(policy, repo, command) == expected, command
