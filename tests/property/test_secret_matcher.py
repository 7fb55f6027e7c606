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
