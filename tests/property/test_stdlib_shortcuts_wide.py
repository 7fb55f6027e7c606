"""Wide alphabets (from the round-21 red-team review): the stdlib shortcuts against the library they replace,
with wider alphabets than tests/property/test_stdlib_shortcuts.py (unicode case folding,
all of ASCII, every whitespace class, surrogates, fnmatch's own specials)."""

import fnmatch
import re
import shlex

from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.effects.analysis._core import _words
from gateway.paths import fnmatchcase
from gateway.validator.checks.buildtools import _ini_list
from gateway.validator.checks.programs import _awk_name

_odd = ["\u0130", "\u0131", "\u017f", "\u212a", "\u00df", "\ufb00", "\u00e9", "\u0301",
        "\x00", "\x0b", "\x0c", "\x1c", "\x1f", "\x85", "\xa0", "\u2028", "\u3000", "\ud800",
        "\U0001f600", "\r", "\n", "\t", " ", "\\"]
_ascii = [chr(c) for c in range(0, 128)]
anychar = st.one_of(st.sampled_from(_ascii), st.sampled_from(_odd), st.characters())


@settings(max_examples=2000, deadline=None)
@given(st.text(st.sampled_from(list("ab*?[]!^-\\/.\n") + ["\u212a", "k", "K"]), max_size=12),
       st.text(st.sampled_from(list("ab*.\n/\\]!^") + ["\u212a", "k"]), max_size=10))
def test_fnmatch_star_patterns_wide(name, pattern):
    assert fnmatchcase(name, pattern) == fnmatch.fnmatchcase(name, pattern), (name, pattern)


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.text(st.sampled_from(list("aab.")), max_size=3), min_size=1, max_size=6),
       st.text(st.sampled_from(list("aab.")), max_size=14))
def test_fnmatch_star_pieces_against_dense_names(pieces, name):
    pattern = "*".join(pieces)
    for n in (name, "".join(pieces), name + "".join(pieces), "".join(pieces) + name):
        assert fnmatchcase(n, pattern) == fnmatch.fnmatchcase(n, pattern), (n, pattern)


@settings(max_examples=2000, deadline=None)
@given(st.text(anychar, max_size=20), st.text(anychar, max_size=8))
def test_fnmatch_any_text(name, pattern):
    try:
        want = fnmatch.fnmatchcase(name, pattern)
    except re.error:
        return
    assert fnmatchcase(name, pattern) == want


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.one_of(anychar, st.sampled_from(list("ag-_09 ") + ["git", "push", "git-"])),
                max_size=40).map("".join))
def test_words_wide(text):
    assert _words(text) == re.findall(r"[a-z][a-z0-9_-]*", text)
    low = text.lower()
    assert _words(low) == re.findall(r"[a-z][a-z0-9_-]*", low)


@settings(max_examples=2000, deadline=None)
@given(st.text(st.one_of(anychar, st.sampled_from(list("aZ_09=") + ["\u212a", "\u0131"])),
               max_size=8))
def test_awk_name_wide(text):
    assert _awk_name(text) == bool(re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z").match(text))


def _shlex_or_none(value):
    try:
        return shlex.split(value)
    except ValueError:
        return None


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.one_of(anychar, st.sampled_from(list("-p x=y#'\"") + ["--", "\\\n"])),
                max_size=30).map("".join))
def test_ini_list_is_shlex_split(value):
    want = _shlex_or_none(value)
    try:
        got = _ini_list(value)
    except Exception as exc:  # what the fallback does on a shlex error is the old code's
        got = ("raised", type(exc).__name__)
    if want is not None:
        assert got == want, (value, got, want)
