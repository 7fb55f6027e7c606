"""The generators are what the other properties stand on, so they are checked first:
every "allowed" base command really is allowed (otherwise inserting a dangerous token into it
would prove nothing), and every spelling decodes, in real bash, to the value it claims."""

import shutil
import subprocess

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gateway.decision import ALLOW
from tests.property import strategies as S
from tests.property.conftest import budget
from tests.property.support import fill_cmd, show, tick

BASH = shutil.which("bash")


@budget(250)
@given(data=st.data(), n=st.integers(1, 3))
def test_base_commands_are_allowed(pjudge, data, n):
    tick("generators: base commands are allowed")
    cmds = [fill_cmd(data.draw(S.allowed_cmd), pjudge.project) for _ in range(n)]
    text = data.draw(S.rendered(cmds)).text()
    v = pjudge(text)
    assert v.decision is ALLOW and v.code in ("GW700", "GW600"), f"{text!r}: {show(v)}"


@pytest.mark.skipif(BASH is None, reason="needs bash")
@budget(40)
@given(data=st.data(),
       values=st.lists(st.text(S.TEXT_ALPHABET, min_size=0, max_size=10), min_size=1,
                       max_size=12))
def test_spellings_decode_in_bash_to_their_value(data, values):
    """Each generated spelling, given to real bash, yields exactly the value (the oracle
    for every quote-equivalence property); the gateway's parser yields the same words."""
    tick("generators: spellings decode like bash")
    from gateway.shell.parse import ShellParseError, parse

    words = [data.draw(S.spelled(v, S.PLAIN_STYLES + ("ansi",))) for v in values]
    script = "printf '%s\\0'" + "".join(" " + w for w in words)
    out = subprocess.run([BASH, "--norc", "--noprofile", "-c", script], capture_output=True,
                         timeout=10, check=True).stdout
    got = out.decode("utf-8").split("\0")[:-1]
    assert got == values, f"bash decoded {script!r} to {got!r}"
    plain = [(v, w) for v, w in zip(values, words, strict=True) if "$'" not in w]
    if plain:
        text = "printf x" + "".join(" " + w for _v, w in plain)
        try:
            cmd = parse(text).items[0][0].commands[0]
        except ShellParseError:
            return  # a parse failure is fail-closed (GW301); decoding is what is checked
        assert [w.value for w in cmd.words[2:]] == [v for v, _w in plain], text
        assert all(w.literal for w in cmd.words[2:]), text
