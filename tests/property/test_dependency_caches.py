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
                    env={"HOME": home, "PATH": os.environ.get("PATH", "")}, home=home)


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
