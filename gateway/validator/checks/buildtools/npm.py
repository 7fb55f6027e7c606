"""The npm family (npm, npx, yarn, pnpm): .npmrc and npm_config_*, .yarnrc, the project's
scripts (npm test, npm run X, yarn X), installed tools run through npx, bare installs and
downloads.

Part of gateway.validator.checks.buildtools (see its docstring)."""

import os
import posixpath

from gateway.paths import is_within, lexical
from gateway.validator.checks._common import PHASE
from gateway.validator.checks.buildtools._shared import (
    _ancestors,
    _ask,
    _home,
    _inside,
    _read,
    _refuse,
    _secret_args,
    generic,
)

# --- the npm family ----------------------------------------------------------------------------

#: .npmrc keys (and npm_config_* variables) that only change how npm talks, prints or
#: resolves; the others (script-shell, node-options, prefix, userconfig, git, cache...)
#: run programs or move where npm works: ask
_NPMRC_OK = frozenset("""
registry always-auth save save-exact save-prefix save-dev save-optional engine-strict fund
audit audit-level loglevel legacy-peer-deps package-lock progress strict-ssl cafile ca
auto-install-peers shamefully-hoist node-linker strict-peer-dependencies
prefer-workspace-packages link-workspace-packages public-hoist-pattern hoist-pattern
resolution-mode lockfile update-notifier color unicode timing usage fetch-retries
fetch-retry-mintimeout fetch-retry-maxtimeout fetch-timeout maxsockets offline prefer-offline
prefer-online include omit optional production dedupe-peer-dependents
enable-pre-post-scripts ignore-scripts install-links workspaces-update
strict-dep-builds save-workspace-protocol git-tag-version sign-git-tag message
init-author-name init-author-email init-license init-version prefer-frozen-lockfile
frozen-lockfile recursive-install node-version use-node-version engine-strict
prefix
""".split())
# (`prefix` in a configuration file moves only the global installs; on the command line it
# moves where every command runs: --prefix is one of npm's shared unsafe options)
_NPMRC_OK_PREFIX = ("//", "@")


def _npmrc_problem(key):
    k = key.strip().lower().replace("_", "-")
    if k.startswith(_NPMRC_OK_PREFIX) or k in _NPMRC_OK:
        return ""
    if k.startswith(("auth", "_auth", "email", "username", "password", "cert", "key",
                     "https-proxy", "proxy", "noproxy", "no-proxy")):
        return ""
    return f"{key.strip()!r} is not a setting the gateway knows to be safe (script-shell, " \
           "node-options, prefix, userconfig, git and the like run programs or move where " \
           "npm works)"


def _npm_config(ctx, label, cwd):
    """npm's configuration: npm_config_* in the environment, the project's .npmrc, the
    user's ~/.npmrc (or $NPM_CONFIG_USERCONFIG)."""
    for key in ctx.env:
        if key.lower().startswith("npm_config_"):
            why = _npmrc_problem(key[11:])
            if why:
                return _ask(ctx, "GW761", label, f"{key} in the environment: {why}")
    outside = _prefix_outside(ctx, cwd)
    if outside is not None:
        return _ask(ctx, "GW761", label, f"no package.json in the project at or above {cwd}: "
                    f"npm walks up and takes {outside} (outside the project) as the "
                    "project's, its scripts and its .npmrc")
    files = []
    d = _npm_prefix(ctx, cwd)
    files.append(posixpath.join(d, ".npmrc"))
    home = _home(ctx)
    user = ctx.env.get("NPM_CONFIG_USERCONFIG") or ctx.env.get("npm_config_userconfig") or (
        posixpath.join(home, ".npmrc") if home else None)
    if user:
        files.append(user)
    for path in files:
        text = _read(path)
        if text is None:
            return _ask(ctx, "GW761", label, f"{path} cannot be read")
        for line in text.splitlines():
            line = line.strip()
            if not line or line.startswith(("#", ";")) or "=" not in line:
                continue
            why = _npmrc_problem(line.split("=", 1)[0])
            if why:
                return _ask(ctx, "GW761", label, f"{path}: {why}")
    return None


def _npm_prefix(ctx, cwd):
    """npm's project directory: the nearest directory at or above `cwd` (inside the
    project) with a package.json or node_modules, else `cwd`."""
    for d in _ancestors(cwd):
        if not is_within(d, ctx.roots.project):
            break
        if os.path.exists(posixpath.join(d, "package.json")) or os.path.isdir(
                posixpath.join(d, "node_modules")):
            return d
    return cwd


def _prefix_outside(ctx, cwd):
    """The package.json (or node_modules) npm would take as its project's when none is in
    the project at or above `cwd`: the nearest one above the project (red team rt26: `npm
    run env` printed the environment with an ancestor's script), or None."""
    inside = True
    for d in _ancestors(cwd):
        if inside and not is_within(d, ctx.roots.project):
            inside = False
        for name in ("package.json", "node_modules"):
            p = posixpath.join(d, name)
            if os.path.exists(p):
                return None if inside else p
    return None


def _local_bin(ctx, cwd, name):
    """The project's installed command `name` (node_modules/.bin/NAME at npm's project
    directory), or None."""
    if not name or "/" in name or "@" in name or name.startswith("."):
        return None
    p = posixpath.join(_npm_prefix(ctx, cwd), "node_modules", ".bin", name)
    if os.path.lexists(p) and _inside(ctx, p):
        return p
    return None


def _package_scripts(ctx, cwd):
    from gateway import _fastjson

    path = posixpath.join(_npm_prefix(ctx, cwd), "package.json")
    text = _read(path)
    if not text:
        return {}
    try:
        data = _fastjson.loads(text)
    except (ValueError, RecursionError):
        return {}
    scripts = data.get("scripts") if isinstance(data, dict) else None
    return scripts if isinstance(scripts, dict) else {}


def _yarnrc(ctx, label, cwd):
    """yarn runs the release its configuration names (yarnPath, yarn-path) and loads the
    plugins it lists: they must be files of the project."""
    d = _npm_prefix(ctx, cwd)
    for name, keys in ((".yarnrc.yml", ("yarnPath:",)), (".yarnrc", ("yarn-path",))):
        path = posixpath.join(d, name)
        text = _read(path)
        if text is None:
            return _ask(ctx, "GW761", label, f"{path} cannot be read")
        for line in text.splitlines():
            s = line.strip()
            for k in keys:
                if s.startswith(k):
                    value = s[len(k):].strip().strip("'\"")
                    if not value or not _inside(ctx, lexical(value, d)):
                        return _ask(ctx, "GW761", label, f"{path} runs yarn from {value!r}, "
                                    "which is not a file of the project")
            if s.startswith("- path:") or s.startswith("path:"):
                value = s.split(":", 1)[1].strip().strip("'\"")
                if not _inside(ctx, lexical(value, d)):
                    return _ask(ctx, "GW761", label, f"{path} loads the plugin {value!r}, "
                                "which is not a file of the project")
    return None


def _tool_name(spec):
    return spec.name.split()[0]


def npm(ctx, spec, words, cwd):
    """A read-only npm/pnpm/yarn subcommand (ls, view, outdated, why...): its options
    against the allowlist, its arguments are names (text), the configuration judged."""
    verdict, args, _cands, written = generic(ctx, spec, words, positionals=False)
    if verdict is not None:
        return _refuse(verdict)
    verdict = _npm_config(ctx, spec.name, cwd)
    if verdict is not None:
        return _refuse(verdict)
    return None, [o.value for o in args.options if o.value is not None
                  and o.name not in spec.text_flags] + list(args.attached), written


def npm_script(ctx, spec, words, cwd):
    """npm test / npm run X / pnpm X / yarn X: the project's own script, with the trust of
    `make test` (npm's options are judged, the arguments handed to the script may not be
    secrets). yarn and pnpm run an installed command of that name when the project has no
    such script: it is judged as itself."""
    tool = _tool_name(spec)
    sub = spec.name.split()[-1]
    label = spec.name
    # npm reads every option up to `--` as its own (also after the script's name)
    opts = []
    script_args = []
    name = sub if sub not in ("run", "run-script", "rum", "urn", "x") else None
    i = 0
    while i < len(words):
        w = words[i]
        i += 1
        if w == "--":
            script_args.extend(words[i:])
            break
        if w.startswith("-") and len(w) > 1:
            opts.append(w)
            if w.split("=", 1)[0] in spec.value_flags and "=" not in w and i < len(words) \
                    and not w.startswith("--no-"):
                opts.append(words[i])
                i += 1
            continue
        if name is None:
            name = w
            label = f"{spec.name} {w}"
            continue
        script_args.append(w)
    verdict, args, cands, written = generic(ctx, spec, opts, label)
    if verdict is not None:
        return _refuse(verdict)
    cands = [c for c in cands if c not in args.positionals]
    verdict = _npm_config(ctx, label, cwd) or (
        _yarnrc(ctx, label, cwd) if tool == "yarn" else None)
    if verdict is not None:
        return _refuse(verdict)
    if name is None:
        if not written:
            ctx.note_readonly()  # npm run: lists the scripts, runs none
        return None, cands, written  # npm run: lists the scripts
    if tool in ("yarn", "pnpm") and name not in _package_scripts(ctx, cwd):
        if _local_bin(ctx, cwd, name):
            return None, cands, written, ([name] + script_args, cwd)
        return _refuse(_ask(ctx, "GW705", f"{tool} {name}", "neither a script of "
                            "package.json nor a command the project has installed",
                            rule=f"catalogue:{spec.name}"))
    verdict = _secret_args(ctx, label, script_args, cwd) or _trusted_recipe(
        ctx, label, posixpath.join(_npm_prefix(ctx, cwd), "package.json"), "its scripts")
    if verdict is not None:
        return _refuse(verdict)
    ctx.step(PHASE, "info", "", f"{label}: runs the project's own script (the trust of "
             "`make test`)")
    return None, cands, written


def _trusted_recipe(ctx, label, path, what):
    from gateway.validator import trusted_code

    return trusted_code.recipe(ctx, label, path, what)


def npm_exec(ctx, spec, words, cwd):
    """npx CMD / npm exec CMD / pnpm exec CMD / yarn exec CMD: the project's installed
    command is judged as itself; anything else (a package to download, a version, -c shell
    code) asks."""
    tool = _tool_name(spec)
    label = spec.name
    opts = []
    i = 0
    while i < len(words):
        w = words[i]
        if w == "--":
            i += 1
            break
        if not w.startswith("-") or len(w) == 1:
            break
        opts.append(w)
        i += 1
        if w.split("=", 1)[0] in spec.value_flags and "=" not in w and i < len(words):
            opts.append(words[i])
            i += 1
    cmd = words[i:]
    verdict, args, cands, written = generic(ctx, spec, opts, label)
    if verdict is not None:
        return _refuse(verdict)
    if args.has("-p", "--package") or any(o.name.startswith("--package") for o in args.options):
        return _refuse(_ask(ctx, "GW764", f"{label} --package", "installs a package to run "
                            "it", rule=f"catalogue:{spec.name}"))
    verdict = _npm_config(ctx, label, cwd)
    if verdict is not None:
        return _refuse(verdict)
    if not cmd:
        return _refuse(ctx.ask(PHASE, "GW712", f"{label} without a command",
                               rule=f"catalogue:{spec.name}"))
    if _local_bin(ctx, cwd, cmd[0]) is None:
        return _refuse(_ask(ctx, "GW764", f"{label} {cmd[0]}", "not installed in the project: "
                            f"{tool} would download the package and run it",
                            rule=f"catalogue:{spec.name}"))
    # npx and npm exec run the installed command and nothing else (plan mode: it writes what
    # that command writes); yarn and pnpm may first install or link (not claimed)
    return None, cands, written, (list(cmd), cwd, tool in ("npx", "npm"))


def bare_install(ctx, spec, words, cwd):
    """`yarn` alone installs; `yarn --version` and `yarn --help` only print."""
    if words and all(w in (spec.safe_flags or ()) for w in words):
        return None, [], []
    return downloads(ctx, spec, words, cwd)


def downloads(ctx, spec, words, cwd):
    """Subcommands that install, download, publish or change the installed packages."""
    return _refuse(ctx.ask(PHASE, "GW764", f"{spec.name} installs, downloads or publishes "
                           "packages (code the project does not pin runs or lands in the "
                           "environment)", rule=f"catalogue:{spec.name}"))


def npm_config_get(ctx, spec, words, cwd):
    """npm config get KEY...: prints configuration values. A key among the entry's
    `public_names` (the registry, the prefix, the cache ...) holds no credential; any other
    (`//registry.npmjs.org/:_authToken`, `_auth`, a key the model does not know), or no key
    at all (every value), asks."""
    from gateway.paths import fnmatchcase

    verdict, args, _cands, written = generic(ctx, spec, words, positionals=False)
    if verdict is not None:
        return _refuse(verdict)
    if not args.positionals:
        return _refuse(_ask(ctx, "GW704", spec.name, "without a key it prints every "
                            "configuration value, credentials among them; name the key",
                            rule=f"catalogue:{spec.name}"))
    for key in args.positionals:
        if not any(fnmatchcase(key, g) for g in spec.public_names):
            return _refuse(_ask(ctx, "GW704", f"{spec.name} {key}", "not a key known to hold "
                                "no credential (registry, prefix, cache ...)",
                                rule=f"catalogue:{spec.name}"))
    verdict = _npm_config(ctx, spec.name, cwd)
    if verdict is not None:
        return _refuse(verdict)
    return None, [], written
