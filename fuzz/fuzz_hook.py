"""Fuzz the hook entry point: gateway.hooks.runner.run(event, stdin=..., stdout=..., env=...)
for "permission-request" and "pre-tool-use", raw bytes in, as Claude Code would send them.

Input: the bytes are the hook's stdin, given to both events. `{PROJECT}` and `{CODEX}` stand
for two sample projects with a registered team (Lead session, an implementer owning src/**,
a reviewer): the first in standard mode, the second in codex mode. PermissionRequest finds
the project from the payload's cwd (no CLAUDE_PROJECT_DIR); PreToolUse runs with
CLAUDE_PROJECT_DIR set to the codex project when the input names it, else the first one.
State the guards write (role registrations) is restored after every input.

Oracles (any violation is a crash with the input saved):
  * run() returns 0 and raises nothing; nothing is written to stderr as an internal error,
    and no internal error hides in the verdict (GW902 / GW893, except "nests too deeply");
  * stdout is empty or exactly one JSON object on one line, of the event's documented shape;
    PreToolUse never prints an allow;
  * one input (both events) takes at most GATEWAY_FUZZ_SLOW_SECONDS;
  * PermissionRequest allows only a well-formed Bash payload whose command the independent
    oracle (fuzz/oracle.py) finds nothing dangerous in; a catastrophic command run first is
    denied by both events (for PermissionRequest when the payload's project is a sample one).

    python fuzz/fuzz_hook.py -dict=fuzz/dicts/hook.dict CORPUS_DIR [SEED_DIRS...]
"""

import io
import json
import os
import posixpath
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import common  # noqa: E402
import hook_payloads  # noqa: E402
import known_bugs  # noqa: E402
import oracle  # noqa: E402

ROOT = common.isolate("hook")
PROJECT = common.sample_project(ROOT, "project")
CODEX = common.sample_project(ROOT, "codex")
PROJECTS = (PROJECT, CODEX)

with common.instrumented():
    from gateway.decision import DENY
    from gateway.hooks import permission_request, pre_tool_use, runner

    hook_payloads.setup_team(PROJECT, "standard")
    hook_payloads.setup_team(CODEX, "codex")
    # one call of each event imports (instrumented) what a decision needs
    _warm = json.dumps({"tool_name": "Bash", "cwd": PROJECT, "session_id": hook_payloads.LEAD,
                        "tool_input": {"command": "git log | head -1 && cat a.txt"}}).encode()
    for _event in ("permission-request", "pre-tool-use"):
        runner.run(_event, stdin=io.BytesIO(_warm), stdout=io.StringIO(),
                   env=dict(os.environ, CLAUDE_PROJECT_DIR=PROJECT))

os.chdir(PROJECT)  # the client starts the hook in the project
ENV_PR = {k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"}
ENV_PT = {p: dict(ENV_PR, CLAUDE_PROJECT_DIR=p) for p in PROJECTS}
STATS = common.Stats("hook")


# --- the verdict behind the output ------------------------------------------------------------

LAST = {}


def _spy(module):
    decide = module.decide

    def spying(raw, env):
        result = decide(raw, env)
        LAST[module.EVENT] = result[0]
        return result

    module.decide = spying


_spy(permission_request)
_spy(pre_tool_use)


# --- state the guards write -------------------------------------------------------------------

def _state_dir(project):
    return os.path.join(project, ".claude", "state")


def _snapshot(project):
    out = {}
    for entry in os.scandir(_state_dir(project)):
        if entry.is_file(follow_symlinks=False):
            with open(entry.path, "rb") as fh:
                out[entry.name] = fh.read()
    return out


def _listing(project):
    return {(e.name, e.stat(follow_symlinks=False).st_size,
             e.stat(follow_symlinks=False).st_mtime_ns) for e in os.scandir(_state_dir(project))}


SNAPSHOT = {p: _snapshot(p) for p in PROJECTS}
LISTING = {p: _listing(p) for p in PROJECTS}


def _restore(project):
    if _listing(project) == LISTING[project]:
        return
    STATS.add("state_restored")
    state = _state_dir(project)
    for name in os.listdir(state):
        if name not in SNAPSHOT[project]:
            path = os.path.join(state, name)
            if os.path.isdir(path) and not os.path.islink(path):
                import shutil

                shutil.rmtree(path)
            else:
                os.unlink(path)
    for name, data in SNAPSHOT[project].items():
        with open(os.path.join(state, name), "wb") as fh:
            fh.write(data)
    LISTING[project] = _listing(project)


# --- running the hook -------------------------------------------------------------------------

def run_hook(event, raw, env):
    out = io.StringIO()
    err = io.StringIO()
    saved = sys.stderr
    sys.stderr = err
    LAST.clear()
    try:
        rc = runner.run(event, stdin=io.BytesIO(raw), stdout=out, env=env)
    finally:
        sys.stderr = saved
    if rc != 0:
        common.fail("exit status", f"{event}: run() returned {rc!r}")
    if "internal error" in err.getvalue() or "Traceback" in err.getvalue():
        common.fail("internal error", f"{event}: {err.getvalue().strip()}")
    return out.getvalue()


def _one_object(event, text):
    if text == "":
        return None
    if not text.endswith("\n") or text.count("\n") != 1:
        common.fail("output", f"{event}: not one line: {text!r}")
    try:
        obj = json.loads(text)
    except ValueError:
        common.fail("output", f"{event}: not JSON: {text!r}")
    if not isinstance(obj, dict) or set(obj) != {"hookSpecificOutput"}:
        common.fail("output", f"{event}: unexpected object {text!r}")
    return obj["hookSpecificOutput"]


def _hidden_error(event, command):
    v = LAST.get(event)
    if v is not None and v.code in ("GW902", "GW893") and "nests too deeply" not in v.message:
        bug = known_bugs.internal_error_bug(command, v.message)
        if bug is None or not common.is_open(bug):
            common.fail("hidden error", f"{event}: {v.code} {v.message}")
        STATS.add(f"known_bug:{bug}")
    return v


# --- what the payload is ----------------------------------------------------------------------

def _bash_command(payload):
    """The command of a well-formed Bash payload, else None."""
    if not isinstance(payload, dict) or payload.get("tool_name") != "Bash":
        return None
    ti = payload.get("tool_input")
    if not isinstance(ti, dict) or not isinstance(ti.get("command"), str):
        return None
    cwd = payload.get("cwd")
    if cwd is not None and not isinstance(cwd, str):
        return None
    return ti["command"]


def _where(payload):
    """(cwd, project) when the payload's cwd is a directory inside a sample project (the
    spec's rule: the project is the nearest .claude/ above the payload's cwd), else None."""
    cwd = payload.get("cwd")
    if not isinstance(cwd, str) or not cwd.startswith("/") or "\x00" in cwd:
        return None  # no decision is expected then (GW904), so nothing to compare
    norm = posixpath.normpath(cwd)
    for project in PROJECTS:
        if (norm == project or norm.startswith(project + "/")) and os.path.isdir(norm):
            return cwd, project
    return None


def _validator_code(command):
    """The validator's reason code for `command` in the sample project (for known bugs)."""
    from gateway.runtime import get_policy
    from gateway.validator.pipeline import validate

    return validate(command, PROJECT, PROJECT, get_policy(PROJECT)).code


def one_input(data: bytes):
    codex = b"{CODEX}" in data
    raw = data.replace(b"{PROJECT}", PROJECT.encode()).replace(b"{CODEX}", CODEX.encode())
    try:
        payload = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):
        payload = None
    command = _bash_command(payload)
    bad_cwd = known_bugs.payload_bug(payload)  # an open bug about the payload's cwd
    if bad_cwd:
        STATS.add(f"known_bug:{bad_cwd}")
    if command is not None:
        STATS.add("bash_payloads")
        where = _where(payload)
        if where is not None:
            claims = oracle.claims(command, where[0], where[1], common.is_open)
        else:
            claims = oracle.claims(command, PROJECT, PROJECT, common.is_open, paths=False)
        claims = common.confirm_deny(claims.without(
            lambda k: k in oracle.JUDGED_EXPANSIONS or known_bugs.claim_bug(k)), command, STATS)
        lost = known_bugs.lost_deny_bug(command, _validator_code(command)) if claims.deny \
            else None
        if lost:
            STATS.add(f"known_bug:{lost}")
            claims.no_allow.extend(claims.deny)  # still never allowed, but not denied
            claims.deny = []
    else:
        where, claims = None, None

    # PermissionRequest
    out = run_hook("permission-request", raw, ENV_PR)
    v = LAST.get("PermissionRequest")
    if not bad_cwd:
        _hidden_error("PermissionRequest", command)
    hso = _one_object("permission-request", out)
    behavior = None
    if hso is not None:
        dec = hso.get("decision")
        if hso.get("hookEventName") != "PermissionRequest" or set(hso) != {"hookEventName",
                                                                            "decision"} \
                or not isinstance(dec, dict):
            common.fail("output", f"permission-request: {out!r}")
        behavior = dec.get("behavior")
        if behavior == "allow" and dec != {"behavior": "allow"}:
            common.fail("output", f"permission-request: {out!r}")
        if behavior == "deny" and (set(dec) != {"behavior", "message"}
                                   or not isinstance(dec["message"], str)):
            common.fail("output", f"permission-request: {out!r}")
        if behavior not in ("allow", "deny"):
            common.fail("output", f"permission-request: {out!r}")
        STATS.add(f"pr_{behavior}")
    if behavior == "allow":
        if command is None:
            common.fail("allowed", f"permission-request allowed a payload that is not a "
                        f"well-formed Bash call: {raw[:300]!r}")
        if claims:
            common.fail("allowed", f"permission-request allowed {command!r}: oracle: "
                        f"{claims.describe()}; verdict {v!r}")
    if claims is not None and claims.deny and where is not None and behavior != "deny":
        common.fail("not denied", f"permission-request: {command!r}: oracle: "
                    f"{claims.describe()}; verdict {v!r}")

    # PreToolUse
    project = CODEX if codex else PROJECT
    out = run_hook("pre-tool-use", raw, ENV_PT[project])
    _restore(project)
    v = LAST.get("PreToolUse") if bad_cwd else _hidden_error("PreToolUse", command)
    hso = _one_object("pre-tool-use", out)
    pt = None
    if hso is not None:
        pt = hso.get("permissionDecision")
        if hso != {"hookEventName": "PreToolUse", "permissionDecision": pt,
                   "permissionDecisionReason": hso.get("permissionDecisionReason")} \
                or not isinstance(hso.get("permissionDecisionReason"), str) \
                or pt not in ("deny", "ask", "allow"):
            common.fail("output", f"pre-tool-use: {out!r}")
        STATS.add(f"pt_{pt}")
    elif v is not None and v.decision is DENY:
        common.fail("output", f"pre-tool-use: verdict deny but printed nothing: {v!r}")
    if pt == "allow":  # the early allow: only what the validator allows
        if command is None:
            common.fail("allowed", f"pre-tool-use allowed a payload that is not a "
                        f"well-formed Bash call: {raw[:300]!r}")
        if claims:
            common.fail("allowed", f"pre-tool-use allowed {command!r}: oracle: "
                        f"{claims.describe()}; verdict {v!r}")
    if claims is not None and claims.deny and pt != "deny":
        common.fail("not denied", f"pre-tool-use: {command!r}: oracle: {claims.describe()}; "
                    f"verdict {v!r}")


if __name__ == "__main__":
    common.main(STATS, one_input, os.path.join(common.FUZZ_DIR, "dicts", "hook.dict"))
