"""The plain-word shortcut of gateway.shell.parse gives exactly bashlex's parse.

`parse` skips bashlex (and its import) for commands made only of plain words joined by
`|`, `&&`, `||` and `;`. These tests hold the shortcut to the full path (`parse_bashlex`,
through bashlex) over generated commands that mix plain words with every character that
could change how bash splits them, and over every command of the project's corpora: where
the shortcut answers, the two Scripts are equal field by field (words decoded, positions,
operators, pipelines, in the same order); where bashlex rejects a text, the shortcut does
not answer.
"""

import csv
import glob
import os

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from gateway.shell.parse import ShellParseError, _plain, parse, parse_bashlex

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _word(w):
    return None if w is None else (w.raw, w.value, w.quoted, w.issues, w.pattern)


def _cmd(c, index):
    return (index[id(c)], [_word(w) for w in c.words], [_word(w) for w in c.assignments],
            [(r.op, r.fd, r.target_fd, r.heredoc, _word(r.target)) for r in c.redirects],
            c.start, c.end, c.text)


def _loop(loop, index):
    if loop is None:
        return None
    return (loop.name, None if loop.words is None else [w.raw for w in loop.words],
            [index.get(id(c)) for c in loop.body], loop.body_start, loop.body_end, loop.start,
            loop.end, loop.shape, loop.redirects)


def dump(script):
    """Every field of a Script, commands named by their index in all_commands (so that the
    same object in two places compares as the same command)."""
    index = {id(c): k for k, c in enumerate(script.all_commands)}
    items = [([None if c is None else index[id(c)] for c in p.commands], p.pipes, p.negated,
              _loop(p.loop, index), op) for p, op in script.items]
    return {
        "text": script.text,
        "items": items,
        "constructs": script.constructs,
        "commands": [_cmd(c, index) for c in script.all_commands],
        "pipelines": [[None if c is None else index[id(c)] for c in p]
                      for p in script.all_pipelines],
        "functions": script.functions,
        "placeholders": script.placeholders,
        "loops": [_loop(loop, index) for loop in script.loops],
        "simple": script.simple,
    }


def check_same(text):
    """The shortcut's Script equals bashlex's; returns whether the shortcut answered."""
    fast = _plain(text)
    try:
        full = parse_bashlex(text)
    except ShellParseError as exc:
        assert fast is None, f"bashlex rejects {text!r} ({exc}) but the shortcut parsed it"
        return False
    if fast is None:
        return False
    assert dump(fast) == dump(full), text
    return True


# Pieces of words: plain characters (including ones that are only special in some places:
# # = ! { } [ ] ~ * ?), single-quoted text with anything inside, double-quoted text
# sometimes holding $ ` \, and the characters the shortcut must leave to bashlex.
_PLAIN = "abcXZ09_./-+=:,@%^~*?[]{}!#"
_ANY = _PLAIN + " \t|&;()<>$`\\'\""
unquoted = st.text(alphabet=_PLAIN, min_size=1, max_size=6)
single = st.text(alphabet=_ANY.replace("'", ""), max_size=6).map(lambda s: f"'{s}'")
double = st.text(alphabet=_ANY.replace('"', ""), max_size=6).map(lambda s: f'"{s}"')
odd = st.sampled_from(["$x", "${x}", "$(a)", "`a`", "\\a", "(a)", "<a", ">a", "2>&1", "'",
                       '"', "a\\", "#c"])
# parameter expansions: the plain forms ($NAME, ${NAME}, special parameters) and their
# neighbours that bashlex must parse (operators, substitutions, odd quoting, a lone $)
dollar = st.sampled_from(["$x", "$_a1", "${x}", "${_B2}", "$1", "$?", "$#", "$@", "$*", "$$",
                          "$!", "$-", "$0", "$12", "${1}", "${x:-y}", "${x}y", "${!x}",
                          "${#x}", "${x", "${}", "${ x}", "$", "$'a'", '$"a"', "$((1))",
                          "$(a)", "$[1]", "$x{a,b}", "$x#y", "${x}}", "$x=1", "$=", "$%",
                          "$.", "$/", "$~", "$:"])
quoted_dollar = st.lists(st.one_of(dollar, unquoted), min_size=1, max_size=3).map(
    lambda parts: '"' + "".join(parts).replace('"', "") + '"')
piece = st.one_of(unquoted, unquoted, single, double, odd, dollar, quoted_dollar)
special_word = st.sampled_from(["if", "then", "fi", "for", "in", "do", "done", "case", "esac",
                                "while", "until", "time", "function", "select", "coproc",
                                "{", "}", "!", "[[", "]]", "X=1", "a+=b", "a[1]=x", "_x=",
                                "=x", "--a=b", "-Da=b", "'X'=1", "x==", "'if'", "{}", "{a,b}",
                                "!x", "a#b", "~", "~/x", "*.py"])
redirection = st.sampled_from([">x", "> x", "2>/dev/null", "2>&1", ">&2", ">>log", "<in",
                               "1>&-", ">&x", "<<x", "&>x", ">|x", "<>x", "2>>e", "3< f",
                               ">&12", "> 'a b'", '>"x"', "> #c", ">", "2>", "> {", "<&0",
                               ">x=1", "9>x", "12>x", "a>x", ">&1x", "> >x", "<(a)", "2>&"])
word = st.one_of(st.lists(piece, min_size=1, max_size=3).map("".join), special_word,
                 redirection)
blank = st.sampled_from([" ", "  ", "\t", " \t"])
operator = st.sampled_from(["|", "||", "&&", ";", "&", "|&", ";;", ";&", "\n", "&>"])


@st.composite
def commands(draw):
    out = []
    for k in range(draw(st.integers(1, 4))):
        if k:
            sp = draw(st.sampled_from(["", " "]))
            out.append(sp + draw(operator) + draw(st.sampled_from(["", " "])))
        words = draw(st.lists(word, min_size=0 if draw(st.booleans()) else 1, max_size=4))
        out.append(draw(blank).join(words))
    text = "".join(out)
    return draw(st.sampled_from(["", " ", "\t"])) + text + draw(st.sampled_from(["", " ", ";"]))


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(commands())
@example("git diff --stat HEAD~1 -- src/app.py")
@example("a | b && c; d || e | f")
@example("a|b&&c;d||e")
@example("echo 'a | b' \"c && d\" e")
@example("echo }")
@example("find . -name '*.pyc' -delete")
@example("0 > 2> 0")
@example("ls 2>&1 | tail -3 > out")
@example('"$${"')
@example("echo $$ ${HOME}x \"$1$?\" a=$b")
def test_shortcut_equals_bashlex(text):
    check_same(text)


# Mostly words the shortcut takes, so that most examples compare two real parses.
plain_piece = st.one_of(unquoted, unquoted, unquoted, dollar, quoted_dollar,
                        st.text(alphabet=_ANY.replace("'", ""), max_size=6).map(
                            lambda s: f"'{s}'"),
                        st.text(alphabet=_PLAIN + " |&;()<>", max_size=6).map(
                            lambda s: f'"{s}"'))
plain_word = st.one_of(st.lists(plain_piece, min_size=1, max_size=3).map("".join),
                       st.lists(plain_piece, min_size=1, max_size=3).map("".join),
                       redirection)


@st.composite
def plain_commands(draw):
    out = []
    for k in range(draw(st.integers(1, 5))):
        if k:
            out.append(draw(st.sampled_from(["", " "])) + draw(
                st.sampled_from(["|", "||", "&&", ";"])) + draw(st.sampled_from(["", " "])))
        out.append(draw(blank).join(draw(st.lists(plain_word, min_size=1, max_size=5))))
    return "".join(out)


@settings(max_examples=2000, deadline=None)
@given(plain_commands())
def test_shortcut_equals_bashlex_on_plain_commands(text):
    check_same(text)


@settings(max_examples=1500, deadline=None)
@given(st.text(alphabet=_ANY + "\n", max_size=30))
def test_shortcut_equals_bashlex_on_any_text(text):
    check_same(text)


def _corpus_commands():
    out = []
    for path in sorted(glob.glob(os.path.join(ROOT, "benchmarks", "everyday", "corpus",
                                              "*.tsv"))):
        with open(path, newline="") as f:
            for row in csv.reader(f, delimiter="\t"):
                if row and not row[0].startswith("#") and len(row) > 1:
                    out.append(row[0])
    return out


def test_shortcut_equals_bashlex_on_the_everyday_corpus():
    texts = _corpus_commands()
    assert len(texts) > 500
    plain = sum(check_same(t) for t in texts)
    # most everyday commands are plain words: the shortcut must be the common case
    assert plain > len(texts) // 2, (plain, len(texts))


@pytest.mark.parametrize("text,plain", [
    ("git status", True),
    ("npm test", True),
    ("pytest -q tests/ && ruff check .", True),
    ("git log --oneline | head -5", True),
    ("echo $HOME", True),
    ('echo "$VIRTUAL_ENV" ${X} $? "$@"', True),
    ("pytest -o log_cli=true", True),
    ("go env -w GOFLAGS=-mod=mod && x a=b", True),
    ("echo ${X:-y}", False),
    ('echo "$(date)"', False),
    ("echo $'a'", False),
    ("ls; X=1 y", False),
    ("<in X=1 y", False),
    ("ls > out.txt", True),
    ("pytest -q 2>&1 | tail -20", True),
    ("cat <<EOF", False),
    ("ls &> out", False),
    ("FOO=1 npm test", False),
    ("for f in *; do echo $f; done", False),
    ("make &", False),
    ("ls;", False),
    ("# comment", False),
    ("echo a\nls", False),
    ("echo 'caf\u00e9'", False),
])
def test_which_texts_take_the_shortcut(text, plain):
    assert (_plain(text) is not None) is plain
    # and parse answers the same either way
    try:
        full = dump(parse_bashlex(text))
    except ShellParseError:
        full = None
    try:
        got = dump(parse(text))
    except ShellParseError:
        got = None
    assert got == full


# --- Claude Code's commit-message form: plain once its spans are placeholders -------------

_body_line = st.text(alphabet=_ANY + "EOF", max_size=20)
_around = st.sampled_from(["", "git add -A && ", "cd /tmp/x && ", "echo $x; ", "ls | ",
                           "X=1 ", "for a in b; do ", "# c\n", "git add 'a b' &&\n"])
_after = st.sampled_from(["", " && git status", "; git log -1 | head", " 2>&1 | tail -3",
                          " &", " && echo \"$(date)\"", "; done", " > out", "\necho 'x'"])
_delim = st.sampled_from(["EOF", "MSG", "E_1"])


@st.composite
def commit_forms(draw):
    d = draw(_delim)
    body = "\n".join(draw(st.lists(_body_line, min_size=0, max_size=4)))
    close = draw(st.sampled_from([f"{d}\n)\"", f"{d}\n  )\"", f"{d})\"", f"{d}\n)", f"{d}\n)\" "]))
    form = f"\"$(cat <<'{d}'\n{body}\n{close}"
    extra = draw(st.sampled_from(["", f" -m \"$(cat <<'{d}'\nsecond\n{d}\n)\"", " --amend"]))
    return (draw(_around) + draw(st.sampled_from(["git commit -m ", "git tag -a v1 -m ",
                                                  "gh pr create --body "]))
            + form + extra + draw(_after))


def _parsed(fn, text):
    try:
        return dump(fn(text))
    except ShellParseError as exc:
        return ("error", str(exc))


@settings(max_examples=3000, deadline=None)
@given(commit_forms())
@example("git commit -m \"$(cat <<'EOF'\nFix the thing\n\nCo-Authored-By: x <y@z>\nEOF\n)\"")
@example("git add -A && git commit -m \"$(cat <<'EOF'\nmsg\nEOF\n)\" && git status")
def test_commit_forms_parse_as_bashlex_parses_them(text):
    assert _parsed(parse, text) == _parsed(parse_bashlex, text)


def test_the_everyday_commit_form_takes_the_shortcut():
    from gateway.shell import heredoc
    from gateway.shell.parse import _plain as plain

    text = ("git add src/app.py && git commit -m \"$(cat <<'EOF'\nFix the cart total\n\n"
            "Co-Authored-By: Claude <noreply@anthropic.com>\nEOF\n)\"")
    new_text, placeholders = heredoc.extract(text)
    assert placeholders and plain(new_text, placeholders) is not None
    script = parse(text)
    assert [w.value for w in script.all_commands[1].words][-1] == (
        "Fix the cart total\n\nCo-Authored-By: Claude <noreply@anthropic.com>")
    assert dump(script) == dump(parse_bashlex(text))
