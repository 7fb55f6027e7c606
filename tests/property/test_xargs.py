"""`P | xargs CMD` is judged as CMD with the names P prints (gateway/validator/xargs.py):
proven against real bash and real xargs on generated file names.

For each generated set of file names (blanks, quotes, backslashes, leading dashes, secrets,
non-ASCII, newlines among them) in a fresh git repository, the line is judged; when it is
allowed, the same pipeline runs in real bash with xargs's command replaced by one that
prints its arguments, and every argument it got must be a regular file of the project that
is no secret and does not start with '-': what the validator judged is what runs.
"""

import os
import subprocess
import tempfile

from hypothesis import given
from hypothesis import strategies as st

from tests.property.conftest import budget
from tests.property.support import tick

_CHARS = st.sampled_from(list("abcXY_.") + [" ", "'", '"', "\\", "-", "\n", "\t", "é", "*"])
_NAME = st.one_of(
    st.text(_CHARS, min_size=1, max_size=8),
    st.sampled_from([".env", "-rf", "--files0-from=.env", "a b", "x.py", "key.pem",
                     "src/ok.py", "notes.txt"]))

PRODUCERS = [
    ("git ls-files", "wc -l", False),
    ("git ls-files -z", "-0 wc -l", True),
    ("find . -type f -name '*.py'", "grep -l x", False),
    ("find src -type f", "wc -c", False),
    ("find . -type f -print0", "-0 cat", True),
    ("git ls-files | sort | head -50", "cat", False),
    # grep -l / git grep -l: the files they search are judged (a superset of what they print)
    ("grep -rl x src", "wc -l", False),
    ("grep -rl x", "cat", False),
    ("grep -rli x . | sort", "wc -c", False),
    ("grep -l x x.py notes.txt", "cat", False),
    ("git grep -l x", "wc -l", False),
    ("git grep -lz x", "-0 cat", True),
    # git diff --name-only: git is asked (the repository has no commit: --cached lists all)
    ("git diff --name-only --cached", "wc -l", False),
    ("git diff --cached --name-only -z", "-0 cat", True),
]


def _usable(name):
    return name not in (".", "..", ".git") and "/" not in name.strip("/") or \
        name == "src/ok.py"


@budget(80)
@given(names=st.lists(_NAME, min_size=1, max_size=6, unique=True),
       which=st.integers(0, len(PRODUCERS) - 1))
def test_an_allowed_xargs_line_runs_exactly_what_was_judged(policy, names, which):
    tick("xargs: allowed lines run only what was judged")
    from gateway.paths import is_secret
    from gateway.settings import SettingsRules
    from gateway.validator.pipeline import validate

    producer, command, _null = PRODUCERS[which]
    with tempfile.TemporaryDirectory() as tmp:
        project = os.path.realpath(os.path.join(tmp, "p"))
        os.makedirs(os.path.join(project, "src"))
        made = []
        for n in names:
            if not _usable(n) or "\x00" in n:
                continue
            path = os.path.join(project, n)
            try:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as fh:
                    fh.write("x\n")
            except OSError:
                continue
            made.append(n)
        subprocess.run(["git", "init", "-q", project], check=True)
        subprocess.run(["git", "-C", project, "add", "-A", "-f"], check=True,
                       capture_output=True)
        line = f"{producer} | xargs {command}"
        got = validate(line, project, project, policy, "Bash", SettingsRules(),
                       home=os.path.join(tmp, "home"))
        if str(got.decision) != "allow":
            tick(f"xargs: ({got.code})")
            return
        tick("xargs: (allowed, run in bash)")
        # real bash: the command xargs runs replaced by one that prints its arguments
        opts = "-0 " if command.startswith("-0") else ""
        probe = f"{producer} | xargs {opts}sh -c 'for a; do printf \"%s\\0\" \"$a\"; done' _"
        out = subprocess.run(["bash", "-c", probe], cwd=project, capture_output=True,
                             check=True).stdout
        for arg in [os.fsdecode(a) for a in out.split(b"\0") if a]:
            assert not arg.startswith("-"), (line, names, arg, got.message)
            path = os.path.join(project, arg)
            assert os.path.isfile(path) and not os.path.islink(path), (line, names, arg)
            assert not is_secret((os.path.normpath(path),), policy), (line, names, arg)
