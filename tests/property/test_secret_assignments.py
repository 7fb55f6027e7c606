"""Credential-named assignments (gateway.secrets.plugins.CredentialAssignmentDetector), by
generated lines in the formats a project holds.

The gap it closes: detect-secrets' AWS and keyword rules want a quoted value in source files,
so `aws_secret_access_key = <40 characters>` unquoted in a .py file (or an archived one) was
read with no dialog while the same line in a .ini file asked. The class: a NAME whose last
word names a credential (any case; `_`, `-`, `.` or camelCase between its words; qualifiers
such as `_PROD` after it) assigned a real-looking literal, quoted or not, in any file type,
is a credential - through the scanner as the hook's worker runs it (the configured plugin
list, the library's default filters) and through the hook's prefilter. Prose that says
"password" and stand-ins (changeme, xxx, ${VAR}, os.environ[...], <your-key>, empty,
references to settings or files) are not.
"""

import math
import re
import string

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from gateway.secrets import content
from gateway.secrets import scan as scanmod

PREFIXES = ["aws", "db", "app", "my", "prod", "github", "stripe", "service", "mysql",
            "redis", "smtp", "oauth", "django", "x"]
#: credential words as word lists (the name is rendered from words in a style)
TAILS = [["secret"], ["password"], ["passwd"], ["pwd"], ["token"], ["api", "key"],
         ["access", "key"], ["secret", "access", "key"], ["private", "key"],
         ["client", "secret"], ["auth", "token"], ["credentials"], ["secret", "key"],
         ["access", "token"], ["refresh", "token"], ["signing", "key"], ["passphrase"]]
QUALIFIERS = [[], [], [], ["prod"], ["2"], ["base"]]


def render(words, style):
    if style == "snake":
        return "_".join(words)
    if style == "SCREAM":
        return "_".join(words).upper()
    if style == "kebab":
        return "-".join(words)
    if style == "dotted":
        return ".".join(words)
    if style == "camel":
        return words[0] + "".join(w.capitalize() for w in words[1:])
    return "".join(w.capitalize() for w in words)  # Pascal


@st.composite
def names(draw):
    pre = draw(st.lists(st.sampled_from(PREFIXES), max_size=2))
    words = pre + draw(st.sampled_from(TAILS)) + draw(st.sampled_from(QUALIFIERS))
    return render(words, draw(st.sampled_from(["snake", "SCREAM", "kebab", "dotted", "camel",
                                               "Pascal"])))


def _entropy(v):
    return -sum(v.count(c) / len(v) * math.log2(v.count(c) / len(v)) for c in set(v))


B64 = string.ascii_letters + string.digits + "+/"
SYMBOLS = string.ascii_letters + string.digits + "!#%^&*-_+=~"


@st.composite
def real_values(draw):
    """A value a credential really has: random alphanumerics, base64 (an AWS secret), hex,
    a generated password with symbols."""
    kind = draw(st.sampled_from(["alnum", "b64", "hex", "password"]))
    alphabet, lo, hi = {"alnum": (string.ascii_letters + string.digits, 16, 48),
                        "b64": (B64, 40, 40), "hex": ("0123456789abcdef", 32, 64),
                        "password": (SYMBOLS, 12, 24)}[kind]
    v = draw(st.text(alphabet=alphabet, min_size=lo, max_size=hi))
    assume(any(c.isdigit() for c in v) and any(c.isalpha() for c in v))
    assume(_entropy(v) >= 3.0 and not re.search(r"(.)\1\1", v))
    low = v.lower()
    assume(not any(p in low for p in ("your", "xxx", "todo", "tbd", "dummy", "example")))
    return v


#: file type -> assignment forms ({n} name, {v} value)
FORMS = {
    "py": ["{n} = {v}", '{n} = "{v}"', "{n} = '{v}'", "    {n}={v}"],
    "ini": ["{n} = {v}", "{n}={v}", '{n} = "{v}"'],
    "env": ["{n}={v}", '{n}="{v}"', "export {n}={v}"],
    "sh": ["export {n}={v}", '{n}="{v}"', "{n}='{v}'"],
    "yaml": ["{n}: {v}", '{n}: "{v}"', "  {n}: '{v}'"],
    "toml": ['{n} = "{v}"', "{n} = '{v}'"],
    "json": ['{{"{n}": "{v}"}}', '  "{n}": "{v}",'],
    "js": ["const {n} = '{v}';", '  {n}: "{v}",'],
    "properties": ["{n}={v}", "{n} = {v}"],
    "txt": ["{n} = {v}", "{n}: {v}"],
}
FILES = {"py": "settings.py", "ini": "deploy.ini", "env": ".env.ci-example.local",
         "sh": "deploy.sh", "yaml": "config.yaml", "toml": "app.toml", "json": "conf.json",
         "js": "config.js", "properties": "app.properties", "txt": "notes.txt"}
# a name the name grammar does not decide: the content scanner is asked about every file
FILES["env"] = "vars.conf"


def _scan(path, plugins):
    from detect_secrets.settings import transient_settings

    with transient_settings({"plugins_used": scanmod.plugins_used(plugins)}):
        return scanmod.scan_one(str(path))


@pytest.fixture(scope="module")
def plugins():
    from gateway.runtime import get_policy

    found = content.settings(get_policy(None, use_cache=False))[0]
    assert "CredentialAssignmentDetector" in found
    return found


@pytest.fixture(scope="module")
def prefilter(plugins):
    from detect_secrets.settings import transient_settings

    with transient_settings({"plugins_used": scanmod.plugins_used(plugins)}):
        lines = scanmod.prefilter_lines(scanmod._classes(plugins))
    return [re.compile(p, int(f) | re.MULTILINE)
            for f, _, p in (line.partition("\t") for line in lines)]


SETTINGS = settings(max_examples=120, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


@SETTINGS
@example(name="aws_secret_access_key", value="wJalrXUtnFEMI/K7MDENG/bPxRfiCYAWSMARKER1",
         ftype="py", form=0)
@given(name=names(), value=real_values(), ftype=st.sampled_from(sorted(FORMS)),
       form=st.integers(0, 3))
def test_a_credential_named_assignment_is_found(plugins, prefilter, tmp_path, name, value,
                                                ftype, form):
    forms = FORMS[ftype]
    line = forms[form % len(forms)].format(n=name, v=value)
    text = f"# settings\nregion = eu-west-1\n{line}\n"
    path = tmp_path / FILES[ftype]
    path.write_text(text)
    kind, detail = _scan(path, plugins)
    assert kind == content.SECRET, (FILES[ftype], line)
    assert any(rx.search(text) for rx in prefilter), line


# --- not credentials -------------------------------------------------------------------------

PROSE_WORDS = ["the", "password", "secret", "token", "api", "key", "is", "never", "stored",
               "set", "your", "in", "settings", "page", "rotate", "access", "expires", "after",
               "days", "keep", "private", "credentials", "safe", "and", "use", "a", "manager"]

PLACEHOLDERS = ["changeme", "CHANGE_ME", "change-me-now", "xxxxxxxxxxxxxxxx", "XXXX-XXXX-XXXX",
                "${DB_PASSWORD}", "${{ secrets.API_TOKEN }}", "{{ vault_password }}",
                "<your-api-key>", "<YOUR_SECRET_HERE>", "your-secret-here", "$API_TOKEN",
                "%(password)s", "os.environ['SECRET_KEY']", 'os.getenv("TOKEN")',
                "process.env.API_TOKEN", "settings.SECRET_KEY", "config.database.password",
                "None", "null", "true", "", "********", "example-token-1234",
                "get_password()", "DB_PASSWORD_VALUE", "certs/server.pem",
                "/etc/ssl/private/app.key", "~/.ssh/id_ed25519", "@secret.txt",
                "replace-with-real-key", "dummy-password-1"]


@st.composite
def prose(draw):
    words = draw(st.lists(st.sampled_from(PROSE_WORDS), min_size=3, max_size=14))
    end = draw(st.sampled_from([".", ":", "!", ""]))
    sentence = " ".join(words).capitalize() + end
    return draw(st.sampled_from(["{s}", "- {s}", "## {s}", "> {s}", "  {s}"])).format(s=sentence)


@SETTINGS
@given(lines=st.lists(prose(), min_size=1, max_size=6),
       fname=st.sampled_from(["README.md", "docs/guide.txt", "CHANGELOG", "notes.rst"]))
def test_prose_about_passwords_is_clean(plugins, tmp_path, lines, fname):
    path = tmp_path / fname
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
    assert _scan(path, plugins) == (content.CLEAN, ""), lines


def _own_only(path):
    from detect_secrets.settings import transient_settings

    with transient_settings({"plugins_used": scanmod.plugins_used(
            ["CredentialAssignmentDetector"])}):
        return scanmod.scan_one(str(path))


@SETTINGS
@given(name=names(), value=st.sampled_from(PLACEHOLDERS), ftype=st.sampled_from(sorted(FORMS)),
       form=st.integers(0, 3))
def test_stand_ins_and_references_are_not_credentials(tmp_path, name, value, ftype, form):
    """The gateway's own detector takes no stand-in for a credential (the library's keyword
    rule has its own judgement of some of them, e.g. a quoted `changeme`: not ours to
    change)."""
    forms = FORMS[ftype]
    line = forms[form % len(forms)].format(n=name, v=value)
    path = tmp_path / FILES[ftype]
    path.write_text(f"{line}\n")
    assert _own_only(path) == (content.CLEAN, ""), line


@pytest.mark.parametrize("line", [
    "password = os.environ['DB_PASSWORD']", "api_key = settings.API_KEY",
    "token = None", "secret = get_secret('app')", "def check(password):",
    "if password == confirm_password:", "password_hash = make_hash(password)",
    "token_url = 'https://example.org/oauth/token'", "secret_name = 'prod-db-credentials'",
    "api_key_file = 'keys/api.txt'", "primary_key = True", "sort_key = 'created_at_desc'",
    "public_key = load_public_key(path)", "self.password = password",
    "max_tokens = 4096", "tokenizer = AutoTokenizer.from_pretrained(model_name)",
    "PASSWORD_MIN_LENGTH = 12", "keyboard_layout = 'dvorak-programmer'",
    "    cl_api_key=cl_api_key,", "client(api_key=self.api_key, token=auth.bearer_token)",
    "DB_PASSWORD = settings.DATABASES.default.PASSWORD",
])
def test_ordinary_code_is_clean(plugins, tmp_path, line):
    path = tmp_path / "app.py"
    path.write_text(line + "\n")
    assert _own_only(path) == (content.CLEAN, ""), line
    if line in LIBRARY_KEYWORD_HITS:
        # the library's keyword rule takes any quoted value of a secret-ish name in a .py
        # file, and the older TokenAssignmentDetector any 16+ characters after `token=`
        # (their judgement, unchanged here: the read asks GW510)
        assert _scan(path, plugins)[0] == content.SECRET
    else:
        assert _scan(path, plugins) == (content.CLEAN, ""), line


LIBRARY_KEYWORD_HITS = {"secret_name = 'prod-db-credentials'", "api_key_file = 'keys/api.txt'",
                        "client(api_key=self.api_key, token=auth.bearer_token)"}
