"""The console examples of the workflow command pages are real runs: docs/tools/run_examples.py
--check builds the committed HEAD in scratch directories, runs every page's commands on a copy
of its sample project (docs/examples/) and compares what they print with the page.

Slow (a fresh install per page); it checks the committed HEAD, so commit before running it."""

import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOL = os.path.join(REPO, "docs", "tools", "run_examples.py")

#: the pages of the workflow commands and of the state they keep (issues 14-16)
PAGES = ["breezing.md", "crew-cli.md", "orch.md", "spec-sync.md", "state.md",
         "workflow-state.md"]


def _git_head_ok():
    r = subprocess.run(["git", "-C", REPO, "rev-parse", "HEAD"], capture_output=True)
    return r.returncode == 0


@pytest.mark.slow
@pytest.mark.skipif(not _git_head_ok(), reason="needs the git checkout (run_examples builds HEAD)")
@pytest.mark.parametrize("page", PAGES)
def test_the_page_prints_what_it_shows(page):
    p = subprocess.run([sys.executable, TOOL, "--check", os.path.join(REPO, "docs", page)],
                       capture_output=True, text=True, timeout=1500)
    assert p.returncode == 0, p.stdout[-6000:] + p.stderr[-2000:]
    assert p.stdout.endswith(" printed something else\n") and ", 0 printed" in p.stdout


def test_the_tool_knows_every_page_with_console_examples():
    listed = subprocess.run([sys.executable, TOOL, "--list"], capture_output=True, text=True,
                            timeout=60)
    assert listed.returncode == 0
    known = {os.path.basename(x) for x in listed.stdout.split()}
    with_examples = set()
    for name in os.listdir(os.path.join(REPO, "docs")):
        if name.endswith(".md"):
            text = open(os.path.join(REPO, "docs", name), encoding="utf-8").read()
            if "\n```console\n" in text:
                with_examples.add(name)
    assert with_examples <= known, sorted(with_examples - known)
    assert set(PAGES) <= known


def test_usage_errors_exit_2():
    p = subprocess.run([sys.executable, TOOL, "docs/no-such-page.md"], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 2
    assert "docs/no-such-page.md: no set-up known for this page (see PRELUDES)" in p.stderr
