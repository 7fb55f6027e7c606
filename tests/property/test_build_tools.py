"""Properties of the build, test and package tools (issue 13, classes 2, 6 and
"configuration is an effect"), over generated variants, in the everyday benchmark's sample
project (Go, Rust, JS and Python files, a uv.lock, node_modules/.bin).

* shared build options: every unsafe option of a tool's `shared` block, in every spelling
  the tool reads (go: -x=v, --x=v, -x v, go test's -test.x; cargo and npm: --x=v, --x v,
  -Zv), before or after the other arguments, in every subcommand of the catalogue, is never
  allowed (GW760; GW764 where the subcommand downloads anyway); in GOFLAGS it is GW761;
* side outputs: a cache, report or binary that a test runner, linter or build writes
  into a protected directory (run from it, or pointed at it by an option or a
  configuration key) is never allowed;
* configuration is an effect: a configuration file or variable that gives the tool an
  unsafe option or a write into the permission surface makes the plain command ask.
"""

import os
import shutil

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gateway.decision import ALLOW, ASK
from tests.property.conftest import budget
from tests.property.support import show, tick

PROTECTED_DIRS = [".git/hooks", ".claude/hooks", ".claude/agents"]


@pytest.fixture(scope="module")
def bproject(tmp_path_factory):
    from benchmarks.everyday.project import build

    root = tmp_path_factory.mktemp("buildprops")
    project = build(str(root))
    for d in PROTECTED_DIRS:
        os.makedirs(os.path.join(project, d), exist_ok=True)
    return project


def _judge(policy, project, command, cwd=None, env=None, mode=None, exposure=False):
    from gateway.validator.pipeline import validate

    where = os.path.join(project, cwd) if cwd else project
    return validate(command, where, project, policy, mode=mode, exposure=exposure,
                    env=env if env is not None else {"HOME": os.path.join(project, "..",
                                                                          "home")})


def _subcommands(policy, tool):
    spec = policy.command(tool)
    out = []
    for name in spec.subcommands:
        sub = spec.subcommands[name]
        if sub.subcommands is not None:
            out += [f"{name} {n}" for n in sub.subcommands]
        else:
            out.append(name)
    return sorted(out)


def _shared_unsafe(policy, tool):
    return sorted(policy.command(tool).shared.get("unsafe_flags", ()))


def _spellings(tool, flag, value, sub):
    if tool == "go":
        bare = flag.lstrip("-")
        forms = [[f"-{bare}={value}"], [f"--{bare}={value}"], [f"-{bare}", value]]
        if sub == "test":
            forms.append([f"-test.{bare}={value}"])
        return forms
    if flag.startswith("--"):
        return [[f"{flag}={value}"], [flag, value]]
    return [[f"{flag}{value}"], [flag, value]]


# --- class 2: build tools' shared options --------------------------------------------------

@budget(150)
@given(data=st.data())
def test_shared_unsafe_options_ask_in_every_subcommand(policy, bproject, data):
    tick("build tools: shared unsafe options")
    tool = data.draw(st.sampled_from(["go", "cargo", "npm", "pnpm"]))
    sub = data.draw(st.sampled_from(_subcommands(policy, tool)))
    flag = data.draw(st.sampled_from(_shared_unsafe(policy, tool)))
    value = data.draw(st.sampled_from(["/tmp/x", "sh", "build.rustc-wrapper=\"/tmp/w\"",
                                       "unstable-options", "scripts/release.sh"]))
    option = data.draw(st.sampled_from(_spellings(tool, flag, value, sub.split()[-1])))
    rest = data.draw(st.sampled_from([[], ["./..."], ["."], ["web"], ["src", "-v"]]))
    words = data.draw(st.sampled_from([option + rest, rest + option]))
    if tool in ("npm", "pnpm") and "--" in words:
        return
    import shlex

    command = " ".join([tool] + sub.split() + [shlex.quote(w) for w in words])
    for mode in (None, "acceptEdits"):
        v = _judge(policy, bproject, command, mode=mode)
        assert v.decision is not ALLOW, f"{command!r}: {show(v)}"
    v = _judge(policy, bproject, command)
    allowed_codes = {"GW760", "GW764", "GW704", "GW712", "GW705", "GW713", "GW501", "GW710"}
    assert v.decision is ASK and v.code in allowed_codes, f"{command!r}: {show(v)}"
    if v.code == "GW704":
        # another option of the same words asked first; the shared one alone is GW760
        alone = " ".join([tool] + sub.split() + [shlex.quote(w) for w in option])
        va = _judge(policy, bproject, alone)
        spec = policy.command(tool)
        for word in sub.split():
            spec = spec.subcommands[word]
        # a subcommand that is another program (own_options: go tool cover) does not take
        # the tool's shared options: its own allowlist asks for them
        expected = ("GW704",) if spec.own_options else ("GW760", "GW764", "GW712", "GW705")
        assert va.decision is ASK and va.code in expected, f"{alone!r}: {show(va)}"


@budget(60)
@given(sub=st.sampled_from(["build ./...", "test ./...", "vet ./...", "list ./...",
                            "run .", "build -o bin/x ."]),
       flag=st.sampled_from(["-toolexec=/tmp/x", "-exec=/tmp/x", "-overlay=/tmp/o.json",
                             "-modfile=/tmp/go.mod", "-pkgdir=/tmp/p", "-mod=mod",
                             "-ldflags=-extld=/tmp/x", "-gcflags=-D=/tmp", "-asmflags=-I/tmp",
                             "-buildmode=plugin", "--toolexec=/tmp/x"]),
       where=st.sampled_from(["env", "file"]))
def test_goflags_is_judged_like_the_command_line(policy, bproject, tmp_path_factory, sub,
                                                 flag, where):
    tick("build tools: GOFLAGS")
    command = f"go {sub}"
    clean = _judge(policy, bproject, command)
    assert clean.decision is ALLOW, f"{command!r}: {show(clean)}"
    if where == "env":
        env = {"GOFLAGS": f"-v {flag}"}
    else:
        cfg = tmp_path_factory.mktemp("goenv")
        os.makedirs(cfg / "go")
        (cfg / "go" / "env").write_text(f"GOFLAGS=-v {flag}\n")
        env = {"XDG_CONFIG_HOME": str(cfg)}
    v = _judge(policy, bproject, command, env=env)
    assert (v.decision, v.code) == (ASK, "GW761"), f"{command!r} with {env}: {show(v)}"


# --- class 6: side outputs -----------------------------------------------------------------

@st.composite
def side_output(draw):
    """(cwd or None, command) writing a cache, report or binary into protected dir d."""
    d = draw(st.sampled_from(PROTECTED_DIRS))
    up = "/".join([".."] * (d.count("/") + 1))
    kind = draw(st.sampled_from(["go-build", "go-test-c", "pytest-rootdir", "mypy-cwd",
                                 "eslint-cache", "coverprofile", "ruff-cache", "cargo-target",
                                 "vitest-out", "jest-out", "pytest-junit", "pytest-o",
                                 "tsc-out", "mypy-report", "go-o"]))
    name = draw(st.sampled_from(["pre-commit", "x", "settings.json", "r.xml"]))
    return d, {
        "go-build": (d, f"go build {up}/cmd/pre-commit"),
        "go-test-c": (d, f"go test -c {up}/pkg/store"),
        "pytest-rootdir": (None, f"pytest --rootdir={d} -q tests"),
        "mypy-cwd": (d, f"mypy {up}/src"),
        "eslint-cache": (d, f"eslint --cache {up}/web"),
        "coverprofile": (None, f"go test -coverprofile={d}/{name} ./pkg/store"),
        "ruff-cache": (None, f"ruff check --cache-dir {d}/c src"),
        "cargo-target": (None, f"cargo build --target-dir {d}"),
        "vitest-out": (None, f"vitest run --outputFile={d}/{name}"),
        "jest-out": (None, f"jest --outputFile {d}/{name}"),
        "pytest-junit": (None, f"pytest --junitxml={d}/{name}"),
        "pytest-o": (None, f"pytest -o cache_dir={d}/c"),
        "tsc-out": (None, f"tsc --outDir {d}"),
        "mypy-report": (None, f"mypy --html-report {d}/r src"),
        "go-o": (None, f"go build -o {d}/{name} ."),
    }[kind]


@budget(120)
@given(case=side_output(), mode=st.sampled_from([None, "acceptEdits", "bypassPermissions"]),
       wrap=st.sampled_from(["{}", "{} && echo done", "ls && {}"]))
def test_side_outputs_on_the_permission_surface_are_never_allowed(policy, bproject, case,
                                                                  mode, wrap):
    tick("build tools: side outputs")
    d, (cwd, command) = case
    text = wrap.format(f"cd {cwd} && {command}" if cwd else command)
    v = _judge(policy, bproject, text, mode=mode)
    assert v.decision is ASK and v.code in ("GW763", "GW504", "GW765", "GW720"), \
        f"{text!r} ({mode}): {show(v)}"
    # the same command writing into an ordinary directory is allowed
    plain = text.replace(d, "build/out") if not cwd else None
    if plain and "tsc --outDir" not in plain:
        os.makedirs(os.path.join(bproject, "build/out"), exist_ok=True)
        pv = _judge(policy, bproject, plain, mode=mode)
        assert pv.decision is ALLOW, f"{plain!r} ({mode}): {show(pv)}"


# --- configuration is an effect --------------------------------------------------------------

_CONFIGS = [
    # (file, text, command, codes)
    ("pytest.ini", "[pytest]\naddopts = --basetemp=src\n", "pytest", ("GW761",)),
    ("pytest.ini", "[pytest]\naddopts = -q --junitxml=.git/hooks/pre-commit\n", "pytest",
     ("GW504",)),
    ("pytest.ini", "[pytest]\ncache_dir = .claude/hooks\n", "pytest -q", ("GW504",)),
    ("pytest.ini", "[pytest]\nlog_file = .claude/settings.json\n", "pytest tests", ("GW504",)),
    ("tox.ini", "[pytest]\naddopts = --pastebin=all\n", "pytest", ("GW761",)),
    ("setup.cfg", "[tool:pytest]\naddopts = -p no:cacheprovider --debug\n", "pytest",
     ("GW761",)),
    ("pytest.ini", "[pytest]\npythonpath = /tmp\n", "pytest", ("GW501",)),
    ("ruff.toml", "cache-dir = \".git/hooks/c\"\n", "ruff check .", ("GW504",)),
    ("ruff.toml", "output-file = \".claude/settings.json\"\n", "ruff check src", ("GW504",)),
    ("ruff.toml", "extend = \"/tmp/base.toml\"\n", "ruff check src", ("GW762",)),
    ("ruff.toml", "fix = true\n", "ruff check .", ("GW765",)),
    ("mypy.ini", "[mypy]\ncache_dir = .git/hooks/m\n", "mypy src", ("GW504",)),
    ("mypy.ini", "[mypy]\npython_executable = /tmp/py\n", "mypy src", ("GW761",)),
    (".npmrc", "script-shell=/tmp/sh\n", "npm test", ("GW761",)),
    (".npmrc", "node-options=--require /tmp/x.js\n", "npm run build", ("GW761",)),
    (".cargo/config.toml", "[build]\nrustc-wrapper = \"/tmp/w\"\n", "cargo build",
     ("GW761",)),
    (".cargo/config.toml", "[target.x86_64-unknown-linux-gnu]\nrunner = \"sh\"\n",
     "cargo test", ("GW761",)),
    (".cargo/config.toml", "[build]\ntarget-dir = \".git/hooks\"\n", "cargo build",
     ("GW763",)),
    ("tsconfig.json", '{"compilerOptions": {"outDir": ".claude/hooks"}}', "tsc", ("GW504",)),
    ("tsconfig.json", '{"extends": "/tmp/base.json"}', "tsc", ("GW762",)),
    ("tsconfig.json", '// comment\n{"compilerOptions": {"declarationDir": "/tmp/d",}}',
     "tsc", ("GW501",)),
]


@budget(80)
@given(case=st.sampled_from(_CONFIGS), mode=st.sampled_from([None, "acceptEdits"]))
def test_configuration_is_judged_like_the_command_line(policy, tmp_path_factory, case, mode):
    """The plain command is allowed in the sample project; with the configuration file
    written at the project root (where the tool finds it) it asks."""
    tick("build tools: configuration")
    from benchmarks.everyday.project import build

    name, text, command, codes = case
    project = build(str(tmp_path_factory.mktemp("cfg")))
    for d in PROTECTED_DIRS:
        os.makedirs(os.path.join(project, d), exist_ok=True)
    with open(os.path.join(project, ".claude/hooks/h.py"), "w") as fh:
        fh.write("x = 1\n")
    if name == "ruff.toml" and "fix" in text:
        pass  # ruff check . then rewrites .claude/hooks/h.py
    else:
        os.remove(os.path.join(project, ".claude/hooks/h.py"))
    base = _judge(policy, project, command, mode=mode)
    assert base.decision is ALLOW, f"{command!r} without {name}: {show(base)}"
    if name in ("tox.ini", "setup.cfg"):
        # pyproject.toml's [tool.pytest.ini_options] comes first in pytest's search
        with open(os.path.join(project, "pyproject.toml"), "w") as fh:
            fh.write("[project]\nname = \"shop\"\n")
    path = os.path.join(project, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fh:
        fh.write(text)
    v = _judge(policy, project, command, mode=mode)
    assert v.decision is ASK and v.code in codes, f"{command!r} with {name}: {show(v)}"
    shutil.rmtree(project, ignore_errors=True)


def test_configuration_outside_the_project_asks(policy, tmp_path_factory):
    """pytest finds an ini file above the project (its rootdir search goes upwards); cargo
    reads .cargo/config.toml in every directory above."""
    from benchmarks.everyday.project import build

    top = tmp_path_factory.mktemp("above")
    project = build(str(top))
    os.remove(os.path.join(project, "pyproject.toml"))
    assert _judge(policy, project, "pytest").decision is ALLOW
    with open(os.path.join(str(top), "pytest.ini"), "w") as fh:
        fh.write("[pytest]\naddopts = -p evil\n")
    v = _judge(policy, project, "pytest")
    assert (v.decision, v.code) == (ASK, "GW762"), show(v)
    os.makedirs(os.path.join(str(top), ".cargo"))
    with open(os.path.join(str(top), ".cargo", "config.toml"), "w") as fh:
        fh.write("[build]\njobs = 2\n")
    v = _judge(policy, project, "cargo build")
    assert (v.decision, v.code) == (ASK, "GW762"), show(v)
