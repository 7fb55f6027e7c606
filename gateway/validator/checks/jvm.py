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
