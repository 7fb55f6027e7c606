"""The parsed-TOML cache (gateway.validator.checks.tomlcache) and the other shortcuts of the
configuration readers: each gives exactly what the library it stands in for gives, and a
cache file that is not exactly what the gateway wrote is never believed."""

import json
import math
import os
import shlex
import tomllib

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from gateway.validator.checks import buildtools as build
from gateway.validator.checks import tomlcache


@pytest.fixture()
def cache(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    monkeypatch.setenv("GATEWAY_CACHE_DIR", str(d))
    monkeypatch.delenv("GATEWAY_CONFIG_CACHE", raising=False)
    return d


def _same(a, b) -> bool:
    """Equal values of the same types all the way down (1 is not 1.0 is not True; nan is
    nan)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    if isinstance(a, float):
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    return a == b


# --- TOML text generated from values (a test-side writer: tomllib is the judge) ----------

_keys = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=8)
_scalars = (st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
            | st.integers(min_value=-(2**63), max_value=2**63 - 1)
            | st.floats(allow_nan=True, allow_infinity=True) | st.booleans())
_values = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=4)
                       | st.dictionaries(_keys, inner, max_size=4), max_leaves=12)


def _str(s):
    out = ['"']
    for c in s:
        if c in '"\\':
            out.append("\\" + c)
        elif ord(c) < 0x20 or ord(c) == 0x7F:
            out.append(f"\\u{ord(c):04x}")
        else:
            out.append(c)
    return "".join(out) + '"'


def _val(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf") if math.isinf(v) \
            else repr(v)
    if isinstance(v, str):
        return _str(v)
    if isinstance(v, list):
        return "[" + ", ".join(_val(x) for x in v) + "]"
    return "{" + ", ".join(f"{_str(k)} = {_val(x)}" for k, x in v.items()) + "}"


def _doc(d):
    return "".join(f"{_str(k)} = {_val(v)}\n" for k, v in d.items())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(st.dictionaries(_keys, _values, max_size=6))
def test_a_cached_parse_is_tomllibs_parse(tmp_path, monkeypatch, data):
    monkeypatch.setenv("GATEWAY_CACHE_DIR", str(tmp_path / "cache-prop"))
    assume(data)  # an empty file is "no configuration" (None), not {}
    text = _doc(data)
    try:
        expected = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        assume(False)
    path = tmp_path / "pyproject.toml"
    path.write_text(text, encoding="utf-8")
    first = build._toml(str(path))
    assert _same(first, expected)
    assert tomlcache.lookup(str(path), text) is not None  # remembered
    # the second read is the cache's (tomllib is not called), and it is the same value
    with monkeypatch.context() as m:
        m.setattr(tomllib, "loads", lambda _t: pytest.fail("parsed again"))
        assert _same(build._toml(str(path)), expected)


def test_an_edit_is_never_hidden_by_the_cache(cache, tmp_path):
    """Same size, same modification time, one byte changed: the new text is parsed."""
    path = tmp_path / "pyproject.toml"
    path.write_text('[tool.pytest.ini_options]\naddopts = "-p no:cacheprovider"\n')
    st0 = os.stat(path)
    assert build._toml(str(path))["tool"]["pytest"]["ini_options"]["addopts"] == \
        "-p no:cacheprovider"
    path.write_text('[tool.pytest.ini_options]\naddopts = "--basetemp=/tmp/zzz"\n')
    os.utime(path, ns=(st0.st_atime_ns, st0.st_mtime_ns))
    assert os.stat(path).st_size == st0.st_size
    assert build._toml(str(path))["tool"]["pytest"]["ini_options"]["addopts"] == \
        "--basetemp=/tmp/zzz"


def test_dates_are_not_cached(cache, tmp_path):
    path = tmp_path / "x.toml"
    path.write_text("when = 1979-05-27T07:32:00Z\nday = 1979-05-27\n")
    data = build._toml(str(path))
    assert data == tomllib.loads(path.read_text())
    assert tomlcache.lookup(str(path), path.read_text()) is None
    assert not (cache / "parsed").exists() or not os.listdir(cache / "parsed")


def test_turned_off(cache, tmp_path, monkeypatch):
    monkeypatch.setenv("GATEWAY_CONFIG_CACHE", "0")
    path = tmp_path / "x.toml"
    path.write_text("a = 1\n")
    assert build._toml(str(path)) == {"a": 1}
    assert not (cache / "parsed").exists()


def _entry_file(path):
    return tomlcache._file(str(path))


TRUE_TEXT = '[tool.pytest.ini_options]\naddopts = "--basetemp=/tmp/zzz"\n'
LIE = {"tool": {"pytest": {"ini_options": {"addopts": "-q"}}}}


def _plant(path, content: bytes, mode=0o600):
    target = _entry_file(path)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target, "wb") as fh:
        fh.write(content)
    os.chmod(target, mode)
    return target


def _lie(path, text=TRUE_TEXT, fmt=tomlcache.FORMAT, data=None):
    return json.dumps([fmt, str(path), text, LIE if data is None else data]).encode()


@pytest.mark.parametrize("how", ["group-writable", "world-writable", "link", "fifo",
                                 "directory", "garbage", "not-a-list", "other-format",
                                 "other-path", "other-text", "data-not-a-table",
                                 "too-big", "bad-utf8", "bom"])
def test_a_cache_file_not_exactly_the_gateways_is_not_believed(cache, tmp_path, how):
    """The planted entry says addopts is `-q`; the file says --basetemp: whatever is
    planted, the parse of the real text comes back (never the lie)."""
    path = tmp_path / "pyproject.toml"
    path.write_text(TRUE_TEXT)
    target = _entry_file(path)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    if how == "group-writable":
        _plant(path, _lie(path), 0o620)
    elif how == "world-writable":
        _plant(path, _lie(path), 0o602)
    elif how == "link":
        elsewhere = tmp_path / "elsewhere.json"
        elsewhere.write_bytes(_lie(path))
        os.chmod(elsewhere, 0o600)
        os.symlink(elsewhere, target)
    elif how == "fifo":
        os.mkfifo(target, 0o600)
    elif how == "directory":
        os.mkdir(target, 0o700)
    elif how == "garbage":
        _plant(path, b"\x00\xff{{{")
    elif how == "not-a-list":
        _plant(path, json.dumps({"data": LIE}).encode())
    elif how == "other-format":
        _plant(path, _lie(path, fmt=tomlcache.FORMAT + 1))
    elif how == "other-path":
        _plant(path, _lie(tmp_path / "other.toml"))
    elif how == "other-text":
        _plant(path, _lie(path, text=TRUE_TEXT.replace("zzz", "yyy")))
    elif how == "data-not-a-table":
        _plant(path, _lie(path, data=[LIE]))
    elif how == "too-big":
        _plant(path, _lie(path) + b" " * (tomlcache._MAX_FILE + 1))
    elif how == "bad-utf8":
        _plant(path, _lie(path).replace(b"-q", b"\xff\xfe"))
    elif how == "bom":
        _plant(path, b"\xef\xbb\xbf" + _lie(path))
    got = build._toml(str(path))
    assert got == tomllib.loads(TRUE_TEXT), how


def test_the_entry_is_written_for_the_user_alone(cache, tmp_path):
    path = tmp_path / "pyproject.toml"
    path.write_text("a = 1\n")
    build._toml(str(path))
    st0 = os.lstat(_entry_file(path))
    assert st0.st_mode & 0o777 == 0o600 and st0.st_uid == os.getuid()
    assert not [n for n in os.listdir(os.path.dirname(_entry_file(path))) if ".tmp" in n]


# --- addopts split without shlex where it splits the same -------------------------------

_WORDISH = st.text(st.sampled_from(list("ab-=:/.# \t\r\n'\"\\\x0b\x0c\x1c\x85\xa0\u2003x")),
                   max_size=24)


@settings(max_examples=3000, deadline=None)
@given(_WORDISH)
def test_ini_list_splits_as_shlex_does(value):
    try:
        expected = shlex.split(value)
    except ValueError:
        with pytest.raises(build.ConfigError):
            build._ini_list(value)
        return
    assert build._ini_list(value) == expected


# --- found by the round-21 red-team review: each was believed before ----------------------

def test_a_hard_linked_cache_file_rewritten_elsewhere_is_not_believed(cache, tmp_path):
    """A second name of the cache file (a hard link in the project) would let it be
    rewritten in place, keeping its inode, mode and owner: one name only."""
    path = tmp_path / "pyproject.toml"
    path.write_text(TRUE_TEXT)
    assert build._toml(str(path)) == tomllib.loads(TRUE_TEXT)  # stored
    link = tmp_path / "innocent.json"
    os.link(_entry_file(path), link)
    with open(link, "r+") as fh:
        fh.truncate()
        fh.write(_lie(path).decode())
    assert os.stat(_entry_file(path)).st_nlink == 2
    assert build._toml(str(path)) == tomllib.loads(TRUE_TEXT)


def test_a_symlinked_parsed_directory_is_neither_read_nor_written(cache, tmp_path):
    path = tmp_path / "pyproject.toml"
    path.write_text(TRUE_TEXT)
    evil = tmp_path / "evil"
    evil.mkdir()
    planted = evil / os.path.basename(_entry_file(path))
    planted.write_bytes(_lie(path))
    os.chmod(planted, 0o600)
    os.makedirs(cache, exist_ok=True)
    os.symlink(evil, cache / "parsed")
    assert build._toml(str(path)) == tomllib.loads(TRUE_TEXT)
    assert sorted(os.listdir(evil)) == [planted.name]  # nothing written through the link
    assert planted.read_bytes() == _lie(path)


def test_a_parsed_directory_others_can_write_is_not_trusted(cache, tmp_path):
    path = tmp_path / "pyproject.toml"
    path.write_text(TRUE_TEXT)
    _plant(path, _lie(path))
    os.chmod(cache / "parsed", 0o777)
    assert build._toml(str(path)) == tomllib.loads(TRUE_TEXT)


@pytest.mark.parametrize("inner", [{"tool": {"pytest": None}}, {"tool": [None]},
                                   {"a": {"b": [1, {"c": None}]}}])
def test_a_parse_tomllib_cannot_make_is_not_believed(cache, tmp_path, inner):
    path = tmp_path / "pyproject.toml"
    path.write_text(TRUE_TEXT)
    _plant(path, _lie(path, data=inner))
    assert build._toml(str(path)) == tomllib.loads(TRUE_TEXT)


def test_a_planted_entry_that_passes_every_check_is_what_the_cache_trusts(cache, tmp_path):
    """The control for the tests above: the same lie, planted as the gateway writes (a
    regular 0600 file of the user's with one name, in a 0700 parsed/), is believed: the
    cache directory's protection (GW832, tests/e2e/test_hook_config_cache.py) is what keeps
    the agent from writing it."""
    path = tmp_path / "pyproject.toml"
    path.write_text(TRUE_TEXT)
    _plant(path, _lie(path))
    os.chmod(cache / "parsed", 0o700)
    assert build._toml(str(path)) == LIE
