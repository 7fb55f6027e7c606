"""`find START... TESTS -exec CMD ARGS {} +|;` judged as CMD ARGS on the files find lists
(issue 25, p25), in the independent benchmark's Vite/TS app. Proven in real bash (GNU
findutils 4.9, a temp project): find hands each name as one argument that begins with its
start path (`src/-i` and `src/a b.tsx` arrived whole), so a name is never an option or two
words; `find . -name 'settings*.json' -exec sed -i 's/deny/allow/' {} +` rewrote
.claude/settings.json (the permission surface below the start); sed -i on a listed
symbolic link replaced the link (its target outside was not written).

The neighbours keep asking: a start whose tree holds the permission surface, .git or a
secret, a start outside the project, a command that writes outside or runs code, rm (find's
tests choose what it removes), `{}` anywhere but last, a second action; in default and plan
mode the edit asks as `sed -i FILE` does."""

import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gateway.decision import ALLOW
from tests.property.conftest import budget
from tests.property.support import tick


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    from benchmarks.everyday.independent.projects import build

    project, home = build(str(tmp_path_factory.mktemp("findexec")), "node")
    os.makedirs(os.path.join(project, ".claude"), exist_ok=True)
    with open(os.path.join(project, ".claude", "settings.json"), "w") as fh:
        fh.write('{"permissions": {}}\n')
    return project, home


def _v(policy, app, command, mode):
    from gateway.validator.pipeline import validate

    project, home = app
    return validate(command, project, project, policy, mode=mode, env={"HOME": home})


TESTS = ['-name "*.tsx"', "-type f", '-name "*.ts" -type f', '-iname "*.TSX"',
         "-maxdepth 3 -type f", ""]
EDITS = ["sed -i 's#@/old-ui/#@/ui/#g'", "sed -i -e 's/a/b/'", "sed -i.bak 's/x/y/'"]
TERMS = ["+", "\\;", "';'"]


@budget(40)
@given(tests=st.sampled_from(TESTS), edit=st.sampled_from(EDITS), term=st.sampled_from(TERMS))
def test_an_edit_of_the_listed_files_is_an_edit(policy, app, tests, edit, term):
    tick("find-exec:edit")
    cmd = f"find src {tests} -exec {edit} {{}} {term}"
    assert _v(policy, app, cmd, "acceptEdits").decision is ALLOW, cmd
    for mode in ("default", "plan"):
        v = _v(policy, app, cmd, mode)
        assert v.decision is not ALLOW, (cmd, mode, v.code)


STARTS_BAD = [".", "./", ".claude", ".git", "..", "/tmp", "src/../..", "src .claude",
              "$HOME", "~"]
WRITERS = ["sed -i 's/a/b/'", "chmod 600", "touch", "sed -i s/deny/allow/", "truncate -s 0",
           "tee -a"]


@budget(60)
@given(start=st.sampled_from(STARTS_BAD), tests=st.sampled_from(TESTS),
       writer=st.sampled_from(WRITERS), term=st.sampled_from(TERMS),
       mode=st.sampled_from(["default", "acceptEdits", "plan"]))
def test_a_start_that_reaches_the_surface_or_outside_asks(policy, app, start, tests, writer,
                                                           term, mode):
    tick("find-exec:bad-start")
    cmd = f"find {start} {tests} -exec {writer} {{}} {term}"
    v = _v(policy, app, cmd, mode)
    assert v.decision is not ALLOW, (cmd, mode, v.code, v.message)


RUNNERS_BAD = ["rm", "rm -rf", "rm -f", "/bin/rm -r", "rmdir", "sh -c 'cat \"$1\"' sh",
               "bash -c 'x'", "cp -t /tmp", "mv -t /tmp", "python3", "node",
               "sed -i -e 's/a/b/' -e 'w /tmp/x'", "sed -i 's/a/b/e'", "xargs rm",
               "env rm"]


@budget(60)
@given(tests=st.sampled_from(TESTS), cmd=st.sampled_from(RUNNERS_BAD),
       term=st.sampled_from(TERMS), mode=st.sampled_from(["default", "acceptEdits", "plan"]))
def test_a_command_that_removes_runs_code_or_writes_outside_asks(policy, app, tests, cmd,
                                                                   term, mode):
    tick("find-exec:bad-command")
    line = f"find src {tests} -exec {cmd} {{}} {term}"
    v = _v(policy, app, line, mode)
    assert v.decision is not ALLOW, (line, mode, v.code, v.message)


@pytest.mark.parametrize("line", [
    "find src -name '*.tsx' -exec sed -i s/a/b/ {} x +",       # not find's form
    "find src -name '*.tsx' -exec cp {} /tmp/x ';'",          # {} not last
    "find src -name '*.tsx' -exec sed -i 's/{}/b/' {} +",      # {} inside a word
    "find src -name '*.tsx' -exec sed -i s/a/b/ {} + -print",  # a second action
    "find src -name '*.tsx' -exec sed -i s/a/b/ {} + -exec cat {} +",
    "find src -name '*.tsx' -execdir sed -i s/a/b/ {} +",
    "find src -name '*.tsx' -ok sed -i s/a/b/ {} ';'",
    "find src -name '*.tsx' -exec sed -i s/a/b/ {}",           # no terminator
    "find -L src -name '*.tsx' -exec sed -i s/a/b/ {} +",
    "find src -newer /etc/passwd -exec sed -i s/a/b/ {} +",
])
@pytest.mark.parametrize("mode", ["acceptEdits", "default"])
def test_forms_not_judged_ask(policy, app, line, mode):
    v = _v(policy, app, line, mode)
    assert v.decision is not ALLOW, (line, v.code, v.message)
