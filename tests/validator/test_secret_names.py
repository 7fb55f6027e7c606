"""The secret-name list (rules/default.yaml `secrets`), grown from a survey of real secret
scanners' rule sets (gitleaks, trufflehog, detect-secrets, gitrob, shhgit; the sources are
cited there), and the layouts it covers: backup copies (`backup_suffixes`), git's
configuration in submodules, worktrees and bare repositories (`.git/**/config`). Every name
is also read through the PreToolUse hook's question ("may this command read a secret?")."""

import os

import pytest

from gateway.paths import is_secret
from gateway.settings import SettingsRules
from gateway.validator.pipeline import validate

SECRETS = [
    # from the survey
    ".pgpass", "home/.pgpass", ".s3cfg", ".dockercfg", ".boto", "deploy_rsa", "ci_ed25519",
    "vault.kdbx", "login.keychain-db", "x.agilekeychain", "safe.psafe3", "k.kwallet",
    "cert.pkcs12", "client.p12", "client.pfx", "AuthKey_ABC123.p8", "server.ppk",
    "office.ovpn", "otr.private_key", "sftp-config.json", ".tugboat", "doctl/config.yaml",
    ".config/hub", "jenkins/credentials.xml", "config/secret_token.rb", "recovery.bek",
    ".bash_history", ".psql_history", ".mysql_history", ".my.cnf", ".passwd-s3fs",
    "terraform.tfstate", "infra/prod.tfstate", "terraform.tfstate.backup", "prod.tfvars",
    ".dev.vars", ".dev.vars.production", ".terraform.d/credentials.tfrc.json",
    ".streamlit/secrets.toml", "secrets.json", "kubeconfig", "prod.kubeconfig",
    ".azure/azureProfile.json", ".azure/dev/.env", ".yarnrc",
    # backup copies
    ".env.bak", ".env~", ".npmrc.orig", ".npmrc.bak~", "key.pem.old", "id_rsa~",
    ".id_rsa.swp", "..npmrc.swp", ".pgpass.save", "credentials.json.backup",
    "terraform.tfstate.tmp", "server.key.copy",
    # git's configuration by layout
    ".git/config", ".git/config.worktree", ".git/worktrees/wt/config.worktree",
    ".git/modules/lib/config", ".git/modules/vendor/lib/config",
    ".git/modules/a/modules/b/config", "vendor/mirror.git/config",
]
NOT_SECRETS = [
    "config.py", "settings.py", "src/modules/auth/config", "main.tf", "variables.tf",
    "terraform.lock.hcl", ".env.example", ".dev.vars.example", "id_rsa.pub", "deploy_rsa.pub",
    "README.md.bak", "notes.old", "app.py~", "Makefile.orig", "docs/secrets.md",
    "credentials.py", "tests/test_credentials.py", "history.txt", "package.json",
    ".git/HEAD", ".gitconfig.example", "config/settings.yaml", "src/.envoy/config",
]


@pytest.mark.parametrize("rel", SECRETS)
def test_secret_names(policy, rel):
    assert is_secret(("/p/" + rel,), policy), rel


@pytest.mark.parametrize("rel", NOT_SECRETS)
def test_names_that_are_not_secrets(policy, rel):
    assert not is_secret(("/p/" + rel,), policy), rel


@pytest.mark.parametrize("rel", [".env.bak", "terraform.tfstate", ".git/modules/lib/config",
                                 ".id_rsa.swp", "AuthKey_ABC123.p8", ".dev.vars"])
def test_reading_one_asks_in_the_pretooluse_question(policy, tmp_path, rel):
    root = os.path.realpath(str(tmp_path))
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fh:
        fh.write("SECRET=1\n")
    for command in (f"cat {rel}", f"head -5 {rel}", f"grep -r SECRET {os.path.dirname(rel) or '.'}"):
        v = validate(command, root, root, policy, "Bash", SettingsRules(), None, exposure=True)
        assert (str(v.decision), v.code) in (("ask", "GW503"), ("ask", "GW506")), (command, v)


def test_a_layer_can_add_backup_suffixes(tmp_path):
    from gateway.policy.compiled import Policy

    data = {"secrets": {"patterns": [".env"], "directories": [], "exceptions": [],
                        "backup_suffixes": [".bak", "~"]}}
    p = Policy.__new__(Policy)
    p.secret_patterns, p.secret_dirs = (".env",), frozenset()
    p.secret_exceptions, p.secret_backup_suffixes = (), tuple(
        data["secrets"]["backup_suffixes"])
    assert is_secret(("/p/.env.bak~",), p) == ".env"
    assert not is_secret(("/p/.env.orig",), p)
