"""The project's built programs (issue 25): `./target/debug/cli --version` and
`java -jar target/order-service-0.0.1-SNAPSHOT.jar --server.port=8081`.

Running what the project's own build made is running the project's code: the trust `cargo
run` and `mvn spring-boot:run` already get (in default mode the agent cannot change that
code without a human; in acceptEdits it can, as it can edit src/main.rs before `cargo
run`; plan mode asks, the program may write anything). So it runs without a dialog when
the file is provably where the build puts its output:

* cargo: `target/debug/NAME` or `target/release/NAME` below the workspace root (the one with
  Cargo.toml), where NAME is one of the workspace's binary targets (a package with
  src/main.rs, a `[[bin]]`, src/bin/NAME.rs or src/bin/NAME/main.rs of the root package or a
  member), and `target/` is cargo's target directory (no CARGO_TARGET_DIR or
  CARGO_BUILD_TARGET_DIR, no `target-dir` in .cargo/config.toml);
* Maven and Gradle: `java -jar` (nothing before `-jar`: -javaagent, -cp and -D change what
  runs) of `[MODULE/]target/ARTIFACT-VERSION.jar` (an artifactId of a pom.xml there) or
  `[MODULE/]build/libs/NAME.jar` (a Gradle build file there, NAME starting with the module's
  directory or the rootProject name).

Both the lexical and the real path must be inside the project (a link to a system program
is GW502), the file a regular file, and not tracked by git (a committed binary is not the
build's output). The program's arguments are judged as a contained script's: a secret
among them asks. `./bin/server` (`go build -o bin/...`) is not known to be the build's:
nothing in a Go module says where a binary was written, and ./bin commonly holds
downloaded tools (golangci-lint's installer writes ./bin/golangci-lint): it asks (GW602).
"""

import os
import posixpath

from gateway.paths import resolve

PHASE = "6"
_PROFILES = ("debug", "release")
_MAX_TOML = 1 << 20


def cargo(ctx, word, cwd):
    """(allow verdict, None), (None, ask verdict) or (None, None): not cargo's output path."""
    res = resolve(word, cwd, ctx.roots)
    if res.status != "inside":
        return None, None
    rel = _rel(ctx, res.lex)
    parts = rel.split("/") if rel else []
    if len(parts) != 3 or parts[0] != "target" or parts[1] not in _PROFILES:
        return None, None
    root = ctx.roots.project
    if not os.path.isfile(os.path.join(root, "Cargo.toml")):
        return None, None
    name = parts[2]
    why = _cargo_unproven(ctx, root, name)
    if why is None:
        why = _not_output(ctx, res)
    if why is not None:
        return None, ctx.ask(PHASE, "GW604", f"{word!r} is where cargo puts its binaries, but "
                             f"{why}: it is not known to be the project's build")
    _note(ctx, word, res)
    return ctx.allow(PHASE, "GW603", f"{word!r} is the workspace's binary target {name!r} "
                     f"as cargo builds it (running it runs the project's code, as `cargo "
                     f"run` does)", rule="built:cargo"), None


def java_jar(ctx, argv, cwd):
    """`java -jar JAR ARGS`: (allow, None), (None, ask) or (None, None): not a build output."""
    if len(argv) < 3 or argv[1] != "-jar":
        return None, None
    jar = argv[2]
    res = resolve(jar, cwd, ctx.roots)
    if res.status != "inside" or not jar.endswith(".jar"):
        return None, None
    rel = _rel(ctx, res.lex)
    parts = rel.split("/")
    if len(parts) < 2:
        return None, None
    base = parts[-1][:-4]
    if parts[-2] == "target" and len(parts) in (2, 3):
        module = os.path.join(ctx.roots.project, *parts[:-2])
        tool, why = "Maven", _maven_unproven(ctx, module, base)
    elif parts[-3:-1] == ["build", "libs"] and len(parts) in (3, 4):
        module = os.path.join(ctx.roots.project, *parts[:-3])
        tool, why = "Gradle", _gradle_unproven(ctx, module, base)
    else:
        return None, None
    if why is None:
        why = _not_output(ctx, res)
    if why is not None:
        return None, ctx.ask(PHASE, "GW604", f"{jar!r} is where {tool} puts its artifacts, "
                             f"but {why}: it is not known to be the project's build")
    _note(ctx, jar, res)
    return ctx.allow(PHASE, "GW603", f"{jar!r} is the project's {tool} artifact (running it "
                     f"runs the project's code, as the build's own run goal does)",
                     rule=f"built:{tool.lower()}"), None


def _note(ctx, path, res):
    """What runs is this file as the whole line leaves it: an earlier part that writes it
    (`cp /bin/sh target/debug/cli && ./target/debug/cli -c ...`) makes this part ask
    (gateway.validator.state_model, GW781)."""
    from gateway.validator import state_model

    state_model.note_script(ctx, path, res.lex, res.real)


def _rel(ctx, lex):
    root = ctx.roots.project
    if lex == root or not lex.startswith(root + "/"):
        return ""
    return lex[len(root) + 1:]


def _not_output(ctx, res):
    """Why the file is not a build's output, or None: a regular file git does not track."""
    try:
        st = os.stat(res.real)
    except OSError:
        return "it does not exist"
    if st.st_mode & 0o170000 != 0o100000:
        return "it is not a regular file"
    from gateway.validator import trusted_code

    found = trusted_code._work_tree(res.real)
    if found is None:
        return None  # no repository: nothing is committed
    top, git_dir = found
    rel = os.path.relpath(res.real, top)
    if rel.startswith(".."):
        return "it is not inside the repository's work tree"
    from gateway.tools import gitquery

    out = gitquery.run(top, git_dir, ["ls-files", "-z", "--", rel])
    if out is None:
        return "git could not say whether it is committed"
    if out.strip(b"\0"):
        return "the repository tracks it (a committed file is not the build's output)"
    return None


def _toml(path):
    try:
        with open(path, "rb") as fh:
            data = fh.read(_MAX_TOML + 1)
    except OSError:
        return None
    if len(data) > _MAX_TOML:
        return None
    import tomllib

    try:
        return tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None


def _cargo_unproven(ctx, root, name):
    env = ctx.env
    if env.get("CARGO_TARGET_DIR") or env.get("CARGO_BUILD_TARGET_DIR"):
        return "CARGO_TARGET_DIR moves cargo's output elsewhere"
    for cfg in (".cargo/config.toml", ".cargo/config"):
        path = os.path.join(root, cfg)
        if os.path.exists(path):
            data = _toml(path)
            if data is None:
                return f"{cfg} cannot be read"
            if "target-dir" in (data.get("build") or {}):
                return f"{cfg} moves cargo's target directory (build.target-dir)"
    manifest = _toml(os.path.join(root, "Cargo.toml"))
    if manifest is None:
        return "Cargo.toml cannot be read"
    dirs = [root]
    ws = manifest.get("workspace") or {}
    members = ws.get("members") or []
    if not isinstance(members, list):
        return "the workspace's members cannot be read"
    import glob

    for m in members:
        if not isinstance(m, str) or ".." in m.split("/") or m.startswith("/"):
            return "a workspace member lies outside the workspace"
        for d in sorted(glob.glob(os.path.join(root, m))):
            if os.path.isfile(os.path.join(d, "Cargo.toml")):
                dirs.append(d)
    for d in dirs:
        data = manifest if d == root else _toml(os.path.join(d, "Cargo.toml"))
        if data is None:
            continue
        if name in _bins(d, data):
            return None
    return f"{name!r} is not a binary target of the workspace"


def _bins(d, data):
    out = set()
    pkg = data.get("package") or {}
    pname = pkg.get("name") if isinstance(pkg, dict) else None
    if isinstance(pname, str) and os.path.isfile(os.path.join(d, "src", "main.rs")) \
            and pkg.get("autobins", True) is not False:
        out.add(pname)
    for b in data.get("bin") or []:
        if isinstance(b, dict) and isinstance(b.get("name"), str):
            out.add(b["name"])
    if isinstance(pname, str) and pkg.get("autobins", True) is not False:
        bindir = os.path.join(d, "src", "bin")
        try:
            entries = os.listdir(bindir)
        except OSError:
            entries = []
        for e in entries:
            if e.endswith(".rs"):
                out.add(e[:-3])
            elif os.path.isfile(os.path.join(bindir, e, "main.rs")):
                out.add(e)
    # cargo names the file with '-' as written (a bin named a_b stays a_b)
    return out


def _artifact_ids(path):
    """The artifactId elements of a pom.xml (project's own and its parent's), textually."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = fh.read(_MAX_TOML)
    except OSError:
        return set()
    out = set()
    i = text.find("<artifactId>")
    while i >= 0:
        j = text.find("</artifactId>", i)
        if j < 0:
            break
        out.add(text[i + len("<artifactId>"):j].strip())
        i = text.find("<artifactId>", j)
    return out


def _maven_unproven(ctx, module, base):
    poms = [os.path.join(module, "pom.xml")]
    if module == ctx.roots.project:
        # a multi-module build's artifact copied up, or the root's own
        try:
            poms += [os.path.join(module, d, "pom.xml") for d in sorted(os.listdir(module))]
        except OSError:
            pass
    ids = set()
    for p in poms:
        if os.path.isfile(p):
            ids |= _artifact_ids(p)
    if not os.path.isfile(poms[0]):
        return "there is no pom.xml beside target/"
    for a in ids:
        if a and base.startswith(a + "-") and base[len(a) + 1:][:1].isdigit():
            return None
    return f"{base}.jar is not named after an artifactId of the pom"


def _gradle_unproven(ctx, module, base):
    if not any(os.path.isfile(os.path.join(module, f)) for f in ("build.gradle",
                                                                  "build.gradle.kts")):
        return "there is no Gradle build file beside build/"
    names = {posixpath.basename(module.rstrip("/"))}
    for f in ("settings.gradle", "settings.gradle.kts"):
        try:
            with open(os.path.join(ctx.roots.project, f), encoding="utf-8",
                      errors="replace") as fh:
                text = fh.read(_MAX_TOML)
        except OSError:
            continue
        k = text.find("rootProject.name")
        if k >= 0:
            rest = text[k:].split("\n", 1)[0]
            q = rest.replace("'", '"').split('"')
            if len(q) >= 3:
                names.add(q[1])
    for n in names:
        if n and (base == n or base.startswith(n + "-")):
            return None
    return f"{base}.jar is not named after the Gradle project"
