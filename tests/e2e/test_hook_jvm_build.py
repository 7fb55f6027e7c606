"""Maven and Gradle, and their project wrappers (issue 25): raw JSON on the stdin of
`gateway hook pre-tool-use` and `gateway hook permission-request`, in a git project with a
pom.xml, a build.gradle.kts and the wrapper scripts committed.

The build's steps are an allowlist (install writes ~/.m2, deploy/publish leave the machine,
plugins that run programs or migrate a database ask); the build files and the wrappers run
as the project's own code only as the HEAD commit holds them (GW782), and an earlier part of
the line that changes them asks (GW781).
"""

import json
import os

import pytest

from tests.helpers import commit_paths

pytestmark = pytest.mark.slow  # two hook processes per case: the full tier

SESSION = "7c1e3f0a-2b9d-4c55-9e0f-1a2b3c4d5e6f"
FILES = {
    "pom.xml": "<project><artifactId>orders</artifactId></project>\n",
    "app/pom.xml": "<project><artifactId>app</artifactId></project>\n",
    "mvnw": "#!/bin/sh\nexec mvn \"$@\"\n",
    ".mvn/wrapper/maven-wrapper.properties": "distributionUrl=https://repo.maven.apache.org/x\n",
    "gradlew": "#!/bin/sh\nexec gradle \"$@\"\n",
    "gradle/wrapper/gradle-wrapper.properties": "distributionUrl=https://services.gradle.org/x\n",
    "build.gradle.kts": "plugins { java }\n",
    "settings.gradle.kts": "rootProject.name = \"orders\"\n",
}


@pytest.fixture()
def project(tmp_path):
    root = tmp_path / "proj"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    for rel in ("mvnw", "gradlew"):
        os.chmod(root / rel, 0o755)
    commit_paths(str(root), list(FILES))
    return str(root)


def _hooks(run_hook, command, cwd, mode="default"):
    log = {"GATEWAY_AUDIT_LOG": os.path.join(os.path.dirname(cwd), "log", "audit.jsonl")}
    out = []
    for event, name in (("PreToolUse", "pre-tool-use"),
                        ("PermissionRequest", "permission-request")):
        data = {"session_id": SESSION, "transcript_path": "/tmp/t.jsonl", "cwd": cwd,
                "permission_mode": mode, "hook_event_name": event, "tool_name": "Bash",
                "tool_input": {"command": command}}
        proc = run_hook(name, data, log)
        assert proc.returncode == 0, proc.stderr
        text = proc.stdout.decode().strip()
        if not text:
            out.append(None)
            continue
        hso = json.loads(text)["hookSpecificOutput"]
        out.append(hso["permissionDecision"] if event == "PreToolUse"
                   else hso["decision"]["behavior"])
    return out


@pytest.mark.parametrize("mode", ("default", "acceptEdits"))
@pytest.mark.parametrize("command", [
    "./mvnw -q compile",
    "./mvnw -pl app -am test",
    "./mvnw test -Dtest='OrderServiceTest#total' -q",
    "./mvnw -B verify 2>&1 | tail -50",
    "mvn -q -DskipTests compile",
    "./mvnw dependency:tree -Dincludes=com.fasterxml.jackson.core",
    "./gradlew test --tests 'com.acme.OrderServiceTest'",
    "./gradlew :app:test",
    "./gradlew build -x test",
    "./gradlew clean build",
])
def test_the_build_runs_with_no_dialog(run_hook, project, command, mode):
    assert _hooks(run_hook, command, project, mode) == ["allow", "allow"]


@pytest.mark.parametrize("command", [
    "./mvnw install -DskipTests",          # writes ~/.m2, which other projects read
    "./mvnw deploy",
    "./mvnw flyway:migrate",
    "./mvnw exec:exec -Dexec.executable=sh",
    "./mvnw -Dmaven.repo.local=/tmp/r test",
    "./mvnw -f /tmp/pom.xml test",
    "./mvnw -pl ../other test",
    "./mvnw -s /tmp/settings.xml test",
    "./mvnw org.example:evil:1.0:run",
    "./gradlew publish",
    "./gradlew build --scan",
    "./gradlew -I /tmp/init.gradle build",
    "./gradlew wrapper --gradle-version 8.10",
    "./gradlew -Dorg.gradle.jvmargs=-javaagent:/tmp/a.jar build",
    "echo x >> pom.xml && ./mvnw test",  # an earlier part changes the build (GW781)
    "cp /dev/null mvnw && ./mvnw test",
    "echo 'x' >> build.gradle.kts; ./gradlew build",
])
def test_what_leaves_the_project_or_runs_unseen_code_asks(run_hook, project, command):
    for mode in ("default", "acceptEdits"):
        pre, pr = _hooks(run_hook, command, project, mode)
        assert pre != "allow" and pr != "allow", (command, mode, pre, pr)


@pytest.mark.parametrize("changed,command", [
    ("pom.xml", "./mvnw test"),
    ("app/pom.xml", "mvn -pl app test"),
    ("mvnw", "./mvnw test"),
    (".mvn/wrapper/maven-wrapper.properties", "./mvnw test"),
    ("build.gradle.kts", "./gradlew build"),
    ("gradle/wrapper/gradle-wrapper.properties", "./gradlew build"),
])
def test_a_build_file_the_head_commit_does_not_hold_asks(run_hook, project, changed, command):
    with open(os.path.join(project, changed), "a") as fh:
        fh.write("\n# changed\n")
    pre, pr = _hooks(run_hook, command, project, "acceptEdits")
    assert pre == "ask" and pr != "allow", (pre, pr)
