"""Secrets by content (gateway.secrets.content and its worker gateway.secrets.scan), by
generated files in the formats projects hold: INI, YAML, JSON, TOML, .properties, shell
exports, source code, prose. A credential in any of them is found by the scanner; files
without one (prose that says "password", code, hashes) are not; the prefilter the hook uses
never clears a line the scanner would flag (proven against the library itself); the verdict
cache is keyed by the file's identity, so a same-size rewrite with its old mtime is a new
file. The hook-level tests (raw JSON through `gateway hook pre-tool-use`) are in
tests/e2e/test_secret_content_hooks.py."""

import os
import re
import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gateway.secrets import content, filecheck
from gateway.secrets import scan as scanmod

ALNUM = string.ascii_letters + string.digits


def _rand(draw, n, alphabet=ALNUM):
    return draw(st.text(alphabet=alphabet, min_size=n, max_size=n))


@st.composite
def credentials(draw):
    """(kind, value) of a credential a project may hold."""
    kind = draw(st.sampled_from(["aws", "github", "slack", "stripe", "anthropic",
                                 "gitlab", "private_key"]))
    if kind == "aws":
        return kind, "AKIA" + _rand(draw, 16, string.ascii_uppercase + string.digits)
    if kind == "github":
        return kind, "ghp_" + _rand(draw, 36)
    if kind == "slack":
        return kind, f"xoxb-{draw(st.integers(10**9, 10**12))}-{_rand(draw, 24).lower()}"
    if kind == "stripe":
        return kind, "sk_live_" + _rand(draw, 24)
    if kind == "gitlab":
        return kind, "glpat-" + _rand(draw, 20)
    if kind == "anthropic":
        return kind, "sk-ant-api03-" + _rand(draw, 40)
    return kind, ("-----BEGIN RSA PRIVATE KEY-----\n" + _rand(draw, 64) +
                  "\n-----END RSA PRIVATE KEY-----")


NAME = st.text(alphabet=string.ascii_lowercase, min_size=3, max_size=8)
#: A value no detector takes for a credential by itself: assigned to a credential-looking
#: name (password, secret, api_key, token) it is one.
PASSWORD = st.text(alphabet=ALNUM, min_size=16, max_size=24).filter(
    lambda v: any(c.isdigit() for c in v) and any(c.isalpha() for c in v)
    and not re.search(r"(.)\1\1", v))
KEYS = st.sampled_from(["password", "db_password", "secret_key", "client_secret",
                        "api_key", "API_KEY", "auth_token", "ACCESS_TOKEN", "passwd"])


@st.composite
def secret_files(draw):
    """(file name, text) of a project file in a common format holding a credential."""
    fmt = draw(st.sampled_from(["ini", "yaml", "json", "toml", "properties", "sh", "py",
                                "token"]))
    section, other = draw(NAME), draw(NAME)
    if fmt == "token":
        _kind, value = draw(credentials())
        fmt2 = draw(st.sampled_from(["txt", "py", "md", "cfg"]))
        return f"notes.{fmt2}", f"# {other}\nvalue: {value}\n"
    key, value = draw(KEYS), draw(PASSWORD)
    text = {
        "ini": f"[{section}]\n{other} = 1\n{key} = {value}\n",
        "yaml": f"{section}:\n  {other}: 1\n  {key}: {value}\n",
        "json": f'{{"{section}": {{"{other}": 1, "{key}": "{value}"}}}}\n',
        "toml": f'[{section}]\n{other} = 1\n{key} = "{value}"\n',
        "properties": f"{section}.{other}=1\n{section}.{key}={value}\n",
        "sh": f"export {other.upper()}=1\nexport {key.upper()}={value}\n",
        "py": f'{other} = 1\n{key} = "{value}"\n',
    }[fmt]
    ext = {"properties": "properties", "sh": "sh", "py": "py"}.get(fmt, fmt)
    return f"{section}.{ext}", text


@st.composite
def clean_files(draw):
    """(file name, text) with no credential: prose about passwords, code, hashes."""
    kind = draw(st.sampled_from(["prose", "code", "lock", "config"]))
    w = draw(NAME)
    if kind == "prose":
        return "README.md", (f"# {w}\n\nSet your password in the settings page; the secret "
                             f"is never stored. Tokens expire after {draw(st.integers(1, 99))} "
                             "days.\n")
    if kind == "code":
        return f"{w}.py", (f"def {w}(password):\n    return check(password)\n\n"
                           f"token = None\nsecret = get_secret('{w}')\n")
    if kind == "lock":
        return "notes.txt", f"commit {draw(st.text(alphabet='0123456789abcdef', min_size=40, max_size=40))}\n"
    return f"{w}.ini", f"[{w}]\nname = {w}\ntimeout = {draw(st.integers(1, 999))}\n"


def _scan(path, plugins):
    from detect_secrets.settings import transient_settings

    with transient_settings({"plugins_used": scanmod.plugins_used(plugins)}):
        return scanmod.scan_one(str(path))


@pytest.fixture(scope="module")
def plugins():
    from gateway.runtime import get_policy

    return content.settings(get_policy(None, use_cache=False))[0]


@pytest.fixture(scope="module")
def prefilter(plugins):
    from detect_secrets.settings import transient_settings

    with transient_settings({"plugins_used": scanmod.plugins_used(plugins)}):
        lines = scanmod.prefilter_lines(scanmod._classes(plugins))
    assert lines, "every configured plugin has patterns the hook can use"
    out = []
    for line in lines:
        flags, _, pattern = line.partition("\t")
        out.append(re.compile(pattern, int(flags) | re.MULTILINE))
    return out


SLOW = settings(max_examples=40, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])


@SLOW
@given(f=secret_files())
def test_a_credential_in_a_project_format_is_found(plugins, prefilter, tmp_path, f):
    name, text = f
    path = tmp_path / name
    path.write_text(text)
    kind, detail = _scan(path, plugins)
    assert kind == content.SECRET, (name, text)
    # and the hook's prefilter sends it to the scanner
    assert any(rx.search(text) for rx in prefilter), (name, text)


@SLOW
@given(f=clean_files())
def test_files_without_a_credential_are_clean(plugins, tmp_path, f):
    name, text = f
    path = tmp_path / name
    path.write_text(text)
    assert _scan(path, plugins) == (content.CLEAN, ""), (name, text)


LINES = st.one_of(
    st.text(alphabet=string.printable, max_size=80),
    st.builds(lambda k, v, sep: f"{k}{sep}{v}", KEYS, PASSWORD,
              st.sampled_from([" = ", ": ", "=", ' = "', ": '"])),
    credentials().map(lambda kv: kv[1]),
    st.builds(lambda a, b: f"https://{a}:{b}@example.com/x", NAME, PASSWORD),
)


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(LINES, min_size=1, max_size=6),
       ext=st.sampled_from([".py", ".txt", ".sh", ".json", ".md", ".cfg", ".toml"]))
def test_the_prefilter_never_clears_what_the_scanner_flags(plugins, prefilter, tmp_path,
                                                            lines, ext):
    text = "\n".join(lines) + "\n"
    path = tmp_path / ("f" + ext)
    try:
        path.write_text(text, encoding="utf-8")
    except UnicodeEncodeError:
        return
    kind, _detail = _scan(path, plugins)
    if kind == content.SECRET:
        assert any(rx.search(text) for rx in prefilter), text


# --- the hook side: cache, identity, limits, trust -------------------------------------------

@pytest.fixture()
def scanning(monkeypatch, tmp_path):
    """A cache directory of its own and a count of worker runs."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("GATEWAY_CACHE_DIR", str(cache))
    runs = []
    real = content._run_worker

    def counted(*a, **k):
        runs.append(a[0])
        return real(*a, **k)

    monkeypatch.setattr(content, "_run_worker", counted)
    return runs


def test_a_verdict_is_kept_by_identity_and_a_rewrite_is_a_new_file(policy, tmp_path,
                                                                     scanning):
    f = tmp_path / "settings.ini"
    new = "[a]\npassword = Zq8vR2mT7pLx9KcW\n"
    old = "[a]\nname = " + "x" * (len(new) - len("[a]\nname = \n")) + "\n"
    f.write_text(old)
    assert filecheck.check([str(f)], policy) is None
    assert filecheck.check([str(f)], policy) is None
    first = len(scanning)
    assert first <= 1  # the prefilter or one scan; the second call is a cache hit
    st0 = os.stat(f)
    # a same-size rewrite with the old modification time: a new identity (ctime moves)
    f.write_text(new)
    assert os.stat(f).st_size == st0.st_size
    os.utime(f, ns=(st0.st_atime_ns, st0.st_mtime_ns))
    v = filecheck.check([str(f)], policy)
    assert v is not None and v.kind == content.SECRET, v
    assert "Secret Keyword" in v.detail


def test_a_file_over_the_limit_is_not_scanned_and_asks(policy, tmp_path, scanning):
    f = tmp_path / "big.log"
    limit = content.settings(policy)[1]
    with open(f, "wb") as fh:
        fh.truncate(limit + 1)
    v = filecheck.check([str(f)], policy)
    assert v is not None and v.kind == content.UNSCANNED and "over the scanner's limit" in v.detail
    assert not scanning


def test_a_cache_others_can_write_is_not_believed(policy, tmp_path, scanning):
    f = tmp_path / "a.txt"
    f.write_text("api_key = 'Zq8vR2mT7pLx9KcW3nBd'\n")
    v = filecheck.check([str(f)], policy)
    assert v is not None and v.kind == content.SECRET
    root = content.scan_root()
    os.chmod(root, 0o777)
    try:
        # the recorded verdict is not read from a directory anyone may write: scanned again
        before = len(scanning)
        v = filecheck.check([str(f)], policy)
        assert len(scanning) == before + 1
        assert v is not None and v.kind in (content.SECRET, content.UNSCANNED)
    finally:
        os.chmod(root, 0o700)


def test_not_scanned_in_time_asks_and_the_worker_finishes_later(policy, tmp_path,
                                                                 monkeypatch, scanning):
    f = tmp_path / "conf.yaml"
    f.write_text("db:\n  password: Zq8vR2mT7pLx9KcW3nBd\n")
    data = dict(policy.secret_content)
    data["timeout_ms"] = 1
    monkeypatch.setattr(policy, "secret_content", data)
    v = filecheck.check([str(f)], policy)
    assert v is not None and v.kind == content.UNSCANNED and "not scanned within" in v.detail
    monkeypatch.setattr(policy, "secret_content", dict(data, timeout_ms=60000))
    v = filecheck.check([str(f)], policy)
    assert v is not None and v.kind == content.SECRET
