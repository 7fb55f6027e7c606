"""The Write/Edit/MultiEdit/NotebookEdit guard common to everyone: escapes, protected paths,
secrets, gateway-maintained state; the same protected paths for Bash writes (GW835); owns
glob semantics."""

import os

import pytest

from gateway.effects.files import owns_match
from tests.guards.support import denied, silent, write

FILE_TOOLS = ["Write", "Edit", "MultiEdit", "NotebookEdit"]


def _input(tool, path):
    if tool == "NotebookEdit":
        return {"notebook_path": path, "new_source": "x"}
    if tool == "MultiEdit":
        return {"file_path": path, "edits": [{"old_string": "a", "new_string": "b"}]}
    if tool == "Edit":
        return {"file_path": path, "old_string": "a", "new_string": "b"}
    return {"file_path": path, "content": "x"}


@pytest.mark.parametrize("tool", FILE_TOOLS)
def test_plain_project_file_gets_no_decision(guard, proj, tool):
    assert silent(guard(tool, _input(tool, os.path.join(proj, "src/app.py"))))


@pytest.mark.parametrize("tool", FILE_TOOLS)
@pytest.mark.parametrize("rel,code", [
    (".claude/settings.json", "GW832"), (".claude/settings.local.json", "GW832"),
    (".claude/hooks/h.sh", "GW832"), (".claude/gateway.yaml", "GW832"),
    (".claude/gateway.local.yaml", "GW832"), (".git/config", "GW832"),
    (".git/hooks/pre-commit", "GW832"), (".GIT/config", "GW832"),
    (".git/modules/lib/config", "GW832"), (".git/worktrees/w/commondir", "GW832"),
    ("sub/.git/config", "GW832"), (".gitmodules", "GW832"), (".git", "GW832"),
    (".claude/state/breezing-session-roles.json", "GW834"),
    (".claude/state/gateway-breezing-phase.json", "GW834"),
    (".claude/state/.breezing-session-roles.json.lock", "GW834"),
    (".claude/state/BREEZING-SESSION-ROLES.json", "GW834"),
])
def test_protected_paths_are_denied(guard, proj, tool, rel, code):
    v = guard(tool, _input(tool, os.path.join(proj, rel)))
    assert denied(v, code), (v.code, v.message)
    assert "protected" in v.message


@pytest.mark.parametrize("tool", FILE_TOOLS)
@pytest.mark.parametrize("rel,code", [
    (".env", "GW833"), (".env.production", "GW833"), ("config/.env.local", "GW833"),
    (".env-local", "GW833"), (".env_prod", "GW833"), (".envrc.local", "GW833"),
    ("env.local", "GW833"), ("docker/prod.env", "GW833"),
    ("keys/server.pem", "GW833"), ("tls/server.key", "GW833"), ("id_rsa", "GW833"),
    ("backup_id_rsa_old", "GW833"), ("deploy_id_ed25519", "GW833"), (".ssh/config", "GW833"),
    (".git/HEAD", "GW839"), (".git/index.lock", "GW839"), (".git/refs/heads/main", "GW839"),
])
def test_secrets_and_git_data_are_asked_never_denied(guard, proj, tool, rel, code):
    """Issue 24: the user's own .env set-up and the repository's data are a human's call."""
    v = guard(tool, _input(tool, os.path.join(proj, rel)))
    assert (str(v.decision), v.code) == ("ask", code), (v.code, v.message)


def test_env_template_is_not_a_secret(guard, proj):
    assert silent(guard("Write", write(proj, ".env.example")))


@pytest.mark.parametrize("rel,rule", [
    ("other/.claude/settings.json", "*/.claude/settings*.json"),
    ("other/.claude/settings.local.json", "*/.claude/settings*.json"),
    ("other/.Claude/hooks/x.sh", "*/.claude/hooks/**"),
    ("other/.git/hooks/pre-commit", "*/.git/hooks/**"),
    ("other/.git/config", "*/.git/config"),
    # a submodule's and a worktree's git directories are repositories too
    ("other/.git/modules/sub/hooks/pre-commit", "*/.git/hooks/**"),
    ("other/.git/modules/a/modules/b/config", "*/.git/config"),
    ("other/.git/config.worktree", "*/.git/config"),
    ("other/.git/worktrees/w/config.worktree", "*/.git/config"),
])
def test_another_projects_surface_is_protected(guard, proj, tmp_path, rel, rule):
    """Outside the project: Claude Code settings and hooks, git hooks and config anywhere run
    code the next time someone works there."""
    v = guard("Write", write(proj, str(tmp_path / rel)))
    assert denied(v, "GW832") and v.rule == "protected:" + rule, (v.code, v.rule, v.message)


@pytest.mark.parametrize("rel", ["other/src/a.py", "other/.claude/state/x.json",
                                 "other/.claude/agents/a.md", "other/.git-notes/config",
                                 "other/.git/modules/sub/HEAD", "other/modules/sub/config"])
def test_other_files_outside_the_project_get_no_decision(guard, proj, tmp_path, rel):
    assert silent(guard("Write", write(proj, str(tmp_path / rel))))


def test_removing_another_projects_claude_dir_is_denied(guard, proj, tmp_path):
    other = tmp_path / "other" / ".claude"
    # nothing there yet: removing what does not exist is no reason to object (issue 13)
    v = guard("Bash", {"command": f"rm -rf {other}"})
    assert v.code != "GW835", (v.code, v.message)
    other.mkdir(parents=True)
    (other / "settings.json").write_text("{}")
    v = guard("Bash", {"command": f"rm -rf {other}"})
    assert denied(v, "GW835") and ".claude/settings" in v.message, (v.code, v.message)


@pytest.mark.parametrize("command", ["cp x {t}/other/.git/modules/s/hooks/post-checkout",
                                     "rm -rf {t}/other/.git/modules/s"])
def test_bash_writes_to_a_submodules_git_dir_are_denied(guard, proj, tmp_path, command):
    hooks = tmp_path / "other" / ".git" / "modules" / "s" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "post-checkout").write_text("#!/bin/sh\n")
    v = guard("Bash", {"command": command.format(t=tmp_path)})
    assert denied(v, "GW835") and v.rule == "protected:*/.git/hooks/**", (v.code, v.rule)


def test_home_settings_and_gateway_config_are_protected(guard, proj):
    home = os.path.expanduser("~")
    for rel in (".claude/settings.json", ".claude/settings.local.json", ".claude/hooks/x.sh",
                ".config/gateway/rules.yaml"):
        v = guard("Write", write(proj, os.path.join(home, rel)))
        assert denied(v, "GW832"), (rel, v.message)


def test_claude_config_dir_settings_are_protected(guard, proj, tmp_path):
    cfg = tmp_path / "cc"
    v = guard("Write", write(proj, str(cfg / "settings.json")),
              env={"CLAUDE_CONFIG_DIR": str(cfg)})
    assert denied(v, "GW832")
    v = guard("Write", write(proj, str(cfg / "hooks" / "x.py")),
              env={"CLAUDE_CONFIG_DIR": str(cfg)})
    assert denied(v, "GW832")


def test_gateway_rules_cache_and_audit_log_are_protected(guard, proj, tmp_path):
    from gateway.policy import cache, load

    v = guard("Write", write(proj, os.path.join(load.builtin_rules_dir(), "default.yaml")))
    assert denied(v, "GW832")
    v = guard("Write", write(proj, os.path.join(cache.cache_dir(), "policy-x.json")))
    assert denied(v, "GW832")
    log = tmp_path / "logs" / "audit.jsonl"
    v = guard("Edit", {"file_path": str(log), "old_string": "a", "new_string": "b"},
              env={"GATEWAY_AUDIT_LOG": str(log)})
    assert denied(v, "GW832")


# --- escapes ---------------------------------------------------------------------------------

@pytest.mark.parametrize("tool", FILE_TOOLS)
def test_dotdot_escape(guard, proj, tool):
    v = guard(tool, _input(tool, os.path.join(proj, "src/../../outside.txt")))
    assert denied(v, "GW830")
    v = guard(tool, _input(tool, "../../etc/passwd"), cwd="src")
    assert denied(v, "GW830")


def test_dotdot_that_stays_inside_is_judged_on_the_canonical_path(guard, proj):
    assert silent(guard("Write", write(proj, os.path.join(proj, "src/../README.md"))))
    v = guard("Write", write(proj, os.path.join(proj, "src/../.claude/settings.json")))
    assert denied(v, "GW832")


@pytest.mark.parametrize("tool", FILE_TOOLS)
def test_symlink_escape(guard, proj, tool):
    # lnk -> /etc (from the sample project)
    v = guard(tool, _input(tool, os.path.join(proj, "lnk", "hosts")))
    assert denied(v, "GW831"), v.message


def test_symlink_to_a_protected_file_is_protected(guard, proj):
    os.symlink(os.path.join(proj, ".claude", "settings.json"), os.path.join(proj, "harmless"))
    assert denied(guard("Write", write(proj, "harmless")), "GW832")
    # notes.txt -> .env: a secret, asked (issue 24)
    v = guard("Write", write(proj, "notes.txt"))
    assert (str(v.decision), v.code) == ("ask", "GW833"), v.message


def test_symlinked_dir_into_protected_area(guard, proj):
    os.symlink(os.path.join(proj, ".claude", "hooks"), os.path.join(proj, "h"))
    assert denied(guard("Write", write(proj, "h/new.sh")), "GW832")


def test_absolute_path_outside_project_gets_no_decision(guard, proj):
    # not an escape (no .., no symlink): Claude Code's own path checks ask for it
    assert silent(guard("Write", write(proj, "/tmp/evil.txt")))


def test_relative_path_resolves_against_the_payload_cwd(guard, proj):
    v = guard("Write", {"file_path": "settings.json", "content": "x"}, cwd=".claude")
    assert denied(v, "GW832")
    assert silent(guard("Write", {"file_path": "settings.json", "content": "x"}, cwd="src"))


# --- malformed input ---------------------------------------------------------------------------

@pytest.mark.parametrize("tool_input", [{}, {"file_path": ""}, {"file_path": 3},
                                        {"file_path": "a\x00b"}, {"notebook_path": "x"}])
def test_missing_path_denies(guard, tool_input):
    assert denied(guard("Write", tool_input), "GW892")


def test_notebook_edit_uses_notebook_path(guard, proj):
    v = guard("NotebookEdit", {"notebook_path": os.path.join(proj, ".git/hooks/x.ipynb")})
    assert denied(v, "GW832")
    v = guard("NotebookEdit", {"notebook_path": os.path.join(proj, ".git/x.ipynb")})
    assert (str(v.decision), v.code) == ("ask", "GW839")
    assert denied(guard("NotebookEdit", {"file_path": os.path.join(proj, "a.ipynb")}), "GW892")


# --- Bash writes to protected paths (any role) -------------------------------------------------

@pytest.mark.parametrize("command", [
    "echo '{}' > .claude/settings.local.json", "cd .claude && rm settings.json",
    "rm -rf .claude", "rm -r .git", "mv .claude/hooks /tmp/x", "cp evil.sh .claude/hooks/",
    "ln -sf /tmp/evil .claude/hooks/pre.sh", "tee -a .git/hooks/pre-commit",
    "sed -i s/a/b/ .claude/settings.json", "git config core.hooksPath /tmp/h",
    "git config alias.st status", "git config --local core.pager less",
    "git config user.name bob --add", "ln -s ~ h && echo x > h/.bashrc",
    "ln .claude/settings.json s",
    "rm .claude/state/breezing-session-roles.json",
    "echo {} > .claude/state/gateway-breezing-phase.json", "rm -rf .", "gateway install",
    "bash -c 'rm .claude/settings.json'", "perl -pi -e s/x/y/ .claude/settings.json",
    "touch .claude/settings.json", "chmod -R 777 .git",
])
def test_bash_writes_to_protected_paths_are_denied(guard, proj, command):
    v = guard("Bash", {"command": command})
    assert denied(v, "GW835"), (command, v.code, v.message)


@pytest.mark.parametrize("command,code", [
    # issue 24: the user's own .env set-up, git's data and plain settings are asked
    ("cp .env.example .env", "GW833"), ("cp -n .env.example .env", "GW833"),
    ("mv .env.example .env", "GW833"), ("touch .env", "GW833"),
    ("echo 'DEBUG=1' >> .env", "GW833"), ("chmod 600 .env", "GW833"), ("rm .env", "GW833"),
    ("cp .env .env.bak", "GW833"), ("echo x >> .env", "GW833"), ("dd if=x of=.env", "GW833"),
    ("rm .git/index.lock", "GW839"), ("git config user.name bob", "GW839"),
    ("git config --global user.email b@example.com", "GW839"),
    ("ln -s ~ homelink", "GW843"),
])
def test_bash_writes_a_human_may_approve_are_asked(guard, proj, command, code):
    v = guard("Bash", {"command": command})
    assert (str(v.decision), v.code) == ("ask", code), (command, v.code, v.message)
    assert v.trace[-1].code == code


def test_a_copy_into_claude_is_judged_by_what_lands_there(guard, proj):
    """`cp -r stage .claude` writes stage's members: no role registration is touched."""
    import shutil

    shutil.rmtree(os.path.join(proj, ".claude"), ignore_errors=True)
    os.makedirs(os.path.join(proj, "stage", "notes"))
    with open(os.path.join(proj, "stage", "notes", "a.md"), "w") as fh:
        fh.write("x\n")
    v = guard("Bash", {"command": "cp -r stage .claude"})
    assert not denied(v), (v.code, v.message)
    assert "role registrations" not in v.message
    with open(os.path.join(proj, "stage", "settings.json"), "w") as fh:
        fh.write("{}\n")
    v = guard("Bash", {"command": "cp -r stage .claude"})
    assert denied(v, "GW835"), (v.code, v.message)
    assert ".claude/settings.json" in v.message
    # a source the same command changes is not looked into
    os.remove(os.path.join(proj, "stage", "settings.json"))
    v = guard("Bash", {"command": "echo '{}' > stage/settings.json && cp -r stage .claude"})
    assert denied(v, "GW835"), (v.code, v.message)


# --- tree removals: judged by what is on disk below the tree (issues 12 and 13) ------------

def test_removing_a_tree_is_denied_only_when_a_protected_file_is_there(guard, proj):
    state = os.path.join(proj, ".claude", "state")
    v = guard("Bash", {"command": "rm -rf .claude/state"})
    assert v.code not in ("GW835", "GW837"), (v.code, v.message)  # an empty directory
    with open(os.path.join(state, "breezing-session-roles.json"), "w") as fh:
        fh.write("{}")
    v = guard("Bash", {"command": "rm -rf .claude/state"})
    assert denied(v, "GW835") and v.message.endswith("[GW834]"), (v.code, v.message)
    assert "breezing-session-roles.json" in v.message, v.message


@pytest.mark.parametrize("command", ["git clean -fdx", "git clean -fd .claude",
                                     "find . -type f -exec rm {} +",
                                     "find . -name '*.json' -o -name x -delete",
                                     "find . ! -name '*.pyc' -delete"])
def test_a_filtered_removal_over_a_protected_file_asks(guard, proj, command):
    # the project holds .claude/settings.json: whether the filter reaches it is not certain
    with open(os.path.join(proj, ".claude", "settings.json"), "w") as fh:
        fh.write("{}")
    v = guard("Bash", {"command": command})
    assert (v.decision.name, v.code) == ("ASK", "GW837"), (command, v.code, v.message)
    assert "[GW832]" in v.message or "[GW833]" in v.message, v.message


@pytest.mark.parametrize("command", ["find .claude -delete", "find . -name '*.json' -delete",
                                     "find . -type f -name 'settings*' -delete"])
def test_a_removal_listed_exactly_that_reaches_a_protected_file_is_denied(guard, proj,
                                                                         command):
    # issue 25: a find whose tests are a plain conjunction (-name, -type) selects exactly
    # what is listed: reaching .claude/settings.json is certain
    with open(os.path.join(proj, ".claude", "settings.json"), "w") as fh:
        fh.write("{}")
    v = guard("Bash", {"command": command})
    assert denied(v, "GW835") and ".claude/" in v.message, (command, v.code, v.message)


@pytest.mark.parametrize("command", ["git clean -fd build", "find build -name '*.o' -delete",
                                     "rm -rf build", "find build -delete",
                                     "find . -name '*.pyc' -delete"])
def test_a_removal_below_which_nothing_is_protected_is_not_refused(guard, proj, command):
    os.makedirs(os.path.join(proj, "build", "obj"), exist_ok=True)
    with open(os.path.join(proj, "build", "obj", "a.o"), "w") as fh:
        fh.write("x")
    v = guard("Bash", {"command": command})
    assert v.code not in ("GW835", "GW837"), (command, v.code, v.message)
    assert v.decision.name != "DENY", (command, v.code, v.message)


def test_a_removal_over_a_tree_too_large_to_walk_asks(guard, proj):
    # more than the walk looks at: not certain either way
    from gateway.effects import files

    big = os.path.join(proj, "build")
    os.makedirs(big, exist_ok=True)
    for i in range(files.TREE_WALK_LIMIT + 1):
        open(os.path.join(big, f"f{i}"), "w").close()
    # (a selection find lists exactly is judged entry by entry: issue 25)
    v = guard("Bash", {"command": "find . -name '*.o' -newer README.md -delete"})
    assert (v.decision.name, v.code) == ("ASK", "GW837"), (v.code, v.message)


@pytest.mark.parametrize("command", [
    "mkdir -p .claude/state", "echo x > src/new.py", "rm -rf build", "touch notes.md",
    "cp .claude/settings.json /tmp/backup.json", "git status", "npm test",
    "echo '{\"role\":\"x\"}' > .claude/state/breezing-role-x.json",
])
def test_bash_writes_elsewhere_get_no_decision(guard, proj, command):
    v = guard("Bash", {"command": command})
    assert not denied(v), (command, v.message)


# --- owns globs --------------------------------------------------------------------------------

@pytest.mark.parametrize("patterns,rel,ok", [
    (["src/auth/**"], "src/auth/login.ts", True),
    (["src/auth/**"], "src/auth/deep/x/y.ts", True),
    (["src/auth/**"], "src/authz/x.ts", False),
    (["src/auth/**"], "src/auth", False),
    (["src/auth"], "src/auth/login.ts", True),
    (["src/auth"], "src/authz/login.ts", False),
    (["src/auth/"], "src/auth/x", True),
    (["src/auth/"], "src/authz", False),
    (["src/*.ts"], "src/a.ts", True),
    (["src/*.ts"], "src/sub/a.ts", False),
    (["src/**/*.ts"], "src/a.ts", True),
    (["src/**/*.ts"], "src/x/y/a.ts", True),
    (["src/**/*.ts"], "src/x/y/a.js", False),
    (["./src/a.py"], "src/a.py", True),
    (["src/a?.py"], "src/ab.py", True),
    (["src/a?.py"], "src/a/.py", False),
    (["src/[ab].py"], "src/a.py", True),
    (["src/[!ab].py"], "src/a.py", False),
    (["SRC/**"], "src/a.py", False),
    (["src/../**"], "README.md", False),
    ([], "src/a.py", False),
    (["**"], ".claude/state/x", True),
    (["*"], "src/a.py", False),
])
def test_owns_glob_semantics(patterns, rel, ok):
    assert bool(owns_match(patterns, rel, "/p/" + rel)) is ok


def test_owns_absolute_pattern():
    assert owns_match(["/p/src/**"], None, "/p/src/a.py") == "/p/src/**"
    assert owns_match(["/p/src/**"], "src/a.py", "/q/src/a.py") == ""
