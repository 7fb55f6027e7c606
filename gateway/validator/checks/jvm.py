"""Maven and Gradle (the catalogue's `build_tool` entries, issue 25).

Both take several words, each a step they run: Maven's lifecycle phases and plugin goals
(`mvn -q clean verify`, `mvn dependency:tree`), Gradle's tasks (`gradle :app:test`). Like
`make`, they run the project's build as the project's own code: allowed only as the HEAD
commit holds the files that say what runs (`recipes`: pom.xml, .mvn/maven.config and
extensions.xml; build.gradle(.kts), settings.gradle(.kts), gradle.properties), else GW782.

Everything on the command line is an allowlist read from the entry:

* each step must be one of `goals` (a Gradle task may be written `:module:task`): `install`
  (writes ~/.m2, where other projects pick it up), `deploy`, `publish`, `flyway:migrate`,
  `exec:exec`, a fully qualified `group:plugin:version:goal` are not listed and ask;
* an option must be in `safe_flags` (with its value for `value_flags`, read as a name: no
  path, so `-pl ../other` or `-f /tmp/pom.xml` cannot build another tree); `unsafe_flags`
  (another settings or build file, an init script, a build scan upload) ask;
* a system property `-Dname[=value]` must be one of `properties` (`-Dexec.executable=sh`,
  `-Dmaven.repo.local=/tmp/x` and `-Dspring-boot.run.jvmArguments=-javaagent:...` ask).
"""

import glob
import os
import re

from gateway.validator.checks._common import PHASE

_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:,!@*#?\-]*")
_TASK = re.compile(r"[A-Za-z][A-Za-z0-9_\-]*")


def _ask(ctx, label, what, code="GW704"):
    return ctx.ask(PHASE, code, f"{label} {what}", rule=f"catalogue:{label}")


def _goal_ok(goals, word) -> bool:
    if word in goals:
        return True
    # Gradle: `:order-service:test`, `order-service:test` (a project path, then a task);
    # a tool whose steps hold a colon (Maven's plugin:goal) takes no such path
    if ":" in word and not any(":" in g for g in goals):
        parts = word.lstrip(":").split(":")
        return (len(parts) >= 2 and parts[-1] in goals and "." not in word
                and all(_TASK.fullmatch(p) for p in parts))
    return False


def jvm_build(ctx, spec, words, cwd):
    """(verdict, path candidates, written) for `mvn ...` / `gradle ...`."""
    label = spec.name
    bt = spec.build_tool or {}
    goals = frozenset(bt.get("goals", ()))
    props = frozenset(bt.get("properties", ()))
    safe = spec.safe_flags or frozenset()
    i, n = 0, len(words)
    steps = []
    while i < n:
        w = words[i]
        if w.startswith("-D") and len(w) > 2 or w == "-D":
            prop = w[2:] if w != "-D" else (words[i + 1] if i + 1 < n else "")
            i += 1 if w != "-D" else 2
            name = prop.split("=", 1)[0]
            if name not in props:
                return _ask(ctx, label, f"-D{name}: a property that is not known to be safe "
                            "(it may name a program to run, a repository or a file outside "
                            "the project)"), [], []
            continue
        if w.startswith("-") and w != "-":
            name, eq, value = w.partition("=")
            if name in spec.unsafe_flags:
                return _ask(ctx, label, f"{name}: reads another build or settings file, runs "
                            "an init script or uploads the build"), [], []
            if name not in safe:
                return _ask(ctx, label, f"{name} is not among its known options (every "
                            "option of a build tool is listed; an unlisted one may run "
                            "programs or write files)"), [], []
            if name in spec.value_flags:
                if not eq:
                    if i + 1 >= n:
                        return _ask(ctx, label, f"{name} without its value"), [], []
                    value = words[i + 1]
                    i += 1
                if name not in spec.text_flags and not _NAME.fullmatch(value):
                    return _ask(ctx, label, f"{name} {value!r}: a module, task or profile "
                                "name is expected here, not a path"), [], []
            elif eq and name not in spec.text_flags:
                return _ask(ctx, label, f"{w}: {name} takes no value"), [], []
            i += 1
            continue
        if not _goal_ok(goals, w):
            return _ask(ctx, label, f"{w}: not one of the steps it is known to run safely "
                        "(install, deploy, publish, migrations and plugins that run programs "
                        "ask)", code="GW705"), [], []
        steps.append(w)
        i += 1
    verdict = _recipes(ctx, label, bt.get("recipes", ()), cwd)
    return verdict, [], []


def _recipes(ctx, label, patterns, cwd):
    """The ask when a file that says what the build runs is not the HEAD commit's."""
    from gateway.validator import trusted_code

    seen = set()
    for base in dict.fromkeys((ctx.roots.project, cwd)):
        for pattern in patterns:
            for path in sorted(glob.glob(os.path.join(glob.escape(base), pattern))):
                if path in seen:
                    continue
                seen.add(path)
                verdict = trusted_code.recipe(ctx, label, path, "the build it runs")
                if verdict is not None:
                    return verdict
    return None


def wrapper_unseen(ctx, tool, script_real):
    """Why the project's wrapper script of `tool` (or one of its files) is not the HEAD
    commit's, or None."""
    from gateway.validator import trusted_code

    spec = ctx.policy.command(tool)
    bt = (spec.build_tool if spec is not None else None) or {}
    why = trusted_code.unseen(script_real, ctx.roots.project_real)
    if why is not None:
        return why
    for rel in bt.get("wrapper_files", ()):
        path = os.path.realpath(os.path.join(ctx.roots.project, rel))
        why = trusted_code.unseen(path, ctx.roots.project_real)
        if why is not None:
            return f"{rel}: {why}"
    return None


# --- jar and javap (the JDK's archive lister and class disassembler) -------------------------

#: jar's old-style first word: one mode letter and modifiers (`tf`, `tvf`); only the
#: listing mode `t` reads (c creates, u updates, x extracts, i writes an index into the jar)
_JAR_LIST_LETTERS = frozenset("tvf")


def jar(ctx, spec, words, cwd):
    """`jar tf FILE` / `jar --list --file FILE` lists the archive's entry names (the names
    after the file only filter the listing): read-only. Every other mode writes (create,
    update, extract, index) and asks, as do -J (a JVM option: -J-javaagent:x runs code),
    @argfiles (more arguments from a file) and a listing of standard input (no f)."""
    label = "jar"
    if not words:
        return _ask(ctx, label, "without a mode", code="GW712"), [], []
    # the JDK's launcher expands @FILE anywhere on the line, the file's operand included
    # (red team: `jar tf @args.txt`, args.txt a link to ~/.git-credentials, printed it)
    at = next((w for w in words if w.startswith("@")), None)
    if at is not None:
        return _ask(ctx, label, f"{at}: reads more arguments from a file"), [], []
    archive = None
    listing = False
    rest = list(words)
    first = rest[0]
    if not first.startswith("-") and not first.startswith("@"):
        # the old style: a cluster of letters, then the file when it holds f
        if not set(first) <= _JAR_LIST_LETTERS or "t" not in first:
            return _ask(ctx, label, f"{first!r}: only the listing mode (t, with v and f) is "
                        "read-only; c, u, x and i write"), [], []
        listing = True
        rest = rest[1:]
        if "f" in first:
            if not rest:
                return _ask(ctx, label, "f without its file", code="GW712"), [], []
            archive = rest.pop(0)
    else:
        i = 0
        while i < len(rest):
            w = rest[i]
            if w.startswith("@"):
                return _ask(ctx, label, f"{w}: reads more arguments from a file"), [], []
            if not w.startswith("-") or w == "-":
                break
            name, eq, value = w.partition("=")
            i += 1
            if name in ("-t", "--list"):
                listing = True
            elif name in ("-v", "--verbose"):
                pass
            elif name in ("-f", "--file"):
                if not eq:
                    if i >= len(rest):
                        return _ask(ctx, label, f"{w} without its file", code="GW712"), [], []
                    value = rest[i]
                    i += 1
                archive = value
            elif name.startswith("-") and len(name) > 2 and not name.startswith("--") \
                    and set(name[1:]) <= _JAR_LIST_LETTERS:
                listing = listing or "t" in name
                if "f" in name:
                    if i >= len(rest):
                        return _ask(ctx, label, f"{w} without its file", code="GW712"), [], []
                    archive = rest[i]
                    i += 1
            else:
                return _ask(ctx, label, f"{w}: not an option of jar's listing mode (-J runs "
                            "JVM options, -c/-u/-x/-i write)"), [], []
        rest = rest[i:]
    if not listing:
        return _ask(ctx, label, "only the listing mode (-t / --list) is read-only"), [], []
    if archive is None or archive == "-":
        return _ask(ctx, label, "lists standard input (no -f FILE)", code="GW712"), [], []
    if any(w.startswith(("-", "@")) for w in rest):
        return _ask(ctx, label, f"{next(w for w in rest if w.startswith(('-', '@')))!r} "
                    "after the entry names"), [], []
    # the words after the file filter the entry names printed: text. Names are printed,
    # not the archive's bytes (gateway.secrets.content)
    ctx.__dict__.setdefault("containers_judged", set()).add(archive)
    ctx.note_readonly()
    return None, [archive], []


_JAVAP_FLAGS = frozenset(("-v", "-verbose", "--verbose", "-l", "-public", "-protected",
                          "-package", "-p", "-private", "-c", "-s", "-sysinfo", "-constants"))
_JAVAP_PATHS = frozenset(("-cp", "-classpath", "--class-path", "-bootclasspath",
                          "--module-path", "--upgrade-module-path"))
_JAVAP_TEXT = frozenset(("-m", "--module", "--multi-release"))


def javap(ctx, spec, words, cwd):
    """javap prints the classes it is given, found on its class path: read-only. Each entry
    of -cp / -classpath / --class-path (and the other path lists), split on ':', is a path
    read with the path rules (inside the project; `dir/*` is the directory); a class given
    as a file (`x/A.class`, or with a /) is a path; a class name is text. A URL
    (`jar:file:/x.jar!/A.class` is read) and -J (a JVM option: -J-javaagent:x runs code)
    ask, as does any option not listed. Without a class path option javap reads the
    CLASSPATH variable's entries: it must not be set."""
    label = "javap"
    at = next((w for w in words if w.startswith("@") or ":@" in w), None)
    if at is not None:
        return _ask(ctx, label, f"{at}: reads more arguments from a file"), [], []
    cands = []
    classes = []
    given_path = False
    i = 0
    while i < len(words):
        w = words[i]
        i += 1
        if w.startswith("-") and w != "-":
            name, eq, value = w.partition("=")
            if name in _JAVAP_FLAGS and not eq:
                continue
            if name in _JAVAP_PATHS or name in _JAVAP_TEXT:
                if not eq:
                    if i >= len(words):
                        return _ask(ctx, label, f"{w} without its value", code="GW712"), [], []
                    value = words[i]
                    i += 1
                if name in _JAVAP_PATHS:
                    given_path = given_path or name in ("-cp", "-classpath", "--class-path")
                    for entry in value.split(":"):
                        if not entry:
                            # an empty entry is the working directory
                            entry = "."
                        if entry.endswith("/*") or entry == "*":
                            entry = entry[:-1] or "."
                        if "*" in entry or "?" in entry or "[" in entry:
                            return _ask(ctx, label, f"{name} {value!r}: a class path entry "
                                        "with a pattern"), [], []
                        cands.append(entry)
                continue
            return _ask(ctx, label, f"{w}: not among its known options (-J passes options "
                        "to the JVM: -J-javaagent runs code)"), [], []
        if w.startswith("@") or ":" in w or "!" in w:
            return _ask(ctx, label, f"{w!r}: a URL or an argument file names what it reads "
                        "anywhere"), [], []
        if "/" in w or w.endswith(".class"):
            cands.append(w)
        classes.append(w)
    if not classes:
        return _ask(ctx, label, "without a class", code="GW712"), [], []
    if not given_path and (ctx.env or {}).get("CLASSPATH"):
        return _ask(ctx, label, "the CLASSPATH variable names where it reads classes (give "
                    "-cp DIR)"), [], []
    ctx.note_readonly()
    return None, cands, []
