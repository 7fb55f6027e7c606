"""Go's everyday tools (issue 25): golangci-lint, staticcheck, govulncheck, goimports,
go clean -testcache, go test -fuzz, go mod download / tidy -diff, and plan mode's reading of
go's one-word options (`go list -deps`, `go doc -all`). Judged as the client's hooks judge
them (benchmarks/everyday/run.py's Judge: the PreToolUse guards, then the PermissionRequest
validator) in the independent Go list's sample project, with the exact decision and code; the
neighbours that must still ask are beside each class, and hypothesis generates more."""

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.everyday import run as bench


@pytest.fixture(scope="module")
def judge(tmp_path_factory):
    from benchmarks.everyday.independent.projects import build

    root = str(tmp_path_factory.mktemp("go"))
    project, home = build(root, "go")
    return bench.Judge(os.path.join(root, "go"), project=project, home=home)


def _decide(judge, command, mode="default"):
    a = judge(command, mode)
    return a["final"], a["validator_code"]


RUN = [
    "golangci-lint run",
    "golangci-lint run ./...",
    "golangci-lint run ./internal/handler/... 2>&1 | head -50",
    "golangci-lint run --new-from-rev=origin/main",
    "golangci-lint run --timeout 5m -E gosec ./internal/...",
    "staticcheck ./...",
    "staticcheck -checks=all,-ST1000 ./internal/...",
    "govulncheck ./...",
    "govulncheck -show verbose ./...",
    "goimports -l .",
    "goimports -local github.com/acme/orders -d ./internal",
    "go clean -testcache",
    "go test -run TestParse -fuzz=FuzzParse -fuzztime=30s ./pkg/parser",
    "go mod download",
    "go mod download -x",
    "go mod tidy -diff",
    "go list -deps ./cmd/server",
    "go doc -all ./internal/store",
]


@pytest.mark.parametrize("mode", ("default", "acceptEdits"))
@pytest.mark.parametrize("command", RUN)
def test_the_everyday_forms_run(judge, command, mode):
    assert _decide(judge, command, mode) == ("allow", "GW700")


READ_ONLY = ["go list ./...", "go list -m all", "go list -deps ./cmd/server",
             "go list -f '{{.ImportPath}}' ./internal/...", "go mod graph", "go mod verify",
             "go mod why golang.org/x/net", "go doc -all ./internal/store", "goimports -l ."]


@pytest.mark.parametrize("command", READ_ONLY)
def test_plan_mode_reads_go_queries_as_read_only(judge, command):
    assert _decide(judge, command, "plan") == ("allow", "GW700")


@pytest.mark.parametrize("command", [
    "golangci-lint run ./...", "go clean -testcache", "go mod download", "staticcheck ./...",
    "go list -toolexec=/tmp/x ./...", "go mod why -vendor=x -toolexec=/tmp/x m"])
def test_plan_mode_asks_for_what_writes_or_runs(judge, command):
    assert _decide(judge, command, "plan")[0] == "ask"


ASKS = [
    # a profile written anywhere; a configuration from outside; unpinned modules
    ("golangci-lint run --cpu-profile-path=/tmp/p", "GW704"),
    ("golangci-lint run -c /tmp/evil.yml", "GW501"),
    ("golangci-lint run --modules-download-mode=mod", "GW764"),
    ("golangci-lint cache clean", "GW705"),
    ("staticcheck -debug.cpuprofile=/tmp/x ./...", "GW704"),
    ("staticcheck example.com/x@latest", "GW764"),
    ("govulncheck -db=file:///tmp/db ./...", "GW704"),
    ("govulncheck -C /tmp ./...", "GW704"),
    ("govulncheck -mode=binary ./bin/server", "GW704"),
    ("goimports -w /tmp/x.go", "GW501"),
    ("goimports -cpuprofile=x .", "GW704"),
    # go clean without -testcache removes files; -modcache/-cache whole caches outside
    ("go clean", "GW704"),
    ("go clean -modcache", "GW704"),
    ("go clean -cache", "GW704"),
    ("go clean -i ./...", "GW704"),
    ("go clean -testcache -modcache", "GW704"),
    # tidy adds modules the project does not pin; a version names what go.mod does not pin
    ("go mod tidy", "GW764"),
    ("go mod download golang.org/x/net@v0.30.0", "GW764"),
    ("go mod download -modfile=/tmp/go.mod", "GW760"),
    ("go test -fuzz=FuzzParse -exec=/tmp/x ./pkg/parser", "GW760"),
]


@pytest.mark.parametrize("mode", ("default", "acceptEdits"))
@pytest.mark.parametrize("command,code", ASKS)
def test_the_neighbours_ask(judge, command, code, mode):
    assert _decide(judge, command, mode) == ("ask", code)


def test_golangci_lint_fix_is_a_rewrite_judged_on_the_surface(judge):
    # --fix rewrites the packages' .go files as the project's linters choose, as clippy
    # --fix and ruff check --fix do (docs/security.md "Edits in default mode"); a .go file
    # on the permission surface is not rewritten
    assert _decide(judge, "golangci-lint run --fix")[0] == "allow"
    assert _decide(judge, "golangci-lint run --fix", "plan")[0] == "ask"


def _config(judge, text, name=".golangci.yml"):
    path = os.path.join(judge.project, name)
    with open(path, "w") as fh:
        fh.write(text)
    return path


CONFIG_ASKS = [
    "linters-settings:\n  custom:\n    evil:\n      path: /tmp/evil.so\n",
    "linters:\n  settings:\n    custom:\n      evil:\n        type: module\n",
    "run:\n  modules-download-mode: mod\n",
    "output:\n  formats:\n    - format: json\n      path: /tmp/report.json\n",
    "output:\n  formats:\n    - format: json\n      path: .claude/settings.json\n",
    "version: '2'\noutput:\n  formats:\n    json:\n      path: .git/hooks/pre-commit\n",
    "linters-settings:\n  goheader:\n    template-path: /etc/passwd\n",
    "linters-settings:\n  goheader:\n    template-path: .env\n",
    "linters: [unterminated\n",
]


@pytest.mark.parametrize("text", CONFIG_ASKS)
def test_a_configuration_that_runs_fetches_or_writes_elsewhere_asks(judge, text):
    path = os.path.join(judge.project, ".golangci.yml")
    with open(path) as fh:
        saved = fh.read()
    try:
        _config(judge, text)
        assert _decide(judge, "golangci-lint run") == ("ask", "GW761")
    finally:
        _config(judge, saved)


def test_exclusion_rules_name_files_by_pattern_not_as_files(judge):
    path = os.path.join(judge.project, ".golangci.yml")
    with open(path) as fh:
        saved = fh.read()
    try:
        _config(judge, "issues:\n  exclude-rules:\n    - path: _test\\.go\n"
                       "      linters: [errcheck]\n"
                       "output:\n  formats:\n    - format: json\n      path: build/lint.json\n")
        assert _decide(judge, "golangci-lint run") == ("allow", "GW700")
    finally:
        _config(judge, saved)


def test_a_configuration_above_the_project_or_in_home_asks(judge):
    home = judge.env["HOME"]
    above = os.path.dirname(judge.project)
    for where in (home, above):
        path = os.path.join(where, ".golangci.yaml")
        with open(path, "w") as fh:
            fh.write("linters:\n  enable: [govet]\n")
        os.rename(os.path.join(judge.project, ".golangci.yml"),
                  os.path.join(judge.project, "golangci.bak"))
        try:
            assert _decide(judge, "golangci-lint run") == ("ask", "GW761")
        finally:
            os.remove(path)
            os.rename(os.path.join(judge.project, "golangci.bak"),
                      os.path.join(judge.project, ".golangci.yml"))


def test_go_mod_download_without_pinned_sums_asks(judge):
    path = os.path.join(judge.project, "go.sum")
    with open(path) as fh:
        saved = fh.read()
    try:
        open(path, "w").close()
        assert _decide(judge, "go mod download") == ("ask", "GW764")
        assert _decide(judge, "go mod tidy -diff") == ("ask", "GW764")
    finally:
        with open(path, "w") as fh:
            fh.write(saved)


_UNSAFE_GO = ["-toolexec=/tmp/x", "-exec=/tmp/x", "-overlay=/tmp/o.json", "-modfile=/tmp/m",
              "-mod=mod", "-pkgdir=/tmp/p", "-C=/tmp", "-ldflags=-extld=/tmp/x"]


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tool=st.sampled_from(["go clean -testcache", "go mod download", "go mod tidy -diff",
                             "staticcheck ./...", "govulncheck ./...", "golangci-lint run"]),
       flag=st.sampled_from(_UNSAFE_GO), dashes=st.sampled_from(["", "-"]))
def test_goflags_that_run_or_fetch_ask_whoever_loads_the_packages(judge, tool, flag, dashes):
    # the linters load the packages with go list: GOFLAGS (here the go env file) is judged
    # as for go itself
    config = judge.env.get("XDG_CONFIG_HOME") or os.path.join(judge.env["HOME"], ".config")
    env_file = os.path.join(config, "go", "env")
    os.makedirs(os.path.dirname(env_file), exist_ok=True)
    with open(env_file, "w") as fh:
        fh.write(f"GOFLAGS={dashes}{flag}\n")
    try:
        assert _decide(judge, tool)[0] == "ask"
    finally:
        os.remove(env_file)
