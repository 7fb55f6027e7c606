"""docs/security.md's one rule for writes in default mode, held to both hooks (issue 25):
a write whose content comes from the project's tools or the repository, or that creates
only something empty, runs; a write whose content or target the command line dictates is
the agent's edit and asks (and acceptEdits allows it inside the project).

Judged as the client's hooks judge it (the everyday benchmark's Judge: PreToolUse, then
PermissionRequest) in the benchmark's sample project.
"""

import pytest

from benchmarks.everyday import run as bench

TOOLS = ["pytest -q", "make test", "black src", "ruff format src", "ruff check --fix src",
         "python3 -m compileall -q src", "coverage html", "touch notes.md", "mkdir -p build",
         "mktemp -d", "git stash", "git switch feature", "cargo build", "go build ./...",
         # a build tool's clean: its own output, where the configuration puts it
         "cargo clean", "cargo clean --release"]
EDITS = ["sed -i 's/a/b/' src/shop/app.py", "perl -pi -e 's/a/b/' src/shop/app.py",
         "echo x > notes.md", "echo '*.log' >> .gitignore", "tee notes.md < README.md",
         "cat > notes.md <<'EOF'\nhello\nEOF", "cp README.md docs/readme.md",
         "mv CHANGELOG.md docs/", "chmod +x scripts/release.sh", "rm -rf build",
         "find . -name '*.pyc' -delete", "git restore src/shop/app.py",
         "ln -s README.md readme", "cargo clean --target-dir docs"]


@pytest.fixture(scope="module")
def judge(tmp_path_factory):
    return bench.Judge(str(tmp_path_factory.mktemp("editrule")))


@pytest.mark.parametrize("command", TOOLS)
def test_the_projects_own_tools_run_in_default_mode(judge, command):
    got = judge(command, "default")
    assert got["final"] == "allow", (command, got)


@pytest.mark.parametrize("command", EDITS)
def test_an_edit_the_command_line_dictates_asks_in_default_mode(judge, command):
    got = judge(command, "default")
    assert got["final"] == "ask", (command, got)
    if command.startswith(("git restore", "perl")):
        return  # not an edit acceptEdits extends to (data loss; an interpreter's code)
    if command.startswith("find"):
        # the sample project's .pyc files are neither committed nor ignored: removing them
        # cannot be undone, so acceptEdits asks too (GW786)
        assert judge(command, "acceptEdits")["final"] == "ask", command
        return
    assert judge(command, "acceptEdits")["final"] == "allow", command
