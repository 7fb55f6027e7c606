"""Install the pinned real Claude Code client and run headless (``claude -p``) sessions against
the scripted mock in :mod:`mock_api`.

Typical use (see ``test_harness.py``)::

    CLAUDE = require_client()   # module level: installs once into the cache, else a loud skip
    ...
    res = run_session(
        CLAUDE,
        project_dir=tmp_path / "proj",
        home=tmp_path / "home",
        tool_use=bash("touch marker"),
        user_settings={"hooks": {...}},
    )
    assert not (tmp_path / "proj" / "marker").exists()
    assert "blocked" in res.tool_result.text

Environment knobs:

``GATEWAY_REALCLIENT_CACHE``
    install prefix of the client (default ``~/.cache/gateway-realclient/claude-code-<version>``).
``GATEWAY_REALCLIENT_INSTALL_TIMEOUT``
    seconds allowed for ``npm install`` (default 600).
``GATEWAY_REALCLIENT_KEEP``
    when set to 1, :func:`run_session` keeps a HOME it created itself and prints where.
``GATEWAY_REALCLIENT_REQUIRED``
    when set to 1, :func:`require_client` fails instead of skipping if the client is unavailable.
"""

from __future__ import annotations

import contextlib
import fcntl
import glob
import json
import os
import platform
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from .mock_api import Block, LoggedRequest, MockAnthropic, Turn, text

PACKAGE = "@anthropic-ai/claude-code"
#: The client version the harness pins. Re-pin: change this, re-run ``pytest -m realclient``,
#: and re-check the texts asserted in test_harness.py (see docs/realclient.md).
PINNED_VERSION = "2.1.330"

DEFAULT_PROMPT = "do it"


# --------------------------------------------------------------------------- installation


@dataclass(frozen=True)
class ClientInstall:
    """Outcome of :func:`ensure_client`. Truthy when a usable ``claude`` executable exists."""

    claude: Path | None
    version: str
    prefix: Path
    reason: str  # why it is unavailable, or how it was obtained

    def __bool__(self) -> bool:
        return self.claude is not None


def default_cache_dir(version: str = PINNED_VERSION) -> Path:
    env = os.environ.get("GATEWAY_REALCLIENT_CACHE")
    if env:
        return Path(env).expanduser()
    return Path.home() / ".cache" / "gateway-realclient" / f"claude-code-{version}"


def _probe_version(exe: Path) -> str | None:
    """``claude --version`` → ``"2.1.330"``, or None if it does not run."""
    try:
        with tempfile.TemporaryDirectory(prefix="realclient-version-") as home:
            p = subprocess.run(
                [str(exe), "--version"],
                capture_output=True,
                text=True,
                timeout=60,
                stdin=subprocess.DEVNULL,
                env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home},
            )
    except (OSError, subprocess.SubprocessError):
        return None
    if p.returncode != 0 or not p.stdout.strip():
        return None
    return p.stdout.split()[0]


def _candidates(prefix: Path) -> list[Path]:
    """Executables an install can provide, best first.

    ``bin/claude.exe`` is a placeholder until the package's postinstall copies the native binary
    over it; if npm ran with scripts disabled, the platform package's binary is used directly.
    """
    nm = prefix / "node_modules"
    out = [nm / ".bin" / "claude", nm / "@anthropic-ai" / "claude-code" / "bin" / "claude.exe"]
    machine = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(
        platform.machine().lower(), platform.machine().lower()
    )
    plat = {"linux": "linux", "darwin": "darwin"}.get(os.uname().sysname.lower(), "")
    out += [
        Path(p)
        for p in sorted(
            glob.glob(str(nm / "@anthropic-ai" / f"claude-code-{plat}-{machine}*" / "claude"))
        )
    ]
    return out


def _find_installed(prefix: Path, version: str) -> Path | None:
    for exe in _candidates(prefix):
        if exe.exists() and os.access(exe, os.X_OK) and _probe_version(exe) == version:
            return exe
    return None


def _npm_error_summary(output: str, limit: int = 4) -> str:
    """The first few meaningful ``npm error`` lines (no stack frames), joined on one line."""
    keep = []
    for line in output.splitlines():
        if not line.startswith("npm error"):
            continue
        rest = line[len("npm error") :].strip()
        if not rest or rest.startswith("at ") or rest.startswith("A complete log"):
            continue
        keep.append(rest)
        if len(keep) == limit:
            break
    return " | ".join(keep) or output.strip()[-500:]


def _install(prefix: Path, version: str, timeout: float) -> tuple[Path | None, str]:
    npm = shutil.which("npm")
    if npm is None:
        return None, "npm is not on PATH (install Node.js + npm to run the real-client tests)"
    prefix.parent.mkdir(parents=True, exist_ok=True)
    # Install into a scratch prefix, then rename: an interrupted install never looks complete.
    staging = Path(tempfile.mkdtemp(prefix=prefix.name + ".staging-", dir=prefix.parent))
    cmd = [
        npm,
        "install",
        "--prefix",
        str(staging),
        "--no-audit",
        "--no-fund",
        "--save-exact",
        "--no-update-notifier",
        f"{PACKAGE}@{version}",
    ]
    try:
        try:
            p = subprocess.run(
                cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
            )
        except subprocess.TimeoutExpired:
            return None, (
                f"`npm install {PACKAGE}@{version}` timed out after {timeout:.0f}s "
                "(is the npm registry reachable?)"
            )
        except OSError as e:
            return None, f"could not run npm: {e}"
        if p.returncode != 0:
            return None, (
                f"`npm install {PACKAGE}@{version}` failed with exit {p.returncode} "
                f"(npm registry unreachable or version not published?): "
                f"{_npm_error_summary(p.stderr or p.stdout)}"
            )
        exe = _find_installed(staging, version)
        if exe is None:
            return None, (
                f"npm installed {PACKAGE}@{version} but no runnable `claude` reporting version "
                f"{version} was found under {staging} (no native binary for "
                f"{os.uname().sysname}/{platform.machine()}?)"
            )
        if prefix.exists():
            shutil.rmtree(prefix)
        staging.rename(prefix)
        staging = None  # type: ignore[assignment]
        exe = _find_installed(prefix, version)
        if exe is None:  # symlinks are relative, so this should not happen
            return None, f"installed client under {prefix} does not run after moving it into place"
        return exe, f"installed {PACKAGE}@{version} into {prefix}"
    finally:
        if staging is not None and staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


@cache
def _ensure(prefix: Path, version: str, timeout: float) -> ClientInstall:
    exe = _find_installed(prefix, version)
    if exe is not None:
        return ClientInstall(exe, version, prefix, f"cached {PACKAGE}@{version} at {prefix}")
    prefix.parent.mkdir(parents=True, exist_ok=True)
    lock_path = prefix.parent / (prefix.name + ".lock")
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # serialise concurrent installers (xdist workers, ...)
        try:
            exe = _find_installed(prefix, version)  # another process may have finished meanwhile
            if exe is not None:
                return ClientInstall(
                    exe, version, prefix, f"cached {PACKAGE}@{version} at {prefix}"
                )
            exe, reason = _install(prefix, version, timeout)
            return ClientInstall(exe, version, prefix, reason)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def ensure_client(
    version: str = PINNED_VERSION,
    cache_dir: str | os.PathLike[str] | None = None,
    timeout: float | None = None,
) -> ClientInstall:
    """Return the pinned client, installing it with ``npm install --prefix`` only if missing.

    Never raises for a missing npm / unreachable registry: the result is falsy and ``.reason``
    says why. The result is memoised per process.
    """
    prefix = Path(cache_dir).expanduser() if cache_dir else default_cache_dir(version)
    if timeout is None:
        timeout = float(os.environ.get("GATEWAY_REALCLIENT_INSTALL_TIMEOUT", "600"))
    return _ensure(prefix.resolve(), version, timeout)


def find_claude(version: str = PINNED_VERSION) -> Path | None:
    """Shorthand: the ``claude`` executable path, or None (see :func:`ensure_client` for why)."""
    return ensure_client(version).claude


# --------------------------------------------------------------------------- sessions


@dataclass(frozen=True)
class ToolResult:
    tool_use_id: str
    is_error: bool
    text: str
    raw: dict[str, Any] = field(repr=False, compare=False, default_factory=dict)


@dataclass
class SessionResult:
    returncode: int | None  # None when the run timed out and was killed
    stdout: str
    stderr: str
    tool_results: list[ToolResult]
    requests: list[LoggedRequest]
    project_dir: Path
    home: Path  # already deleted if run_session created it (pass home= to keep it)
    duration: float
    timed_out: bool
    argv: list[str]
    script_left: int  # scripted turns the client never asked for

    @property
    def tool_result(self) -> ToolResult:
        """The one tool_result of a single-tool-call session (asserts there is exactly one)."""
        assert len(self.tool_results) == 1, (
            f"expected exactly one tool_result, got:\n{self.describe()}"
        )
        return self.tool_results[0]

    def message_bodies(self) -> list[dict[str, Any]]:
        return [
            r.body
            for r in self.requests
            if r.method == "POST"
            and r.path.split("?", 1)[0].endswith("/v1/messages")
            and isinstance(r.body, dict)
        ]

    def stdout_json(self) -> Any:
        """Parsed stdout, for runs with ``extra_args=["--output-format", "json"]``."""
        return json.loads(self.stdout)

    def describe(self) -> str:
        """A compact human-readable dump for assertion messages."""
        lines = [
            f"argv={self.argv!r} rc={self.returncode} timed_out={self.timed_out} "
            f"duration={self.duration:.1f}s script_left={self.script_left}",
            f"stdout: {self.stdout[-1500:]!r}",
            f"stderr: {self.stderr[-3000:]!r}",
            "requests:",
        ]
        for r in self.requests:
            n_tools = len(r.body.get("tools") or []) if isinstance(r.body, dict) else 0
            lines.append(f"  #{r.seq} {r.method} {r.path} kind={r.kind} tools={n_tools}")
        lines.append("tool_results:")
        for t in self.tool_results:
            lines.append(f"  is_error={t.is_error} text={t.text[:500]!r}")
        return "\n".join(lines)


def _write_json(path: Path, obj: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj, indent=2))


def seed_claude_json(home: Path, project_dir: Path, api_key: str) -> None:
    """Pre-seed ``~/.claude.json`` as a user who finished onboarding and trusts the project.

    2.1.330 needs none of this for ``-p`` (it runs with an empty HOME); it is written so the same
    HOME also works for interactive (pty) runs, which otherwise stop at the onboarding, trust
    and "use this API key?" screens.
    """
    path = home / ".claude.json"
    data: dict[str, Any] = json.loads(path.read_text()) if path.exists() else {}
    data.setdefault("hasCompletedOnboarding", True)
    data.setdefault("lastOnboardingVersion", PINNED_VERSION)
    data.setdefault("customApiKeyResponses", {"approved": [api_key[-20:]], "rejected": []})
    projects = data.setdefault("projects", {})
    proj = projects.setdefault(str(project_dir), {})
    proj.setdefault("hasTrustDialogAccepted", True)
    proj.setdefault("hasCompletedProjectOnboarding", True)
    proj.setdefault("allowedTools", [])
    _write_json(path, data)


def clean_env(
    home: Path, base_url: str, api_key: str = "dummy", extra: dict[str, str] | None = None
) -> dict[str, str]:
    """The §13 environment: nothing of the caller's env except PATH (so node/python3 resolve)."""
    env = {
        "HOME": str(home),
        "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
        "ANTHROPIC_BASE_URL": base_url,
        "ANTHROPIC_API_KEY": api_key,
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }
    for var in ("LANG", "LC_ALL", "TMPDIR"):
        if var in os.environ:
            env[var] = os.environ[var]
    if extra:
        env.update(extra)
    return env


def run_session(
    claude: str | os.PathLike[str],
    project_dir: str | os.PathLike[str],
    *,
    tool_use: Block | list[Block] | None = None,
    script: list[Turn] | None = None,
    user_settings: dict[str, Any] | None = None,
    project_settings: dict[str, Any] | None = None,
    local_settings: dict[str, Any] | None = None,
    home: str | os.PathLike[str] | None = None,
    prompt: str = DEFAULT_PROMPT,
    permission_mode: str | None = None,
    model: str | None = None,
    extra_args: list[str] | tuple[str, ...] = (),
    env_extra: dict[str, str] | None = None,
    api_key: str = "dummy",
    seed_home: bool = True,
    timeout: float = 120.0,
) -> SessionResult:
    """Run ``claude -p PROMPT`` once in ``project_dir`` against a fresh scripted mock.

    ``tool_use``: the assistant's first turn (one block, or a list of blocks for parallel tool
    calls); every later agent request is answered with text "done". ``script`` gives all turns
    explicitly instead. Settings dicts are written to ``<home>/.claude/settings.json`` (user),
    ``<project>/.claude/settings.json`` and ``<project>/.claude/settings.local.json``.
    ``home`` defaults to a temporary directory deleted afterwards (kept if
    ``GATEWAY_REALCLIENT_KEEP=1``).
    """
    if (tool_use is None) == (script is None):
        raise ValueError("give exactly one of tool_use= or script=")
    if script is None:
        blocks = tool_use if isinstance(tool_use, list) else [tool_use]
        script = [list(blocks), [text("done")]]

    project = Path(project_dir).resolve()
    project.mkdir(parents=True, exist_ok=True)
    own_home = home is None
    home_path = (
        Path(tempfile.mkdtemp(prefix="realclient-home-")) if own_home else Path(home).resolve()
    )
    home_path.mkdir(parents=True, exist_ok=True)

    try:
        (home_path / ".claude").mkdir(parents=True, exist_ok=True)
        if user_settings is not None:
            _write_json(home_path / ".claude" / "settings.json", user_settings)
        if project_settings is not None:
            _write_json(project / ".claude" / "settings.json", project_settings)
        if local_settings is not None:
            _write_json(project / ".claude" / "settings.local.json", local_settings)
        if seed_home:
            seed_claude_json(home_path, project, api_key)

        argv = [str(claude), "-p", prompt]
        if permission_mode:
            argv += ["--permission-mode", permission_mode]
        if model:
            argv += ["--model", model]
        argv += list(extra_args)

        with MockAnthropic(script=script) as mock:
            env = clean_env(home_path, mock.base_url, api_key, env_extra)
            t0 = time.monotonic()
            proc = subprocess.Popen(
                argv,
                cwd=project,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                start_new_session=True,  # own process group, so a timeout kills hooks too
            )
            timed_out = False
            try:
                out, err = proc.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                out, err = proc.communicate()
            duration = time.monotonic() - t0
            requests = list(mock.requests)
            results = [
                ToolResult(r["tool_use_id"], r["is_error"], r["text"], r["raw"])
                for r in mock.tool_results()
            ]
            left = mock.remaining
        res = SessionResult(
            returncode=None if timed_out else proc.returncode,
            stdout=out or "",
            stderr=err or "",
            tool_results=results,
            requests=requests,
            project_dir=project,
            home=home_path,
            duration=duration,
            timed_out=timed_out,
            argv=argv,
            script_left=left,
        )
        return res
    finally:
        if own_home:
            if os.environ.get("GATEWAY_REALCLIENT_KEEP") == "1":
                print(f"[realclient] kept HOME {home_path}")
            else:
                shutil.rmtree(home_path, ignore_errors=True)


# --------------------------------------------------------------------------- pytest support


def require_client(version: str = PINNED_VERSION) -> Path:
    """For test modules: the ``claude`` path, or a LOUD module-level skip saying why.

    Call at module level. With ``GATEWAY_REALCLIENT_REQUIRED=1`` (e.g. in a CI job that must
    exercise the real client) an unavailable client fails the run instead of skipping.
    """
    import pytest

    __tracebackhide__ = True  # report the skip at the calling test module
    inst = ensure_client(version)
    if inst:
        assert inst.claude is not None
        return inst.claude
    msg = (
        f"REAL CLAUDE CODE CLIENT UNAVAILABLE - realclient tests were NOT run. {PACKAGE}@{version}: "
        f"{inst.reason}"
    )
    if os.environ.get("GATEWAY_REALCLIENT_REQUIRED") == "1":
        pytest.fail(msg, pytrace=False)
    pytest.skip(reason=msg, allow_module_level=True)
    raise AssertionError("unreachable")
