"""Issue 25 (k25): `$(go env X)`, "$(cmd)" used as a string, and the project's built programs,
through the installed hook commands (raw JSON on stdin of `gateway hook pre-tool-use` and
`gateway hook permission-request`) in the independent benchmark's sample projects, with the
exact decision and code in default, acceptEdits and plan. Their neighbours keep asking."""

import os
import subprocess

import pytest

from tests.e2e.test_hook_dependency_caches import call

MODES = ("default", "acceptEdits", "plan")


@pytest.fixture(scope="module")
def projects(tmp_path_factory):
    from benchmarks.everyday.independent.projects import build

    root = str(tmp_path_factory.mktemp("k25-subs"))
    return {eco: build(root, eco) for eco in ("go", "rust", "java")}


ALLOWED_EVERY_MODE = [
    ("go", "ls $(go env GOMODCACHE)/github.com/jackc/"),
    ("go", "sed -n '1,80p' $(go env GOMODCACHE)/github.com/go-chi/chi/v5@v5.1.0/mux.go"),
    ("go", "du -sh $(go env GOCACHE)"),
    ("go", 'test -z "$(gofmt -l .)" && echo ok'),
    ("go", '[ -n "$(git status --porcelain)" ] && echo dirty'),
    ("go", "printf '%s\\n' \"$(go env GOPATH)\""),  # the go env form: its value
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("eco,command", ALLOWED_EVERY_MODE)
def test_substitutions_modelled_run_in_every_mode(run_hook, projects, eco, command, mode):
    assert call(run_hook, "PreToolUse", command, eco, projects, mode) == ("allow", "GW700")
    assert call(run_hook, "PermissionRequest", command, eco, projects, mode) == ("allow", None)


SUBSTITUTION_NEIGHBOURS = [
    # (command, PreToolUse's answer in every mode); PermissionRequest: the dialog
    ("cat $(go env GOFLAGS)", ("ask", "GW840")),  # not a modelled path variable (GW201)
    ("ls $(go env GOROOT)/..", ("ask", "GW840")),  # which toolchain runs decides it
    ("test -z $(gofmt -l .)", ("ask", "GW840")),  # unquoted: split and globbed
    ('printf "$(gofmt -l .)"', ("ask", "GW840")),  # the format
    ('echo "$(gofmt -l .)" > "$(gofmt -l .)"', ("ask", "GW840")),  # a redirection target
    ('test -n "$(cat .env)"', ("ask", "GW503")),  # the inner command reads a secret
    ('echo "$(whoami)"', ("ask", "GW840")),  # echo: not modelled (the seeds' cases)
    ("cat $(go env GOMODCACHE)/../../../.ssh/id_ed25519", ("ask", "GW503")),
    ('X="$(gofmt -l .)" echo', ("ask", "GW840")),
    ('test -z "$(gofmt -l . | sh)"', ("ask", "GW840")),  # the inner pipeline runs a shell
    ("cd /tmp && test -z \"$(ls)\"", ("ask", "GW840")),  # cd: where it runs is not modelled
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("command,pre", SUBSTITUTION_NEIGHBOURS)
def test_substitution_neighbours_ask(run_hook, projects, command, pre, mode):
    assert call(run_hook, "PreToolUse", command, "go", projects, mode) == pre
    assert call(run_hook, "PermissionRequest", command, "go", projects, mode) == (None, None)


def test_hostile_go_env_file_points_the_cache_at_ssh(run_hook, projects):
    """A go env file that says GOMODCACHE=~/.ssh: the value is what go would print, and the
    read is judged as the read of ~/.ssh it is (real bash: `ls $(go env GOMODCACHE)` lists
    id_ed25519)."""
    _project, home = projects["go"]
    envfile = os.path.join(home, ".config", "go", "env")
    os.makedirs(os.path.dirname(envfile), exist_ok=True)
    with open(envfile, "w") as fh:
        fh.write(f"GOMODCACHE={home}/.ssh\n")
    try:
        for mode in MODES:
            cmd = "cat $(go env GOMODCACHE)/id_ed25519"
            assert call(run_hook, "PreToolUse", cmd, "go", projects, mode) == ("ask", "GW503")
            assert call(run_hook, "PermissionRequest", cmd, "go", projects, mode) == (None, None)
            cmd = "ls $(go env GOMODCACHE)"
            assert call(run_hook, "PermissionRequest", cmd, "go", projects, mode) == (None, None)
    finally:
        os.unlink(envfile)


@pytest.mark.parametrize("eco,command", [
    ("rust", "./target/debug/cli --version"),
    ("java", "java -jar target/order-service-0.0.1-SNAPSHOT.jar --server.port=8081"),
])
def test_built_programs_run_in_default_and_accept_edits(run_hook, projects, eco, command):
    for mode in ("default", "acceptEdits"):
        assert call(run_hook, "PreToolUse", command, eco, projects, mode) == ("allow", "GW603")
        assert call(run_hook, "PermissionRequest", command, eco, projects, mode) == ("allow",
                                                                                       None)
    # plan: the program may write anything
    assert call(run_hook, "PreToolUse", command, eco, projects, "plan") == (None, None)
    assert call(run_hook, "PermissionRequest", command, eco, projects, "plan") == (None, None)


BUILT_NEIGHBOURS = [
    ("rust", "./target/debug/core", ("ask", "GW840")),  # a library, no binary target
    ("rust", "./target/debug/cli .env", ("ask", "GW503")),
    ("rust", "./target/debug/cli /etc/hostname", (None, None)),  # outside the project
    ("rust", "ln -sf /bin/sh target/debug/cli && ./target/debug/cli -c 'echo pwned'",
     ("ask", "GW840")),
    ("rust", "printf '#!/bin/sh\\necho pwned\\n' > target/debug/cli; ./target/debug/cli",
     ("ask", "GW840")),
    ("java", "java -javaagent:x.jar -jar target/order-service-0.0.1-SNAPSHOT.jar",
     ("ask", "GW840")),
    ("java", "java -jar target/other-1.0.jar", ("ask", "GW840")),
    ("java", "java -jar /tmp/x.jar", ("ask", "GW840")),
    ("go", "./bin/server --version", ("ask", "GW840")),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("eco,command,pre", BUILT_NEIGHBOURS)
def test_built_program_neighbours_ask(run_hook, projects, eco, command, pre, mode):
    assert call(run_hook, "PreToolUse", command, eco, projects, mode) == pre
    assert call(run_hook, "PermissionRequest", command, eco, projects, mode) == (None, None)


def test_a_link_to_a_system_program_or_a_tracked_binary_is_not_the_build(run_hook, projects,
                                                                           tmp_path):
    project, _home = projects["rust"]
    cli = os.path.join(project, "target", "debug", "cli")
    saved = open(cli, "rb").read()
    os.unlink(cli)
    os.symlink("/bin/sh", cli)  # real bash: ./target/debug/cli -c 'echo pwned' prints pwned
    try:
        out = subprocess.run([cli, "-c", "echo pwned"], capture_output=True, text=True)
        assert out.stdout == "pwned\n"
        for mode in MODES:
            cmd = "./target/debug/cli -c 'echo pwned'"
            assert call(run_hook, "PermissionRequest", cmd, "rust", projects, mode) == (None,
                                                                                      None)
    finally:
        os.unlink(cli)
        with open(cli, "wb") as fh:
            fh.write(saved)
        os.chmod(cli, 0o755)
    # committed into the repository: not the build's output (GW604)
    subprocess.run(["git", "-C", project, "add", "-f", "target/debug/cli"], check=True)
    try:
        assert call(run_hook, "PreToolUse", "./target/debug/cli --version", "rust", projects,
                    "default") == ("ask", "GW840")
    finally:
        subprocess.run(["git", "-C", project, "rm", "-q", "--cached", "target/debug/cli"],
                       check=True)
