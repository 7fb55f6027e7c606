"""The measurements behind docs/client-behaviour.md, "The Bash sandbox" (2.1.330, Linux).

    python -m tests.realclient.sandbox_probe                 # every experiment (~5 min)
    python -m tests.realclient.sandbox_probe spellings layers  # some of them
    python -m tests.realclient.sandbox_probe --list

Each experiment runs the real client in print mode against the scripted mock, in a fresh
measurement project (behaviour.build_project: `.env` with a marker, a committed
`config/.env.prod`, `~/.ssh/id_rsa`), with the sandbox settings under test, and prints every
tool_result with the project and home paths shortened to <P> and <H>. Where a call must run
whatever the client thinks of it, a PreToolUse stand-in allows every call, so only the OS
stands between the command and what it touches. No gateway takes part. Re-run it after a
re-pin and compare with the page.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from .behaviour import build_project
from .client import find_claude, run_session
from .mock_api import bash, text, tool_use
from .standin import StandInHook, hooks_settings, pre_tool_use

EXPERIMENTS = {}


def experiment(f):
    EXPERIMENTS[f.__name__] = f
    return f


def session(name, cmds, *, project_settings=None, user_settings=None, local_settings=None,
            mode=None, allow_all=True, setup=None, env_extra=None, extra_args=()):
    claude = find_claude()
    root = Path(tempfile.mkdtemp(prefix="sandbox-probe-"))
    proj, home = build_project(root)
    if setup:
        setup(proj, home)

    def fill(o):
        if isinstance(o, str):
            return o.replace("<P>", str(proj)).replace("<H>", str(home))
        if isinstance(o, list):
            return [fill(x) for x in o]
        if isinstance(o, dict):
            return {k: fill(v) for k, v in o.items()}
        return o

    us = fill(user_settings) or {}
    if allow_all:
        pre = StandInHook(root / "hooks", "pre", pre_tool_use("allow", "ok"))
        us = dict(us, **hooks_settings(("PreToolUse", "*", pre)))
    script = [[bash(fill(c))] if isinstance(c, str) else [c] for c in cmds] + [[text("done")]]
    t0 = time.monotonic()
    res = run_session(claude, proj, script=script, home=home, user_settings=us,
                      project_settings=fill(project_settings),
                      local_settings=fill(local_settings), permission_mode=mode,
                      env_extra=env_extra, extra_args=list(extra_args))
    print(f"=== {name} ({time.monotonic() - t0:.1f}s, exit {res.returncode})")
    if res.returncode or not res.tool_results:
        print("  stderr:", res.stderr.strip()[-600:])
    for c, r in zip(cmds, res.tool_results, strict=False):
        t = r.text.replace(str(proj), "<P>").replace(str(home), "<H>")
        label = fill(c) if isinstance(c, str) else c.get("name")
        print(f"  [{'ERR' if r.is_error else 'ok '}] {label}\n        -> {t[:300]!r}")
    return res


def _path_without(*names) -> str:
    d = Path(tempfile.mkdtemp(prefix="sandbox-probe-path-"))
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        if os.path.isdir(folder):
            for n in os.listdir(folder):
                if n not in names and not (d / n).exists():
                    try:
                        (d / n).symlink_to(os.path.join(folder, n))
                    except OSError:
                        pass
    return str(d)


@experiment
def enabled():
    session("enabled in the project's settings", [
        "touch <H>/outside.txt", "touch inproj.txt", "cat .env", "touch /tmp/x-$$",
        "echo $TMPDIR; touch $TMPDIR/y && echo tmpok"],
        project_settings={"sandbox": {"enabled": True}})


@experiment
def spellings():
    for sp in ["//<P>/.env", "<P>/.env", "./.env", ".env", "**/.env*", "/.env", "**/{.env,*.pem}"]:
        session(f"project denyRead {sp}", ["cat .env", "cat config/.env.prod"],
                project_settings={"sandbox": {"enabled": True,
                                              "filesystem": {"denyRead": [sp]}}})
    for sp in ["./.env", "~/.ssh", "//<H>/.ssh/id_rsa", "~/.claude/.credentials.json"]:
        def creds(p, h):
            (h / ".claude").mkdir(exist_ok=True)
            (h / ".claude" / ".credentials.json").write_text('{"t":"CREDMARKER"}')
        session(f"user denyRead {sp}", ["cat .env", "cat <H>/.ssh/id_rsa",
                                        "cat <H>/.claude/.credentials.json"],
                user_settings={"sandbox": {"enabled": True, "filesystem": {"denyRead": [sp]}}},
                setup=creds)


@experiment
def around():
    def deep(p, h):
        d = p / "a/b/c/d/e/f"
        d.mkdir(parents=True)
        (d / ".env").write_text("DEEP=1\n")
    session("around a hidden file", [
        "cat a/b/c/d/e/f/.env", "echo N=1 > late.pem; cat late.pem", "cat late.pem",
        "ln .env hl; cat hl", "ln -s .env sl; cat sl", "cp .env c; cat c", "mv .env m",
        "git show HEAD:config/.env.prod",
        tool_use("Read", {"file_path": "<P>/.env"}),
        tool_use("Grep", {"pattern": "KEY", "output_mode": "content"})],
        project_settings={"sandbox": {"enabled": True, "filesystem": {
            "denyRead": ["**/.env", "**/.env.*", "**/*.pem"]}}},
        setup=deep, extra_args=["--tools", "Bash,Read,Grep"])


@experiment
def deny_write():
    sp = ".venv/lib/python3.11/site-packages"

    def mk(p, h):
        (p / sp / "sitecustomize.py").write_text("# orig\n")
        (p / sp / "old.pth").write_text("# orig\n")
    for name, dw in {"concrete": [f"{sp}/sitecustomize.py"],
                     "missing": [f"{sp}/usercustomize.py"],
                     "glob": ["**/site-packages/*.pth", ".venv/lib/*/site-packages/*.pth"],
                     "directory": [sp]}.items():
        session(f"denyWrite {name}", [f"echo x >> {sp}/sitecustomize.py",
                                      f"echo x > {sp}/usercustomize.py",
                                      f"echo x >> {sp}/old.pth", f"echo x > {sp}/new.pth"],
                project_settings={"sandbox": {"enabled": True,
                                              "filesystem": {"denyWrite": dw}}}, setup=mk)


@experiment
def protected():
    paths = [".claude/settings.json", ".claude/settings.local.json", ".claude/settings.foo.json",
             ".claude/hooks/x.sh", ".claude/agents/x.md", ".claude/skills/s/SKILL.md",
             ".claude/commands/c.md", ".mcp.json", ".claude/gateway.yaml",
             ".claude-plugin/plugin.json", ".git/hooks/pre-commit", ".git/config",
             ".git/info/attributes", ".gitmodules", ".husky/pre-commit",
             ".pre-commit-config.yaml", ".envrc", "CLAUDE.md", ".vscode/settings.json",
             ".idea/x.xml", "deep/a/b/c/d/.git/config", ".bashrc", ".gitconfig"]

    def mk(p, h):
        for rel in paths:
            f = p / rel
            f.parent.mkdir(parents=True, exist_ok=True)
            if not f.exists():
                f.write_text("orig\n")
    session("what the client protects", [
        f"python3 -c \"import sys; open(sys.argv[1],'a').write('x')\" {rel} && echo WRITABLE"
        for rel in paths], project_settings={"sandbox": {"enabled": True}}, setup=mk)


@experiment
def unavailable():
    path = _path_without("bwrap")
    for fi in (None, True):
        sb = {"enabled": True}
        if fi is not None:
            sb["failIfUnavailable"] = fi
        session(f"no bubblewrap, failIfUnavailable={fi}", ["echo one", "cat .env"],
                project_settings={"sandbox": sb}, env_extra={"PATH": path})


@experiment
def layers():
    dr = {"denyRead": ["**/.env"]}
    dds = tool_use("Bash", {"command": "cat .env; touch /tmp/dd-$$ && echo WROTE",
                            "dangerouslyDisableSandbox": True})
    session("allowUnsandboxedCommands false + dangerouslyDisableSandbox", [dds],
            project_settings={"sandbox": {"enabled": True, "allowUnsandboxedCommands": False,
                                          "filesystem": dr}})
    session("project false, local true", [dds],
            project_settings={"sandbox": {"enabled": True, "allowUnsandboxedCommands": False,
                                          "filesystem": dr}},
            local_settings={"sandbox": {"allowUnsandboxedCommands": True}})
    session("excludedCommands in the project", ["cat .env", "touch /tmp/e-$$ && echo W"],
            project_settings={"sandbox": {"enabled": True, "excludedCommands": ["cat *"],
                                          "filesystem": dr}})
    session("local enabled false over project true", ["cat .env"],
            project_settings={"sandbox": {"enabled": True, "filesystem": dr}},
            local_settings={"sandbox": {"enabled": False}})


@experiment
def auto_allow():
    def mk(p, h):
        (p / "src").mkdir(exist_ok=True)
        (p / "src" / "a.py").write_text("x\n")
    for mode in ("default", "acceptEdits", "dontAsk", "auto", "plan"):
        session(f"autoAllowBashIfSandboxed, {mode}", ["touch new.txt && echo T",
                                                      "rm -rf src && echo RM"],
                project_settings={"sandbox": {"enabled": True,
                                              "autoAllowBashIfSandboxed": True}},
                allow_all=False, setup=mk, mode=mode)
    session("autoAllowBashIfSandboxed, plan, claude-sonnet-4-5", ["touch new.txt && echo T"],
            project_settings={"sandbox": {"enabled": True, "autoAllowBashIfSandboxed": True}},
            allow_all=False, setup=mk, mode="plan",
            extra_args=["--model", "claude-sonnet-4-5"])


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--list" in argv:
        print("\n".join(EXPERIMENTS))
        return 0
    if not find_claude():
        print("the real client is not installed (pytest -m realclient installs it)")
        return 2
    for name in argv or list(EXPERIMENTS):
        EXPERIMENTS[name]()
    return 0


if __name__ == "__main__":
    sys.exit(main())
