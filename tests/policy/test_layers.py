"""Rules layers: located errors, what each layer may change, floors, and the compiled cache."""

import os

import pytest

from gateway.policy.cache import load_policy
from gateway.policy.errors import PolicyError
from gateway.policy.merge import merge
from gateway.runtime import get_policy
from gateway.settings import SettingsRules
from gateway.validator.pipeline import validate


def _env(tmp_path, user_text=None):
    user = tmp_path / "user-rules.yaml"
    if user_text is not None:
        user.write_text(user_text)
    return {"GATEWAY_USER_RULES": str(user), "GATEWAY_CACHE_DIR": str(tmp_path / "cache"),
            "HOME": str(tmp_path)}


def _project(tmp_path, text=None, local=None):
    proj = tmp_path / "proj"
    (proj / ".claude").mkdir(parents=True, exist_ok=True)
    if text is not None:
        (proj / ".claude" / "gateway.yaml").write_text(text)
    if local is not None:
        (proj / ".claude" / "gateway.local.yaml").write_text(local)
    return str(proj)


def _errors(tmp_path, project_text=None, user_text=None):
    with pytest.raises(PolicyError) as info:
        merge(_project(tmp_path, project_text), _env(tmp_path, user_text))
    return info.value.errors


def _decide(policy, command, project):
    return validate(command, project, project, policy, "Bash", SettingsRules())


def test_builtin_rules_load():
    m = merge(None, {"GATEWAY_USER_RULES": "/nonexistent"})
    # default, catalogue, deny, effects, workflow
    assert [layer for layer, _ in m.sources] == ["builtin"] * 5
    assert "git" in m.policy["catalogue"]


def test_located_type_error(tmp_path):
    errs = _errors(tmp_path, project_text="always_ask:\n  - curl\n  - 5\n")
    assert errs == [f"{tmp_path}/proj/.claude/gateway.yaml:3: always_ask[1]: Input should be "
                    "a valid string"]


def test_located_unknown_key(tmp_path):
    errs = _errors(tmp_path, user_text="limits:\n  max_length: 5\n")
    assert errs == [f"{tmp_path}/user-rules.yaml:2: limits.max_length: unknown key "
                    "'max_length'; the keys here are max_command_length, max_segments"]


def test_yaml_syntax_error_is_located(tmp_path):
    errs = _errors(tmp_path, project_text="always_ask: [curl\n")
    assert len(errs) == 1 and errs[0].startswith(f"{tmp_path}/proj/.claude/gateway.yaml:2: "
                                                 "invalid YAML")


@pytest.mark.parametrize("text,problem", [
    ("!!python/object:os.system [ls]\n", "1: invalid YAML: could not determine a constructor"),
    ("always_ask: !!foo [a]\n", "1: invalid YAML: could not determine a constructor"),
    ("[a]: 1\n", "1: a key must be a plain string, not a sequence"),
    ("{a: 1}: x\n", "1: a key must be a plain string, not a mapping"),
    ("always_ask: [a]\n? [b]\n: 1\n", "2: a key must be a plain string, not a sequence"),
])
def test_yaml_that_composes_but_is_not_rules_is_a_located_error(tmp_path, text, problem):
    """Found by fuzz_rules: these raised ConstructorError / TypeError out of the loader."""
    errs = _errors(tmp_path, project_text=text)
    assert len(errs) == 1 and errs[0].startswith(
        f"{tmp_path}/proj/.claude/gateway.yaml:{problem}"), errs


def test_duplicate_keys_are_refused(tmp_path):
    errs = _errors(tmp_path, project_text="always_ask: [a]\nalways_ask: [b]\n")
    assert errs == [f"{tmp_path}/proj/.claude/gateway.yaml:2: duplicate key 'always_ask'"]


def test_aliases_are_refused_in_project_layer(tmp_path):
    errs = _errors(tmp_path, project_text="x-a: &a [curl]\nalways_ask: *a\n")
    assert errs == [f"{tmp_path}/proj/.claude/gateway.yaml:2: YAML aliases are not allowed in "
                    "this layer"]


@pytest.mark.parametrize("text,key", [
    ("allowed_dirs: [/]\n", "allowed_dirs"),
    ("containment_dirs: [src]\n", "containment_dirs"),
    ("catalogue:\n  evil: {}\n", "catalogue"),
    ("interpreters:\n  python3: {safe_flags: [c]}\n", "interpreters"),
    ("remove:\n  always_ask: [curl]\n", "remove"),
    ("safe_suffixes: {literal: [' ; rm -rf x']}\n", "safe_suffixes"),
])
def test_project_layer_cannot_loosen(tmp_path, text, key):
    errs = _errors(tmp_path, project_text=text)
    assert len(errs) == 1 and f": {key}: a project layer can only tighten" in errs[0]


def test_local_layer_cannot_loosen(tmp_path):
    proj = _project(tmp_path, local="allowed_dirs: [/tmp]\n")
    with pytest.raises(PolicyError) as info:
        merge(proj, _env(tmp_path))
    assert "a local layer can only tighten" in info.value.errors[0]


def test_project_layer_cannot_raise_limits(tmp_path):
    errs = _errors(tmp_path, project_text="limits: {max_command_length: 999999}\n")
    assert "may only lower this limit" in errs[0]


def test_project_layer_cannot_add_secret_exceptions(tmp_path):
    errs = _errors(tmp_path, project_text="secrets: {exceptions: [.env]}\n")
    assert "cannot add secret exceptions" in errs[0]


def test_project_layer_tightens(tmp_path):
    proj = _project(tmp_path, "always_ask: [make]\nsubcommand_ask: ['git commit']\n"
                              "compound: {enabled: false}\n")
    # through the real loader, the rule examples checked: the built-in catalogue's own
    # "make is allowed" example must not make a tightening project layer unloadable
    policy = get_policy(proj, _env(tmp_path), use_cache=False)
    assert _decide(policy, "make", proj).code == "GW701"
    assert _decide(policy, "git commit -m x", proj).code == "GW707"
    assert _decide(policy, "ls; ls", proj).code == "GW215"
    assert _decide(policy, "ls", proj).code == "GW700"


def test_project_deny_rule_adds_and_cannot_replace(tmp_path):
    proj = _project(tmp_path, "deny:\n  - id: no-make-clean\n    message: never make clean\n"
                              "    command: [make]\n    words_any: [clean]\n")
    policy = load_policy(proj, _env(tmp_path))
    assert str(_decide(policy, "make clean", proj).decision) == "deny"
    errs = _errors(tmp_path, project_text="deny:\n  - id: fork-bomb\n    message: redefine\n"
                                          "    command: [make]\n")
    assert "'fork-bomb' is already defined by a lower layer" in errs[0]


def test_user_layer_adds_catalogue_entry(tmp_path):
    proj = _project(tmp_path)
    env = _env(tmp_path, "catalogue:\n  tanebi:\n    args: text\n"
                         "    examples: {allow: ['tanebi status x']}\n")
    policy = load_policy(proj, env)
    assert _decide(policy, "tanebi status cmd_001", proj).code == "GW700"


def test_user_layer_can_remove_but_not_floors(tmp_path):
    proj = _project(tmp_path)
    env = _env(tmp_path, "remove:\n  always_ask: [chown]\n")
    policy = load_policy(proj, env)
    assert _decide(policy, "chown me a", proj).code == "GW703"  # not ALWAYS_ASK; unknown
    errs = _errors(tmp_path, user_text="remove:\n  always_ask: [sudo]\n")
    assert errs[0].endswith("remove.always_ask: 'sudo' is a security floor and cannot be "
                            "removed")


def test_user_layer_tightening_keeps_builtin_examples_checked_where_they_were_written(
        tmp_path):
    proj = _project(tmp_path, "subcommand_ask: ['git stash']\n")
    env = _env(tmp_path, "always_ask: [cat, make]\n")
    policy = get_policy(proj, env, use_cache=False)
    assert _decide(policy, "cat README.md", proj).code == "GW701"
    assert _decide(policy, "git stash list", proj).code == "GW707"
    assert _decide(policy, "ls", proj).code == "GW700"


def test_user_layer_example_that_fails_is_an_error(tmp_path):
    from gateway.runtime import get_policy

    env = _env(tmp_path, "catalogue:\n  foo:\n    examples: {ask: ['foo']}\n")
    with pytest.raises(PolicyError) as info:
        get_policy(_project(tmp_path), env, use_cache=False)
    assert "example 'foo' should be not allowed but got allow" in info.value.errors[0]


def test_cache_is_used_and_invalidated_by_any_change(tmp_path):
    proj = _project(tmp_path)
    env = _env(tmp_path)
    policy = load_policy(proj, env)
    assert _decide(policy, "make", proj).code == "GW700"
    cache_files = [n for n in os.listdir(tmp_path / "cache") if n.endswith(".json")]
    assert len(cache_files) == 1
    # a new project layer appears: recompiled
    (tmp_path / "proj" / ".claude" / "gateway.yaml").write_text("always_ask: [make]\n")
    assert _decide(load_policy(proj, env), "make", proj).code == "GW701"
    # same size, same mtime second: still seen (content digests, not mtimes)
    path = tmp_path / "proj" / ".claude" / "gateway.yaml"
    st = os.stat(path)
    path.write_text("always_ask: [mako]\n")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert _decide(load_policy(proj, env), "make", proj).code == "GW700"
    # the file disappears again
    path.unlink()
    assert _decide(load_policy(proj, env), "make", proj).code == "GW700"


def test_tampered_or_corrupt_cache_is_rebuilt(tmp_path):
    proj = _project(tmp_path)
    env = _env(tmp_path)
    load_policy(proj, env)
    (cache,) = [n for n in os.listdir(tmp_path / "cache") if n.endswith(".json")]
    (tmp_path / "cache" / cache).write_text("{not json")
    assert _decide(load_policy(proj, env), "wget x", proj).code == "GW701"


def test_unreadable_rules_file_is_an_error(tmp_path):
    if os.getuid() == 0:
        user = tmp_path / "user-rules.yaml"
        user.mkdir()  # a directory cannot be read as a file, even by root
    else:
        user = tmp_path / "user-rules.yaml"
        user.write_text("always_ask: []\n")
        user.chmod(0)
    with pytest.raises(PolicyError):
        load_policy(_project(tmp_path), _env(tmp_path) | {"GATEWAY_USER_RULES": str(user)})


def test_compile_is_fast_when_cached(tmp_path, monkeypatch):
    """The second load reads the compiled cache: nothing is compiled again (speed itself
    lives in `gateway bench`)."""
    from gateway.policy import cache

    proj = _project(tmp_path)
    env = _env(tmp_path)
    load_policy(proj, env)
    compiled = []
    real = cache._compile

    def counted(*args, **kwargs):
        compiled.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(cache, "_compile", counted)
    load_policy(proj, env)
    assert compiled == []
    # and the counter sees a compile: a changed rules file is compiled once
    with open(os.path.join(proj, ".claude", "gateway.yaml"), "a") as fh:
        fh.write("\n# changed\n")
    load_policy(proj, env)
    assert len(compiled) == 1
