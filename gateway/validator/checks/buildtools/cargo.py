"""cargo and rustfmt: the cargo subcommands, their pass-through arguments, .cargo/config.toml
and CARGO_*/RUSTFLAGS, rust-toolchain files, target directories, cargo clean.

Part of gateway.validator.checks.buildtools (see its docstring)."""

import os
import posixpath

from gateway.paths import is_within, lexical, physical
from gateway.validator.checks._common import PHASE
from gateway.validator.checks.buildtools._shared import (
    ConfigError,
    Surface,
    _after,
    _ancestors,
    _ask,
    _home,
    _inside,
    _program_ok,
    _read,
    _refuse,
    _secret_args,
    _side_output,
    _surface_verdict,
    _toml,
    allowlist,
    parse,
)

# --- cargo -----------------------------------------------------------------------------------

_RUSTFMT_OK = {"--check", "-v", "--verbose", "-q", "--quiet", "-l", "--files-with-diff"}
_RUSTFMT_VALUE = {"--edition", "--color"}
_RUSTC_LINTS = {"-D", "-W", "-A", "-F", "--deny", "--warn", "--allow", "--forbid",
                "--force-warn", "--cap-lints"}
_TEST_HARNESS_FLAGS = {"--nocapture", "--no-capture", "--test-threads", "--exact", "--ignored",
                       "--include-ignored", "--skip", "--list", "--show-output", "-q",
                       "--quiet", "--color", "--format", "--bench", "--test", "-Z",
                       "unstable-options", "--shuffle", "--shuffle-seed"}
_TEST_HARNESS_VALUE = {"--test-threads", "--skip", "--color", "--format", "--shuffle-seed"}


def _passthrough_problem(sub, rest):
    """Why the words after `cargo SUB --` (handed to rustfmt, clippy-driver or the test
    harness) are not safe, or ""."""
    i = 0
    while i < len(rest):
        w = rest[i]
        i += 1
        name = w.split("=", 1)[0]
        if sub == "fmt":
            if w in _RUSTFMT_OK:
                continue
            if name in _RUSTFMT_VALUE:
                i += 0 if "=" in w else 1
                continue
            # --config-path reads any file (its lines are shown on a parse error),
            # --print-config writes one
            return f"{w!r} is not among the rustfmt options allowed here"
        if sub == "clippy":
            if name in _RUSTC_LINTS:
                i += 0 if "=" in w else 1
                continue
            if w[:2] in ("-D", "-W", "-A", "-F") and len(w) > 2:
                continue
            # rustc options write files (--emit, -o), run programs (-C linker=) or read
            # argument files (@path)
            return f"{w!r} is not a lint level option for clippy"
        if sub == "run":
            continue  # the program's own arguments (checked for secrets)
        # test, bench: the test harness; --logfile writes the results to any file
        if name.startswith("--log"):
            return f"{w!r} makes the test harness write a file"
        if w.startswith("-") and name not in _TEST_HARNESS_FLAGS:
            return f"{w!r} is not among the test harness options allowed here"
        if name in _TEST_HARNESS_VALUE and "=" not in w:
            i += 1
    return ""


#: .cargo/config.toml: the tables and keys that change only how the build runs
_CARGO_CONFIG_OK = {
    "build": {"jobs", "target", "incremental", "pipelining", "rustflags", "rustdocflags",
              "target-dir", "rustc-wrapper", "rustc-workspace-wrapper", "rustc", "rustdoc"},
    "term": None, "net": {"retry", "git-fetch-with-cli", "offline"}, "profile": None,
    "alias": None, "cargo-new": None, "future-incompat-report": None, "http": None,
    "registry": {"default"}, "target": None, "cache": None, "resolver": None,
}
_CARGO_PROGRAM_KEYS = ("rustc-wrapper", "rustc-workspace-wrapper", "rustc", "rustdoc",
                       "linker", "ar")
_RUSTFLAGS_OK_PREFIX = ("-D", "-W", "-A", "-F", "--cfg", "-Copt-level", "-Ctarget-cpu",
                        "-Ctarget-feature", "-Cdebuginfo", "-Ccodegen-units",
                        "-Cforce-frame-pointers", "-Coverflow-checks", "-Cdebug-assertions",
                        "--cap-lints", "-Cstrip", "-Cpanic", "-Clto", "-Cembed-bitcode")


def _rustflags_problem(flags):
    if isinstance(flags, str):
        flags = flags.split()
    if not isinstance(flags, list):
        return "rustflags is not a list"
    words = []
    k = 0
    while k < len(flags):
        f = str(flags[k])
        if f in ("-C", "--codegen", "-D", "-W", "-A", "-F", "--cfg", "--cap-lints") \
                and k + 1 < len(flags):
            words.append((f if f != "--codegen" else "-C") + str(flags[k + 1]))
            k += 2
            continue
        words.append(f)
        k += 1
    for w in words:
        if not w.startswith(_RUSTFLAGS_OK_PREFIX):
            return f"rustflags {w!r} may run a program or write files (-C linker=, -o...)"
    return ""


def _cargo_config_problem(ctx, data, path, base):
    for table, value in data.items():
        if table not in _CARGO_CONFIG_OK:
            return f"[{table}] in {path} is not a table the gateway knows to be safe"
        keys = _CARGO_CONFIG_OK[table]
        if not isinstance(value, dict):
            continue
        if keys is not None:
            for k in value:
                if k not in keys:
                    return f"{table}.{k} in {path} is not a key the gateway knows to be safe"
        if table == "build":
            for k in _CARGO_PROGRAM_KEYS:
                if k in value and not _program_ok(ctx, value[k], base):
                    return (f"build.{k} = {value[k]!r} in {path} runs a program that is "
                            "neither a system program nor the project's")
            for k in ("rustflags", "rustdocflags"):
                if k in value:
                    why = _rustflags_problem(value[k])
                    if why:
                        return f"build.{why} in {path}"
        if table == "target":
            for triple, tv in value.items():
                if not isinstance(tv, dict):
                    continue
                for k, v in tv.items():
                    if k in ("linker", "ar") and _program_ok(ctx, v, base):
                        continue
                    if k == "rustflags" and not _rustflags_problem(v):
                        continue
                    return (f"target.{triple}.{k} in {path} runs programs or changes how "
                            "the build runs them")
    return ""


def _cargo_configs(ctx, cwd):
    """The .cargo/config(.toml) files cargo reads from `cwd`: each directory up to /, then
    $CARGO_HOME. Returns [(path, inside_project_or_cargo_home)]."""
    seen = []
    cargo_home = ctx.env.get("CARGO_HOME") or (
        posixpath.join(_home(ctx), ".cargo") if _home(ctx) else None)
    dirs = list(_ancestors(cwd))
    for d in dirs:
        for name in ("config.toml", "config"):
            p = posixpath.join(d, ".cargo", name)
            if os.path.exists(p):
                seen.append((p, _inside(ctx, p) or (
                    cargo_home is not None and posixpath.dirname(p) == cargo_home)))
    if cargo_home and cargo_home not in [posixpath.join(d, ".cargo") for d in dirs]:
        for name in ("config.toml", "config"):
            p = posixpath.join(cargo_home, name)
            if os.path.exists(p):
                seen.append((p, True))
    return seen


_CARGO_ENV_PROGRAMS = ("RUSTC_WRAPPER", "RUSTC_WORKSPACE_WRAPPER", "RUSTC", "RUSTDOC",
                       "CARGO_BUILD_RUSTC", "CARGO_BUILD_RUSTC_WRAPPER",
                       "CARGO_BUILD_RUSTC_WORKSPACE_WRAPPER", "CARGO_BUILD_RUSTDOC")
# rustc's flags and rustdoc's (cargo doc, and the doctests of cargo test): one model
_CARGO_ENV_FLAGS = ("RUSTFLAGS", "CARGO_BUILD_RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS",
                    "RUSTDOCFLAGS", "CARGO_BUILD_RUSTDOCFLAGS", "CARGO_ENCODED_RUSTDOCFLAGS")


def _cargo_environment(ctx, label, cwd):
    """Judge cargo's configuration (environment, config files): (verdict, target dirs)."""
    env = ctx.env
    for key in _CARGO_ENV_PROGRAMS:
        if env.get(key) and not _program_ok(ctx, env[key], cwd):
            return _ask(ctx, "GW761", label, f"{key}={env[key]!r} in the environment runs a "
                        "program that is neither a system program nor the project's"), []
    for key in _CARGO_ENV_FLAGS:
        if env.get(key):
            value = env[key].split("\x1f") if key.startswith("CARGO_ENCODED_") else env[key]
            why = _rustflags_problem(value)
            if why:
                where = ("given before the command" if key in getattr(env, "given", ())
                         else "in the environment")
                return _ask(ctx, "GW761", label, f"{key} {where}: {why}"), []
    for key in env:
        if key.startswith("CARGO_TARGET_") and key.endswith(("_LINKER", "_RUNNER", "_AR")) \
                and key != "CARGO_TARGET_DIR":
            if key.endswith("_RUNNER") or not _program_ok(ctx, env[key], cwd):
                return _ask(ctx, "GW761", label, f"{key} in the environment runs a program "
                            "around the build or its binaries"), []
    dirs = [env[k] for k in ("CARGO_TARGET_DIR", "CARGO_BUILD_TARGET_DIR") if env.get(k)]
    for path, trusted in _cargo_configs(ctx, cwd):
        if not trusted:
            return _ask(ctx, "GW762", label, f"{path} (outside the project) configures the "
                        "build (it can name a rustc wrapper or a linker)"), []
        try:
            data = _toml(path)
        except ConfigError as exc:
            return _ask(ctx, "GW761", label, str(exc)), []
        if not data:
            continue
        base = posixpath.dirname(posixpath.dirname(path))
        why = _cargo_config_problem(ctx, data, path, base)
        if why:
            return _ask(ctx, "GW761", label, why), []
        td = (data.get("build") or {}).get("target-dir") if isinstance(
            data.get("build"), dict) else None
        if isinstance(td, str):
            dirs.append(lexical(td, base))
    toolchain = _rust_toolchain(ctx, label, cwd)
    if toolchain is not None:
        return toolchain, []
    return None, dirs


def _rust_toolchain(ctx, label, cwd):
    """rust-toolchain.toml may name a toolchain by path (rustup runs its cargo)."""
    for d in _ancestors(cwd):
        for name in ("rust-toolchain.toml", "rust-toolchain"):
            p = posixpath.join(d, name)
            if not os.path.exists(p):
                continue
            if not _inside(ctx, p):
                return _ask(ctx, "GW762", label, f"{p} (outside the project) chooses the "
                            "toolchain that runs")
            text = _read(p)
            if text is None:
                return _ask(ctx, "GW761", label, f"{p} cannot be read")
            if "path" in text:
                try:
                    data = _toml(p) if name.endswith(".toml") or "[" in text else None
                except ConfigError as exc:
                    return _ask(ctx, "GW761", label, str(exc))
                tc = (data or {}).get("toolchain") if isinstance(data, dict) else None
                if isinstance(tc, dict) and "path" in tc and not _inside(
                        ctx, lexical(str(tc["path"]), d)):
                    return _ask(ctx, "GW761", label, f"{p} runs the toolchain at "
                                f"{tc['path']!r}, outside the project")
            return None
        if d == ctx.roots.project:
            return None
    return None


def _cargo_unpinned(ctx, label, cwd, manifest):
    """Dependencies declared with no Cargo.lock: cargo resolves and downloads the newest
    versions (code the project does not pin)."""
    start = posixpath.dirname(lexical(manifest, cwd)) if manifest else cwd
    manifests = []
    for d in _ancestors(start):
        if not is_within(d, ctx.roots.project):
            break
        p = posixpath.join(d, "Cargo.toml")
        if os.path.exists(p):
            manifests.append(d)
    if not manifests:
        return None
    root = manifests[-1]
    if os.path.exists(posixpath.join(root, "Cargo.lock")) or os.path.exists(
            posixpath.join(manifests[0], "Cargo.lock")):
        return None
    try:
        data = _toml(posixpath.join(manifests[0], "Cargo.toml")) or {}
    except ConfigError as exc:
        return _ask(ctx, "GW761", label, str(exc))
    deps = any(data.get(k) for k in ("dependencies", "dev-dependencies", "build-dependencies"))
    deps = deps or any(isinstance(v, dict) and v.get("dependencies")
                       for v in (data.get("target") or {}).values())
    if deps or (data.get("workspace") or {}).get("members"):
        return _ask(ctx, "GW764", label, "the project has dependencies but no Cargo.lock: "
                    "cargo resolves and downloads versions the project does not pin "
                    "(run `cargo generate-lockfile` with the human first)")
    return None


def cargo(ctx, spec, words, cwd):
    """cargo SUB: the entry's options (the shared ones included: --config and -Z ask with
    GW760), the words after `--` for rustfmt, clippy-driver, the test harness or the
    program, cargo's configuration (environment, .cargo/config.toml here and above,
    rust-toolchain.toml) judged, --target-dir and --artifact-dir as writes, unpinned
    dependencies (no Cargo.lock) as a download; fmt and clippy --fix rewrite .rs files."""
    label = spec.name
    sub = label.split()[-1]
    if label == "cargo nextest run":
        sub = "test"  # cargo test's build, nextest's runner; after `--`, test filters
    args = parse(spec, words)
    verdict, written = allowlist(ctx, spec, args, words, label)
    if verdict is not None:
        return _refuse(verdict)
    if sub in ("publish", "update") and not args.has("-n", "--dry-run"):
        # without --dry-run: an upload to the registry, or new versions in Cargo.lock
        return _refuse(ctx.ask(PHASE, "GW764", f"{label} installs, downloads or publishes "
                               "packages (code the project does not pin runs or lands in the "
                               "environment); --dry-run only shows what it would do",
                               rule=f"catalogue:{label}"))
    why = _passthrough_problem(sub, args.rest or [])
    if why:
        return _refuse(_ask(ctx, "GW704", f"{label} --", why))
    if sub in ("run", "test", "bench"):
        verdict = _secret_args(ctx, label, args.rest or [], cwd)
        if verdict is not None:
            return _refuse(verdict)
    verdict, target_dirs = _cargo_environment(ctx, label, cwd)
    if verdict is not None:
        return _refuse(verdict)
    if sub == "doc" and args.has("--open"):
        # the documentation opens in $BROWSER (cargo's doc.browser: CARGO_DOC_BROWSER or a
        # [doc] table, which _cargo_environment refuses), else the desktop's opener
        for key in ("CARGO_DOC_BROWSER", "BROWSER"):
            value = ctx.env.get(key)
            if value and not all(_program_ok(ctx, v, cwd) for v in value.split(":") if v):
                return _refuse(_ask(ctx, "GW761", f"{label} --open", f"{key}={value!r} in "
                                    "the environment runs a program that is neither a "
                                    "system program nor the project's"))
    later = [lambda td=td: _side_output(ctx, label, td, "the build's target directory", cwd,
                                        as_dir=True) for td in target_dirs]
    manifest = next((o.value for o in args.options if o.name == "--manifest-path"), None)
    if sub in ("build", "check", "test", "bench", "run", "clippy", "doc", "tree", "metadata",
               "fetch", "publish", "fix", "nextest", "list", "audit"):
        verdict = _cargo_unpinned(ctx, label, cwd, manifest)
        if verdict is not None:
            return _refuse(verdict)
    if sub == "fmt" and "--check" not in (args.rest or []) or (
            sub == "clippy" and args.has("--fix")) or sub == "fix":
        top = posixpath.dirname(lexical(manifest, cwd)) if manifest else ctx.roots.project
        surface = Surface(ctx, ("*.rs",), skip=("target", ".git"), follow=False)
        later.append(lambda: _surface_verdict(ctx, label, surface, [top], cwd))
    cands = [o.value for o in args.options if o.value is not None
             and o.name not in spec.text_flags] + list(args.attached)
    for o in args.options:
        if o.name == "--target" and o.value and not o.value.endswith(".json"):
            cands.remove(o.value)  # a target triple, not a file
    return None, cands, written, _after(later)


def _cargo_target_dirs(ctx, label, cwd, manifest):
    """The target directories `cargo clean` may remove when no --target-dir is given and the
    configuration names none: `target` beside each Cargo.toml from the manifest's directory
    up to the project root (the workspace root is one of them). A manifest above the project
    (a workspace there may hold this package), none inside, or a package.workspace that
    points out: (ask verdict, [])."""
    start = posixpath.dirname(lexical(manifest, cwd)) if manifest else cwd
    dirs = []
    for d in _ancestors(start):
        if not is_within(d, ctx.roots.project):
            if os.path.exists(posixpath.join(d, "Cargo.toml")):
                return _ask(ctx, "GW762", label, f"{posixpath.join(d, 'Cargo.toml')} (outside "
                            "the project) may be the workspace whose target directory it "
                            "removes"), []
            continue
        p = posixpath.join(d, "Cargo.toml")
        if os.path.exists(p):
            try:
                data = _toml(p) or {}
            except ConfigError as exc:
                return _ask(ctx, "GW761", label, str(exc)), []
            pkg = data.get("package") if isinstance(data.get("package"), dict) else {}
            ws = pkg.get("workspace")
            if ws is not None and not (isinstance(ws, str)
                                       and _inside(ctx, lexical(ws, d))):
                return _ask(ctx, "GW762", label, f"{p}: package.workspace {ws!r} names a "
                            "workspace outside the project"), []
            dirs.append(posixpath.join(d, "target"))
    if not dirs:
        return _ask(ctx, "GW762", label, "no Cargo.toml in the project at or above "
                    f"{start}: cargo would look for one outside the project"), []
    return None, dirs


def cargo_clean(ctx, spec, words, cwd):
    """`cargo clean` removes the target directory (or the part -p, --release, --profile,
    --doc and --target select: judged as the whole directory), which --target-dir,
    CARGO_TARGET_DIR, build.target-dir or build.build-dir of the configuration may move:
    each is a tree removal that must stay inside the project and hold nothing protected (the
    guards' judgement of write targets). Nothing it removes may be work no commit holds
    (checks/removal.py's GW786: every file below is tracked and unchanged, or ignored by
    the project's git, as build output is). docs/security.md's rule for default mode: the
    build's own output directory, as the project and the user configure it, is not the
    agent's edit (`mvn clean` and `gradle clean` run too); a directory the command line
    names (--target-dir) is (GW721; acceptEdits allows it). --dry-run (-n) deletes
    nothing."""
    label = spec.name
    args = parse(spec, words)
    verdict, written = allowlist(ctx, spec, args, words, label)
    if verdict is not None:
        return _refuse(verdict)
    if args.positionals:
        return _refuse(ctx.ask(PHASE, "GW712", f"{label} takes no arguments (got "
                               f"{args.positionals[0]!r})", rule=f"catalogue:{label}"))
    verdict, config_dirs = _cargo_environment(ctx, label, cwd)
    if verdict is not None:
        return _refuse(verdict)
    build_dirs = _cargo_build_dirs(ctx, label, cwd)
    if isinstance(build_dirs, tuple):
        return _refuse(build_dirs[0])
    manifest = next((o.value for o in args.options if o.name == "--manifest-path"), None)
    # --target-dir wins over the environment and the configuration, which win over target/
    removed = list(written) or [d for d in config_dirs if d]
    if not removed:
        verdict, removed = _cargo_target_dirs(ctx, label, cwd, manifest)
        if verdict is not None:
            return _refuse(verdict)
    removed += build_dirs
    dry = args.has("-n", "--dry-run")
    if not dry and not ctx.exposure:
        from gateway.validator import modes

        if written and not modes.accepts_edits(ctx.mode):
            return _refuse(ctx.ask(PHASE, "GW721", f"{label} removes {written[-1]!r}, a "
                                   "directory the command line names (--target-dir); in "
                                   f"{modes.normalize(ctx.mode)} mode edits are the human's "
                                   "(acceptEdits allows them inside the project)",
                                   rule=f"catalogue:{label}:edit"))
    later = [] if ctx.exposure else [
        lambda d=d: _removed_tree(ctx, label, d, cwd) for d in dict.fromkeys(removed)]
    if not dry and not ctx.exposure:
        later.append(lambda: _lost_work(ctx, label, removed, cwd))
    cands = [o.value for o in args.options if o.value is not None
             and o.name not in spec.text_flags and o.name not in spec.write_flags]
    return None, cands + list(written), list(written), _after(later)


def _lost_work(ctx, label, removed, cwd):
    """GW786 when a file below the removed directories is untracked or changed and not
    ignored (work no commit holds); None when git brings back or ignores all of it."""
    from gateway.validator.checks.removal import unrecoverable

    present = [d for d in dict.fromkeys(removed) if os.path.lexists(lexical(d, cwd))]
    return unrecoverable(ctx, label, present, cwd) if present else None


def _cargo_build_dirs(ctx, label, cwd):
    """build.build-dir of cargo's configuration files (the intermediate artifacts, which
    cargo clean removes too): a list of directories, or (ask verdict,) when it is a
    template the gateway does not expand ({workspace-path-hash}...)."""
    out = []
    for path, _trusted in _cargo_configs(ctx, cwd):
        try:
            data = _toml(path)
        except ConfigError as exc:
            return (_ask(ctx, "GW761", label, str(exc)),)
        build = data.get("build") if isinstance(data, dict) else None
        bd = build.get("build-dir") if isinstance(build, dict) else None
        if bd is None:
            continue
        if not isinstance(bd, str) or "{" in bd:
            return (_ask(ctx, "GW761", label, f"{path}: build.build-dir {bd!r} is a "
                         "directory the gateway does not place"),)
        out.append(lexical(bd, posixpath.dirname(posixpath.dirname(path))))
    env = ctx.env.get("CARGO_BUILD_BUILD_DIR")
    if env and "{" in env:
        return (_ask(ctx, "GW761", label, f"CARGO_BUILD_BUILD_DIR {env!r} is a directory "
                     "the gateway does not place"),)
    return out


def _removed_tree(ctx, label, path, cwd):
    """A directory the command removes with everything below it: inside the project,
    through no symlink that leads out, and holding nothing the guards protect (the
    permission surface, .git, the gateway's state, the project itself)."""
    from gateway.effects.files import Surface

    p = lexical(path, cwd)
    rp = physical(path, cwd)
    if not ctx.roots.lexically_inside(p) or not ctx.roots.really_inside(rp):
        return ctx.ask(PHASE, "GW763", f"{label} removes {p}, outside the project",
                       rule=f"catalogue:{label}")
    surface = ctx.__dict__.get("_surface")
    if surface is None:
        surface = ctx.__dict__["_surface"] = Surface(ctx.roots, ctx.policy, ctx.env)
    hit = surface.check(p, rp, tree=True)
    if hit:
        code, rule, why = hit
        return ctx.ask(PHASE, "GW763", f"{label} removes {p}: {why} ({rule}) [{code}]",
                       rule=f"protected:{rule}")
    return None
