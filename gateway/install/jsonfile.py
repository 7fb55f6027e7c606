"""Settings files as the user wrote them: strict reading, their own formatting, atomic writes.

A settings file is read strictly (a JSON object, UTF-8, no duplicate keys: re-writing a file
with a duplicate key would silently drop one of them). Its formatting -- indentation, item
separators, escaped or raw non-ASCII, final newline, CRLF, a byte-order mark -- is detected by
finding the json.dumps settings that reproduce the file exactly, so a file that Claude Code
or an editor wrote in a regular style is re-written byte for byte in that style, and only the
gateway's own entries differ.
"""

import json
import os
import tempfile

from gateway.install import InstallError

MAX_SETTINGS = 4 * 1024 * 1024
BOM = "\ufeff"


class Style:
    """How a JSON file is laid out."""

    __slots__ = ("indent", "separators", "ensure_ascii", "final_newline", "crlf", "bom")

    def __init__(self, indent=2, separators=(",", ": "), ensure_ascii=False,
                 final_newline=True, crlf=False, bom=False):
        self.indent = indent
        self.separators = separators
        self.ensure_ascii = ensure_ascii
        self.final_newline = final_newline
        self.crlf = crlf
        self.bom = bom

    def __repr__(self) -> str:
        return (f"Style(indent={self.indent!r}, separators={self.separators!r}, "
                f"ensure_ascii={self.ensure_ascii}, final_newline={self.final_newline}, "
                f"crlf={self.crlf}, bom={self.bom})")


DEFAULT_STYLE = Style()


def dumps(data, style: Style = DEFAULT_STYLE) -> str:
    text = json.dumps(data, indent=style.indent, separators=style.separators,
                      ensure_ascii=style.ensure_ascii)
    if style.final_newline:
        text += "\n"
    if style.crlf:
        text = text.replace("\n", "\r\n")
    if style.bom:
        text = BOM + text
    return text


def _guess_indent(body: str):
    lines = body.split("\n")
    if len(lines) < 2:
        return None
    for line in lines[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            return line[:len(line) - len(stripped)]
    return None


def detect_style(text: str, data) -> Style:
    """The Style that re-creates `text` exactly from `data`, else the closest guess."""
    bom = text.startswith(BOM)
    body = text[1:] if bom else text
    crlf = "\r\n" in body
    if crlf:
        body = body.replace("\r\n", "\n")
    final_newline = body.endswith("\n")
    core = body[:-1] if final_newline else body
    guessed = _guess_indent(core)
    if isinstance(guessed, str) and set(guessed) == {" "}:
        guessed = len(guessed)
    indents = []
    # An empty object ("{}") fits every style: prefer the multi-line default for what comes.
    for ind in (guessed, 2, 4, "\t", None) if guessed is not None else (2, 4, "\t", None):
        if ind not in indents:
            indents.append(ind)
    has_non_ascii = any(ord(c) > 127 for c in core)
    for indent in indents:
        seps = [(",", ": "), (", ", ": "), (",", ":")] if indent is None else [(",", ": ")]
        for sep in seps:
            for ascii_ in ((False, True) if not has_non_ascii else (False,)):
                style = Style(indent, sep, ascii_, final_newline, crlf, bom)
                if json.dumps(data, indent=indent, separators=sep, ensure_ascii=ascii_) == core:
                    return style
    return Style(guessed if guessed is not None else 2, (",", ": "), not has_non_ascii and
                 "\\u" in core, final_newline or not core, crlf, bom)


class Loaded:
    """A settings file as found: its data, its exact bytes and its Style."""

    __slots__ = ("path", "exists", "data", "raw", "style")

    def __init__(self, path, exists, data, raw, style):
        self.path = path
        self.exists = exists
        self.data = data  # dict ({} when the file does not exist or is empty)
        self.raw = raw  # bytes, None when the file does not exist
        self.style = style


def _no_duplicates(path):
    def hook(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise InstallError(f"{path}: the key {key!r} appears twice in one object; "
                                   "Claude Code keeps only one of them. Remove the duplicate "
                                   "and run the command again")
            seen.add(key)
        return dict(pairs)
    return hook


def load(path: str) -> Loaded:
    """Read a settings file. Raises InstallError (with file, line and column) when it cannot
    be used; a missing file is an empty one."""
    from gateway import configfile

    try:
        # a regular file only, opened without blocking (a FIFO there hung `gateway doctor`)
        raw = configfile.read(path, MAX_SETTINGS)
    except configfile.ConfigFileError as exc:
        raise InstallError(str(exc)) from None
    if raw is None:
        return Loaded(path, False, {}, None, DEFAULT_STYLE)
    data, style = parse(raw, path)
    return Loaded(path, True, data, raw, style)


def parse(raw: bytes, path: str = "settings") -> tuple:
    """(data, Style) of a settings file's bytes; raises InstallError when unusable."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InstallError(f"{path}: not UTF-8 (byte {exc.start}); Claude Code cannot read "
                           "it either. Re-save it as UTF-8") from None
    body = text[1:] if text.startswith(BOM) else text
    if not body.strip():
        return {}, DEFAULT_STYLE
    try:
        data = json.loads(body, object_pairs_hook=_no_duplicates(path))
    except json.JSONDecodeError as exc:
        problem = f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}"
        raise InstallError(f"{problem}. Fix the file (Claude Code ignores an invalid settings "
                           "file) and run the command again; nothing was changed",
                           problem) from None
    except RecursionError:
        raise InstallError(f"{path}: nested too deeply to be a settings file") from None
    if not isinstance(data, dict):
        problem = (f"{path}: the top level must be a JSON object ({{...}}), not "
                   f"{type(data).__name__}")
        raise InstallError(f"{problem}; nothing was changed", problem)
    return data, detect_style(text, data)


def write_atomic(path: str, data: bytes, private: bool = False) -> None:
    """Replace `path` with `data`: a temporary file in the same directory, fsync, rename.

    A symlinked settings file (dotfile managers) is written through: the link stays and its
    target changes. The file keeps its permission bits (a new one gets 0666 minus umask);
    `private` takes away every bit for group and others (the file holds a secret).
    """
    target = os.path.realpath(path)
    directory = os.path.dirname(target)
    os.makedirs(directory, exist_ok=True)
    try:
        mode = os.stat(target).st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    if private:
        mode &= 0o700
    fd, tmp = tempfile.mkstemp(prefix=".gateway-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:
        dfd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass
