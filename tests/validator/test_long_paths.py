"""A path too long to resolve from / (PATH_MAX) can still be followed by the command, which
resolves it relative to its working directory: a symlink deep inside must not pass as
inside the project because the gateway could not see it."""

import os

from gateway.settings import SettingsRules
from gateway.validator.pipeline import validate


def test_symlink_beyond_path_max_is_not_proven_inside(policy, tmp_path, monkeypatch):
    root = os.path.realpath(str(tmp_path / "proj"))
    part = "a" * 250
    outer = "/".join(f"{part}{i}" for i in range(9))
    inner = "/".join(f"{part}c{i}" for i in range(9))
    os.makedirs(root)
    monkeypatch.chdir(root)  # built step by step: the whole path is longer than PATH_MAX
    os.makedirs(outer)
    monkeypatch.chdir(outer)
    os.makedirs(inner)
    os.symlink("/etc", os.path.join(inner, "l"))
    monkeypatch.chdir(root)
    rel = f"{inner}/l/hostname"
    assert len(rel) < 4096 < len(os.path.join(root, outer, rel))
    verdict = validate(f"cd {outer} && cat {rel}", root, root, policy, "Bash",
                       SettingsRules(), None)
    assert (str(verdict.decision), verdict.code) == ("ask", "GW501")
    verdict = validate(f"cd {outer} && cat {part}c0", root, root, policy, "Bash",
                       SettingsRules(), None)
    assert (str(verdict.decision), verdict.code) == ("allow", "GW700")
