"""Every "never" of the gateway, proven with the real client and the gateway installed.

Issue 12: with the gateway installed, `cat .env`, `head -1 .env` and the Read tool on `.env`
ran with no dialog in default, acceptEdits and auto mode: the client runs reads by itself
(docs/client-behaviour.md) and a PreToolUse "no decision" let them through. These sessions
run the pinned client (2.1.330) against the scripted mock, in the measurement project of
behaviour.py (marker secrets in `.env`, a committed `config/.env.prod` and `~/.ssh/id_rsa`),
with `gateway install --scope project`, and read what actually happened: the tool_results the
"model" received (no marker secret, verbatim, base64 or hex) and the side effects on disk.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from .behaviour import build_project, find_secrets
from .client import require_client, run_session
from .interactive import run_interactive
from .mock_api import bash, tool_use, write

pytestmark = pytest.mark.realclient

CLAUDE = require_client()
GATEWAY = Path(sys.executable).parent / "gateway"
TOOLS = ["--tools", "Bash,Read,Write,Edit,Grep,Glob"]

#: Reads of secrets the client runs by itself in every mode (measured): each must now be
#: stopped by the gateway's PreToolUse hook, whatever the mode.
SECRET_READS = [
    bash("cat .env"), bash("head -1 .env"), bash("grep -r KEY ."), bash("base64 .env"),
    bash("git show HEAD:config/.env.prod"), bash("git grep KEY"),
    bash("rg --hidden KEY"),
]


class Installed:
    """The measurement project with the gateway installed, and how to run sessions in it."""

    def __init__(self, tmp: Path, early_allow=True):
        self.project, self.home = build_project(tmp)
        self.env = {"XDG_STATE_HOME": str(tmp / "state"), "XDG_CACHE_HOME": str(tmp / "cache"),
                    "XDG_CONFIG_HOME": str(tmp / "config"),
                    "GATEWAY_USER_RULES": str(tmp / "no-user-rules.yaml")}
        args = ["install", "--scope", "project", "--project", str(self.project)]
        if not early_allow:
            args.append("--no-early-allow")
        p = subprocess.run([str(GATEWAY), *args], cwd=self.project, capture_output=True,
                           text=True, timeout=120,
                           env={"HOME": str(self.home), "PATH": os.environ["PATH"], **self.env})
        assert p.returncode == 0, p.stdout + p.stderr

    def run(self, blocks, mode=None, model=None, extra=(), codes=(0,)):
        """`codes`: the client's exit status (1 when auto mode's server check refused a call)."""
        res = run_session(CLAUDE, self.project, home=self.home, tool_use=blocks,
                          permission_mode=mode, model=model, env_extra=self.env,
                          extra_args=[*TOOLS, *extra], timeout=180)
        assert not res.timed_out and res.returncode in codes, res.describe()
        return res

    def interactive(self, blocks, mode=None, answer="no", **kw):
        return run_interactive(CLAUDE, self.project, home=self.home, tool_use=blocks,
                               permission_mode=mode, env_extra=self.env, answer=answer,
                               extra_args=TOOLS, timeout=120, **kw)

    def audit(self) -> list:
        path = Path(self.env["XDG_STATE_HOME"]) / "gateway" / "audit.jsonl"
        return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []

    def roles(self) -> dict:
        path = self.project / ".claude" / "state" / "breezing-session-roles.json"
        return json.loads(path.read_text()) if path.exists() else {}


@pytest.fixture(scope="module")
def box(tmp_path_factory) -> Installed:
    return Installed(tmp_path_factory.mktemp("enforce"))


def _no_secret(res):
    leaked = [(t.text[:200], find_secrets(t.text)) for t in res.tool_results
              if find_secrets(t.text)]
    assert not leaked, leaked


@pytest.mark.parametrize("mode", ["default", "acceptEdits", "plan", "dontAsk"])
def test_no_secret_reaches_the_model_in_print_mode(box, mode):
    reads = SECRET_READS + [
        tool_use("Read", {"file_path": str(box.project / ".env")}),
        tool_use("Read", {"file_path": str(box.home / ".ssh" / "id_rsa")}),
        tool_use("Grep", {"pattern": "KEY", "output_mode": "content"}),
    ]
    res = box.run(reads, mode=mode)
    _no_secret(res)
    assert len(res.tool_results) == len(reads), res.describe()
    # in -p a PreToolUse ask is a refusal whose text is the gateway's reason
    gateway = [t for t in res.tool_results if "gateway GW" in t.text]
    assert len(gateway) == len(reads), res.describe()
    assert all(t.is_error for t in gateway), res.describe()


@pytest.mark.parametrize("mode", ["default", "acceptEdits"])
def test_interactive_sessions_show_the_dialog_for_a_secret_read(box, mode):
    res = box.interactive([bash("cat .env")], mode=mode, answer="no")
    assert res.dialog_shown, res.describe()
    assert "requires confirmation" in res.dialog_text and "GW503" in res.dialog_text, \
        res.describe()
    _no_secret(res)


def test_interactive_read_tool_on_a_secret_shows_the_dialog(box):
    """The client's own Read dialog is drawn (it does not show a hook's reason); the audit
    log says it was the gateway's PreToolUse ask."""
    res = box.interactive([tool_use("Read", {"file_path": str(box.project / ".env")})],
                          mode="default", answer="no")
    assert res.dialog_shown and "Read(" in res.dialog_text, res.describe()
    _no_secret(res)
    asks = [e for e in box.audit() if e["event"] == "PreToolUse" and e["tool"] == "Read"]
    assert asks and (asks[-1]["decision"], asks[-1]["code"]) == ("ask", "GW841"), asks


@pytest.mark.parametrize("model", [None, "claude-sonnet-4-5"])
def test_plan_mode_writes_nothing_without_a_human(tmp_path, model):
    """A PermissionRequest allow in plan mode ran a writing command (sonnet, measured): the
    gateway allows no write in plan mode, whichever hook is asked."""
    b = Installed(tmp_path)
    # the default model sends plan mode's Bash calls to auto mode's server check, which the
    # mock cannot run: the client refuses them and exits 1 (docs/client-behaviour.md)
    res = b.run([bash("touch planned.txt"), bash("mkdir -p planned-dir")], mode="plan",
                model=model, codes=(0, 1))
    assert not (b.project / "planned.txt").exists(), res.describe()
    assert not (b.project / "planned-dir").exists(), res.describe()


def test_accept_edits_runs_the_edits_the_gateway_models(tmp_path):
    """The client asks about `chmod +x` and `ln -s` even in acceptEdits (measured); the
    gateway extends acceptEdits' consent to the edits it models."""
    b = Installed(tmp_path)
    script = b.project / "scripts" / "x.sh"
    assert not script.stat().st_mode & stat.S_IXUSR
    res = b.run([bash("chmod +x scripts/x.sh"), bash("ln -s README.md readme-link")],
                mode="acceptEdits")
    assert script.stat().st_mode & stat.S_IXUSR, res.describe()
    assert (b.project / "readme-link").is_symlink(), res.describe()
    # ... but not a file whose content runs later, which the client itself would write
    res = b.run([bash("echo 'import os' > .venv/lib/python3.11/site-packages/sitecustomize.py"),
                 write(str(b.project / ".venv/lib/python3.11/site-packages/usercustomize.py"),
                       "import os\n")], mode="acceptEdits")
    site = b.project / ".venv/lib/python3.11/site-packages"
    assert not (site / "sitecustomize.py").exists(), res.describe()
    assert not (site / "usercustomize.py").exists(), res.describe()
    assert all("gateway GW836" in t.text for t in res.tool_results), res.describe()


def test_early_allow_works_in_auto_mode(tmp_path):
    """Auto mode never fires PermissionRequest; its classifier is unreachable from the mock, so
    a call it would check is refused. The early allow runs what the validator allows (here the
    project's own script) before the classifier; without it the same call is refused."""
    for early, expect in ((True, True), (False, False)):
        b = Installed(tmp_path / str(early), early_allow=early)
        (b.project / "scripts" / "mark.sh").write_text("touch early.txt\n")
        # a contained script runs unasked only as the HEAD commit holds it (GW782, issue 28)
        git = ["git", "-C", str(b.project), "-c", "user.name=t", "-c", "user.email=t@t"]
        subprocess.run([*git, "init", "-q"], check=True)
        subprocess.run([*git, "add", "scripts/mark.sh"], check=True)
        subprocess.run([*git, "commit", "-qm", "script"], check=True)
        res = b.run([bash("bash scripts/mark.sh")], mode="auto", codes=(0, 1))
        assert (b.project / "early.txt").exists() is expect, (early, res.describe())


def test_a_refused_role_marker_write_registers_nothing(tmp_path):
    """Issue 12: the role was recorded by PreToolUse although the client refused the marker
    Write. In -p default mode the client refuses it (.claude/ is sensitive, nobody to ask):
    nothing is registered. Answered Yes in an interactive session, it is."""
    b = Installed(tmp_path / "p")
    marker = b.project / ".claude" / "state" / "breezing-role-rev.json"
    res = b.run([write(str(marker), json.dumps({"role": "reviewer"}))], mode="default")
    assert not marker.exists(), res.describe()
    assert b.roles() == {}, b.roles()
    i = Installed(tmp_path / "i")
    marker = i.project / ".claude" / "state" / "breezing-role-rev.json"
    res = i.interactive([write(str(marker), json.dumps({"role": "reviewer"}))],
                        mode="default", answer="yes")
    assert marker.exists(), res.describe()
    assert [v["role"] for v in i.roles().values()] == ["reviewer"], i.roles()


@pytest.mark.parametrize("mode", ["default", "acceptEdits", "auto"])
def test_a_rewritten_configuration_is_judged_as_written(tmp_path, mode):
    """Round 21: the hook keeps what tomllib made of pyproject.toml between calls. A rewrite
    that keeps the file's size and modification time must be judged as written: the client
    ran pytest under the benign configuration (the gateway's early allow) and does not run
    it once addopts writes outside the project (PreToolUse asks: in -p a refusal)."""
    b = Installed(tmp_path)
    basetemp = tmp_path / "bt"
    hostile = f"--basetemp={basetemp}"
    benign = "-q" + " " * (len(hostile) - 2)  # the same words as `-q`, the same size
    config = '[tool.pytest.ini_options]\ntestpaths = ["tests"]\naddopts = "{}"\n'
    (b.project / "tests").mkdir()
    (b.project / "tests" / "test_a.py").write_text("def test_a():\n    pass\n")
    cfg = b.project / "pyproject.toml"
    cfg.write_text(config.format(benign))
    # python3 with pytest: the interpreter running this suite
    b.env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    call = [bash("python3 -m pytest -p no:cacheprovider")]
    res = b.run(call, mode=mode, codes=(0, 1))
    assert "1 passed" in res.tool_results[0].text, res.describe()
    before = os.stat(cfg)
    cfg.write_text(config.format(hostile))
    os.utime(cfg, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(cfg).st_size == before.st_size
    res = b.run(call, mode=mode, codes=(0, 1))
    assert not basetemp.exists(), res.describe()
    assert "passed" not in res.tool_results[0].text, res.describe()
    asks = [(e["decision"], e["code"]) for e in b.audit()
            if e["event"] == "PreToolUse" and e["tool"] == "Bash"]
    assert asks[0] == ("allow", "GW700") and asks[-1] == ("ask", "GW840"), asks


def test_your_allow_rule_runs_a_program_the_gateway_does_not_model(tmp_path):
    """Issue 25: with `Bash(tox:*)` in the committed settings, `tox -e py311` asked (GW840:
    what tox reads is unknown) in every mode. The user's allow rule is theirs to give for a
    program the rules do not model: PreToolUse leaves it to the client, which runs it. A
    secret named in its arguments still asks, and without the rule the client asks (-p: a
    refusal)."""
    b = Installed(tmp_path)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    # inside the project: install turns the client's Bash sandbox on where it can start, and
    # a write outside the project then fails (Read-only file system)
    ran = b.project / "tox-ran.txt"
    (bindir / "tox").write_text(f'#!/bin/sh\necho "$*" >> {ran}\n')
    (bindir / "tox").chmod(0o755)
    b.env["PATH"] = f"{bindir}:{os.environ['PATH']}"
    settings_path = b.project / ".claude" / "settings.json"
    res = b.run([bash("tox -e py311")], mode="default")
    assert not ran.exists(), res.describe()  # no rule: the client asks, -p refuses
    settings = json.loads(settings_path.read_text())
    settings.setdefault("permissions", {})["allow"] = ["Bash(tox:*)"]
    settings_path.write_text(json.dumps(settings, indent=2))
    for mode in ("default", "acceptEdits"):
        res = b.run([bash("tox -e py311"), bash("tox -e py311 -c .env")], mode=mode)
        assert ran.read_text().splitlines() == ["-e py311"], res.describe()
        assert any("gateway GW503" in t.text for t in res.tool_results), res.describe()
        ran.unlink()
