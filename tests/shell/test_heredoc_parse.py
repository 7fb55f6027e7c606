"""The commit-message here-doc form and the bashlex adapter's structure."""

import pytest

from gateway.shell import heredoc
from gateway.shell.parse import ShellParseError, parse


def test_commit_form_becomes_literal_text():
    cmd = "git commit -m \"$(cat <<'EOF'\nfeat: x\n\nbody $(id) `id`\nEOF\n)\""
    text, ph = heredoc.extract(cmd)
    assert text == "git commit -m 'GWHEREDOC0X0'"
    assert ph == {"GWHEREDOC0X0": "feat: x\n\nbody $(id) `id`"}
    script = parse(cmd)
    assert script.items[0][0].commands[0].argv == ["git", "commit", "-m",
                                                    "feat: x\n\nbody $(id) `id`"]


@pytest.mark.parametrize("cmd", [
    'git commit -m "$(cat <<EOF\nx\nEOF\n)"',          # unquoted delimiter: body expands
    "git commit -m \"$(cat <<'EOF'\nx\nEOF\n) more\"",  # text after the substitution
    "git commit -m \"$(cat <<'EOF'\nx\nEOX\n)\"",       # no terminator line
    "git commit -m \"$(cat <<-'EOF'\nx\nEOF\n)\"",      # <<- form
    "git commit -m \"$(cat <<'E F'\nx\nE F\n)\"",       # delimiter with a space
])
def test_other_forms_are_left_alone(cmd):
    assert heredoc.extract(cmd) == (cmd, {})


def test_placeholder_never_collides_with_the_text():
    cmd = "echo GWHEREDOC0X0 \"$(cat <<'EOF'\nx\nEOF\n)\""
    text, ph = heredoc.extract(cmd)
    assert list(ph) == ["GWHEREDOC1X0"]
    assert text == "echo GWHEREDOC0X0 'GWHEREDOC1X0'"


def test_items_and_operators():
    s = parse("cd src && ls | head -5; echo a\necho b")
    shape = [([c.argv for c in p.commands], op) for p, op in s.items]
    assert shape == [([["cd", "src"]], "&&"), ([["ls"], ["head", "-5"]], ";"),
                     ([["echo", "a"]], "\n"), ([["echo", "b"]], None)]


def test_nested_commands_are_collected():
    s = parse('ls "$(rm -rf x)" && (curl y)')
    assert sorted(c.text for c in s.all_commands) == ["curl y", 'ls "$(rm -rf x)"', "rm -rf x"]
    assert {k for k, _ in s.constructs} == {"cmdsub_node", "subshell"}


@pytest.mark.parametrize("cmd,unsupported", [("ls ;; rm", False), ("echo $((1))", True),
                                             ("time ls", True), ("a=(1 2)", False)])
def test_parse_errors(cmd, unsupported):
    with pytest.raises(ShellParseError) as info:
        parse(cmd)
    assert info.value.unsupported is unsupported


def test_comments_are_not_commands():
    s = parse("ls # rm -rf /\n# another\necho x")
    assert [c.argv for c in s.all_commands] == [["ls"], ["echo", "x"]]
