"""`gateway bench` measures the paths it names: each hook process it times answers as a user
would expect in its sample project (an allow for every Bash call, the Write left to the
client), so a ratio never comes from an error path or a policy that failed to load."""

import json
import os
import subprocess

import pytest

from gateway.cli import bench


def test_every_measured_hook_call_answers_as_expected(tmp_path):
    project = bench.make_project(str(tmp_path / "proj"))
    env = bench.bench_env(str(tmp_path), project)
    cases = bench.hook_cases(project, env)
    labels = [c[0] for c in cases]
    assert "lean launcher pre-tool-use (Bash commit message)" in labels
    assert "lean launcher pre-tool-use (Bash pytest)" in labels
    assert {"lean launcher post-tool-use (Bash)", "lean launcher session-start"} <= set(labels)
    for label, argv, data, e in cases:
        out = subprocess.run(argv, input=data, env=e, capture_output=True, timeout=120)
        assert out.returncode == 0, (label, out.stderr.decode())
        if "(Write)" in label:
            assert out.stdout == b"", label  # no decision: the client's acceptEdits rules
            continue
        if "post-tool-use" in label or "session-start" in label:
            # the state-writing hooks: nothing to record or say in a project with no team
            assert (out.stdout, out.stderr) == (b"", b""), label
            continue
        answer = json.loads(out.stdout)["hookSpecificOutput"]
        if "permission-request" in label:
            assert answer["decision"] == {"behavior": "allow"}, label
        else:
            assert answer["permissionDecision"] == "allow", label
            assert answer["permissionDecisionReason"].startswith("gateway GW700:"), label
    # the pytest case reads a real configuration (the parsed-TOML cache is then written)
    assert os.listdir(os.path.join(env["GATEWAY_CACHE_DIR"], "parsed"))


@pytest.mark.slow
def test_every_event_measured_over_http_answers_as_the_spawned_hook(tmp_path):
    """`gateway bench --only http` times a POST to `gateway serve` against the same event
    spawned: both must give the same answer (an allow for the Bash calls), so the ratio is
    of the same work."""
    import http.client

    from gateway import server as srv

    project = bench.make_project(str(tmp_path / "proj"))
    env = dict(bench.bench_env(str(tmp_path), project), GATEWAY_RESIDENT="off")
    cases = bench.http_cases(project)
    assert [c[0] for c in cases] == ["pre-tool-use", "pre-tool-use", "permission-request",
                                     "post-tool-use", "session-start", "user-prompt-submit"]
    proc = bench.start_server(env)
    try:
        token = srv.read_token(env)
        for name, label, body in cases:
            spawned = subprocess.run(bench.lean_argv(name), input=body, env=env,
                                     capture_output=True, timeout=120)
            assert spawned.returncode == 0, (label, spawned.stderr.decode())
            conn = http.client.HTTPConnection("127.0.0.1", proc.port, timeout=30)
            conn.request("POST", srv.HOOK_PATH + name, body=body,
                         headers={"Authorization": "Bearer " + token,
                                  srv.PROJECT_HEADER: project})
            resp = conn.getresponse()
            served = resp.read().decode()
            conn.close()
            assert resp.status == 200, label
            assert (served or "{}") == (spawned.stdout.decode().strip() or "{}"), label
            if "Bash" in label and "post" not in label:
                assert "allow" in served, label
    finally:
        bench.stop_server(proc)
