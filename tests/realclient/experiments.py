"""Single-question experiments on the real client (see docs/client-behaviour.md).

Each experiment is ``fn(claude, root) -> list[dict]``: one JSON-able row per session, with the
event sequence the logging hooks saw, the tool_result (paths normalised) and the payloads that
matter. ``measure.py`` runs them; ``test_client_behaviour.py`` re-checks the key facts directly.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .behaviour import (
    MEASURED_ID,
    OTHER_MODEL,
    Logged,
    build_project,
    measured_turns,
    normalise,
    run_logged,
)
from .client import run_session
from .mock_api import bash
from .standin import permission_request, pre_tool_use

NOTES_WRITE = measured_turns("Write", {"file_path": "{proj}/notes.txt", "content": "hello\n"})
EDIT_MISSING = measured_turns(
    "Edit",
    {"file_path": "{proj}/README.md", "old_string": "not in the file", "new_string": "x"},
    before=(("Read", {"file_path": "{proj}/README.md"}),),
)


def _row(name: str, lg: Logged, **extra: Any) -> dict[str, Any]:
    tr = lg.result_or_none()
    row: dict[str, Any] = {
        "name": name,
        **extra,
        "events": lg.events(),
        "tool_result": None
        if tr is None
        else {"is_error": tr.is_error, "text": normalise(tr.text, lg.project, lg.home)},
    }
    if lg.dialogs:
        d = lg.dialogs[0]
        row["dialog"] = {
            "answer": d.answer,
            "visible_s": None if d.visible_for is None else round(d.visible_for, 2),
            "auto_mode_fallback": "Auto mode can't check actions" in d.text,
        }
    for ev in ("PreToolUse", "PermissionRequest"):
        if lg.calls(ev):
            row.setdefault("permission_mode seen by hooks", lg.calls(ev)[0].get("permission_mode"))
    for ev in ("PostToolUse", "PostToolUseFailure", "PermissionDenied"):
        mine = [i for i, c in enumerate(lg.calls(ev)) if c.get("tool_use_id") == MEASURED_ID]
        if mine:
            row[ev] = _norm_obj(lg.payload(ev, mine[-1]), lg)
    batches = [
        i
        for i, c in enumerate(lg.calls("PostToolBatch"))
        if any(t.get("tool_use_id") == MEASURED_ID for t in c.get("tool_calls") or [])
    ]
    if batches:
        row["PostToolBatch"] = _norm_obj(lg.payload("PostToolBatch", batches[-1]), lg)
    return row


def _norm_obj(obj: Any, lg: Logged) -> Any:
    if isinstance(obj, str):
        return normalise(obj, lg.project, lg.home)
    if isinstance(obj, list):
        return [_norm_obj(x, lg) for x in obj]
    if isinstance(obj, dict):
        return {k: _norm_obj(v, lg) for k, v in obj.items()}
    return obj


def posttooluse(claude: Path, root: Path) -> list[dict[str, Any]]:
    """Which of PostToolUse / PostToolUseFailure fire for completed, refused, denied, failed calls."""
    rows = []
    runs: list[tuple[str, dict[str, Any]]] = [
        ("Write ran (acceptEdits)", dict(script=NOTES_WRITE, mode="acceptEdits")),
        ("Write refused by the client (-p default, no decision)", dict(script=NOTES_WRITE)),
        (
            "Write denied by a PreToolUse deny (acceptEdits)",
            dict(
                script=NOTES_WRITE,
                mode="acceptEdits",
                replies={"PreToolUse": pre_tool_use("deny", "denied-by-test")},
            ),
        ),
        (
            "Write .claude/settings.json (acceptEdits): refused as sensitive",
            dict(
                script=measured_turns(
                    "Write", {"file_path": "{proj}/.claude/settings.json", "content": "{}\n"}
                ),
                mode="acceptEdits",
            ),
        ),
        (
            "Bash exit 1 (`cat nonexistent-file`)",
            dict(script=measured_turns("Bash", {"command": "cat nonexistent-file"})),
        ),
        ("Bash exit 0 (`echo hi`)", dict(script=measured_turns("Bash", {"command": "echo hi"}))),
        (
            "Edit whose old_string is missing (acceptEdits)",
            dict(script=EDIT_MISSING, mode="acceptEdits"),
        ),
        (
            "Write answered No in the dialog (tty default)",
            dict(script=NOTES_WRITE, mode="default", interactive=True, answer="no"),
        ),
        (
            "Write answered Yes in the dialog (tty default)",
            dict(script=NOTES_WRITE, mode="default", interactive=True, answer="yes"),
        ),
    ]
    for i, (name, kw) in enumerate(runs):
        lg = run_logged(claude, root / f"p{i}", kw.pop("script"), **kw)
        rows.append(
            _row(
                name,
                lg,
                interface="tty" if kw.get("interactive") else "-p",
                mode=kw.get("mode") or "default",
            )
        )
    return rows


def plan_mode(claude: Path, root: Path) -> list[dict[str, Any]]:
    """What runs in plan mode: on its own, after a PermissionRequest allow, after a PreToolUse allow."""
    touch = measured_turns("Bash", {"command": "touch t"})
    runs: list[tuple[str, dict[str, Any]]] = [
        ("`touch t`, no decision (-p plan)", dict(script=touch)),
        (
            "`touch t`, PermissionRequest allow (-p plan)",
            dict(script=touch, replies={"PermissionRequest": permission_request("allow")}),
        ),
        (
            "`touch t`, PreToolUse allow (-p plan)",
            dict(script=touch, replies={"PreToolUse": pre_tool_use("allow")}),
        ),
        (
            "Write notes.txt, PreToolUse allow (-p plan)",
            dict(script=NOTES_WRITE, replies={"PreToolUse": pre_tool_use("allow")}),
        ),
        (
            "Write notes.txt, PermissionRequest allow (-p plan)",
            dict(script=NOTES_WRITE, replies={"PermissionRequest": permission_request("allow")}),
        ),
        ("`touch t`, no decision (tty plan, answered No)", dict(script=touch, interactive=True)),
        (
            "`touch t`, PreToolUse allow (tty plan)",
            dict(script=touch, interactive=True, replies={"PreToolUse": pre_tool_use("allow")}),
        ),
        (
            "`touch t`, PermissionRequest allow (tty plan; No after 5 s unless the hook closed it)",
            dict(
                script=touch,
                interactive=True,
                answer_delay=5.0,
                replies={"PermissionRequest": permission_request("allow")},
            ),
        ),
    ]
    rows = []
    for model in (None, OTHER_MODEL):
        for i, (name, kw) in enumerate(runs):
            lg = run_logged(claude, root / f"{model}-{i}", model=model, mode="plan", **dict(kw))
            target = lg.project / ("t" if "touch" in name else "notes.txt")
            rows.append(_row(name, lg, model=model or "default", wrote=target.exists()))
    return rows


ADD_LOCAL_RULE = {
    "hookSpecificOutput": {
        "hookEventName": "PermissionRequest",
        "decision": {
            "behavior": "allow",
            "updatedPermissions": [
                {
                    "type": "addRules",
                    "rules": [{"toolName": "Bash", "ruleContent": "touch t"}],
                    "behavior": "allow",
                    "destination": "localSettings",
                }
            ],
        },
    }
}


def git_ignored(project: Path, home: Path, rel: str) -> str | None:
    """``git check-ignore -v`` with HOME=home (so the user's global excludes count), or None."""
    p = subprocess.run(
        ["git", "check-ignore", "-v", rel],
        cwd=project,
        env={"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin")},
        capture_output=True,
        text=True,
        timeout=30,
    )
    return normalise(p.stdout.strip(), project, home) if p.returncode == 0 else None


def _ignore_files(project: Path, home: Path) -> dict[str, str | None]:
    files = {
        "<proj>/.gitignore": project / ".gitignore",
        "<proj>/.git/info/exclude": project / ".git" / "info" / "exclude",
        "<home>/.config/git/ignore": home / ".config" / "git" / "ignore",
        "<home>/.gitignore_global": home / ".gitignore_global",
    }
    return {k: (p.read_text() if p.exists() else None) for k, p in files.items()}


def settings_local(claude: Path, root: Path) -> list[dict[str, Any]]:
    """Does the client make git ignore a ``.claude/settings.local.json`` it writes, and how?"""
    rows = []
    variants = {
        "no global excludes file configured": None,
        "core.excludesFile = ~/.gitignore_global": "[core]\n\texcludesFile = ~/.gitignore_global\n",
    }
    for i, (variant, gitconfig) in enumerate(variants.items()):
        before: dict[str, str | None] = {}

        def prepare(
            proj: Path,
            home: Path,
            gitconfig: str | None = gitconfig,
            before: dict[str, str | None] = before,
        ) -> None:
            if gitconfig:
                (home / ".gitconfig").write_text(gitconfig)
            before.update(_ignore_files(proj, home))

        lg = run_logged(
            claude,
            root / f"v{i}",
            measured_turns("Bash", {"command": "touch t"}),
            replies={"PermissionRequest": ADD_LOCAL_RULE},
            before_run=prepare,
        )
        after = _ignore_files(lg.project, lg.home)
        local = lg.project / ".claude" / "settings.local.json"
        rows.append(
            {
                "name": f"PermissionRequest allow + addRules → localSettings (-p); {variant}",
                "settings.local.json written": local.exists(),
                "changed ignore files": {
                    k: [before[k], v] for k, v in after.items() if before[k] != v
                },
                "git check-ignore -v .claude/settings.local.json": git_ignored(
                    lg.project, lg.home, ".claude/settings.local.json"
                ),
                "tool_result": normalise(lg.result().text, lg.project, lg.home),
            }
        )
    return rows


def bypass(claude: Path, root: Path) -> list[dict[str, Any]]:
    """bypassPermissions as root (uid 0)."""
    rows = []
    for args in (["--permission-mode", "bypassPermissions"], ["--dangerously-skip-permissions"]):
        proj, home = build_project(root / args[0].strip("-"))
        res = run_session(
            claude, proj, home=home, tool_use=bash("touch t"), extra_args=args, timeout=60
        )
        rows.append(
            {
                "name": " ".join(args) + f" (uid {os.getuid()})",
                "returncode": res.returncode,
                "stderr": res.stderr.strip()[-400:],
                "stdout": res.stdout.strip()[-400:],
                "requests": len(res.requests),
                "wrote": (proj / "t").exists(),
            }
        )
    return rows


def auto_mode(claude: Path, root: Path) -> list[dict[str, Any]]:
    """Auto mode with a mock API: the server-side check is unreachable. What happens to a call
    that needs it (`cat ~/.ssh/id_rsa`), in -p and in a tty?"""
    ssh = measured_turns("Bash", {"command": "cat ~/.ssh/id_rsa"})
    rows = []
    for model in (None, OTHER_MODEL):
        tag = model or "default"
        lg = run_logged(claude, root / f"p-{tag}", ssh, mode="auto", model=model)
        rows.append(_row("`cat ~/.ssh/id_rsa` (-p auto)", lg, model=tag, ran=bool(lg.ran())))
        lg = run_logged(claude, root / f"t-{tag}", ssh, mode="auto", model=model, interactive=True)
        rows.append(
            _row("`cat ~/.ssh/id_rsa` (tty auto, answered No)", lg, model=tag, ran=bool(lg.ran()))
        )
    return rows


def hook_allow(claude: Path, root: Path) -> list[dict[str, Any]]:
    """Where does a hook's allow take effect? `chmod +x scripts/x.sh` (which the client asks
    about in default and acceptEdits), PreToolUse allow vs PermissionRequest allow, per mode."""
    chmod = measured_turns("Bash", {"command": "chmod +x scripts/x.sh"})
    allow = {
        "PreToolUse allow": {"PreToolUse": pre_tool_use("allow")},
        "PermissionRequest allow": {"PermissionRequest": permission_request("allow")},
    }
    rows = []
    modes = ["default", "acceptEdits", "auto", "dontAsk", "plan", f"plan@{OTHER_MODEL}"]
    for mode in modes:
        m, _, model = mode.partition("@")
        for name, replies in allow.items():
            lg = run_logged(
                claude,
                root / f"{mode}-{name[:2]}",
                chmod,
                mode=m,
                model=model or None,
                replies=replies,
            )
            rows.append(_row(f"{name} (-p {mode})", lg, ran=bool(lg.ran())))
    for name, replies in allow.items():
        lg = run_logged(
            claude,
            root / f"tty-auto-{name[:2]}",
            chmod,
            mode="auto",
            interactive=True,
            answer_delay=5.0,
            replies=replies,
        )
        rows.append(_row(f"{name} (tty auto; No after 5 s)", lg, ran=bool(lg.ran())))
    return rows


def dialog_flash(claude: Path, root: Path, repeats: int = 5) -> list[dict[str, Any]]:
    """How long a dialog stays on the screen when a PermissionRequest hook allows at once
    (tty default, `touch t`, the hook replies with no delay)."""
    touch = measured_turns("Bash", {"command": "touch t"})
    rows = []
    for i in range(repeats):
        lg = run_logged(
            claude,
            root / f"f{i}",
            touch,
            mode="default",
            interactive=True,
            answer=None,
            replies={"PermissionRequest": permission_request("allow")},
            timeout=30,
        )
        d = lg.dialogs[0] if lg.dialogs else None
        rows.append(
            {
                "run": i + 1,
                "dialog drawn": d is not None,
                "visible_s": None
                if d is None or d.visible_for is None
                else round(d.visible_for, 2),
                "ran": (lg.project / "t").exists(),
            }
        )
    return rows


EXPERIMENTS: dict[str, Callable[[Path, Path], list[dict[str, Any]]]] = {
    "posttooluse": posttooluse,
    "plan": plan_mode,
    "settings-local": settings_local,
    "bypass": bypass,
    "auto": auto_mode,
    "flash": dialog_flash,
    "hook-allow": hook_allow,
}
