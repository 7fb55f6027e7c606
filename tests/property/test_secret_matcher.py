"""The secret prefilter's matcher (literal names in a set, `pre*suf` patterns by prefix and
suffix, the rest in one regex) answers exactly as the one regex of all the patterns it
replaced: the built-in secret patterns against generated names and paths."""

from hypothesis import given, settings
from hypothesis import strategies as st

from gateway import paths
from gateway.policy.cache import load_policy

_POLICY = load_policy(None)
_GROUPS = {}
for _pat in _POLICY.secret_patterns:
    _GROUPS.setdefault(0 if "**" in _pat else _pat.count("/") + 1, []).append(_pat)
_MATCHERS = [(paths._GroupMatcher(p), paths._compile_globs(p)) for p in _GROUPS.values()]


def _near(pattern):
    return st.sampled_from(["", "a", "x.y", "a/b", "/", ".", "ENV", "-prod"]).map(
        lambda fill: pattern.replace("**", "a/b").replace("*", fill).replace("?", fill[:1]))


_TEXT = st.one_of(
    st.text(alphabet="abcdeENVpgs._-/~*?[", max_size=14),
    st.sampled_from(_POLICY.secret_patterns).flatmap(_near),
    st.sampled_from(_POLICY.secret_patterns).map(str.upper),
)


@settings(max_examples=400, deadline=None)
@given(text=_TEXT)
def test_the_matcher_agrees_with_the_regex(text):
    for matcher, rx in _MATCHERS:
        assert bool(matcher.match(text)) == (rx.match(text) is not None), text


# The globs of the rules' dialect (* ? ** **/ and literal characters, brackets included) and
# texts over the same characters, a few non-ASCII ones (the regex's case folding) among them.
_GLOB_CHARS = "ab.E/-*?[]\n"
_pattern = st.lists(st.sampled_from(["*", "**", "**/", "?", "a", "b", ".", "/", "E", "[",
                                     "K", "s", "\u0131", "\u00e9"]), max_size=7).map("".join)
_text = st.one_of(st.text(alphabet=_GLOB_CHARS, max_size=12),
                  st.text(alphabet="abKkSs/.\u212a\u017f\u0130\u0131\u00e9\u00c9", max_size=8))


_TOKENS = ["*", "**", "**/", "?", "a", "b", ".", "/", "E", "[", "K", "s", "\u0131", "\u00e9"]
_FILL = {"*": ["", "a", "ab", "a/b", "/"], "**": ["", "a", "a/b", "/", "//"],
         "**/": ["", "/", "a/", "a/b/", "a"], "?": ["a", "/", ".", ""]}


@st.composite
def _pattern_and_text(draw):
    """A pattern and a text made from it, each piece filled so that it may or may not match
    (case changed, a wildcard given a `/` or nothing, a literal replaced)."""
    tokens = draw(st.lists(st.sampled_from(_TOKENS), max_size=7))
    text = []
    for t in tokens:
        fill = _FILL.get(t, [t, t.upper(), t.lower(), "a", ""])
        text.append(draw(st.sampled_from(fill)))
    return "".join(tokens), "".join(text)


@settings(max_examples=1500, deadline=None)
@given(pair=_pattern_and_text())
def test_the_automaton_is_the_regex_near_matches(pair):
    pattern, text = pair
    assert bool(paths._Globs([pattern]).match(text)) == (
        paths._compile_globs([pattern]).match(text) is not None), (pattern, text)


@settings(max_examples=1500, deadline=None)
@given(patterns=st.lists(_pattern, min_size=1, max_size=3), text=_text)
def test_the_automaton_is_the_regex(patterns, text):
    """paths._Globs (no `re` on the hot path) answers exactly as the compiled regex."""
    want = paths._compile_globs(patterns).match(text) is not None
    assert bool(paths._Globs(patterns).match(text)) == want, (patterns, text)
    for pattern in patterns:
        assert paths.glob_match(pattern, text) == (
            paths._compile_globs([pattern]).match(text) is not None)
