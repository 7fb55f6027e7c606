"""Secrets by content in git's objects and in containers (gateway.secrets.blobs, .members):
generated project files holding a credential (and clean ones), committed then scrubbed, or
archived/compressed; the verdict comes from the scanner on the versions' bytes, is kept by
their hash, and a long history is scanned a share per call until the answer comes."""

import gzip
import io
import os
import subprocess
import tarfile
import zipfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gateway.secrets import blobs, content, filecheck, members
from gateway.tools import gitquery as gq
from tests.property.test_secret_content import clean_files, secret_files

SLOW = settings(max_examples=15, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])


def _git(root, *args):
    subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", *args], cwd=root,
                   check=True, capture_output=True)


def _runner(root):
    def git(args, stdin):
        return gq.run(root, os.path.join(root, ".git"), args, (), stdin)
    return git


def _blob_ids(root):
    """The keys of every version in the history, as the hook reads them (raw -z output)."""
    out = subprocess.run(["git", "log", "--all", "--raw", "--no-abbrev", "-z", "--format=%x00"],
                         cwd=root, capture_output=True).stdout
    return blobs.raw_ids(out)[0]


@pytest.fixture()
def cache(monkeypatch, tmp_path):
    monkeypatch.setenv("GATEWAY_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


@SLOW
@given(f=st.one_of(secret_files().map(lambda x: (True, x)),
                   clean_files().map(lambda x: (False, x))))
def test_a_scrubbed_version_is_judged_by_its_content(policy, tmp_path_factory, cache, f):
    holds, (name, text) = f
    root = str(tmp_path_factory.mktemp("repo"))
    _git(root, "init", "-q")
    with open(os.path.join(root, name), "w") as fh:
        fh.write(text)
    _git(root, "add", name)
    _git(root, "commit", "-qm", "a")
    with open(os.path.join(root, name), "w") as fh:
        fh.write("x = 1\n")
    _git(root, "commit", "-qam", "scrub")
    ids = _blob_ids(root)
    v = blobs.verdict(ids, _runner(root), policy)
    assert (v is not None and v.kind == content.SECRET) == holds, (name, text, v)
    # kept by id: the same answer without the scanner
    again = blobs.verdict(ids, lambda *a: None, policy)
    assert (again is not None and again.kind == content.SECRET) == holds


def test_a_long_history_is_scanned_a_share_per_call(policy, tmp_path, cache, monkeypatch):
    root = str(tmp_path / "repo")
    os.makedirs(root)
    _git(root, "init", "-q")
    for i in range(6):
        with open(os.path.join(root, f"f{i}.txt"), "w") as fh:
            fh.write(f"line {i}\n")
    with open(os.path.join(root, "zz.ini"), "w") as fh:
        fh.write("[a]\npassword = Zq8vR2mT7pLx9KcW\n")
    _git(root, "add", ".")
    _git(root, "commit", "-qm", "a")
    monkeypatch.setattr(blobs, "MAX_NEW_BLOBS", 2)
    ids = _blob_ids(root)
    kinds = []
    for _ in range(6):
        v = blobs.verdict(ids, _runner(root), policy)
        kinds.append(v.kind if v else None)
        if v is not None and v.kind == content.SECRET:
            break
    assert kinds[-1] == content.SECRET and set(kinds[:-1]) <= {content.UNSCANNED}, kinds


def _contain(path, kind, member, data):
    if kind == "zip":
        with zipfile.ZipFile(path, "w") as z:
            z.writestr(member, data)
    elif kind == "gz":
        with gzip.open(path, "wb") as fh:
            fh.write(data)
    else:
        with tarfile.open(path, {"tar": "w", "tgz": "w:gz"}[kind]) as t:
            info = tarfile.TarInfo(member)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))


@SLOW
@given(f=st.one_of(secret_files().map(lambda x: (True, x)),
                   clean_files().map(lambda x: (False, x))),
       kind=st.sampled_from(["tar", "tgz", "zip", "gz"]),
       outer=st.sampled_from(["backup.tar", "data.bin", "x", "site.zip", "notes.gz"]))
def test_a_container_is_judged_by_its_members_contents(policy, tmp_path_factory, cache, f,
                                                        kind, outer):
    holds, (name, text) = f
    if kind == "gz":  # one compressed file keeps its name: prod.ini.gz
        outer = name + ".gz"
    path = str(tmp_path_factory.mktemp("c") / outer)
    _contain(path, kind, "dir/" + name, text.encode())
    v = members.verdict(path, policy)
    assert (v is not None and v.kind == content.SECRET) == holds, (kind, name, text, v)
    whole = filecheck.check([path], policy)
    assert (whole is not None and whole.kind == content.SECRET) == holds


def test_an_unreadable_container_is_unscanned(policy, tmp_path, cache):
    path = tmp_path / "broken.tgz"
    path.write_bytes(b"\x1f\x8b\x08\x00" + b"garbage" * 10)
    v = filecheck.check([str(path)], policy)
    assert v is not None and v.kind == content.UNSCANNED
