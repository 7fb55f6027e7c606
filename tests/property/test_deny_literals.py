"""Class 7 (issue 13), deny rules that see only literals: a catastrophic target spelled
through expansions, and run through a program that runs its arguments.

Words are generated from the forms bash offers (parameter expansions with defaults,
pattern removal, substitution, unset variables, quotes, globs of every hidden or visible
entry), and REAL bash prints what each becomes with the test's $HOME. Whenever the word is
the home directory, the root, or a glob that stands for every entry of one of them, `rm -rf
WORD` must be denied (GW750); when it is a directory below them, it must not be.

Wrappers are generated as chains of real programs that run their arguments (taskset,
setpriv, nice, stdbuf, env, timeout, nohup, flock, `sh -c`, inline code of python, perl and
awk): REAL bash runs each chain with `touch MARKER` as the command to prove it runs it; the
same chain around `rm -rf ~` must be denied.
"""

import os
import shlex
import shutil
import subprocess
import tempfile

from hypothesis import assume, given
from hypothesis import strategies as st

from gateway.decision import DENY
from tests.property.conftest import budget
from tests.property.support import show, tick

UNSET = "GATEWAY_PROPERTY_UNSET_VAR"


@st.composite
def home_word(draw):
    """A word (source text) that bash may expand to the home directory, the root, or a
    path below them."""
    base = draw(st.sampled_from([
        "$HOME", "${HOME}", "${HOME:?}", "${HOME?}", "${HOME%/}", "${HOME%%/}", "${HOME#}",
        "${HOME:-/tmp}", f"${{{UNSET}:-$HOME}}", f"${{{UNSET}-$HOME}}", f"${{{UNSET}:-/}}",
        f"${{{UNSET}}}/", "${HOME%%/*}/", "${HOME/#$HOME/$HOME}", "${HOME//x/x}", "~",
        f"${{{UNSET}:+x}}/", "${HOME:0}", "$HOME/", "${HOME}/.",
    ]))
    quote = draw(st.sampled_from(["", "dq", "partial"]))
    if base.startswith("~"):
        quote = ""
    tail = draw(st.sampled_from(["", "", "/*", "/.*", "/.[!.]*", "/.cache", "/build/x"]))
    if base.endswith("/") and tail:
        tail = tail[1:]
    if quote == "dq":
        word = '"' + base + '"' + tail
    elif quote == "partial":
        word = '"' + base + '"' + ('"' + tail + '"' if tail and "*" not in tail else tail)
    else:
        word = base + tail
    return word


def _bash_words(word, home):
    out = subprocess.run(["bash", "-c", f"printf '%s\\0' {word}"], capture_output=True,
                         timeout=10, env={"PATH": "/usr/bin:/bin", "HOME": home},
                         cwd=tempfile.gettempdir())
    if out.returncode != 0:
        return None
    return [w for w in out.stdout.decode().split("\0") if w]


def _catastrophic(values, word, home):
    """Is one of bash's words (or the word's glob) the home directory or the root, or every
    entry of one of them?"""
    h = home.rstrip("/")
    for v in values:
        norm = "/" + os.path.normpath(v).lstrip("/") if v.startswith("/") else v
        if norm in (h, "/"):
            return True
    # an unmatched or matched glob of every (hidden) entry of home or of / (`.[!.]*` is every
    # hidden entry but those starting with two dots: ~/.ssh, ~/.config... all of them): what
    # the part before the glob expands to is asked of bash itself
    for t in ("/*", "/.*", "/.[!.]*"):
        if word.endswith(t) and word[:-len(t)]:
            base = _bash_words(word[:-len(t)], home)
            if base and len(base) == 1 and os.path.normpath("/" + base[0].lstrip("/")) in (
                    os.path.normpath(h), "/") and base[0].startswith("/"):
                return True
    return False


@budget(150)
@given(word=home_word())
def test_targets_spelled_through_expansions(policy, word):
    tick("deny-literals: expansions against bash")
    from gateway.validator.pipeline import validate

    home = os.environ["HOME"]
    values = _bash_words(word, home)
    assume(values is not None)
    cmd = f"rm -rf {word}"
    v = validate(cmd, "/tmp", "/tmp", policy, deny_only=True)
    below = all(v_.rstrip("/").startswith(home.rstrip("/") + "/") and not any(
        c in v_ for c in "*?[") for v_ in values) and values
    if _catastrophic(values, word, home):
        tick("deny-literals: (catastrophic words)")
        assert v.decision is DENY and v.code == "GW750", (
            f"{cmd!r}: bash makes it rm -rf {values}, yet {show(v)}")
    elif below:
        assert v.decision is not DENY, f"{cmd!r}: bash makes it rm -rf {values}: {show(v)}"


WRAPPERS = [["taskset", "1"], ["setpriv"], ["nice"], ["nice", "-n", "5"], ["stdbuf", "-o0"],
            ["env"], ["env", "-i"], ["timeout", "20"], ["nohup"], ["flock", "{lock}"],
            ["ionice", "-c", "3"], ["command"], ["time"]]
CODE = [("sh", "-c"), ("bash", "-c"), ("python3", "-c"), ("perl", "-e"), ("awk", None),
        ("env", "-S")]


def _code_form(kind, inner):
    name, opt = kind
    if name == "python3":
        return [name, opt, f'import os; os.system("{inner}")']
    if name == "perl":
        return [name, opt, f'system("{inner}")']
    if name == "awk":
        return [name, f'BEGIN{{system("{inner}")}}']
    return [name, opt, inner]


@budget(120)
@given(chain=st.lists(st.sampled_from(WRAPPERS), min_size=1, max_size=3),
       code=st.none() | st.sampled_from(CODE), target=st.sampled_from(["~", "$HOME", "/"]))
def test_programs_that_run_their_arguments(policy, chain, code, target):
    tick("deny-literals: wrappers against bash")
    from gateway.validator.pipeline import validate

    d = tempfile.mkdtemp(prefix="gw-wrap-")
    try:
        lock = os.path.join(d, "lock")
        marker = os.path.join(d, "marker")
        words = [w.replace("{lock}", f"{lock}{k}") for k, part in enumerate(chain)
                 for w in part]

        def line(inner):
            """The chain around `inner`; a plain command's last word is left unquoted (the
            target, which bash expands)."""
            if code:
                return " ".join(shlex.quote(a) for a in words + _code_form(code, inner))
            head, last = inner.rsplit(" ", 1)
            return " ".join(shlex.quote(a) for a in words + head.split()) + " " + last

        proof = line(f"touch {marker}")
        try:
            subprocess.run(["bash", "-c", proof], cwd=d, timeout=10, capture_output=True,
                           env={"PATH": "/usr/bin:/bin", "HOME": d})
        except subprocess.TimeoutExpired:
            assume(False)
        assume(os.path.exists(marker))  # the chain really runs its arguments
        tick("deny-literals: (chains proven to run their arguments)")
        cmd = line(f"rm -rf {target}")
        v = validate(cmd, d, d, policy, deny_only=True)
        assert v.decision is DENY, f"{proof!r} runs its argument, yet {cmd!r} is {show(v)}"
    finally:
        shutil.rmtree(d, ignore_errors=True)
