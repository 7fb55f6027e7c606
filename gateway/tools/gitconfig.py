"""What git's configuration holds that is a credential: an entry (`key` = `value`, as `git
config --list -z` prints it) that carries a password or a token. Read by the validator (git
config, git remote and git var print it: gateway.validator.checks.gitconfig, GW742) and by the
sandbox's residual check (git reads it inside the sandbox, which cannot hide it:
gateway.sandbox.residual).
"""

import re

#: A URL's user information: `scheme://user:secret@host` or `https://<token>@host`.
_USERINFO = re.compile(r"([a-z][a-z0-9+.-]*)://([^/@\s]+)@", re.IGNORECASE)
#: Token prefixes of the big forges (gitleaks' github-pat, gitlab-pat, bitbucket rules).
_TOKEN_PREFIXES = ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "gldt-",
                   "glcbt-", "x-access-token", "x-token-auth", "oauth2", "atbb")
_SECRET_WORDS = ("password", "passwd", "token", "secret", "apikey", "api-key", "api_key",
                 "smtppass", "privatekey", "private-key", "credential")


def credential(key: str, value: str) -> str:
    """Why the configuration entry `key` = `value` holds a credential, or "". Checked: URLs
    with user information in the key (url.<base>.insteadOf) or the value (remote.*.url,
    http.proxy) - a password, or a user name that is a token (trufflehog's uri detector,
    detect-secrets' BasicAuthDetector); http.*.extraHeader (an Authorization header,
    actions/checkout's persisted token); keys named like a password or token."""
    low = key.lower()
    for text in (key, value):
        for m in _USERINFO.finditer(text):
            user, _, password = m.group(2).partition(":")
            if password and not password.startswith("$"):
                return f"{key}: a password in a URL"
            u = user.lower()
            scheme = m.group(1).rsplit(".", 1)[-1].lower()  # url.https://... (a key)
            if scheme in ("http", "https", "ftp", "ftps") and (
                    u.startswith(_TOKEN_PREFIXES) or (len(user) >= 20 and " " not in user)):
                return f"{key}: a token in a URL"
    if low.endswith(".extraheader"):
        return f"{key}: an HTTP header sent to the server (a token)"
    name = low.rsplit(".", 1)[-1]
    if value and any(w in name for w in _SECRET_WORDS):
        return f"{key}: named like a password or token"
    if low.startswith("credential.") and re.search(r"(password|token)\s*=\s*[^$\s]", value,
                                                   re.IGNORECASE):
        return f"{key}: a credential helper that prints a password"
    if value and re.search(r"\b(authorization|bearer|basic)\b\s*[:=]?\s*\S{8,}", value,
                           re.IGNORECASE) and "header" in low:
        return f"{key}: an authorization header"
    return ""
