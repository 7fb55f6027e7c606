"""Memory files: Claude Code loads them into the model's context at every session start and
follows their `@path` imports (up to five levels deep), with no tool call any hook could see
(reference §16). A line `@.env` in CLAUDE.md puts the secret in front of the model in every
later session; `@~/.ssh/id_rsa` a key from outside the project.

* `is_memory(path, home)`: CLAUDE.md and CLAUDE.local.md (anywhere: the client loads those of
  the project, of the directories above it and, on demand, of the ones below), any Markdown
  file below a `.claude/rules/` directory, the user's memory (~/.claude/CLAUDE.md, its
  rules/).
* `imports(text, base, home)`: the files a memory text imports, read as the client reads them
  (its pattern `(?:^|\\s)@((?:[^\\s\\\\]|\\\\ )+)` outside code blocks, code spans and HTML
  comments; a `#fragment` dropped; relative to the file's directory, `~/` the home).
* `objection(...)`: the first import that is a secret or lies outside the project.
* `scan(...)`: the memory files a session in the project loads, with their imports followed,
  for the SessionStart warning.

A write or edit that adds such an import asks (the guards GW850, the validator GW784: every
writer; a Bash write whose content cannot be read off its words asks too). Standard library
only (the hook path).
"""

import os
import posixpath

from gateway.paths import is_secret, lexical, physical

NAMES = ("CLAUDE.md", "CLAUDE.local.md")
_LOWER_NAMES = frozenset(n.lower() for n in NAMES)
#: The client follows imports this many levels deep.
MAX_DEPTH = 5
#: Bytes of a memory file read at most.
MAX_BYTES = 1 << 20


def is_memory(path, home=None) -> bool:
    """Is the absolute `path` a file the client loads as memory?"""
    parts = [c for c in path.split("/") if c]
    if not parts:
        return False
    # compared without case: on a case-insensitive file system (macOS, Windows) `claude.md`
    # is the CLAUDE.md the client opens, `.Claude/Rules/x.md` one of its rules (as the
    # protected paths are compared)
    low = [c.lower() for c in parts]
    if low[-1] in _LOWER_NAMES:
        return True
    if low[-1].endswith(".md"):
        for i in range(len(low) - 2):
            if low[i] == ".claude" and low[i + 1] == "rules":
                return True
    return False


def _strip_code(text):
    """The text without fenced code blocks, code spans and HTML comments (the client does not
    read imports there). Kept simple and generous: anything unusual stays in (an import
    found where the client would not look only makes the gateway ask)."""
    out = []
    fence = None
    for line in text.split("\n"):
        s = line.lstrip()
        if fence is None and (s.startswith("```") or s.startswith("~~~")):
            fence = s[:3]
            continue
        if fence is not None:
            if s.startswith(fence):
                fence = None
            continue
        out.append(line)
    text = "\n".join(out)
    while "<!--" in text:
        start = text.index("<!--")
        end = text.find("-->", start + 4)
        if end < 0:
            break
        text = text[:start] + " " + text[end + 3:]
    # code spans: `...` on one line
    res = []
    for line in text.split("\n"):
        parts = line.split("`")
        if len(parts) >= 3:
            line = " ".join(p for k, p in enumerate(parts) if k % 2 == 0 or k == len(parts) - 1)
        res.append(line)
    return "\n".join(res)


def _tokens(text):
    """The raw `@...` import tokens in `text` (the client's pattern)."""
    out = []
    n = len(text)
    i = 0
    while i < n:
        at = text.find("@", i)
        if at < 0:
            break
        i = at + 1
        if at > 0 and not text[at - 1].isspace():
            continue
        j = at + 1
        buf = []
        while j < n:
            c = text[j]
            if c == "\\" and j + 1 < n and text[j + 1] == " ":
                buf.append(" ")
                j += 2
                continue
            if c.isspace() or c == "\\":
                break
            buf.append(c)
            j += 1
        token = "".join(buf)
        if "#" in token:
            token = token[:token.index("#")]
        if token:
            out.append(token)
        i = j
    return out


def imports(text, base, home):
    """The absolute paths the memory text imports (`base`: the directory of the file)."""
    out = []
    for tok in _tokens(_strip_code(text)):
        if tok.startswith("@"):
            continue
        if not (tok.startswith(("./", "~/", "/")) or tok[0].isalnum() or tok[0] in "._-"):
            continue
        if tok == "/" or "://" in tok:
            continue
        if tok.startswith("~/"):
            if not home:
                out.append(tok)  # a home that cannot be known: outside the project
                continue
            path = posixpath.normpath(posixpath.join(home, tok[2:]))
        else:
            path = lexical(tok, base)
        out.append(path)
    return list(dict.fromkeys(out))


def objection(paths, roots, policy, env=None):
    """(import, why) for the first of `paths` that is a secret (by name, or by content: a
    file of the project that holds a credential, gateway.secrets.filecheck) or lies outside
    the project (as written or through links), else None. An import is a read the client
    makes for the model at every session start: `@.claude/settings.local.json` put the hook
    server's token in the model's context (red team rt26)."""
    for p in paths:
        if not p.startswith("/"):
            return p, "a path in a home directory that cannot be known"
        real = physical(p, "/")
        pat = is_secret((p, real), policy)
        if pat:
            return p, f"a secret ({pat})"
        if not (roots.lexically_inside(p) and roots.really_inside(real)):
            return p, "a file outside the project"
    for p in paths:
        from gateway.secrets import content, filecheck

        found = filecheck.check([physical(p, "/")], policy, env)
        if found is not None:
            if found.kind == content.SECRET:
                return p, f"a file that holds a credential ({found.detail})"
            return p, f"a file not checked for credentials ({found.detail})"
    return None


def read(path):
    """The text of a memory file (a regular file, at most MAX_BYTES), or None."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if st.st_mode & 0o170000 != 0o100000 or st.st_size > MAX_BYTES:
            return None
        return os.read(fd, MAX_BYTES).decode("utf-8", "replace")
    finally:
        os.close(fd)


def loaded_files(project, home, config_dir=None):
    """The memory files a session in `project` loads at its start: the user's (CLAUDE.md and
    rules/ of ~/.claude or CLAUDE_CONFIG_DIR), CLAUDE.md and CLAUDE.local.md of the project
    and of every directory above it, the project's .claude/CLAUDE.md and .claude/rules/."""
    out = []
    user = config_dir or (posixpath.join(home, ".claude") if home else None)
    if user:
        out.append(posixpath.join(user, "CLAUDE.md"))
        out.extend(_rules(posixpath.join(user, "rules")))
    d = project
    while True:
        for name in NAMES:
            out.append(posixpath.join(d, name))
        parent = posixpath.dirname(d)
        if parent == d:
            break
        d = parent
    out.append(posixpath.join(project, ".claude", "CLAUDE.md"))
    out.extend(_rules(posixpath.join(project, ".claude", "rules")))
    return [p for p in dict.fromkeys(out) if os.path.isfile(p)]


def _rules(d, limit=200):
    out = []
    for base, dirs, files in os.walk(d):
        dirs.sort()
        for f in sorted(files):
            if f.lower().endswith(".md"):
                out.append(posixpath.join(base, f))
                if len(out) >= limit:
                    return out
    return out


def scan(project, home, roots, policy, config_dir=None, env=None):
    """[(memory file, import, why)]: the imports of secrets (from any memory file) and of
    files outside the project (from the project's own memory files) that a session in
    `project` loads, following imports MAX_DEPTH levels."""
    found = []
    seen = set()
    user = config_dir or (posixpath.join(home, ".claude") if home else None)
    todo = [(p, 0, p) for p in loaded_files(project, home, config_dir)]
    while todo:
        path, depth, origin = todo.pop(0)
        if path in seen or depth > MAX_DEPTH:
            continue
        seen.add(path)
        text = read(path)
        if text is None:
            continue
        users = bool(user) and (origin == user or origin.startswith(user.rstrip("/") + "/"))
        for imp in imports(text, posixpath.dirname(path), home):
            hit = objection([imp], roots, policy, env)
            if hit is not None and (not users or hit[1].startswith("a secret")):
                found.append((path, imp, hit[1]))
                continue
            if imp.startswith("/") and os.path.isfile(imp):
                todo.append((imp, depth + 1, origin))
    return found


#: Commands whose output is the text of their own words (what they write into a memory file
#: through a redirection is visible in the command).
_LITERAL_WRITERS = frozenset(("echo", "printf", "true", ":"))


def bash_concern(effects, command, roots, policy, home, env=None):
    """Why a Bash command's write of a memory file may add an import the gateway must ask
    about, or None: it writes a memory file, and either its text names an import of a secret
    or of a file outside the project, or what it writes cannot be read off its words (a copy
    of another file, an expansion, an escape, a program that edits the file)."""
    targets = [p for w in effects.writes for p in w.paths if is_memory(p, home)]
    if not targets:
        return None
    target = targets[0]
    script = effects.script
    names = set()
    if script is not None:
        for c in script.all_commands:
            if c.words:
                names.add(c.words[0].value if c.words[0].literal else "")
    plain = script is not None and names <= _LITERAL_WRITERS and not any(
        ch in command for ch in "\\$`")
    if not plain:
        return (f"it writes the memory file {target}, and what it writes cannot be read off "
                "the command (it may add an @import the client loads into every session)")
    # the text they write is their words (quotes removed): the client reads imports there
    text = "\n".join(w.value for c in script.all_commands for w in c.words[1:] if w.literal)
    found = objection(imports(text, posixpath.dirname(target), home), roots, policy, env)
    if found is not None:
        return (f"it writes an import of {found[0]} ({found[1]}) into the memory file "
                f"{target}: the client would load it into the model's context at every "
                "session start")
    return None


def tool_concern(tool, tool_input, target, roots, policy, home, env=None):
    """Why a file tool's write of the memory file `target` (absolute) asks: the text it adds
    imports a secret or a file outside the project; None otherwise."""
    if not is_memory(target, home):
        return None
    texts = []
    if tool == "Write":
        texts.append(tool_input.get("content"))
    elif tool == "Edit":
        texts.append(tool_input.get("new_string"))
    elif tool == "MultiEdit":
        edits = tool_input.get("edits")
        if isinstance(edits, list):
            texts.extend(e.get("new_string") for e in edits if isinstance(e, dict))
    else:
        texts.append(tool_input.get("new_source"))
    for text in texts:
        if not isinstance(text, str):
            if text is None:
                continue
            return f"the text written into the memory file {target} cannot be read"
        found = objection(imports(text, posixpath.dirname(target), home), roots, policy, env)
        if found is not None:
            return (f"it adds an import of {found[0]} ({found[1]}) to the memory file "
                    f"{target}: the client would load it into the model's context at every "
                    "session start, with no tool call")
    return None
