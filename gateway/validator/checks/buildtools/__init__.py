"""Build, test and package tools: go, cargo, the npm family, pip/uv/poetry, pytest, the
formatters and linters, tsc, the JS test runners.

Three things are judged here besides each entry's option allowlist (the catalogue):

* **shared options**: options every subcommand of a build tool accepts live once in the
  catalogue (`shared:`) and are merged into each subcommand; the unsafe ones among them ask
  with GW760 wherever they appear (go -toolexec, cargo --config, npm --script-shell);
* **configuration is an effect**: what a tool reads from files or the environment as part
  of its command line is judged like its command line (GOFLAGS and the go env file,
  pytest's ini and PYTEST_ADDOPTS, .npmrc and npm_config_*, .cargo/config.toml and CARGO_*,
  ruff's fix/cache-dir/output-file/extend, tsconfig.json's outputs); a file that cannot be
  read asks (GW761); configuration found outside the project asks (GW762);
* **side outputs**: caches, reports and binaries written besides the named files (a go
  binary named after its package, .pytest_cache in the rootdir, __pycache__ beside the
  collected tests, .mypy_cache, .eslintcache, tsc's .js beside its .ts) are judged as
  writes: on the permission surface or outside the project they ask (GW763).

Formatters and fixers rewrite the files of their type below the directories they are
given: such a file on the permission surface asks (GW765); a protected pattern that matches
no file of that type on disk is no reason to ask. Runners of the project's own scripts
(npm test, npm run X, yarn X) have the trust of `make test`; runners of an installed tool
(npx tsc, uv run pytest, poetry run mypy, yarn eslint) are judged as that tool; whatever
downloads code the project does not pin asks (GW764).

Each check returns (verdict or None, path candidates, written candidates[, (argv, cwd) of
a command judged as itself]).


One module per tool or family (go.py, cargo.py, npm.py, python.py, pytest.py, mypy.py,
formatters.py, js.py) and what they share (_shared.py). Each name stays importable from
this package (`from gateway.validator.checks.buildtools import formatter`); a name is imported
from its module when first asked for, so a hook call loads only the tool it judges.
"""

import sys

#: name -> the module of this package that defines it (the checks named like their module,
#: go, cargo, npm, pytest and mypy, are reached through the module: buildtools.go.go)
_HOME = {
    "ConfigError": "_shared",
    "Surface": "_shared",
    "WALK_LIMIT": "_shared",
    "_CARGO_CONFIG_OK": "cargo",
    "_CARGO_ENV_FLAGS": "cargo",
    "_CARGO_ENV_PROGRAMS": "cargo",
    "_CARGO_PROGRAM_KEYS": "cargo",
    "_CONFIG_MAX": "_shared",
    "_ESLINT_READS": "js",
    "_FORMATTERS": "formatters",
    "_FORMATTER_NO_FOLLOW": "formatters",
    "_FORMATTER_SKIP": "formatters",
    "_GCFLAGS_OK": "go",
    "_GENERATE_MAX_BYTES": "go",
    "_GENERATE_MAX_DIRECTIVES": "go",
    "_GENERATE_MAX_FILES": "go",
    "_GO_VALUES_OK": "go",
    "_LDFLAGS_OK": "go",
    "_MYPY_INIS": "mypy",
    "_MYPY_WRITE_KEYS": "mypy",
    "_NPMRC_OK": "npm",
    "_NPMRC_OK_PREFIX": "npm",
    "_Outside": "js",
    "_PYTEST_INIS": "pytest",
    "_PYTEST_PATH_KEYS": "pytest",
    "_PYTEST_WRITE_KEYS": "pytest",
    "_RUFF_CONFIGS": "formatters",
    "_RUFF_INLINE_OK": "formatters",
    "_RUSTC_LINTS": "cargo",
    "_RUSTFLAGS_OK_PREFIX": "cargo",
    "_RUSTFMT_OK": "cargo",
    "_RUSTFMT_VALUE": "cargo",
    "_SHLEX_BLANK": "pytest",
    "_SHLEX_SPECIAL": "pytest",
    "_TEST_HARNESS_FLAGS": "cargo",
    "_TEST_HARNESS_VALUE": "cargo",
    "_TS_OUT_KEYS": "js",
    "_TS_SOURCES": "js",
    "_after": "_shared",
    "_ancestors": "_shared",
    "_any_outside": "_shared",
    "_ask": "_shared",
    "_cargo_build_dirs": "cargo",
    "_cargo_config_problem": "cargo",
    "_cargo_configs": "cargo",
    "_cargo_environment": "cargo",
    "_cargo_target_dirs": "cargo",
    "_cargo_unpinned": "cargo",
    "_dist_key": "python",
    "_generate_files": "go",
    "_generate_words": "go",
    "_go_binary_names": "go",
    "_go_environment": "go",
    "_go_flag_words": "go",
    "_go_flags_verdict": "go",
    "_go_inner_flags": "go",
    "_go_module": "go",
    "_go_words": "go",
    "_go_work": "go",
    "_goflags": "go",
    "_gofmt_tree": "go",
    "_home": "_shared",
    "_ini": "_shared",
    "_ini_list": "pytest",
    "_inside": "_shared",
    "_jsonc": "_shared",
    "_jsonc_clean": "_shared",
    "_last_element": "go",
    "_local_bin": "npm",
    "_mypy_section": "mypy",
    "_npm_config": "npm",
    "_npm_prefix": "npm",
    "_npmrc_problem": "npm",
    "_package_scripts": "npm",
    "_passthrough_problem": "cargo",
    "_program_ok": "_shared",
    "_pytest_find_ini": "pytest",
    "_pytest_ini": "pytest",
    "_read": "_shared",
    "_refuse": "_shared",
    "_removed_tree": "cargo",
    "_ruff_config": "formatters",
    "_ruff_section": "formatters",
    "_runner_inner": "python",
    "_rust_toolchain": "cargo",
    "_rustflags_problem": "cargo",
    "_secret_args": "_shared",
    "_shared_unsafe": "_shared",
    "_side_output": "_shared",
    "_surface_verdict": "_shared",
    "_toml": "_shared",
    "_tool_name": "npm",
    "_trusted_recipe": "npm",
    "_tsconfig": "js",
    "_uv_sync_problem": "python",
    "_yarnrc": "npm",
    "allowlist": "_shared",
    "bare_install": "npm",
    "candidates": "_shared",
    "cargo_clean": "cargo",
    "downloads": "npm",
    "eslint": "js",
    "formatter": "formatters",
    "generic": "_shared",
    "go_cover": "go",
    "go_generate": "go",
    "gofmt": "go",
    "js_test": "js",
    "npm_exec": "npm",
    "npm_script": "npm",
    "parse": "_shared",
    "pip": "python",
    "pkg_run": "python",
    "pyright": "mypy",
    "tsc": "js",
    "venv": "python",
}


def __getattr__(name):
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    full = f"{__name__}.{home}"
    if full not in sys.modules:
        __import__(full)
    return getattr(sys.modules[full], name)
