"""Change one top-level member of a JSON settings file and leave every other byte alone.

`gateway install` adds its hooks under the top-level "hooks" key. Re-writing the whole file
with json.dumps reflows what the user laid out by hand (`"allow": ["Bash(tox:*)",
"Read"]` on one line became five), although getting-started promises the file keeps its
formatting. So the text of the top-level member is replaced (or a new member is added
after the last one), written in the file's detected style at the member's own indentation,
and the result must parse to exactly the data the gateway meant to write; anything the
scanner does not understand returns None and the caller writes the whole file instead.

Standard library only.
"""

import json


def _skip_ws(text, i):
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i


def _string_end(text, i):
    """Index after the JSON string starting at text[i] == '"'."""
    i += 1
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == '"':
            return i + 1
        i += 1
    raise ValueError("unterminated string")


def _value_end(text, i):
    """Index after the JSON value starting at text[i]."""
    c = text[i]
    if c == '"':
        return _string_end(text, i)
    if c in "[{":
        depth = 0
        while i < len(text):
            c = text[i]
            if c == '"':
                i = _string_end(text, i)
                continue
            if c in "[{":
                depth += 1
            elif c in "]}":
                depth -= 1
                if depth == 0:
                    return i + 1
            i += 1
        raise ValueError("unterminated value")
    j = i
    while j < len(text) and text[j] not in ",}] \t\r\n":
        j += 1
    return j


def members(text):
    """[(key, key_start, value_start, value_end)] of the top-level object in `text`, and the
    index of its closing brace."""
    i = _skip_ws(text, 0)
    if i >= len(text) or text[i] != "{":
        raise ValueError("not an object")
    i += 1
    out = []
    while True:
        i = _skip_ws(text, i)
        if i < len(text) and text[i] == "}":
            return out, i
        if i >= len(text) or text[i] != '"':
            raise ValueError("expected a key")
        key_start = i
        key_end = _string_end(text, i)
        key = json.loads(text[key_start:key_end])
        i = _skip_ws(text, key_end)
        if i >= len(text) or text[i] != ":":
            raise ValueError("expected ':'")
        i = _skip_ws(text, i + 1)
        value_start = i
        value_end = _value_end(text, i)
        out.append((key, key_start, value_start, value_end))
        i = _skip_ws(text, value_end)
        if i < len(text) and text[i] == ",":
            i += 1
            continue
        if i < len(text) and text[i] == "}":
            return out, i
        raise ValueError("expected ',' or '}'")


def _line_indent(text, pos):
    start = text.rfind("\n", 0, pos) + 1
    j = start
    while j < len(text) and text[j] in " \t":
        j += 1
    return text[start:j]


def _render(value, style, indent_prefix):
    """`value` in the file's style, its continuation lines indented below a member whose
    own line starts with `indent_prefix`."""
    body = json.dumps(value, indent=style.indent, separators=style.separators,
                      ensure_ascii=style.ensure_ascii)
    if style.indent is None:
        return body
    return body.replace("\n", "\n" + indent_prefix)


def replace_member(text, key, value, data, style):
    """`text` (a JSON object's source, without BOM handling) with the top-level member
    `key` set to `value` (added when absent, removed when `value` is None), other bytes as
    they were; None when that cannot be done so that the result parses to `data`."""
    try:
        found, close = members(text)
    except (ValueError, json.JSONDecodeError):
        return None
    newline = "\r\n" if "\r\n" in text else "\n"
    hit = [m for m in found if m[0] == key]
    if len(hit) > 1:
        return None
    if hit:
        _k, key_start, value_start, value_end = hit[0]
        if value is None:
            idx = found.index(hit[0])
            if len(found) == 1:
                return None  # the object becomes empty: the whole file is written instead
            if idx > 0:
                prev_end = found[idx - 1][3]
                out = text[:prev_end] + text[value_end:]
            else:
                nxt = found[1][1]
                out = text[:key_start] + text[nxt:]
        else:
            rendered = _render(value, style, _line_indent(text, key_start))
            out = text[:value_start] + rendered.replace("\n", newline) + text[value_end:]
    else:
        if value is None:
            return text
        if not found:
            return None  # an empty object: the whole file is written instead
        last_end = found[-1][3]
        prefix = _line_indent(text, found[-1][1])
        sep = style.separators[1]
        rendered = _render(value, style, prefix)
        if style.indent is None or "\n" not in text[:close]:
            member = f"{style.separators[0]} {json.dumps(key)}{sep}{rendered}" \
                if style.indent is None else None
            if member is None:
                return None
        else:
            member = f",{newline}{prefix}{json.dumps(key)}{sep}{rendered}".replace(
                "\n", newline).replace("\r\r\n", "\r\n")
        out = text[:last_end] + member + text[last_end:]
    try:
        if json.loads(out) != data:
            return None
    except ValueError:
        return None
    return out

