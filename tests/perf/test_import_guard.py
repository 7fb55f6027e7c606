"""Regression guards for the hot path that are not timings: what a hook call imports, that the
parser tables and the compiled policy come from their caches, and what the resident fast path
loads."""

import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

#: Never on the hook path: the CLI framework, the rules compiler and bashlex's table generator;
#: `typing` proper and `datetime` (~4 ms together; the state views do without them).
FORBIDDEN = ("click", "pydantic", "pydantic_core", "yaml", "inspect", "dataclasses",
             "importlib.util", "gateway.cli", "gateway.cli.app", "gateway.policy.models",
             "gateway.policy.merge", "gateway.policy.load_yaml", "unicodedata", "typing",
             "datetime")

_PROBE = r"""
import io, sys
sys.stdin = io.TextIOWrapper(io.BytesIO(sys.argv[1].encode()))
from gateway._entry import main
main(["hook", sys.argv[2] if len(sys.argv) > 2 else "permission-request"])
info = {"modules": sorted(sys.modules), "load_path": None}
import json
if "gateway.shell.bashlex_loader" in sys.modules:
    from gateway.shell import bashlex_loader
    info["load_path"] = bashlex_loader.LOAD_PATH
    table = bashlex_loader.bashlex.parser.yaccparser.action
    info["rows_decoded"] = len(getattr(table, "_decoded", table))
    info["rows"] = len(table)
sys.stderr.write("\nPROBE " + json.dumps(info) + "\n")
"""

_RESIDENT_PROBE = r"""
import io, sys
sys.stdin = io.TextIOWrapper(io.BytesIO(sys.argv[1].encode()))
from gateway._entry import main
main(["hook", "permission-request"])
modules = sorted(sys.modules)
import json
sys.stderr.write("\nPROBE " + json.dumps({"modules": modules}) + "\n")
"""


def _payload(project, command="git status"):
    return json.dumps({"session_id": "s", "cwd": project, "tool_name": "Bash",
                       "hook_event_name": "PermissionRequest",
                       "tool_input": {"command": command}})


def _env(project, **extra):
    env = dict(os.environ, CLAUDE_PROJECT_DIR=project, GATEWAY_RESIDENT="off",
               PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.update(extra)
    return env


def _probe(project, env, script=_PROBE, command="git status", hook="permission-request",
           payload=None):
    payload = _payload(project, command) if payload is None else payload
    p = subprocess.run([sys.executable, "-c", script, payload, hook], env=env,
                       capture_output=True, timeout=120, cwd="/")
    assert p.returncode == 0, p.stderr.decode()
    line = [x for x in p.stderr.decode().splitlines() if x.startswith("PROBE ")][-1]
    return p.stdout.decode(), json.loads(line[6:])


#: Not on the hook path of a command of plain words (`git status`, `npm test | tail`): it is
#: parsed without bashlex (gateway.shell.parse._plain), the payload and answer go through
#: `_json` (gateway._fastjson), decisions are no enum and globs run without `re`: together
#: about a third of such a call's CPU before.
PLAIN_FORBIDDEN = ("bashlex", "gateway.shell.bashlex_loader", "re", "enum", "functools",
                   "collections", "json", "fnmatch", "copy", "weakref", "__future__")


def test_hook_imports_nothing_heavy_and_uses_the_caches(project):
    env = _env(project)
    out1, first = _probe(project, env)  # may compile the policy (pydantic) and write the cache
    out2, second = _probe(project, env)
    assert out1 == out2 and '"allow"' in out2
    loaded = set(second["modules"])
    assert not loaded & set(FORBIDDEN), sorted(loaded & set(FORBIDDEN))
    assert not loaded & set(PLAIN_FORBIDDEN), sorted(loaded & set(PLAIN_FORBIDDEN))
    assert second["load_path"] is None  # bashlex was not even imported
    # a command that is not plain words (an expansion with an operator) goes through
    # bashlex, from the cache
    out3, third = _probe(project, env, command="git status --short ${GIT_DIR:-.}")
    loaded = set(third["modules"])
    assert not loaded & set(FORBIDDEN), sorted(loaded & set(FORBIDDEN))
    assert third["load_path"] == "cache", "bashlex rebuilt its LR tables instead of the cache"
    second = third
    # the second call read the compiled policy from the cache: the rules compiler never ran
    assert "gateway.policy.merge" not in loaded and "yaml" not in loaded
    # the LR table rows are decoded when the parser first uses them, not all at import
    assert second["rows_decoded"] < second["rows"] // 2, second


@pytest.mark.parametrize("command", [
    'git diff --stat -- "$FILE" src/app.py',
    "echo $HOME ${VIRTUAL_ENV} $?",
    "go env -w GOFLAGS=-mod=mod",
    "git add src/app.py && git commit -m \"$(cat <<'EOF'\nFix the total\n\n"
    "Co-Authored-By: Claude <noreply@anthropic.com>\nEOF\n)\"",
])
def test_plain_parameters_and_the_commit_form_skip_bashlex(project, command):
    """Plain parameter expansions, `=` in arguments and Claude Code's commit-message form
    take the plain-word parse too (gateway.shell.parse): no bashlex, no `re`."""
    env = _env(project)
    _probe(project, env, hook="pre-tool-use", command=command)  # may compile the policy
    for hook in ("pre-tool-use", "permission-request"):
        _out, info = _probe(project, env, hook=hook, command=command)
        loaded = set(info["modules"])
        assert info["load_path"] is None, (hook, command)
        assert not loaded & set(PLAIN_FORBIDDEN), (hook, sorted(loaded & set(PLAIN_FORBIDDEN)))
        assert not loaded & set(FORBIDDEN), (hook, sorted(loaded & set(FORBIDDEN)))


def test_a_configured_python_tool_reads_its_parsed_configuration(tmp_path):
    """`pytest` in a project whose pyproject.toml configures it: the first call parses the
    TOML and remembers the parse (gateway.validator.checks.tomlcache); later calls import
    neither tomllib nor shlex (addopts of plain words split without it) nor `re`."""
    project = tmp_path / "py"
    (project / "tests").mkdir(parents=True)
    (project / "tests" / "test_a.py").write_text("def test_a():\n    pass\n")
    (project / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\naddopts = "-q -x"\n')
    env = _env(str(project))
    _probe(str(project), env, hook="pre-tool-use", command="pytest tests")
    out, info = _probe(str(project), env, hook="pre-tool-use", command="pytest tests")
    assert '"permissionDecision": "allow"' in out, out
    loaded = set(info["modules"])
    assert "gateway.validator.checks.tomlcache" in loaded  # the configuration was read
    heavy = {"tomllib", "shlex", *PLAIN_FORBIDDEN, *FORBIDDEN}
    assert not loaded & heavy, sorted(loaded & heavy)


def _write_payload(project):
    return json.dumps({"session_id": "s", "cwd": project, "tool_name": "Write",
                       "hook_event_name": "PreToolUse",
                       "tool_input": {"file_path": os.path.join(project, "src", "new.py"),
                                      "content": "x = 1\n"}})


def test_pre_tool_use_imports_nothing_heavy(project):
    """The guards' hook: nothing of the CLI, the rules compiler or `typing`; a Bash call
    loads bashlex from the table cache; a Write loads no parser at all; without a
    .claude/state/ directory the state readers are not loaded either."""
    assert not os.path.isdir(os.path.join(project, ".claude", "state"))
    env = _env(project)
    _probe(project, env, hook="pre-tool-use")  # may compile the policy
    out, bash = _probe(project, env, hook="pre-tool-use", command="git status")
    assert '"permissionDecision": "allow"' in out  # early allow: the validator allows it
    loaded = set(bash["modules"])
    assert not loaded & set(FORBIDDEN), sorted(loaded & set(FORBIDDEN))
    assert not loaded & set(PLAIN_FORBIDDEN), sorted(loaded & set(PLAIN_FORBIDDEN))
    _, other = _probe(project, env, hook="pre-tool-use", command="git status ${GIT_DIR:-.}")
    assert other["load_path"] == "cache"
    assert not set(other["modules"]) & set(FORBIDDEN)
    assert "gateway.effects.analysis" in loaded  # the Bash path did run
    assert not loaded & {"gateway.state.fast", "gateway.state.store"}
    # the validator runs whole: its deny rules, then what the command reads (exposure)
    assert {"gateway.validator.deny", "gateway.validator.segment",
            "gateway.validator.phase7c_arguments"} <= loaded
    out, write = _probe(project, env, hook="pre-tool-use", payload=_write_payload(project))
    assert out == ""
    loaded = set(write["modules"])
    assert not loaded & set(FORBIDDEN), sorted(loaded & set(FORBIDDEN))
    assert "gateway.effects.files" in loaded
    assert not any(m == "bashlex" or m.startswith(("bashlex.", "gateway.shell"))
                   for m in loaded), sorted(m for m in loaded if "bashlex" in m)
    assert not loaded & {"gateway.state.fast", "gateway.state.store"}


def test_git_forms_come_from_the_compiled_policy(project):
    """The git forms (rules/effects.yaml git.subcommands) reach the guards through the
    cached policy: a command that goes through several of them loads no rules compiler."""
    env = _env(project)
    command = "git archive --out=x.tar HEAD && git branch --li && git reflog -3"
    _probe(project, env, hook="pre-tool-use", command=command)  # may compile the policy
    _out, probe = _probe(project, env, hook="pre-tool-use", command=command)
    loaded = set(probe["modules"])
    assert "gateway.effects.analysis.git" in loaded and "gateway.policy.effects" in loaded
    assert not loaded & set(FORBIDDEN), sorted(loaded & set(FORBIDDEN))


def test_hook_process_runs_without_the_cyclic_gc(project):
    """A hook process decides once and exits: `gateway hook` (argv from the command line)
    switches the cyclic collector off; a caller passing argv (a test, a long-lived
    process) keeps it."""
    # (an atexit callback also keeps the process from ending before it can print)
    script = ("import atexit, gc, io, sys; sys.stdin = io.TextIOWrapper(io.BytesIO(sys.argv[1]"
              ".encode())); sys.argv = ['gateway', 'hook', 'permission-request']; "
              "atexit.register(lambda: sys.stderr.write('\\nGC %s' % gc.isenabled())); "
              "from gateway._entry import main; main()")
    p = subprocess.run([sys.executable, "-c", script, _payload(project)], env=_env(project),
                       capture_output=True, timeout=120, cwd="/")
    assert p.returncode == 0 and p.stderr.decode().endswith("GC False"), p.stderr.decode()
    import gc

    from gateway._entry import main as entry
    assert gc.isenabled()
    try:
        entry(["hook", "no-such-hook"])
    finally:
        assert gc.isenabled()


def test_policy_cache_file_has_a_checked_header():
    from gateway.policy import cache

    d = cache.cache_dir()
    files = [f for f in os.listdir(d) if f.startswith("policy-") and f.endswith(".json")]
    assert files, "no compiled policy in the cache directory"
    with open(os.path.join(d, files[0]), "rb") as fh:
        head, _, body = fh.read().partition(b"\n")
    header = json.loads(head)
    assert header["size"] == len(body) and header["format"] == cache._FORMAT


def test_resident_fast_path_skips_the_validator(project, tmp_path):
    from gateway import _resident
    from gateway import server as srv

    state = tmp_path / "state"
    env = _env(project, XDG_STATE_HOME=str(state), GATEWAY_RESIDENT="")
    saved = dict(os.environ)
    os.environ.update({"XDG_STATE_HOME": str(state)})
    try:
        httpd = srv.make_server(port=0, token="t" * 40)
        listener = srv.ResidentListener(httpd)
        listener.start()
        try:
            assert os.path.exists(_resident.socket_path(env))
            out, info = _probe(project, env, _RESIDENT_PROBE)
        finally:
            listener.close()
            httpd.server_close()
    finally:
        os.environ.clear()
        os.environ.update(saved)
    assert '"allow"' in out
    loaded = set(info["modules"])
    for heavy in ("bashlex", "json", "gateway.validator.pipeline", "gateway.policy.cache", "re"):
        assert heavy not in loaded, heavy


@pytest.mark.parametrize("module", ["gateway.hooks.runner", "gateway._resident"])
def test_entry_modules_import_only_the_standard_library(module):
    script = (f"import sys; before = set(sys.modules); import {module}; "
              "print(sorted(set(sys.modules) - before))")
    p = subprocess.run([sys.executable, "-I", "-c", script], capture_output=True, timeout=60,
                       cwd=ROOT)
    new = eval(p.stdout.decode())  # a list literal we printed ourselves
    assert all(m.startswith("gateway") for m in new), new


_PARSE_COUNT_PROBE = r"""
import io, json, sys
from gateway.shell import parse as shell
texts = []
real = shell.parse
def counting(text):
    texts.append(text)
    return real(text)
shell.parse = counting
sys.stdin = io.TextIOWrapper(io.BytesIO(sys.argv[1].encode()))
from gateway._entry import main
main(["hook", "pre-tool-use"])
sys.stderr.write("\nPROBE " + json.dumps({"texts": texts}) + "\n")
"""


@pytest.mark.parametrize("command,parses", [
    ("git diff --stat HEAD~1 -- src/app.py", 1),
    ("rm -rf / --no-preserve-root", 1),          # the validator's deny: no analysis
    ("echo 'unterminated", 1),                    # the parse error is reused too
    ("ls 2>&1", 2),                               # phase 1.5 strips the suffix: other text
    ("git commit -m x > .git/hooks/pre-commit", 1),
])
def test_pre_tool_use_parses_a_bash_command_once(project, command, parses):
    """The guards' effects analyzer reuses the validator's parse of the same text (phase 2's
    memo) instead of parsing it again; a different text (after suffix stripping) is parsed
    on its own."""
    payload = json.dumps({"session_id": "s", "cwd": project, "tool_name": "Bash",
                          "hook_event_name": "PreToolUse", "tool_input": {"command": command}})
    _probe(project, _env(project), hook="pre-tool-use")  # compiles the policy if need be
    _, info = _probe(project, _env(project), _PARSE_COUNT_PROBE, payload=payload,
                     hook="pre-tool-use")
    assert len(info["texts"]) == parses, info["texts"]


_EXIT_PROBE = r"""
import io, os, sys
sys.stdin = io.TextIOWrapper(io.BytesIO(sys.argv[1].encode()))
sys.argv = ["gateway", "hook", sys.argv[2]]
class Finalised:
    def __del__(self):
        os.write(2, b"FINALISED")
KEEP = Finalised()
if os.environ.get("PROBE_ATEXIT"):
    import atexit
    atexit.register(lambda: os.write(2, b"ATEXIT"))
if os.environ.get("PROBE_THREAD"):
    import threading, time
    # alive until the process ends, however slow the machine (a daemon: exit does not wait)
    threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
from gateway._entry import main
sys.exit(main())
"""


@pytest.mark.parametrize("hook,command,answer", [
    ("permission-request", "git status", '"behavior": "allow"'),
    ("permission-request", "cat .env", ""),
    ("pre-tool-use", "rm -rf /", '"permissionDecision": "deny"'),
    ("pre-tool-use", "git status", '"permissionDecision": "allow"'),
    ("pre-tool-use", "cat .env", '"permissionDecision": "ask"'),
])
def test_hook_process_ends_without_finalisation_and_loses_nothing(project, tmp_path, hook,
                                                                  command, answer):
    """`gateway hook` ends with os._exit after its answer is flushed (the interpreter's
    teardown of every imported module costs ~3 ms): the answer, the exit status and the
    audit line are all there. With an atexit callback or a second thread, the process ends
    the normal way."""
    log = tmp_path / "audit.jsonl"
    env = _env(project, GATEWAY_AUDIT_LOG=str(log))
    argv = [sys.executable, "-c", _EXIT_PROBE, _payload(project, command), hook]
    p = subprocess.run(argv, env=env, capture_output=True, timeout=120, cwd="/")
    out = p.stdout.decode()
    assert p.returncode == 0, p.stderr.decode()
    assert (answer in out and out.endswith("}\n") and out.count("\n") == 1) if answer \
        else out == "", out
    assert b"FINALISED" not in p.stderr, "the interpreter was finalised"
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(entries) == 1 and entries[0]["command"] == command
    for extra in ({"PROBE_ATEXIT": "1"}, {"PROBE_THREAD": "1"}):
        p = subprocess.run(argv, env=dict(env, **extra), capture_output=True, timeout=120,
                           cwd="/")
        assert p.returncode == 0 and p.stdout.decode() == out, p.stderr.decode()
        assert b"FINALISED" in p.stderr, extra
        if "PROBE_ATEXIT" in extra:
            assert b"ATEXIT" in p.stderr


def test_audit_log_off_imports_no_json():
    script = ("import sys; from gateway import audit; from gateway.decision import ALLOW, "
              "Verdict; audit.record(Verdict(ALLOW, '7', 'GW700', '', 'ok'), event='X', "
              "env={'GATEWAY_AUDIT_LOG': 'off'}); print('json' in sys.modules)")
    p = subprocess.run([sys.executable, "-I", "-c", script], capture_output=True, timeout=60,
                       cwd=ROOT)
    assert p.stdout.decode().strip() == "False", p.stderr.decode()


def test_a_search_that_reaches_no_secret_loads_no_search_probe(project):
    """The search probe (gateway.validator.searchprobe, subprocess) is imported only when a
    search reaches a secret: `grep -rn x src` in the sample project reaches none."""
    env = _env(project)
    _probe(project, env)  # may compile the policy
    out, info = _probe(project, env, command="grep -rn x src")
    assert '"allow"' in out
    loaded = set(info["modules"])
    assert "gateway.validator.phase5_recursive" in loaded  # the walk did run
    assert "gateway.validator.searchprobe" not in loaded
