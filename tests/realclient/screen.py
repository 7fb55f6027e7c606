"""A minimal terminal emulator: enough of VT100/xterm to read what Claude Code draws.

The 2.1.330 client draws its interactive UI on the alternate screen and repaints only the cells
that changed (absolute cursor moves, ``ESC[nB`` down, ``ESC[nG`` column, ``ESC[K`` erase), so
stripping escape sequences from the byte stream does not give the picture the user sees. This
module keeps a character grid and applies the sequences the client uses; :meth:`Screen.text`
is then what a human would read at that moment. Colours and attributes are ignored.

Stdlib only. Unknown sequences are consumed and ignored, so a new client version degrades to a
slightly wrong picture, never to an exception.
"""

from __future__ import annotations

import codecs
import re
import unicodedata

# CSI: ESC [ params intermediates final; OSC: ESC ] ... BEL | ESC \ ; other two-byte escapes.
_CSI = re.compile(r"\x1b\[([0-9;:?<>=!]*)([ -/]*)([@-~])")
_OSC = re.compile(r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
_DCS = re.compile(r"\x1b[P^_][^\x1b]*\x1b\\")
_ESC2 = re.compile(r"\x1b[()*+][0-9A-Za-z]|\x1b(?![\[\]P^_])[ -/]*[0-~]")
# A sequence cut off by the end of a read (completed by the next chunk).
_INCOMPLETE = re.compile(
    r"\x1b(?:\[[0-9;:?<>=!]*[ -/]*|\][^\x07\x1b]*\x1b?|[P^_][^\x1b]*\x1b?|[()*+ -/]*)\Z"
)
ANSI_RE = re.compile(
    r"\x1b\[[0-9;:?<>=!]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[P^_][^\x1b]*\x1b\\"
    r"|\x1b[()*+][0-9A-Za-z]|\x1b(?![\[\]P^_])[ -/]*[0-~]"
)


def strip_ansi(s: str) -> str:
    """Remove escape sequences (for logs; use :class:`Screen` to see what is displayed)."""
    return ANSI_RE.sub("", s)


def _width(ch: str) -> int:
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


class Screen:
    """A rows × cols character grid fed with the client's output."""

    def __init__(self, rows: int = 40, cols: int = 120) -> None:
        self.rows, self.cols = rows, cols
        self._main = self._blank()
        self._alt = self._blank()
        self.grid = self._main
        self.y = self.x = 0
        self._saved = (0, 0)
        self.top, self.bottom = 0, rows - 1  # scroll region
        self._pending = ""  # an incomplete escape sequence at the end of the last chunk
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")

    def _blank(self) -> list[list[str]]:
        return [[" "] * self.cols for _ in range(self.rows)]

    # ------------------------------------------------------------------ public

    def feed(self, data: bytes | str) -> None:
        # bytes go through an incremental decoder: a read may end inside a UTF-8 character
        s = self._decoder.decode(data) if isinstance(data, bytes) else data
        s = self._pending + s
        self._pending = ""
        i, n = 0, len(s)
        while i < n:
            ch = s[i]
            if ch == "\x1b":
                m = None
                for rx in (_CSI, _OSC, _DCS, _ESC2):
                    m = rx.match(s, i)
                    if m:
                        break
                if m is None:
                    if n - i < 4096 and _INCOMPLETE.match(s, i):
                        self._pending = s[i:]  # the chunk ended inside a sequence: wait
                        return
                    i += 1  # a stray ESC: drop it
                    continue
                if m.re is _CSI:
                    self._csi(m.group(1), m.group(2), m.group(3))
                elif m.group(0) in ("\x1b7",):
                    self._saved = (self.y, self.x)
                elif m.group(0) in ("\x1b8",):
                    self.y, self.x = self._saved
                elif m.group(0) == "\x1bM":  # reverse index
                    if self.y == self.top:
                        self._scroll_down(1)
                    else:
                        self.y = max(0, self.y - 1)
                elif m.group(0) in ("\x1bD", "\x1bE"):
                    if m.group(0) == "\x1bE":
                        self.x = 0
                    self._linefeed()
                i = m.end()
                continue
            if ch == "\r":
                self.x = 0
            elif ch == "\n":
                self._linefeed()
            elif ch == "\b":
                self.x = max(0, self.x - 1)
            elif ch == "\t":
                self.x = min(self.cols - 1, (self.x // 8 + 1) * 8)
            elif ch < " " or ch == "\x7f":
                pass  # BEL and other controls
            else:
                self._put(ch)
            i += 1

    def lines(self) -> list[str]:
        return ["".join(c for c in row if c != "\0").rstrip() for row in self.grid]

    def text(self) -> str:
        """The visible screen, one line per row, trailing blank rows dropped."""
        out = self.lines()
        while out and not out[-1]:
            out.pop()
        return "\n".join(out)

    # ------------------------------------------------------------------ internals

    def _put(self, ch: str) -> None:
        w = _width(ch)
        if w == 0:
            return
        if self.x + w > self.cols:
            self.x = 0
            self._linefeed()
        row = self.grid[self.y]
        row[self.x] = ch
        if w == 2 and self.x + 1 < self.cols:
            row[self.x + 1] = "\0"  # placeholder cell behind a wide character
        self.x += w  # may equal cols: the wrap is pending until the next character

    def _linefeed(self) -> None:
        if self.y == self.bottom:
            self._scroll_up(1)
        elif self.y < self.rows - 1:
            self.y += 1

    def _scroll_up(self, n: int) -> None:
        for _ in range(n):
            del self.grid[self.top]
            self.grid.insert(self.bottom, [" "] * self.cols)

    def _scroll_down(self, n: int) -> None:
        for _ in range(n):
            del self.grid[self.bottom]
            self.grid.insert(self.top, [" "] * self.cols)

    def _clip(self) -> None:
        self.y = min(max(self.y, 0), self.rows - 1)
        self.x = min(max(self.x, 0), self.cols - 1)

    def _erase_line(self, y: int, x0: int, x1: int) -> None:
        row = self.grid[y]
        for x in range(max(0, x0), min(self.cols, x1)):
            row[x] = " "

    def _csi(self, params: str, inter: str, final: str) -> None:
        if inter:
            return
        private = params[:1] in ("?", ">", "<", "=")
        raw = params[1:] if private else params
        nums = (
            [int(p) if p.isdigit() else 0 for p in raw.replace(":", ";").split(";")] if raw else []
        )

        def arg(k: int = 0, default: int = 1) -> int:
            v = nums[k] if len(nums) > k else 0
            return v if v else default

        if private:
            alt = {47, 1047, 1049}.intersection(nums)
            if params.startswith("?") and final in "hl" and alt:
                if final == "h" and self.grid is self._main:
                    self._alt = self._blank()
                    self.grid = self._alt
                elif final == "l" and self.grid is self._alt:
                    self.grid = self._main
            return
        if final in "Hf":
            self.y, self.x = arg(0) - 1, arg(1) - 1
        elif final == "A":
            self.y -= arg()
        elif final == "B":
            self.y += arg()
        elif final == "C":
            self.x += arg()
        elif final == "D":
            self.x -= arg()
        elif final == "E":
            self.y += arg()
            self.x = 0
        elif final == "F":
            self.y -= arg()
            self.x = 0
        elif final == "G" or final == "`":
            self.x = arg() - 1
        elif final == "d":
            self.y = arg() - 1
        elif final == "K":
            self._clip()
            mode = arg(0, 0)
            if mode == 0:
                self._erase_line(self.y, self.x, self.cols)
            elif mode == 1:
                self._erase_line(self.y, 0, self.x + 1)
            else:
                self._erase_line(self.y, 0, self.cols)
            return
        elif final == "J":
            self._clip()
            mode = arg(0, 0)
            if mode == 0:
                self._erase_line(self.y, self.x, self.cols)
                for y in range(self.y + 1, self.rows):
                    self._erase_line(y, 0, self.cols)
            elif mode == 1:
                for y in range(0, self.y):
                    self._erase_line(y, 0, self.cols)
                self._erase_line(self.y, 0, self.x + 1)
            else:
                for y in range(self.rows):
                    self._erase_line(y, 0, self.cols)
            return
        elif final == "X":
            self._clip()
            self._erase_line(self.y, self.x, self.x + arg())
            return
        elif final == "P":
            self._clip()
            row = self.grid[self.y]
            k = arg()
            del row[self.x : self.x + k]
            row.extend([" "] * (self.cols - len(row)))
            return
        elif final == "@":
            self._clip()
            row = self.grid[self.y]
            for _ in range(arg()):
                row.insert(self.x, " ")
            del row[self.cols :]
            return
        elif final == "L":
            self._clip()
            for _ in range(arg()):
                del self.grid[self.bottom]
                self.grid.insert(self.y, [" "] * self.cols)
            return
        elif final == "M":
            self._clip()
            for _ in range(arg()):
                del self.grid[self.y]
                self.grid.insert(self.bottom, [" "] * self.cols)
            return
        elif final == "S":
            self._scroll_up(arg())
            return
        elif final == "T":
            self._scroll_down(arg())
            return
        elif final == "r":
            top, bottom = arg(0), arg(1, self.rows)
            self.top, self.bottom = max(0, top - 1), min(self.rows - 1, bottom - 1)
            self.y = self.x = 0
            return
        elif final == "s":
            self._saved = (self.y, self.x)
            return
        elif final == "u":
            self.y, self.x = self._saved
            return
        else:
            return  # SGR (m) and everything else: no effect on the characters
        self._clip()
