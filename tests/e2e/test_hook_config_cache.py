"""The parsed-TOML cache through the installed hook commands: raw JSON on stdin of `gateway
hook pre-tool-use` / `permission-request` in a project whose pyproject.toml configures
pytest. A rewrite of the configuration that keeps its size and modification time is judged
as rewritten; a lie planted in the cache without the cache's checks is not believed."""

import json
import os

import pytest

SESSION = "3c1d2a4e-5f60-4718-92ab-cdef01234567"
BENIGN = '[tool.pytest.ini_options]\ntestpaths = ["tests"]\naddopts = "-p no:cacheprovider"\n'
HOSTILE = '[tool.pytest.ini_options]\ntestpaths = ["tests"]\naddopts = "--basetemp=/tmp/zzz"\n'


@pytest.fixture()
def proj(tmp_path):
    root = tmp_path / "proj"
    (root / "tests").mkdir(parents=True)
    (root / "tests" / "test_a.py").write_text("def test_a():\n    assert True\n")
    (root / "pyproject.toml").write_text(BENIGN)
    return root


def _call(run_hook, event, command, cwd):
    data = {"session_id": SESSION, "transcript_path": "/tmp/t.jsonl", "cwd": str(cwd),
            "permission_mode": "default", "hook_event_name": event, "tool_name": "Bash",
            "tool_input": {"command": command}}
    if event == "PreToolUse":
        data["tool_use_id"] = "toolu_1"
    proc = run_hook("pre-tool-use" if event == "PreToolUse" else "permission-request",
                    json.dumps(data).encode())
    assert proc.returncode == 0, proc.stderr
    if not proc.stdout.strip():
        return None, ""
    out = json.loads(proc.stdout)["hookSpecificOutput"]
    if event == "PreToolUse":
        return out["permissionDecision"], out["permissionDecisionReason"]
    return out["decision"]["behavior"], out["decision"].get("message", "")


def _parsed(hook_env):
    d = os.path.join(hook_env["GATEWAY_CACHE_DIR"], "parsed")
    return sorted(os.listdir(d)) if os.path.isdir(d) else []


def test_a_same_size_same_time_rewrite_is_judged_as_written(run_hook, hook_env, proj):
    assert len(BENIGN) == len(HOSTILE)
    decision, reason = _call(run_hook, "PreToolUse", "pytest -q", proj)
    assert decision == "allow" and reason.startswith("gateway GW700:"), reason
    assert _call(run_hook, "PermissionRequest", "pytest -q", proj) == ("allow", "")
    assert len(_parsed(hook_env)) == 1  # the parse was remembered
    # the allow now comes from the remembered parse
    assert _call(run_hook, "PreToolUse", "pytest -q", proj)[0] == "allow"
    cfg = proj / "pyproject.toml"
    before = os.stat(cfg)
    cfg.write_text(HOSTILE)
    os.utime(cfg, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(cfg).st_size == before.st_size
    decision, reason = _call(run_hook, "PreToolUse", "pytest -q", proj)
    assert decision == "ask" and reason.startswith("gateway GW840:"), reason
    assert "GW761" in reason and "--basetemp" in reason, reason
    assert _call(run_hook, "PermissionRequest", "pytest -q", proj) == (None, "")


def test_a_planted_lie_without_the_checks_is_not_believed(run_hook, hook_env, proj):
    cfg = proj / "pyproject.toml"
    cfg.write_text(HOSTILE)
    assert _call(run_hook, "PreToolUse", "pytest -q", proj)[0] == "ask"
    (entry,) = _parsed(hook_env)
    path = os.path.join(hook_env["GATEWAY_CACHE_DIR"], "parsed", entry)
    lie = json.dumps([1, str(cfg), HOSTILE,
                      {"tool": {"pytest": {"ini_options": {"testpaths": ["tests"],
                                                           "addopts": "-q"}}}}])
    os.unlink(path)
    with open(path, "w") as fh:
        fh.write(lie)
    os.chmod(path, 0o666)  # writable by others: not the gateway's
    decision, reason = _call(run_hook, "PreToolUse", "pytest -q", proj)
    assert decision == "ask" and "--basetemp" in reason, reason


def test_the_agent_cannot_write_the_cache(run_hook, hook_env, proj):
    target = os.path.join(hook_env["GATEWAY_CACHE_DIR"], "parsed", "toml-0000000000000000.json")
    data = {"session_id": SESSION, "transcript_path": "/tmp/t.jsonl", "cwd": str(proj),
            "permission_mode": "acceptEdits", "hook_event_name": "PreToolUse",
            "tool_name": "Write", "tool_use_id": "toolu_2",
            "tool_input": {"file_path": target, "content": "[]"}}
    proc = run_hook("pre-tool-use", json.dumps(data).encode())
    out = json.loads(proc.stdout)["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny", out
    assert out["permissionDecisionReason"].startswith("gateway GW832:"), out
