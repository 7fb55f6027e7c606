"""Wide generators (from the round-21 red-team review): gateway.shell.parse.parse (with its
plain-word and commit-form shortcuts) gives exactly parse_bashlex's Script, compared on
every field of tests/shell/test_plain_parse.dump (every word, assignment and redirection
target in full), or the same error.

Generators: all of printable ASCII plus tab/CR/VT/FF/NUL/DEL/non-ASCII pieces, ~90 `$`
forms (plain and not) bare and inside double quotes, words with `=` in first and later
positions, redirections with `$` targets, reserved words, and the commit-message form in
every position (glued to other text, twice, after a redirection, as an assignment, with
EOF-like body lines, tabs/blanks around the delimiter). GATEWAY_PARSE_EXAMPLES scales the
runs (the review ran 4 million texts)."""

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gateway.shell.parse import ShellParseError, parse, parse_bashlex
from tests.shell.test_plain_parse import dump

N = int(os.environ.get("GATEWAY_PARSE_EXAMPLES", "1500"))


def full(fn, text):
    try:
        return dump(fn(text))
    except ShellParseError as exc:
        return ("error", str(exc))


DOLLARS = ["$x", "$_", "$_a1", "${x}", "${_B2}", "$1", "$?", "$#", "$@", "$*", "$$", "$!",
           "$-", "$0", "$12", "${1}", "${x:-y}", "${x}y", "${!x}", "${#x}", "${x", "${}",
           "${ x}", "$", "$'a'", '$"a"', "$((1))", "$(a)", "$[1]", "$x{a,b}", "$x#y",
           "${x}}", "$x=1", "$=", "$%", "$.", "$/", "$~", "$:", "${x}{", "$#x", "$##",
           "$?x", "$-x", "${@}", "${?}", "${#}", "${*}", "${_}", "${a}b${c}", "$a$b",
           "${x}=", "$1=", "$x[0]", "${x[0]}", "${x[@]}", "$x(", "$x)", "$x|y", "$x;y",
           "$x&y", "$x<y", "$x>y", "$x}", "${{x}}", "$x'y'", '$x"y"', "$\t", "$ ", "$|",
           "$;", "$0a", "$@a", "$=x", "$+", "$^", "$&", "$,", "$[", "$]", "$<", "$>",
           "$\\", "$`"]
UNQ = "abcXZ09_./-+=:,@%^~*?[]{}!#"
ODD = ["'", '"', "\\", "(", ")", "`", "#", "=", "$", "{", "}", "\r", "\x0b", "\x0c",
       "\u00e9", "\u00a0", "\x00", "\x7f", "\n"]
SPECIAL = ["if", "then", "fi", "for", "in", "do", "done", "case", "esac", "while", "time",
           "function", "select", "coproc", "{", "}", "!", "[[", "]]", "X=1", "a+=b",
           "a[1]=x", "_x=", "=x", "--a=b", "-Da=b", "'X'=1", "x==", "'if'", "a=$x", "$x=b",
           "x=${y}", "a[$x]=1", '"a"=b', "a\\=b", 'a="b c"', "2=x", "a.b=c", "1a=b", "_="]
REDIR = [">x", "> x", "2>/dev/null", "2>&1", ">&2", ">>log", "<in", "1>&-", ">&x", "<<x",
         "&>x", ">|x", "<>x", "3< f", ">&12", "> 'a b'", '>"x"', "> #c", ">", "2>",
         "> {", ">x=1", "9>x", "12>x", "a>x", ">&1x", "<(a)", ">$x", ">${x}", '>"$x"',
         ">$x=y", "> $1", "<$?", ">$x$y", ">'$x'", '>"$(a)"', ">&$x", ">& 2", "0<x",
         "2>&1>x", ">x<y", ">\t$HOME/x", ">$x}", "< \"$@\"", "> =x", "> a=b"]

_unq = st.text(UNQ, min_size=1, max_size=5)
_sq = st.text([chr(c) for c in range(32, 127) if chr(c) != "'"] + ["\t"], max_size=6).map(
    lambda s: f"'{s}'")
_dq = st.lists(st.one_of(st.sampled_from(DOLLARS), st.text(UNQ + " |&;()<>'\t", min_size=1,
                                                            max_size=4),
                         st.sampled_from(["`a`", "\\", '\\"', "<(a)", ">(b)", "\\$"])),
               max_size=4).map(lambda p: '"' + "".join(p).replace('"', "") + '"')
_piece = st.one_of(_unq, _unq, _unq, st.sampled_from(DOLLARS), _sq, _dq,
                   st.sampled_from(ODD))
_wordst = st.one_of(st.lists(_piece, min_size=1, max_size=3).map("".join),
                    st.lists(_piece, min_size=1, max_size=3).map("".join),
                    st.sampled_from(SPECIAL), st.sampled_from(REDIR))
_op = st.sampled_from(["|", "||", "&&", ";", "|", "&&", ";", "&", "|&", ";;", "\n"])


@st.composite
def commands(draw):
    out = []
    for k in range(draw(st.integers(1, 4))):
        if k:
            out.append(draw(st.sampled_from(["", " "])) + draw(_op)
                       + draw(st.sampled_from(["", " "])))
        out.append(draw(st.sampled_from([" ", "  ", "\t"])).join(
            draw(st.lists(_wordst, min_size=1, max_size=5))))
    return draw(st.sampled_from(["", " ", "\t"])) + "".join(out) + draw(
        st.sampled_from(["", "", " ", ";", "\t", "\r"]))


@settings(max_examples=N, deadline=None, suppress_health_check=list(HealthCheck))
@given(commands())
def test_parse_is_parse_bashlex(text):
    assert full(parse, text) == full(parse_bashlex, text), text


_body = ["msg", "", "Fix $HOME", "a 'b' c", 'say "hi"', "$(rm -rf /)", "`id`", "EOF x",
         "EOFX", " EOF", "EOF ", ")\"", ")", "\\", "$'x'", "#c", "x\r", "\t", "\u00e9",
         "';rm -rf /;'", "'", '"', "GWHEREDOC0X0", "'GWHEREDOC0X0'", "<<'EOF'"]


@st.composite
def commit_form(draw):
    d = draw(st.sampled_from(["EOF", "MSG", "E_1", "X"]))
    body = "\n".join(draw(st.lists(st.sampled_from(_body), max_size=3)))
    close = draw(st.sampled_from([f"{d}\n)\"", f"{d}\n  )\"", f"{d})\"", f"{d}\n)",
                                  f"{d}\n\n)\"", f"{d}\n\t)\"", f"{d} \n)\""]))
    sp = draw(st.sampled_from(["", " ", "\t"]))
    sp2 = draw(st.sampled_from(["", " "]))
    tail = draw(st.sampled_from(["", " ", "\t"]))
    return f"\"$(cat{sp}<<{sp2}'{d}'{tail}\n{body}\n{close}"


@st.composite
def commit_texts(draw):
    pre = draw(st.sampled_from(["", "git add -A && ", "X=1 ", "cd $HOME && ", "echo $x; ",
                                "# c\n", "a | ", "> out ", "'", '"', "x=", "a"]))
    cmd = draw(st.sampled_from(["git commit -m ", "gh pr create --body ", "git tag -a v -m ",
                                "git commit -m x", "echo ", ""]))
    more = draw(st.lists(st.one_of(commit_form(), _wordst), max_size=3))
    post = draw(st.sampled_from(["", " && git push", " $x ${y} a=b", " > $HOME/log",
                                 "; rm -rf ~", "\ngit status", " #c", " &", "'", "b"]))
    return pre + cmd + draw(commit_form()) + "".join(" " + m for m in more) + post


@settings(max_examples=N, deadline=None, suppress_health_check=list(HealthCheck))
@given(commit_texts())
def test_commit_forms_parse_as_bashlex(text):
    assert full(parse, text) == full(parse_bashlex, text), text
