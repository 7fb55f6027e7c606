"""The gateway's own files, which no agent may write: its rules (built in and the user's),
its installed code, its caches (the compiled policy, the hook's code, parsed configuration)
and its audit log's directory. One list for both hooks: the PreToolUse guards deny a write
of them (GW832, gateway.effects.files) and the validator asks (GW504, gateway.paths.
is_protected), wherever they lie (inside the project when GATEWAY_CACHE_DIR or
GATEWAY_AUDIT_LOG put them there)."""

import os
import posixpath

from gateway import paths


def own_paths(roots, env) -> list:
    """Absolute paths (lexical and real forms) of the gateway's own files and directories,
    for a request whose project is `roots` and whose environment is `env`. A checkout of the
    gateway that is itself the project is not counted (it is being developed)."""
    from gateway import audit
    from gateway.cachedir import cache_dir
    from gateway.policy import load

    home = posixpath.normpath(os.path.expanduser("~"))
    dirs = []
    try:
        dirs.append(load.builtin_rules_dir())
    except Exception:  # missing rules: the policy would not have loaded either
        pass
    package = os.path.dirname(os.path.abspath(__file__))
    if not (paths.is_within(package, roots.project)
            or paths.is_within(package, roots.project_real)):
        dirs.append(package)  # an installed copy; a checkout being developed is not
    dirs.append(cache_dir(env))
    log = audit.log_path(env)
    if log:
        dirs.append(os.path.dirname(os.path.abspath(log)))
    dirs.append(load.user_rules_path(env))
    out = []
    for d in dirs:
        d = posixpath.normpath(os.path.abspath(d))
        for form in (d, paths.real(d)):
            if form not in out and form not in ("/", home):
                out.append(form)
    return out


def credential_places(env, real_forms=True) -> list:
    """Absolute paths of the gateway's own files that hold a credential: `gateway serve`'s
    bearer token and the install backups (a settings file saved before a re-install or an
    uninstall of `install --http` holds the token). No tool may read them with no dialog
    (gateway.guards.reads) and the sandbox hides them (gateway.sandbox.configure); red
    team rt26 read the token through both."""
    env = os.environ if env is None else env
    base = env.get("XDG_STATE_HOME") or os.path.join(
        env.get("HOME") or os.path.expanduser("~"), ".local", "state")
    state = posixpath.normpath(os.path.abspath(os.path.join(base, "gateway")))
    out = []
    for p in (posixpath.join(state, "serve-token"), posixpath.join(state, "install")):
        for form in (p, paths.real(p)) if real_forms else (p,):
            if form not in out:
                out.append(form)
    return out
