"""The hook's code cache (gateway/_codecache.py): a hook process serves the gateway's and
bashlex's modules from one file in the cache directory, only while each module's source is
the one the code came from; any other file, or any problem, and the standard import runs.
Tested through real hook processes started with the lean launch line."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from gateway import launch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

#: Runs a hook with the gateway package from argv[1], then reports what the finder served.
_PROBE = r"""
import io, json, sys
root, event, payload = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path[:0] = [root]
sys.stdin = io.TextIOWrapper(io.BytesIO(payload.encode()))
out = io.StringIO()
real_out, sys.stdout = sys.stdout, out
from gateway import _codecache
finder = _codecache.install()
from gateway.hooks.runner import run
run(event)
sys.stdout = real_out
_codecache.refresh(finder)
served = sorted(finder.served) if finder else None
files = {n: getattr(m, "__file__", None) for n, m in sys.modules.items()
         if n.startswith(("gateway", "bashlex"))}
print(json.dumps({"answer": out.getvalue(), "served": served, "files": files}))
"""


def _payload(project, command="git status", event="PermissionRequest"):
    return json.dumps({
        "session_id": "s1", "transcript_path": os.path.join(project, "t.jsonl"),
        "cwd": project, "permission_mode": "default", "hook_event_name": event,
        "tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "t1"})


def _env(cache):
    env = dict(os.environ)
    env["GATEWAY_CACHE_DIR"] = str(cache)
    env.pop("GATEWAY_CODE_CACHE", None)
    return env


def _probe(root, project, cache, event="permission-request", command="git status", env=None):
    name = "PermissionRequest" if event == "permission-request" else "PreToolUse"
    deps = [p for p in launch.search_path() if os.path.realpath(p) != os.path.realpath(ROOT)]
    code = f"import sys; sys.path.extend({deps!r});" + _PROBE
    out = subprocess.run([sys.executable, "-I", "-S", "-c", code, str(root), event,
                          _payload(str(project), command, name)],
                         capture_output=True, text=True, env=env or _env(cache), timeout=120,
                         cwd=str(project))
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def _cache_files(cache):
    return sorted(p for p in os.listdir(cache) if p.startswith("code-")) \
        if os.path.isdir(cache) else []


@pytest.fixture()
def proj(tmp_path):
    p = tmp_path / "proj"
    (p / ".git").mkdir(parents=True)
    (p / "src").mkdir()
    (p / "src" / "app.py").write_text("x = 1\n")
    return p


@pytest.fixture()
def tree(tmp_path):
    """A copy of the gateway package (and its rules) whose sources a test may edit."""
    root = tmp_path / "tree"
    root.mkdir()
    shutil.copytree(os.path.join(ROOT, "gateway"), root / "gateway",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(os.path.join(ROOT, "rules"), root / "rules")
    return root


def test_the_second_call_serves_the_modules_and_answers_the_same(tree, proj, tmp_path):
    cache = tmp_path / "cache"
    first = _probe(tree, proj, cache)
    assert first["served"] is None                      # no file yet: the standard import
    assert len(_cache_files(cache)) == 1                # ... and the file is written after
    second = _probe(tree, proj, cache)
    assert second["answer"] == first["answer"]
    assert json.loads(second["answer"])["hookSpecificOutput"]["decision"]["behavior"] == "allow"
    assert "gateway.validator.pipeline" in second["served"]
    assert not any(m.startswith("bashlex") for m in second["files"])  # plain words: no parser
    # a command that needs bashlex imports it the standard way once, and the file then
    # holds both calls' modules
    _probe(tree, proj, cache, command="git status ${X:-.}")
    third = _probe(tree, proj, cache, command="git status ${Y:-.}")
    assert "bashlex.parser" in third["served"] and "gateway.validator.pipeline" in third["served"]
    assert "gateway.validator.pipeline" in _probe(tree, proj, cache)["served"]
    # a served module is the source file it came from, as with the standard import
    assert second["files"]["gateway.validator.pipeline"] == \
        str(tree / "gateway" / "validator" / "pipeline.py")


def test_a_file_that_is_current_is_not_written_again(tree, proj, tmp_path):
    cache = tmp_path / "cache"
    _probe(tree, proj, cache)
    _probe(tree, proj, cache)
    path = cache / _cache_files(cache)[0]
    before = path.stat().st_mtime_ns, path.stat().st_ino
    _probe(tree, proj, cache)
    assert (path.stat().st_mtime_ns, path.stat().st_ino) == before


def test_an_edited_source_is_imported_from_the_source_and_the_file_rebuilt(tree, proj,
                                                                           tmp_path):
    cache = tmp_path / "cache"
    _probe(tree, proj, cache)
    # an edit that changes the decision: the served code would still allow
    segment = tree / "gateway" / "validator" / "pipeline.py"
    text = segment.read_text()
    marker = "def validate("
    assert marker in text
    segment.write_text(text.replace(
        marker, "def validate(*a, **k):\n    raise RuntimeError('edited')\n\n\ndef _old_validate(", 1))
    edited = _probe(tree, proj, cache)
    assert "gateway.validator.pipeline" not in edited["served"]
    assert edited["answer"] == ""                       # the edited code ran: an error, no allow
    again = _probe(tree, proj, cache)
    assert "gateway.validator.pipeline" in again["served"]   # rebuilt from the edited source
    assert again["answer"] == ""


def test_modules_other_hooks_imported_are_kept(tree, proj, tmp_path):
    cache = tmp_path / "cache"
    _probe(tree, proj, cache, event="permission-request")
    _probe(tree, proj, cache, event="pre-tool-use")
    both = _probe(tree, proj, cache, event="permission-request")
    tool = _probe(tree, proj, cache, event="pre-tool-use")
    assert "gateway.hooks.permission_request" in both["served"]
    assert "gateway.guards.engine" in tool["served"]


def _write_cache(cache, data: bytes, mode=0o600):
    os.makedirs(cache, exist_ok=True)
    names = _cache_files(cache)
    assert len(names) == 1
    path = os.path.join(cache, names[0])
    os.unlink(path)
    with open(path, "wb") as fh:
        fh.write(data)
    os.chmod(path, mode)
    return path


@pytest.mark.parametrize("damage", ["garbage", "truncated", "empty", "offsets", "writable",
                                    "symlink", "fifo", "directory", "other-format", "chunks",
                                    "hardlink"])
def test_a_hostile_or_broken_file_serves_nothing_and_changes_no_answer(tree, proj, tmp_path,
                                                                        damage):
    cache = tmp_path / "cache"
    clean = _probe(tree, proj, cache, command="cat src/app.py")
    _probe(tree, proj, cache, command="cat src/app.py")
    path = os.path.join(cache, _cache_files(cache)[0])
    data = open(path, "rb").read()
    if damage == "garbage":
        _write_cache(cache, os.urandom(4096))
    elif damage == "truncated":
        _write_cache(cache, data[: len(data) // 2])
    elif damage == "empty":
        _write_cache(cache, b"")
    elif damage == "offsets":  # a header that points past the end of the file
        import marshal
        head_len = int.from_bytes(data[:4], "little")
        fmt, magic, version, index = marshal.loads(data[4:4 + head_len])
        index = {n: e[:4] + (e[4] + 10 ** 9, e[5]) for n, e in index.items()}
        head = marshal.dumps((fmt, magic, version, index))
        _write_cache(cache, len(head).to_bytes(4, "little") + head + data[4 + head_len:])
    elif damage == "writable":
        os.chmod(path, 0o666)
    elif damage == "symlink":
        target = tmp_path / "elsewhere.bin"
        target.write_bytes(data)
        os.unlink(path)
        os.symlink(target, path)
    elif damage == "fifo":
        os.unlink(path)
        os.mkfifo(path)
    elif damage == "hardlink":  # a second name: the file could be rewritten in place
        os.link(path, tmp_path / "second-name.bin")
    elif damage == "directory":
        os.unlink(path)
        os.mkdir(path)
    elif damage == "other-format":
        import marshal
        head_len = int.from_bytes(data[:4], "little")
        fmt, magic, version, index = marshal.loads(data[4:4 + head_len])
        head = marshal.dumps((fmt, magic, "0.0.0-other", index))
        _write_cache(cache, len(head).to_bytes(4, "little") + head + data[4 + head_len:])
    elif damage == "chunks":  # a well-formed index over code that does not load
        head_len = int.from_bytes(data[:4], "little")
        body = bytes(b ^ 0x5A for b in data[4 + head_len:])
        _write_cache(cache, data[:4 + head_len] + body)
    out = _probe(tree, proj, cache, command="cat src/app.py")
    if damage == "chunks":
        out["served"] = out["served"] or None  # nothing of it could be served
    assert out["served"] is None
    assert out["answer"] == clean["answer"]
    assert json.loads(out["answer"])["hookSpecificOutput"]["decision"]["behavior"] == "allow"


def test_code_that_does_not_match_its_source_is_not_served(tree, proj, tmp_path):
    """The file is the user's; a module whose recorded source identity is not the file's
    (size or time) is imported from the source, whatever code the file holds."""
    import marshal

    cache = tmp_path / "cache"
    _probe(tree, proj, cache)
    path = os.path.join(cache, _cache_files(cache)[0])
    data = open(path, "rb").read()
    head_len = int.from_bytes(data[:4], "little")
    fmt, magic, version, index = marshal.loads(data[4:4 + head_len])
    e = index["gateway.validator.pipeline"]
    index["gateway.validator.pipeline"] = (e[0], e[1], e[2] + 1, e[3], e[4], e[5])
    head = marshal.dumps((fmt, magic, version, index))
    _write_cache(cache, len(head).to_bytes(4, "little") + head + data[4 + head_len:])
    out = _probe(tree, proj, cache)
    assert "gateway.validator.pipeline" not in out["served"]
    assert "gateway.validator.segment" in out["served"]


def test_turned_off_by_the_environment(tree, proj, tmp_path):
    cache = tmp_path / "cache"
    env = _env(cache)
    env["GATEWAY_CODE_CACHE"] = "0"
    _probe(tree, proj, cache, env=env)
    _probe(tree, proj, cache, env=env)
    assert _cache_files(cache) == []


def test_the_hook_command_writes_and_uses_it(proj, tmp_path):
    """The real entry point (the lean launch line) builds the file and answers the same."""
    cache = tmp_path / "cache"
    from gateway.install.entries import lean_command

    line = lean_command() + ["hook", "permission-request"]
    answers = []
    for _ in range(2):
        out = subprocess.run(line, input=_payload(str(proj)), capture_output=True, text=True,
                             env=_env(cache), cwd=str(proj), timeout=120)
        answers.append(out.stdout)
    assert answers[0] == answers[1]
    assert json.loads(answers[1])["hookSpecificOutput"]["decision"]["behavior"] == "allow"
    assert len(_cache_files(cache)) == 1
