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
