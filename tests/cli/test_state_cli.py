"""`gateway state show | validate | repair | clean` against hostile state directories, through
the installed `gateway` command, next to the real PreToolUse hook (issue 14).

Every condition that makes the hook deny (GW890) makes `validate` fail with the same sentence;
no state command reads, writes or deletes through a link; a crash leftover is repaired without
ending the breezing session."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from tests.helpers import make_project

SESSION = "7c1e0f3a-1111-4111-8111-111111111111"


@pytest.fixture(scope="module")
def exe():
    path = os.path.join(os.path.dirname(sys.executable), "gateway")
    assert os.path.exists(path), "install the package (pip install -e .) first"
    return path


@pytest.fixture()
def proj(tmp_path):
    root = make_project(tmp_path / "proj")
    os.makedirs(os.path.join(root, ".claude", "state"))
    return root


@pytest.fixture()
def env(tmp_path, proj):
    home = tmp_path / "home"
    home.mkdir()
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
            "GATEWAY_USER_RULES": str(home / "none.yaml"),
            "GATEWAY_CACHE_DIR": str(tmp_path / "cache"), "GATEWAY_AUDIT_LOG": "off",
            "GATEWAY_RESIDENT": "off", "CLAUDE_CONFIG_DIR": str(home / ".claude"),
            "CLAUDE_PROJECT_DIR": proj, "LANG": "C.UTF-8", "NO_COLOR": "1"}


def state(proj, *names):
    return os.path.join(proj, ".claude", "state", *names)


def run(exe, env, *args, unprivileged=False):
    argv = [exe, *args]
    if unprivileged:
        argv = _unprivileged(argv)
    p = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120, cwd="/")
    assert "Traceback" not in p.stderr, p.stderr
    return p


def _unprivileged(argv):
    """Root reads everything: drop the capabilities that bypass file permissions."""
    if os.geteuid() != 0:
        return argv
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: permissions cannot be tested")
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search", "--", *argv]


def hook(exe, env, payload, unprivileged=False):
    """The reason of a PreToolUse deny, or of a PostToolUse registration that was not
    recorded (registrations are recorded once the marker Write completed); None: neither."""
    post = payload.get("hook_event_name") == "PostToolUse"
    argv = [exe, "hook", "post-tool-use" if post else "pre-tool-use"]
    if unprivileged:
        argv = _unprivileged(argv)
    p = subprocess.run(argv, input=json.dumps(payload).encode(), env=env,
                       capture_output=True, timeout=120)
    assert p.returncode == 0, p.stderr
    if not p.stdout:
        return None
    out = json.loads(p.stdout)["hookSpecificOutput"]
    if post:
        text = out["additionalContext"]
        # "gateway GW890: the role marker was written but no role was registered: <reason>"
        return text.replace("the role marker was written but no role was registered: ", "")
    return out["permissionDecisionReason"]


def write_src(proj, agent_id="rev-1"):
    return {"session_id": SESSION, "agent_id": agent_id, "cwd": proj,
            "hook_event_name": "PreToolUse", "tool_name": "Write",
            "tool_input": {"file_path": os.path.join(proj, "src", "app.py"), "content": "x\n"}}


def register(proj, agent_id, role="implementer", owns=("src/**",)):
    body = json.dumps({"role": role, "owns": list(owns)})
    path = state(proj, f"breezing-role-{agent_id}.json")
    return {"session_id": SESSION, "agent_id": agent_id, "cwd": proj,
            "hook_event_name": "PostToolUse", "tool_name": "Write",
            "tool_input": {"file_path": path, "content": body},
            "tool_response": {"type": "create", "filePath": path, "content": body}}


def gw890_sentence(reason):
    """The state error inside a GW890 deny reason (what `validate` must print too)."""
    assert reason is not None and reason.startswith("gateway GW890: "), reason
    for head in ("so the guards cannot decide: ", "cannot record the role registration: "):
        if head in reason:
            text = reason[reason.index(head) + len(head):]
            return text.split(". Run the repair in your own terminal")[0]
    raise AssertionError(reason)


def bad_lines(out):
    return [line for line in out.splitlines() if line.startswith("BAD ")]


# --- item 1: .claude/state is a link --------------------------------------------------------

@pytest.mark.parametrize("which", [".claude/state", ".claude"])
def test_a_linked_state_directory_is_refused_by_every_command_and_nothing_is_deleted(
        exe, env, proj, tmp_path, which):
    outside = tmp_path / "outside"
    outside.mkdir()
    keep = {"breezing-active.json": '{"session_id": "S"}',
            "breezing-role-x.json": '{"role": "lead"}',
            "breezing-session-roles.json": "{}", "gateway-breezing-phase.json": "{}",
            ".breezing-active.json.tmp-999999-0badcafe": "x"}
    if which == ".claude":
        shutil.rmtree(os.path.join(proj, ".claude"))
        (outside / "state").mkdir()
        for n, text in keep.items():
            (outside / "state" / n).write_text(text)
        os.symlink(outside, os.path.join(proj, ".claude"))
        target = outside / "state"
    else:
        os.rmdir(state(proj))
        for n, text in keep.items():
            (outside / n).write_text(text)
        os.symlink(outside, state(proj))
        target = outside
    sentence = gw890_sentence(hook(exe, env, write_src(proj)))
    assert "symbolic link" in sentence
    v = run(exe, env, "state", "validate")
    assert v.returncode == 1
    assert bad_lines(v.stdout) == [f"BAD .claude/state: {sentence}"]
    s = run(exe, env, "state", "show")
    assert s.returncode == 0 and f"ERROR {sentence}" in s.stdout
    for verb in (["clean"], ["clean", "--all"], ["repair"]):
        c = run(exe, env, "state", *verb)
        assert c.returncode == 1
        assert c.stdout == "" and c.stderr == f"gateway: {sentence}\n"
    assert {p.name: p.read_text() for p in target.iterdir()} == keep


def test_clean_removes_a_linked_file_as_a_link(exe, env, proj, tmp_path):
    victim = tmp_path / "victim.json"
    victim.write_text("precious")
    os.symlink(victim, state(proj, "breezing-active.json"))
    c = run(exe, env, "state", "clean")
    assert c.returncode == 0 and c.stdout == "removed .claude/state/breezing-active.json\n"
    assert victim.read_text() == "precious"
    assert not os.path.lexists(state(proj, "breezing-active.json"))


def test_cleanup_works_in_the_directory_it_checked_even_if_it_is_swapped(proj, tmp_path):
    """The directory is opened without following links and files are removed by name in it:
    replacing .claude/state by a link half-way cannot redirect the removal."""
    from gateway.state import cleanup

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "breezing-active.json").write_text("precious")
    with open(state(proj, "breezing-active.json"), "w") as fh:
        fh.write("{}")
    with cleanup.StateDir(proj) as sd:
        os.rename(state(proj), os.path.join(proj, ".claude", "moved"))
        os.symlink(outside, state(proj))
        assert sd.unlink("breezing-active.json")
    assert (outside / "breezing-active.json").read_text() == "precious"
    assert not os.path.exists(os.path.join(proj, ".claude", "moved", "breezing-active.json"))


# --- item 2: something else where the directory must be -------------------------------------

@pytest.mark.parametrize("what", ["state-file", "state-fifo", "claude-file"])
def test_a_file_where_the_state_directory_must_be_is_broken_state_not_absence(
        exe, env, proj, what):
    os.rmdir(state(proj))
    if what == "state-file":
        path = state(proj)
        with open(path, "w") as fh:
            fh.write('{"impl-1": {"role": "lead"}}')
        kind = "a regular file"
    elif what == "state-fifo":
        path = state(proj)
        os.mkfifo(path)
        kind = "a FIFO"
    else:
        path = os.path.join(proj, ".claude")
        shutil.rmtree(path)
        with open(path, "w") as fh:
            fh.write("x")
        kind = "a regular file"
    # a reviewer's write to src/ and a registration: both GW890, never "no session" (GW800)
    # and never an internal error (GW893, FileExistsError)
    reason = hook(exe, env, write_src(proj))
    sentence = gw890_sentence(reason)
    assert f"{path}: is {kind}, not a directory" in sentence
    assert gw890_sentence(hook(exe, env, register(proj, "impl-1"))) == sentence
    v = run(exe, env, "state", "validate")
    assert v.returncode == 1 and bad_lines(v.stdout) == [f"BAD .claude/state: {sentence}"]
    c = run(exe, env, "state", "clean")
    assert c.returncode == 1 and c.stderr == f"gateway: {sentence}\n"
    assert os.path.lexists(path) and not os.path.isdir(path)


# --- item 3: an unreadable state directory --------------------------------------------------

def test_an_unreadable_state_directory_is_a_clear_error_for_every_command(exe, env, proj):
    with open(state(proj, "breezing-active.json"), "w") as fh:
        fh.write('{"session_id": "S"}')
    os.chmod(state(proj), 0)
    try:
        v = run(exe, env, "state", "validate", unprivileged=True)
        s = run(exe, env, "state", "show", unprivileged=True)
        c = run(exe, env, "state", "clean", unprivileged=True)
        r = run(exe, env, "state", "repair", unprivileged=True)
        reason = hook(exe, env, write_src(proj), unprivileged=True)
    finally:
        os.chmod(state(proj), 0o700)
    sentence = (f"state directory {state(proj)}: cannot be opened: Permission denied. To "
                f"repair: check the permissions of {state(proj)} (the owner needs rwx: chmod "
                f"u+rwx {state(proj)})")
    assert v.returncode == 1 and v.stdout == f"BAD .claude/state: {sentence}\n"
    assert s.returncode == 0 and "Permission denied" in s.stdout
    assert s.stdout.splitlines()[0] == f"state directory: {state(proj)}"
    assert c.returncode == 1 and c.stderr == f"gateway: {sentence}\n"
    assert r.returncode == 1 and r.stderr == f"gateway: {sentence}\n"
    assert "Permission denied" in gw890_sentence(reason)
    assert os.path.exists(state(proj, "breezing-active.json"))


def test_a_directory_the_gateway_cannot_write_is_reported(exe, env, proj):
    os.chmod(state(proj), 0o500)
    try:
        v = run(exe, env, "state", "validate", unprivileged=True)
        reason = hook(exe, env, register(proj, "impl-1"), unprivileged=True)
    finally:
        os.chmod(state(proj), 0o700)
    assert v.returncode == 1
    assert bad_lines(v.stdout) == [
        f"BAD .claude/state: state directory {state(proj)}: is not readable and writable by "
        "you, so registrations cannot be recorded (every role marker write is denied, GW890). "
        f"To repair: chmod u+rwx {state(proj)}"]
    assert reason.startswith("gateway GW890: cannot record the role registration: ")
    assert "Permission denied" in reason


# --- item 4: lock files that are not regular files ------------------------------------------

@pytest.mark.parametrize("kind", ["directory", "symlink", "fifo"])
def test_a_broken_lock_file_is_reported_by_validate_and_repaired(exe, env, proj, tmp_path,
                                                                 kind):
    lock = state(proj, ".breezing-session-roles.json.lock")
    if kind == "directory":
        os.mkdir(lock)
    elif kind == "symlink":
        (tmp_path / "elsewhere").write_text("not yours")
        os.symlink(tmp_path / "elsewhere", lock)
    else:
        os.mkfifo(lock)
    reason = hook(exe, env, register(proj, "impl-1"))
    assert reason.startswith("gateway GW890: cannot record the role registration: state file "
                             f"{lock}: lock file is not a regular file")
    message = reason[len("gateway GW890: cannot record the role registration: "):]
    v = run(exe, env, "state", "validate")
    assert v.returncode == 1
    assert bad_lines(v.stdout) == [f"BAD .claude/state/.breezing-session-roles.json.lock: "
                                   f"{message}"]
    assert "`gateway state repair` removes it" in message
    r = run(exe, env, "state", "repair")
    assert r.returncode == 0, r.stderr
    assert r.stdout == ("removed .claude/state/.breezing-session-roles.json.lock (lock file "
                        "that was not a regular file)\nthe state is valid; the breezing session "
                        "continues\n")
    assert hook(exe, env, register(proj, "impl-1")) is None
    assert run(exe, env, "state", "validate").returncode == 0
    if kind == "symlink":
        assert (tmp_path / "elsewhere").read_text() == "not yours"


# --- item 5: a crash leftover is repaired without ending the session ------------------------

def test_repair_removes_a_crash_leftover_and_keeps_the_session(exe, env, proj):
    with open(state(proj, "breezing-active.json"), "w") as fh:
        fh.write(json.dumps({"session_id": "S1", "impl_mode": "standard"}))
    assert hook(exe, env, register(proj, "impl-1")) is None
    assert run(exe, env, "breezing", "phase", "B").returncode == 0
    tmp = ".breezing-session-roles.json.tmp-999999-0badcafe"   # pid 999999 is not running
    with open(state(proj, tmp), "w") as fh:
        fh.write('{"impl-1": ')
    v = run(exe, env, "state", "validate")
    assert v.returncode == 1
    assert bad_lines(v.stdout) == [
        f"BAD .claude/state/{tmp}: state file {state(proj, tmp)}: temp file left by a writer "
        "that died. To repair: the gateway's next write to the state directory removes it; "
        "`gateway state repair` removes it now (the breezing session continues)"]
    before = {n: open(state(proj, n)).read() for n in ("breezing-active.json",
                                                       "breezing-session-roles.json",
                                                       "gateway-breezing-phase.json")}
    r = run(exe, env, "state", "repair")
    assert r.returncode == 0
    assert r.stdout == (f"removed .claude/state/{tmp} (temp file of a writer that died)\n"
                        "the state is valid; the breezing session continues\n")
    assert {n: open(state(proj, n)).read() for n in before} == before
    assert run(exe, env, "state", "validate").returncode == 0
    assert run(exe, env, "state", "repair").stdout == "nothing to repair: the state is valid\n"


def test_repair_replaces_only_the_gateways_own_broken_files(exe, env, proj):
    with open(state(proj, "breezing-active.json"), "w") as fh:
        fh.write(json.dumps({"session_id": "S1"}))
    with open(state(proj, "breezing-session-roles.json"), "w") as fh:
        fh.write('{"impl-1": {"role": "implem')
    reason = hook(exe, env, write_src(proj))
    assert "`gateway state repair` removes it (the breezing session continues)" in reason
    r = run(exe, env, "state", "repair")
    assert r.returncode == 0
    assert r.stdout.splitlines()[0] == ("removed .claude/state/breezing-session-roles.json "
                                        "(unusable breezing-session-roles.json)")
    assert os.path.exists(state(proj, "breezing-active.json"))
    assert hook(exe, env, register(proj, "impl-1")) is None     # the teammate registers again


def test_repair_never_removes_what_people_write(exe, env, proj):
    with open(state(proj, "breezing-active.json"), "w") as fh:
        fh.write('{"session_id": "S1", "impl_mode": "Codex"}')
    r = run(exe, env, "state", "repair")
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.splitlines()[0] == "still broken (1): repair by hand as each line says"
    assert r.stderr.splitlines()[1].startswith("BAD .claude/state/breezing-active.json: ")
    assert "fix the reported field(s)" in r.stderr
    assert os.path.exists(state(proj, "breezing-active.json"))


def test_only_the_lead_may_run_repair_inside_claude_code(exe, env, proj):
    assert hook(exe, env, register(proj, "rev-1", "reviewer", ())) is None
    payload = {"session_id": SESSION, "agent_id": "rev-1", "cwd": proj,
               "hook_event_name": "PreToolUse", "tool_name": "Bash",
               "tool_input": {"command": "gateway state repair"}}
    reason = hook(exe, env, payload)
    assert reason is not None and reason.startswith("gateway GW807: ")
    assert "(gateway state repair)" in reason


# --- the team's other stores (issue 15's leftover) ----------------------------------------------

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(__file__))), "docs",
                        "examples")


def test_validate_and_repair_know_the_workflow_database(exe, env, proj):
    db = state(proj, "gateway-workflow.sqlite3")
    with open(db, "wb") as fh:
        fh.write(b"not a database" * 100)
    p = run(exe, env, "state", "validate")
    assert p.returncode == 1
    assert (f"BAD .claude/state/gateway-workflow.sqlite3: state file {db}: is not a usable "
            f"SQLite database (file is not a database). To repair: `gateway state repair` sets "
            f"it aside (renamed to {db}.unusable-<time>); the next PreCompact hook writes a new "
            f"one (only the saved position in the spec is lost; the specs themselves are "
            f"untouched)\n") in p.stdout
    assert "workflow state (gateway-workflow.sqlite3): ERROR state file " in \
        run(exe, env, "state", "show").stdout
    p = run(exe, env, "state", "repair")
    assert p.returncode == 0, p.stderr
    aside = [n for n in os.listdir(state(proj)) if n.startswith("gateway-workflow.sqlite3.")]
    assert len(aside) == 1 and aside[0].startswith("gateway-workflow.sqlite3.unusable-")
    assert p.stdout == (f"set aside .claude/state/gateway-workflow.sqlite3: unusable, renamed "
                        f"to {aside[0]}; the next PreCompact hook writes a new one\n"
                        f"the state is valid; the breezing session continues\n")
    assert open(state(proj, aside[0]), "rb").read() == b"not a database" * 100   # kept
    assert not os.path.exists(db)
    assert run(exe, env, "state", "validate").returncode == 0


def test_a_usable_workflow_database_is_reported_and_kept(exe, env, proj):
    from gateway.orchestration import workflow

    with workflow.open_store(proj) as st:
        st.save(spec_id="s-1", spec_path="specs/s-1.md", task_number=2, task_title="t",
                next_action="task_start", issue=542)
    p = run(exe, env, "state", "validate")
    assert p.returncode == 0, p.stdout
    assert ("ok  .claude/state/gateway-workflow.sqlite3: 1 saved spec position(s), latest s-1 "
            "task 2 (task_start)\n") in p.stdout
    assert run(exe, env, "state", "repair").stdout == "nothing to repair: the state is valid\n"
    assert os.path.exists(state(proj, "gateway-workflow.sqlite3"))


def test_validate_reads_the_orchestrator_store(exe, env, proj):
    shutil.copytree(os.path.join(EXAMPLES, "orch", "agent-coord"),
                    os.path.join(proj, "agent-coord"))
    p = run(exe, env, "state", "validate")
    assert p.returncode == 0, p.stdout
    assert "ok  agent-coord: 2 session(s), 3 task(s), 3 run(s)\n" in p.stdout
    assert "orchestrator store (agent-coord/): 2 session(s), 3 task(s), 3 run(s)" in \
        run(exe, env, "state", "show").stdout
    bad = os.path.join(proj, "agent-coord", "tasks", "task-7682b3a8-9.json")
    with open(bad, "w") as fh:
        fh.write('{"id": "task-7682b3a8-9", ')
    p = run(exe, env, "state", "validate")
    assert p.returncode == 1
    line = next(x for x in p.stdout.splitlines() if x.startswith("BAD agent-coord: "))
    assert line.startswith(f"BAD agent-coord: orchestrator store {proj}/agent-coord: 1 file(s) "
                           f"cannot be read: task task-7682b3a8-9: ends early")
    assert "(2 session(s), 3 task(s), 3 run(s) readable). To repair: " in line
    p = run(exe, env, "state", "repair")        # the orchestrator's files: reported, not changed
    assert p.returncode == 1 and p.stdout == ""
    assert "still broken (1)" in p.stderr and "BAD agent-coord: " in p.stderr
    assert open(bad).read() == '{"id": "task-7682b3a8-9", '


def test_a_linked_orchestrator_store_is_refused(exe, env, proj, tmp_path):
    os.makedirs(tmp_path / "elsewhere")
    os.symlink(tmp_path / "elsewhere", os.path.join(proj, "agent-coord"))
    p = run(exe, env, "state", "validate")
    assert p.returncode == 1
    assert (f"BAD agent-coord: orchestrator store {proj}/agent-coord: is a symbolic link; the "
            f"store is never followed through links. To repair: replace {proj}/agent-coord by "
            f"a real directory (the files it points to are not touched)") in p.stdout


@pytest.mark.parametrize("name", ["breezing-signals.jsonl", "breezing-timeline.jsonl"])
def test_repair_sets_unreadable_jsonl_lines_aside(exe, env, proj, name):
    path = state(proj, name)
    good = ('{"signal": "partial_review_recommended", "session_id": "S1", "completed": 2, '
            '"total": 4}' if "signals" in name else
            '{"event": "task_completed", "task_id": "1", "timestamp": "2026-02-06T03:10:00Z"}')
    with open(path, "w") as fh:
        fh.write(good + "\n{not json\n" + good + "\n" + '{"torn": "li')
    p = run(exe, env, "state", "validate")
    assert p.returncode == 1
    assert ("has 2 bad line(s): line 2: ") in p.stdout and "line 4: incomplete last line" in \
        p.stdout
    assert (f"To repair: `gateway state repair` moves the listed lines to {path}.unreadable "
            f"(the other lines are intact), or delete or fix them in {path}") in p.stdout
    p = run(exe, env, "state", "repair")
    assert p.returncode == 0, p.stderr
    assert p.stdout == (f"set aside .claude/state/{name}: 2 unreadable line(s) moved to "
                        f"{name}.unreadable\nthe state is valid; the breezing session "
                        f"continues\n")
    assert open(path).read() == good + "\n" + good + "\n"
    assert open(path + ".unreadable").read() == '{not json\n{"torn": "li\n'
    assert run(exe, env, "state", "validate").returncode == 0
