"""`json.loads` and `json.dumps` for the hook's hot path, without importing `json`.

`import json` pulls in `re`, and with it `enum`, `functools` and `collections`: on a
plain command that was a sixth of a hook call's CPU, for a payload the C scanner and
encoder of the standard library's `_json` decode and encode on their own. This module
calls them exactly as `json.JSONDecoder` and `json.JSONEncoder` do with their default
settings, so the results are the same objects and the same text (tests/perf/
test_fastjson.py compares both over generated values and arbitrary text). Every input
they refuse, and every input `json` itself would treat specially (a byte string in another
encoding, a byte-order mark), is handed to `json`, which then raises its own error or
answers: no error message or exception type of this module differs from json's.
"""

try:
    from _json import encode_basestring as _unicode
    from _json import encode_basestring_ascii as _ascii
    from _json import make_encoder as _make_encoder
    from _json import make_scanner as _make_scanner
except ImportError:  # another Python: the json module does it all
    _make_scanner = None

_BLANK = " \t\n\r"


class _Context:
    """The attributes the C scanner reads from a JSONDecoder (its defaults)."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    memo = None

    parse_constant = {"-Infinity": float("-inf"), "Infinity": float("inf"),
                      "NaN": float("nan")}.__getitem__  # json.decoder's _CONSTANTS


_scan = _make_scanner(_Context()) if _make_scanner is not None else None


def loads(s):
    """json.loads(s) for a str or bytes `s`."""
    if isinstance(s, (bytes, bytearray)):
        # json.detect_encoding says UTF-8 exactly when there is no BOM (UTF-8's, UTF-16's
        # or UTF-32's) and neither of the first two bytes is NUL (or there are fewer than two)
        if (s[:3] != b"\xef\xbb\xbf" and s[:2] not in (b"\xfe\xff", b"\xff\xfe")
                and (len(s) < 2 or (s[0] and s[1]))):
            s = s.decode("utf-8", "surrogatepass")
        else:
            return _json().loads(s)
    if _scan is None or not isinstance(s, str) or s[:1] == "\ufeff":
        return _json().loads(s)
    idx = len(s) - len(s.lstrip(_BLANK))
    try:
        value, end = _scan(s, idx)
    except Exception:
        # StopIteration: json's "Expecting value"; any other error is raised by json: the C
        # scanner builds its JSONDecodeError only when json.decoder is already imported
        # (else a SystemError), and json.loads then raises the real one
        return _json().loads(s)
    if end != len(s) and s[end:].strip(_BLANK):
        return _json().loads(s)  # raises json's "Extra data"
    return value


def dumps(value, *, ensure_ascii=True, separators=None, default=None):
    """json.dumps(value, ensure_ascii=..., separators=..., default=...)."""
    if _make_scanner is None:
        return _json().dumps(value, ensure_ascii=ensure_ascii, separators=separators,
                             default=default)
    string = _ascii if ensure_ascii else _unicode
    if isinstance(value, str):
        return string(value)
    item_sep, key_sep = separators if separators is not None else (", ", ": ")
    encode = _make_encoder({}, default if default is not None else _refuse, string, None,
                           key_sep, item_sep, False, False, True)
    return "".join(encode(value, 0))


def _refuse(value):
    _json().JSONEncoder().default(value)  # raises json's TypeError


def _json():
    import json

    return json
