"""`gateway doctor`'s sandbox checks: the settings in effect, what the machine has, and a
command really run in the sandbox (gateway.sandbox.selftest), judged by effect."""

import os

from gateway.sandbox import selftest


def checks(project, env, probe=True, claude=None, policy=None) -> list:
    """[Check] about the OS floor for `project`."""
    from gateway.install.check import Check
    from gateway.sandbox import posture as posture_mod

    out = []
    pos = posture_mod.load(project, env)
    where = {k: _short(v) for k, v in pos.sources.items()}
    floor = True
    if pos.problems:
        out.append(Check("fail", "sandbox settings the client would not read as the gateway "
                         f"does: {pos.problems[0]}; the gateway counts the sandbox as absent",
                         "fix that settings file"))
        floor = False
    elif not pos.enabled:
        out.append(Check("warn", "the OS floor is missing: Claude Code's Bash sandbox is not "
                         "enabled. " + selftest.COST,
                         "gateway install (it configures the sandbox from the rules)"))
        floor = False
    else:
        out.append(Check("ok", "Bash sandbox enabled (" + where.get("enabled", "?") + ")"))
        if not pos.platform_ok:
            out.append(Check("fail", "sandbox.enabledPlatforms leaves out linux: Bash runs "
                             "unconfined here", "add \"linux\" or remove enabledPlatforms"))
            floor = False
        if pos.fs_disabled:
            out.append(Check("fail", "sandbox.filesystem.disabled is true: no file is hidden "
                             "or protected from Bash", "remove sandbox.filesystem.disabled"))
            floor = False
        if pos.fail_if_unavailable:
            out.append(Check("ok", "sandbox.failIfUnavailable: Claude Code refuses to start "
                             "when the sandbox cannot (" + where.get("failIfUnavailable", "?")
                             + ")"))
        elif not pos.deps_found(env):
            out.append(Check("fail", "the sandbox is enabled but bubblewrap or socat is "
                             "missing, and without sandbox.failIfUnavailable Claude Code then "
                             "runs Bash unconfined without a word", "install them ("
                             + selftest.INSTALL_HINT + ") and run gateway install"))
            floor = False
        else:
            out.append(Check("warn", "sandbox.failIfUnavailable is not set: if bubblewrap goes "
                             "missing, Claude Code runs Bash unconfined without a word",
                             "gateway install (sets it)"))
        if pos.allow_unsandboxed:
            out.append(Check("warn", "sandbox.allowUnsandboxedCommands is not false: a call "
                             "may leave the sandbox (dangerouslyDisableSandbox, after a "
                             "dialog); the gateway judges such calls as unsandboxed",
                             "gateway install (without --allow-unsandboxed)"))
        if pos.excluded:
            out.append(Check("warn", "sandbox.excludedCommands runs these unconfined: "
                             + ", ".join(map(str, pos.excluded[:5]))
                             + "; the gateway judges any command naming them as unsandboxed",
                             "remove the entries you do not need"))
        if pos.auto_allow:
            out.append(Check("info", "sandbox.autoAllowBashIfSandboxed is on ("
                             + where.get("autoAllowBashIfSandboxed", "?") + "): sandboxed "
                             "commands run with no dialog, so the gateway's PreToolUse asks "
                             "itself for what you would have reviewed (GW861 edits in default "
                             "mode, GW862 removals and unknown programs in every mode)"))
        if policy is not None:
            missing = pos.hides_secrets(policy, env)
            if missing:
                out.append(Check("warn", f"{len(missing)} secret path(s) of the rules are not "
                                 "in sandbox.filesystem.denyRead (e.g. "
                                 + ", ".join(_short(m) for m in missing[:3])
                                 + "): unknown programs keep asking (GW840)",
                                 "gateway install (or --scope local for a user-scope install)"))
            else:
                out.append(Check("ok", "every secret of the rules is hidden from sandboxed "
                                 "commands (sandbox.filesystem.denyRead)"))
    # what this machine can do, proved by a real bubblewrap run
    osp = selftest.os_probe(env)
    for f in osp.findings:
        if f.status != "ok":
            out.append(Check(f.status, f.title, f.fix))
    if osp.ok:
        out.append(Check("ok", osp.detail))
    else:
        out.append(Check("fail" if pos.enabled else "warn",
                         f"the sandbox cannot start on this machine: {osp.detail}. "
                         + selftest.COST,
                         next((f.fix for f in osp.findings if f.status == "fail" and f.fix),
                              "install bubblewrap and socat: " + selftest.INSTALL_HINT)))
        floor = False
    if not (probe and pos.enabled and osp.ok and not pos.problems):
        if floor and not probe:
            out.append(Check("info", "the client's sandbox was not run (--no-probe)"))
        return out
    exe = claude or _which_claude(env)
    if not exe or not os.access(exe, os.X_OK):
        out.append(Check("info", "Claude Code (`claude`) is not on PATH: the sandbox was "
                         "proved with bubblewrap alone, not through the client"))
        return out
    res = selftest.client_probe(exe, lambda p, h: posture_mod.probe_block(pos, p, h), env)
    if res.ok:
        out.append(Check("ok", res.detail))
    else:
        out.append(Check("fail", "sandbox self-test through Claude Code: " + res.detail,
                         "gateway install, then gateway doctor again"))
    return out


def _which_claude(env):
    import shutil

    return shutil.which("claude", path=env.get("PATH"))


def _short(path) -> str:
    home = os.path.expanduser("~")
    return "~" + path[len(home):] if isinstance(path, str) and path.startswith(home + "/") \
        else str(path)
