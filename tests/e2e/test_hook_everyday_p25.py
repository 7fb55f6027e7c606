"""Issue 25 (p25): plan mode's read-only forms through the installed hook commands. Raw JSON
in the client's shape on stdin of `gateway hook pre-tool-use` and `gateway hook
permission-request`, in the independent benchmark's sample projects, with the exact decision
and code. Plan mode allows what the validator's own checks proved writes nothing (npx tsc
--noEmit without build info, unzip -l, a version query, `npm run` listing the scripts, the
names xargs adds as operands); each neighbour that writes keeps asking (GW720 or the
validator's own code)."""

import json
import os

import pytest

SESSION = "4e1f7a2c-8b3d-4c6e-9f0a-1b2c3d4e5f60"


@pytest.fixture(scope="module")
def projects(tmp_path_factory):
    from benchmarks.everyday.independent.projects import build

    root = str(tmp_path_factory.mktemp("p25-hooks"))
    out = {eco: build(root, eco)[0] for eco in ("python", "node", "java", "rust")}
    node = out["node"]
    # tsc --noEmit still writes its build info under these options (TypeScript 5.9:
    # tsconfig.incr.tsbuildinfo beside the configuration, trace.json in the directory)
    for name, opts in (("tsconfig.incr.json", {"incremental": True}),
                       ("tsconfig.comp.json", {"composite": True}),
                       ("tsconfig.info.json", {"tsBuildInfoFile": "x.tsbuildinfo",
                                               "incremental": True}),
                       ("tsconfig.trace.json", {"generateTrace": "trace"}),
                       ("tsconfig.ext.json", None)):
        data = {"compilerOptions": opts} if opts else {"extends": "./tsconfig.incr.json"}
        with open(os.path.join(node, name), "w", encoding="utf-8") as fh:
            json.dump(data, fh)
    import zipfile

    with zipfile.ZipFile(os.path.join(out["java"], "dist.zip"), "w") as zf:
        zf.writestr("notes/readme.txt", "hello\n")
    # work no commit holds, below a directory `cargo clean --target-dir` would remove
    with open(os.path.join(out["rust"], "crates", "core", "draft-notes.md"), "w") as fh:
        fh.write("not committed yet\n")
    return out


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


def _audit_code(hook_env):
    with open(hook_env["GATEWAY_AUDIT_LOG"], encoding="utf-8") as fh:
        return json.loads(fh.read().splitlines()[-1])["code"]


PLAN_ALLOWED = [
    ("python", 'find . -name "*.py" -not -path "./.venv/*" | xargs wc -l | sort -n | tail -15'),
    ("node", 'find src -name "*.tsx" | xargs wc -l | sort -n | tail -20'),
    ("rust", 'find crates -name "*.rs" | xargs wc -l | sort -n | tail -15'),
    ("node", "npx tsc --noEmit"),
    ("node", "npx tsc --noEmit 2>&1 | head -30"),
    ("node", "npx tsc --noEmit -p tsconfig.app.json"),
    ("node", 'npx tsc --noEmit 2>&1 | grep -c "error TS"'),
    ("node", "npx tsc -p tsconfig.app.json"),  # its configuration says noEmit
    ("node", "npm run"),
    ("java", "./mvnw -v"),
    ("java", "./gradlew --version"),
    ("java", "unzip -l target/order-service-0.0.1-SNAPSHOT.jar | head -30"),
    ("java", "unzip -lo -d out dist.zip"),  # -l lists: -o and -d are ignored
    ("python", "flake8 orders/ --count --statistics"),
]


@pytest.mark.parametrize("eco,command", PLAN_ALLOWED)
def test_plan_allows_the_read_only_form(run_hook, projects, eco, command):
    assert _call(run_hook, "PreToolUse", command, projects[eco], "plan") == ("allow", "GW700")
    assert _call(run_hook, "PermissionRequest", command, projects[eco], "plan") == (
        "allow", None)


PLAN_ASKED = [
    # (ecosystem, command, PreToolUse's answer, the validator's code in the audit log)
    ("node", "npx tsc --noEmit -p tsconfig.incr.json", (None, None), "GW720"),
    ("node", "npx tsc --noEmit -p tsconfig.comp.json", (None, None), "GW720"),
    ("node", "npx tsc --noEmit -p tsconfig.info.json", (None, None), "GW720"),
    ("node", "npx tsc --noEmit -p tsconfig.trace.json", (None, None), "GW720"),
    ("node", "npx tsc --noEmit -p tsconfig.ext.json", (None, None), "GW720"),
    ("node", "npx tsc --noEmit --incremental", (None, None), "GW720"),
    ("node", "npx tsc --noEmit --generateTrace trace", (None, None), "GW720"),
    ("node", "npx tsc --noEmit false -p tsconfig.incr.json", (None, None), "GW720"),
    ("node", "npx tsc", (None, None), "GW720"),
    ("node", "npm run build", (None, None), "GW720"),
    ("java", "unzip dist.zip", (None, None), "GW721"),
    ("java", "unzip -o dist.zip", (None, None), "GW721"),
    ("python", "flake8 orders/ --output-file=report.txt", (None, None), "GW720"),
    ("python", 'find . -name "*.py" -not -path "./.venv/*" | xargs touch', (None, None),
     "GW720"),
    ("node", 'find src -name "*.tsx" | xargs sort -o out.txt', ("ask", "GW840"), "GW704"),
]


@pytest.mark.parametrize("eco,command,pre,code", PLAN_ASKED)
def test_plan_asks_for_the_neighbours_that_write(run_hook, hook_env, projects, eco, command,
                                                 pre, code):
    assert _call(run_hook, "PreToolUse", command, projects[eco], "plan") == pre
    assert _call(run_hook, "PermissionRequest", command, projects[eco], "plan") == (None, None)
    assert _audit_code(hook_env) == code


@pytest.mark.parametrize("eco,command", [
    ("node", "npx tsc --noEmit"), ("java", "./mvnw -v"), ("node", "npm run"),
    ("python", 'find . -name "*.py" -not -path "./.venv/*" | xargs wc -l | sort -n | tail -15'),
])
def test_default_mode_unchanged(run_hook, projects, eco, command):
    # plan mode reuses the default mode's judgement: the same rows run there
    assert _call(run_hook, "PermissionRequest", command, projects[eco], "default") == (
        "allow", None)


JAVA_TOOLS = ["jar tf target/order-service-0.0.1-SNAPSHOT.jar | grep application",
              "jar --list --file target/order-service-0.0.1-SNAPSHOT.jar",
              "javap -cp target/classes com.acme.order.OrderService",
              "javap -c -p target/classes/com/acme/order/OrderService.class"]


@pytest.mark.parametrize("mode", ["default", "acceptEdits", "plan"])
@pytest.mark.parametrize("command", JAVA_TOOLS)
def test_jar_listing_and_javap_run_in_every_mode(run_hook, projects, command, mode):
    assert _call(run_hook, "PreToolUse", command, projects["java"], mode) == ("allow", "GW700")
    assert _call(run_hook, "PermissionRequest", command, projects["java"], mode) == (
        "allow", None)


JAVA_ASKED = [
    # proven with OpenJDK 17.0.15 in a temp project: -J-javaagent ran the agent's premain
    # (it wrote a file) for both tools; javap read a class from a class path entry outside
    # the project and through a jar: URL; jar x/c/u write
    ("javap -J-javaagent:/tmp/agent.jar -cp target/classes com.acme.order.OrderService",
     ("ask", "GW840"), "GW704"),
    ("jar -J-javaagent:/tmp/agent.jar tf target/order-service-0.0.1-SNAPSHOT.jar",
     ("ask", "GW840"), "GW704"),
    # (outside the project: PreToolUse leaves it to the client's flow, which asks)
    ("javap -cp target/classes:/tmp/outside com.acme.order.OrderService", (None, None),
     "GW501"),
    ("javap 'jar:file:/tmp/x.jar!/com/acme/A.class'", ("ask", "GW840"), "GW704"),
    ("jar xf target/order-service-0.0.1-SNAPSHOT.jar", ("ask", "GW840"), "GW704"),
    ("jar cf x.jar src", ("ask", "GW840"), "GW704"),
    ("jar tf .env", ("ask", "GW503"), "GW503"),
]


@pytest.mark.parametrize("command,pre,code", JAVA_ASKED)
def test_java_tool_neighbours_ask(run_hook, hook_env, projects, command, pre, code):
    for mode in ("default", "acceptEdits"):
        assert _call(run_hook, "PreToolUse", command, projects["java"], mode) == pre, mode
        assert _call(run_hook, "PermissionRequest", command, projects["java"], mode) == (
            None, None)
        assert _audit_code(hook_env) == code


@pytest.mark.parametrize("command", ["cargo clean", "cargo clean -p core",
                                     "cargo clean --release"])
def test_cargo_clean_runs_in_default_mode(run_hook, projects, command):
    # docs/security.md's rule: the build's own output directory (target/, ignored by git)
    # is not the agent's edit, as `mvn clean` is not
    assert _call(run_hook, "PermissionRequest", command, projects["rust"], "default") == (
        "allow", None)
    assert _call(run_hook, "PermissionRequest", "mvn clean", projects["java"], "default") == (
        "allow", None)


@pytest.mark.parametrize("command,mode,code", [
    # the command line names what is removed: the agent's edit in default mode
    ("cargo clean --target-dir build-out", "default", "GW721"),
    # cargo 1.x in a temp crate: `cargo clean --target-dir keep` removed keep/ with a
    # committed file's uncommitted change in it; here an untracked file would be lost
    ("cargo clean --target-dir crates", "acceptEdits", "GW786"),
    ("cargo clean --target-dir crates", "default", "GW721"),
    ("cargo clean", "plan", "GW720"),
])
def test_cargo_clean_neighbours_ask(run_hook, hook_env, projects, command, mode, code):
    assert _call(run_hook, "PermissionRequest", command, projects["rust"], mode) == (None, None)
    assert _audit_code(hook_env) == code


FIND_SED = "find src -name \"*.tsx\" -exec sed -i 's#@/old-ui/#@/ui/#g' {} +"


def test_find_exec_sed_is_an_edit_in_accept_edits(run_hook, hook_env, projects):
    # judged as `sed -i SCRIPT src/...tsx` (the files find lists): an edit acceptEdits allows
    node = projects["node"]
    assert _call(run_hook, "PreToolUse", FIND_SED, node, "acceptEdits") == ("allow", "GW700")
    assert _call(run_hook, "PermissionRequest", FIND_SED, node, "acceptEdits") == (
        "allow", None)
    for mode in ("default", "plan"):
        assert _call(run_hook, "PermissionRequest", FIND_SED, node, mode) == (None, None)
        assert _audit_code(hook_env) == "GW704", mode


@pytest.mark.parametrize("command,code", [
    # real bash: rewrote .claude/settings.json's deny into an allow
    ("find . -name 'settings*.json' -exec sed -i 's/deny/allow/' {} +", "GW504"),
    ("find src -name '*.tsx' -exec rm {} +", "GW704"),
    ("find src -name '*.tsx' -exec cp -t /tmp {} +", "GW504"),
    ("find src -name '*.tsx' -exec sh -c 'sed -i s/a/b/ \"$1\"' sh {} ';'", "GW401"),
])
def test_find_exec_neighbours_ask_in_accept_edits(run_hook, hook_env, projects, command,
                                                  code):
    node = projects["node"]
    os.makedirs(os.path.join(node, ".claude"), exist_ok=True)
    with open(os.path.join(node, ".claude", "settings.json"), "w") as fh:
        fh.write('{"permissions": {"deny": ["Bash(curl:*)"]}}\n')
    assert _call(run_hook, "PermissionRequest", command, node, "acceptEdits") == (None, None)
    assert _audit_code(hook_env) == code
