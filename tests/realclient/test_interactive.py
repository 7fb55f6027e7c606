"""Proves the interactive (pty) harness with stand-in hooks, next to the same calls in ``-p``.

The facts the gateway builds on (reference §4, §5; issue 12):

(a) A PreToolUse ``ask`` draws the dialog in an interactive session, even for a command the
    client would run by itself (``cat .env``), and PermissionRequest hooks still fire. No →
    not run; Yes → runs.
(b) In ``-p`` the same ``ask`` is a refusal whose tool_result is the hook's reason.
(c) A PreToolUse ``allow`` runs a command the client would ask about (``touch marker``) with no
    dialog, interactive and ``-p``; a user ``permissions.ask`` rule still draws the dialog (and
    fires PermissionRequest); a ``permissions.deny`` rule still denies.
(d) A PermissionRequest ``allow`` closes a dialog that is already drawn.

Texts asserted here are 2.1.330 wording (docs/realclient.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .behaviour import ENV_TEXT, build_project, logging_shell, shell_commands
from .client import SessionResult, require_client, run_session
from .interactive import InteractiveResult, run_interactive
from .mock_api import bash
from .standin import StandInHook, hooks_settings, permission_request, pre_tool_use

pytestmark = pytest.mark.realclient

CLAUDE = require_client()  # loud module-level skip (or fail, if required) when unavailable

SECRET = "sk-MARKER123"
assert SECRET in ENV_TEXT
REASON = "reason-by-test"
REJECTED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
    "was a file edit, the new_string was NOT written to the file). STOP what you are doing and "
    "wait for the user to tell you how to proceed."
)


class Sandbox:
    """The measurement project (``.env`` with a marker, a git repo), a HOME, a logging shell."""

    def __init__(self, tmp: Path) -> None:
        self.project, self.home = build_project(tmp)
        self.hooks_dir = tmp / "hooks"
        shell, self.shell_log = logging_shell(tmp / "bin")
        self.env = {"CLAUDE_CODE_SHELL": str(shell)}

    def hook(self, name: str, reply: dict[str, Any] | None = None, **kw: Any) -> StandInHook:
        return StandInHook(self.hooks_dir, name, reply, **kw)

    def ran(self) -> list[str]:
        """Scripts of the Bash tool commands that really ran."""
        return shell_commands(self.shell_log)

    def interactive(self, command: str, hooks: list[StandInHook], **kw: Any) -> InteractiveResult:
        kw.setdefault("permission_mode", "default")
        res = run_interactive(
            CLAUDE,
            self.project,
            home=self.home,
            tool_use=bash(command),
            hooks=hooks,
            env_extra=self.env,
            **kw,
        )
        assert res.done == "end", res.describe()
        return res

    def print_mode(self, command: str, **kw: Any) -> SessionResult:
        res = run_session(
            CLAUDE, self.project, home=self.home, tool_use=bash(command), env_extra=self.env, **kw
        )
        assert not res.timed_out and res.returncode == 0, res.describe()
        return res


@pytest.fixture
def sb(tmp_path: Path) -> Sandbox:
    return Sandbox(tmp_path)


def no_secret(results: list[Any]) -> bool:
    return all(SECRET not in r.text for r in results)


# --------------------------------------------------------------------------- control


def test_control_cat_env_runs_by_itself_interactive(sb: Sandbox) -> None:
    """Premise of (a): with logging hooks only, the client runs `cat .env` with no dialog."""
    perm = sb.hook("perm")
    res = sb.interactive(
        "cat .env", [perm], user_settings=hooks_settings(("PermissionRequest", "*", perm))
    )
    assert not res.dialog_shown, res.describe()
    assert perm.calls() == []
    assert res.tool_result.text == ENV_TEXT.strip(), res.describe()
    assert len(sb.ran()) == 1


# --------------------------------------------------------------------------- (a)


@pytest.mark.parametrize("mode", ["default", "acceptEdits"])
def test_pretooluse_ask_draws_dialog_and_no_keeps_secret(sb: Sandbox, mode: str) -> None:
    pre = sb.hook("pre", pre_tool_use("ask", REASON))
    perm = sb.hook("perm")
    res = sb.interactive(
        "cat .env",
        [pre, perm],
        permission_mode=mode,
        user_settings=hooks_settings(("PreToolUse", "Bash", pre), ("PermissionRequest", "*", perm)),
        answer="no",
    )
    assert res.dialog_shown, res.describe()
    dialog = res.dialog_text or ""
    assert "cat .env" in dialog
    assert "Hook PreToolUse:Bash requires confirmation for this command:" in dialog
    assert REASON in dialog
    # PermissionRequest hooks still fire for a hook-asked call
    assert perm.events() == ["PermissionRequest"], res.describe()
    assert perm.calls()[0]["tool_input"]["command"] == "cat .env"
    assert perm.calls()[0]["permission_mode"] == mode
    # No: the command did not run and the model got the rejection, not the secret
    assert sb.ran() == []
    assert res.tool_result.is_error and res.tool_result.text == REJECTED, res.describe()
    assert no_secret(res.tool_results)


def test_pretooluse_ask_yes_runs(sb: Sandbox) -> None:
    pre = sb.hook("pre", pre_tool_use("ask", REASON))
    res = sb.interactive(
        "cat .env",
        [pre],
        user_settings=hooks_settings(("PreToolUse", "Bash", pre)),
        answer="yes",
    )
    assert res.dialog_shown and res.dialogs[0].answer == "yes", res.describe()
    assert len(sb.ran()) == 1
    assert res.tool_result.text == ENV_TEXT.strip(), res.describe()


# --------------------------------------------------------------------------- (b)


def test_pretooluse_ask_in_print_mode_is_a_refusal_with_the_reason(sb: Sandbox) -> None:
    pre = sb.hook("pre", pre_tool_use("ask", REASON))
    perm = sb.hook("perm")
    res = sb.print_mode(
        "cat .env",
        user_settings=hooks_settings(("PreToolUse", "Bash", pre), ("PermissionRequest", "*", perm)),
    )
    tr = res.tool_result
    assert tr.is_error and tr.text == REASON, res.describe()
    assert perm.calls() == []  # no PermissionRequest in -p after a PreToolUse ask
    assert sb.ran() == []


# --------------------------------------------------------------------------- (c)


def test_pretooluse_allow_runs_without_dialog_interactive(sb: Sandbox) -> None:
    """`touch marker` draws a dialog by itself in default mode; an allow removes it."""
    pre = sb.hook("pre", pre_tool_use("allow"))
    perm = sb.hook("perm")
    res = sb.interactive(
        "touch marker",
        [pre, perm],
        user_settings=hooks_settings(("PreToolUse", "Bash", pre), ("PermissionRequest", "*", perm)),
        answer="no",  # would refuse a dialog, if one were drawn
    )
    assert not res.dialog_shown, res.describe()
    assert (sb.project / "marker").exists()
    assert perm.calls() == []
    assert res.tool_result.text == "(Bash completed with no output)", res.describe()


def test_pretooluse_allow_runs_in_print_mode(sb: Sandbox) -> None:
    pre = sb.hook("pre", pre_tool_use("allow"))
    perm = sb.hook("perm")
    res = sb.print_mode(
        "touch marker",
        user_settings=hooks_settings(("PreToolUse", "Bash", pre), ("PermissionRequest", "*", perm)),
    )
    assert (sb.project / "marker").exists(), res.describe()
    assert perm.calls() == []
    assert not res.tool_result.is_error


ASK_RULE = {"permissions": {"ask": ["Bash(touch marker)"]}}
DENY_RULE = {"permissions": {"deny": ["Bash(touch marker)"]}}


def test_pretooluse_allow_user_ask_rule_still_draws_dialog(sb: Sandbox) -> None:
    pre = sb.hook("pre", pre_tool_use("allow"))
    perm = sb.hook("perm")
    settings = hooks_settings(("PreToolUse", "Bash", pre), ("PermissionRequest", "*", perm))
    res = sb.interactive(
        "touch marker", [pre, perm], user_settings={**settings, **ASK_RULE}, answer="no"
    )
    assert res.dialog_shown, res.describe()
    assert "Rule Bash(touch marker) from user settings says to ask." in (res.dialog_text or "")
    assert perm.events() == ["PermissionRequest"]
    assert not (sb.project / "marker").exists()
    assert res.tool_result.text == REJECTED


def test_pretooluse_allow_user_ask_rule_in_print_mode_refuses(sb: Sandbox) -> None:
    pre = sb.hook("pre", pre_tool_use("allow"))
    perm = sb.hook("perm")
    settings = hooks_settings(("PreToolUse", "Bash", pre), ("PermissionRequest", "*", perm))
    res = sb.print_mode("touch marker", user_settings={**settings, **ASK_RULE})
    assert not (sb.project / "marker").exists()
    assert perm.events() == ["PermissionRequest"]
    assert res.tool_result.text == (
        "Claude requested permissions to use Bash, but you haven't granted it yet."
    ), res.describe()


@pytest.mark.parametrize("interface", ["interactive", "print"])
def test_pretooluse_allow_user_deny_rule_denies(sb: Sandbox, interface: str) -> None:
    pre = sb.hook("pre", pre_tool_use("allow"))
    perm = sb.hook("perm")
    settings = {
        **hooks_settings(("PreToolUse", "Bash", pre), ("PermissionRequest", "*", perm)),
        **DENY_RULE,
    }
    if interface == "interactive":
        res: Any = sb.interactive("touch marker", [pre, perm], user_settings=settings, answer="yes")
        assert not res.dialog_shown, res.describe()
    else:
        res = sb.print_mode("touch marker", user_settings=settings)
    assert not (sb.project / "marker").exists()
    assert perm.calls() == []
    assert res.tool_result.is_error
    assert (
        res.tool_result.text == "Permission to use Bash with command touch marker has been denied."
    )


# --------------------------------------------------------------------------- (d)


@pytest.mark.parametrize("delay", [0.0, 1.0])
def test_permissionrequest_allow_closes_a_drawn_dialog(sb: Sandbox, delay: float) -> None:
    """The dialog is drawn first; the hook's allow then closes it and the command runs.

    The time the dialog stayed on the screen is printed (``-s`` shows it); it is a measurement
    (docs/client-behaviour.md), not an assertion.
    """
    perm = sb.hook("perm", permission_request("allow"), sleep=delay)
    res = sb.interactive(
        "touch marker",
        [perm],
        user_settings=hooks_settings(("PermissionRequest", "*", perm)),
        answer=None,  # nobody presses a key
    )
    assert res.dialog_shown, res.describe()
    d = res.dialogs[0]
    assert d.answer is None and d.closed_at is not None, res.describe()
    assert perm.events() == ["PermissionRequest"]
    assert (sb.project / "marker").exists()
    assert res.tool_result.text == "(Bash completed with no output)", res.describe()
    print(
        f"\n[realclient] PermissionRequest allow (hook sleeps {delay:.1f}s): dialog visible "
        f"{d.visible_for:.2f}s; hook called at {res.hook_times['perm'][0]:.2f}s, dialog drawn "
        f"at {d.shown_at:.2f}s"
    )


# --------------------------------------------------------------------------- harness safety


def test_unanswered_dialog_ends_in_a_timeout_not_a_hang(sb: Sandbox) -> None:
    """Nobody answers and no hook decides: the harness kills the session at the timeout."""
    perm = sb.hook("perm")
    res = run_interactive(
        CLAUDE,
        sb.project,
        home=sb.home,
        tool_use=bash("touch marker"),
        permission_mode="default",
        user_settings=hooks_settings(("PermissionRequest", "*", perm)),
        hooks=[perm],
        env_extra=sb.env,
        answer=None,
        timeout=10,
    )
    assert res.done == "timeout" and res.timed_out, res.describe()
    assert res.dialog_shown and res.dialogs[0].closed_at is None
    assert res.returncode == -9  # the process group was killed
    assert not (sb.project / "marker").exists()
    assert perm.events() == ["PermissionRequest"]
    assert res.tool_results == []
