"""Command-line values (issue 25, v25), generated:
- `time CMD` is decided exactly as CMD (bash's reserved word: the pipeline is what runs);
- `echo`/`printf` of public variables (printenv's public_names) run, one other name among
  them asks GW202, and a public name as the operand of a program that acts on it asks;
- `python -c CODE` runs only as imports and prints of public attributes: one other attribute,
  call or statement asks GW401.
Proven in real bash: tests/e2e/test_command_values.py's effects, and below."""

import os
import subprocess

from hypothesis import given
from hypothesis import strategies as st

from gateway.decision import ALLOW, ASK
from tests.property.conftest import budget
from tests.property.support import tick

MODES = ["default", "acceptEdits", "plan"]


def _v(policy, project, command, mode="default", env=None):
    from gateway.validator.pipeline import validate

    env = env or {"PATH": "/usr/bin:/bin", "HOME": "/nonexistent"}
    return validate(command, project, project, policy, mode=mode, env=env)


TIMED = ["ls", "ls -la src", "cat README.md", "cat .env", "git status", "git push",
         "rm -rf ~", "pytest -q", "bash -c id", "python3 scripts/foo.py", "grep -r TOKEN .",
         "ls | wc -l", "curl https://example.com", "echo hi > /tmp/x", "sed -i s/a/b/ a.txt"]


@budget(60)
@given(cmd=st.sampled_from(TIMED), posix=st.booleans(), mode=st.sampled_from(MODES))
def test_time_is_decided_as_the_pipeline(policy, pproject, cmd, posix, mode):
    tick("values:time")
    timed = ("time -p " if posix else "time ") + cmd
    a, b = _v(policy, pproject, timed, mode), _v(policy, pproject, cmd, mode)
    assert (a.decision, a.code) == (b.decision, b.code), (timed, a.message, b.message)


PUBLIC = ["PATH", "HOME", "CARGO_TARGET_DIR", "GOPATH", "JAVA_HOME", "VIRTUAL_ENV", "LANG",
          "LC_ALL", "NODE_ENV", "CARGO_HOME"]
PRIVATE = ["GITHUB_TOKEN", "CARGO_REGISTRY_TOKEN", "GOOGLE_API_KEY", "DATABASE_URL",
           "AWS_SECRET_ACCESS_KEY", "VITE_API_KEY", "GOPROXY", "SECRET_KEY", "path", "X"]
ENV = {"PATH": "/usr/bin:/bin", "HOME": "/home/u", "CARGO_TARGET_DIR": "/work/target",
       "GOPATH": "/home/u/go", "JAVA_HOME": "/usr/lib/jvm/j", "GITHUB_TOKEN": "ghp_x",
       "CARGO_REGISTRY_TOKEN": "cio_x", "GOOGLE_API_KEY": "AIza_x", "DATABASE_URL": "pg://u:p@h"}


def _ref(name, style):
    return {"bare": f"${name}", "braced": f"${{{name}}}", "quoted": f'"${name}"',
            "suffix": f'"${name}/bin"'}[style]


@budget(80)
@given(names=st.lists(st.sampled_from(PUBLIC), min_size=1, max_size=3),
       bad=st.one_of(st.none(), st.sampled_from(PRIVATE)), at=st.integers(0, 3),
       style=st.sampled_from(["bare", "braced", "quoted", "suffix"]),
       prog=st.sampled_from(["echo", "echo -n", "printf '%s\\n'"]),
       mode=st.sampled_from(MODES))
def test_echo_prints_public_names_only(policy, pproject, names, bad, at, style, prog, mode):
    tick("values:echo")
    if bad is not None:
        names.insert(min(at, len(names)), bad)
    cmd = prog + " " + " ".join(_ref(n, style) for n in names)
    v = _v(policy, pproject, cmd, mode, ENV)
    if bad is not None:
        assert (v.decision, v.code) == (ASK, "GW202"), (cmd, v.message)
    elif mode == "plan" and prog.startswith("printf"):
        # plan's own rule: printf's effects model reads a computed word as a possible target
        assert (v.decision, v.code) == (ASK, "GW720"), (cmd, v.message)
    else:
        assert (v.decision, v.code) == (ALLOW, "GW700"), (cmd, v.message)


@budget(40)
@given(name=st.sampled_from(["CARGO_TARGET_DIR", "GOCACHE", "GOMODCACHE", "MAVEN_HOME",
                             "GRADLE_USER_HOME", "FLASK_APP", "RUSTUP_TOOLCHAIN"]),
       prog=st.sampled_from(["cat", "ls", "rm -rf", "bash", "source", "printf", "env",
                             "xargs echo", "sh -c"]),
       mode=st.sampled_from(MODES))
def test_a_public_name_a_program_acts_on_is_not_printed_data(policy, pproject, name, prog,
                                                             mode):
    # names printenv calls public that are not textparams' TEXT_PARAMETERS (those are
    # expanded and judged by their values as before)
    tick("values:acts")
    cmd = f"{prog} ${name}"
    v = _v(policy, pproject, cmd, mode, ENV)
    assert v.decision is not ALLOW, (cmd, v.message)


PUBLIC_ATTRS = ["__version__", "__file__", "version", "executable", "prefix", "platform",
                "path", "version_info"]
PRIVATE_ATTRS = ["environ", "SECRET_KEY", "settings", "system", "popen", "modules",
                 "getenv", "__dict__", "__class__", "__globals__", "run", "read_text"]
MODULES = ["sys", "os", "django", "platform"]


@budget(80)
@given(mod=st.sampled_from(MODULES),
       attrs=st.lists(st.sampled_from(PUBLIC_ATTRS), min_size=1, max_size=2),
       bad=st.one_of(st.none(), st.sampled_from(PRIVATE_ATTRS)), at=st.integers(0, 2),
       call=st.booleans(), mode=st.sampled_from(["default", "acceptEdits"]))
def test_python_c_prints_public_attributes_only(policy, pproject, mod, attrs, bad, at, call,
                                                mode):
    tick("values:python-c")
    if bad is not None:
        attrs.insert(min(at, len(attrs)), bad)
    expr = mod + "." + ".".join(attrs)
    if call:
        expr = f"os.path.dirname({expr})"
    code = f"import os, {mod}; print({expr})" if mod != "os" else f"import os; print({expr})"
    cmd = f'python3 -c "{code}"'
    v = _v(policy, pproject, cmd, mode)
    if bad is None:
        assert (v.decision, v.code) == (ALLOW, "GW700"), (cmd, v.message)
    else:
        assert (v.decision, v.code) == (ASK, "GW401"), (cmd, v.message)


STATEMENTS = ["x = 1", "import os; os.system('id')", "exec('1')", "eval('1')",
              "open('f', 'w').write('x')", "for i in []: pass", "import os; os.remove('f')",
              "__import__('os')", "import antigravity", "del x", "print(*[1])",
              "import os; print(os.environ['HOME'])", "lambda: 1", "assert True",
              "import sys; sys.exit(3)", "with open('f') as f: pass"]


@budget(40)
@given(stmt=st.sampled_from(STATEMENTS), before=st.booleans(), mode=st.sampled_from(MODES))
def test_python_c_other_statements_ask(policy, pproject, stmt, before, mode):
    tick("values:python-c-stmt")
    code = f"{stmt}; print(1)" if before else f"import sys; print(sys.version); {stmt}"
    cmd = f'python3 -c "{code}"'
    v = _v(policy, pproject, cmd, mode)
    assert v.decision is ASK, (cmd, v.message)
    if mode != "plan":
        assert v.code == "GW401", (cmd, v.code, v.message)


def test_time_runs_the_pipeline_and_prints_only_timing(tmp_path):
    # the effect the model relies on, in real bash: the keyword, no program named time
    out = subprocess.run(["bash", "-c", "type -t time; TIMEFORMAT='%R $(touch "
                          f"{tmp_path}/x)'; time echo ran"], capture_output=True, text=True,
                         env={"PATH": os.environ["PATH"]})
    assert out.stdout.splitlines() == ["keyword", "ran"]
    assert not (tmp_path / "x").exists()


def test_text_parameters_take_the_commands_environment_not_the_hooks(policy, pproject,
                                                                      monkeypatch):
    """`ls "$VIRTUAL_ENV/lib"` is judged with the value the command will see: the context's
    environment (what `gateway serve` or `check --batch` is given), not the process's own
    os.environ (it used to be: a server started elsewhere judged its own values)."""
    os.makedirs(os.path.join(pproject, ".venv", "lib"), exist_ok=True)
    inside = {"PATH": "/usr/bin:/bin", "HOME": "/nonexistent",
              "VIRTUAL_ENV": os.path.join(pproject, ".venv")}
    outside = dict(inside, VIRTUAL_ENV="/etc")
    cmd = 'ls "$VIRTUAL_ENV/lib"'
    monkeypatch.setenv("VIRTUAL_ENV", "/etc")
    v = _v(policy, pproject, cmd, env=inside)
    assert (v.decision, v.code) == (ALLOW, "GW700"), v.message
    monkeypatch.setenv("VIRTUAL_ENV", os.path.join(pproject, ".venv"))
    v = _v(policy, pproject, cmd, env=outside)
    assert (v.decision, v.code) == (ASK, "GW501"), v.message
