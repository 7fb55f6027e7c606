"""HTTP Authorization headers that carry their credential (gateway.secrets.plugins.
AuthorizationHeaderDetector), by generated lines in the formats a project holds.

The gap it closes: `gateway install --http --scope local` writes `gateway serve`'s bearer
token into .claude/settings.local.json as `"Authorization": "Bearer <43 characters>"`, and
`cat`, `grep -r Bearer .claude`, `jq .` and the Read tool showed it with no dialog: none of
detect-secrets' rules reads a header (its keyword rule wants a credential *name*). The class:
an `Authorization` or `Proxy-Authorization` header (any case; JSON, YAML, an HTTP request
file, curl's -H, a Python dict, a shell variable) with a scheme and a literal credential is
a credential - through the scanner as the hook's worker runs it and through the hook's
prefilter. References (`Bearer ${TOKEN}`, `$TOKEN`, `{token}`, `<token>`), a scheme alone
and prose about the header are not.
"""

import re
import string

from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from gateway.secrets import content
from tests.property.test_secret_assignments import _entropy, _scan, plugins, prefilter  # noqa: F401

SCHEMES = ["Bearer", "bearer", "BEARER", "Token", "token", "Basic", "Bot", "Digest", "ApiKey",
           "JWT"]
HEADERS = ["Authorization", "authorization", "AUTHORIZATION", "Proxy-Authorization"]
TOKEN_ALPHABET = string.ascii_letters + string.digits + "-_.~+/"

#: file name -> header forms ({h} header, {s} scheme, {v} credential)
FORMS = {
    ".claude/settings.local.json": ['      "headers": {{"{h}": "{s} {v}"}}',
                                    '{{"hooks": {{"x": [{{"headers": {{"{h}": "{s} {v}"}}}}]}}}}'],
    "api.http": ["GET https://api.example.com/v1/items\n{h}: {s} {v}"],
    "scripts/fetch.sh": ["curl -sS -H '{h}: {s} {v}' https://api.example.com",
                         'curl -H "{h}: {s} {v}" "$URL"', 'AUTH="{h}: {s} {v}"'],
    "client.py": ['HEADERS = {{"{h}": "{s} {v}"}}', "session.headers['{h}'] = '{s} {v}'"],
    "config.yaml": ["headers:\n  {h}: {s} {v}", '  {h}: "{s} {v}"'],
    "notes.txt": ["{h}: {s} {v}", "{h} = {s} {v}"],
}


@st.composite
def credentials(draw):
    kind = draw(st.sampled_from(["urlsafe", "hex", "b64", "jwt", "ghp"]))
    if kind == "jwt":
        part = st.text(alphabet=string.ascii_letters + string.digits + "-_", min_size=8,
                       max_size=30)
        v = "eyJ" + draw(part) + "." + draw(part) + "." + draw(part)
    elif kind == "ghp":
        v = "ghp_" + draw(st.text(alphabet=string.ascii_letters + string.digits, min_size=36,
                                  max_size=36))
    else:
        alphabet = {"urlsafe": string.ascii_letters + string.digits + "-_",
                    "hex": "0123456789abcdef", "b64": string.ascii_letters + string.digits
                    + "+/"}[kind]
        v = draw(st.text(alphabet=alphabet, min_size=20, max_size=64))
    assume(any(c.isdigit() for c in v) and any(c.isalpha() for c in v))
    assume(_entropy(v) >= 3.0 and not re.search(r"(.)\1\1", v))
    low = v.lower()
    assume(not any(p in low for p in ("your", "xxx", "todo", "tbd", "dummy", "example")))
    return v


SETTINGS = settings(max_examples=120, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


@SETTINGS
@example(fname=".claude/settings.local.json", form=0, header="Authorization", scheme="Bearer",
         value="q3Zr8Vb1Xk0pN7sYt2LwE9aJc4HdGm6fUo5iKxRzB1Q")
@given(fname=st.sampled_from(sorted(FORMS)), form=st.integers(0, 3),
       header=st.sampled_from(HEADERS), scheme=st.sampled_from(SCHEMES), value=credentials())
def test_a_header_with_its_credential_is_found(plugins, prefilter, tmp_path, fname, form,  # noqa: F811
                                               header, scheme, value):
    forms = FORMS[fname]
    line = forms[form % len(forms)].format(h=header, s=scheme, v=value)
    text = f"# request\n{line}\n"
    path = tmp_path / fname
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    kind, detail = _scan(path, plugins)
    assert kind == content.SECRET, (fname, line)
    assert any(rx.search(text) for rx in prefilter), line


# --- not credentials -------------------------------------------------------------------------

REFERENCES = ["${GATEWAY_SERVE_TOKEN}", "$TOKEN", "${{ secrets.API_TOKEN }}", "{token}",
              "{{token}}", "<token>", "<YOUR_TOKEN>", "%s", "' + token + '", '" + token',
              "$(cat ~/.token)", "`cat token`", "{self.token}", "%(token)s", ""]


def _own_only(path):
    from detect_secrets.settings import transient_settings

    from gateway.secrets import scan as scanmod

    with transient_settings({"plugins_used": scanmod.plugins_used(
            ["AuthorizationHeaderDetector"])}):
        return scanmod.scan_one(str(path))


@SETTINGS
@given(fname=st.sampled_from(sorted(FORMS)), form=st.integers(0, 3),
       header=st.sampled_from(HEADERS), scheme=st.sampled_from(SCHEMES),
       value=st.sampled_from(REFERENCES))
def test_a_header_that_refers_to_its_credential_is_not_one(tmp_path, fname, form, header,
                                                           scheme, value):
    forms = FORMS[fname]
    line = forms[form % len(forms)].format(h=header, s=scheme, v=value)
    path = tmp_path / fname
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"# request\n{line}\n")
    assert _own_only(path) == (content.CLEAN, ""), line


PROSE = ["Send the Authorization header with your token.",
         "The Authorization: Bearer scheme is described in RFC 6750.",
         "Set `Authorization` to `Bearer <token>`; see docs/auth.md.",
         "authorization = request.headers.get('Authorization')",
         'if auth.startswith("Bearer "):',
         "Authorization: Bearer",
         "headers['Authorization'] = f'Bearer {token}'"]


@SETTINGS
@given(lines=st.lists(st.sampled_from(PROSE), min_size=1, max_size=5),
       fname=st.sampled_from(["README.md", "docs/auth.md", "server.py", "notes.txt"]))
def test_code_and_prose_about_the_header_are_clean(tmp_path, lines, fname):
    path = tmp_path / fname
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
    assert _own_only(path) == (content.CLEAN, ""), lines
