"""Named argument checks for commands whose safety depends on more than their options:
the program text of sed, awk and jq, find's expression, and the forms of git checkout /
restore / reset / config and gh api that only read.

Each check returns (verdict or None, path candidates, written candidates). Anything a check
does not understand is refused: these are allowlists, not blocklists.

One module per family (programs: sed, awk, jq; tools: find, make, xxd, date; git: git and
gh; build: go, cargo, npm, pip, pytest, the formatters and linters, tsc),
imported when a command first needs its check.
"""

import sys

from gateway.validator.checks._common import PHASE, revision_secret  # noqa: F401

#: check name (the catalogue's `check:`) -> (module, function)
_CHECKS = {
    "gateway-verify": ("gateway", "verify"),
    "gateway-spec-step": ("gateway", "spec_step"),
    "sed": ("programs", "sed"),
    "awk": ("programs", "awk"),
    "jq": ("programs", "jq"),
    "find": ("tools", "find"),
    "make": ("tools", "make"),
    "xxd": ("tools", "xxd"),
    "date": ("tools", "date"),
    "ln": ("tools", "ln"),
    "tar": ("archives", "tar"),
    "zip": ("archives", "zip"),
    "unzip": ("archives", "unzip"),
    "git-checkout": ("git", "git_checkout"),
    "git-switch": ("git", "git_switch"),
    "git-fetch": ("git", "git_fetch"),
    "git-stash-apply": ("git", "git_stash_apply"),
    "git-restore": ("git", "git_restore"),
    "git-reset": ("git", "git_reset"),
    "git-config": ("gitconfig", "git_config"),
    "git-merge": ("git", "git_merge"),
    "git-cherry-pick": ("git", "git_cherry_pick"),
    "git-stash-push": ("git", "git_stash_push"),
    "git-remote": ("gitconfig", "git_remote"),
    "git-var": ("gitconfig", "git_var"),
    "git-clean": ("git", "git_clean"),
    "gh-api": ("git", "gh_api"),
    "rm": ("removal", "rm"),
    "yq": ("everyday", "yq"),
    "compileall": ("everyday", "compileall"),
    "coverage-run": ("everyday", "coverage_run"),
    "jvm-build": ("jvm", "jvm_build"),
    **{n: ("build", n.replace("-", "_")) for n in (  # build, test and package tools
        "go", "tsc", "cargo", "pytest", "npm", "npm-script", "npm-exec", "pkg-run", "pip",
        "downloads", "go-generate", "formatter", "mypy", "eslint", "js-test", "gofmt", "pyright", "venv",
        "bare-install", "go-cover", "cargo-clean")},
}


def run(name, ctx, spec, words, cwd):
    module, func = _CHECKS[name]
    full = f"gateway.validator.checks.{module}"
    if full not in sys.modules:
        __import__(full)
    return getattr(sys.modules[full], func)(ctx, spec, words, cwd)


def tracked_secret(ctx, label, mode, words, cwd, rule):
    """git commands that print a secret's contents ask (gitprint.py)."""
    full = "gateway.validator.checks.gitprint"
    if full not in sys.modules:
        __import__(full)
    return sys.modules[full].tracked_secret(ctx, label, mode, words, cwd, rule)
