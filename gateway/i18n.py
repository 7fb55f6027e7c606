"""The language of the workflow screens: the seeds' Japanese screens, exactly, for a Japanese
user; English for everyone else.

``lang(env)`` is ``"ja"`` when the setting ``GATEWAY_LANG`` says ``ja`` (``en`` says English),
else when the locale is Japanese: the first of ``LC_ALL``, ``LC_MESSAGES``, ``LANG`` that is set
starts with ``ja`` (``ja_JP.UTF-8``). Anything else is English. ``text(ja, en)`` picks one.

Standard library only; nothing is read but the environment.
"""

import os

__all__ = ["lang", "text", "is_ja"]


def lang(env=None) -> str:
    env = os.environ if env is None else env
    setting = (env.get("GATEWAY_LANG") or "").strip().lower()
    if setting.startswith("ja"):
        return "ja"
    if setting.startswith("en"):
        return "en"
    for key in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(key)
        if value:
            return "ja" if value.strip().lower().startswith("ja") else "en"
    return "en"


def is_ja(env=None) -> bool:
    return lang(env) == "ja"


def text(ja: str, en: str, env=None) -> str:
    """``ja`` for a Japanese user, else ``en``."""
    return ja if is_ja(env) else en
