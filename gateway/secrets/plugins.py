"""detect-secrets plugins for what its own detectors miss (loaded by gateway.secrets.scan
through the library's plugin API; imported only by the scanner's worker).

* AnthropicKeyDetector: Anthropic API and admin keys (`sk-ant-api03-...`), the key a coding
  agent's own project most likely holds; the library has OpenAI's but not these.
* TokenAssignmentDetector: a value assigned to a name that ends in `token` (`API_TOKEN=`,
  `access_token:`, `"authToken": "..."`): the library's keyword list has password, secret
  and api_key but not token. The value must be 16+ characters of a token's alphabet, so
  `token = None`, `token: str` or `tokens = parse(...)` are not hits; the library's filters
  (templates, indirect references, sequences) still apply.
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
