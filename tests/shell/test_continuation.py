"""gateway.shell.continuation: removing line continuations must not change what bash runs.

Differential: `printf '[%s]\\n' TEXT` and `printf '[%s]\\n' remove(TEXT)` print the same words
in real bash, for curated and generated texts (with quotes, `$( )`, comments, `$'…'`)."""

import shutil
import subprocess

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from gateway.shell import parse as shell
from gateway.shell.continuation import remove

BASH = shutil.which("bash")
pytestmark = pytest.mark.skipif(BASH is None, reason="needs bash to compare against")


def _words(text):
    """What bash prints for printf '[%s]\\n' TEXT, or None when bash rejects the text."""
    proc = subprocess.run([BASH, "--norc", "--noprofile", "-c", "printf '[%s]\\n' " + text],
                          capture_output=True, timeout=10, env={"PATH": "/usr/bin:/bin"})
    return proc.stdout if proc.returncode == 0 else None


CURATED = [
    "a \\\nb", "a\\\nb", "'a\\\nb'", '"a\\\nb"', "$'a\\\nb'", "a # c \\\nb",
    "$(printf %s p\\\nq)", "\"$(printf %s 'a\\\nb')\"", "a\\\\\\\nb", "`printf %s p\\\nq`",
    "\"x\\\\\"\\\ny", "'it''s'\\\n", "a#b\\\nc", "$(printf %s \"(\\\n\")", "x \\\n# y",
]


@pytest.mark.parametrize("text", CURATED)
def test_curated_texts_mean_the_same(text):
    assert _words(remove(text)) == _words(text)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.text(alphabet="ab \\\n'\"$()#;", max_size=14))
def test_generated_texts_mean_the_same(text):
    assume("$$" not in text)  # the shell's PID differs between the two runs
    text = text.replace("$(", "$(printf %s ")  # a substitution runs printf, nothing else
    before = _words(text)
    if before is not None:
        assert _words(remove(text)) == before


def test_substitution_words_keep_their_ends():
    # bashlex numbered the words inside $( ) as if the continuation were gone: of=/dev/s
    script = shell.parse("echo $(dd if=/dev/zero \\\nof=/dev/sda)")
    assert sorted(c.argv for c in script.all_commands)[0] == ["dd", "if=/dev/zero",
                                                              "of=/dev/sda"]


def test_catastrophic_command_split_over_lines_in_a_substitution_is_denied(judge):
    v = judge("echo $(dd if=/dev/zero \\\nof=/dev/sda)")
    assert (v.decision.name, v.code) == ("DENY", "GW750")


def test_commit_message_heredoc_keeps_its_backslashes(judge):
    v = judge("git commit -m \"$(cat <<'EOF'\nfix: a \\\nb\nEOF\n)\"")
    assert (v.decision.name, v.code) == ("ALLOW", "GW700")
