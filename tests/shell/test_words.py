"""Bash quote removal (gateway.shell.words.decode)."""

import pytest

from gateway.shell.words import decode


@pytest.mark.parametrize("raw,value,quoted", [
    ("ls", "ls", False),
    ("'rm'", "rm", True),
    ('"rm"', "rm", True),
    ("\\rm", "rm", True),
    ("r''m", "rm", True),
    ("'/etc'/passwd", "/etc/passwd", True),
    ('"a\\"b"', 'a"b', True),
    ('"a\\nb"', "a\\nb", True),
    ("a\\ b", "a b", True),
    ("a\\\nb", "ab", True),
    ("'$HOME'", "$HOME", True),
    ('"$"', "$", True),
    ("{}", "{}", False),
    ("HEAD~1", "HEAD~1", False),
])
def test_literal_words(raw, value, quoted):
    w = decode(raw)
    assert (w.value, w.quoted, w.issues) == (value, quoted, [])


@pytest.mark.parametrize("raw,kind", [
    ("$HOME", "param"), ('"$HOME"', "param"), ("${x}", "param"), ("$1", "param"),
    ("$@", "param"), ("$(id)", "cmdsub"), ('"$(id)"', "cmdsub"), ("`id`", "backtick"),
    ('"`id`"', "backtick"), ("$((1))", "arith"), ("$[1]", "arith"), ("$'\\x72'", "ansi_c"),
    ('$"x"', "locale"), ("*.py", "glob"), ("a?", "glob"), ("[ab]", "glob"),
    ("{a,b}", "brace"), ("~", "tilde"), ("~/x", "tilde"), ("~root", "tilde"),
    ("PATH=a:~/b", "tilde"), ("!!", "history"), ("!x", "history"), ("'abc", "unterminated"),
    ('"abc', "unterminated"),
])
def test_expansions_are_issues(raw, kind):
    assert decode(raw).issues[0][0] == kind


# `!` inside double quotes is literal in the client's shell (measured in the real client,
# bash with set -H from .bashrc and zsh: tests/realclient/test_shell_history.py)
@pytest.mark.parametrize("raw", ['"fix!"', "a!", "'!x'", "a=b", '"!x"'])
def test_not_expansions(raw):
    assert decode(raw).issues == []


def test_placeholder_only_counts_inside_its_own_quotes():
    ph = {"GWHEREDOC0X0": "text"}
    assert decode("'GWHEREDOC0X0'", ph).value == "text"
    assert decode("'GWHEREDOC0X0'", ph).issues == []
    assert decode("GWHEREDOC0X0", ph).issues[0][0] == "heredoc_placeholder"
    assert decode("''GWHEREDOC0X0''", ph).issues[0][0] == "heredoc_placeholder"
