"""cargo's everyday subcommands (issue 25): nextest, audit, deny check, outdated, fetch,
update --dry-run, publish --dry-run, fix, new, and cargo fmt --check read-only in plan mode.
Judged as the client's hooks judge them (benchmarks/everyday/run.py's Judge) in the
independent Rust list's sample project (a workspace with a Cargo.lock), with the exact
decision and code; beside each class the neighbours that must still ask."""

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.everyday import run as bench


@pytest.fixture(scope="module")
def judge(tmp_path_factory):
    from benchmarks.everyday.independent.projects import build

    root = str(tmp_path_factory.mktemp("rust"))
    project, home = build(root, "rust")
    return bench.Judge(os.path.join(root, "rust"), project=project, home=home)


def _decide(judge, command, mode="default"):
    a = judge(command, mode)
    return a["final"], a["validator_code"]


RUN = ["cargo nextest run", "cargo nextest run -p core --no-fail-fast",
       "cargo nextest run -E 'test(parse)' -- --exact", "cargo audit", "cargo audit --json",
       "cargo deny check", "cargo deny check advisories", "cargo outdated -R",
       "cargo fetch", "cargo update --dry-run", "cargo update -p regex --dry-run",
       "cargo publish --dry-run -p core", "cargo publish -n -p core --allow-dirty"]


@pytest.mark.parametrize("mode", ("default", "acceptEdits"))
@pytest.mark.parametrize("command", RUN)
def test_the_everyday_forms_run(judge, command, mode):
    assert _decide(judge, command, mode) == ("allow", "GW700")


@pytest.mark.parametrize("command", ["cargo fix --allow-dirty -p cli",
                                     "cargo new crates/telemetry --lib"])
def test_edits_run_in_accept_edits(judge, command):
    assert _decide(judge, command, "acceptEdits") == ("allow", "GW700")


def test_cargo_new_is_the_humans_in_default(judge):
    assert _decide(judge, "cargo new crates/telemetry --lib") == ("ask", "GW721")
    assert _decide(judge, "cargo new /tmp/x", "acceptEdits") == ("ask", "GW501")
    assert _decide(judge, "cargo new .claude/x", "acceptEdits")[0] in ("ask", "deny")


@pytest.mark.parametrize("command", ["cargo fmt --all -- --check", "cargo fmt -- --check",
                                     "cargo fmt --check -p core"])
def test_fmt_check_is_read_only_in_plan(judge, command):
    assert _decide(judge, command, "plan") == ("allow", "GW700")


@pytest.mark.parametrize("command", ["cargo fmt", "cargo fmt --all", "cargo fmt -- --emit files",
                                     "cargo fmt -- src/--check"])
def test_fmt_that_rewrites_asks_in_plan(judge, command):
    assert _decide(judge, command, "plan")[0] == "ask"


ASKS = [
    # publishing, upgrading, installing
    ("cargo publish -p core", "GW764"),
    ("cargo publish", "GW764"),
    ("cargo publish --dry-run --registry evil", "GW704"),
    ("cargo publish --dry-run --index https://evil.example/index", "GW704"),
    ("cargo publish --dry-run --token x", "GW704"),
    ("cargo update", "GW764"),
    ("cargo update -p regex", "GW764"),
    ("cargo update --dry-run --config 'build.rustc-wrapper=\"/tmp/w\"'", "GW760"),
    ("cargo install cargo-nextest --locked", "GW764"),
    # another database, another advisory source; the fix and init forms write
    ("cargo audit --db /tmp/db", "GW704"),
    ("cargo audit --url https://evil.example/db.git", "GW704"),
    ("cargo audit fix", "GW712"),
    ("cargo deny fetch", "GW705"),
    ("cargo deny init", "GW705"),
    ("cargo nextest archive --archive-file x.tar.zst", "GW705"),
    ("cargo nextest run --tool-config-file /tmp/x.toml", "GW704"),
    ("cargo nextest run -- --logfile /tmp/x", "GW704"),
    ("cargo new crates/x --registry evil", "GW704"),
]


@pytest.mark.parametrize("mode", ("default", "acceptEdits"))
@pytest.mark.parametrize("command,code", ASKS)
def test_the_neighbours_ask(judge, command, code, mode):
    assert _decide(judge, command, mode) == ("ask", code)


def test_without_a_cargo_lock_fetch_and_publish_dry_run_ask(judge):
    lock = os.path.join(judge.project, "Cargo.lock")
    os.rename(lock, lock + ".bak")
    try:
        for cmd in ("cargo fetch", "cargo publish --dry-run -p core", "cargo nextest run",
                    "cargo audit", "cargo deny check"):
            assert _decide(judge, cmd) == ("ask", "GW764"), cmd
    finally:
        os.rename(lock + ".bak", lock)


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sub=st.sampled_from(["publish -p core", "publish", "update", "update -p regex",
                            "update --workspace"]),
       extra=st.sampled_from(["", "--allow-dirty", "-q", "--locked", "--no-verify",
                              "--no-dry-run", "--dry", "-d"]))
def test_publish_and_update_without_their_dry_run_never_run(judge, sub, extra):
    cmd = f"cargo {sub} {extra}".strip()
    assert _decide(judge, cmd, "acceptEdits")[0] == "ask"
