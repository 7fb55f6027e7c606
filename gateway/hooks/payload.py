"""Reading a hook's stdin: hostile bytes in, a checked payload (or a reason) out."""

from gateway import _fastjson as json

MAX_PAYLOAD = 8 * 1024 * 1024


class PayloadError(Exception):
    """The hook input is not usable; the hook must express no allow."""


def read(raw: bytes) -> dict:
    """Decode stdin bytes into the payload object, or raise PayloadError."""
    if len(raw) > MAX_PAYLOAD:
        raise PayloadError(f"input larger than {MAX_PAYLOAD} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PayloadError(f"input is not UTF-8 (byte {exc.start})") from None
    try:
        payload = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise PayloadError(f"input is not JSON: {exc}") from None
    if not isinstance(payload, dict):
        raise PayloadError("input is not a JSON object")
    return payload


def text_field(payload: dict, key: str, default=None):
    """A string field, the default when absent, or PayloadError when of another type."""
    value = payload.get(key, default)
    if value is default:
        return default
    if not isinstance(value, str):
        raise PayloadError(f"{key} is not a string")
    return value


def tool_input(payload: dict) -> dict:
    value = payload.get("tool_input")
    if not isinstance(value, dict):
        raise PayloadError("tool_input is missing or not an object")
    return value
