"""Containers by content (issue 24), through the real hook commands, sandbox on and off.

A credential under an ordinary name, archived or compressed (`backup.tar` holding
deploy/prod.ini, `prod.ini.gz`), was printed with no dialog: `tar xOf backup.tar`,
`unzip -p`, `strings`, `cat`, `grep -a` were allowed (GW700: the members were judged by name
only), and with the sandbox installed `zcat prod.ini.gz` ran by the client's own read-only
rule (the sandbox hides by name only). Each form's effect is proven in real bash (the marker
is printed); the hooks must ask GW510 in PreToolUse. Generated formats, member names,
container kinds and readers are the neighbours.
"""

import bz2
import gzip
import io
import json
import lzma
import os
import subprocess
import tarfile
import zipfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SESSION = "2b3c4d5e-6f70-4182-93a4-b5c6d7e8f901"
AWS = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYAWSMARKER1"
SECRET_TEXT = f"[default]\naws_secret_access_key = {AWS}\n".encode()
CLEAN_TEXT = b"[default]\nregion = eu-west-1\n"


def _container(path, kind, member, data):
    if kind == "zip":
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr(member, data)
    elif kind in ("tar", "tgz", "tbz", "txz"):
        mode = {"tar": "w", "tgz": "w:gz", "tbz": "w:bz2", "txz": "w:xz"}[kind]
        with tarfile.open(path, mode) as t:
            info = tarfile.TarInfo(member)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    else:
        opener = {"gz": gzip.open, "bz2": bz2.open, "xz": lzma.open}[kind]
        with opener(path, "wb") as fh:
            fh.write(data)


def _project(root, sandbox):
    os.makedirs(os.path.join(root, ".claude"))
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    with open(os.path.join(root, "README.md"), "w") as fh:
        fh.write("# demo: set your password in the settings\n")
    return root


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    home = tmp_path_factory.mktemp("container-home")
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
            "GATEWAY_USER_RULES": str(home / "none.yaml"),
            "GATEWAY_CACHE_DIR": str(tmp_path_factory.mktemp("container-cache")),
            "GATEWAY_AUDIT_LOG": "off", "CLAUDE_CONFIG_DIR": str(home / ".claude"),
            "LANG": "C.UTF-8", "SHELL": "/bin/bash"}


def _install(gateway_exe, env, root, sandbox):
    args = [gateway_exe, "install", "--project", root] + (["--sandbox"] if sandbox else
                                                          ["--no-sandbox"])
    p = subprocess.run(args, env=dict(env, CLAUDE_PROJECT_DIR=root), capture_output=True,
                       text=True, cwd=root)
    assert p.returncode == 0, p.stdout + p.stderr


@pytest.fixture(scope="module", params=[True, False], ids=["sandbox", "no-sandbox"])
def proj(request, tmp_path_factory, gateway_exe, env):
    root = _project(str(tmp_path_factory.mktemp("container") / "proj"), request.param)
    _install(gateway_exe, env, root, request.param)
    for kind, name in (("tar", "backup.tar"), ("tgz", "backup.tgz"), ("zip", "backup.zip"),
                       ("gz", "prod.ini.gz"), ("bz2", "prod.ini.bz2"), ("xz", "prod.ini.xz"),
                       ("gz", "notes.dat")):
        _container(os.path.join(root, name), kind, "deploy/prod.ini", SECRET_TEXT)
    _container(os.path.join(root, "clean.tar"), "tar", "deploy/prod.ini", CLEAN_TEXT)
    _container(os.path.join(root, "clean.gz"), "gz", "prod.ini", CLEAN_TEXT)
    return root


def hook(gateway_exe, env, command, cwd, mode="default"):
    data = {"session_id": SESSION, "transcript_path": "/tmp/t.jsonl", "cwd": cwd,
            "permission_mode": mode, "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": command}, "tool_use_id": "toolu_1"}
    proc = subprocess.run([gateway_exe, "hook", "pre-tool-use"],
                          input=json.dumps(data).encode(), capture_output=True,
                          env=dict(env, CLAUDE_PROJECT_DIR=cwd), timeout=60)
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout.decode().strip()
    if not text:
        return None, None
    out = json.loads(text)["hookSpecificOutput"]
    reason = out["permissionDecisionReason"]
    return out["permissionDecision"], reason.split(":", 1)[0].replace("gateway ", "")


PRINTS_IT = ["tar xOf backup.tar", "tar -xOzf backup.tgz", "unzip -p backup.zip",
             "strings backup.tar", "cat backup.tar", "grep -a aws backup.tar",
             "od -c backup.tar", "zcat prod.ini.gz", "zcat notes.dat", "bzcat prod.ini.bz2",
             "xzcat prod.ini.xz", "zcat < prod.ini.gz", "zgrep aws prod.ini.gz",
             "zcat *.gz"]


@pytest.mark.parametrize("command", PRINTS_IT)
def test_each_form_really_prints_it(proj, command):
    out = subprocess.run(["bash", "-c", command], cwd=proj, capture_output=True).stdout
    flat = out.replace(b"\n", b"").replace(b" ", b"")
    assert AWS.encode() in out or (command.startswith("od") and b"M" in flat), command


@pytest.mark.parametrize("mode", ["default", "acceptEdits"])
@pytest.mark.parametrize("command", PRINTS_IT)
def test_a_container_holding_a_credential_asks(gateway_exe, env, proj, command, mode):
    decision, code = hook(gateway_exe, env, command, proj, mode)
    assert decision == "ask", (command, decision, code)
    # the sandbox case for the unmodelled readers (zcat...) is the named-file check;
    # without the sandbox they ask as unmodelled programs (GW840) before any content
    assert code == "GW510" or (code == "GW840" and command.split()[0] in (
        "zcat", "bzcat", "xzcat", "zgrep")), (command, code)


def test_without_the_sandbox_unmodelled_readers_ask_gw840_with_it_gw510(gateway_exe, env,
                                                                       proj):
    sandboxed = "sandbox" in json.load(open(os.path.join(proj, ".claude", "settings.json")))
    assert hook(gateway_exe, env, "zcat prod.ini.gz", proj) == \
        ("ask", "GW510" if sandboxed else "GW840")


@pytest.mark.parametrize("command", ["tar xOf clean.tar", "tar tf backup.tar",
                                     "unzip -l backup.zip", "cat README.md"])
def test_clean_containers_and_listings_stay_allowed(gateway_exe, env, proj, command):
    assert hook(gateway_exe, env, command, proj) == ("allow", "GW700")


# --- neighbours ----------------------------------------------------------------------------

_KINDS = st.sampled_from(["tar", "tgz", "tbz", "txz", "zip"])
_MEMBERS = st.sampled_from(["deploy/prod.ini", "config/app.yaml", "notes.txt", "a/b/c.json",
                            "settings.py"])
_SECRETS = st.sampled_from([
    f"aws_secret_access_key = {AWS}\n", "github_token: ghp_" + "Zq7" * 12 + "\n",
    '{"password": "Zx9!qT7#mK2$vB8pL"}\n', "export API_KEY=\"sk-ant-api03-" + "a1B2" * 20 + "\"\n",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----\n"])
_NAMES = st.sampled_from(["backup.tar", "site.bin", "data", "old.zip", "x.tgz"])
_READERS = st.sampled_from(["cat {}", "strings {}", "grep -a a {}", "head -c 4000 {}",
                            "xxd {}"])


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=_KINDS, member=_MEMBERS, secret=_SECRETS, name=_NAMES, reader=_READERS)
def test_generated_containers_ask_for_every_reader(gateway_exe, env, proj, kind, member,
                                                    secret, name, reader, tmp_path_factory):
    root = _project(str(tmp_path_factory.mktemp("gen") / "p"), False)
    _container(os.path.join(root, name), kind, member, secret.encode())
    assert hook(gateway_exe, env, reader.format(name), root) == ("ask", "GW510"), \
        (kind, member, secret[:20], name, reader)


# --- the closed gap: an unquoted credential assignment in a source file ---------------------
# detect-secrets' AWS and keyword rules want a quoted value in a .py file, so
# `aws_secret_access_key = <40 characters>` there (or archived) was read with no dialog
# (GW700) while the same line in a .ini file asked; the gateway's own
# CredentialAssignmentDetector (gateway/secrets/plugins.py) takes it, quoted or not.

UNQUOTED = f"import os\n\nREGION = 'eu-west-1'\naws_secret_access_key = {AWS}\n"
REFERENCE = "import os\n\naws_secret_access_key = os.environ['AWS_SECRET_ACCESS_KEY']\n"


def _hook_tool(gateway_exe, env, tool, tool_input, cwd):
    data = {"session_id": SESSION, "transcript_path": "/tmp/t.jsonl", "cwd": cwd,
            "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": tool,
            "tool_input": tool_input, "tool_use_id": "toolu_2"}
    proc = subprocess.run([gateway_exe, "hook", "pre-tool-use"],
                          input=json.dumps(data).encode(), capture_output=True,
                          env=dict(env, CLAUDE_PROJECT_DIR=cwd), timeout=60)
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout.decode().strip()
    if not text:
        return None, None
    out = json.loads(text)["hookSpecificOutput"]
    return (out["permissionDecision"],
            out["permissionDecisionReason"].split(":", 1)[0].replace("gateway ", ""))


@pytest.fixture(scope="module")
def pyproj(tmp_path_factory, gateway_exe, env):
    root = _project(str(tmp_path_factory.mktemp("unquoted") / "proj"), False)
    _install(gateway_exe, env, root, False)
    with open(os.path.join(root, "settings.py"), "w") as fh:
        fh.write(UNQUOTED)
    with open(os.path.join(root, "conf.py"), "w") as fh:
        fh.write(REFERENCE)
    _container(os.path.join(root, "backup.tar"), "tar", "app/settings.py", UNQUOTED.encode())
    _container(os.path.join(root, "clean.tar"), "tar", "app/conf.py", REFERENCE.encode())
    return root


@pytest.mark.parametrize("command", ["cat settings.py", "head -5 settings.py",
                                     "grep aws settings.py", "cat backup.tar",
                                     "tar xOf backup.tar", "strings backup.tar"])
def test_an_unquoted_key_line_in_a_source_file_asks_gw510(gateway_exe, env, pyproj, command):
    out = subprocess.run(["bash", "-c", command], cwd=pyproj, capture_output=True).stdout
    assert AWS.encode() in out, command  # the form really prints it
    assert hook(gateway_exe, env, command, pyproj) == ("ask", "GW510"), command


def test_the_read_tool_on_it_asks(gateway_exe, env, pyproj):
    assert _hook_tool(gateway_exe, env, "Read", {"file_path": os.path.join(pyproj,
                                                                           "settings.py")},
                      pyproj) == ("ask", "GW841")


def test_the_grep_tool_over_it_asks(gateway_exe, env, pyproj):
    assert _hook_tool(gateway_exe, env, "Grep", {"pattern": "aws", "path": pyproj,
                                                 "output_mode": "content"},
                      pyproj) == ("ask", "GW842")


@pytest.mark.parametrize("command", ["cat conf.py", "tar xOf clean.tar", "cat README.md"])
def test_a_reference_to_the_environment_stays_allowed(gateway_exe, env, pyproj, command):
    assert hook(gateway_exe, env, command, pyproj) == ("allow", "GW700"), command


def test_the_read_tool_on_a_reference_gets_no_ask(gateway_exe, env, pyproj):
    assert _hook_tool(gateway_exe, env, "Read", {"file_path": os.path.join(pyproj,
                                                                           "conf.py")},
                      pyproj) == (None, None)


# --- containers inside containers (gateway.secrets.members) --------------------------------

@pytest.fixture(scope="module")
def nested(tmp_path_factory, gateway_exe, env):
    root = _project(str(tmp_path_factory.mktemp("nested") / "proj"), False)
    _install(gateway_exe, env, root, False)
    inner_tar = os.path.join(root, "inner.tar")
    _container(inner_tar, "tar", "deploy/prod.ini", SECRET_TEXT)
    inner_zip = os.path.join(root, "inner.zip")
    _container(inner_zip, "zip", "deploy/prod.ini", SECRET_TEXT)
    with open(inner_tar, "rb") as fh:
        _container(os.path.join(root, "outer.tgz"), "tgz", "old/inner.tar", fh.read())
    with open(inner_zip, "rb") as fh:
        _container(os.path.join(root, "outer.tar"), "tar", "old/inner.zip", fh.read())
    os.unlink(inner_tar)
    os.unlink(inner_zip)
    return root


@pytest.mark.parametrize("command", ["tar xOzf outer.tgz", "cat outer.tgz", "cat outer.tar",
                                     "tar xOf outer.tar", "strings outer.tar"])
def test_a_credential_in_a_nested_archive_asks_gw510(gateway_exe, env, nested, command):
    assert hook(gateway_exe, env, command, nested) == ("ask", "GW510"), command


def test_a_nested_archive_really_holds_it(nested):
    out = subprocess.run(["bash", "-c", "tar xOzf outer.tgz | tar xO"], cwd=nested,
                         capture_output=True).stdout
    assert AWS.encode() in out


def test_session_start_warms_a_cold_content_scanner(gateway_exe, env, tmp_path):
    """A cold cache: SessionStart starts the scanner's worker in the background, which writes
    the prefilter before the session's first read needs it (the known cold-first-scan gap)."""
    import time

    root = _project(str(tmp_path / "p"), False)
    cache = tmp_path / "cold-cache"
    e = dict(env, GATEWAY_CACHE_DIR=str(cache), CLAUDE_PROJECT_DIR=root)
    data = {"session_id": SESSION, "transcript_path": "/tmp/t.jsonl", "cwd": root,
            "hook_event_name": "SessionStart", "source": "startup"}
    proc = subprocess.run([gateway_exe, "hook", "session-start"],
                          input=json.dumps(data).encode(), capture_output=True, env=e,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    found = []
    for _ in range(120):
        found = list((cache / "scan").glob("*.prefilter")) if (cache / "scan").is_dir() else []
        if found:
            break
        time.sleep(0.5)
    assert found, "the prefilter was not written after SessionStart"
    assert found[0].read_text().startswith("gateway-prefilter 1\n")
