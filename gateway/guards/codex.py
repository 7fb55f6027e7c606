"""Codex guard (breezing --codex): while breezing-active.json says impl_mode "codex", Codex
writes the code and no Claude session (Lead included) may.

* Write/Edit/MultiEdit/NotebookEdit: only `.claude/state/breezing*`, `.claude/state/review*`
  (directly in the state directory) and `*.md` files, and never through a symlink (GW812).
  Anything else: GW810.
* breezing-active.json itself may be rewritten, but not so that impl_mode stops being
  "codex" (GW813): the mode ends with `gateway state clean`, not with an edit.
* Bash: nothing that writes, judged by gateway.effects.analysis (GW811). The Lead's own
  `gateway breezing phase X` / `gateway state clean` and workflow steps (`gateway breezing
  start|finish ...`, docs/breezing.md) are allowed.
"""

import posixpath

from gateway import _fastjson as json
from gateway.effects.files import STATE_REL

PHASE = "guard:codex"


def allowed_target(target) -> bool:
    rel = target.rel_real
    base = posixpath.basename(target.real)
    if rel is not None and posixpath.dirname(rel) == STATE_REL \
            and base.startswith(("breezing", "review")):
        return True
    return base.lower().endswith(".md")


def check_write(req, state, target):
    if not state.codex:
        return None
    if target.symlinked:
        return req.deny(PHASE, "GW812", f"codex mode: {target.raw!r} goes through a symlink "
                        f"(to {target.real}); in codex mode files are written only directly",
                        rule="codex:symlink")
    if not allowed_target(target):
        return req.deny(PHASE, "GW810", f"codex mode (impl_mode \"codex\"): Codex writes the "
                        f"code; sessions may write only .claude/state/breezing*, "
                        f".claude/state/review* and *.md files, not {target.raw!r}",
                        rule="codex:write")
    if target.is_active_file:
        why = _impl_mode_after(req, target)
        if why:
            return req.deny(PHASE, "GW813", f"codex mode: {why}. The mode ends with "
                            "`gateway state clean` (the end of the breezing session), not by "
                            "editing breezing-active.json", rule="codex:impl_mode")
    req.step(PHASE, "pass", "", f"codex mode: {target.raw!r} may be written")
    return None


def check_mcp(req, state):
    """An MCP tool that writes files is held to the file tools' rule (GW810)."""
    if not state.codex or not req.tool.startswith("mcp__"):
        return None
    from gateway.effects import files
    from gateway.guards import role

    if not role.tool_words(req.tool) & role.FILE_VERBS:
        return None
    targets = role.tool_paths(req.tool_input)
    for raw in targets:
        if "\x00" in raw or len(raw) > 4096:
            targets = []
            break
        target = files.Target(raw, req.cwd, req.roots)
        if target.symlinked or not allowed_target(target):
            break
    else:
        if targets:
            return None
    return req.deny(PHASE, "GW810", f"codex mode (impl_mode \"codex\"): {req.tool} may write "
                    "files other than .claude/state/breezing*, .claude/state/review* and *.md",
                    rule="codex:tool")


def check_bash(req, state, effects):
    if not state.codex:
        return None
    reasons = effects.reasons(include_gateway=not state.is_lead)
    if reasons:
        return req.deny(PHASE, "GW811", "codex mode (impl_mode \"codex\"): Bash may not write; "
                        + "; ".join(reasons[:3]), rule="codex:bash")
    req.step(PHASE, "pass", "", "codex mode: the command only reads")
    return None


_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


def _straight(text):
    return text.translate(_QUOTES)


def _impl_mode_after(req, target) -> str:
    """Why the file would no longer say impl_mode "codex" after this call, or ""."""
    ti = req.tool_input or {}
    if req.tool == "Write":
        text = ti.get("content")
        if not isinstance(text, str):
            return "the new breezing-active.json has no content"
    elif req.tool in ("Edit", "MultiEdit"):
        try:
            with open(target.real, encoding="utf-8") as fh:
                text = fh.read(1 << 20)
        except (OSError, UnicodeDecodeError):
            return ""  # nothing to edit: the tool itself will fail
        edits = ti.get("edits") if req.tool == "MultiEdit" else [ti]
        if not isinstance(edits, list):
            return "the edits are not a list"
        for e in edits:
            if not isinstance(e, dict):
                return "an edit is not an object"
            old, new = e.get("old_string"), e.get("new_string")
            if not isinstance(old, str) or not isinstance(new, str):
                return "an edit has no old_string/new_string"
            count = text.count(old) if old else 0
            if count == 0 and old and _straight(old) in _straight(text):
                # Claude Code also matches with curly quotes made straight, and then writes
                # new_string as given: what the file becomes is not simulated here
                return "the edit matches only with its quotes normalised"
            if count == 0 or (count > 1 and not e.get("replace_all")):
                return ""  # the tool refuses such an edit; the file stays as it is
            text = text.replace(old, new) if e.get("replace_all") else text.replace(old, new, 1)
    else:
        return f"{req.tool} cannot rewrite breezing-active.json"
    try:
        data = json.loads(text)
    except ValueError:
        return "the new breezing-active.json would not be valid JSON"
    if not isinstance(data, dict) or data.get("impl_mode") != "codex":
        return "the change would switch impl_mode away from \"codex\""
    return ""
