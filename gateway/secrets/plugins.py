"""detect-secrets plugins for what its own detectors miss (loaded by gateway.secrets.scan
through the library's plugin API; imported only by the scanner's worker).

* AnthropicKeyDetector: Anthropic API and admin keys (`sk-ant-api03-...`), the key a coding
  agent's own project most likely holds; the library has OpenAI's but not these.
* TokenAssignmentDetector: a value assigned to a name that ends in `token` (`API_TOKEN=`,
  `access_token:`, `"authToken": "..."`): the library's keyword list has password, secret
  and api_key but not token. The value must be 16+ characters of a token's alphabet, so
  `token = None`, `token: str` or `tokens = parse(...)` are not hits; the library's filters
  (templates, indirect references, sequences) still apply.
* CredentialAssignmentDetector: a literal value assigned to a name that names a credential
  (`aws_secret_access_key = wJalr...`, `DB_PASSWORD=...`, `"clientSecret": "..."`), quoted
  or NOT, in any file type: the library's AWS and keyword rules want a quoted value in
  source files, so an unquoted line in a .py file (or an archived one) was missed. The name
  is judged by its words (split at `_ - .` and camelCase, any case): its last word, after
  qualifiers such as `_prod` or `_2`, is a credential word (secret, password, passwd, pwd,
  token, credentials...) or `<api|access|secret|private|client|...> key`. The value must be
  a literal that looks like one: 8+ characters, not a stand-in (`changeme`, `xxx`,
  `<your-key>`, `${VAR}`), not a reference (`$VAR`, `os.environ[...]`, `settings.API_KEY`,
  `certs/app.pem`), not one plain word, with some entropy. Prose that says "password" has
  no such assignment.
* AuthorizationHeaderDetector: an HTTP `Authorization` (or `Proxy-Authorization`) header
  that carries its credential literally, in any file type: `"Authorization": "Bearer
  9f...`, `-H 'Authorization: token ghp_...'`, `authorization = Basic dXNl...`. The
  library has no rule for a header (its keyword rule wants a credential *name*): the hook
  token `gateway install --http` writes into .claude/settings.local.json was read by `cat`.
  A scheme (Bearer, Token, Basic, Bot, Digest, ApiKey...) and 16+ characters of a token's
  alphabet must follow; a reference (`Bearer ${TOKEN}`, `Bearer $TOKEN`, `f"Bearer
  {token}"`, `Bearer <token>`) has a character outside it and is no hit.
"""

import re

from detect_secrets.plugins.base import RegexBasedDetector


class AnthropicKeyDetector(RegexBasedDetector):
    """Scans for Anthropic API keys."""

    secret_type = "Anthropic API Key"
    denylist = (re.compile(r"sk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_\-]{20,}"),)


class TokenAssignmentDetector(RegexBasedDetector):
    """Scans for values assigned to names ending in token."""

    secret_type = "Token Assignment"
    denylist = (re.compile(
        r"""(?i)[a-z0-9_.\-]*token["']?\s*(?:=|:=|:|=>)\s*["'`]?([A-Za-z0-9_\-./+=~]{16,})"""),)


class AuthorizationHeaderDetector(RegexBasedDetector):
    """Scans for HTTP Authorization headers that hold their credential."""

    secret_type = "Authorization Header"
    denylist = (re.compile(
        r"""(?i)\b(?:proxy-)?authorization["'`]?\]?\s*(?:[:=]|=>)\s*["'`]?"""
        r"""(?:bearer|token|bot|basic|digest|apikey|api-key|key|sso-key|jwt)\s+"""
        r"""([A-Za-z0-9_\-.~+/=]{16,})(?![A-Za-z0-9_\-.~+/=$%{<])"""),)


# --- credential-like names assigned a literal value -------------------------------------------

#: The words a credential's name ends in (after its qualifiers, below), as whole words of
#: the name (split at `_`, `-`, `.` and camelCase): `DB_PASSWORD`, `clientSecret`,
#: `aws.secret.access.key`. A name that ends in another word is about the credential, not
#: the credential (`password_hash`, `token_url`, `secret_name`, `api_key_file`).
_LAST_WORDS = frozenset({
    "secret", "secrets", "password", "passwords", "passwd", "pwd", "pass", "passphrase",
    "token", "tokens", "credential", "credentials", "creds", "apikey", "secretkey",
    "accesskey", "privatekey", "authtoken", "accesstoken", "refreshtoken", "clientsecret"})
#: Run-together lowercase names (`dbpassword`, `githubtoken`) end in one of these.
_LAST_SUFFIXES = ("password", "passwd", "secret", "token", "apikey", "secretkey",
                  "accesskey", "privatekey")
#: `<word> key` is a credential for these words (`api_key`, `aws_secret_access_key`,
#: `privateKey`); `public_key`, `primary_key`, `sort_key` are not.
_KEY_WORDS = frozenset({
    "api", "access", "secret", "private", "signing", "sign", "encryption", "encrypt",
    "master", "client", "auth", "app", "consumer", "account", "storage", "shared",
    "service", "webhook", "license", "licence", "hmac", "session", "jwt", "admin"})
#: Qualifiers after the credential word that keep it one (`SECRET_KEY_BASE`,
#: `DB_PASSWORD_PROD`, `api_key_2`).
_QUALIFIERS = frozenset({
    "prod", "production", "dev", "development", "staging", "stage", "test", "testing",
    "live", "local", "default", "value", "val", "base", "str", "string", "raw", "b64",
    "base64", "enc", "encoded", "hex", "old", "new", "primary", "secondary", "main", "sandbox"})
#: A value holding one of these is a stand-in, not a credential (lower case).
_PLACEHOLDERS = ("changeme", "change_me", "change-me", "changeit", "placeholder", "example",
                 "dummy", "redacted", "replace", "your", "xxx", "***", "...", "<", ">",
                 "${", "{{", "}}", "%(", "#{", "$(", "todo", "tbd", "fixme", "insert")
#: Starts of a value that make it a reference, not a literal: a variable ($X), a
#: comparison (==), a file (~/x, ./x).
_REFERENCE_STARTS = ("$", "=", "~/", "./", "../")
#: Whole values that are references: a YAML alias, anchor or tag (*x, &x, !Ref), a
#: Windows or Python %-variable (%APPDATA%, %(password)s), a curl-style @file.
_REFERENCE_SHAPES = re.compile(r"[*&!@][A-Za-z_][\w.\-/]*|%\(?\w+[%)]s?")
_FILE_EXTS = frozenset({"pem", "key", "crt", "cer", "der", "p12", "pfx", "jks", "json",
                        "txt", "gpg", "asc", "yaml", "yml", "env", "ini", "cfg", "conf",
                        "toml", "properties", "pub", "ppk", "keystore"})

_NAME_CH = r"[A-Za-z0-9_.\-]"
#: One assignment on a line: a name holding a credential word (bounded: no backtracking
#: storm on a long line) whose credential word ends a word (not `keywords`, `tokenizer`:
#: the hook's prefilter stays selective), an optional closing quote or bracket (`"password":`,
#: `['token'] =`), an operator (= := ?= += : =>), an optional quote and 8+ characters of
#: value. Used as is by the hook's prefilter (gateway.secrets.scan.prefilter_lines).
_ASSIGNMENT = re.compile(
    r"(?<![A-Za-z0-9_.\-])(" + _NAME_CH + r"{0,60}?"
    r"(?:secrets?|pass(?:word|wd|phrase)?s?|pwd|tokens?|cred(?:ential)?s?|key)(?-i:(?![a-z]))"
    + _NAME_CH + r"{0,40}?)"
    r"[\"'`]?\]?[ \t]*(?:[:?+]?=|:|=>)[ \t]*([\"'`]?)([^\s\"'`]{8,200})",
    re.IGNORECASE)
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


def _words(text):
    return [w.lower() for part in re.split(r"[_.\-]+", text) for w in _WORD.findall(part)]


def credential_name(name) -> bool:
    """Does this assignment's name name a credential (by its last significant word)?"""
    words = _words(name.lstrip("-"))
    while words and (words[-1] in _QUALIFIERS or words[-1].isdigit()):
        words.pop()
    if not words:
        return False
    last = words[-1]
    if last in _LAST_WORDS:
        return True
    if last == "key":
        return len(words) > 1 and (words[-2] in _KEY_WORDS or words[-2] in _LAST_WORDS)
    return last.endswith(_LAST_SUFFIXES)  # run together: dbpassword, githubtoken


def _entropy(value) -> float:
    import math

    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in
                (value.count(ch) for ch in set(value)))


def literal_credential(value, quoted) -> bool:
    """Is this assigned value a literal that looks like a credential (not a stand-in, a
    reference to a variable or a file, a word, or a code expression)?"""
    if not quoted:
        value = value.rstrip(",;:.!?)")  # the end of a sentence or of a list
    if len(value) < 8:
        return False
    low = value.lower()
    if (value.startswith(_REFERENCE_STARTS) or _REFERENCE_SHAPES.fullmatch(value)
            or any(p in low for p in _PLACEHOLDERS)):
        return False
    if not quoted and any(c in value for c in "()[]{}"):
        return False  # an expression: os.environ[...], getenv(...), {...}
    if low in ("none", "null", "true", "false", "undefined", "nil"):
        return False
    tail = value.rsplit("/", 1)[-1]
    if "." in tail and tail.rsplit(".", 1)[1].lower() in _FILE_EXTS:
        return False  # a file that holds it (private_key: certs/app.pem)
    alnum = [c for c in value if c.isalnum()]
    if not any(c.isalpha() for c in alnum):
        return False
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(?:(?:\.|::|->)[A-Za-z_][A-Za-z0-9_]*)*", value):
        # an identifier: a reference (settings.API_KEY, DB_PASSWORD_VALUE) when its words
        # are words; a random string's camel-case "words" are short and mixed with digits
        toks = _WORD.findall(value)
        digits_inside = any(t.isdigit() for t in toks[:-1])
        if not digits_inside and len("".join(toks)) / max(1, len(toks)) >= 3 and all(
                len(t) <= 20 for t in toks):
            return False
        # a name passed on (`cl_api_key=cl_api_key,`, `self.db_password`): its parts
        # between `_` and `.` are words in one case (or numbers), a secret's are not
        parts = [x for x in re.split(r"[_.]|::|->", value) if x]
        if len(parts) > 1 and all(x.isdigit() or (x.isalpha() and (
                x.islower() or x.isupper() or x.istitle())) for x in parts):
            return False
    has_digit = any(c.isdigit() for c in value)
    has_symbol = any(not c.isalnum() for c in value)
    mixed_case = any(c.isupper() for c in value[1:]) and any(c.islower() for c in value)
    if not (has_digit or has_symbol or mixed_case):
        return False  # one plain word (Required, postgres)
    return _entropy(value) >= 2.5


class CredentialAssignmentDetector(RegexBasedDetector):
    """Scans for literal values assigned to credential-like names, quoted or not."""

    secret_type = "Credential Assignment"
    denylist = (_ASSIGNMENT,)

    def analyze_string(self, string):
        for m in _ASSIGNMENT.finditer(string):
            name, quote, value = m.group(1), m.group(2), m.group(3)
            if credential_name(name) and literal_credential(value, bool(quote)):
                yield value if quote else value.rstrip(",;:.!?)")
