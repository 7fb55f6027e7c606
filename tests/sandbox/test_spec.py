"""The sandbox block gateway install writes, generated from the rules (gateway.sandbox.spec):
what is hidden, what is write-protected, which toolchain caches are opened, and that a
change of the rules changes it (one source)."""

import os
import subprocess

import pytest

from gateway.runtime import get_policy
from gateway.sandbox import extras, spec


def _project(tmp_path, files=()):
    proj = tmp_path / "proj"
    proj.mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=proj, check=True)
    for rel in files:
        f = proj / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text("x\n")
    return proj


def _gen(proj, **kw):
    return spec.generate(get_policy(str(proj)), str(proj), **kw)


def test_flags_and_secrets(tmp_path):
    s = _gen(_project(tmp_path))
    b = s.block()
    assert {k: b[k] for k in ("enabled", "failIfUnavailable", "allowUnsandboxedCommands")} == \
        {"enabled": True, "failIfUnavailable": True, "allowUnsandboxedCommands": False}
    deny = b["filesystem"]["denyRead"]
    # the project's secrets as globs relative to the project, at any depth
    for glob in ("**/.env", "**/.env.*", "**/*.pem", "**/id_rsa*", "**/.npmrc", "**/.ssh",
                 "**/*.tfstate"):
        assert glob in deny
    # git reads the repository's config on every command: left to the hooks
    assert not any(".git/config" in g or "config.worktree" in g for g in deny)
    assert "**/.aws" in deny
    # templates are not secrets by the rules: re-opened below the deny globs
    assert "**/.env.example" in b["filesystem"]["allowRead"]
    # the home's credential stores as concrete paths (no walk of the home)
    for path in ("~/.ssh", "~/.aws", "~/.gnupg", "~/.netrc", "~/.git-credentials",
                 "~/.config/gh/hosts.yml", "~/.docker/config.json", "~/.kube/config"):
        assert path in deny
    assert not any(p.startswith("~/") and "*" in p for p in deny)
    # the client's own credentials
    assert "~/.claude/.credentials.json" in deny


def test_every_secret_pattern_is_either_a_glob_or_left_to_the_hooks(tmp_path):
    proj = _project(tmp_path)
    policy = get_policy(str(proj))
    globs = {g for g, _r in spec.secret_globs(policy)}
    hooks_only = set(spec.hooks_only_secrets(policy))
    dirs = {d.lower() for d in policy.secret_dirs}
    for pat in policy.secret_patterns:
        below = any(p.lower() in dirs for p in pat.split("/")[:-1])
        assert f"**/{pat}" in globs or pat in hooks_only or below, pat


def test_allow_unsandboxed_leaves_the_key_out(tmp_path):
    b = _gen(_project(tmp_path), allow_unsandboxed=True).block()
    assert "allowUnsandboxedCommands" not in b and b["enabled"] is True


def test_user_scope_writes_no_project_paths(tmp_path):
    s = _gen(_project(tmp_path, [".envrc", "package.json"]), scope="user")
    deny = s.values("denyRead")
    assert deny and all(p.startswith(("~/", "/")) for p in deny)
    assert not s.values("allowWrite")
    assert ".envrc" not in s.values("denyWrite")
    assert any("--scope local" in n for n in s.notes)


def test_venv_start_up_files_are_write_protected_by_concrete_path(tmp_path):
    proj = _project(tmp_path, [".venv/pyvenv.cfg", ".venv/lib/python3.12/site-packages/a.pth",
                               ".venv/lib/python3.12/site-packages/pkg/__init__.py",
                               "tools/env2/pyvenv.cfg",
                               "tools/env2/lib/python3.11/site-packages/x.txt"])
    write = _gen(proj).values("denyWrite")
    sp = ".venv/lib/python3.12/site-packages"
    assert f"{sp}/sitecustomize.py" in write and f"{sp}/usercustomize.py" in write
    assert f"{sp}/a.pth" in write  # an existing .pth
    sp2 = "tools/env2/lib/python3.11/site-packages"
    assert f"{sp2}/sitecustomize.py" in write
    # denyWrite takes no glob (measured: a glob there has no effect)
    assert not any(c in p for p in write for c in "*?[")


def test_hooks_dir_and_run_later_files(tmp_path):
    proj = _project(tmp_path, [".envrc", ".pre-commit-config.yaml", ".githooks/pre-commit"])
    subprocess.run(["git", "config", "core.hooksPath", ".githooks"], cwd=proj, check=True)
    s = _gen(proj)
    write = s.values("denyWrite")
    assert ".githooks" in write and ".envrc" in write and ".pre-commit-config.yaml" in write
    assert ".git/info" in write
    # .husky is not there: nothing written for it (creating it is gated by core.hooksPath)
    assert ".husky" not in write
    why = {e.value: e.why for e in s.entries}
    assert "core.hooksPath" in why[".githooks"]


def test_hooks_path_in_dot_git_hooks_is_the_clients(tmp_path):
    proj = _project(tmp_path)
    subprocess.run(["git", "config", "core.hooksPath", ".git/hooks"], cwd=proj, check=True)
    assert spec.hooks_dir(str(proj)) is None
    subprocess.run(["git", "config", "core.hooksPath", "/opt/hooks"], cwd=proj, check=True)
    assert spec.hooks_dir(str(proj)) is None  # outside the project: read-only anyway


def test_the_gateways_own_files_are_write_protected(tmp_path, monkeypatch):
    proj = _project(tmp_path)
    monkeypatch.setenv("GATEWAY_CACHE_DIR", str(proj / ".gwcache"))
    write = _gen(proj).values("denyWrite")
    assert "/" + str(proj / ".gwcache") in write
    from gateway.policy.load import builtin_rules_dir
    assert any(w.endswith(os.path.realpath(builtin_rules_dir())) or
               w.endswith(builtin_rules_dir()) for w in write)


@pytest.mark.parametrize("files,want", [
    (["package.json"], ["~/.npm"]),
    (["Cargo.toml"], ["~/.cargo/registry", "~/.cargo/git", "~/.cargo/.package-cache"]),
    (["go.mod"], ["~/go/pkg/mod", "~/.cache/go-build"]),
    (["pyproject.toml", "uv.lock"], ["~/.cache/pip", "~/.cache/uv"]),
    (["README.md"], []),
])
def test_toolchain_caches_follow_the_projects_files(tmp_path, files, want):
    s = _gen(_project(tmp_path, files))
    assert s.values("allowWrite") == want
    assert _gen(_project(tmp_path / "b", files), toolchains=False).values("allowWrite") == []


def test_a_secret_added_in_the_rules_is_hidden_too(tmp_path):
    proj = _project(tmp_path, [".claude/gateway.yaml"])
    (proj / ".claude" / "gateway.yaml").write_text(
        "version: 1\nsecrets:\n  patterns: [deploy-token.txt]\n")
    assert "**/deploy-token.txt" in _gen(proj).values("denyRead")


def test_sandbox_yaml_refuses_globs_and_paths_outside(tmp_path):
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        extras.DenyWrite(path=".venv/**/x.pth", why="w")
    with pytest.raises(ValidationError):
        extras.DenyWrite(path="../up", why="w")
    with pytest.raises(ValidationError):
        extras.Toolchain(name="n", detect=["a"], allow_write=["/etc"], why="w")
    with pytest.raises(ValidationError):
        extras.Toolchain(name="n", detect=["a"], allow_write=["~/../x"], why="w")
    deny, tools = extras.load()  # the shipped file is valid
    assert deny and tools
