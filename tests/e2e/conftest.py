"""End-to-end fixtures: the installed `gateway` console script, run as Claude Code runs it."""

import json
import os
import subprocess
import sys

import pytest


@pytest.fixture(scope="session")
def gateway_exe():
    exe = os.path.join(os.path.dirname(sys.executable), "gateway")
    assert os.path.exists(exe), (
        f"the gateway console script is not installed next to {sys.executable}; "
        "install the package (pip install '.[dev]') before running the tests")
    return exe


@pytest.fixture()
def hook_env(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "GATEWAY_USER_RULES": str(home / "none.yaml"),
        "GATEWAY_CACHE_DIR": str(tmp_path / "cache"),
        "GATEWAY_AUDIT_LOG": str(tmp_path / "audit.jsonl"),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "LANG": "C.UTF-8",
        "SHELL": "/bin/bash",  # the client runs bash (gateway.usershell)
    }
    return env


@pytest.fixture()
def run_hook(gateway_exe, hook_env):
    """run_hook(event, stdin_bytes_or_obj, env_extra=None) -> CompletedProcess"""

    def _run(event, data, env_extra=None, timeout=60):
        if not isinstance(data, bytes):
            data = json.dumps(data).encode("utf-8")
        env = dict(hook_env, **(env_extra or {}))
        return subprocess.run([gateway_exe, "hook", event], input=data, capture_output=True,
                              env=env, timeout=timeout)

    return _run
