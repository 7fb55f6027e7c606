"""Issue 25's everyday classes (python and node lists) through the installed hook commands:
raw JSON in the client's shape on stdin of `gateway hook pre-tool-use` and `gateway hook
permission-request`, in the independent benchmark's sample projects (a Django project with
its manage.py committed; a Vite/TS app), with the exact decision and code in each mode."""

import json

import pytest

SESSION = "9c7d2f4e-1a3b-4c5d-8e6f-7a8b9c0d1e2f"


@pytest.fixture(scope="module")
def projects(tmp_path_factory):
    from benchmarks.everyday.independent.projects import build

    root = str(tmp_path_factory.mktemp("e25a-hooks"))
    return {eco: build(root, eco)[0] for eco in ("python", "node")}


def _call(run_hook, event, command, cwd, mode):
    data = {"session_id": SESSION, "transcript_path": "/tmp/t.jsonl", "cwd": cwd,
            "permission_mode": mode, "hook_event_name": event, "tool_name": "Bash",
            "tool_input": {"command": command}}
    if event == "PreToolUse":
        data["tool_use_id"] = "toolu_1"
    name = "pre-tool-use" if event == "PreToolUse" else "permission-request"
    proc = run_hook(name, json.dumps(data).encode())
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


ALLOWED = [
    # (ecosystem, command, mode): PreToolUse's early allow and PermissionRequest's allow
    ("python", "python manage.py test", "default"),
    ("python", "python manage.py test orders.tests.test_api --keepdb", "acceptEdits"),
    ("python", "python manage.py check", "default"),
    ("python", "python manage.py showmigrations", "default"),
    ("python", "python manage.py makemigrations --check --dry-run", "default"),
    ("python", "python manage.py sqlmigrate orders 0007", "default"),
    ("python", "python manage.py runserver 8000", "default"),
    ("python", "python manage.py makemigrations orders", "acceptEdits"),
    ("python", "python manage.py makemigrations orders", "default"),
    ("node", "npx tsc --noEmit -p tsconfig.app.json", "default"),
    ("node", "printenv PATH", "default"),
    ("python", "printenv PATH VIRTUAL_ENV", "plan"),
    ("python", "docker compose ps", "default"),
    ("python", "docker compose logs --tail=50 web", "plan"),
    ("node", "docker ps -a", "acceptEdits"),
    ("node", "npm pkg get scripts", "plan"),
    ("node", "npm config get registry", "plan"),
    ("node", "npx vite build --mode staging", "default"),
    ("node", "npx vite --port 5174", "acceptEdits"),
    ("node", "npx playwright test tests/e2e/login.spec.ts --project=chromium --reporter=line",
     "default"),
    ("python", "python -m py_compile billing/services.py", "default"),
    ("python", "pipdeptree -p django", "plan"),
    ("python", "flask --app app routes", "default"),
    ("python", "flask --app app run --debug --port 5001", "acceptEdits"),
    ("python", "alembic current", "default"),
    ("python", "alembic history | head -20", "acceptEdits"),
]


@pytest.mark.parametrize("eco,command,mode", ALLOWED)
def test_allowed_through_both_hooks(run_hook, projects, eco, command, mode):
    assert _call(run_hook, "PreToolUse", command, projects[eco], mode) == ("allow", "GW700")
    assert _call(run_hook, "PermissionRequest", command, projects[eco], mode) == ("allow", None)


ASKED = [
    # (ecosystem, command, mode, PreToolUse's answer, PermissionRequest's code): the
    # PermissionRequest hook prints nothing (the client asks); its code is in the audit log.
    # PreToolUse asks itself (GW840) where the validator would not allow and what the
    # command reads is not known; it stays silent where the client's own flow decides.
    ("python", "python manage.py migrate", "default", ("ask", "GW840"), "GW705"),
    ("python", "python manage.py diffsettings", "acceptEdits", ("ask", "GW840"), "GW705"),
    ("python", "python manage.py collectstatic --noinput", "acceptEdits", ("ask", "GW840"),
     "GW705"),
    ("python", "python manage.py check --pythonpath=/tmp", "acceptEdits", ("ask", "GW840"),
     "GW704"),
    ("python", "python manage.py test /tmp/t", "acceptEdits", (None, None), "GW501"),
    ("python", "python manage.py check", "plan", (None, None), "GW720"),
    ("node", "npx -p evil.example/pkg tsc", "default", ("ask", "GW840"), "GW764"),
    ("node", "printenv GITHUB_TOKEN", "default", ("ask", "GW840"), "GW704"),
    ("node", "printenv", "acceptEdits", ("ask", "GW840"), "GW704"),
    ("python", "printenv DATABASE_URL", "plan", ("ask", "GW840"), "GW704"),
    ("python", "docker compose up -d db", "default", ("ask", "GW840"), "GW705"),
    ("python", "docker ps --format '{{.Labels}}'", "plan", ("ask", "GW840"), "GW704"),
    ("python", "docker -H tcp://10.0.0.5:2375 ps", "acceptEdits", ("ask", "GW840"), "GW705"),
    ("python", "docker inspect web", "default", ("ask", "GW840"), "GW705"),
    ("node", "npm config get //registry.npmjs.org/:_authToken", "plan", ("ask", "GW840"),
     "GW704"),
    ("node", "npx playwright install", "default", ("ask", "GW840"), "GW705"),
    ("node", "npx vite build --outDir /tmp/x", "acceptEdits", (None, None), "GW501"),
    ("python", "pipdeptree --python /tmp/py", "default", ("ask", "GW840"), "GW704"),
    ("python", "flask --app os routes", "default", ("ask", "GW840"), "GW704"),
    ("python", "alembic upgrade head", "default", ("ask", "GW840"), "GW705"),
]


@pytest.mark.parametrize("eco,command,mode,pre,code", ASKED)
def test_asked(run_hook, hook_env, projects, eco, command, mode, pre, code):
    got_pre = _call(run_hook, "PreToolUse", command, projects[eco], mode)
    assert got_pre == pre
    # PermissionRequest prints nothing (the client shows its dialog); the audit log has the
    # validator's code
    assert _call(run_hook, "PermissionRequest", command, projects[eco], mode) == (None, None)
    with open(hook_env["GATEWAY_AUDIT_LOG"], encoding="utf-8") as fh:
        last = json.loads(fh.read().splitlines()[-1])
    assert last["code"] == code, last


@pytest.mark.parametrize("command,allowed", [
    ("gh pr view --comments", True), ("gh pr checks", True), ("gh pr diff 128 | head -200", True),
    ("gh run list --limit 5", True), ("gh run view 9876543210 --log-failed | tail -60", True),
    ("gh issue view 88", True), ("gh pr view --web", False), ("gh pr create --fill", False),
    ("gh pr merge 12", False), ("gh api -X POST repos/o/r/issues", False)])
def test_gh_queries_in_plan_mode(run_hook, projects, command, allowed):
    # plan mode: the read-only gh queries run (they write nothing); --web opens a browser
    pre = _call(run_hook, "PreToolUse", command, projects["python"], "plan")
    perm = _call(run_hook, "PermissionRequest", command, projects["python"], "plan")
    if allowed:
        assert (pre, perm) == (("allow", "GW700"), ("allow", None))
    else:
        assert pre[0] != "allow" and perm == (None, None), (pre, perm)
