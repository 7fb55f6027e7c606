"""What the property tests share: the sample project with extra symlinks, an independent
path oracle (what the *kernel* would open), the judge, and the run statistics CI prints.
"""

import collections
import contextlib
import os
import posixpath

from tests.helpers import commit_paths, make_project

# --- statistics printed at the end of the run (see conftest.pytest_terminal_summary) --------

STATS = {
    "examples": collections.Counter(),  # property -> bodies run (examples tried)
    "cases": collections.Counter(),  # data table -> rows run through the invariants
    "validations": 0,  # validator and hook calls made by the property tests
    "seconds": 0.0,  # time spent in the suite's tests
}


def tick(name: str) -> None:
    STATS["examples"][name] += 1


# --- the sample project ---------------------------------------------------------------------

# Symlinks added to tests/helpers.make_project's project (which already has lnk -> /etc,
# scripts/tmplink -> /tmp, scripts/app_link.py -> src/app.py, notes.txt -> .env).
EXTRA_LINKS = {
    "inlink": "src",  # relative, inside
    "chain1": "inlink",  # a chain that stays inside
    "uplink": "..",  # the project's parent: outside
    "chainout": "lnk",  # a chain that leaves
    "outfile": "/etc/hostname",  # a file outside
    "dangling": "/nonexistent-gateway-test/x",  # points nowhere, outside
    "src/back": "../scripts",  # inside, through ..
}

# Names that exist in the project (files and directories), none of them secret.
INSIDE_FILES = ["README.md", "a.txt", "file.txt", "src/app.py", "src/auth/login.py",
                "scripts/foo.py", ".env.example", "scripts/app_link.py", "inlink/app.py",
                "chain1/auth/login.py", "src/back/foo.py"]
INSIDE_DIRS = [".", "src", "src/auth", "scripts", "inlink", "chain1", "src/back", "docs"]
# Names that do not exist but would be inside.
INSIDE_NEW = ["new.txt", "src/new.py", "out/x.txt"]


def build_project(root) -> str:
    """The sample project, a repository whose HEAD commit holds its contained scripts (code a
    human has seen: gateway.validator.trusted_code), with the links of EXTRA_LINKS."""
    root = make_project(root)
    commit_paths(root, ["scripts/foo.py", "scripts/run.sh"])
    commit_paths(root, ["scripts/sub/bar.py", ".claude/hooks/h.sh"])  # HEAD~1 exists too
    os.makedirs(os.path.join(root, "docs"), exist_ok=True)
    for link, target in EXTRA_LINKS.items():
        if target.startswith("abs:"):
            target = os.path.join(root, target[4:])
        os.symlink(target, os.path.join(root, link))
    os.symlink(os.path.join(root, "src"), os.path.join(root, "abslink"))
    return root


# --- the oracle -----------------------------------------------------------------------------

SPECIAL = frozenset(("/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/zero",
                     "/dev/random", "/dev/urandom", "/dev/tty"))


def within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def kernel_path(arg: str, cwd: str) -> str:
    """The file the kernel opens for `arg` relative to `cwd`: symlinks are resolved component
    by component, *before* a following `..` (os.path.realpath on the un-normalised path)."""
    joined = arg if arg.startswith("/") else cwd.rstrip("/") + "/" + arg
    return os.path.realpath(joined)


def lexical_path(arg: str, cwd: str) -> str:
    joined = arg if arg.startswith("/") else posixpath.join(cwd, arg)
    norm = posixpath.normpath(joined)
    return "/" + norm.lstrip("/")


def path_status(arg: str, cwd: str, project: str) -> str:
    """inside / outside (lexically) / symlink_out (lexically inside, really outside)."""
    lex = lexical_path(arg, cwd)
    if lex in SPECIAL:
        return "special"
    real = kernel_path(arg, cwd)
    if not within(lex, project):
        return "outside" if not within(real, project) else "outside_lexical"
    if not within(real, project):
        return "symlink_out"
    return "inside"


def gateway_model_differs(arg: str, cwd: str) -> bool:
    """True when the kernel's path differs from "normalise `..` first, then resolve": the
    shape of the open bug `symlink-dotdot` (see known_bugs.py)."""
    lex = lexical_path(arg, cwd)
    return os.path.realpath(lex) != kernel_path(arg, cwd)


# --- judging --------------------------------------------------------------------------------

class Judge:
    """validate() against one project and policy, counting calls."""

    def __init__(self, project, policy):
        from gateway.settings import SettingsRules

        self.project = project
        self.policy = policy
        self.settings = SettingsRules()

    def __call__(self, command, cwd=None, policy=None, settings=None, tool_name="Bash",
                 mode=None, home=None):
        from gateway.validator.pipeline import validate

        STATS["validations"] += 1
        where = os.path.join(self.project, cwd) if cwd else self.project
        return validate(command, where, self.project, policy or self.policy, tool_name,
                        settings or self.settings, mode=mode, home=home)


def show(verdict) -> str:
    return (f"{verdict.decision} {verdict.code} (phase {verdict.phase}, rule "
            f"{verdict.rule!r}: {verdict.message})")


def fill(value: str, project: str) -> str:
    return value.replace("{PROJECT}", project)


def fill_cmd(cmd, project):
    cmd.argv = [fill(a, project) for a in cmd.argv]
    return cmd


@contextlib.contextmanager
def builtin_layers_read_once():
    """merge() re-validates the built-in YAML on every call (0.3 s); the built-in files do
    not change during the run, so keep their parsed form. Project/local layers are read
    for real every time."""
    import gateway.policy.merge as merge_mod

    orig = merge_mod.read_layer
    memo = {}

    def read(layer, path):
        if layer != "builtin":
            return orig(layer, path)
        if path not in memo:
            memo[path] = orig(layer, path)
        return memo[path]

    merge_mod.read_layer = read
    try:
        yield
    finally:
        merge_mod.read_layer = orig


@contextlib.contextmanager
def in_dir(path):
    """Run with the process working directory at `path` (the hook is started in the
    project by the client; a payload without `cwd` is judged from there)."""
    old = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)
