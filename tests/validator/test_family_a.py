"""Family A of issue 13: archives judged member by member, ripgrep's ignore-file
whitelists, brace expansion and parameter expansion as bash performs them.

Each test builds what it needs in a temporary project and asserts the exact decision and
reason code."""

import io
import os
import subprocess
import tarfile
import zipfile

import pytest
from helpers import search_code

from gateway.decision import ALLOW, ASK


@pytest.fixture()
def proj(tmp_path):
    root = os.path.realpath(str(tmp_path / "p"))
    os.makedirs(os.path.join(root, "src"))
    os.makedirs(os.path.join(root, ".git", "hooks"))
    with open(os.path.join(root, "src", "a.py"), "w") as fh:
        fh.write("x = 1\n")
    with open(os.path.join(root, ".env"), "w") as fh:
        fh.write("KEY=1\n")

    def tar(name, members):
        with tarfile.open(os.path.join(root, name), "w") as t:
            for mname, text, link in members:
                info = tarfile.TarInfo(mname)
                if link is not None:
                    info.type = tarfile.SYMTYPE
                    info.linkname = link
                    t.addfile(info)
                else:
                    info.size = len(text)
                    t.addfile(info, io.BytesIO(text))

    tar("ok.tar", [("pkg/a.txt", b"a\n", None), ("pkg/b.txt", b"b\n", None)])
    tar("surface.tar", [("pkg/a.txt", b"a\n", None),
                        (".claude/settings.json", b"{}\n", None)])
    tar("escape.tar", [("../evil.txt", b"x\n", None)])
    tar("link.tar", [("out", b"", "/etc"), ("out/passwd", b"x\n", None)])
    tar("secret.tar", [("conf/.env", b"KEY=2\n", None)])
    with zipfile.ZipFile(os.path.join(root, "ok.zip"), "w") as z:
        z.writestr("pkg/c.txt", "c\n")
    with zipfile.ZipFile(os.path.join(root, "hooks.zip"), "w") as z:
        z.writestr(".git/hooks/pre-commit", "#!/bin/sh\n")
    return root


def _judge(policy, command, root, mode=None):
    from gateway.settings import SettingsRules
    from gateway.validator.pipeline import validate

    return validate(command, root, root, policy, "Bash", SettingsRules(), mode=mode)


@pytest.mark.parametrize("command,mode,decision,code", [
    ("tar tf ok.tar", None, ALLOW, "GW700"),
    ("tar xf ok.tar", None, ASK, "GW721"),
    ("tar xf ok.tar", "acceptEdits", ALLOW, "GW700"),
    ("tar xf ok.tar -C src", "acceptEdits", ALLOW, "GW700"),
    ("tar xf surface.tar", "acceptEdits", ASK, "GW504"),
    ("tar xf escape.tar", "acceptEdits", ASK, "GW501"),
    ("tar xf link.tar", "acceptEdits", ASK, "GW501"),
    ("tar xOf secret.tar", None, ASK, "GW503"),
    ("tar xf ok.tar -C /opt", "acceptEdits", ASK, "GW501"),  # (/tmp holds the suite's cache)
    ("tar xf missing.tar", "acceptEdits", ASK, "GW712"),
    ("tar xf - ", "acceptEdits", ASK, "GW712"),
    ("tar cf new.tar src", None, ALLOW, "GW700"),
    ("tar cf new.tar .", None, ASK, "GW506"),
    ("tar rf ok.tar src", None, ASK, "GW721"),
    ("tar cf ok.tar -C / etc", None, ASK, "GW501"),
    ("unzip -l ok.zip", None, ALLOW, "GW700"),
    ("unzip ok.zip", None, ASK, "GW721"),
    ("unzip ok.zip -d src", "acceptEdits", ALLOW, "GW700"),
    ("unzip hooks.zip", "acceptEdits", ASK, "GW504"),
    ("zip new.zip src/a.py", None, ALLOW, "GW700"),
    ("zip -r new.zip .", None, ASK, "GW506"),
    ("zip -m new.zip src/a.py", None, ASK, "GW721"),
])
def test_archives(policy, proj, command, mode, decision, code):
    v = _judge(policy, command, proj, mode)
    assert (v.decision, v.code) == (decision, code), (command, mode, v.message)


def test_rg_reads_hidden_files_an_ignore_file_whitelists(policy, proj):
    os.makedirs(os.path.join(proj, "vendor"))
    with open(os.path.join(proj, "vendor", ".npmrc"), "w") as fh:
        fh.write("//r/:_authToken=t\n")
    v = _judge(policy, "rg authToken vendor", proj)
    assert (v.decision, v.code) == (ALLOW, "GW700"), v.message  # hidden: ripgrep skips it
    for where, name in (("vendor", ".ignore"), ("vendor", ".rgignore"), ("", ".gitignore")):
        path = os.path.join(proj, where, name)
        with open(path, "w") as fh:
            fh.write("!.npmrc\n")
        v = _judge(policy, "rg authToken vendor", proj)
        assert (v.decision, v.code) == (ASK, search_code("GW506~rg")), (name, v.message)
        os.remove(path)
    v = _judge(policy, "rg -uu authToken vendor", proj)
    assert (v.decision, v.code) == (ASK, search_code("GW506~rg")), v.message


@pytest.mark.parametrize("word", ["{a,b}", "x{1..3}", "{01..10..3}", "a{b,c{d,e}}f",
                                  "{a..e..2}", "{}", "{a}", "x{,y}z", "{1..2}{a,b}",
                                  "{z..u..2}", "{-2..2}", "a\\{b,c}", "{a,b\\,c}"])
def test_brace_expansion_matches_bash(word):
    from gateway.shell import expand
    from gateway.shell.words import decode

    got = [expand.unescape(p) for p in expand.braces(decode(word).pattern)]
    out = subprocess.run(["bash", "-c", f"printf '%s\\0' {word}"], capture_output=True)
    assert got == [w for w in out.stdout.decode().split("\0") if w], word


@pytest.mark.parametrize("word", ['"${HOME:?}"', "${HOME%/}", '"$HOME"/.cache', "${X:-/}",
                                  '"${HOME%%/*}/"', "${HOME#/}", "${P//\\//_}",
                                  "${P/#\\/usr/x}", "${P%%/*}", '"${E:-$HOME}"', "${HOME:0:2}",
                                  "${#P}", "${P^^}", '"${U-x}"', "'$HOME'", "${P##*/}",
                                  "${E:+yes}x", '"$X"'])
def test_parameter_expansion_matches_bash(word):
    from gateway.shell import params

    env = {"HOME": "/root", "X": "a b", "E": "", "P": "/usr/local/bin"}
    got = params.values(word, env, "/root")
    out = subprocess.run(["env", "-i", *(f"{k}={v}" for k, v in env.items()), "bash", "-c",
                          f"printf '%s\\0' {word}"], capture_output=True)
    real = [w for w in out.stdout.decode().split("\0")]
    real = real[:-1] if real and real[-1] == "" else real
    # one string per word bash passes (an unquoted expansion also gives its fields)
    assert set(real) <= set(got), (word, got, real)
    assert got[0] == " ".join(real) or got[0] in real, (word, got, real)
