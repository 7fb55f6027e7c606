"""`gateway check --guards` and the sandbox: does the call run sandboxed, which of its effects
would the OS stop, and does it run with no dialog under the installed settings.

`report()` gives the sandbox part of the dry run; `outcome()` refines the final decision for a
call no hook decides and no `permissions.allow` rule of the user's names (gateway.client.
allow_rule, which the dry run asks first): it runs with no dialog when the sandbox's
auto-allow takes it (measured: every mode but plan on the default
model), or when the client runs it by itself as a read-only command inside the project
(the effects model's read-only; the client's own list differs at the edges, and where they
differ the dry run errs towards "runs").
"""

import os

from gateway.sandbox import posture as posture_mod

#: The validator's codes for a path outside the project (the client asks for those reads).
_OUTSIDE = frozenset(("GW501", "GW502", "GW508"))


class Report:
    __slots__ = ("sandboxed", "why_not", "auto_allow", "os_stops", "runs", "user_rule",
                 "readonly", "hides_secrets")

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__slots__}


def report(command, tool_input, cwd, project, env, policy, settings) -> Report:
    from gateway.effects.analysis import analyze

    pos = posture_mod.from_settings(settings, project, env)
    r = Report()
    r.sandboxed = pos.runs_sandboxed(command, tool_input, env)
    r.why_not = "" if r.sandboxed else pos.why_not(command, tool_input, env)
    r.auto_allow = bool(r.sandboxed and pos.auto_allow)
    r.hides_secrets = bool(r.sandboxed and not pos.hides_secrets(policy, env))
    effects = analyze(command, cwd, policy=policy)
    r.readonly = effects.readonly
    r.os_stops, r.runs = [], []
    if r.sandboxed:
        if r.hides_secrets:
            r.os_stops.append("reads of every file the rules call secret "
                              "(sandbox.filesystem.denyRead)")
        else:
            r.os_stops.append("reads of the secrets in sandbox.filesystem.denyRead (not all "
                              "of the rules' secrets are there: gateway install)")
        protected = _protected(pos, project)
        for w in effects.writes:
            for p in (w.paths or ()):
                what = _stopped(p, pos, project, protected, env)
                (r.os_stops if what else r.runs).append(
                    f"{w.via} writes {p}" + (f": {what}" if what else " (inside the project)"))
        r.os_stops.append("network to a domain you have not approved (the client asks)")
    from gateway import client

    r.user_rule = client.allow_rule(settings, command) or ""
    return r


def _protected(pos, project):
    try:
        from gateway.sandbox import extras

        client = [os.path.join(project, p) for p in extras.load_all().client_protects]
    except Exception:
        client = []
    return client + list(pos.paths["denyWrite"])


def _stopped(path, pos, project, protected, env) -> str:
    def under(p, d):
        return p == d or p.startswith(d.rstrip("/") + "/")

    for d in protected:
        if under(path, d):
            return "write-protected in the sandbox"
    if under(path, project):
        return ""
    tmp = env.get("TMPDIR") or "/tmp"
    if any(under(path, d) for d in pos.paths["allowWrite"]):
        return ""
    if under(path, tmp) and path.startswith("/tmp/claude"):
        return ""
    return "outside the project: read-only in the sandbox"


def outcome(hook, core, mode, rep):
    """(decision, how) for a call no hook decides, or None to keep the general answer."""
    if hook != "none" or rep is None:
        return None
    mode = mode or "default"
    if rep.auto_allow and mode != "plan":
        return "allow", ("no hook decides; the sandbox's auto-allow "
                         "(autoAllowBashIfSandboxed) runs it with no dialog, confined by the OS")
    if rep.readonly and (core is None or core.code not in _OUTSIDE) and mode != "dontAsk":
        return "allow", ("no hook decides; the client runs a read-only command inside the "
                         "project by itself (its own list: a few read-only forms it asks "
                         "about)")
    return None


def describe(rep) -> list:
    """Lines for the text output."""
    if rep is None:
        return []
    if not rep.sandboxed:
        return [f"sandbox: not sandboxed: {rep.why_not}; the OS floor is missing for this "
                "call, the prediction alone decides"]
    out = ["sandbox: runs sandboxed" + (", auto-allow on" if rep.auto_allow else "")]
    for s in rep.os_stops:
        out.append(f"  the OS stops: {s}")
    for s in rep.runs:
        out.append(f"  the OS lets through: {s}")
    return out
