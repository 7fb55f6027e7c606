"""gateway._fastjson answers exactly what json answers (values, text, errors)."""

import json
import math

from hypothesis import example, given, settings
from hypothesis import strategies as st

from gateway import _fastjson

scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True),
                    st.text())
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=5), inner, max_size=4)),
    max_leaves=20)


def _same(a, b):
    """Equal values, NaN equal to NaN, and the same types all the way down."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return a == b


def _outcome(fn, arg, **kw):
    try:
        return "ok", fn(arg, **kw)
    except Exception as exc:  # the exception's type and text must match
        return "error", (type(exc), str(exc))


def _check_loads(text):
    want = _outcome(json.loads, text)
    got = _outcome(_fastjson.loads, text)
    assert want[0] == got[0], (text, want, got)
    if want[0] == "ok":
        assert _same(want[1], got[1]), text
    else:
        assert want[1] == got[1], text


@settings(max_examples=600, deadline=None)
@given(values, st.sampled_from([None, (",", ":"), (", ", ": ")]), st.booleans())
def test_dumps_is_json_dumps(value, separators, ascii_only):
    want = json.dumps(value, ensure_ascii=ascii_only, separators=separators)
    assert _fastjson.dumps(value, ensure_ascii=ascii_only, separators=separators) == want
    _check_loads(want)
    _check_loads(want.encode("utf-8", "surrogatepass"))
    _check_loads("  \n" + want + "\t\r ")


@settings(max_examples=800, deadline=None)
@given(st.text(alphabet='{}[]",:. \t\n\r0123456789eE+-truefalsnNIify\\u\ufeff', max_size=20))
@example("")
@example("   ")
@example("\ufeff{}")
@example("{} x")
@example("[1,]")
@example("NaN")
@example("-Infinity")
@example('"\\ud800"')
@example("1e400")
def test_loads_is_json_loads_on_any_text(text):
    _check_loads(text)


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=12))
@example(b"\xef\xbb\xbf{}")
@example(b"\xfe\xff")
@example(b"\xff\xfe1\x00")
@example(b"\xfe\xff\x001")
@example(b'\x00{\x00}')
@example(b'{\x00}\x00')
@example(b"\x00")
@example(b'"\xed\xa0\x80"')
def test_loads_is_json_loads_on_any_bytes(data):
    _check_loads(data)


def test_deep_nesting_fails_the_same_way():
    text = "[" * 100000 + "]" * 100000
    assert _outcome(json.loads, text)[1][0] is RecursionError
    assert _outcome(_fastjson.loads, text)[1][0] is RecursionError


def test_default_and_refusal_are_json_s():
    class Thing:
        def __str__(self):
            return "thing"

    value = {"a": Thing(), "b": [1.5, float("inf")]}
    assert _fastjson.dumps(value, ensure_ascii=False, default=str) == json.dumps(
        value, ensure_ascii=False, default=str)
    assert _outcome(_fastjson.dumps, value) == _outcome(json.dumps, value)
    assert _outcome(_fastjson.dumps, value)[0] == "error"


def test_errors_are_json_s_in_a_process_that_never_imported_json():
    """The hook process has not imported json when a payload is malformed: the error must
    still be json's JSONDecodeError (the C scanner alone would raise a SystemError)."""
    import subprocess
    import sys

    texts = ['{"tool_name": "Bash", "tool_input": {"command": "ls"}', '{"a": [1, 2}', '[1,]',
             '{"a" 1}', '"\\x"', '{} x', '', 'nul', '[' * 50000, '{"a": "\x01"}']
    code = ("import sys, json as _j; texts = _j.loads(sys.argv[1]); del sys.modules['json']; "
            "[sys.modules.pop(m) for m in list(sys.modules) if m.startswith('json')]\n"
            "from gateway import _fastjson\nout = []\n"
            "for t in texts:\n"
            "    try:\n        _fastjson.loads(t); out.append(None)\n"
            "    except Exception as e:\n        out.append([type(e).__name__, str(e)[:200]])\n"
            "import json; print(json.dumps(out))")
    p = subprocess.run([sys.executable, "-c", code, json.dumps(texts)], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    want = []
    for t in texts:
        try:
            json.loads(t)
            want.append(None)
        except Exception as e:  # noqa: BLE001 - the type and text are compared
            want.append([type(e).__name__, str(e)[:200]])
    assert json.loads(p.stdout) == want
    assert "SystemError" not in p.stdout
