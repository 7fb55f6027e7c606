"""Containers (gateway.secrets.content.container_secret): an archive, tar or zip, compressed
or not and whatever its name, is judged by its members for every reader that prints its bytes
(cat, strings, od, xxd, grep -a), as `tar xOf` is; listing it (tar -t, unzip -l) prints names
only. Archives of generated members, through the validator's exposure question (the one the
PreToolUse hook asks) and its PermissionRequest judgement."""

import io
import os
import tarfile
import zipfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gateway.settings import SettingsRules
from gateway.validator.pipeline import validate
from tests.property.test_secret_grammar import env_names, near_misses

WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8)
READERS = ("cat {}", "strings {}", "od -c {}", "xxd {}", "grep -a X {}", "head -c 100 {}")
SLOW = settings(max_examples=30, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])


def _archive(path, members, kind):
    if kind == "zip":
        with zipfile.ZipFile(path, "w") as z:
            for name in members:
                z.writestr(name, "x\n")
        return
    mode = {"tar": "w", "tgz": "w:gz", "tbz": "w:bz2"}[kind]
    with tarfile.open(path, mode) as t:
        for name in members:
            data = b"x\n"
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))


def _judge(command, root, policy, exposure):
    return validate(command, root, root, policy, "Bash", SettingsRules(), None,
                    exposure=exposure)


@SLOW
@given(secret=env_names(), dirs=st.lists(WORD, max_size=2), others=st.lists(WORD, max_size=3),
       kind=st.sampled_from(["tar", "tgz", "tbz", "zip"]),
       name=st.sampled_from(["backup.tar", "backup.bin", "data", "site.zip"]),
       reader=st.sampled_from(READERS))
def test_an_archive_holding_a_secret_asks_for_every_reader(policy, tmp_path, secret, dirs,
                                                            others, kind, name, reader):
    root = os.path.realpath(str(tmp_path))
    members = [o + ".txt" for o in others] + ["/".join(dirs + [secret])]
    _archive(os.path.join(root, name), members, kind)
    for exposure in (True, False):
        v = _judge(reader.format(name), root, policy, exposure)
        assert (str(v.decision), v.code) == ("ask", "GW510"), (reader, members, v)
        assert "member" in v.message
    # listing prints names only
    lister = "unzip -l {}" if kind == "zip" else "tar tf {}"
    v = _judge(lister.format(name), root, policy, True)
    assert str(v.decision) == "allow", v


@SLOW
@given(members=st.lists(st.one_of(WORD.map(lambda w: w + ".py"), near_misses()), min_size=1,
                        max_size=5),
       kind=st.sampled_from(["tar", "tgz", "zip"]), reader=st.sampled_from(READERS))
def test_an_archive_of_ordinary_files_stays_allowed(policy, tmp_path, members, kind, reader):
    root = os.path.realpath(str(tmp_path))
    _archive(os.path.join(root, "a.tar"), members, kind)
    v = _judge(reader.format("a.tar"), root, policy, True)
    assert str(v.decision) == "allow", (members, v)
