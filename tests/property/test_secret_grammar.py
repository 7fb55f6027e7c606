"""The name grammar of secrets (gateway.secrets.names), by generated names: every spelling of
an env file is a secret in any component of a path, templates and near misses are not, and
every tool judges the same name the same way (the Read tool through the real PreToolUse hook
entry point, Bash `cat` through the validator's exposure question)."""

import os

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from gateway.paths import is_secret

WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=10)
SEP = st.sampled_from(".-_")
TEMPLATES = ("example", "examples", "sample", "samples", "template", "templates", "tmpl",
             "tpl", "dist", "default", "defaults", "schema", "skel")
SOURCES = (".py", ".pyi", ".js", ".ts", ".tsx", ".mjs", ".go", ".rs", ".rb", ".md", ".d.ts")
BACKUPS = ("~", ".bak", ".orig", ".old", ".swp")


def _case(draw, name):
    flips = draw(st.lists(st.booleans(), min_size=len(name), max_size=len(name)))
    return "".join(c.upper() if f else c for c, f in zip(name, flips, strict=True))


@st.composite
def env_names(draw):
    """A spelling of an env file: .env, .envrc, .env<sep>W..., .envrc<sep>W..., W.env,
    env.W (not a source extension); no template word among its words."""
    words = draw(st.lists(WORD, min_size=1, max_size=3))
    assume(not any(w in TEMPLATES for w in words))
    kind = draw(st.sampled_from(["env", "envrc", "prefix", "rcprefix", "suffix", "plain"]))
    seps = [draw(SEP) for _ in words]
    tail = "".join(s + w for s, w in zip(seps, words, strict=True))
    name = {"env": ".env", "envrc": ".envrc", "prefix": ".env" + tail,
            "rcprefix": ".envrc" + tail, "suffix": words[0] + ".env",
            "plain": "env." + ".".join(words)}[kind]
    if kind == "plain":
        assume(not any(name.lower().endswith(x) for x in SOURCES))
    return _case(draw, name)


@st.composite
def template_names(draw):
    stem = draw(st.sampled_from([".env.", ".env-", ".env_", "env.", ".envrc."]))
    word = draw(st.sampled_from(TEMPLATES))
    more = draw(st.lists(WORD, max_size=2))
    return _case(draw, stem + ".".join([word] + more) if draw(st.booleans())
                 else stem + ".".join(more + [word]) if more else stem + word)


@st.composite
def near_misses(draw):
    """Names with `env` in them that no rule of the grammar makes an env file."""
    kind = draw(st.sampled_from(["into_word", "before", "source", "venv"]))
    w = draw(WORD)
    if kind == "into_word":  # .envelope, .environment: `.env` then a letter, not `rc`
        first = draw(st.sampled_from("abcdefghijklmnopqstuvwxyz"))
        name = ".env" + first + w
        assume(not name.lower().endswith(".env"))
    elif kind == "before":  # environment.py, envoy.yaml, myenv
        name = draw(st.sampled_from(["environment", "envoy", "myenv", "dotenv", "venv",
                                     "envs", "environ"])) + draw(st.sampled_from(
                                         ["", ".py", ".yaml", ".json", "_" + w]))
        assume(not name.lower().endswith(".env"))
    elif kind == "source":  # alembic's env.py, Vite's env.d.ts
        name = "env" + draw(st.sampled_from(SOURCES))
    else:
        name = draw(st.sampled_from([".venv", "venv", ".environment", "env"]))
    return _case(draw, name)


DIRS = st.lists(WORD, max_size=3).map(lambda ws: "/".join(ws))


def _abs(d, name):
    return "/p/" + (d + "/" if d else "") + name


@given(d=DIRS, name=env_names())
def test_every_spelling_of_an_env_file_is_a_secret(policy, d, name):
    assert is_secret((_abs(d, name),), policy), name


@given(d=DIRS, name=env_names(), suffix=st.sampled_from(BACKUPS))
def test_a_backup_copy_of_an_env_file_is_a_secret(policy, d, name, suffix):
    assert is_secret((_abs(d, name + suffix),), policy), name + suffix


@given(d=DIRS, dirname=env_names(), below=st.lists(WORD, min_size=1, max_size=3))
def test_a_file_below_a_directory_named_like_an_env_file_is_a_secret(policy, d, dirname,
                                                                       below):
    path = _abs(d, dirname + "/" + "/".join(below) + ".txt")
    assert is_secret((path,), policy), path


@given(d=DIRS, name=template_names())
def test_templates_are_not_secrets_by_their_name(policy, d, name):
    assert not is_secret((_abs(d, name),), policy), name


@given(d=DIRS, name=near_misses())
def test_near_misses_are_not_secrets(policy, d, name):
    assert not is_secret((_abs(d, name),), policy), name


def test_a_virtual_environment_named_env_is_not_a_secret(policy, tmp_path):
    venv = tmp_path / ".env"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (venv / "bin" / "activate").write_text("# activate\n")
    root = os.path.realpath(str(tmp_path))
    assert not is_secret((root + "/.env/bin/activate",), policy)
    # the directory itself is still an env name: an .env file where the venv is not
    assert is_secret((root + "/other/.env/bin/activate",), policy) == ".env/"


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=env_names())
def test_every_tool_asks_for_a_generated_env_name(policy, tmp_path, name):
    """The same name through Bash's read question and the Read tool's guard."""
    from gateway.runtime import evaluate_guards as evaluate
    from gateway.settings import SettingsRules
    from gateway.validator.pipeline import validate

    root = os.path.realpath(str(tmp_path))
    path = os.path.join(root, name)
    v = validate(f"cat '{name}'", root, root, policy, "Bash", SettingsRules(), None,
                 exposure=True)
    assert (str(v.decision), v.code) == ("ask", "GW503"), (name, v)
    payload = {"session_id": "s", "cwd": root, "tool_name": "Read",
               "tool_input": {"file_path": path}, "permission_mode": "default"}
    g = evaluate(payload, env={"CLAUDE_PROJECT_DIR": root, "HOME": os.environ["HOME"]},
                 project=root)
    assert (str(g.decision), g.code) == ("ask", "GW841"), (name, g.message)


# --- the same data as the client's sandbox globs (gateway.secrets.sandbox) -------------------

def _glob_hits(globs, rel):
    """A root-relative `**/...` glob of the client's matches the project-relative path."""
    import fnmatch

    parts = rel.split("/")
    for g in globs:
        tail = g[3:] if g.startswith("**/") else g
        if tail.endswith("/**"):
            d = tail[:-3]
            if any(fnmatch.fnmatchcase(p.lower(), d.lower()) for p in parts[:-1]):
                return True
            continue
        n = tail.count("/") + 1
        if len(parts) >= n and fnmatch.fnmatchcase("/".join(parts[-n:]).lower(), tail.lower()):
            return True
        if any(fnmatch.fnmatchcase(p.lower(), tail.lower()) for p in parts[:-1]):
            return True  # a directory so named: the sandbox hides all below it
    return False


@given(d=DIRS, name=env_names())
def test_the_sandbox_globs_cover_every_generated_env_name(policy, d, name):
    from gateway.secrets.sandbox import globs

    g = globs(policy)
    rel = (d + "/" if d else "") + name
    assert _glob_hits([x[0] for x in g.deny], rel), rel


def test_the_sandbox_globs_are_absolute_and_name_their_rule(policy):
    from gateway.secrets.sandbox import deny_read, globs

    g = globs(policy)
    assert all(kind in ("exact", "broader") and rule for _glob, kind, rule in g.deny)
    assert ".git/config" in g.hooks_only  # git reads it on every command
    out = deny_read(policy, ["/p"])
    assert out["denyRead"] and all(x.startswith("//p/") for x in out["denyRead"])
    assert "//p/**/.env.example" in out["allowRead"]
