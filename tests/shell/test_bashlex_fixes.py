"""gateway.shell.bashlex_fixes: bashlex's single-quote and `${` bugs, fixed.

Each case was a real failure: a hang that ate all memory (found by the property suite), or
a substitution bash performs that bashlex did not report to the deny rules (or one it
reported that bash never performs)."""

import pytest

from gateway.shell import parse as shell
from gateway.shell.bashlex_fixes import mask_single_quoted

MASKS = [
    ("plain", "plain"),
    ("a'$x'", "axxxx"),
    ("'a'$(rm)'b'", "xxx$(rm)xxx"),
    ('"it\'s"', '"it\'s"'),  # a single quote inside double quotes is literal
    ("$'\\x72\\'m'z", "xxxxxxxxxxz"),  # ANSI-C: \' does not end it
    ("\"$(echo 'a)b')\"'c'", "\"$(echo xxxxx)\"xxx"),  # a fresh context inside $( )
    ("\\'a'b'", "\\'axxx"),  # an escaped quote opens nothing
    ("a'unterminated", "a'unterminated"),
    ("$((1+2))'x'", "$((1+2))xxx"),
]


@pytest.mark.parametrize(("word", "masked"), MASKS)
def test_mask_follows_bash_quoting(word, masked):
    out = mask_single_quoted(word)
    assert out == masked
    assert len(out) == len(word)


@pytest.mark.parametrize("text", [
    "echo \\a'${I'",  # the property suite's reproducer: used to loop until out of memory
    "echo \\\n  \\X\\t\\<\\n'c''Fvb${IH' \\\n  \"?0~~0Wj\"",
    "echo a'${'",
    "echo '00000000${'\\0",
])
def test_dollar_brace_inside_single_quotes_parses(text):
    script = shell.parse(text)
    assert script.simple
    assert not script.constructs


def test_unclosed_dollar_brace_is_a_parse_error_not_a_hang():
    # bashlex's tokenizer catches most of these; the expander's own guard is the backstop
    # for any word that reaches it (before the masking, `echo a'${'` did)
    with pytest.raises(shell.ShellParseError):
        shell.parse("echo a${b")
    bashlex = shell._bashlex()
    with pytest.raises(bashlex.errors.ParsingError, match="no closing"):
        bashlex.subst._paramexpand(None, "a${b", 1)


def test_single_quoted_dollar_after_a_prefix_is_literal():
    script = shell.parse("echo a'$(id)'")
    assert not script.constructs
    assert script.items[0][0].commands[0].argv == ["echo", "a$(id)"]


def test_substitution_between_quoted_strings_is_seen():
    script = shell.parse("echo 'a'$(rm -rf /)'b'")
    assert sorted(c.text for c in script.all_commands) == ["echo 'a'$(rm -rf /)'b'", "rm -rf /"]
    assert ("cmdsub_node", "$(rm -rf /)") in script.constructs


def test_catastrophic_command_between_quoted_strings_is_denied(judge):
    v = judge("echo 'a'$(rm -rf /)'b'")
    assert (v.decision.name, v.code) == ("DENY", "GW750")


@pytest.mark.parametrize("text", ["echo a'$x'", "grep -e'${x}' README.md", "echo a'${'"])
def test_literal_dollar_in_single_quotes_is_allowed(judge, text):
    v = judge(text)
    assert (v.decision.name, v.code) == ("ALLOW", "GW700")
