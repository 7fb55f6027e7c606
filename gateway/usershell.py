"""Judge with the user's shell: the client runs the Bash tool's commands in zsh or bash, and
the gateway's parse is bash's.

Which shell (measured with Claude Code 2.1.330, tests/realclient/test_user_shell.py, and read
from its code): the first executable of `CLAUDE_CODE_SHELL` and `SHELL` whose path contains
"bash" or "zsh"; then, when `SHELL`'s name is `bash`, bash before zsh (`which`, then /bin,
/usr/bin, /usr/local/bin, /opt/homebrew/bin), otherwise zsh before bash. So with `SHELL` unset,
/bin/sh or fish, a machine with zsh runs zsh. The hooks get the client's environment.

The client's zsh runs with zsh's default options but `bare_glob_qual`, `equals` and
`hash_dirs` off (measured: `setopt` prints `nobareglobqual noequals nohashdirs`; a `setopt`
in the user's .zshenv, .zprofile or .zshrc does not reach it). Where that zsh reads a command
otherwise than the bash reading the gateway judges, the command asks (GW785):

* `>!`, `>>!`, `&>!` clobber the file (bash writes a file named `!`), `>>|` (`>|` means the
  same in both);
* `=(...)` runs a command into a temporary file;
* `<1-9>`, `<->` are numeric globs (bash: a redirection);
* `$=x`, `$~x`, `$^x`, `$+x`, `$#x`, `${(flags)x}`, `${=x}`, `${~x}`, `${^x}`, `${+x}`, a
  subscript `$x[1]`, a modifier `$x:h` / `${x:h}` (in double quotes too);
* `&|`, `&!` (disown);
* a parenthesis inside a word (zsh glob alternation `(a|b)`; bash refuses to parse it);
* a backslash where `echo` runs: zsh's echo reads `\n`, `\x40`... as escapes.

`~`, `^` and `#` are no glob operators there (extended_glob is off), `=cmd` is text (equals is
off), `{a-c}` is text (brace_ccl is off); unquoted parameters are not split (safer than bash);
`**/` is recursive (the glob judgement already takes globstar's reading).
"""

import os

PHASE = "2"
CODE = "GW785"
_DIRS = ("/bin", "/usr/bin", "/usr/local/bin", "/opt/homebrew/bin")
_cache = {}


def _executable(path) -> bool:
    return bool(path) and os.path.isfile(path) and os.access(path, os.X_OK)


def _which(name, env):
    for d in (env.get("PATH") or "").split(os.pathsep):
        if d:
            p = os.path.join(d, name)
            if _executable(p):
                return p
    return None


def client_shell(env) -> str:
    """The path of the shell the client runs commands in (its own choice), or ""."""
    key = (env.get("CLAUDE_CODE_SHELL"), env.get("SHELL"), env.get("PATH"))
    hit = _cache.get(key)
    if hit is not None:
        return hit
    named = [v for v in key[:2] if v and ("bash" in v or "zsh" in v)]
    bash_first = os.path.basename(env.get("SHELL") or "") == "bash"
    order = ("bash", "zsh") if bash_first else ("zsh", "bash")
    first, last = (_which(order[0], env), _which(order[1], env))
    candidates = named + [first] + [f"{d}/{n}" for n in order for d in _DIRS] + [last]
    found = next((c for c in candidates if c and _executable(c)), "")
    if len(_cache) > 64:
        _cache.clear()
    _cache[key] = found
    return found


def is_zsh(env) -> bool:
    return "zsh" in os.path.basename(client_shell(env))


#: Parameter forms zsh reads differently, also inside double quotes.
_PARAM_FORMS = ("$=", "$~", "$^", "$+", "${(", "${=", "${~", "${^", "${+", "${#")
_NAME = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def _param(text, i):
    """The zsh-only parameter form starting at `text[i]` ("$"), or ""."""
    for form in _PARAM_FORMS:
        if text.startswith(form, i):
            return form
    n = len(text)
    j = i + 1
    braced = j < n and text[j] == "{"
    if braced:
        j += 1
    if j < n and text[j] == "#" and j + 1 < n and text[j + 1] in _NAME:
        return text[i:j + 2]  # $#x: the length in zsh, $# then "x" in bash
    k = j
    while k < n and text[k] in _NAME:
        k += 1
    if k == j or k >= n:
        return ""
    if text[k] == "[":
        return text[i:k + 1]  # a subscript (zsh counts from 1, also for scalars)
    if text[k] == ":" and k + 1 < n and text[k + 1].isalpha():
        return text[i:k + 2]  # a modifier ($x:h, ${x:h}); bash: text (or an offset)
    return ""


def _without_literal_heredocs(text):
    """`text` without the bodies of here-documents whose delimiter is quoted (`<<'EOF'`):
    both shells pass them on as they are (a commit message may hold anything)."""
    lines = text.split("\n")
    out = []
    end = None
    for line in lines:
        if end is not None:
            if line.lstrip("\t") == end:
                end = None
                out.append(line)
            continue
        out.append(line)
        k = line.rfind("<<")
        if k >= 0:
            rest = line[k + 2:].lstrip("-").lstrip()
            if rest[:1] in ("'", '"'):
                q = rest[0]
                close = rest.find(q, 1)
                if close > 1:
                    end = rest[1:close]
            elif rest.startswith("\\") and len(rest) > 1:
                end = rest[1:].split()[0] if rest[1:].split() else None
    return "\n".join(out)


def zsh_construct(text):
    """The first construct of `text` that the client's zsh reads otherwise than bash, or
    ""."""
    text = _without_literal_heredocs(text)
    if "\\" in text and any(t in ("echo", "print") or t.endswith(("/echo", ";echo", "&echo",
                                                                 "|echo"))
                            for t in text.replace("\n", " ").split()):
        return "echo \\"  # zsh's echo reads backslash escapes (bash's does not)
    n = len(text)
    i = 0
    quote = None
    while i < n:
        c = text[i]
        if quote == "'":
            if c == "'":
                quote = None
            i += 1
            continue
        if c == "\\":
            i += 2
            continue
        if c == "$":
            found = _param(text, i)
            if found:
                return found
        if quote == '"':
            if c == '"':
                quote = None
            i += 1
            continue
        if c in "'\"":
            quote = c
            i += 1
            continue
        if c == "&" and i + 1 < n and text[i + 1] in "|!":
            return "&" + text[i + 1]
        if c == ">":
            j = i + 1
            while j < n and text[j] == ">":
                j += 1
            if j < n and (text[j] == "!" or (text[j] == "|" and j > i + 1)):
                return text[i:j + 1]  # >! >>! >>| (`>|` means the same in both)
            i = j
            continue
        if c == "<":
            k = i + 1
            while k < n and (text[k].isdigit() or text[k] == "-"):
                k += 1
            if k < n and text[k] == ">" and "-" in text[i + 1:k]:
                return text[i:k + 1]
            i += 1
            continue
        if c == "=" and i + 1 < n and text[i + 1] == "(":
            return "=("
        if c in "()":
            if c == "(" and i > 0 and text[i - 1] in "$<>":
                i += 1
                continue
            return c
        i += 1
    return ""


def as_bash(text):
    """`text` with zsh's clobbering redirections spelled as bash's (`>!` is `>|`, `>>!` is
    `>>`), outside quotes: the effects analysis then sees the file zsh writes."""
    out = []
    n = len(text)
    i = 0
    quote = None
    while i < n:
        c = text[i]
        if quote is not None:
            if c == quote:
                quote = None
            elif c == "\\" and quote == '"':
                out.append(text[i:i + 2])
                i += 2
                continue
            out.append(c)
            i += 1
            continue
        if c == "\\":
            out.append(text[i:i + 2])
            i += 2
            continue
        if c in "'\"":
            quote = c
        elif c == ">" and text.startswith(">>!", i):
            out.append(">>")
            i += 3
            continue
        elif c == ">" and text.startswith(">!", i):
            out.append(">|")
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def run(ctx):
    """GW785 when the client runs zsh and the command holds a construct zsh reads otherwise."""
    if not is_zsh(ctx.env):
        return None
    found = zsh_construct(ctx.text)
    if not found:
        return None
    return ctx.ask(PHASE, CODE, f"the client runs this in zsh ({client_shell(ctx.env)}), where "
                   f"{found!r} means something other than the bash reading the gateway "
                   "judges (a clobbering redirection, an expansion, a glob operator or "
                   "qualifier that can run code)", rule=f"zsh:{found}")
