"""The first call of a project compiles the policy once, whatever the number of processes
(issue 14, item 6): a cross-process lock per cache file, rules errors cached too, and the
built-in + user policy shared by every project without rules of its own.

Counted, not timed: the rule-examples check (`verify`) of each compile appends a line to a
file, and every process must give the same answer."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from gateway.policy import cache
from gateway.policy.errors import PolicyError
from tests.helpers import make_project

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Waits for the go file (so that every process misses the cache at the same moment), then
# loads the policy; the compile's verify step records itself and takes a while.
WORKER = r"""
import os, sys, time
from gateway.policy.cache import load_policy
from gateway.policy.errors import PolicyError
project, count, go, hold = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
def verify(merged):
    with open(count, "a") as fh:
        fh.write(f"{os.getpid()}\n")
    time.sleep(hold)   # a slow compile: the others reach the lock while it runs
print("ready", flush=True)
while not os.path.exists(go):
    time.sleep(0.005)
try:
    policy = load_policy(project, verify=verify)
    print("ok", "make" in policy.always_ask, len(policy.always_ask), policy.max_segments)
except PolicyError as exc:
    print("error", exc.errors)
"""


def _env(tmp_path):
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return dict(os.environ, PYTHONPATH=ROOT, HOME=str(home),
                GATEWAY_USER_RULES=str(home / "none.yaml"),
                GATEWAY_CACHE_DIR=str(tmp_path / "cache"))


def _workers(tmp_path, project, n, hold=1.0):
    count = tmp_path / "compiles"
    go = tmp_path / "go"
    env = _env(tmp_path)
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, project, str(count), str(go),
                               str(hold)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, env=env) for _ in range(n)]
    for p in procs:
        assert p.stdout.readline() == "ready\n"
    go.write_text("")
    outs = []
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
        outs.append(out)
    compiles = count.read_text().splitlines() if count.exists() else []
    return outs, compiles


def test_concurrent_first_calls_compile_once(tmp_path):
    proj = make_project(tmp_path / "proj")
    with open(os.path.join(proj, ".claude", "gateway.yaml"), "w") as fh:
        fh.write("always_ask: [make]\n")
    outs, compiles = _workers(tmp_path, proj, 12)
    assert len(compiles) == 1
    assert len(set(outs)) == 1 and outs[0].startswith("ok ")
    assert outs[0].startswith("ok True ")


def test_a_rules_error_is_compiled_once_and_reported_to_everyone(tmp_path):
    proj = make_project(tmp_path / "proj")
    with open(os.path.join(proj, ".claude", "gateway.yaml"), "w") as fh:
        fh.write("catalogue: {}\n")     # a project layer may not add commands
    outs, compiles = _workers(tmp_path, proj, 8, hold=0.0)
    # merge fails before verify runs: no compile reaches it, and everyone reports the error
    assert compiles == []
    assert len(set(outs)) == 1 and outs[0].startswith("error ")
    assert "a project layer can only tighten the policy" in outs[0]
    # the failure itself was cached: the next process reads it instead of compiling
    path = cache._cache_path(cache.source_digests(proj, _env(tmp_path)), _env(tmp_path))
    with open(path, "rb") as fh:
        assert b'"kind":"errors"' in fh.readline()


def _plain(policy):
    """The policy's data with every catalogue entry and git subcommand of the effects model
    decoded (the cache keeps them as bytes and JSON strings until a command is met)."""
    data = dict(policy.data)
    data["catalogue"] = {n: json.loads(e) if isinstance(e, bytes) else e
                         for n, e in data["catalogue"].items()}
    git = data["effects"]["git"]
    data["effects"] = dict(data["effects"], git=dict(git, subcommands={
        n: json.loads(e) if isinstance(e, str) else e for n, e in git["subcommands"].items()}))
    return data


def test_the_cached_policy_keeps_git_forms_until_a_command_meets_them(tmp_path):
    """The git subcommands of the effects model are JSON strings in the cached policy, and
    decode to what the rules compiled to."""
    env = _env(tmp_path)
    proj = make_project(tmp_path / "proj")
    cache._LOADED.clear()
    compiled = cache.load_policy(proj, env)
    cache._LOADED.clear()
    cached = cache.load_policy(proj, env)
    subs = cached.data["effects"]["git"]["subcommands"]
    assert subs and all(isinstance(v, str) for v in subs.values())
    assert _plain(cached) == _plain(compiled)
    forms = cached.effects.git_forms("branch").forms
    assert [f.effect for f in forms] == ["read", "read"]


def test_projects_without_rules_share_one_compiled_policy(tmp_path):
    env = _env(tmp_path)
    count = []

    def verify(merged):
        count.append(1)

    a = make_project(tmp_path / "a")
    b = make_project(tmp_path / "b")
    cache._LOADED.clear()
    pa = cache.load_policy(a, env, verify=verify)
    cache._LOADED.clear()
    pb = cache.load_policy(b, env, verify=verify)
    assert count == [1]                          # b used a's compile
    assert _plain(pa) == _plain(pb)
    files = sorted(n for n in os.listdir(tmp_path / "cache") if n.endswith(".json"))
    assert len(files) == 1
    # a project file appearing is a different key: compiled then, once, and not shared
    with open(os.path.join(b, ".claude", "gateway.local.yaml"), "w") as fh:
        fh.write("always_ask: [make]\n")
    cache._LOADED.clear()
    assert "make" in cache.load_policy(b, env, verify=verify).always_ask
    assert "make" not in cache.load_policy(a, env, verify=verify).always_ask
    assert count == [1, 1]
    assert len([n for n in os.listdir(tmp_path / "cache") if n.endswith(".json")]) == 2


def test_a_killed_compiler_leaves_no_stale_lock(tmp_path):
    proj = make_project(tmp_path / "proj")
    count = tmp_path / "compiles"
    go = tmp_path / "go"
    go.write_text("")
    p = subprocess.Popen([sys.executable, "-c", WORKER, proj, str(count), str(go), "600"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=_env(tmp_path))
    assert p.stdout.readline() == "ready\n"
    for _ in range(6000):       # until it is inside the compile, holding the lock
        # (a whole line: the file exists from the open, before the pid is written, and a
        # kill between the two left it empty, the worker's compile then counted alone)
        if count.exists() and count.read_text().endswith("\n"):
            break
        time.sleep(0.01)
    assert count.exists() and count.read_text().endswith("\n"), p.stderr.read()
    p.send_signal(signal.SIGKILL)
    p.wait()
    p.stdout.close()
    p.stderr.close()
    outs, compiles = _workers(tmp_path, proj, 3, hold=0.0)
    assert len(compiles) == 2 and len(set(outs)) == 1 and outs[0].startswith("ok ")


def test_a_cached_error_is_never_a_policy(tmp_path):
    env = _env(tmp_path)
    proj = make_project(tmp_path / "proj")
    sources = cache.source_digests(proj, env)
    path = cache._cache_path(sources, env)
    cache._write_cache(path, sources, ["x: broken"], "errors", True)
    cache._LOADED.clear()
    with pytest.raises(PolicyError) as info:
        cache.load_policy(proj, env, verify=lambda m: None)
    assert info.value.errors == ["x: broken"]
    # an entry written without the examples check is not used by a caller that checks them
    cache._write_cache(path, sources, {"not": "a policy", "catalogue": {}}, "policy", False)
    assert cache._read_cache(path, sources, True) is None


def test_an_entry_compiled_by_other_code_is_compiled_again(tmp_path, monkeypatch):
    """The same rules and version string, but the code that compiles them changed (a
    development install, an upgrade that kept the version): a cached rules *error* was
    served until the file was removed (two engineers lost time to it). The compiling
    modules' identity is part of the entry: a changed module is a miss."""
    env = _env(tmp_path)
    proj = make_project(tmp_path / "proj")
    sources = cache.source_digests(proj, env)
    path = cache._cache_path(sources, env)
    monkeypatch.setattr(cache, "_CODE_ID", "old-code")
    cache._write_cache(path, sources, ["x: broken by the old code"], "errors", True)
    cache._LOADED.clear()
    with pytest.raises(PolicyError):
        cache.load_policy(proj, env, verify=lambda m: None)  # the same code: the entry holds
    monkeypatch.setattr(cache, "_CODE_ID", None)  # what this process's modules are
    assert cache._code_identity() != "old-code"
    cache._LOADED.clear()
    policy = cache.load_policy(proj, env, verify=lambda m: None)
    assert policy.command("ls") is not None
    with open(path, "rb") as fh:
        assert b'"kind":"policy"' in fh.readline()


def test_the_code_identity_follows_the_compiling_modules(tmp_path, monkeypatch):
    import shutil

    here = os.path.dirname(cache.__file__)
    copy = tmp_path / "policy"
    copy.mkdir()
    for name in cache._CODE_FILES:
        shutil.copy2(os.path.join(here, name), copy / name)
    fake = str(copy / "cache.py")
    monkeypatch.setattr(cache, "__file__", fake)
    monkeypatch.setattr(cache, "_CODE_ID", None)
    first = cache._code_identity()
    monkeypatch.setattr(cache, "_CODE_ID", None)
    assert cache._code_identity() == first  # nothing changed: the same entry
    with open(copy / "models.py", "a") as fh:
        fh.write("\n# a changed check list\n")
    monkeypatch.setattr(cache, "_CODE_ID", None)
    assert cache._code_identity() != first


def test_a_cache_file_with_a_second_name_is_compiled_again(tmp_path):
    """A hard link to the compiled policy (say, inside the project) would let it be
    rewritten in place, keeping its owner and mode: a file with two names is not read."""
    env = _env(tmp_path)
    proj = make_project(tmp_path / "proj")
    count = []
    cache._LOADED.clear()
    cache.load_policy(proj, env, verify=lambda m: count.append(1))
    sources = cache.source_digests(proj, env)
    path = cache._cache_path(sources, env)
    assert cache._read_cache(path, sources, True) is not None  # the control: it is usable
    os.link(path, tmp_path / "second-name.json")
    assert cache._read_cache(path, sources, True) is None
    cache._LOADED.clear()
    cache.load_policy(proj, env, verify=lambda m: count.append(1))
    assert count == [1, 1]  # compiled again, and written anew (one name again)
    assert os.stat(path).st_nlink == 1
