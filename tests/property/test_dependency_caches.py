"""Dependency caches (issue 25, k25): generated neighbours of the cache reads keep asking.

In the independent benchmark's Rust project (whose home holds ~/.cargo/registry/src, the
crates.io token beside it and a link inside it to ~/.ssh) and Java project (~/.m2): a read
below a cache is allowed; a write into one, a path that leaves it (`..`, a link), a tilde
form that is not the user's home (`~root`, `~+`, a quoted `~`), a cd into it, and the
files beside it ask with their exact code."""

import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gateway.decision import ALLOW, ASK
from tests.property.conftest import budget
from tests.property.support import tick

CRATE = "~/.cargo/registry/src/index.crates.io-6f17d22bba15001f/tokio-1.38.0"
READERS = ["cat", "head -5", "tail -n 3", "wc -l", "sed -n 1,20p", "grep -n sleep", "ls -la",
           "file", "stat", "less"]
WRITERS = ["touch", "rm -f", "sed -i s/a/b/", "chmod 600", "truncate -s 0", "tee",
           "cp README.md", "mv README.md", "ln -sf /etc/passwd", "shred"]
TILDES = ["~root/", "~+/", "~-/", "'~'/", "\"~\"/", "\\~/"]


@pytest.fixture(scope="module")
def rust(tmp_path_factory):
    from benchmarks.everyday.independent.projects import build

    project, home = build(str(tmp_path_factory.mktemp("k25rust")), "rust")
    link = os.path.join(home, ".cargo/registry/src/index.crates.io-6f17d22bba15001f/keys")
    os.symlink(os.path.join(home, ".ssh"), link)
    return project, home


def _v(policy, where, command, mode):
    from gateway.validator.pipeline import validate

    project, home = where
    return validate(command, project, project, policy, mode=mode,
                    env={"HOME": home, "PATH": os.environ.get("PATH", ""),
                         "SHELL": "/bin/bash"}, home=home)


MODES = st.sampled_from(["default", "acceptEdits", "plan"])
FILES = st.sampled_from(["src/time/sleep.rs", "src/time/*.rs", "src/*/sleep.rs",
                         "src/time/sleep.[r]s"])


@budget(30)
@given(reader=st.sampled_from(["cat", "head -5", "wc -l", "sed -n 1,20p", "grep -n sleep"]),
       rel=FILES, mode=MODES)
def test_reads_below_the_registry_are_allowed(policy, rust, reader, rel, mode):
    tick("caches:read")
    cmd = f"{reader} {CRATE}/{rel}"
    v = _v(policy, rust, cmd, mode)
    assert (v.decision, v.code) == (ALLOW, "GW700"), (cmd, v.code, v.message)


@budget(40)
@given(writer=st.sampled_from(WRITERS), rel=st.sampled_from(["src/time/sleep.rs", "x",
                                                             "src/new.rs"]), mode=MODES)
def test_writes_into_the_registry_ask_outside(policy, rust, writer, rel, mode):
    tick("caches:write")
    cmd = f"{writer} {CRATE}/{rel}"
    v = _v(policy, rust, cmd, mode)
    # acceptEdits: a write outside the project (GW501), unless the program always asks;
    # default and plan: edits are the human's first (GW721; rm is always-ask there, sed -i an
    # unsafe option), touch's write is outside whatever the mode
    if writer in ("truncate -s 0", "shred"):
        want = "GW701"
    elif mode == "acceptEdits" or writer == "touch":
        want = "GW501"
    else:
        want = {"rm -f": "GW701", "sed -i s/a/b/": "GW704"}.get(writer, "GW721")
    assert (v.decision, v.code) == (ASK, want), (cmd, v.code, v.message)


@budget(30)
@given(reader=st.sampled_from(READERS[:5]), tilde=st.sampled_from(TILDES), mode=MODES)
def test_other_tilde_forms_are_not_the_cache(policy, rust, reader, tilde, mode):
    tick("caches:tilde")
    cmd = f"{reader} {tilde}.cargo/registry/src/index.crates.io-6f17d22bba15001f/tokio-1.38.0/" \
          "src/time/sleep.rs"
    v = _v(policy, rust, cmd, mode)
    if tilde.startswith(("~root", "~+", "~-")):
        assert (v.decision, v.code) == (ASK, "GW209"), (cmd, v.code, v.message)
    else:
        # a quoted or escaped tilde is a literal directory named ~ inside the project; it does
        # not exist there, and no dependency cache is read
        assert "dependency cache" not in v.message, (cmd, v.message)


@budget(30)
@given(reader=st.sampled_from(READERS[:5]),
       path=st.sampled_from([f"{CRATE}/../../../../credentials.toml", "~/.cargo/credentials.toml",
                             "~/.cargo/registry/src/index.crates.io-6f17d22bba15001f/keys/"
                             "id_ed25519", "~/.cargo/registry/src/*/keys/id_ed25519",
                             "~/.ssh/id_ed25519"]),
       mode=MODES)
def test_secrets_beside_or_behind_the_registry_ask(policy, rust, reader, path, mode):
    tick("caches:secret")
    cmd = f"{reader} {path}"
    v = _v(policy, rust, cmd, mode)
    assert (v.decision, v.code) == (ASK, "GW503"), (cmd, v.code, v.message)


@budget(20)
@given(path=st.sampled_from(["~/.cargo", "~/.cargo/registry", "~/.cargo/registry/cache",
                             f"{CRATE}/../../..", "~"]), mode=MODES)
def test_places_around_the_cache_ask(policy, rust, path, mode):
    tick("caches:around")
    cmd = f"ls {path}"
    v = _v(policy, rust, cmd, mode)
    assert (v.decision, v.code) == (ASK, "GW501"), (cmd, v.code, v.message)


# --- $(go env X) and "$(cmd)" as a string --------------------------------------------------

@pytest.fixture(scope="module")
def goproj(tmp_path_factory):
    from benchmarks.everyday.independent.projects import build

    return build(str(tmp_path_factory.mktemp("k25go")), "go")


GO_VARS = ["GOMODCACHE", "GOCACHE", "GOPATH", "GOROOT", "GOFLAGS", "GOPROXY", "GOOS",
           "GONOSUMDB", "GOTOOLCHAIN", "gomodcache"]


@budget(40)
@given(var=st.sampled_from(GO_VARS), quoted=st.booleans(), mode=MODES)
def test_go_env_substitutions(policy, goproj, var, quoted, mode):
    tick("subs:go-env")
    sub = f"$(go env {var})"
    word = f'"{sub}"/github.com/jackc/' if quoted else f"{sub}/github.com/jackc/"
    cmd = f"ls {word}"
    v = _v(policy, goproj, cmd, mode)
    if var in ("GOMODCACHE", "GOCACHE"):
        # a read of the module cache; a listing (names only) of the build cache
        want = (ALLOW, "GW700")
    elif var == "GOPATH":
        want = (ASK, "GW501")  # the value is known: ~/go/github.com is no cache
    else:
        want = (ASK, "GW201")  # not a modelled path variable
    assert (v.decision, v.code) == want, (cmd, v.code, v.message)


@budget(30)
@given(prog=st.sampled_from(["touch", "rm -f", "tee", "cp README.md"]),
       var=st.sampled_from(["GOMODCACHE", "GOCACHE"]), mode=MODES)
def test_go_env_writes_ask(policy, goproj, prog, var, mode):
    tick("subs:go-env-write")
    cmd = f"{prog} $(go env {var})/x"
    v = _v(policy, goproj, cmd, mode)
    assert v.decision is ASK, (cmd, v.code, v.message)
    assert v.code in ("GW501", "GW701", "GW721"), (cmd, v.code, v.message)


INNER_READ = ["gofmt -l .", "git status --porcelain", "ls cmd", "go env GOMODCACHE",
              "git diff --name-only"]
INNER_BAD = {"cat .env": "GW503", "cat ~/.ssh/id_ed25519": "GW503", "curl https://x.io": "GW790"}


@budget(40)
@given(inner=st.sampled_from(INNER_READ), form=st.sampled_from(
    ["test -z Q", "test -n Q", "[ -z Q ]", "[ -n Q ]"]),
    mode=MODES)
def test_string_substitutions_of_reads_run(policy, goproj, inner, form, mode):
    tick("subs:string")
    cmd = form.replace("Q", f'"$({inner})"') + " && echo ok"
    v = _v(policy, goproj, cmd, mode)
    assert (v.decision, v.code) == (ALLOW, "GW700"), (cmd, v.code, v.message)


@budget(40)
@given(inner=st.sampled_from([i for i in INNER_READ if not i.startswith("go env")]
                            + sorted(INNER_BAD)), form=st.sampled_from(
    ["test -z $(X)", "test -z \"$(X)\" -o -n y", "printf \"$(X)\"", "cat \"$(X)\"",
     "echo x > \"$(X)\"", "test \"$(X)\" = y", "Y=\"$(X)\" echo", "\"$(X)\"",
     "echo '$(X)' \"$(X)\"", "echo \"a $(X)\"", "echo \"$(X)\"",
     "printf '%s\\n' \"$(X)\""]),
    mode=MODES)
def test_substitutions_elsewhere_ask(policy, goproj, inner, form, mode):
    tick("subs:elsewhere")
    cmd = form.replace("X", inner)
    v = _v(policy, goproj, cmd, mode)
    # (`echo '$(X)' "$(X)"`: the single-quoted one is literal text, no substitution: the
    # line has one `$(` more than substitutions, and the rewrite refuses it)
    assert v.decision is ASK, (cmd, v.code, v.message)
    if form == "cat \"$(X)\"" and inner in INNER_BAD or form.startswith("Y="):
        return  # the secret, or the assignment, may be the first reason
    assert v.code == "GW201", (cmd, v.code, v.message)


@budget(30)
@given(inner=st.sampled_from(sorted(INNER_BAD)),
       form=st.sampled_from(["test -z Q", "test -n Q", "[ -n Q ]"]), mode=MODES)
def test_string_substitution_judges_the_inner_command(policy, goproj, inner, form, mode):
    tick("subs:inner")
    cmd = form.replace("Q", f'"$({inner})"')
    v = _v(policy, goproj, cmd, mode)
    assert (v.decision, v.code) == (ASK, INNER_BAD[inner]), (cmd, v.code, v.message)


# --- the project's built programs ------------------------------------------------------------

@budget(30)
@given(path=st.sampled_from(["./target/debug/cli", "target/debug/cli"]),
       args=st.sampled_from(["--version", "", "--help", "check crates/core/src/lib.rs",
                             "-v -v"]),
       mode=st.sampled_from(["default", "acceptEdits"]))
def test_the_workspace_binary_runs(policy, rust, path, args, mode):
    tick("built:cargo")
    cmd = f"{path} {args}".strip()
    v = _v(policy, rust, cmd, mode)
    assert (v.decision, v.code) == (ALLOW, "GW603"), (cmd, v.code, v.message)


@budget(30)
@given(path=st.sampled_from(["./target/debug/core", "./target/release/cli",
                             "./target/debug/incremental/x", "./target/debug/server",
                             "./target/debug/../debug/cli2"]),
       mode=MODES)
def test_other_files_in_target_ask(policy, rust, path, mode):
    tick("built:other")
    v = _v(policy, rust, f"{path} --version", mode)
    want = "GW602" if "incremental" in path else "GW604"
    assert (v.decision, v.code) == (ASK, want), (path, v.code, v.message)


@budget(30)
@given(arg=st.sampled_from([".env", "~/.ssh/id_ed25519", "--config=.env", "/etc/hostname",
                            "--out=/tmp/x", "../x"]),
       mode=st.sampled_from(["default", "acceptEdits"]))
def test_the_binary_arguments_are_judged(policy, rust, arg, mode):
    tick("built:args")
    cmd = f"./target/debug/cli {arg}"
    v = _v(policy, rust, cmd, mode)
    secret = ".env" in arg or ".ssh" in arg
    assert (v.decision, v.code) == (ASK, "GW503" if secret else "GW501"), (cmd, v.code,
                                                                          v.message)
