"""gateway.paths.fnmatchcase answers some patterns without fnmatch (no wildcard, `*`,
`*SUFFIX`): it must answer every pattern as fnmatch.fnmatchcase does."""

import fnmatch

from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.paths import fnmatchcase

_ALPHABET = list("ab.*?[]!/\n-") + ["\u00e9", "\u212a", "K", "k"]
_text = st.text(st.sampled_from(_ALPHABET), max_size=10)


@settings(max_examples=5000, deadline=None)
@given(_text, _text)
def test_fnmatchcase_is_fnmatchs(name, pattern):
    assert fnmatchcase(name, pattern) == fnmatch.fnmatchcase(name, pattern)


@settings(max_examples=2000, deadline=None)
@given(_text, _text)
def test_star_suffix_patterns(name, suffix):
    # the shortcut's own shapes, made likely: `*` + a suffix, and a name that ends with it
    for pattern in ("*" + suffix, suffix, "*"):
        for n in (name, name + suffix):
            assert fnmatchcase(n, pattern) == fnmatch.fnmatchcase(n, pattern), (n, pattern)


_piece = st.text(st.sampled_from(list("ab.\n/")), max_size=3)


@settings(max_examples=4000, deadline=None)
@given(st.lists(_piece, min_size=2, max_size=5), st.lists(_piece, max_size=6))
def test_star_only_patterns(pieces, filler):
    # `a*b*c`-shaped patterns against names made of the same pieces (overlaps, repeats,
    # empty pieces, names too short for both ends)
    pattern = "*".join(pieces)
    padded = filler + [""] * (len(pieces) - len(filler))
    mixed = "".join(p + f for p, f in zip(pieces, padded[:len(pieces)], strict=True))
    for name in ("".join(pieces), "".join(filler), mixed):
        assert fnmatchcase(name, pattern) == fnmatch.fnmatchcase(name, pattern), (name, pattern)


# --- gateway.effects.analysis._core._words: re.findall(r"[a-z][a-z0-9_-]*", text) -----------

@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(list("agitz09_- \n;.$\u00e9\u0130K") + ["git", "push"]),
                max_size=30).map("".join))
def test_words_are_re_findalls(text):
    import re

    from gateway.effects.analysis._core import _words

    assert _words(text) == re.findall(r"[a-z][a-z0-9_-]*", text)


# --- gateway.validator.checks.buildtools._jsonc: tsconfig's JSON with comments and trailing commas

_jvalues = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6)
    | st.lists(st.sampled_from(list('ab,}]/*" \\\n\t') + ["//", "/*", "*/", ",}", ",]"]),
               max_size=6).map("".join),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.text(st.sampled_from(list("ab,}]/ ")), max_size=3), inner, max_size=4),
    max_leaves=10)
_gap = st.sampled_from(["", " ", "\n", "\t", " // note\n", "/* c */", "/* a, ] */ ",
                        "\n  // x, }\n  "])


@st.composite
def _jsonc_text(draw, value):
    """`value` written as JSONC: blanks and comments between tokens, sometimes a trailing
    comma before a closing bracket."""
    import json

    def w(v):
        gap = draw(_gap)
        if isinstance(v, list) or isinstance(v, dict):
            items = ([w(x) for x in v] if isinstance(v, list)
                     else [f"{draw(_gap)}{json.dumps(k)}{draw(_gap)}:{w(x)}"
                           for k, x in v.items()])
            trail = "," + draw(_gap) if items and draw(st.booleans()) else ""
            o, c = ("[", "]") if isinstance(v, list) else ("{", "}")
            return f"{gap}{o}{','.join(items)}{trail}{draw(_gap)}{c}{draw(_gap)}"
        return f"{gap}{json.dumps(v)}{draw(_gap)}"

    return w(value)


@settings(max_examples=1500, deadline=None)
@given(st.data())
def test_jsonc_reads_what_was_written(data):
    import json

    from gateway.validator.checks.buildtools import _jsonc_clean

    value = data.draw(_jvalues)
    text = data.draw(_jsonc_text(value))
    assert json.loads(_jsonc_clean(text)) == value, text


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(list("aZ_09-=. \n\u00e9\u212a\u0131")), max_size=6).map("".join))
def test_awk_names_are_the_regexs(text):
    import re

    from gateway.validator.checks.programs import _awk_name

    assert _awk_name(text) == bool(re.match(r"[A-Za-z_][A-Za-z0-9_]*\Z", text))
