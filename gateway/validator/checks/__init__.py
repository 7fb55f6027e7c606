"""Named argument checks for commands whose safety depends on more than their options:
the program text of sed, awk and jq, find's expression, and the forms of git checkout /
restore / reset / config and gh api that only read.

Each check returns (verdict or None, path candidates, written candidates). Anything a check
does not understand is refused: these are allowlists, not blocklists.

One module per family (programs: sed, awk, jq; tools: find, make, xxd, date; git: git and
gh; buildtools/: go, cargo, npm, pip, pytest, the formatters and linters, tsc, one module each),
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
    "printenv": ("tools", "printenv"),
    "ps": ("tools", "ps"),
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
    "git-rebase": ("git", "git_rebase"),
    "git-cherry-pick": ("git", "git_cherry_pick"),
    "git-stash-push": ("git", "git_stash_push"),
    "git-remote": ("gitconfig", "git_remote"),
    "git-var": ("gitconfig", "git_var"),
    "git-clean": ("git", "git_clean"),
    "gh-api": ("git", "gh_api"),
    "rm": ("removal", "rm"),
    "curl": ("net", "curl"),
    "yq": ("everyday", "yq"),
    "compileall": ("everyday", "compileall"),
    "coverage-run": ("everyday", "coverage_run"),
    "jvm-build": ("jvm", "jvm_build"),
    "jar": ("jvm", "jar"),
    "javap": ("jvm", "javap"),
    # build, test and package tools: one module per family (checks/buildtools/)
    "go": ("buildtools.go", "go"),
    "tsc": ("buildtools.js", "tsc"),
    "cargo": ("buildtools.cargo", "cargo"),
    "pytest": ("buildtools.pytest", "pytest"),
    "npm": ("buildtools.npm", "npm"),
    "npm-script": ("buildtools.npm", "npm_script"),
    "npm-exec": ("buildtools.npm", "npm_exec"),
    "npm-config-get": ("buildtools.npm", "npm_config_get"),
    "flask": ("buildtools.pyapps", "flask"),
    "alembic": ("buildtools.pyapps", "alembic"),
    "pkg-run": ("buildtools.python", "pkg_run"),
    "pip": ("buildtools.python", "pip"),
    "downloads": ("buildtools.npm", "downloads"),
    "go-generate": ("buildtools.go", "go_generate"),
    "formatter": ("buildtools.formatters", "formatter"),
    "mypy": ("buildtools.mypy", "mypy"),
    "eslint": ("buildtools.js", "eslint"),
    "js-test": ("buildtools.js", "js_test"),
    "gofmt": ("buildtools.go", "gofmt"),
    "pyright": ("buildtools.mypy", "pyright"),
    "venv": ("buildtools.python", "venv"),
    "bare-install": ("buildtools.npm", "bare_install"),
    "go-cover": ("buildtools.go", "go_cover"),
    "go-clean": ("buildtools.go", "go_clean"),
    "go-mod-download": ("buildtools.go", "go_mod_download"),
    "golangci-lint": ("buildtools.go", "golangci_lint"),
    "go-analyzer": ("buildtools.go", "go_analyzer"),
    "cargo-clean": ("buildtools.cargo", "cargo_clean"),
    "django-admin": ("buildtools.django", "django_admin"),
    "tox": ("buildtools.sessions", "tox"),
    "sqlite3": ("sqlite", "sqlite3"),
    "nox": ("buildtools.sessions", "nox"),
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
