"""Issue 25 (k25): reads of dependency caches outside the project, through the installed hook
commands: raw JSON in the client's shape on stdin of `gateway hook pre-tool-use` and
`gateway hook permission-request`, in the independent benchmark's sample projects (whose
home holds ~/.cargo/registry/src, ~/go/pkg/mod and ~/.m2), with the exact decision and
code in each mode. The neighbours (a symlink in a cache to ~/.ssh, the credentials beside
the caches, writes into them, other tilde forms) keep asking."""

import json
import os

import pytest

SESSION = "9c7d2f4e-1a3b-4c5d-8e6f-7a8b9c0d1e2f"
MODES = ("default", "acceptEdits", "plan")


@pytest.fixture(scope="module")
def projects(tmp_path_factory):
    from benchmarks.everyday.independent.projects import build

    root = str(tmp_path_factory.mktemp("k25-hooks"))
    out = {eco: build(root, eco) for eco in ("go", "rust", "java")}
    # a symlink inside each cache that leads to the private key (proven in real bash to print
    # it: tests below and benchmarks/redteam/corpus.tsv)
    for eco, link, target in (
            ("rust", ".cargo/registry/src/index.crates.io-6f17d22bba15001f/keys", ".ssh"),
            ("java", ".m2/repository/com/acme/key.pom", ".ssh/id_ed25519"),
            ("go", "go/pkg/mod/github.com/evil/x@v1.0.0", ".ssh")):
        home = out[eco][1]
        os.makedirs(os.path.dirname(os.path.join(home, link)), exist_ok=True)
        os.symlink(os.path.join(home, target), os.path.join(home, link))
    return out


def call(run_hook, event, command, eco, projects, mode, env=None):
    project, home = projects[eco]
    data = {"session_id": SESSION, "transcript_path": "/tmp/t.jsonl", "cwd": project,
            "permission_mode": mode, "hook_event_name": event, "tool_name": "Bash",
            "tool_input": {"command": command}}
    if event == "PreToolUse":
        data["tool_use_id"] = "toolu_1"
    name = "pre-tool-use" if event == "PreToolUse" else "permission-request"
    proc = run_hook(name, json.dumps(data).encode(), dict({"HOME": home}, **(env or {})))
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout.decode()
    if not text.strip():
        return None, None
    out = json.loads(text)["hookSpecificOutput"]
    assert out["hookEventName"] == event
    if event == "PreToolUse":
        decision, reason = out["permissionDecision"], out["permissionDecisionReason"]
    else:
        decision, reason = out["decision"]["behavior"], out["decision"].get("message", "")
    code = reason.split(":", 1)[0].replace("gateway ", "") if reason else None
    return decision, code


READS = [
    ("rust", "ls ~/.cargo/registry/src/"),
    ("rust", "sed -n '1,60p' ~/.cargo/registry/src/index.crates.io-*/tokio-1.*/src/time/sleep.rs"),
    ("rust", "cat ~/.cargo/registry/src/index.crates.io-6f17d22bba15001f/tokio-1.38.0/src/time/"
             "sleep.rs | head -5"),
    ("java", "du -sh ~/.m2/repository"),
    ("java", "grep -rn project ~/.m2/repository/com/acme/x.pom"),
    ("go", "head -20 ~/go/pkg/mod/github.com/go-chi/chi/v5@v5.1.0/mux.go"),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("eco,command", READS)
def test_cache_reads_run_in_every_mode(run_hook, projects, eco, command, mode):
    assert call(run_hook, "PreToolUse", command, eco, projects, mode) == ("allow", "GW700")
    assert call(run_hook, "PermissionRequest", command, eco, projects, mode) == ("allow", None)


SECRETS = [
    # (eco, command, PreToolUse's code): the secret is read; PermissionRequest gives no
    # decision (the dialog)
    ("rust", "cat ~/.cargo/credentials.toml", "GW503"),
    ("rust", "cat ~/.cargo/registry/src/index.crates.io-6f17d22bba15001f/keys/id_ed25519",
     "GW503"),
    ("rust", "cat ~/.cargo/registry/src/*/keys/id_ed25519", "GW503"),
    ("java", "cat ~/.m2/repository/com/acme/key.pom", "GW503"),
    ("java", "cat ~/.m2/repository/../settings.xml", "GW503"),
    ("java", "cat ~/.m2/settings.xml", "GW503"),
    ("java", "cat ~/.gradle/gradle.properties", "GW503"),
    ("go", "cat ~/go/pkg/mod/github.com/evil/x@v1.0.0/id_ed25519", "GW503"),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("eco,command,code", SECRETS)
def test_secrets_beside_or_behind_a_cache_ask(run_hook, projects, eco, command, code, mode):
    assert call(run_hook, "PreToolUse", command, eco, projects, mode) == ("ask", code)
    assert call(run_hook, "PermissionRequest", command, eco, projects, mode) == (None, None)


NOT_READS = [
    # writes into a cache, a recursive read that follows the link out, other tilde forms,
    # the cache's parent: the client's dialog (PreToolUse: no secret read, no decision)
    ("rust", "touch ~/.cargo/registry/src/x"),
    ("rust", "ls ~/.cargo"),
    ("rust", "ls ~root/.cargo/registry/src"),
    ("rust", "cd ~/.cargo/registry/src && ls"),
    ("java", "rm -rf ~/.m2/repository/com"),
    ("java", "sed -i s/a/b/ ~/.m2/repository/com/acme/x.pom"),
    ("java", "cp README.md ~/.m2/repository/com/acme/x.pom"),
    ("java", "echo x > ~/.m2/repository/x.pom"),
    ("go", "ls ~/go"),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("eco,command", NOT_READS)
def test_writes_and_other_places_are_not_allowed(run_hook, projects, eco, command, mode):
    pre = call(run_hook, "PreToolUse", command, eco, projects, mode)
    assert pre[0] != "allow", pre
    assert call(run_hook, "PermissionRequest", command, eco, projects, mode) == (None, None)


@pytest.mark.parametrize("mode", MODES)
def test_recursive_read_through_a_link_out_asks(run_hook, projects, mode):
    cmd = "grep -R KEY ~/.cargo/registry/src"
    # PreToolUse: what the walk reads cannot be proven free of secrets (GW840 wraps the
    # validator's GW507); PermissionRequest: the dialog
    assert call(run_hook, "PreToolUse", cmd, "rust", projects, mode) == ("ask", "GW840")
    assert call(run_hook, "PermissionRequest", cmd, "rust", projects, mode) == (None, None)


def test_cargo_home_from_the_environment(run_hook, projects, tmp_path):
    """CARGO_HOME moves the registry: ~/.cargo/registry/src is then no cache, the new place
    is."""
    other = tmp_path / "cargo"
    (other / "registry" / "src" / "idx" / "serde-1.0.0").mkdir(parents=True)
    (other / "registry" / "src" / "idx" / "serde-1.0.0" / "lib.rs").write_text("// s\n")
    env = {"CARGO_HOME": str(other)}
    moved = f"cat {other}/registry/src/idx/serde-1.0.0/lib.rs"
    assert call(run_hook, "PermissionRequest", moved, "rust", projects, "default",
                env) == ("allow", None)
    assert call(run_hook, "PermissionRequest", "ls ~/.cargo/registry/src/", "rust", projects,
                "default", env) == (None, None)
    # and the files beside the moved registry are no cache
    assert call(run_hook, "PermissionRequest", f"cat {other}/credentials.toml", "rust",
                projects, "default", env) == (None, None)


def test_a_cache_place_that_is_home_or_a_secret_is_none(run_hook, projects):
    """GOMODCACHE=$HOME or ~/.ssh (the user's environment, or a hostile go env file) makes
    no place readable."""
    _project, home = projects["go"]
    for value in (home, os.path.join(home, ".ssh")):
        env = {"GOMODCACHE": value}
        assert call(run_hook, "PermissionRequest", f"ls {value}", "go", projects, "default",
                    env) == (None, None)
