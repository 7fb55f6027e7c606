"""Containers inside containers (gateway.secrets.members): a tar inside a tar.gz, a zip
inside a tar, a gzipped file inside a zip. A reader of the outer archive's bytes, or of its
members (`tar xOf`, `unzip -p`), prints the nested members too once they are unpacked (and
`cat outer.tar` prints an inner plain tar verbatim), so the nested members are judged by
name and by content like the outer ones, to MAX_DEPTH levels; deeper, or bigger than
MAX_NESTED, the read asks (GW511: could not be checked) - fail closed, never an allow.
Generated nestings through the validator (the question the PreToolUse hook asks)."""

import gzip
import io
import lzma
import os
import tarfile
import zipfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gateway.secrets import members
from gateway.settings import SettingsRules
from gateway.validator.pipeline import validate

AWS = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYNESTED01"
SECRET = f"[default]\naws_secret_access_key = {AWS}\n".encode()
CLEAN = b"[default]\nregion = eu-west-1\n"
KINDS = ["tar", "tgz", "tbz", "txz", "zip", "gz"]
EXT = {"tar": ".tar", "tgz": ".tar.gz", "tbz": ".tar.bz2", "txz": ".tar.xz", "zip": ".zip",
       "gz": ".gz"}
SLOW = settings(max_examples=25, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])


def pack(kind, name, data):
    """The bytes of a container of `kind` holding one member `name` with `data`."""
    buf = io.BytesIO()
    if kind == "zip":
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("readme.txt", "hello\n")
            z.writestr(name, data)
        return buf.getvalue()
    if kind == "gz":
        return gzip.compress(data)
    mode = {"tar": "w", "tgz": "w:gz", "tbz": "w:bz2", "txz": "w:xz"}[kind]
    with tarfile.open(fileobj=buf, mode=mode) as t:
        for n, d in (("readme.txt", b"hello\n"), (name, data)):
            info = tarfile.TarInfo(n)
            info.size = len(d)
            t.addfile(info, io.BytesIO(d))
    return buf.getvalue()


def nest(kinds, leaf_name, leaf):
    """The outermost container's bytes for kinds (outermost first) around the leaf."""
    name, data = leaf_name, leaf
    for i, kind in enumerate(reversed(kinds)):
        data = pack(kind, name, data)
        name = (f"inner{i}" + EXT[kind]) if kind != "gz" else name + ".gz"
    return data


def _judge(command, root, policy):
    return validate(command, root, root, policy, "Bash", SettingsRules(), None,
                    exposure=True)


_NEST = st.lists(st.sampled_from(KINDS), min_size=2, max_size=members.MAX_DEPTH)
_READERS = st.sampled_from(["cat {}", "strings {}", "grep -a aws {}", "xxd {}"])


@SLOW
@given(kinds=_NEST, leaf=st.sampled_from(["deploy/prod.ini", "app/settings.py", "notes.txt"]),
       reader=_READERS)
def test_a_credential_in_a_nested_member_asks_gw510(policy, tmp_path, kinds, leaf, reader):
    root = os.path.realpath(str(tmp_path))
    with open(os.path.join(root, "backup.bin"), "wb") as fh:
        fh.write(nest(kinds, leaf, SECRET))
    v = _judge(reader.format("backup.bin"), root, policy)
    assert (str(v.decision), v.code) == ("ask", "GW510"), (kinds, leaf, reader, v.message)
    assert members.NEST in v.message or kinds[-1] == "gz", v.message


@SLOW
@given(kinds=_NEST, reader=_READERS)
def test_a_secret_by_name_in_a_nested_member_asks_gw510(policy, tmp_path, kinds, reader):
    root = os.path.realpath(str(tmp_path))
    kinds = [k for k in kinds if k != "gz"] or ["tar", "zip"]
    if len(kinds) < 2:
        kinds = kinds + ["tar"]
    with open(os.path.join(root, "backup.bin"), "wb") as fh:
        fh.write(nest(kinds, "svc/.env", b"DEBUG=1\n"))
    v = _judge(reader.format("backup.bin"), root, policy)
    assert (str(v.decision), v.code) == ("ask", "GW510"), (kinds, reader, v.message)
    assert ".env" in v.message


@SLOW
@given(kinds=_NEST, reader=_READERS)
def test_nested_containers_of_ordinary_files_stay_allowed(policy, tmp_path, kinds, reader):
    root = os.path.realpath(str(tmp_path))
    with open(os.path.join(root, "backup.bin"), "wb") as fh:
        fh.write(nest(kinds, "deploy/prod.ini", CLEAN))
    v = _judge(reader.format("backup.bin"), root, policy)
    assert (str(v.decision), v.code) == ("allow", "GW700"), (kinds, reader, v.message)


@pytest.mark.parametrize("kinds", [["tar"] * (members.MAX_DEPTH + 1),
                                   ["tgz", "zip", "tar", "zip", "gz"]])
def test_containers_nested_deeper_than_the_limit_ask(policy, tmp_path, kinds):
    """Fail closed: not opened, so not judged - the read asks (GW511), clean or not."""
    root = os.path.realpath(str(tmp_path))
    with open(os.path.join(root, "deep.tar"), "wb") as fh:
        fh.write(nest(kinds, "deploy/prod.ini", CLEAN))
    v = _judge("cat deep.tar", root, policy)
    assert (str(v.decision), v.code) == ("ask", "GW511"), v.message
    assert "nested deeper" in v.message


def test_a_nested_container_over_its_limit_asks(policy, tmp_path, monkeypatch):
    monkeypatch.setattr(members, "MAX_NESTED", 4096)
    root = os.path.realpath(str(tmp_path))
    inner = pack("tar", "big.txt", os.urandom(6000).hex().encode())
    with open(os.path.join(root, "outer.zip"), "wb") as fh:
        fh.write(pack("zip", "inner.tar", inner))
    v = _judge("unzip -p outer.zip", root, policy)
    assert (str(v.decision), v.code) == ("ask", "GW511"), v.message
    assert "archive inside an archive" in v.message


def test_a_compressed_bomb_is_bounded(policy, tmp_path):
    """Megabytes in a few kB inside an archive: decompressed only to the scanner's limit,
    then the read asks."""
    root = os.path.realpath(str(tmp_path))
    limit = policy.secret_content["max_bytes"]
    bomb = lzma.compress(b"A" * (limit + 4096))
    assert len(bomb) < limit // 100
    with open(os.path.join(root, "outer.tar"), "wb") as fh:
        fh.write(pack("tar", "z.xz", bomb))
    v = _judge("cat outer.tar", root, policy)
    assert (str(v.decision), v.code) == ("ask", "GW511"), v.message
    assert "over the limit" in v.message


def test_member_names_name_the_path_through_the_containers(policy, tmp_path):
    path = tmp_path / "outer.tgz"
    path.write_bytes(nest(["tgz", "zip"], "deploy/prod.ini", SECRET))
    v = members.verdict(str(path), policy)
    assert v is not None and v.kind == "secret"
    assert "inner0.zip!/deploy/prod.ini" in v.detail, v.detail
