"""How the real client's Bash tool runs the shell: `!` inside double quotes is literal.

The gateway reads `rg -n "todo!\\(\\)" crates/` as plain text (no GW210) because the client
hands the command to bash (or zsh) as a string to evaluate, and history expansion applies
only to lines an interactive shell reads. Measured here with the user's own startup files
turning it on (`set -H`, `set -o history` in .bashrc, which the client's shell snapshot
carries: `$-` holds H), and with zsh's BANG_HIST.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .client import require_client, run_session
from .mock_api import bash

pytestmark = pytest.mark.realclient

PROBE = 'echo "FLAGS=$-"; echo "A!B"; echo "X!!Y"'


@pytest.mark.parametrize("shell,rc_name,rc_text", [
    ("/bin/bash", ".bashrc", "set -H\nset -o history\n"),
    ("/bin/zsh", ".zshrc", "setopt BANG_HIST\n"),
])
def test_bang_in_double_quotes_is_literal_in_the_client_s_shell(tmp_path: Path, shell: str,
                                                                rc_name: str, rc_text: str):
    claude = require_client()
    home = tmp_path / "home"
    home.mkdir()
    (home / rc_name).write_text(rc_text)
    if rc_name == ".bashrc":
        (home / ".bash_profile").write_text(rc_text)
    res = run_session(claude, tmp_path / "proj", tool_use=bash(PROBE), home=home,
                      user_settings={"permissions": {"allow": ["Bash"]}},
                      env_extra={"SHELL": shell}, timeout=180)
    assert res.tool_results, res.stderr
    lines = res.tool_results[0].text.splitlines()
    if shell == "/bin/bash":
        assert "H" in lines[0], lines  # history expansion is on in the snapshot's shell
    assert lines[1:3] == ["A!B", "X!!Y"], lines


def test_the_bash_tool_s_environment_is_not_the_hook_s(tmp_path: Path):
    """Why `env | grep PATTERN` keeps asking (docs/security.md): a variable the user's
    .bashrc exports reaches the Bash tool's environment through the client's shell snapshot,
    and the hooks never see it, so a search of the hook's own environment cannot vouch for
    what `env` prints in the Bash tool."""
    claude = require_client()
    home = tmp_path / "home"
    home.mkdir()
    for name in (".bashrc", ".bash_profile"):
        (home / name).write_text("export V25_RC_TOKEN=ghp_fromrc\n")
    hook_env = tmp_path / "hookenv.txt"
    settings = {"permissions": {"allow": ["Bash"]},
                "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
                    {"type": "command", "command": f"env > {hook_env}"}]}]}}
    res = run_session(claude, tmp_path / "proj", tool_use=bash("env | grep ^V25_"),
                      home=home, user_settings=settings, env_extra={"SHELL": "/bin/bash"},
                      timeout=180)
    assert res.tool_results, res.stderr
    assert "V25_RC_TOKEN=ghp_fromrc" in res.tool_results[0].text
    assert "V25_RC_TOKEN" not in hook_env.read_text()
