"""gateway.shell.bashlex_loader: bashlex with cached LALR tables must behave exactly like bashlex.

The reference is always the real library: `import bashlex` in a fresh interpreter, which
regenerates its tables with its own yacc.  Load-level behaviour (which path was taken, what
ends up in sys.modules) is checked in fresh interpreters too, since the test process may have
imported bashlex before the loader.
"""

import itertools
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from gateway.shell import _gen_lrtables as gen
from gateway.shell import _lrtables
from gateway.shell import bashlex_loader as loader

ROOT = Path(__file__).resolve().parents[2]

# --------------------------------------------------------------------------------------------
# corpus

CURATED = [
    # simple commands, words, assignments
    "ls", "ls -la", "ls -la /tmp", "  ls   -l  ", "echo hello world", "true", ":",
    "a=1", "a=1 b=2 cmd", "FOO=bar env", "export A=1 B=2", "local x=1", "declare -r x=1",
    "x+=1", "readonly X", "unset X", "./script.sh arg1 arg2", "/usr/bin/env python3 -V",
    "ENV=1 ./run.sh --flag=value", "rm -rf /", "sudo rm -rf --no-preserve-root /",
    "git commit -m msg", "git push --force origin main", "python -c 'print(1)'",
    "bash -c \"echo hi\"", "sh -c 'rm -rf ~'", "eval \"$x\"", "exec 3>file", "exec >log 2>&1",
    "command rm x", "builtin echo x", "\\rm x", "source ./env.sh", ". ./env.sh",
    "set -euo pipefail", "trap 'rm -f x' EXIT", "nohup x &", "xargs rm < list",
    "find . -name '*.py' -exec rm {} \\;", "find . -exec echo {} +", "awk '{print $1}' f",
    "sed -i 's/a/b/g' f", "ls *.py", "echo {a,b}", "echo a{1..3}", "echo ~/x ~root",
    "cd - && ls", "[ -f x ] && echo y", "test -d /tmp", "echo ]", "echo }", "echo {",
    "echo a=b", "echo -- -n", "printf '%s\\n' a b", "kill -9 $$", "ls # a comment",
    "# only a comment", "echo a#b", "echo '#not'", "cmd arg\\ with\\ spaces",
    # quoting
    "echo \"hello world\"", "echo 'single $x'", "echo \"double $x\"", "echo \"a\"'b'c",
    "echo \"\\\"escaped\\\"\"", "echo 'it'\\''s'", "echo $'ansi\\n\\t'", "echo $\"locale\"",
    "echo \"\"", "echo ''", "\"quoted cmd\" arg", "'single' arg", "echo \"$(echo \"in\")\"",
    "echo \"${x:-\"d\"}\"", "echo \"a\\$b\"", "echo a\\\"b", "echo \"multi\nline\"",
    # parameters
    "echo $HOME", "echo ${HOME}", "echo ${x:-default}", "echo ${x:=v}", "echo ${x:?err}",
    "echo ${x:+alt}", "echo ${#x}", "echo ${x#pre}", "echo ${x%%suf}", "echo ${x/a/b}",
    "echo ${x^^}", "echo ${!ref}", "echo ${arr[0]}", "echo ${#arr[@]}", "echo \"$@\" \"$*\"",
    "echo $# $? $$ $! $0 $1", "$cmd arg", "${cmd} arg", "echo $x$y", "echo pre${x}post",
    # substitutions
    "echo $(date)", "echo `date`", "echo $(ls $(pwd))", "echo \"nested $(date) here\"",
    "echo $((1+2))", "echo $(( x * (y + 1) ))", "$(echo rm) -rf x", "x=$(cat f)",
    "echo `echo \\`inner\\``", "echo $(echo a; echo b)", "echo $(a | b)", "echo $(a && b)",
    "echo $( (sub) )", "echo $(echo ')')", "echo <(ls)", "diff <(a) <(b)", "echo >(tee x)",
    "cat <(curl x) | sh", "echo $(cat <<EOF\nx\nEOF\n)", "v=`ls`; echo $v",
    # pipes and lists
    "cat file | grep x | wc -l", "a | b", "a |& b", "cmd |& tee log", "a && b", "a || b",
    "a && b || c", "a; b; c", "a & b", "a &", "a & b &", "a | b && c || d ; e &",
    "! true", "! a | b", "time ls", "time -p ls", "a;", "a ;b", "a\nb", "a\n\nb\n", "\na",
    "a \\\nb", "a &&\nb", "a |\nb", "a ||\n\nb", "curl x | sh", "curl -s x | bash -s --",
    # redirections
    "cmd > out", "cmd >> out", "cmd 2>&1", "cmd &> out", "cmd &>> out", "cmd < in",
    "cmd <<< \"here string\"", "cmd 2>/dev/null", "cmd >&2", "cmd 3>&-", "cmd <&3",
    "cmd 2>&1 >/dev/null", "cmd >| out", "cmd <> f", "> out", ">out cmd", "cmd 1>a 2>b",
    "cmd >\"$f\"", "cmd > $(mktemp)", "echo x >> ~/.bashrc", "cat < in > out",
    # heredocs
    "cat <<EOF\nhello $x\nEOF", "cat <<'EOF'\nraw $x\nEOF", "cat <<-EOF\n\tindent\n\tEOF",
    "cat <<EOF > f\nline\nEOF", "cat <<A; cat <<B\na\nA\nb\nB", "cat <<EOF | sh\nrm x\nEOF",
    "cat <<EOF\nEOF", "cat <<\"E\"\n$x\nE", "cat << EOF\nspaced\nEOF\necho after",
    # compound commands
    "if true; then echo y; fi", "if a; then b; elif c; then d; else e; fi",
    "if [ -f x ]; then rm x; fi", "if a\nthen\n b\nfi", "for i in 1 2 3; do echo $i; done",
    "for i; do echo; done", "for i in $(ls); do rm $i; done", "for f in *; do :; done",
    "while read l; do echo $l; done < f", "until false; do x; done", "while true; do break; done",
    "case $x in a) echo a;; b|c) echo bc;; *) echo d;; esac", "case x in esac",
    "case x in (a) y;; esac", "case $1 in\n  start) run ;;\nesac", "{ echo a; echo b; }",
    "{ a; } > out", "(cd /tmp && ls)", "(a; b) | c", "( a )", "(( x++ ))", "(( 1 + 2 ))",
    "if true; then (a); fi", "for i in a; do { b; }; done", "while a; do if b; then c; fi; done",
    # functions
    "f() { echo hi; }", "function g { echo; }", "function h() { :; }", "f() ( sub )",
    "f() { a; }; f", "rm() { :; }; rm -rf /", "f () { echo $1; } > log",
    # not implemented by bashlex (errors must match too)
    "coproc cat", "select x in a b; do echo $x; done", "[[ -f x ]]",
    "for ((i=0;i<3;i++)); do echo; done", "a=(1 2 3)",
    # rejected input
    "", "   ", "\n", ";", "&", "|", "ls |", "| ls", "&& ls", "ls &&", "ls ||", "a && && b",
    "a ; ; b", "if true; then", "fi", "done", "then", "esac", "echo \"unterminated",
    "echo 'unterminated", "echo $(", "echo ${", "echo `unterminated", "case x in", ")", "(",
    "{", "}", ";;", "for do done", "while", "cat <<EOF", "ls >", "ls <", "ls 2>", ">",
    "(a", "a)", "$((1+", "function", "f() {", "if; then; fi", "ls \\", "echo ${x",
    "echo \"$(ls\"", "<<<", "!", "! !", "a |& |& b", "{ a }", "a; then b", "(())", "$(",
    "echo $((", "x=", "=x", "a=b=c d", "for i in; do; done", "case", "{ ; }", "( )",
]


def _fuzz_corpus(n, seed=1234):
    """Deterministic random shell-ish strings: fragments glued together, valid or not."""
    fragments = [
        "ls", "echo", "a", "b", "x=1", "$x", "${y}", "\"q $z\"", "'s'", "$(c)", "`d`", "$((1))",
        "|", "||", "&&", ";", "&", "|&", ">", ">>", "<", "2>&1", "<<<", "&>", "(", ")", "{", "}",
        "if", "then", "else", "elif", "fi", "for", "in", "do", "done", "while", "until",
        "case", "esac", ";;", "function", "f()", "!", "time", "\n", " ", "#c", "<(e)", ">(g)",
        "*", "~", "\\", "\"", "'", "=", "[", "]", "--", "-rf", "/", "$", "`", "((", "))",
    ]
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        parts = [rng.choice(fragments) for _ in range(rng.randint(1, 9))]
        out.append(" ".join(parts) if rng.random() < 0.7 else "".join(parts))
    return out


def _combined_corpus():
    atoms = ["ls -l", "echo \"$x\"", "cat <(a)", "$(b) c", "f > o", "{ g; }", "(h)", "! i"]
    joins = [" | ", " && ", " || ", "; ", " & ", "\n"]
    return [a + j + b for a, j, b in itertools.product(atoms, joins, atoms[:4])]


CORPUS = CURATED + _combined_corpus() + _fuzz_corpus(1500)


def test_corpus_is_big_and_varied():
    assert len(CURATED) >= 200
    assert len(set(CURATED)) == len(CURATED)
    assert len(CORPUS) >= 1700


# --------------------------------------------------------------------------------------------
# fresh-interpreter runner

RUNNER = r"""
import json, sys
mode = sys.argv[1]
if mode == "plain":
    import bashlex
    meta = {"load_path": "plain"}
else:
    if mode == "badsig":
        import gateway.shell._lrtables as t
        t.SIGNATURE = t.SIGNATURE[:-1] + (("tampered",),)
    elif mode == "badtables":
        import gateway.shell._lrtables as t
        t.ACTION = t.ACTION.replace("|", ";", 5)
    elif mode == "notables":
        sys.modules["gateway.shell._lrtables"] = None  # import raises ImportError
    elif mode == "baddefaulted":
        import gateway.shell._lrtables as t
        t.DEFAULTED = t.DEFAULTED + " 7"
    from gateway.shell import bashlex_loader as L
    bashlex = L.bashlex
    meta = {"load_path": L.LOAD_PATH, "fast": L.FAST_PATH, "reason": L.FALLBACK_REASON,
            "yacc_restored": bashlex.yacc.yacc.__module__ == "bashlex.yacc",
            "parse_is_bashlex_parse": L.parse is bashlex.parse}
meta["inspect_loaded"] = "inspect" in sys.modules
meta["modules"] = sorted(sys.modules)
yp = bashlex.parser.yaccparser
tables = {
    "productions": [(p.name, p.len, p.func, list(p.prod)) for p in yp.productions],
    "action": [(s, list(r.items())) for s, r in yp.action.items()],
    "goto": [(s, list(r.items())) for s, r in yp.goto.items()],
    "defaulted": sorted(yp.defaulted_states.items()),
}
results = []
for text in json.load(sys.stdin):
    try:
        results.append({"ok": [tree.dump() for tree in bashlex.parse(text)]})
    except Exception as exc:
        results.append({"err": [type(exc).__module__, type(exc).__qualname__, str(exc)]})
json.dump({"meta": meta, "tables": tables, "results": results}, sys.stdout)
"""


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _run(mode, corpus=CORPUS):
    proc = subprocess.run(
        [sys.executable, "-c", RUNNER, mode], input=json.dumps(corpus), capture_output=True,
        text=True, env=_env(), cwd=str(ROOT), timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "", proc.stderr  # no yacc warnings, no tracebacks
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def plain():
    return _run("plain")


@pytest.fixture(scope="module")
def fast():
    return _run("fast")


# --------------------------------------------------------------------------------------------
# the cached tables are exactly the generated ones


def _parser_tables(parser):
    return {
        "productions": [(p.number, p.name, p.len, p.func, tuple(p.prod), tuple(p.prec))
                        for p in parser.productions],
        "callables": [p.callable for p in parser.productions],
        "action": [(s, list(r.items())) for s, r in parser.action.items()],
        "goto": [(s, list(r.items())) for s, r in parser.goto.items()],
        "defaulted": list(parser.defaulted_states.items()),
        "errorfunc": parser.errorfunc,
    }


def test_cache_signature_matches_installed_grammar():
    import bashlex.parser
    from bashlex import yacc

    assert loader.grammar_signature(vars(bashlex.parser), yacc) == _lrtables.SIGNATURE


def test_cached_tables_equal_fresh_generation():
    import bashlex.parser
    from bashlex import yacc

    fresh = gen.fresh_parser()  # the real yacc.yacc, regenerating from the grammar now
    cached = loader.build_cached_parser(vars(bashlex.parser), yacc, _lrtables)
    assert type(cached) is type(fresh) is yacc.LRParser
    fresh_t, cached_t = _parser_tables(fresh), _parser_tables(cached)
    assert cached_t["productions"] == fresh_t["productions"]
    assert cached_t["callables"] == fresh_t["callables"]
    assert all(c is f for c, f in zip(cached_t["callables"], fresh_t["callables"], strict=True))
    assert cached_t["action"] == fresh_t["action"]
    assert cached_t["goto"] == fresh_t["goto"]
    assert cached_t["defaulted"] == fresh_t["defaulted"]
    assert cached_t["errorfunc"] is fresh_t["errorfunc"] is bashlex.parser.p_error
    assert len(fresh_t["productions"]) > 100 and len(fresh_t["action"]) > 300


def test_cache_file_is_up_to_date():
    """Same as `python -m gateway.shell._gen_lrtables --check`."""
    assert gen.is_current(gen.generate(), _lrtables)


def test_each_build_gets_fresh_mutable_dicts():
    import bashlex.parser
    from bashlex import yacc

    one = loader.build_cached_parser(vars(bashlex.parser), yacc, _lrtables)
    two = loader.build_cached_parser(vars(bashlex.parser), yacc, _lrtables)
    one.action[0]["WORD"] = -999
    assert two.action[0]["WORD"] != -999
    assert loader.decode_tables(_lrtables)[1][0]["WORD"] != -999
    assert all(one.action[s] is not two.action[s] for s in one.action)


def test_rows_and_productions_are_decoded_on_first_use():
    """The parser decodes a row (and builds a Production) the first time it is used; what it
    gets is exactly the eagerly decoded row, and it keeps it (mutations stick)."""
    import bashlex.parser
    from bashlex import utils, yacc

    parser = loader.build_cached_parser(vars(bashlex.parser), yacc, _lrtables)
    assert isinstance(parser.action, utils.frozendict) and isinstance(parser.goto, utils.frozendict)
    assert parser.action._decoded == {} and parser.goto._decoded == {}
    assert all(p is None for p in parser.productions._built)
    _, action, goto = loader.decode_tables(_lrtables)
    assert parser.action[5] == action[5] and parser.goto[0] == goto[0]
    assert sorted(parser.action._decoded) == [5] and sorted(parser.goto._decoded) == [0]
    parser.action[5]["WORD"] = -999
    assert parser.action[5]["WORD"] == -999  # the same row object, not decoded again
    assert parser.productions[-3] is parser.productions[len(parser.productions) - 3]
    assert [p is None for p in parser.productions._built].count(False) == 1
    assert parser.defaulted_states == loader.decode_defaulted(_lrtables)
    for bad in (-1, _lrtables.STATES, "0", None, 1.0):
        assert bad not in parser.action
        with pytest.raises(KeyError):
            parser.action[bad]
    assert len(parser.action) == len(action) and list(parser.goto) == list(goto)


def test_a_malformed_row_raises_instead_of_decoding_wrong():
    """A row that does not decode is an error at its first use (inside bashlex.parse: a parse
    error, so no allow), never a silently different row."""
    import bashlex.parser
    from bashlex import yacc

    class Tables:
        pass

    for name in ("FORMAT", "STATES", "PRODUCTIONS", "KEYSETS", "ACTION", "GOTO", "DEFAULTED"):
        setattr(Tables, name, getattr(_lrtables, name))
    lines = _lrtables.ACTION.split("\n")
    state, keyset, default, symbols, values = lines[9].split("|")
    assert symbols, "pick a row with exception symbols"
    broken = lines[:]
    broken[9] = "|".join((state, keyset, default, symbols, values + " 1"))  # one value too many
    Tables.ACTION = "\n".join(broken)
    parser = loader.build_cached_parser(vars(bashlex.parser), yacc, Tables)
    with pytest.raises(ValueError):
        parser.action[9]
    renumbered = lines[:]
    renumbered[9] = "|".join(("8", keyset, default, symbols, values))
    Tables.ACTION = "\n".join(renumbered)
    with pytest.raises(ValueError):
        loader.build_cached_parser(vars(bashlex.parser), yacc, Tables).action[9]
    Tables.ACTION = "\n".join(lines[:-1])  # a row missing: refused when the parser is built
    with pytest.raises(ValueError):
        loader.build_cached_parser(vars(bashlex.parser), yacc, Tables)


# --------------------------------------------------------------------------------------------
# same parses, same errors, same final (mutated) tables, and the fast path was taken


def test_fast_path_taken_without_inspect(fast):
    meta = fast["meta"]
    assert meta["load_path"] == "cache" and meta["fast"] is True, meta["reason"]
    assert meta["reason"] is None
    assert meta["inspect_loaded"] is False
    assert meta["yacc_restored"] is True
    assert meta["parse_is_bashlex_parse"] is True
    for heavy in ("inspect", "dis", "ast", "tokenize", "linecache"):
        assert heavy not in meta["modules"]


def test_plain_bashlex_does_import_inspect(plain):
    # Guards the test above: it would be vacuous if bashlex stopped importing inspect.
    assert plain["meta"]["inspect_loaded"] is True


def test_same_final_tables_as_bashlex(plain, fast):
    # After parser.py's "correction states" mutation, which both ran on their own tables.
    assert fast["tables"] == plain["tables"]


def test_same_parse_results_as_bashlex(plain, fast):
    assert len(plain["results"]) == len(fast["results"]) == len(CORPUS)
    mismatches = [(text, p, f) for text, p, f in zip(CORPUS, plain["results"], fast["results"], strict=True)
                  if p != f]
    assert not mismatches, mismatches[:3]
    # The corpus exercises both outcomes, and more than one kind of error.
    ok = [r for r in plain["results"][: len(CURATED)] if "ok" in r]
    errors = {tuple(r["err"][:2]) for r in plain["results"][: len(CURATED)] if "err" in r}
    assert len(ok) >= 150
    assert ("bashlex.errors", "ParsingError") in errors
    assert ("builtins", "NotImplementedError") in errors
    assert len(errors) >= 3


def test_importtime_shows_no_inspect():
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c",
         "from gateway.shell.bashlex_loader import parse, FAST_PATH; assert FAST_PATH; parse('ls -la')"],
        capture_output=True, text=True, env=_env(), cwd=str(ROOT), timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    imported = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines()
                if line.startswith("import time:")}
    assert "bashlex.parser" in imported and "gateway.shell._lrtables" in imported
    assert "inspect" not in imported


# --------------------------------------------------------------------------------------------
# fallback: anything that does not match takes the real yacc, and is still correct


@pytest.mark.parametrize("mode", ["badsig", "badtables", "notables", "baddefaulted"])
def test_fallback_in_fresh_interpreter(mode, plain):
    corpus = CURATED
    out = _run(mode, corpus)
    meta = out["meta"]
    assert meta["load_path"] == "fallback" and meta["fast"] is False
    expected = {"badsig": "signature mismatch", "badtables": "cache unusable",
                "notables": "cache unusable", "baddefaulted": "cache unusable"}[mode]
    assert expected in meta["reason"]
    assert meta["yacc_restored"] is True
    assert out["tables"] == plain["tables"]
    assert out["results"] == plain["results"][: len(corpus)]


def test_preloaded_bashlex_is_used_as_is():
    proc = subprocess.run(
        [sys.executable, "-c",
         "import bashlex; from gateway.shell import bashlex_loader as L; "
         "assert L.bashlex is bashlex and L.LOAD_PATH == 'preloaded' and not L.FAST_PATH; print('ok')"],
        capture_output=True, text=True, env=_env(), cwd=str(ROOT), timeout=60,
    )
    assert proc.stdout.strip() == "ok", proc.stderr


@pytest.mark.parametrize("sabotage", [
    "L._find_spec_and_module_from_spec = boom",  # before anything is imported
    "L._make_yacc_replacement = lambda *a, **k: boom",  # inside bashlex.parser's import
])
def test_loader_error_falls_back_to_plain_import(sabotage):
    script = (
        "import sys\n"
        "from gateway.shell import bashlex_loader as L\n"
        "first = sys.modules['bashlex']\n"
        "for name in [n for n in sys.modules if n == 'bashlex' or n.startswith('bashlex.')]:\n"
        "    del sys.modules[name]\n"
        "def boom(*args, **kwargs):\n"
        "    raise RuntimeError('boom in the loader')\n"
        f"{sabotage}\n"
        "mod, status = L._load()\n"
        "assert status.path == 'fallback' and 'boom in the loader' in status.reason, status.reason\n"
        "assert sys.modules['bashlex'] is mod and mod is not first\n"
        "assert mod.yacc.yacc.__module__ == 'bashlex.yacc'\n"
        "assert 'inspect' in sys.modules  # the real yacc ran\n"
        "assert mod.parse('a | b')[0].kind == 'pipeline'\n"
        "print('ok')\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=_env(), cwd=str(ROOT), timeout=60)
    assert proc.stdout.strip() == "ok", proc.stderr


class _Spy:
    def __init__(self, real):
        self.real = real
        self.calls = []

    def __call__(self, *args, **kwargs):
        self.calls.append((args, kwargs))
        return self.real(*args, **kwargs)


def _call_replacement(namespace, status, orig, **kwargs):
    """Call the yacc replacement from module-level code whose globals are `namespace`."""
    from bashlex import yacc

    namespace["_yacc_under_test"] = loader._make_yacc_replacement(orig, yacc, status)
    namespace["_yacc_kwargs"] = kwargs
    exec("_parser_under_test = _yacc_under_test(**_yacc_kwargs)", namespace)
    return namespace["_parser_under_test"]


def _grammar_namespace():
    import bashlex.parser

    return dict(vars(bashlex.parser))


def test_replacement_uses_cache_when_signature_matches():
    from bashlex import yacc

    spy, status = _Spy(yacc.yacc), loader._Status()
    parser = _call_replacement(_grammar_namespace(), status, spy, outputdir="x", debug=False)
    assert spy.calls == [] and status.path == "cache" and status.reason is None
    assert _parser_tables(parser)["action"] == _parser_tables(gen.fresh_parser())["action"]


def test_replacement_falls_back_when_stored_signature_differs(monkeypatch):
    from bashlex import yacc

    monkeypatch.setattr(_lrtables, "SIGNATURE", _lrtables.SIGNATURE[:-1] + (None,))
    spy, status = _Spy(yacc.yacc), loader._Status()
    parser = _call_replacement(_grammar_namespace(), status, spy, outputdir="x", debug=False)
    assert len(spy.calls) == 1 and status.path == "fallback"
    assert "signature mismatch" in status.reason
    fresh = _parser_tables(gen.fresh_parser())
    got = _parser_tables(parser)
    assert got["productions"] == fresh["productions"] and got["action"] == fresh["action"]
    assert got["goto"] == fresh["goto"]


def _retitled(func, doc):
    clone = type(func)(func.__code__, func.__globals__, func.__name__, func.__defaults__, func.__closure__)
    clone.__doc__ = doc
    return clone


def _grammar_changes():
    """Edits of the live grammar, each of which must invalidate the cache."""
    def extra_rule(ns):
        def p_zzz_extra(p):
            """zzz_extra : WORD WORD"""
        p_zzz_extra.__module__ = "bashlex.parser"
        ns["p_zzz_extra"] = p_zzz_extra

    def edit_rule(ns):
        ns["p_pipeline"] = _retitled(ns["p_pipeline"], ns["p_pipeline"].__doc__ + "\n | BANG BANG")

    def drop_rule(ns):
        del ns["p_timespec"]

    def reorder_tokens(ns):
        ns["tokens"] = list(reversed(ns["tokens"]))

    def precedence(ns):
        ns["precedence"] = tuple(reversed(ns["precedence"]))

    def start(ns):
        ns["start"] = "simple_list"

    def no_error_func(ns):
        del ns["p_error"]

    def non_function_rule(ns):
        ns["p_not_a_function"] = "inputunit : EOF"

    return [extra_rule, edit_rule, drop_rule, reorder_tokens, precedence, start,
            no_error_func, non_function_rule]


@pytest.mark.parametrize("change", _grammar_changes(), ids=lambda f: f.__name__)
def test_any_grammar_change_changes_the_signature(change):
    from bashlex import yacc

    namespace = _grammar_namespace()
    change(namespace)
    assert loader.grammar_signature(namespace, yacc) != _lrtables.SIGNATURE


@pytest.mark.parametrize("change", _grammar_changes()[:2], ids=lambda f: f.__name__)
def test_replacement_falls_back_on_changed_grammar(change):
    from bashlex import yacc

    namespace = _grammar_namespace()
    change(namespace)
    spy, status = _Spy(yacc.yacc), loader._Status()
    parser = _call_replacement(namespace, status, spy, outputdir="x", debug=False)
    assert len(spy.calls) == 1 and status.path == "fallback" and "signature" in status.reason
    # The real yacc saw the changed grammar (here: a different number of productions).
    assert len(parser.productions) != len(gen.fresh_parser().productions)


def test_signature_covers_the_table_generator(monkeypatch, tmp_path):
    from bashlex import yacc

    namespace = _grammar_namespace()
    edited = tmp_path / "yacc.py"
    edited.write_bytes(Path(yacc.__file__).read_bytes().replace(b"MAXINT", b"MAXINU", 1))
    monkeypatch.setattr(yacc, "__file__", str(edited))
    assert loader.grammar_signature(namespace, yacc) != _lrtables.SIGNATURE


@pytest.mark.parametrize("kwargs", [{"outputdir": "x", "debug": True}, {"start": "inputunit"},
                                    {"method": "SLR"}, {"module": None}])
def test_replacement_falls_back_on_unexpected_arguments(kwargs):
    status = loader._Status()
    sink = []

    def fake_orig(*args, **kw):
        sink.append(kw)
        return "real-yacc"

    assert _call_replacement(_grammar_namespace(), status, fake_orig, **kwargs) == "real-yacc"
    assert status.path == "fallback" and "unexpected yacc() arguments" in status.reason
    assert len(sink) == 1 and "module" in sink[0]


def test_lazy_inspect_resolves_on_use():
    script = (
        "import sys\n"
        "from gateway.shell import bashlex_loader as L\n"
        "y = L.bashlex.yacc\n"
        "assert 'inspect' not in sys.modules and type(y.inspect).__name__ == '_LazyInspect'\n"
        "f = y.inspect.getsourcefile\n"
        "import inspect\n"
        "assert f == inspect.getsourcefile and y.inspect is inspect\n"
        "assert sys.modules['inspect'] is inspect\n"
        "print('ok')\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=_env(), cwd=str(ROOT), timeout=60)
    assert proc.stdout.strip() == "ok", proc.stderr


def test_generator_check_command():
    proc = subprocess.run([sys.executable, "-m", "gateway.shell._gen_lrtables", "--check"],
                          capture_output=True, text=True, env=_env(), cwd=str(ROOT), timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "up to date" in proc.stdout
