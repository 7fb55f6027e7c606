"""gateway.tools.goenv against the real `go env` (issue 25): the value the gateway computes for
GOMODCACHE, GOCACHE and GOPATH equals what go prints, for the environment variables, the go
env file (GOENV, XDG_CONFIG_HOME, off) and the defaults; what it cannot know is None."""

import os
import shutil
import subprocess

import pytest

from gateway.tools import goenv

GO = shutil.which("go")


def _env(tmp_path, **extra):
    home = tmp_path / "home"
    (home / ".config" / "go").mkdir(parents=True, exist_ok=True)
    return {"HOME": str(home), "PATH": os.environ.get("PATH", ""), **extra}


CASES = [
    ({}, ""),
    ({}, "GOMODCACHE=/from/file\nGOCACHE=/file/cache\n# comment\nGOMODCACHE=/from/file2\n"),
    ({"GOPATH": "/x/gp:/y"}, ""),
    ({"GOMODCACHE": "/m/c"}, "GOMODCACHE=/from/file\n"),
    ({"XDG_CACHE_HOME": "/xc"}, ""),
    ({"GOENV": "off"}, "GOMODCACHE=/from/file\n"),
    ({}, "GOPATH=/file/gopath\n"),
    ({"GOPATH": "/a//b/../c"}, ""),
]


@pytest.mark.skipif(GO is None, reason="go is not installed")
@pytest.mark.parametrize("extra,file", CASES)
def test_matches_go_env(tmp_path, extra, file):
    env = _env(tmp_path, **extra)
    (tmp_path / "home" / ".config" / "go" / "env").write_text(file)
    for name in goenv.NAMES:
        real = subprocess.run([GO, "env", name], env=dict(env, GOTOOLCHAIN="local"),
                              capture_output=True, text=True, timeout=30).stdout.strip()
        assert goenv.value(name, env) == real, (name, extra, file)


def test_unknowable_values_are_none(tmp_path):
    env = _env(tmp_path)
    assert goenv.value("GOROOT", env) is None  # which toolchain runs decides it
    assert goenv.value("GOFLAGS", env) is None
    assert goenv.value("GOMODCACHE", dict(env, GOMODCACHE="rel/dir")) is None
    assert goenv.value("GOMODCACHE", {"PATH": env["PATH"]}) is None  # no HOME
    (tmp_path / "home" / ".config" / "go" / "env").mkdir()  # not a regular file
    assert goenv.value("GOCACHE", env) is None
