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
def proj(tmp_path_factory):
    # (not below tmp_path: hook_env keeps the audit log there, and the directory of the
    # gateway's audit log is its own, protected, files)
    root = tmp_path_factory.mktemp("cfgproj") / "proj"
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


def test_the_validator_alone_protects_the_gateways_own_files(run_hook, hook_env, proj):
    """With the cache inside the project, a copy over the compiled policy is asked about by
    PermissionRequest too (GW504: the same list of the gateway's own files the PreToolUse
    guards deny writes of, GW832), not allowed as an in-project copy."""
    cache = proj / ".gwcache"
    env = {"GATEWAY_CACHE_DIR": str(cache)}
    data = {"session_id": SESSION, "transcript_path": "/tmp/t.jsonl", "cwd": str(proj),
            "permission_mode": "acceptEdits", "hook_event_name": "PermissionRequest",
            "tool_name": "Bash", "tool_input": {"command": "cp tests/test_a.py .gwcache/x.json"}}
    proc = run_hook("permission-request", json.dumps(data).encode(), env)
    assert proc.returncode == 0 and proc.stdout == b"", proc.stdout  # no allow: the dialog
    data["tool_input"]["command"] = "cp tests/test_a.py tests/test_b.py"  # the control
    proc = run_hook("permission-request", json.dumps(data).encode(), env)
    assert json.loads(proc.stdout)["hookSpecificOutput"]["decision"] == {"behavior": "allow"}
    # the dry run names the reason
    import subprocess
    import sys

    exe = os.path.join(os.path.dirname(sys.executable), "gateway")
    out = subprocess.run([exe, "check", "--json", "--permission-mode", "acceptEdits",
                          "cp tests/test_a.py .gwcache/x.json"], cwd=proj, capture_output=True,
                         env=dict(hook_env, **env), text=True)
    verdict = json.loads(out.stdout)
    assert (verdict["decision"], verdict["code"]) == ("ask", "GW504"), verdict
