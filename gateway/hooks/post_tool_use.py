"""The PostToolUse hook (Write, Edit, MultiEdit), dispatched by what was written:

* **a role marker Write** → the role is registered. PreToolUse only checks a registration
  (and refuses one that must be refused): the client may still refuse the Write itself (it
  treats .claude/ as sensitive) or the human may answer No, so recording it there would
  register a role for a file that was never written (reference/claude-code-hooks.md §15).
  PostToolUse fires once the Write has completed; the registration is recorded here, with
  every check run again on the state as it is now.
* **a spec file** (``.cc-craft-kit/specs/*.md``, ``specs/*.md``) whose edit checked a task
  (``- [ ]`` → ``- [x]``) → the task's done step is recorded as due in the workflow state
  (seed 002, gateway.orchestration.specsync) and the model is told to run it.
* anything else → nothing.

Output: nothing when nothing was registered or recorded and nothing went wrong; otherwise
`additionalContext` for the model (a role that could not be registered: why -- PostToolUse
cannot undo the Write; a task checked: its done step is due).
"""

import json

from gateway.decision import ASK, DENY, Verdict
from gateway.hooks import payload as pl

EVENT = "PostToolUse"
#: A Write registers a role (an Edit of a marker is refused by PreToolUse); a Write, Edit or
#: MultiEdit of a spec may check a task.
MATCHER = "Write|Edit|MultiEdit|Bash"
ON_FAILURE_BLOCK = False  # a completed call cannot be blocked
SPEC_TOOLS = ("Write", "Edit", "MultiEdit")


def decide(raw: bytes, env) -> tuple:
    """(verdict, payload or None). Never raises."""
    try:
        payload = pl.read(raw)
    except pl.PayloadError as exc:
        # whether it was a role marker cannot be told: nothing is registered, nothing said
        # to the model (most Writes are not markers); the audit log keeps the reason
        return Verdict(DENY, "guard:input", "GW892", "", f"the hook input cannot be read "
                       f"({exc}); no role was registered", command=SILENT), None
    tool = payload.get("tool_name")
    if tool == "Bash":
        return _bash(payload, env), payload
    if tool != "Write":
        if tool in SPEC_TOOLS and _completed(payload.get("tool_response")):
            return _spec_sync(payload, env) or _nothing(), payload
        return _nothing(), payload
    if not _completed(payload.get("tool_response")):
        if not _marker_name(payload):
            return _nothing("the Write did not complete"), payload
        return Verdict(DENY, "guard:register", "GW806", "", "the Write did not complete; no "
                       "role was registered"), payload
    try:
        from gateway import runtime
        from gateway.guards.engine import record_registration

        verdict = record_registration(payload, env, judge=runtime)
    except Exception as exc:  # record_registration never raises; the last line of defence
        verdict = Verdict(DENY, "guard:error", "GW893", "", f"{type(exc).__name__}: {exc}")
    if verdict is None:
        return (_review(payload, env) or _spec_sync(payload, env)
                or _nothing("not a role marker Write")), payload
    return verdict, payload


def _review(payload, env):
    """A Write of .claude/state/review-result.json (the Reviewer's verdict, seed 001): the
    observer applies it -- a REQUEST_CHANGES counts a retake, past the limit the Lead
    escalates (gateway.orchestration.review.observe) -- and the model is told the next step.
    None when the Write is not that file."""
    ti = payload.get("tool_input")
    path = ti.get("file_path") if isinstance(ti, dict) else None
    if not isinstance(path, str) or not path.endswith("review-result.json"):
        return None
    try:
        from gateway.hooks import _lifecycle as lc

        project = lc.project(payload, env)
        if project is None:
            return None
        import os

        from gateway.state.layout import layout

        lay = layout(project)
        cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else project
        if os.path.normpath(os.path.join(cwd, path)) != lay.review_result or \
                not os.path.lexists(lay.active):
            return None
        from gateway.orchestration import review
        from gateway.state import files, store

        try:
            result = files.load_review_result(lay)
            active = files.load_active(lay)
        except store.StateError as exc:
            return Verdict(ASK, "review", "GW953", "", f"the verdict was not recorded: {exc}")
        if result is None or active is None:
            return None
        if result.session_id not in (None, active.session_id):
            return Verdict(ASK, "review", "GW953", "", f"review-result.json names session "
                           f"{store.safe_text(result.session_id, 60)}, not the running one "
                           f"({store.safe_text(active.session_id, 60)}): not counted. Record "
                           f"the verdict with `gateway breezing review VERDICT`")
        obs = review.observe(lay, result)
    except Exception as exc:  # never let the observer break the hook
        return Verdict(ASK, "review", "GW953", "", f"the verdict was not recorded "
                       f"({type(exc).__name__}: {str(exc)[:200]})")
    counted = "" if obs.new else " (recorded already: counted once)"
    return Verdict(ASK, "review", "GW952", "", f"verdict {obs.verdict} recorded: {obs.step}; "
                   f"retakes {obs.retake_count} of {obs.max_retakes}{counted}. Next: {obs.next}")


#: What `gateway breezing register` prints first when it accepted the request: the hook
#: records a registration only for a call whose output says so (the command ran and agreed).
REGISTERED_LINE = "gateway: registration requested"


def _bash(payload, env):
    """A Bash call that ran: a registration command registers the caller; a Lead's breezing
    step records the Lead's session (gateway.guards.engine.record_command). One substring
    test for every other command."""
    ti = payload.get("tool_input")
    command = ti.get("command") if isinstance(ti, dict) else None
    if not isinstance(command, str) or "gateway" not in command:
        return _nothing("not a gateway command")
    response = payload.get("tool_response")
    if not _completed(response):
        return _nothing("the command did not complete")
    if isinstance(response, dict) and response.get("interrupted") is True:
        return _nothing("the command was interrupted")
    out = response.get("stdout") if isinstance(response, dict) else None
    try:
        from gateway import runtime
        from gateway.guards.engine import record_command

        if "register" in command and isinstance(out, str) and REGISTERED_LINE not in out:
            return _nothing("the registration command did not accept the request")
        verdict = record_command(payload, env, judge=runtime)
    except Exception as exc:  # record_command never raises; the last line of defence
        verdict = Verdict(DENY, "guard:error", "GW893", "", f"{type(exc).__name__}: {exc}")
    return verdict or _nothing("not a workflow command")


def _marker_name(payload) -> bool:
    """Whether the Write's file is named like a role marker (only then does a failed Write
    deserve a word to the model about roles)."""
    import posixpath

    from gateway.state.layout import is_role_marker_name

    ti = payload.get("tool_input")
    path = ti.get("file_path") if isinstance(ti, dict) else None
    return isinstance(path, str) and is_role_marker_name(posixpath.basename(path))


def _nothing(message="not a role marker or spec write"):
    return Verdict(DENY, "guard", "GW800", "", message)


def _spec_sync(payload, env):
    """The spec task sync's verdict, or None when the call is not a spec edit that checked a
    task (the common case: one path comparison)."""
    try:
        ti = payload.get("tool_input")
        file_path = ti.get("file_path") if isinstance(ti, dict) else None
        if not isinstance(file_path, str) or not file_path.endswith(".md"):
            return None
        from gateway.hooks import _lifecycle as lc

        project = lc.project(payload, env)
        if project is None:
            return None
        from gateway.orchestration import specsync

        cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else None
        path = specsync.spec_file(project, file_path, cwd)
        if path is None:
            return None
        candidates = specsync.detect(payload.get("tool_name"), ti, payload.get("tool_response"))
        if not candidates:
            return None
        sid = payload.get("session_id") if isinstance(payload.get("session_id"), str) else None
        done = specsync.record(project, path, candidates, sid[:256] if sid else None)
    except Exception as exc:  # never let the sync break the hook
        return Verdict(ASK, "spec-sync", "GW951", "", f"the spec task sync failed "
                       f"({type(exc).__name__}: {str(exc)[:200]}); check the spec's done "
                       f"steps with `gateway spec status`")
    if done.problem:
        return Verdict(ASK, "spec-sync", "GW951", "", f"{done.problem}; check the spec's done "
                       f"steps with `gateway spec status`")
    if not done.tasks:
        return None
    return Verdict(ASK, "spec-sync", "GW950", "", _due_text(done))


def _due_text(done) -> str:
    from gateway.state.store import safe_text

    parts = [f"task {t.number} «{safe_text(t.title, 100)}» (issue #{t.issue})"
             for t in done.tasks]
    run = (f"`gateway spec done {done.tasks[0].issue}`" if len(done.tasks) == 1 else
           "`gateway spec done N` for each of " + ", ".join(f"#{t.issue}" for t in done.tasks))
    text = (f"spec «{safe_text(done.spec.title, 100)}»: {', '.join(parts)} checked; its done "
            f"step (the issue goes to Done) is now due: run {run}")
    n = done.next_task
    if n is not None:
        nxt = (f"`gateway spec start {n.issue}`" if n.issue is not None
               else f"`gateway spec start --task {n.number}`")
        text += f"; then task {n.number} «{safe_text(n.title, 100)}» is next ({nxt})"
    else:
        text += "; every task of the spec is then checked"
    return text + "."


def _completed(response) -> bool:
    """A tool_response that does not say the Write failed. PostToolUse fires for completed
    calls; a response carrying an error or success: false is taken at its word."""
    if isinstance(response, dict):
        if response.get("success") is False or response.get("error"):
            return False
        if response.get("is_error") is True or response.get("isError") is True:
            return False
    return True


SILENT = "(PostToolUse input that cannot be read)"


def render(verdict) -> str:
    if verdict.phase in ("spec-sync", "review"):
        text = f"gateway {verdict.code}: {verdict.message}"
        return json.dumps({"hookSpecificOutput": {"hookEventName": EVENT,
                                                  "additionalContext": text}},
                          ensure_ascii=True)
    if verdict.code == "GW800" or verdict.decision is not DENY or verdict.command == SILENT:
        return ""
    what = "the registration command ran" if verdict.command and "register" in str(
        verdict.command) and "gateway" in str(verdict.command) else "the role marker was written"
    text = (f"gateway {verdict.code}: {what} but no role was registered: {verdict.message}")
    return json.dumps({"hookSpecificOutput": {"hookEventName": EVENT,
                                              "additionalContext": text}}, ensure_ascii=True)
