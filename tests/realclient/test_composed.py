"""Issue 28 with the real client (2.1.330): what it protects on its own, the shell it runs,
memory imports, and write-then-run with the gateway installed.

* the client's sensitive files: a Write of each candidate path in acceptEdits with no hooks;
  the client refuses ("... which is a sensitive file") exactly the paths the rules'
  client_sensitive names (read from its code), except `.claude/worktrees/`, which the client
  lets through and the gateway counts as sensitive (stricter, never looser);
* the user's shell: SHELL / CLAUDE_CODE_SHELL as the client chooses (zsh when SHELL is unset,
  /bin/sh or fish and zsh is installed), and the gateway's reading of the same environment
  (gateway.usershell.client_shell) names the same shell;
* with the gateway installed (project scope): writing a script then running it, in
  acceptEdits and auto mode, never runs the payload; a Write adding `@.env` to CLAUDE.md is
  refused (PreToolUse asks: a refusal in -p) and an import already there is reported by the
  SessionStart hook in the model's context, while the client did load it (the class is real);
  with zsh (SHELL unset), `echo x >! .claude/settings.local.json` is denied.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from .client import require_client, run_session
from .mock_api import bash, write

pytestmark = pytest.mark.realclient

CLAUDE = require_client()
GATEWAY = Path(sys.executable).parent / "gateway"
ZSH = shutil.which("zsh")

SENSITIVE = [".gitconfig", ".gitmodules", ".bashrc", ".bash_profile", ".zshrc", ".zprofile",
             ".profile", ".zshenv", ".envrc", ".ripgreprc", ".mcp.json", ".npmrc", ".yarnrc",
             ".yarnrc.yml", ".pnp.cjs", ".pnpmfile.cjs", "bunfig.toml", ".bazelrc",
             ".pre-commit-config.yaml", "lefthook.yml", ".lefthook.yaml",
             "gradle-wrapper.properties", "maven-wrapper.properties", ".devcontainer.json",
             "pyrightconfig.json", "sub/.npmrc", "SUB/.BASHRC", ".git/x",
             ".vscode/settings.json", ".idea/x.xml", ".claude/state/x.json",
             ".husky/pre-commit", ".cargo/config.toml", ".devcontainer/x.json", ".yarn/x",
             ".mvn/x", "src/.vscode/x", ".config/git/ignore"]
NOT_SENSITIVE = ["src/app.py", ".envrc.local", "Makefile", "pyproject.toml",
                 ".github/workflows/ci.yml", ".gitignore", ".gitattributes", "package.json",
                 "x.vscode", ".husky.md", "lefthook-local.yml", "CLAUDE.md",
                 ".pre-commit-hooks.yaml", "tox.ini"]
#: The client lets these through; the gateway counts them as sensitive (stricter).
STRICTER = [".claude/worktrees/x"]


def test_the_clients_sensitive_files_are_the_rules(tmp_path):
    from gateway.clientfiles import sensitive
    from gateway.runtime import get_policy

    proj = tmp_path / "proj"
    proj.mkdir()
    cands = SENSITIVE + NOT_SENSITIVE + STRICTER
    blocks = [write(str(proj / c), "x\n") for c in cands]
    res = run_session(CLAUDE, proj, tool_use=blocks, permission_mode="acceptEdits",
                      timeout=300)
    by_id = {b["id"]: c for b, c in zip(blocks, cands, strict=True)}
    refused = {by_id[t.tool_use_id] for t in res.tool_results
               if t.is_error and "which is a sensitive file" in t.text}
    assert len(res.tool_results) == len(cands), res.describe()
    assert refused == set(SENSITIVE), res.describe()
    policy = get_policy(str(proj))
    ours = {c for c in cands if sensitive(str(proj / c), policy)}
    assert ours == set(SENSITIVE) | set(STRICTER)


@pytest.mark.skipif(ZSH is None, reason="zsh is not installed")
@pytest.mark.parametrize("extra,expected", [
    ({}, "zsh"), ({"SHELL": "/bin/bash"}, "bash"), ({"SHELL": ZSH or ""}, "zsh"),
    ({"SHELL": "/bin/sh"}, "zsh"), ({"SHELL": ZSH or "", "CLAUDE_CODE_SHELL": "/bin/bash"},
                                    "bash"),
    ({"SHELL": "/bin/bash", "CLAUDE_CODE_SHELL": ZSH or ""}, "zsh"),
])
def test_the_shell_the_client_runs(tmp_path, extra, expected):
    from gateway.usershell import client_shell

    cmd = 'echo "zsh=${ZSH_VERSION:-none} bash=${BASH_VERSION:-none}"'
    res = run_session(CLAUDE, tmp_path / "proj", tool_use=bash(cmd),
                      permission_mode="acceptEdits", env_extra=extra,
                      user_settings={"permissions": {"allow": ["Bash"]}})
    text = res.tool_result.text
    ran = "zsh" if "zsh=none" not in text else "bash"
    assert ran == expected, res.describe()
    env = {"PATH": os.environ.get("PATH", ""), **{k: v for k, v in extra.items() if v}}
    assert expected in os.path.basename(client_shell(env))


class _Installed:
    def __init__(self, tmp: Path):
        from helpers import make_committed_project

        self.project = Path(make_committed_project(tempfile.mkdtemp(prefix="rc-composed-")
                                                   + "/proj"))
        self.home = tmp / "home"
        self.home.mkdir()
        (self.project / ".env").write_text("API_KEY=sk-MEMORYMARKER42\n")
        self.env = {"XDG_STATE_HOME": str(tmp / "state"), "XDG_CACHE_HOME": str(tmp / "cache"),
                    "XDG_CONFIG_HOME": str(tmp / "config"),
                    "GATEWAY_USER_RULES": str(tmp / "no-user-rules.yaml")}
        p = subprocess.run([str(GATEWAY), "install", "--scope", "project", "--project",
                            str(self.project)], cwd=self.project, capture_output=True,
                           text=True, timeout=120,
                           env={"HOME": str(self.home), "PATH": os.environ["PATH"], **self.env})
        assert p.returncode == 0, p.stdout + p.stderr

    def run(self, blocks, mode, extra=None, codes=(0, 1)):
        res = run_session(CLAUDE, self.project, home=self.home, tool_use=blocks,
                          permission_mode=mode, env_extra={**self.env, **(extra or {})},
                          extra_args=["--tools", "Bash,Read,Write,Edit"], timeout=180)
        assert not res.timed_out and res.returncode in codes, res.describe()
        return res


@pytest.fixture()
def installed(tmp_path):
    return _Installed(tmp_path)


@pytest.mark.parametrize("mode", ["acceptEdits", "auto"])
def test_write_then_run_does_not_run(installed, mode):
    pwned = installed.home / "pwned"
    for command in (f"echo 'touch {pwned}' > scripts/a.sh && bash scripts/a.sh",
                    f"printf 'all:\\n\\ttouch {pwned}\\n' > Makefile && make"):
        res = installed.run(bash(command), mode)
        assert not pwned.exists(), (command, res.describe())
        if mode == "acceptEdits":  # (auto: the mock has no classifier, which refuses too)
            # refused without a human: by the hook (GW840), or by the client's own approval
            # of the part that runs, which it checks first (measured: "... requires approval:
            # bash scripts/a.sh"); the effect is checked above either way
            text = res.tool_result.text
            assert res.tool_result.is_error and ("gateway GW840" in text
                                                 or "requires approval" in text), res.describe()


def test_memory_import_is_asked_and_reported(installed):
    claude_md = installed.project / "CLAUDE.md"
    res = installed.run(write(str(claude_md), "# notes\n@.env\n"), "acceptEdits")
    assert not claude_md.exists(), res.describe()
    assert "GW850" in res.tool_result.text
    res = installed.run(bash("printf '@.env\\n' >> CLAUDE.md"), "acceptEdits")
    assert not claude_md.exists(), res.describe()
    # already there (written by a person): the client loads it, the gateway says so
    claude_md.write_text("# notes\n@.env\n")
    res = installed.run(bash("true"), "acceptEdits")
    bodies = json.dumps([r.body for r in res.requests])
    assert "sk-MEMORYMARKER42" in bodies  # the class is real: the client loaded .env
    assert "must not use" in bodies and "gateway" in bodies  # SessionStart's context


@pytest.mark.skipif(ZSH is None, reason="zsh is not installed")
def test_zsh_clobber_is_denied(installed):
    target = installed.project / ".claude" / "settings.local.json"
    before = target.read_text() if target.exists() else None
    res = installed.run(bash("echo '{}' >! .claude/settings.local.json"), "acceptEdits")
    after = target.read_text() if target.exists() else None
    assert after == before, res.describe()
    assert "GW835" in res.tool_result.text
