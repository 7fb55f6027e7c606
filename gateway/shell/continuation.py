"""Line continuations (backslash-newline) removed the way bash removes them, before parsing.

bash drops an unquoted `\\<newline>` while it reads its input, before it splits words:
outside quotes, inside double quotes and inside `$( … )` and backticks, but not inside
single quotes, `$'…'` strings or comments. bashlex keeps the pair in the text and, inside a
command substitution, numbers the positions of the inner words as if it were gone, so the
words it reports there were cut off (`of=/dev/sda` came out as `of=/dev/s`) and the deny
rules missed what the substitution runs. Parsing the text bash would actually tokenize
avoids that class of bug altogether.
"""

_WORD_BREAK = frozenset(" \t\n;&|()<>")


def remove(text: str) -> str:
    """`text` without the backslash-newline pairs bash treats as line continuations."""
    if "\\\n" not in text:
        return text
    out = []
    stack = [[False, 0]]  # per $( ) level: [inside double quotes, open parentheses]
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        ctx = stack[-1]
        if c == "\\":
            if i + 1 < n and text[i + 1] == "\n":
                i += 2  # a continuation: both characters go
                continue
            out.append(text[i:i + 2])
            i += 2
            continue
        if c == "$" and text.startswith("$(", i):
            stack.append([False, 0])
            out.append("$(")
            i += 2
            continue
        if ctx[0]:
            if c == '"':
                ctx[0] = False
            out.append(c)
            i += 1
            continue
        if c == "'" or (c == "$" and text.startswith("$'", i)):
            j = i + 1 if c == "'" else i + 2
            if c == "'":
                j = text.find("'", j)
            else:
                while j < n and text[j] != "'":
                    j += 2 if text[j] == "\\" else 1
            if j < 0 or j >= n:
                out.append(text[i:])  # unterminated: bashlex reports it
                break
            out.append(text[i:j + 1])
            i = j + 1
            continue
        if c == "#" and (i == 0 or text[i - 1] in _WORD_BREAK):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(text[i:j])  # a comment ends at the newline, backslash or not
            i = j
            continue
        if c == '"':
            ctx[0] = True
        elif c == "(":
            ctx[1] += 1
        elif c == ")":
            if ctx[1]:
                ctx[1] -= 1
            elif len(stack) > 1:
                stack.pop()
        out.append(c)
        i += 1
    return "".join(out)
