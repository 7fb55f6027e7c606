"""Issue 24 with the real client (2.1.330, scripted mock) and the gateway installed: the
client's own login token, a file whose content is a credential, an env file in a spelling no
list held, an archive holding a secret, and the client's own `grep` (its embedded ugrep,
where -y prints every line) reach the model only with a human's yes; in print mode an ask is
a refusal whose text is the gateway's reason. The client alone (no gateway) is measured in
the same module for docs/client-behaviour.md: its Read of ~/.claude/.credentials.json and its
`grep -ry` ran with no dialog."""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

import pytest

from .behaviour import build_project
from .client import require_client, run_session
from .mock_api import bash, tool_use
from .test_enforcement import Installed

pytestmark = pytest.mark.realclient

CLAUDE = require_client()
TOOLS = ["--tools", "Bash,Read,Write,Edit,Grep,Glob"]
TOKEN = "sk-ant-oat01-CREDMARKER321"
AWS = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYAWSMARKER1"
LOCAL = "LOCALMARKER654"
TARRED = "TARMARKER987"
MARKERS = (TOKEN, AWS, LOCAL, TARRED, "sk-PRODMARKER456", "sk-MARKER123")


def _seed(project: Path, home: Path):
    (home / ".claude").mkdir(exist_ok=True)
    (home / ".claude" / ".credentials.json").write_text(
        json.dumps({"claudeAiOauth": {"accessToken": TOKEN}}) + "\n")
    (project / "deploy").mkdir(exist_ok=True)
    (project / "deploy" / "settings.ini").write_text(
        f"[default]\naws_access_key_id = AKIAIOSFODNN7ZZZZZZZ\naws_secret_access_key = {AWS}\n")
    (project / ".env-local").write_text(f"TOKEN={LOCAL}\n")
    data = f"SECRET={TARRED}\n".encode()
    with tarfile.open(project / "backup.tar", "w") as tf:
        info = tarfile.TarInfo(".env")
        info.size = len(data)
        tf.addfile(info, io.BytesIO(data))


def _leaks(res):
    return [(t.text[:160], m) for t in res.tool_results for m in MARKERS if m in t.text]


@pytest.fixture(scope="module")
def box(tmp_path_factory) -> Installed:
    b = Installed(tmp_path_factory.mktemp("by-what"))
    _seed(b.project, b.home)
    return b


def _reads(box):
    return [
        tool_use("Read", {"file_path": str(box.home / ".claude" / ".credentials.json")}),
        tool_use("Read", {"file_path": str(box.project / "deploy" / "settings.ini")}),
        bash("head -3 deploy/settings.ini"),
        bash("cat .env-local"),
        bash("strings backup.tar"),
        bash("grep -ry zzqq ."),
    ]


def test_the_client_grep_y_asks_with_the_default_tools(box):
    """With the client's default tool list (no Grep tool) the Bash tool's grep is ugrep."""
    res = run_session(CLAUDE, box.project, home=box.home, tool_use=[bash("grep -ry zzqq .")],
                      permission_mode="default", env_extra=box.env,
                      extra_args=["--tools", "Bash,Read"], timeout=180)
    assert not res.timed_out, res.describe()
    assert not _leaks(res), res.describe()
    assert ["gateway GW506" in t.text for t in res.tool_results] == [True], res.describe()


@pytest.mark.parametrize("mode", ["default", "plan", "dontAsk"])
def test_no_secret_by_name_content_container_or_client_grep_reaches_the_model(box, mode):
    reads = _reads(box)
    res = box.run(reads, mode=mode)
    assert not _leaks(res), res.describe()
    assert len(res.tool_results) == len(reads), res.describe()
    gateway = [t for t in res.tool_results if "gateway GW" in t.text]
    assert len(gateway) == len(reads), res.describe()
    # the results come back in the order the calls finished
    codes = sorted(t.text.split("gateway ", 1)[1][:5] for t in gateway)
    assert codes == sorted(["GW841", "GW841", "GW510", "GW503", "GW510", "GW506"]), codes


def test_auto_mode_asks_before_its_classifier(box):
    """The Read of the client's credential file ran by itself in auto mode (issue 24);
    PreToolUse asks before the classifier (which the mock cannot run: exit 1 allowed)."""
    res = box.run(_reads(box)[:2], mode="auto", codes=(0, 1))
    assert not _leaks(res), res.describe()
    assert all("gateway GW841" in t.text for t in res.tool_results), res.describe()


def test_ordinary_reads_still_run(box):
    res = box.run([bash("cat README.md"), bash("grep -rn zzqq ."),
                   tool_use("Read", {"file_path": str(box.project / "app.py")})],
                  mode="default")
    assert not any("gateway GW" in t.text and "GW700" not in t.text
                   for t in res.tool_results), res.describe()
    assert any("a sample" in t.text for t in res.tool_results), res.describe()
    # gateway install turns on the client's Bash sandbox (issue 23): a recursive grep then
    # exits 2, warning about what the sandbox hides or protects, and still searches the rest
    for t in res.tool_results:
        if t.is_error:
            lines = [ln for ln in t.text.splitlines()[1:] if ln.strip()]
            assert t.text.startswith("Exit code 2") and all(
                "Permission denied" in ln for ln in lines), res.describe()


def test_the_client_alone_runs_these_reads(tmp_path):
    """The client's own behaviour (no gateway), for docs/client-behaviour.md: its Read of
    its own credential file runs by itself in plan mode, and its grep (ugrep) -y prints every
    line of a committed secret in default mode (plan mode sends Bash to auto mode's check,
    which the mock cannot run)."""
    project, home = build_project(tmp_path)
    _seed(project, home)
    res = run_session(CLAUDE, project, home=home, permission_mode="plan",
                      tool_use=[tool_use("Read", {"file_path": str(home / ".claude" /
                                                                  ".credentials.json")})],
                      extra_args=TOOLS, timeout=180)
    assert not res.timed_out, res.describe()
    assert any(TOKEN in t.text for t in res.tool_results), res.describe()
    # the client asks about `grep -ry` itself ("This command requires approval"): the user's
    # allow rule pre-approves it, as the gateway's early allow did before issue 24. The
    # client defines its grep function only when its Grep tool is off (the default tool
    # list): with Grep in --tools the Bash tool runs GNU grep
    project, home = build_project(tmp_path / "grep")
    res = run_session(CLAUDE, project, home=home, permission_mode="default",
                      tool_use=[bash("grep -ry zzqq ."), bash("/usr/bin/grep -ry zzqq .")],
                      extra_args=["--tools", "Bash,Read", "--allowedTools", "Bash"],
                      timeout=180)
    assert not res.timed_out, res.describe()
    texts = [t.text for t in res.tool_results]
    # the client's grep printed the committed secret; GNU grep (by its path) printed nothing
    assert sum("sk-PRODMARKER456" in t for t in texts) == 1, res.describe()


SCRUBBED = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYSCRUBBED2"
MEMBER = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYMEMBERED3"


@pytest.mark.parametrize("mode", ["default", "acceptEdits"])
def test_git_history_and_archive_members_by_content_reach_no_model(tmp_path, mode):
    """A credential under an ordinary name, committed then scrubbed, and one archived in a
    tar and gzipped: `git show HEAD~1:...`, `git log -p`, `tar xOf`, `zcat` (which the
    client itself runs as a read-only command) printed them with no dialog before; with the
    gateway installed (sandbox on) each is refused in print mode."""
    import gzip
    import subprocess

    box = Installed(tmp_path / "hist")
    p = box.project
    (p / "deploy").mkdir(exist_ok=True)
    old = p / "deploy" / "old.ini"
    old.write_text(f"[default]\naws_secret_access_key = {SCRUBBED}\n")
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run(git + ["add", "deploy/old.ini"], cwd=p, check=True)
    subprocess.run(git + ["commit", "-qm", "add"], cwd=p, check=True)
    old.write_text("[default]\nregion = eu-west-1\n")
    subprocess.run(git + ["commit", "-qam", "scrub"], cwd=p, check=True)
    data = f"[default]\naws_secret_access_key = {MEMBER}\n".encode()
    with tarfile.open(p / "site.tar", "w") as tf:
        info = tarfile.TarInfo("deploy/prod.ini")
        info.size = len(data)
        tf.addfile(info, io.BytesIO(data))
    with gzip.open(p / "prod.ini.gz", "wb") as fh:
        fh.write(data)
    cmds = ["git show HEAD~1:deploy/old.ini", "git log -p -- deploy", "tar xOf site.tar",
            "zcat prod.ini.gz"]
    res = box.run([bash(c) for c in cmds], mode=mode)
    texts = [t.text for t in res.tool_results]
    assert len(texts) == len(cmds), res.describe()
    assert not any(SCRUBBED in t or MEMBER in t for t in texts), res.describe()
    # zcat is an unmodelled reader: this project's history also holds config/.env.prod,
    # which the sandbox cannot hide, so it asks GW840 before any content check
    # (GW511 where the scanner's first run on a loaded machine outlasts its time limit: a
    # refusal too, and the same call a moment later finds the verdict)
    codes = sorted(t.split("gateway ", 1)[1][:5].replace("GW511", "GW510") for t in texts
                   if "gateway GW" in t)
    assert codes == ["GW510", "GW510", "GW510", "GW840"], res.describe()


UNNAMED = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYUNNAMED44"


@pytest.mark.parametrize("mode", ["default", "acceptEdits"])
def test_readers_of_files_they_do_not_name_reach_no_model(tmp_path, mode):
    """With the sandbox on (gateway install) a reader the gateway cannot model was left to
    the OS, which hides by name only: `find -exec cat {} +` (no start directory), `cat
    $(git ls-files)`, a `while read` loop over ls printed config/settings.ini's credential.
    Now each is refused in print mode (GW510 by content; the project's own history holds
    config/.env.prod, which the sandbox cannot hide: GW840 may decide first)."""
    box = Installed(tmp_path / "unnamed")
    # the user's own setting under which the client runs what PreToolUse leaves alone with
    # no dialog and no PermissionRequest (reference §16)
    sp = box.project / ".claude" / "settings.json"
    data = json.loads(sp.read_text())
    data["sandbox"]["autoAllowBashIfSandboxed"] = True
    sp.write_text(json.dumps(data))
    (box.project / "config").mkdir(exist_ok=True)
    (box.project / "config" / "settings.ini").write_text(
        f"[default]\naws_secret_access_key = {UNNAMED}\n")
    cmds = ["cat $(find . -name '*.ini')",
            'ls -d config/* | while read f; do cat "$f"; done']
    res = box.run([bash(c) for c in cmds], mode=mode)
    texts = [t.text for t in res.tool_results]
    assert len(texts) == len(cmds), res.describe()
    assert not any(UNNAMED in t for t in texts), res.describe()
    codes = [t.split("gateway ", 1)[1][:5] for t in texts if "gateway GW" in t]
    assert len(codes) == len(cmds) and set(codes) <= {"GW510", "GW840", "GW511"}, \
        res.describe()


def test_edit_of_a_content_secret_shows_no_line_in_accept_edits(tmp_path):
    """Measured (2.1.330): the client's Edit result in acceptEdits says only that the file was
    updated; no line of it (the credential beside the edit) reaches the model."""
    box = Installed(tmp_path / "edit")
    (box.project / "config").mkdir(exist_ok=True)
    f = box.project / "config" / "settings.ini"
    f.write_text(f"[default]\nregion = x\naws_secret_access_key = {UNNAMED}\n")
    res = box.run([tool_use("Edit", {"file_path": str(f), "old_string": "region = x",
                                     "new_string": "region = y"})], mode="acceptEdits")
    assert not any(UNNAMED in t.text for t in res.tool_results), res.describe()
