"""Globs and braces are expanded as bash expands them (issue 13, precision with soundness).

Each example builds a small tree (visible and hidden names, upper and lower case, nested
directories, a secret or two, sometimes a name that starts with `-`), draws a pattern from
bash's grammar (stars, `?`, bracket expressions, braces, `**`, quoted pieces) and asks REAL
bash for its expansion under the shell options a user's snapshot may carry (dotglob,
nocaseglob, globstar, nullglob, globskipdots off). Then:

* bash with its defaults gives exactly the strict reading (gateway.shell.expand);
* every option combination gives a subset of the wide reading (or the pattern itself, or
  nothing);
* `cat PATTERN` is never allowed when some combination makes cat read a secret or see a
  name that starts with `-`.
"""

import itertools
import os
import shutil
import subprocess
import tempfile

from hypothesis import given
from hypothesis import strategies as st

from gateway.decision import ALLOW
from tests.property.conftest import budget
from tests.property.support import show, tick

NAMES = ["a.py", "b.py", "B.PY", ".hidden.py", ".env", "notes.md", "c.txt", "src/x.py",
         "src/.y.py", "src/deep/z.py", "src/deep/.env", ".cfg/k.py", "Readme.md", "-rf",
         "d[1].txt", "e*.txt"]
SECRETS = {".env", "src/deep/.env"}
OPTIONS = ["dotglob", "nocaseglob", "globstar", "nullglob"]


@st.composite
def pattern(draw):
    pieces = draw(st.lists(st.sampled_from(
        ["*", "?", "[a-c]", "[!a]", "[[:upper:]]", ".", "py", "md", "txt", "a", "b", "B",
         "e", "env", "src/", "**/", "deep/", "{a,b}", "{py,md}", "'*'", "\\*", ".*", "-"]),
        min_size=1, max_size=4))
    text = "".join(pieces)
    if text.startswith("-"):
        text = "./" + text
    return text


def _bash(pattern, root, opts, skipdots=True):
    setup = "; ".join([f"shopt -s {o}" for o in opts]
                      + ([] if skipdots else ["shopt -u globskipdots"]))
    script = (setup + "; " if setup else "") + f"printf '%s\\0' {pattern}"
    out = subprocess.run(["bash", "-c", script], cwd=root,
                         capture_output=True, timeout=10, env={"PATH": "/usr/bin:/bin"})
    return [w for w in out.stdout.decode("utf-8", "surrogateescape").split("\0") if w]


@budget(100)
@given(names=st.lists(st.sampled_from(NAMES), min_size=2, max_size=9, unique=True),
       pat=pattern())
def test_glob_expansion_against_bash(policy, names, pat):
    tick("globs: expansion against bash")
    from gateway.settings import SettingsRules
    from gateway.shell import expand
    from gateway.shell.parse import parse
    from gateway.validator.pipeline import validate

    root = tempfile.mkdtemp(prefix="gw-globs-")
    try:
        for rel in names:
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as fh:
                fh.write("x\n")
        try:
            word = parse(f"cat {pat}").items[0][0].commands[0].words[1]
        except Exception:
            return  # a pattern bash would not read as one word here
        budget_ = expand.Budget()
        strict, wide, literal = [], [], []
        for p in expand.braces(word.pattern, budget_):
            if expand.has_glob(p):
                s = expand.expand(p, root, False, budget_)
                strict.extend(s or [expand.unescape(p)])
                wide.extend(expand.expand(p, root, True, budget_))
                literal.append(expand.unescape(p))
            else:
                strict.append(expand.unescape(p))
                wide.append(expand.unescape(p))
        default = _bash(pat, root, [])
        assert default == strict, f"{pat!r} in {names}: bash {default}, strict {strict}"
        allowed = set(wide) | set(literal)
        seen = set()
        for k in range(len(OPTIONS) + 1):
            for opts in itertools.combinations(OPTIONS, k):
                for skip in (True, False):
                    got = _bash(pat, root, list(opts), skip)
                    extra = set(got) - allowed
                    assert not extra, (f"{pat!r} in {names} with {opts}, globskipdots "
                                       f"{skip}: bash {got}, beyond the wide reading {extra}")
                    seen.update(got)
        v = validate(f"cat {pat}", root, root, policy, "Bash", SettingsRules())
        bad = sorted(n for n in seen if os.path.normpath(n) in SECRETS or n.startswith("-"))
        if bad:
            tick("globs: (patterns that reach a secret or an option)")
            assert v.decision is not ALLOW, f"cat {pat}: bash may pass {bad}, yet {show(v)}"
    finally:
        shutil.rmtree(root, ignore_errors=True)
