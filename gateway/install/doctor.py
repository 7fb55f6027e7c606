"""The checks behind `gateway doctor`: are the hooks registered, does the registered command
run and answer, do the rules load, which Claude Code is this.

Each check is a Check with a status (ok, warn, fail, info), one line for the human and, for
problems, the fix. Running a registered hook is a real end-to-end probe: the command string
from the settings file goes through /bin/sh with a harmless payload (`git status` in the
project) and its answer is parsed as Claude Code would parse it.
"""

import json
import os
import re
import shutil
import subprocess
from urllib.parse import urlparse

from gateway.install import InstallError, entries, jsonfile, merge, ops
from gateway.install.check import Check

MANAGED = ("/etc/claude-code/managed-settings.json",
           "/Library/Application Support/ClaudeCode/managed-settings.json")


class Registration:
    __slots__ = ("scope", "path", "event", "name", "matcher", "handler")

    def __init__(self, scope, path, event, name, matcher, handler):
        self.scope, self.path, self.event, self.name = scope, path, event, name
        self.matcher, self.handler = matcher, handler


def settings_files(project, env=None) -> list:
    """[(scope, path)] of every settings file Claude Code reads for `project`."""
    out = [("managed", p) for p in MANAGED]
    out.append(("user", ops.settings_path("user", project, env)))
    out.append(("project", ops.settings_path("project", project, env)))
    out.append(("local", ops.settings_path("local", project, env)))
    return out


def run(project, env=None, probe=True, claude=None) -> list:
    env = dict(os.environ if env is None else env)
    checks = []
    try:
        specs = entries.hook_specs()
        checks.append(Check("ok", "hooks implemented: " + ", ".join(
            f"{s.name} ({s.event}{', ' + s.matcher if s.matcher else ''})" for s in specs)))
    except InstallError as exc:
        checks.append(Check("fail", f"a hook module is broken: {exc}", "reinstall gateway"))
        specs = []
    from gateway import settings as settings_mod

    settings_errors = settings_mod.load(project, env).errors
    unusable = []
    regs = _registrations(project, env, checks, unusable, settings_errors)
    checks.extend(_coverage(specs, regs, unusable))
    kinds = _kinds(regs)
    if kinds is not None:
        checks.append(kinds)
        checks.extend(_http_through_sandbox(regs, project, env))
    seen = set()
    ran = []
    for reg in regs:
        key = json.dumps(reg.handler, sort_keys=True)
        if key in seen:
            continue
        seen.add(key)
        ran.append((reg, _runs(reg, project, env, probe)))
    checks.extend(_grouped(ran))
    checks.extend(_rules(project, env, unusable, settings_errors))
    checks.extend(_sandbox(project, env, probe, claude))
    checks.append(_audit(env))
    checks.append(_claude_version(claude, env))
    return checks


def _short(path) -> str:
    home = os.path.expanduser("~")
    return "~" + path[len(home):] if path.startswith(home + "/") else path


def _registrations(project, env, checks, unusable, settings_errors=()) -> list:
    """The gateway's handlers in every settings file; the files that cannot be read are
    reported (once) and appended to `unusable`."""
    regs = []
    for scope, path in settings_files(project, env):
        if not os.path.exists(path):
            continue
        try:
            loaded = jsonfile.load(path)
        except InstallError as exc:
            unusable.append(path)
            asks = any(e.startswith(f"{path}:") for e in settings_errors)
            checks.append(Check("fail", f"{scope} settings file cannot be used: {exc.problem}"
                                + (". Claude Code ignores it, and the gateway asks for every "
                                   "command (GW903) because it cannot honour its permission "
                                   "rules" if asks else ""),
                                f"fix {path} (or move it away), then run gateway doctor again"))
            continue
        if loaded.data.get("disableAllHooks") is True:
            checks.append(Check("fail", f"{_short(path)} sets disableAllHooks: no hook runs, "
                                "the gateway included", f"remove disableAllHooks from {path}"))
        for event, gi, _hi, name, h in merge.owned(loaded.data):
            g = loaded.data["hooks"][event][gi]
            regs.append(Registration(scope, path, event, name, g.get("matcher"), h))
    return regs


def _coverage(specs, regs, unusable=()) -> list:
    out = []
    names = {s.name for s in specs}
    for spec in specs:
        mine = [r for r in regs if r.name == spec.name]
        right = [r for r in mine if r.event == spec.event]
        for r in mine:
            if r.event != spec.event:
                out.append(Check("fail", f"{spec.name} is registered under {r.event} in "
                                 f"{_short(r.path)}; it answers {spec.event} only",
                                 f"gateway install --scope {r.scope}"))
        if not right:
            if unusable:
                out.append(Check("fail", f"{spec.event} ({spec.name}) is not registered in any "
                                 "settings file that can be used",
                                 f"fix {unusable[0]} first; if it does not register the "
                                 "gateway either, then gateway install"))
            else:
                out.append(Check("fail", f"{spec.event} ({spec.name}) is not registered in "
                                 "any settings file", "gateway install"))
            continue
        for r in right:
            where = f"{r.scope} {_short(r.path)}"
            target = entries.display_command(r.handler)
            is_http = r.handler.get("type") == "http"
            kind = "http, answered by `gateway serve`" if is_http else "command"
            out.append(Check("ok", f"{spec.event} registered in {where} ({kind}): {target}"))
            parsed = entries.parse_command(r.handler.get("command"))
            early = parsed.early_allow if parsed is not None else None
            if is_http:
                from gateway.server import EARLY_ALLOW_HEADER

                headers = r.handler.get("headers")
                early = not (isinstance(headers, dict)
                             and str(headers.get(EARLY_ALLOW_HEADER, "")).strip() == "0")
            if spec.event == "PreToolUse" and early is not None:
                out.append(Check("info", "early allow is " + (
                    "on: PreToolUse allows what the validator allows (gateway install "
                    "--no-early-allow turns it off)" if early else
                    "off (GATEWAY_EARLY_ALLOW=0): only PermissionRequest allows; in auto "
                    "mode and -p the gateway allows nothing")))
            if spec.matcher is None:
                other = r.matcher not in (None, "*", "")
            else:
                other = r.matcher != spec.matcher
            if other:
                out.append(Check("warn", f"{spec.event} in {where} has matcher {r.matcher!r}; "
                                 f"the gateway registers {spec.matcher!r}",
                                 f"gateway install --scope {r.scope}"))
            if spec.on_failure_block and r.handler.get("onFailure") != "block":
                if is_http:
                    out.append(Check("fail", f"{spec.event} in {where} is an http handler "
                                     "without \"onFailure\": \"block\": whenever `gateway "
                                     "serve` is down, every call goes through unguarded",
                                     f"gateway install --scope {r.scope} --http"))
                else:
                    out.append(Check("warn", f"{spec.event} in {where} lacks \"onFailure\": "
                                     "\"block\": a crash or timeout lets the call through",
                                     f"gateway install --scope {r.scope}"))
        commands = {json.dumps(r.handler, sort_keys=True) for r in right}
        if len(commands) > 1:
            out.append(Check("warn", f"{spec.event} is registered {len(right)} times with "
                             "different handlers (" + ", ".join(r.scope for r in right)
                             + "); each runs on every call",
                             "gateway uninstall --scope SCOPE for the ones you do not want"))
    for r in regs:
        if r.name not in names:
            out.append(Check("warn", f"{_short(r.path)} registers `{r.name}`, which this "
                             "gateway does not implement", f"gateway install --scope {r.scope} "
                             "(removes it)"))
    return out


def _probe_payload(reg, project) -> dict:
    payload = {"session_id": "gateway-doctor", "transcript_path": "", "cwd": project,
               "hook_event_name": reg.event, "permission_mode": "default"}
    if reg.event in ("PreToolUse", "PermissionRequest", "PostToolUse"):
        tool = "Bash"
        if reg.matcher and reg.matcher not in ("*", "") and not re.fullmatch(reg.matcher, "Bash"):
            tool = re.split(r"[|()^$]", reg.matcher.strip("^$()"))[0] or "Bash"
        payload["tool_name"] = tool
        if tool == "Bash":
            payload["tool_input"] = {"command": "git status", "description": "gateway doctor"}
        else:
            payload["tool_input"] = {"file_path": os.path.join(project, "gateway-doctor.txt"),
                                     "content": ""}
    return payload


def _grouped(ran) -> list:
    """The handlers' checks, one line per distinct finding: when the hooks' environment is
    gone every handler fails with the same sentence, said once with the hooks it concerns
    (issue 25: the same FAIL eight times)."""
    groups = {}
    for reg, check in ran:
        groups.setdefault((check.status, check.title, check.fix), []).append(reg.event)
    out = []
    for (status, title, fix), events in groups.items():
        if len(events) > 1:
            title = f"{title} [the same for {len(events)} hooks: {', '.join(events)}]"
        out.append(Check(status, title, fix))
    return out


def _runs(reg, project, env, probe) -> Check:
    h = reg.handler
    if h.get("type") == "http":
        return _http_answers(reg, project, env, probe)
    program = entries.program_of(h)
    cmd = h.get("command", "")
    parsed = entries.parse_command(cmd)
    shown = entries.display_command(h) or cmd
    if not program or not os.path.isabs(program):
        return Check("warn", f"`{shown}` does not name the gateway by an absolute path; it "
                     "depends on the agent's PATH", f"gateway install --scope {reg.scope}")
    if not (os.path.isfile(program) and os.access(program, os.X_OK)):
        what = "the Python of the lean launch line" if parsed and parsed.kind == "lean" \
            else program
        return Check("fail", f"{program} (registered in {_short(reg.path)}; {what}) does not "
                     "exist or is not executable: the hook cannot run (was its virtual "
                     "environment removed?)",
                     f"reinstall gateway, then gateway install --scope {reg.scope}")
    if parsed is not None and parsed.kind == "lean":
        gone = [p for p in parsed.paths if not os.path.isabs(p) or not os.path.isdir(p)]
        if gone or not parsed.paths:
            where = gone[0] if gone else "(none)"
            return Check("fail", f"the hook registered in {_short(reg.path)} runs the "
                         f"gateway from {where}, which is gone or not an absolute directory: "
                         "the hook cannot start (was its virtual environment removed or "
                         "moved?)", f"reinstall gateway, then gateway install --scope "
                         f"{reg.scope}")
    if not probe:
        return Check("ok", f"{program} exists" + (" and so do the gateway's directories"
                                                  if parsed and parsed.kind == "lean" else ""))
    run_env = dict(env, GATEWAY_AUDIT_LOG="off", CLAUDE_PROJECT_DIR=project)
    cwd = project if os.path.isdir(project) else None
    timeout = float(h.get("timeout") or 30)
    # 1. it starts: input that is not JSON gets exit 0 and no decision (or a guard's deny)
    started = _run_hook(cmd, shown, b"gateway doctor: not JSON", run_env, cwd, timeout)
    if isinstance(started, Check):
        return started
    p = started
    if p.returncode != 0:
        err = p.stderr.decode("utf-8", "replace").strip()
        return Check("fail", f"`{shown}` does not start: input that is not JSON made it exit "
                     f"{p.returncode}: {err[-300:]}", "reinstall gateway, then gateway install")
    bad = _bad_output(reg, shown, p.stdout)
    if bad is not None:
        return bad
    # 2. it answers a harmless sample call
    payload = _probe_payload(reg, project)
    p = _run_hook(cmd, shown, json.dumps(payload).encode(), run_env, cwd, timeout)
    if isinstance(p, Check):
        return p
    out = p.stdout.decode("utf-8", "replace").strip()
    err = p.stderr.decode("utf-8", "replace").strip()
    if p.returncode != 0:
        return Check("fail", f"`{shown}` exited {p.returncode}: {err[-300:]}",
                     "reinstall gateway, then gateway install")
    if not out:
        what = f"no decision for `{payload['tool_input']['command']}`" \
            if "tool_input" in payload and "command" in payload["tool_input"] else "no output"
        return Check("ok", f"{reg.event} hook runs: {what}" + (f" ({err[-200:]})" if err else ""))
    bad = _bad_output(reg, shown, p.stdout)
    if bad is not None:
        return bad
    obj = json.loads(out)
    spec_out = obj.get("hookSpecificOutput") if isinstance(obj, dict) else None
    decision = ""
    if isinstance(spec_out, dict):
        d = spec_out.get("decision")
        decision = (d.get("behavior") if isinstance(d, dict) else None) \
            or spec_out.get("permissionDecision") or ""
    probe_cmd = payload.get("tool_input", {}).get("command")
    said = f"{decision or 'an answer'}" + (f" for `{probe_cmd}`" if probe_cmd else "")
    return Check("ok", f"{reg.event} hook runs: {said}")


def _run_hook(cmd, shown, data, env, cwd, timeout):
    """The finished process of `cmd` run through /bin/sh, as Claude Code runs a command
    hook, with `data` on stdin; or a failed Check when it cannot be run."""
    try:
        return subprocess.run(["/bin/sh", "-c", cmd], input=data, capture_output=True,
                              timeout=timeout, cwd=cwd, env=env)
    except subprocess.TimeoutExpired:
        return Check("fail", f"`{shown}` did not answer within {timeout:g} s",
                     "run it by hand with a payload on stdin to see why")
    except OSError as exc:
        return Check("fail", f"`{shown}` cannot start: {exc}", "reinstall gateway")


def _bad_output(reg, shown, stdout):
    """A failed Check when the hook printed something Claude Code cannot use, else None."""
    out = stdout.decode("utf-8", "replace").strip()
    if not out:
        return None
    try:
        obj = json.loads(out)
    except ValueError:
        return Check("fail", f"`{shown}` printed something that is not JSON: {out[:200]!r}",
                     "a shell profile printing text breaks hooks; check ~/.bashrc")
    spec_out = obj.get("hookSpecificOutput") if isinstance(obj, dict) else None
    if isinstance(spec_out, dict) and spec_out.get("hookEventName") not in (None, reg.event):
        return Check("fail", f"`{shown}` answered for {spec_out.get('hookEventName')}, not "
                     f"{reg.event}: Claude Code ignores that", f"gateway install --scope {reg.scope}")
    return None


def _kinds(regs):
    """One line saying which events go over http and which start a process, when any is
    http (None otherwise)."""
    http = sorted({r.event for r in regs if r.handler.get("type") == "http"})
    if not http:
        return None
    command = sorted({r.event for r in regs if r.handler.get("type", "command") == "command"})
    return Check("info", "http handlers (answered by `gateway serve`): " + ", ".join(http)
                 + ("; command handlers (a process per call): " + ", ".join(command)
                    if command else ""))


def _http_through_sandbox(regs, project, env) -> list:
    """Claude Code sends http hooks through its sandbox's network proxy, which refuses (403)
    a host:port no settings file allows: then every guarded call is blocked."""
    enabled, allowed = False, set()
    for _scope, path in settings_files(project, env):
        try:
            data = jsonfile.load(path).data if os.path.isfile(path) else {}
        except InstallError:
            continue
        sb = data.get("sandbox") if isinstance(data, dict) else None
        if not isinstance(sb, dict):
            continue
        enabled = enabled or sb.get("enabled") is True
        net = sb.get("network")
        domains = net.get("allowedDomains") if isinstance(net, dict) else None
        if isinstance(domains, list):
            allowed.update(d for d in domains if isinstance(d, str))
    if not enabled:
        return []
    refused = {}
    for r in regs:
        if r.handler.get("type") != "http":
            continue
        u = urlparse(r.handler.get("url", ""))
        where = f"{u.hostname}:{u.port or 80}"
        if where not in allowed and u.hostname not in allowed:
            refused.setdefault(where, []).append(r.event)
    return [Check("fail", f"the sandbox is on and does not allow {where}: Claude Code sends "
                  f"the http hooks ({', '.join(sorted(set(events)))}) through the sandbox's "
                  "proxy, which refuses them, so they fail (for PreToolUse: every call is "
                  "blocked)", "gateway install --http again (it adds "
                  f"{where} to sandbox.network.allowedDomains)")
            for where, events in sorted(refused.items())]


def _http_headers(h, env) -> dict:
    """The handler's headers as Claude Code sends them: ${VAR} expanded from `env` for the
    variables listed in allowedEnvVars (others become empty, as the client does)."""
    allowed = h.get("allowedEnvVars") if isinstance(h.get("allowedEnvVars"), list) else []
    out = {}
    headers = h.get("headers") if isinstance(h.get("headers"), dict) else {}
    for key, value in headers.items():
        if not isinstance(key, str) or not isinstance(value, str):
            continue
        out[key] = re.sub(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?",
                          lambda m: env.get(m.group(1), "") if m.group(1) in allowed else "",
                          value)
    return out


def _http_answers(reg, project, env, probe) -> Check:
    """Does `gateway serve` answer this http handler (with the harmless sample call, as
    Claude Code would send it)? A server that is down blocks every call of a handler with
    onFailure: block (the guards); for the others it is the dialog, or nothing."""
    import http.client

    h = reg.handler
    url = h.get("url", "")
    u = urlparse(url)
    blocks = h.get("onFailure") == "block"
    down = ("every call is blocked" if blocks else
            "Claude Code shows its own dialog" if reg.event == "PermissionRequest" else
            "this hook does nothing")
    if u.scheme != "http" or u.hostname not in ("127.0.0.1", "localhost", "::1"):
        return Check("fail", f"http hook {url}: not gateway serve's loopback address",
                     f"gateway install --scope {reg.scope} --http")
    payload = _probe_payload(reg, project) if probe else None
    body = json.dumps(payload).encode() if payload else b""
    headers = dict(_http_headers(h, env), **{"Content-Type": "application/json",
                                             "Content-Length": str(len(body))})
    try:
        conn = http.client.HTTPConnection(u.hostname, u.port or 80,
                                          timeout=float(h.get("timeout") or 10))
        try:
            if payload is None:
                conn.request("GET", "/health")
            else:
                conn.request("POST", u.path, body=body, headers=headers)
            resp = conn.getresponse()
            status, text = resp.status, resp.read(65536).decode("utf-8", "replace").strip()
        finally:
            conn.close()
    except OSError:
        return Check("fail" if blocks else "warn",
                     f"{reg.event} over http ({url}): `gateway serve` is not answering, so "
                     f"{down} until it runs", "start `gateway serve` (before Claude Code)")
    if status == 401:
        return Check("fail", f"{reg.event} over http ({url}): the server refuses the token "
                     f"this handler sends (401), so {down}",
                     "export GATEWAY_SERVE_TOKEN as `gateway install` said"
                     if "allowedEnvVars" in h else f"gateway install --scope {reg.scope} --http")
    if status == 503:
        return Check("fail", f"{reg.event} over http ({url}): `gateway serve` refuses because "
                     f"the gateway changed under it, so {down}", "restart `gateway serve`")
    if status != 200:
        return Check("fail", f"{reg.event} over http ({url}): answered HTTP {status} (is it "
                     f"`gateway serve`?), so {down}", "start `gateway serve` on that port")
    if payload is None:
        return Check("ok", f"{reg.event} over http: `gateway serve` answers at {url}")
    decision = ""
    try:
        obj = json.loads(text or "{}")
    except ValueError:
        return Check("fail", f"{reg.event} over http ({url}): the answer is not JSON: "
                     f"{text[:200]!r}", "start `gateway serve` on that port")
    spec_out = obj.get("hookSpecificOutput") if isinstance(obj, dict) else None
    if isinstance(spec_out, dict):
        if spec_out.get("hookEventName") not in (None, reg.event):
            return Check("fail", f"{reg.event} over http ({url}): answered for "
                         f"{spec_out.get('hookEventName')}: Claude Code ignores that",
                         f"gateway install --scope {reg.scope} --http")
        d = spec_out.get("decision")
        decision = (d.get("behavior") if isinstance(d, dict) else None) \
            or spec_out.get("permissionDecision") or ""
    probe_cmd = (payload.get("tool_input") or {}).get("command")
    said = (decision or "no decision") + (f" for `{probe_cmd}`" if probe_cmd else "")
    return Check("ok", f"{reg.event} over http: `gateway serve` answers ({said})")


def _rules(project, env, unusable=(), settings_errors=()) -> list:
    from gateway.policy.errors import PolicyError
    from gateway.policy.merge import merge
    from gateway.validator.examples import check

    out = []
    try:
        m = merge(project, env)
        check(m)
        layers = ", ".join(f"{layer} {_short(p)}" for layer, p in m.sources
                           if layer != "builtin")
        out.append(Check("ok", "rules load" + (f" (with {layers})" if layers else
                                              " (built-in rules only)")))
    except PolicyError as exc:
        first = "; ".join(exc.errors[:3]) + (f" (and {len(exc.errors) - 3} more)"
                                             if len(exc.errors) > 3 else "")
        out.append(Check("fail", f"the rules cannot be loaded, so every call asks (GW891, "
                         f"GW901) until they are fixed: {first}",
                         "fix the file(s) named; `gateway rules validate` re-checks them"))
    errors = [e for e in settings_errors if not any(e.startswith(f"{p}:") for p in unusable)]
    if errors:
        out.append(Check("fail", f"a settings file cannot be read, so every command asks "
                         f"(GW903): {errors[0]}", "fix that settings file"))
    return out


def _sandbox(project, env, probe, claude) -> list:
    """The OS floor: the client's Bash sandbox (gateway.sandbox.doctor)."""
    from gateway.sandbox import doctor as sandbox_doctor

    policy = None
    try:
        from gateway.runtime import get_policy

        policy = get_policy(project)
    except Exception:  # the rules check above reports it
        pass
    try:
        return sandbox_doctor.checks(project, env, probe=probe, claude=claude, policy=policy)
    except Exception as exc:  # a broken check must not hide the others
        return [Check("fail", f"the sandbox checks failed: {type(exc).__name__}: {exc}",
                      "report this")]


def _audit(env) -> Check:
    from gateway import audit

    path = audit.log_path(env)
    if path is None:
        return Check("info", "audit log is off (GATEWAY_AUDIT_LOG=off): `gateway log` and "
                     "`gateway stats` have nothing to read")
    try:
        with open(path, "rb") as fh:
            n = sum(1 for _ in fh)
        return Check("info", f"audit log: {_short(path)} ({n} decisions)")
    except OSError:
        return Check("info", f"audit log: {_short(path)} (no decisions recorded yet)")


def claude_version(claude=None, env=None):
    """(path, version or None, error) of the `claude` on PATH (or the one given)."""
    exe = claude or shutil.which("claude", path=(env or os.environ).get("PATH"))
    if not exe:
        return None, None, "not found on PATH"
    try:
        p = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30,
                           stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return exe, None, f"`{exe} --version` failed: {exc}"
    m = re.search(r"(\d+\.\d+\.\d+)", p.stdout or "")
    return exe, (m.group(1) if m else None), (p.stderr or p.stdout).strip()[:200]


def _claude_version(claude, env) -> Check:
    exe, version, why = claude_version(claude, env)
    if exe is None:
        return Check("info", "Claude Code: `claude` is not on PATH (the checks above do not "
                     "need it)")
    if version is None:
        return Check("warn", f"Claude Code at {exe}: cannot tell its version ({why})")
    if version == entries.TESTED_CLAUDE_CODE:
        return Check("ok", f"Claude Code {version} at {_short(exe)} (the version the "
                     "real-client suite proves)")
    return Check("warn", f"Claude Code {version} at {_short(exe)}; the gateway's real-client "
                 f"suite proves {entries.TESTED_CLAUDE_CODE}, and the hook contract changes "
                 "between releases", "run the real-client suite against it (docs/realclient.md)")


def as_json(checks) -> str:
    return json.dumps([c.as_dict() for c in checks], indent=2)
