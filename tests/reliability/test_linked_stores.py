"""Nothing outside the project changes when a store directory is a link (issue 29).

A project with every store in use -- a breezing session (roles, role markers, phase, signals,
timeline, review result, temp file of a dead writer), the SQLite workflow database with a
saved position, the orchestrator store with a session, tasks, a run and its log -- has its
`.claude/state`, its `agent-coord` or its whole `.claude` moved outside and replaced by a
symbolic link. Then EVERY hook event (`gateway.hooks.runner.events()`, with the payloads that
make it write) runs as a real hook process, and EVERY CLI verb (the click tree) through
`gateway._entry.main` (the console script's function) in one process, and the outside
directory is compared byte for byte (names, kinds, modes, contents, link targets) after each
of them. The lists are checked against the code: a new hook or verb
fails `test_every_hook_event_and_cli_verb_is_exercised` until it is added here.

Where a writer meets the link it refuses with the guards' sentence (GW890 for the state
directory), never through the link.
"""

import hashlib
import json
import os
import shutil
import subprocess
import sys

import click
import pytest

from gateway.hooks import runner
from gateway.orchestration import coord, workflow
from gateway.state import fast

from . import harness

SID = "planner-7682b3a8-1c2d-4e5f-8a9b-0c1d2e3f4a5b"
RUN = "run-0d3c2b1a-9f8e-4d7c-8b6a-5f4e3d2c1b0a"
SPEC_ID = "ed37057f-b8e2-499d-b564-505254a0c509"
SPEC = os.path.join(os.path.dirname(os.path.dirname(__file__)), "orchestration", "data",
                    "seed002-spec.md")
T1 = "schema.ts に WorkflowStateTable 型定義を追加"
PLANS = "# Plans\n\n## 2. Auth\n\n### 2.1 login <!-- cc:TODO -->\n\n### 2.2 logout <!-- cc:TODO -->\n"


def build(root) -> str:
    """A project with every store in use (see the module docstring)."""
    proj = os.path.join(root, "proj")
    state = os.path.join(proj, ".claude", "state")
    os.makedirs(state)
    os.makedirs(os.path.join(proj, "src"))
    with open(os.path.join(proj, "a.txt"), "w") as fh:
        fh.write("a\n")
    with open(os.path.join(proj, "Plans.md"), "w") as fh:
        fh.write(PLANS)
    active = {"session_id": "S1", "impl_mode": "standard", "team_name": "t",
              "plans_md_mapping": {"1": "2.1", "2": "2.2"},
              "review": {"retake_count": 0, "max_retakes": 3}}
    files = {
        "breezing-active.json": json.dumps(active),
        "breezing-role-impl-1.json": '{"role": "implementer", "owns": ["src/**"]}',
        "breezing-signals.jsonl": '{"signal": "partial_review_recommended", "session_id": '
                                  '"S1", "completed": 1, "total": 2}\n',
        "breezing-timeline.jsonl": '{"event": "task_completed", "task_id": "1", "timestamp": '
                                   '"2026-02-06T03:10:00Z", "session_id": "S1"}\n',
        "review-result.json": '{"verdict": "APPROVE", "grade": "A", "commit_hash": "abcdef1", '
                              '"session_id": "S1"}',
        ".breezing-active.json.tmp-999999-0badcafe": "left by a writer that died",
    }
    for name, text in files.items():
        with open(os.path.join(state, name), "w") as fh:
            fh.write(text)
    fast.update_session_roles(proj, lambda r: {"impl-1": fast.role_entry(
        "implementer", ["src/**"], marker="breezing-role-impl-1.json")})
    fast.set_phase(proj, "B")
    specs = os.path.join(proj, ".cc-craft-kit", "specs")
    os.makedirs(specs)
    shutil.copy(SPEC, os.path.join(specs, SPEC_ID + ".md"))
    assert workflow.save_current(proj, "s-1")[0] is not None
    cs = coord.CoordStore(proj)
    cs.create_session("build the thing", session_id=SID)
    cs.add_task(SID, 1)
    assert cs.claim_next_task("w0").id == "task-7682b3a8-1"   # a run is of a claimed task
    cs.add_task(SID, 2)
    cs.add_task(SID, 3)
    cs.start_run("task-7682b3a8-1", "codex", run_id=RUN)
    cs.append_log(RUN, "started\n")
    return proj


def link(proj, root, which) -> str:
    """Move ``which`` out of the project and link it back; the outside directory."""
    outside = os.path.join(root, "outside")
    os.makedirs(outside)
    inside = os.path.join(proj, which)
    target = os.path.join(outside, os.path.basename(which))
    shutil.move(inside, target)
    os.symlink(target, inside)
    return outside


def snapshot(root) -> dict:
    out = {}
    for d, dirs, names in os.walk(root):
        for n in dirs + names:
            p = os.path.join(d, n)
            st = os.lstat(p)
            rel = os.path.relpath(p, root)
            if os.path.islink(p):
                out[rel] = ("link", os.readlink(p))
            elif os.path.isfile(p):
                with open(p, "rb") as fh:
                    out[rel] = (st.st_mode, hashlib.sha256(fh.read()).hexdigest())
            else:
                out[rel] = (st.st_mode, None)
    return out


def env_for(root, proj) -> dict:
    home = os.path.join(root, "home")
    os.makedirs(home, exist_ok=True)
    return harness.hook_env(home, os.path.join(root, "cache"), proj,
                            GATEWAY_TASKS_DIR=os.path.join(home, "tasks"), NO_COLOR="1")


# --- what runs: every hook event, every CLI verb -------------------------------------------

def _marker(proj, agent):
    path = os.path.join(proj, ".claude", "state", f"breezing-role-{agent}.json")
    return {"agent_id": agent, "tool_name": "Write",
            "tool_input": {"file_path": path, "content": '{"role": "implementer"}'},
            "tool_response": {"type": "create", "filePath": path}}


def _spec_edit(proj):
    path = os.path.join(proj, ".cc-craft-kit", "specs", SPEC_ID + ".md")
    return {"tool_name": "Edit",
            "tool_input": {"file_path": path, "old_string": f"- [ ] {T1} (#541)",
                           "new_string": f"- [x] {T1} (#541)"},
            "tool_response": {"filePath": path}}


#: hook event -> payload bodies (the event name, session and cwd are added). Each is one that
#: makes the hook read or write a store.
HOOKS = {
    "pre-tool-use": [
        lambda p: {"tool_name": "Read", "tool_input": {"file_path": os.path.join(p, "a.txt")}},
        lambda p: {**_marker(p, "impl-2"), "tool_response": None},
        lambda p: {"tool_name": "Bash", "tool_input": {"command": "ls"}},
    ],
    "post-tool-use": [lambda p: _marker(p, "impl-2"), _spec_edit],
    "permission-request": [
        lambda p: {"tool_name": "Bash", "tool_input": {"command": "git status"}}],
    "pre-compact": [lambda p: {"trigger": "manual", "custom_instructions": None},
                    lambda p: {"trigger": "auto", "custom_instructions": None}],
    "session-start": [lambda p: {"source": "compact"}, lambda p: {"source": "resume"}],
    "task-completed": [lambda p: {"task_id": "2", "task_subject": "logout",
                                  "teammate_name": "impl-1"}],
    "teammate-idle": [lambda p: {"teammate_name": "impl-1", "team_name": "t"}],
    "user-prompt-submit": [lambda p: {"prompt": "continue"}],
    "task-created": [lambda p: {"task_id": "5", "task_subject": "export",
                                "task_description": "export the users"}],
    "subagent-start": [lambda p: {"agent_id": "agent-9", "agent_type":
                                  "claude-code-harness:task-worker"}],
    "session-end": [lambda p: {"reason": "other"}],
}

EVENT_NAMES = {"pre-tool-use": "PreToolUse", "post-tool-use": "PostToolUse",
               "permission-request": "PermissionRequest", "pre-compact": "PreCompact",
               "session-start": "SessionStart", "task-completed": "TaskCompleted",
               "teammate-idle": "TeammateIdle", "user-prompt-submit": "UserPromptSubmit",
               "task-created": "TaskCreated", "subagent-start": "SubagentStart",
               "session-end": "SessionEnd"}

#: CLI verb -> argument lists (each run with the project as cwd and CLAUDE_PROJECT_DIR).
#: `hook` is the hooks above; `serve` prints its settings (it would otherwise serve forever).
CLI = {
    ("adapter",): [["adapter", "gemini", "--print-config"]],
    ("bench",): [["bench", "--only", "growth", "--runs", "5"]],
    ("breezing", "abort"): [["breezing", "abort"]],
    ("breezing", "batch"): [["breezing", "batch"]],
    ("breezing", "register"): [["breezing", "register", "implementer", "--name", "impl-3"]],
    ("breezing", "review"): [["breezing", "review", "request_changes"]],
    ("breezing", "status"): [["breezing", "status"]],
    ("breezing", "finish"): [["breezing", "finish", "--timeout", "5"],
                             ["breezing", "finish", "--cleanup"]],
    ("breezing", "next"): [["breezing", "next"]],
    ("breezing", "phase"): [["breezing", "phase"], ["breezing", "phase", "C"]],
    ("breezing", "start"): [["breezing", "start", "--range", "全部やって", "--no-discuss"],
                            ["breezing", "start", "--range", "全部やって", "--no-discuss",
                             "-y"]],
    ("breezing", "verify"): [["breezing", "verify", "--dry-run"],
                             ["breezing", "verify", "--timeout", "5"]],
    ("check",): [["check", "git status"],
                 ["check", "--tool", "Write", "--input",
                  '{"file_path": "src/x.py", "content": "x"}']],
    ("completion",): [["completion", "bash"]],
    ("crew", "new"): [["crew", "new"]],
    ("crew", "plan"): [["crew", "plan", "work/cmd_001/plan.md"]],
    ("crew", "status"): [["crew", "status"]],
    ("crew", "validate-result"): [["crew", "validate-result", "a.txt", "researcher"]],
    ("doctor",): [["doctor", "--no-probe"]],
    ("explain",): [["explain", "GW890"]],
    ("hook",): [],
    ("install",): [["install", "--scope", "local", "--dry-run"]],
    ("log",): [["log"]],
    ("orch", "claim"): [["orch", "claim", "w9"]],
    ("orch", "info"): [["orch", "info", SID]],
    ("orch", "new"): [["orch", "new", "another instruction"]],
    ("orch", "task"): [["orch", "task", SID, "--acceptance", "works"]],
    ("orch", "transition"): [["orch", "transition", "task-unknown-1", "done", "--owner",
                              "w9"]],
    ("orch", "resume"): [["orch", "resume", "--list"]],
    ("orch", "status"): [["orch", "status"]],
    ("resume",): [["resume"], ["resume", "--yes"]],
    ("rules", "show"): [["rules", "show"]],
    ("rules", "validate"): [["rules", "validate"]],
    ("serve",): [["serve", "--print-settings", "--project", "."]],
    ("spec", "done"): [["spec", "done", "541"]],
    ("spec", "start"): [["spec", "start", "541"]],
    ("spec", "status"): [["spec", "status"]],
    ("state", "clean"): [["state", "clean"], ["state", "clean", "--all"]],
    ("state", "repair"): [["state", "repair"]],
    ("state", "show"): [["state", "show"]],
    ("state", "validate"): [["state", "validate"]],
    ("stats",): [["stats"]],
    ("uninstall",): [["uninstall", "--scope", "local", "--dry-run"]],
}


def _leaves(group, prefix=()):
    for name, cmd in group.commands.items():
        if isinstance(cmd, click.Group):
            yield from _leaves(cmd, prefix + (name,))
        else:
            yield prefix + (name,)


def test_every_hook_event_and_cli_verb_is_exercised():
    from gateway.cli.app import cli

    assert set(HOOKS) == set(runner.events()), "add the new hook event's payloads to HOOKS"
    assert set(_leaves(cli)) == set(CLI), "add the new CLI verb's arguments to CLI"


# --- the runs -------------------------------------------------------------------------------

#: Runs the CLI verbs one after the other in ONE process, each through ``gateway._entry.main``
#: (the function the console script calls, with the verb's argv, in the project with the hooks'
#: environment), and compares the outside directory after each: one interpreter start instead
#: of forty keeps the test within its budget on two cores. The hooks run as real processes.
VERBS = r"""
import contextlib, hashlib, io, json, os, sys
outside, runs = sys.argv[1], json.loads(sys.stdin.read())

def snapshot(root):
    out = {}
    for d, dirs, names in os.walk(root):
        for n in dirs + names:
            p = os.path.join(d, n)
            st = os.lstat(p)
            rel = os.path.relpath(p, root)
            if os.path.islink(p):
                out[rel] = ["link", os.readlink(p)]
            elif os.path.isfile(p):
                with open(p, "rb") as fh:
                    out[rel] = [st.st_mode, hashlib.sha256(fh.read()).hexdigest()]
            else:
                out[rel] = [st.st_mode, None]
    return out

from gateway._entry import main
before = snapshot(outside)
results = []
for args in runs:
    out, err = io.TextIOWrapper(io.BytesIO(), "utf-8"), io.TextIOWrapper(io.BytesIO(), "utf-8")
    crash = None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        except BaseException as e:
            import traceback
            code, crash = None, traceback.format_exc()[-1500:]
    texts = []
    for f in (out, err):
        f.flush()
        texts.append(f.buffer.getvalue().decode("utf-8", "replace"))
    now = snapshot(outside)
    diff = sorted(k for k in set(now) | set(before) if now.get(k) != before.get(k))
    before = now
    results.append({"args": args, "code": code, "stdout": texts[0], "stderr": texts[1],
                    "crash": crash, "changed": diff})
print(json.dumps(results))
"""


def _hooks(proj):
    for event, bodies in HOOKS.items():
        for body in bodies:
            payload = {"session_id": "S1", "cwd": proj, "hook_event_name": EVENT_NAMES[event],
                       **body(proj)}
            yield f"hook {event} {json.dumps(body(proj))[:80]}", event, \
                json.dumps(payload).encode()


@pytest.mark.parametrize("which", [".claude/state", "agent-coord", ".claude"])
def test_nothing_outside_the_project_changes(tmp_path, which):
    root = str(tmp_path)
    proj = build(root)
    outside = link(proj, root, which)
    env = env_for(root, proj)
    before = snapshot(outside)
    changed, crashed = [], []
    answers = {}
    for what, event, stdin in _hooks(proj):
        p = subprocess.run(harness.hook_argv(event), input=stdin, env=env, cwd=proj,
                           capture_output=True, timeout=120)
        answers[what] = (p.returncode, p.stdout.decode(), p.stderr.decode())
        if "Traceback" in answers[what][2]:
            crashed.append((what, answers[what][2][-600:]))
        now = snapshot(outside)
        if now != before:
            diff = sorted(k for k in set(now) | set(before) if now.get(k) != before.get(k))
            changed.append((what, diff))
            before = now
    runs = [args for args_list in CLI.values() for args in args_list]
    p = subprocess.run([sys.executable, "-c", VERBS, str(outside)], input=json.dumps(runs),
                       text=True, env={**env, "PYTHONPATH": os.path.dirname(os.path.dirname(
                           os.path.dirname(os.path.abspath(__file__))))}, cwd=proj,
                       capture_output=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    for r in json.loads(p.stdout):
        what = " ".join(r["args"])
        answers[what] = (r["code"], r["stdout"], r["stderr"])
        if r["crash"] or "Traceback" in r["stderr"]:
            crashed.append((what, (r["crash"] or r["stderr"])[-600:]))
        if r["changed"]:
            changed.append((what, r["changed"]))
    assert snapshot(outside) == before or changed, "changed, but by none of the runs?"
    assert changed == [], f"written through the link {which}: {changed}"
    assert crashed == [], crashed
    assert set(answers) >= {" ".join(a) for a in runs}
    if which == "agent-coord":
        return
    # where the state directory is refused, it is refused with the guards' sentence
    state = os.path.join(proj, ".claude", "state")
    guards = answers[next(w for w in answers if w.startswith("hook pre-tool-use"))]
    reason = json.loads(guards[1])["hookSpecificOutput"]["permissionDecisionReason"]
    assert reason.startswith("gateway GW890: the breezing state cannot be read")
    sentence = reason.split("cannot decide: ", 1)[1].split(". Run the repair in your own")[0]
    assert "symbolic link" in sentence and state in sentence
    registered = answers[next(w for w in answers if w.startswith("hook post-tool-use"))]
    assert sentence in registered[1], registered
    for verb in ("breezing phase C", "state repair", "state clean", "spec start 541",
                 "breezing verify --timeout 5"):
        code, _out, err = answers[verb]
        assert code != 0 and sentence in err, (verb, code, err)
    compact = answers[next(w for w in answers if w.startswith("hook pre-compact"))]
    assert sentence in compact[1], compact


@pytest.mark.parametrize("which", [".claude/state", "agent-coord", ".claude"])
def test_every_store_writer_refuses_a_linked_directory(tmp_path, which):
    """The stores' own APIs (what the hooks and verbs call, and what issue 27's orchestration
    builds on) refuse the link the same way: each raises a StateError, nothing outside
    changes."""
    from gateway.orchestration import plans, signals
    from gateway.state import files, store

    root = str(tmp_path)
    proj = build(root)
    outside = link(proj, root, which)
    before = snapshot(outside)
    cs = coord.CoordStore(proj)
    writers = {
        "fast.update_session_roles": lambda: fast.update_session_roles(
            proj, lambda r: {**r, "x": fast.role_entry("reviewer")}),
        "fast.set_phase": lambda: fast.set_phase(proj, "C"),
        "fast.clear_phase": lambda: fast.clear_phase(proj),
        "files.update_active": lambda: files.update_active(proj, lambda a: a),
        "files.save_review_result": lambda: files.save_review_result(
            proj, files.load_review_result(os.path.join(root, "nowhere")) or
            files.ReviewResult(verdict="APPROVE")),
        "files.append_signal": lambda: files.append_signal(
            proj, {"signal": "reviewer_approved", "session_id": "S1"}),
        "files.append_timeline": lambda: files.append_timeline(
            proj, {"event": "teammate_idle", "teammate": "x"}),
        "signals.record_task_completed": lambda: signals.record_task_completed(
            proj, task_id="2"),
        "signals.record_teammate_idle": lambda: signals.record_teammate_idle(
            proj, teammate="y"),
        "signals.take_signals": lambda: signals.take_signals(proj, "S1"),
        "workflow.save_current": lambda: workflow.save_current(proj, "s-2"),
        "workflow.mark_started": lambda: workflow.open_store(proj).__enter__().mark_started(
            SPEC_ID, 1),
        "plans.mark_done": lambda: plans.mark_done(os.path.join(proj, "Plans.md"), ["2.1"]),
        "coord.create_session": lambda: cs.create_session(
            "x", session_id="planner-11111111-1c2d-4e5f-8a9b-0c1d2e3f4a5b"),
        "coord.add_task": lambda: cs.add_task(SID, 4),
        "coord.claim_next_task": lambda: cs.claim_next_task("w"),
        "coord.finish_run": lambda: cs.finish_run(RUN, "SUCCESS"),
        "coord.append_log": lambda: cs.append_log(RUN, "more\n"),
        "coord.start_run": lambda: cs.start_run("task-7682b3a8-2", "codex"),
    }
    coord_writers = {k for k in writers if k.startswith("coord.")}
    refused, changed = {}, []
    for name, fn in writers.items():
        try:
            fn()
        except (store.StateError, coord.CoordError) as e:
            refused[name] = str(e)
        except Exception as e:  # noqa: BLE001 - any other failure is a finding
            refused[name] = f"UNEXPECTED {type(e).__name__}: {e}"
        now = snapshot(outside)
        if now != before:
            changed.append(name)
            before = now
    assert changed == [], f"written through the link {which}: {changed}"
    expect = coord_writers if which == "agent-coord" else set(writers) - coord_writers
    assert expect <= set(refused), sorted(expect - set(refused))
    assert not any(v.startswith("UNEXPECTED") for v in refused.values()), refused
    assert all("symbolic link" in refused[k] for k in expect), \
        {k: refused[k] for k in expect if "symbolic link" not in refused[k]}
