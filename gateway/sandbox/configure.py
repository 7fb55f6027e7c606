"""`gateway install` and `gateway uninstall`'s sandbox step: generate, check, merge, record.

`Choice.mode`:
  auto  (the default) write the sandbox block when the sandbox can start on this machine (the
        OS probe of gateway.sandbox.selftest: bubblewrap, socat, user namespaces); when it
        cannot, write none, and say what is missing and what that costs. A block an earlier
        install wrote is kept and brought up to date either way (taking the floor away
        because a package went missing would be silent; `gateway doctor` reports it).
  on    (`--sandbox`) write it whatever this machine can do (a teammate's, a CI image).
  off   (`--no-sandbox`) write none; take out what an earlier install added.
"""

import os

from gateway.install import InstallError


class Choice:
    __slots__ = ("mode", "allow_unsandboxed", "toolchains", "hook_server", "token_files")

    def __init__(self, mode="auto", allow_unsandboxed=False, toolchains=True,
                 hook_server=None, token_files=()):
        if mode not in ("auto", "on", "off"):
            raise ValueError(mode)
        self.mode = mode
        self.allow_unsandboxed = allow_unsandboxed
        self.toolchains = toolchains
        #: "127.0.0.1:PORT" of `gateway serve` when the hooks are http (install --http)
        self.hook_server = hook_server
        #: the files that hold `gateway serve`'s bearer token (install --http)
        self.token_files = list(token_files)


def _project(scope, project, env):
    from gateway.install.project import find_project

    if project:
        return os.path.abspath(project)
    return find_project(env=env)


def generate(scope, project, env, choice):
    """The Spec for this install (raises InstallError when the rules cannot be loaded)."""
    from gateway import runtime
    from gateway.policy.errors import PolicyError
    from gateway.sandbox import spec

    env = dict(os.environ if env is None else env)
    proj = _project(scope, project, env)
    try:
        policy = runtime.get_policy(proj)
        return spec.generate(policy, proj, scope=scope, env=env,
                             allow_unsandboxed=choice.allow_unsandboxed,
                             toolchains=choice.toolchains)
    except PolicyError as exc:
        raise InstallError("the sandbox settings come from the rules, which cannot be "
                           f"loaded: {'; '.join(exc.errors[:3])}. Fix them (`gateway rules "
                           "validate`), or install with --no-sandbox") from None


def install(data, choice, scope, project, path, env, notes):
    """(new data, [Change], Record or None) for the settings object `data`."""
    from gateway.sandbox import install as sbi

    record = sbi.read_record(path, env)
    if choice.mode == "off":
        new, changes, _ = sbi.install(data, None, record, path)
        if changes:
            notes.append("--no-sandbox: the sandbox block gateway install had added is taken "
                         "out; Bash runs unconfined and the gateway decides by prediction "
                         "alone (gateway doctor says what that costs)")
        return new, changes, None
    spec = generate(scope, project, env, choice)
    if choice.hook_server:
        from gateway.sandbox.spec import NETWORK_KEY

        spec.add(NETWORK_KEY, choice.hook_server, "hooks",
                 "Claude Code sends http hooks through the sandbox's network proxy")
    for path in choice.token_files:
        from gateway.sandbox.globs import home_form

        # the client reads its settings in its own process: only Bash's programs lose it
        spec.add("denyRead", home_form(path, dict(os.environ if env is None else env)),
                 "hooks", "it holds the bearer token of `gateway serve` (install --http): "
                 "with it a program could send the server forged hook events")
    if choice.mode == "auto" and record is None:
        from gateway.sandbox import selftest

        probe = selftest.os_probe(env)
        if not probe.ok:
            notes.append("the sandbox was NOT configured: it cannot start on this machine. "
                         + probe.summary() + " " + selftest.COST
                         + " Fix that, then run gateway install again (or --sandbox to write "
                         "it anyway, --no-sandbox to stop this message).")
            return data, [], None
    new, changes, record = sbi.install(data, spec, record, path)
    if changes:
        if spec.toolchains:
            notes.append("sandbox: writes allowed outside the project for the toolchains "
                         "found here: " + ", ".join(spec.toolchains)
                         + " (rules/sandbox.yaml; --no-toolchain-caches leaves them out)")
        if choice.allow_unsandboxed:
            notes.append("sandbox: --allow-unsandboxed: a Bash call may ask to run outside "
                         "the sandbox (dangerouslyDisableSandbox, after a dialog); the gateway "
                         "judges such a call as unsandboxed")
        notes.extend("sandbox: " + n for n in spec.notes)
        notes.append("sandbox: Bash commands now run in Claude Code's sandbox; "
                     "`gateway doctor` proves it with a sandboxed self-test")
    return new, changes, record


def uninstall(data, original, scope, project, path, env, notes):
    """(new data, [Change]) without what install added to the sandbox block."""
    from gateway.sandbox import install as sbi

    record = sbi.read_record(path, env)
    fallback = None
    if record is None and isinstance(data.get("sandbox"), dict):
        try:
            fallback = generate(scope, project, env, Choice("on"))
        except InstallError as exc:
            notes.append(f"sandbox entries left in place: {exc}")
    new, changes = sbi.uninstall(data, record, original, fallback)
    return new, changes
