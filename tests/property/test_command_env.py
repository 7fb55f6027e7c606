"""Variables before a command that are the tool's own configuration (rules: command_env):
generated values. GOFLAGS is go's flags: `GOFLAGS=X go test ./...` is decided exactly as
`go test X ./...` is; RUSTFLAGS and RUSTDOCFLAGS are rustc's and rustdoc's flags: lints,
--cfg and a few -C codegen options run, one other option among them asks (GW761);
DJANGO_SETTINGS_MODULE runs only as a module file of the project as HEAD holds it; any of
them before a command whose check does not read it asks (GW211). The neighbours' effects were
proven in real bash (benchmarks/redteam/corpus.tsv, v25 rows)."""

import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gateway.decision import ALLOW, ASK
from tests.helpers import commit_paths
from tests.property.conftest import budget
from tests.property.support import tick

MODES = ["default", "acceptEdits"]


@pytest.fixture(scope="module")
def cproj(tmp_path_factory):
    project = os.path.realpath(str(tmp_path_factory.mktemp("cenv")))
    files = {
        "go.mod": "module example.com/x\n\ngo 1.19\n",
        "main.go": "package main\n\nfunc main() {}\n",
        "internal/a/a.go": "package a\n",
        "Cargo.toml": '[package]\nname = "x"\nversion = "0.1.0"\nedition = "2021"\n',
        "src/main.rs": "fn main() {}\n",
        "config/__init__.py": "",
        "config/settings/__init__.py": "",
        "config/settings/test.py": "DEBUG = False\n",
    }
    for rel, text in files.items():
        path = os.path.join(project, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as fh:
            fh.write(text)
    commit_paths(project, sorted(files))
    with open(os.path.join(project, "config", "settings", "local.py"), "w") as fh:
        fh.write("import os\n")
    return project


def _v(policy, project, command, mode="default"):
    from gateway.validator.pipeline import validate

    env = {"PATH": "/usr/bin:/bin", "HOME": os.path.join(project, "..", "nohome")}
    return validate(command, project, project, policy, mode=mode, env=env)


SAFE_GO = ["-count=1", "-v", "-race", "-short", "-trimpath", "-p=2", "-tags=integration",
           "-mod=readonly", "-timeout=30s", "-failfast"]
UNSAFE_GO = ["-toolexec=/tmp/x", "-exec=/tmp/x", "-modfile=/tmp/go.mod", "-mod=mod",
             "-overlay=/tmp/o.json", "-pkgdir=/tmp/p", "-coverprofile=/tmp/c.out", "-o=/tmp/b",
             "-ldflags=-extld=/tmp/ld", "-gcflags=-trimpath=/tmp", "-bogus"]


@budget(60)
@given(flags=st.lists(st.sampled_from(SAFE_GO + UNSAFE_GO), min_size=1, max_size=4),
       mode=st.sampled_from(MODES))
def test_goflags_is_judged_as_go_s_command_line(policy, cproj, flags, mode):
    tick("command_env:goflags")
    value = " ".join(flags)
    prefixed = _v(policy, cproj, f"GOFLAGS='{value}' go test ./internal/...", mode)
    inline = _v(policy, cproj, f"go test {value} ./internal/...", mode)
    assert prefixed.decision is inline.decision, (value, prefixed.message, inline.message)
    if all(f in SAFE_GO for f in flags):
        assert (prefixed.decision, prefixed.code) == (ALLOW, "GW700"), (value, prefixed.message)
    else:
        assert prefixed.decision is ASK, (value, prefixed.message)


SAFE_RUST = ["-D warnings", "-Dwarnings", "-W unused", "-A dead_code", "--cfg test_x",
             "-C opt-level=2", "-Cdebuginfo=0", "-C target-cpu=native", "--cap-lints warn",
             "-F unsafe_code", "-C codegen-units=1"]
UNSAFE_RUST = ["-C linker=/tmp/ld", "-Clink-arg=-fuse-ld=/tmp/ld", "-L /tmp", "-l evil",
               "--emit=asm=/tmp/x.s", "-Z unstable-options", "@/tmp/args",
               "-C incremental=/tmp/inc", "-o /tmp/x", "--extern x=/tmp/x.rlib",
               "-C prefer-dynamic", "-C link-args=/tmp/x.o", "--sysroot /tmp",
               "--html-in-header /etc/passwd"]


@budget(60)
@given(var=st.sampled_from(["RUSTFLAGS", "RUSTDOCFLAGS"]),
       safe=st.lists(st.sampled_from(SAFE_RUST), max_size=3),
       bad=st.one_of(st.none(), st.sampled_from(UNSAFE_RUST)), at=st.integers(0, 3),
       sub=st.sampled_from(["build --workspace", "doc --no-deps", "test", "check"]),
       mode=st.sampled_from(MODES))
def test_rustflags_run_only_with_modelled_options(policy, cproj, var, safe, bad, at, sub, mode):
    tick("command_env:rustflags")
    flags = list(safe)
    if bad is not None:
        flags.insert(min(at, len(flags)), bad)
    if not flags:
        return
    cmd = f'{var}="{" ".join(flags)}" cargo {sub}'
    v = _v(policy, cproj, cmd, mode)
    if bad is None:
        assert (v.decision, v.code) == (ALLOW, "GW700"), (cmd, v.message)
    else:
        assert (v.decision, v.code) == (ASK, "GW761"), (cmd, v.message)


OTHER_COMMANDS = ["make", "npm test", "ls", "cat main.go", "git status", "python3 -V",
                  "ruff check src", "mypy src", "echo hi", "wc -l main.go"]


@budget(60)
@given(var=st.sampled_from(["GOFLAGS", "RUSTFLAGS", "RUSTDOCFLAGS", "DJANGO_SETTINGS_MODULE"]),
       value=st.sampled_from(["-count=1", "-Dwarnings", "config.settings.test"]),
       command=st.sampled_from(OTHER_COMMANDS), mode=st.sampled_from(MODES))
def test_before_a_command_that_does_not_read_it_asks(policy, cproj, var, value, command, mode):
    tick("command_env:other-command")
    cmd = f"{var}={value} {command}"
    v = _v(policy, cproj, cmd, mode)
    assert v.decision is not ALLOW, (cmd, v.message)
    plain = _v(policy, cproj, command, mode)
    if plain.decision is ALLOW:
        assert v.code == "GW211", (cmd, v.code, v.message)


_IDENT = st.sampled_from(["config", "settings", "test", "local", "prod", "os", "antigravity",
                          "this", "pip", "__main__", "django", "conf", "x1"])


@budget(60)
@given(parts=st.lists(_IDENT, min_size=1, max_size=4), how=st.sampled_from(["env", "ds"]),
       mode=st.sampled_from(MODES))
def test_settings_module_runs_only_as_the_project_s_committed_file(policy, cproj, parts, how,
                                                                   mode):
    tick("command_env:django")
    module = ".".join(parts)
    cmd = (f"DJANGO_SETTINGS_MODULE={module} pytest -q" if how == "env"
           else f"pytest -q --ds={module}")
    v = _v(policy, cproj, cmd, mode)
    if module in ("config.settings.test", "config.settings", "config"):
        assert (v.decision, v.code) == (ALLOW, "GW700"), (cmd, v.message)
    else:
        want = "GW761" if how == "env" else "GW760"
        assert (v.decision, v.code) == (ASK, want), (cmd, v.message)
