"""Command-line values and the environment (issue 25): variables before a command that are
the tool's own configuration (rules: command_env), judged through the real hook commands:
raw JSON payloads on stdin of `gateway hook pre-tool-use` and `gateway hook
permission-request` (the installed console script) in every mode, with the exact decision,
and the validator's exact code through `gateway check --json`. Each dangerous neighbour was
proven in real bash first (benchmarks/redteam/corpus.tsv says what it did)."""

import json
import os
import subprocess

import pytest

from tests.helpers import commit_paths

SESSION = "7b3e1f2a-4c5d-4e6f-8a9b-0c1d2e3f4a5b"
MODES = ["default", "acceptEdits", "plan"]


@pytest.fixture(scope="module")
def proj(tmp_path_factory):
    root = os.path.realpath(str(tmp_path_factory.mktemp("cv")))
    project = os.path.join(root, "proj")
    files = {
        "go.mod": "module example.com/x\n\ngo 1.19\n",
        "main.go": "package main\n\nfunc main() {}\n",
        "internal/a/a.go": "package a\n",
        "Cargo.toml": '[package]\nname = "x"\nversion = "0.1.0"\nedition = "2021"\n',
        "src/main.rs": "fn main() {}\n",
        "manage.py": "print('manage')\n",
        "config/__init__.py": "",
        "config/settings/__init__.py": "",
        "config/settings/test.py": "DEBUG = False\n",
        "README.md": "# x\n",
    }
    for rel, text in files.items():
        path = os.path.join(project, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as fh:
            fh.write(text)
    commit_paths(project, sorted(files))
    # a settings module the agent could have written: not code a human has seen
    with open(os.path.join(project, "config", "settings", "local.py"), "w") as fh:
        fh.write("import os; os.system('id')\n")
    os.makedirs(os.path.join(project, ".claude"), exist_ok=True)
    with open(os.path.join(project, ".claude", "settings.json"), "w") as fh:
        fh.write('{"permissions": {}}\n')
    os.makedirs(os.path.join(root, "home"), exist_ok=True)
    return project


@pytest.fixture(scope="module")
def env(proj, tmp_path_factory):
    home = os.path.join(os.path.dirname(proj), "home")
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home,
            "GATEWAY_USER_RULES": os.path.join(home, "none.yaml"),
            "GATEWAY_CACHE_DIR": str(tmp_path_factory.mktemp("cv-cache")),
            "GATEWAY_AUDIT_LOG": "off", "CLAUDE_CONFIG_DIR": os.path.join(home, ".claude"),
            "CLAUDE_PROJECT_DIR": proj, "LANG": "C.UTF-8", "SHELL": "/bin/bash"}


def hook(gateway_exe, env, project, event, command, mode):
    data = {"session_id": SESSION, "transcript_path": "/tmp/t.jsonl", "cwd": project,
            "permission_mode": mode, "hook_event_name": event, "tool_name": "Bash",
            "tool_input": {"command": command}}
    if event == "PreToolUse":
        data["tool_use_id"] = "toolu_1"
    name = "pre-tool-use" if event == "PreToolUse" else "permission-request"
    proc = subprocess.run([gateway_exe, "hook", name], input=json.dumps(data).encode(),
                          capture_output=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout.decode().strip()
    if not text:
        return None, ""
    out = json.loads(text)["hookSpecificOutput"]
    if event == "PreToolUse":
        reason = out.get("permissionDecisionReason", "")
        return out["permissionDecision"], reason.split(":", 1)[0].replace("gateway ", "")
    return out["decision"]["behavior"], ""


def check(gateway_exe, env, project, command, mode):
    proc = subprocess.run([gateway_exe, "check", "--json", "--project", project, "--cwd",
                           project, "--permission-mode", mode, command],
                          capture_output=True, env=env, timeout=60)
    out = json.loads(proc.stdout)
    return out["decision"], out["code"]


#: run in default and acceptEdits: both hooks allow (GW700); plan keeps its own rule (the
#: tools write caches and build outputs: GW720), the variable changes nothing there
RUNS = [
    "GOFLAGS=-count=1 go test ./internal/...",
    'RUSTFLAGS="-D warnings" cargo build --workspace',
    'RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps',
    "DJANGO_SETTINGS_MODULE=config.settings.test pytest -q",
    "pytest --ds=config.settings.test -q",
    "DJANGO_SETTINGS_MODULE=config.settings.test python manage.py test",
]


@pytest.mark.parametrize("mode", ["default", "acceptEdits"])
@pytest.mark.parametrize("command", RUNS)
def test_a_tool_s_own_configuration_before_it_runs(gateway_exe, env, proj, command, mode):
    assert hook(gateway_exe, env, proj, "PreToolUse", command, mode) == ("allow", "GW700")
    assert hook(gateway_exe, env, proj, "PermissionRequest", command, mode) == ("allow", "")
    assert check(gateway_exe, env, proj, command, mode) == ("allow", "GW700")


@pytest.mark.parametrize("command", RUNS)
def test_plan_mode_keeps_its_rule(gateway_exe, env, proj, command):
    assert hook(gateway_exe, env, proj, "PreToolUse", command, "plan") == (None, "")
    assert hook(gateway_exe, env, proj, "PermissionRequest", command, "plan") == (None, "")
    assert check(gateway_exe, env, proj, command, "plan") == ("ask", "GW720")


#: dangerous neighbours -> the validator's code (every mode); PreToolUse asks (GW840) or gives
#: no decision, PermissionRequest never allows
NEIGHBOURS = {
    "GOFLAGS=-toolexec=/tmp/x go test ./...": "GW761",
    "GOFLAGS=-exec=/tmp/x go test ./...": "GW761",
    "GOFLAGS=-modfile=/tmp/go.mod go build ./...": "GW761",
    "GOFLAGS=-o=/tmp/out go build .": "GW501",
    "GOFLAGS=-count=1 make": "GW211",
    "GOFLAGS=-count=1 bash -c 'go test ./...'": "GW401",
    'RUSTFLAGS="-C linker=/tmp/ld" cargo build': "GW761",
    'RUSTFLAGS="-C link-arg=-fuse-ld=/tmp/ld" cargo build': "GW761",
    'RUSTFLAGS="-L /tmp" cargo build': "GW761",
    'RUSTFLAGS="--emit=asm=/tmp/x.s" cargo build': "GW761",
    'RUSTFLAGS="-Z unstable-options" cargo build': "GW761",
    "RUSTFLAGS=@/tmp/args cargo build": "GW761",
    'RUSTFLAGS="-C incremental=/tmp/inc" cargo build': "GW761",
    'RUSTDOCFLAGS="-C linker=/tmp/ld" cargo test': "GW761",
    'RUSTDOCFLAGS="--html-in-header /etc/passwd" cargo doc': "GW761",
    "RUSTFLAGS=-Dwarnings npm test": "GW211",
    "DJANGO_SETTINGS_MODULE=config.settings.local pytest -q": "GW761",
    "DJANGO_SETTINGS_MODULE=antigravity pytest -q": "GW761",
    "DJANGO_SETTINGS_MODULE=pip.__main__ pytest -q": "GW761",
    "pytest --ds=config.settings.local": "GW760",
    "pytest --ds antigravity -q": "GW760",
    "DJANGO_SETTINGS_MODULE=config.settings.local python manage.py test": "GW761",
    "DJANGO_SETTINGS_MODULE=config.settings.test make test": "GW211",
    "LD_PRELOAD=/tmp/x.so go test ./...": "GW211",
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("command", sorted(NEIGHBOURS))
def test_dangerous_neighbours_ask(gateway_exe, env, proj, command, mode):
    decision, code = hook(gateway_exe, env, proj, "PreToolUse", command, mode)
    assert decision != "allow", (command, code)
    assert hook(gateway_exe, env, proj, "PermissionRequest", command, mode) == (None, "")
    want = NEIGHBOURS[command]
    assert check(gateway_exe, env, proj, command, mode) == ("ask", want)


#: `time PIPELINE` is the pipeline (bash's reserved word; TIMEFORMAT expands nothing), and
#: `echo`/`printf` print a public variable (printenv's public_names) as data: both hooks allow
#: in default and acceptEdits, GW700
PRINTS = [
    "time go build ./...",
    "time -p cargo build",
    "time ls | wc -l",
    "echo $CARGO_TARGET_DIR",
    'echo "$GOPATH/bin"',
    "printf '%s\\n' \"$JAVA_HOME\" \"$CARGO_HOME\"",
]


@pytest.mark.parametrize("mode", ["default", "acceptEdits"])
@pytest.mark.parametrize("command", PRINTS)
def test_timed_pipelines_and_printed_public_values_run(gateway_exe, env, proj, command, mode):
    env = dict(env, CARGO_TARGET_DIR=os.path.join(proj, "target"), GOPATH="/opt/go",
               JAVA_HOME="/usr/lib/jvm/java", CARGO_HOME="/opt/cargo")
    assert hook(gateway_exe, env, proj, "PreToolUse", command, mode) == ("allow", "GW700")
    assert hook(gateway_exe, env, proj, "PermissionRequest", command, mode) == ("allow", "")
    assert check(gateway_exe, env, proj, command, mode) == ("allow", "GW700")


#: neighbours: the timed pipeline is judged as ever, `time` elsewhere is not read; a value
#: that is not a public name, or one a program acts on, asks
PRINT_NEIGHBOURS = {
    "time rm -rf ~": ("deny", "GW750"),
    "time cat .env": ("ask", "GW503"),
    "time git push": ("ask", "GW707"),
    "time -f %e ls": ("ask", "GW302"),
    "ls && time ls": ("ask", "GW302"),
    "time bash -c id": ("ask", "GW401"),
    "echo $GITHUB_TOKEN": ("ask", "GW202"),
    "echo $CARGO_REGISTRY_TOKEN": ("ask", "GW202"),
    "echo $GOOGLE_API_KEY": ("ask", "GW202"),
    'echo "${DATABASE_URL}"': ("ask", "GW202"),
    "printf $CARGO_TARGET_DIR": ("ask", "GW202"),
    "cat $CARGO_TARGET_DIR": ("ask", "GW202"),
    "rm -rf $CARGO_TARGET_DIR": ("ask", "GW202"),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("command", sorted(PRINT_NEIGHBOURS))
def test_print_neighbours_do_not_run(gateway_exe, env, proj, command, mode):
    env = dict(env, CARGO_TARGET_DIR=os.path.join(proj, "target"), GITHUB_TOKEN="ghp_x",
               CARGO_REGISTRY_TOKEN="cio_x", GOOGLE_API_KEY="AIzaX", DATABASE_URL="pg://u:p@h")
    decision, code = hook(gateway_exe, env, proj, "PreToolUse", command, mode)
    assert decision != "allow", (command, code)
    want = PRINT_NEIGHBOURS[command]
    if want[0] == "deny":
        assert (decision, code) == want
    else:
        assert hook(gateway_exe, env, proj, "PermissionRequest", command, mode) == (None, "")
    assert check(gateway_exe, env, proj, command, mode) == want


@pytest.mark.parametrize("value", ["/tmp/*", "/home/?/x", "[ab]"])
def test_a_public_value_that_may_glob_asks(gateway_exe, env, proj, value):
    env = dict(env, CARGO_TARGET_DIR=value)
    assert check(gateway_exe, env, proj, "echo $CARGO_TARGET_DIR", "default") == ("ask", "GW202")
    assert hook(gateway_exe, env, proj, "PermissionRequest", "echo $CARGO_TARGET_DIR",
                "default") == (None, "")


#: python -c judged by Python's parser (gateway/validator/pycode.py); `!` in double quotes
#: is literal in the client's shell (tests/realclient/test_shell_history.py)
CODE_RUNS = [
    'python3 -c "import os; print(os.path.dirname(os.__file__))"',
    'python3 -c "import sys; print(sys.executable, sys.version)"',
    "python3 -c 'import sys; print(sys.version_info[:2])'",
    'rg -n "TODO|FIXME|todo!\\(\\)|unimplemented!\\(\\)" src/',
    'echo "done!"',
]


@pytest.mark.parametrize("mode", ["default", "acceptEdits", "plan"])
@pytest.mark.parametrize("command", CODE_RUNS)
def test_modelled_code_and_quoted_bangs_run(gateway_exe, env, proj, command, mode):
    if mode == "plan" and command.startswith("python3"):
        # plan keeps its rule for interpreters: importing writes __pycache__ (GW720)
        assert hook(gateway_exe, env, proj, "PreToolUse", command, mode) == (None, "")
        assert hook(gateway_exe, env, proj, "PermissionRequest", command, mode) == (None, "")
        assert check(gateway_exe, env, proj, command, mode) == ("ask", "GW720")
        return
    assert hook(gateway_exe, env, proj, "PreToolUse", command, mode) == ("allow", "GW700")
    assert hook(gateway_exe, env, proj, "PermissionRequest", command, mode) == ("allow", "")
    assert check(gateway_exe, env, proj, command, mode) == ("allow", "GW700")


CODE_NEIGHBOURS = {
    'python3 -c "import os; os.system(\'id\')"': "GW401",
    'python3 -c "import os; print(os.environ)"': "GW401",
    'python3 -c "from os import environ; print(environ)"': "GW401",
    'python3 -c "import os; print(os.getenv(\'HOME\'))"': "GW401",
    'python3 -c "print(open(\'.env\').read())"': "GW401",
    'python3 -c "print(eval(\'1\'))"': "GW401",
    'python3 -c "__import__(\'os\').system(\'id\')"': "GW401",
    'python3 -c "import subprocess; subprocess.run([\'id\'])"': "GW401",
    'python3 -c "import django; print(django.conf.settings.SECRET_KEY)"': "GW401",
    'python3 -c "print(getattr(__builtins__, \'open\'))"': "GW401",
    'python3 -c "import antigravity"': "GW401",
    'python3 -c "import pip.__main__"': "GW401",
    'python3 -c "print(1, file=open(\'x\', \'w\'))"': "GW401",
    'python3 -c "x = 1"': "GW401",
    'python3 -c "def f(:"': "GW401",
    "node -e 'console.log(process.version)'": "GW401",
    "echo !!": "GW210",
    "echo a!b": "GW210",
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("command", sorted(CODE_NEIGHBOURS))
def test_code_neighbours_ask(gateway_exe, env, proj, command, mode):
    decision, code = hook(gateway_exe, env, proj, "PreToolUse", command, mode)
    assert decision != "allow", (command, code)
    assert hook(gateway_exe, env, proj, "PermissionRequest", command, mode) == (None, "")
    assert check(gateway_exe, env, proj, command, mode) == ("ask", CODE_NEIGHBOURS[command])
