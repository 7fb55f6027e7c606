"""Agreement: `gateway check --json`, `gateway check --batch` and the PermissionRequest hook
give the same decision for the same input, and deciding twice gives the same answer.

The in-process property drives the real click command and the real hook runner with many
examples; a smaller one runs the installed entry point (`python -m gateway`) in processes.
"""

import io
import json
import os
import subprocess
import sys

from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.decision import ALLOW, DENY
from tests.property import strategies as S
from tests.property.conftest import budget
from tests.property.support import STATS, show, tick

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_EXIT = {"allow": 0, "ask": 10, "deny": 11}
KEYS = ("decision", "phase", "code", "rule", "message")


def _hook_expectation(verdict):
    """What the PermissionRequest hook prints for a verdict (per its contract)."""
    if verdict["decision"] == "allow":
        return {"behavior": "allow"}
    if verdict["decision"] == "deny":
        return {"behavior": "deny", "code": verdict["code"]}
    return None


def _parse_hook(out: str):
    if out == "":
        return None
    assert out.endswith("\n") and out.count("\n") == 1, f"hook printed {out!r}"
    obj = json.loads(out)
    hso = obj["hookSpecificOutput"]
    assert set(obj) == {"hookSpecificOutput"} and hso["hookEventName"] == "PermissionRequest"
    dec = hso["decision"]
    if dec["behavior"] == "allow":
        assert dec == {"behavior": "allow"}, obj
        return {"behavior": "allow"}
    assert dec["behavior"] == "deny" and set(dec) == {"behavior", "message"}, obj
    code = dec["message"].split(":", 1)[0].replace("gateway ", "")
    return {"behavior": "deny", "code": code}


def _payload(command, cwd):
    return json.dumps({"session_id": "prop", "transcript_path": "/tmp/t.jsonl", "cwd": cwd,
                       "permission_mode": "default", "hook_event_name": "PermissionRequest",
                       "tool_name": "Bash", "tool_input": {"command": command,
                                                           "description": "x"}}).encode()


def _batch_line(command, cwd, as_json):
    if as_json or "\n" in command or "\r" in command or not command.strip() \
            or command.lstrip().startswith("{"):
        return json.dumps({"command": command, "cwd": cwd}) + "\n"
    return command + "\n"


@budget(60)
@given(data=st.data(), n=st.integers(1, 6), sub=st.sampled_from(["", "src"]),
       jsonl=st.booleans())
def test_check_json_batch_and_hook_agree(pjudge, data, n, sub, jsonl):
    tick("agreement: check --json, --batch, hook (in process)")
    from gateway.cli.check import command as check
    from gateway.hooks import runner

    project = pjudge.project
    cwd = os.path.join(project, sub) if sub else project
    commands = [data.draw(S.any_command(project)) for _ in range(n)]
    commands = [c for c in commands if "\x00" not in c] or ["ls"]
    runner_ = CliRunner()
    env = dict(os.environ)
    env.pop("CLAUDE_PROJECT_DIR", None)

    singles = []
    for c in commands:
        res = runner_.invoke(check, ["--json", "--project", project, "--cwd", cwd, "--", c])
        assert res.exception is None or isinstance(res.exception, SystemExit), res.output
        got = json.loads(res.stdout)
        assert res.exit_code == _EXIT[got["decision"]], (c, res.exit_code, got)
        singles.append(got)
        again = json.loads(runner_.invoke(
            check, ["--json", "--project", project, "--cwd", cwd, "--", c]).stdout)
        assert again == got, f"{c!r} decided twice differently"

    stdin = "".join(_batch_line(c, cwd, jsonl) for c in commands)
    res = runner_.invoke(check, ["--batch", "-", "--project", project, "--cwd", cwd],
                         input=stdin)
    assert res.exit_code == 0, res.output
    batch = [json.loads(line) for line in res.stdout.splitlines()]
    assert len(batch) == len(commands), (stdin, res.stdout)

    for c, one, b in zip(commands, singles, batch, strict=True):
        STATS["validations"] += 3
        assert {k: one[k] for k in KEYS} == {k: b[k] for k in KEYS}, (
            f"{c!r}: check --json {one['decision']} {one['code']} vs --batch "
            f"{b['decision']} {b['code']}")
        assert one["trace"] == b["trace"], c
        out = io.StringIO()
        rc = runner.run("permission-request", stdin=io.BytesIO(_payload(c, cwd)), stdout=out,
                        env=env)
        assert rc == 0
        assert _parse_hook(out.getvalue()) == _hook_expectation(one), (
            f"{c!r}: check says {one['decision']} {one['code']}, hook printed "
            f"{out.getvalue()!r}")
        # a tilde is expanded with $HOME, as `gateway check` does (gateway.runtime)
        v = pjudge(c, cwd=sub or None, home=os.environ.get("HOME"))
        assert (str(v.decision), v.code, v.phase, v.rule) == (
            one["decision"], one["code"], one["phase"], one["rule"]), f"{c!r}: {show(v)}"


@budget(200)
@given(data=st.data())
def test_deciding_twice_gives_the_same_answer(pjudge, data):
    tick("agreement: deciding twice")
    c = data.draw(S.any_command(pjudge.project))
    a, b = pjudge(c), pjudge(c)
    assert (a.decision, a.phase, a.code, a.rule, a.message) == (
        b.decision, b.phase, b.code, b.rule, b.message), c
    assert [s.as_dict() for s in a.trace] == [s.as_dict() for s in b.trace], c


def _run(args, stdin=b""):
    env = dict(os.environ)
    env["PYTHONPATH"] = REPO + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("CLAUDE_PROJECT_DIR", None)
    return subprocess.run([sys.executable, "-m", "gateway"] + args, input=stdin,
                          capture_output=True, env=env, timeout=60)


@settings(max_examples=budget(3).max_examples, deadline=None)  # real processes: their time
@given(data=st.data())                                          # is the machine's, not ours
def test_the_real_entry_points_agree(pjudge, data):
    """The same, through `python -m gateway` processes: stdin, stdout and exit codes."""
    tick("agreement: real processes")
    project = pjudge.project
    commands = [c for c in (data.draw(S.any_command(project)) for _ in range(3))
                if "\x00" not in c] or ["ls"]
    stdin = "".join(_batch_line(c, project, True) for c in commands).encode()
    res = _run(["check", "--batch", "-", "--project", project, "--cwd", project], stdin)
    assert res.returncode == 0, res.stderr
    batch = [json.loads(line) for line in res.stdout.decode().splitlines()]
    assert len(batch) == len(commands)
    for c, b in zip(commands, batch, strict=True):
        one = _run(["check", "--json", "--project", project, "--cwd", project, "--", c])
        single = json.loads(one.stdout)
        assert one.returncode == _EXIT[single["decision"]]
        assert {k: single[k] for k in KEYS} == {k: b[k] for k in KEYS}, c
        hook = _run(["hook", "permission-request"], _payload(c, project))
        assert hook.returncode == 0 and hook.stderr == b"", hook.stderr
        assert _parse_hook(hook.stdout.decode()) == _hook_expectation(single), c
        STATS["validations"] += 3
        if single["decision"] == "allow":
            assert pjudge(c).decision is ALLOW
        elif single["decision"] == "deny":
            assert pjudge(c).decision is DENY
