"""The fast forms behave exactly like the plain ones: the secret prefilter and the lazily built
subcommand specs."""

import types

from gateway import paths
from gateway.policy.compiled import CommandSpec

PATHS = ["/p/.env", "/p/.env.local", "/p/.env.example", "/p/a/.ENV", "/p/x.pem", "/p/x.pub",
         "/home/u/.ssh/config", "/home/u/.SSH/id", "/p/.aws/credentials", "/p/aws/credentials",
         "/p/src/app.py", "/p/README.md", "/p/id_rsa", "/p/id_rsa.pub", "/p/.git/config",
         "/p/.kube/config", "/p/kube/config", "/p/credentials", "/p/credentials.json",
         "/p/gh/hosts.yml", "/p/x.tfvars", "/p/x.TFVARS", "/", "/p/.envrc", "/p/a.env",
         "/p/.docker/config.json", "/p/gcloud/credentials.db", "/p/.netrc", "/p/_netrc"]


def test_secret_prefilter_changes_nothing(policy):
    plain = types.SimpleNamespace(secret_patterns=policy.secret_patterns,
                                  secret_dirs=policy.secret_dirs,
                                  secret_exceptions=policy.secret_exceptions,
                                  secret_env=policy.secret_env)
    # a policy object that takes no attributes runs the plain per-pattern loop

    class Slotted:
        __slots__ = ("secret_patterns", "secret_dirs", "secret_exceptions", "secret_env")

    slow = Slotted()
    slow.secret_patterns, slow.secret_dirs = policy.secret_patterns, policy.secret_dirs
    slow.secret_exceptions = policy.secret_exceptions
    slow.secret_env = policy.secret_env
    for p in PATHS:
        assert paths.is_secret((p,), plain) == paths.is_secret((p,), slow), p
        assert paths.is_secret((p,), policy) == paths.is_secret((p,), slow), p
    assert paths.is_secret(("/p/.env",), policy) and not paths.is_secret(("/p/a.py",), policy)


def test_prefilter_follows_replaced_patterns(policy):
    ns = types.SimpleNamespace(secret_patterns=("*.pem",), secret_dirs=frozenset(),
                               secret_exceptions=())
    assert paths.is_secret(("/p/a.pem",), ns) == "*.pem"
    ns.secret_patterns = ("*.key",)
    assert paths.is_secret(("/p/a.pem",), ns) == ""
    assert paths.is_secret(("/p/a.key",), ns) == "*.key"


def test_subcommands_are_a_read_only_mapping():
    spec = CommandSpec("git", {"subcommands": {"status": {"args": "none"},
                                               "log": {"subcommands": {"x": {}}}}})
    subs = spec.subcommands
    assert "status" in subs and "push" not in subs and len(subs) == 2
    assert sorted(subs) == ["log", "status"] and subs.get("push") is None
    assert subs["status"] is subs["status"] and subs["status"].name == "git status"
    assert subs["log"].subcommands["x"].name == "git log x"
    assert dict(subs.items())["status"].args == "none"


def test_kernel_realpath_equals_realpath(project, tmp_path):
    import os

    loop = tmp_path / "loop"
    os.symlink(str(loop), str(loop))
    (tmp_path / "d").mkdir()
    os.symlink("d", str(tmp_path / "rel"))
    os.symlink("/nonexistent/target", str(tmp_path / "dangling"))
    cases = [project, os.path.join(project, "lnk"), os.path.join(project, "lnk", "passwd"),
             os.path.join(project, "scripts", "tmplink"), os.path.join(project, "notes.txt"),
             os.path.join(project, "scripts", "app_link.py"), os.path.join(project, "nope", "x"),
             os.path.join(project, "a.txt", "x"), str(loop), str(tmp_path / "rel" / ".."),
             str(tmp_path / "rel" / "x"), str(tmp_path / "dangling"), "/", "/proc/self",
             "/dev/null", os.path.join(project, "lnk", "..", "a.txt")]
    for p in cases:
        lex = os.path.normpath(p)
        assert paths.real(lex) == os.path.realpath(lex), p
