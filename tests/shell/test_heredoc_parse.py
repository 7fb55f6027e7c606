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
                                             ("ls && time ls", True), ("time -f x ls", True),
                                             ("a=(1 2)", False)])
def test_parse_errors(cmd, unsupported):
    with pytest.raises(ShellParseError) as info:
        parse(cmd)
    assert info.value.unsupported is unsupported


def test_time_before_the_first_pipeline_is_the_pipeline():
    # bash's keyword: blanked, offsets kept (gateway.shell.parse.untimed)
    s = parse("time -p ls src | wc -l")
    assert [[c.argv for c in p.commands] for p, _ in s.items] == [[["ls", "src"], ["wc", "-l"]]]
    assert s.all_commands[0].text == "ls src"


def test_comments_are_not_commands():
    s = parse("ls # rm -rf /\n# another\necho x")
    assert [c.argv for c in s.all_commands] == [["ls"], ["echo", "x"]]


# bashlex compared each line with the delimiter as written (`'EOF'`), so every here-document
# with a quoted delimiter failed to parse; bash compares with the word after quote removal
@pytest.mark.parametrize("cmd,delim,quoted,body", [
    ("cat > x.txt <<'EOF'\nhi $(id)\nEOF", "EOF", True, "hi $(id)\n"),
    ('cat <<"EOF" > x.txt\nhi\nEOF', "EOF", True, "hi\n"),
    ("cat <<\\EOF\nhi\nEOF", "EOF", True, "hi\n"),
    ("cat <<E'O'F\nhi\nEOF", "EOF", True, "hi\n"),
    ("cat <<-'EOF'\n\thi\n\tEOF", "EOF", True, "hi\n"),
    ("cat <<'E O'\nx\nE O", "E O", True, "x\n"),
    ("cat <<EOF\nhi $(id)\nEOF", "EOF", False, "hi $(id)\n"),
    ("cat <<-EOF\n\t\t\nx\n\tEOF", "EOF", False, "\nx\n"),
])
def test_quoted_here_document_delimiters_parse(cmd, delim, quoted, body):
    script = parse(cmd)
    [cmd0] = script.all_commands
    [doc] = [r for r in cmd0.redirects if r.op in ("<<", "<<-")]
    assert doc.heredoc == (body, quoted)
    assert [c[0] for c in script.constructs] == ["heredoc"]


@pytest.mark.parametrize("cmd", [
    "cat <<'EOF'\nhi",             # no terminator: bash warns and runs; here: no parse, no allow
    "cat <<'EOF'\nhi\n'EOF'",      # the quotes are not part of the delimiter
    "cat <<-'EOF'\n\t",
])
def test_unterminated_here_documents_do_not_parse(cmd):
    with pytest.raises(ShellParseError):
        parse(cmd)
