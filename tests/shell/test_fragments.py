"""gateway.shell.fragments: the list items of a command bashlex rejects, for the deny rules."""

import pytest

from gateway.shell.fragments import split


@pytest.mark.parametrize("text,fragments", [
    ("a; b && c || d | e |& f 2>&1 & g", ["a", "b", "c", "d | e |& f 2>&1", "g"]),
    ('x "a;b" $(c; d) `e;f` # g; h', ['x "a;b" $(c; d) `e;f` # g; h']),
    ("a\nb", ["a", "b"]),
    ("x 'a;b' \\; y; z", ["x 'a;b' \\; y", "z"]),
    ("a &>/dev/null; b <&- && c", ["a &>/dev/null", "b <&-", "c"]),
    ('echo "$(a; b)" ; c', ['echo "$(a; b)"', "c"]),
    ("(a; b); c", ["(a; b)", "c"]),
    (";;; ", []),
])
def test_split(text, fragments):
    assert split(text) == fragments
