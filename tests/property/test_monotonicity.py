"""Monotonicity: more danger, or more rules in a stricter layer, never gives a weaker
decision.

- one dangerous token inserted into an allowed command gives exactly that token's code;
- a list or pipeline is at least as strict as its strictest segment;
- a project or local rules layer (which may only tighten) never turns ask/deny into allow,
  and the entries it adds take effect; a layer that tries to loosen is refused (GW901);
- the user's permissions.ask / permissions.deny rules bind (GW708 / GW709).
"""

import json
import os

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from gateway.decision import ALLOW, ASK, DENY
from tests.property import known_bugs
from tests.property import strategies as S
from tests.property.conftest import budget
from tests.property.support import (
    Judge,
    build_project,
    builtin_layers_read_once,
    fill,
    fill_cmd,
    show,
    tick,
)
from tests.property.test_soundness import expect_token


@budget(300)
@given(data=st.data(), n=st.integers(1, 3))
def test_one_dangerous_token_in_an_allowed_command(pjudge, data, n):
    tick("monotonicity: one token into an allowed command")
    cmds = [fill_cmd(data.draw(S.allowed_cmd), pjudge.project) for _ in range(n)]
    r = data.draw(S.rendered(cmds))
    base = pjudge(r.text())
    assert base.decision is ALLOW, f"{r.text()!r}: the generator's base is {show(base)}"
    token = data.draw(S.dangerous_token())
    # a here-document with a quoted delimiter on cat or tee is data (issue 25: `cat > notes.md
    # <<'EOF'` is the edit it is), not a construct the gateway cannot read
    assume(not (token.text.startswith(("<<'", '<<"'))
                and any(c.argv[0] in ("cat", "tee") for c in cmds)))
    token.text = fill(token.text, pjudge.project)
    text = data.draw(S.insert(r, token))
    v = pjudge(text)
    if token.kind == "wrap" and token.text.startswith("for ") and v.decision is ALLOW:
        # a for loop over literal words is unrolled (gateway.shell.loops): it is as strict as
        # its body, which the generator drew allowed
        assert v.code == "GW700", f"{text!r}: {show(v)}"
        return
    if token.kind == "wrap" and token.text.startswith("time ") and text.startswith("time "):
        # bash's `time` before the line's first pipeline times it and runs it as it is
        # (gateway.shell.parse.untimed): the line is judged as it is without the word
        assert (v.decision, v.code) == (base.decision, base.code), \
            f"{text!r}: {show(v)}, without time {r.text()!r}: {show(base)}"
        return
    expect_token(v, token, text)


@budget(200)
@given(data=st.data(), op=st.sampled_from([" && ", " || ", "; ", " | ", "\n", " |& ", "&&"]),
       first=st.booleans())
def test_lists_are_as_strict_as_their_strictest_segment(pjudge, data, op, first):
    tick("monotonicity: composition")
    d = data.draw(S.refused_command(pjudge.project))
    dv = pjudge(d)
    # the generator's refused commands predate models that now allow some of them (a for
    # loop over literal words is unrolled; a tracked project script is the project's code):
    # the property is about composing a refused one
    assume(dv.decision is not ALLOW)
    a = data.draw(S.rendered([fill_cmd(data.draw(S.allowed_cmd), pjudge.project)])).text()
    text = d + op + a if first else a + op + d
    v = pjudge(text)
    assert v.decision >= dv.decision, f"{d!r} is {show(dv)} but {text!r} is {show(v)}"


@budget(150)
@given(data=st.data(), wrap=S.wrapper)
def test_a_wrapper_never_weakens(pjudge, data, wrap):
    """`nice X` / `sudo X` / `timeout 5 X`... is at least as strict as X (deny stays deny)."""
    tick("monotonicity: wrappers")
    if data.draw(st.booleans()):
        argv = data.draw(S.catastrophic())[0]
    else:
        argv = [data.draw(st.sampled_from(S.ALWAYS_ASK_SAMPLE))] + \
            data.draw(st.lists(S.inside_path(), max_size=2))
    argv = [fill(a, pjudge.project) for a in argv]
    inner = " ".join(argv)
    text = " ".join(wrap) + " " + inner
    iv, v = pjudge(inner), pjudge(text)
    assert v.decision is not ALLOW and v.decision >= iv.decision, (
        f"{inner!r} is {show(iv)} but {text!r} is {show(v)}")


# --- rules layers ---------------------------------------------------------------------------

@pytest.fixture(scope="session")
def layered(tmp_path_factory, policy):
    root = build_project(tmp_path_factory.mktemp("layered"))
    return root, Judge(root, policy)


TIGHTENINGS = {
    "always_ask": st.lists(st.sampled_from(["ls", "cat", "git", "grep", "head", "echo", "wc",
                                            "Tail", "find", "python3", "bash", "sort"]),
                           min_size=1, max_size=3, unique=True),
    "subcommand_ask": st.lists(st.sampled_from(["git status", "git log", "git diff",
                                                "git log --oneline", "git show", "git branch"]),
                               min_size=1, max_size=2, unique=True),
    "deny": st.lists(st.sampled_from(["ls", "cat", "grep", "echo", "git"]), min_size=1,
                     max_size=2, unique=True).map(
        lambda names: [{"id": f"project-{n}", "message": f"no {n} here", "command": [n]}
                       for n in names]),
    "secrets": st.sampled_from([{"patterns": ["*.md"]}, {"patterns": ["a.txt", "*.py"]},
                                {"directories": ["src"]}]),
    "compound": st.just({"enabled": False}),
    "limits": st.sampled_from([{"max_segments": 1}, {"max_command_length": 20},
                               {"max_segments": 2, "max_command_length": 60}]),
    "shell_builtins": st.just(["ls", "echo"]),
    "wrappers": st.just({"mywrap": {}}),
    "protected_paths": st.just(["src/**"]),
}
LOOSENINGS = [
    {"allowed_dirs": ["/"]}, {"containment_dirs": ["src"]}, {"catalogue": {"rm": {}}},
    {"interpreters": {"python3": {"safe_flags": ["c"]}}}, {"remove": {"always_ask": ["curl"]}},
    {"secrets": {"exceptions": [".env"]}}, {"project_bin_dirs": ["bin"]},
    {"safe_suffixes": {"literal": [" ; rm -rf x"]}}, {"system_bin_dirs": ["/tmp"]},
    {"limits": {"max_segments": 500}}, {"floors": {"always_ask": []}},
]


def _names_in(text):
    from gateway.shell.parse import parse

    try:
        return [c.words[0].value for c in parse(text).all_commands if c.words]
    except Exception:
        return []


# An allowed command that uses each name a tightening may mention.
USES = {"ls": "ls -la src", "cat": "cat README.md", "git": "git status", "grep": "grep -rn x src",
        "head": "head -n 1 a.txt", "echo": "echo hi", "wc": "wc -l a.txt", "tail": "tail a.txt",
        "find": "find src -name x", "python3": "python3 scripts/foo.py",
        "bash": "bash scripts/run.sh", "sort": "sort a.txt", "git status": "git status -s",
        "git log": "git log -n 3", "git log --oneline": "git log --oneline -5",
        "git diff": "git diff HEAD", "git show": "git show HEAD", "git branch": "git branch -a"}


def _targets(layer):
    """Allowed commands the layer names, each of which must stop being allowed."""
    out = []
    ask = [n.lower() for n in layer.get("always_ask", [])]
    if known_bugs.is_open("always-ask-interpreters"):
        ask = [n for n in ask if n not in ("python3", "bash", "sh")]
    out += [USES[n] for n in ask]
    out += [USES[r] for r in layer.get("subcommand_ask", [])]
    out += [USES[r["command"][0]] for r in layer.get("deny", [])]
    out += [USES[n] for n in layer.get("shell_builtins", [])]
    secrets = layer.get("secrets", {})
    if "*.md" in secrets.get("patterns", []):
        out.append("cat README.md")
    if "a.txt" in secrets.get("patterns", []):
        out.append("head -n 2 a.txt")
    if "*.py" in secrets.get("patterns", []):
        out.append("wc -l src/app.py")
    if "src" in secrets.get("directories", []):
        out.append("cat src/app.py")
    if "compound" in layer:
        out.append("git status && git log -n 1 | head -n 2")
    limits = layer.get("limits", {})
    if "max_segments" in limits:
        out.append("ls; ls; ls")
    if "max_command_length" in limits:
        out.append("cat README.md a.txt file.txt src/app.py scripts/foo.py src/auth/login.py")
    return out


def _must_bind(layer, text):
    """Does the layer name a command in `text` that must stop an allow?"""
    names = {n.lower() for n in _names_in(text)}
    ask = {n.lower() for n in layer.get("always_ask", [])}
    if known_bugs.is_open("always-ask-interpreters"):
        ask -= {"python3", "bash", "sh"}
    return bool(ask & names or {r["command"][0] for r in layer.get("deny", [])} & names
                or set(layer.get("shell_builtins", [])) & names)


@budget(40)
@given(data=st.data(), keys=st.sets(st.sampled_from(sorted(TIGHTENINGS)), min_size=1,
                                    max_size=4),
       where=st.sampled_from(["project", "local", "both"]))
def test_a_stricter_layer_never_loosens(layered, policy, data, keys, where):
    tick("monotonicity: stricter layers")
    from gateway.policy.compiled import Policy
    from gateway.policy.merge import merge

    root, judge = layered
    layer = {k: data.draw(TIGHTENINGS[k]) for k in sorted(keys)}
    files = {"project": [".claude/gateway.yaml"], "local": [".claude/gateway.local.yaml"],
             "both": [".claude/gateway.yaml", ".claude/gateway.local.yaml"]}[where]
    for rel in (".claude/gateway.yaml", ".claude/gateway.local.yaml"):
        path = os.path.join(root, rel)
        if rel in files:
            text = layer
            if "local" in rel and "deny" in layer:  # deny ids are unique across layers
                text = dict(layer, deny=[dict(r, id=r["id"] + "-local") for r in layer["deny"]])
            with open(path, "w") as fh:
                json.dump(text, fh)  # JSON is YAML
        elif os.path.exists(path):
            os.remove(path)
    env = {"HOME": os.environ["HOME"], "GATEWAY_USER_RULES": os.environ["GATEWAY_USER_RULES"]}
    with builtin_layers_read_once():
        stricter = Policy(merge(root, env).policy)
    commands = []
    for _ in range(data.draw(st.integers(2, 4))):
        cmds = [fill_cmd(data.draw(S.allowed_cmd), root)
                for _ in range(data.draw(st.integers(1, 2)))]
        commands.append(data.draw(S.rendered(cmds)).text())
    commands.append(data.draw(S.refused_command(root)))
    for text in _targets(layer):
        before, after = judge(text), judge(text, policy=stricter)
        assert before.decision is ALLOW, f"{text!r}: {show(before)}"
        assert after.decision is not ALLOW, f"layer {layer} did not bind {text!r}: {show(after)}"
    for text in commands:
        before, after = judge(text), judge(text, policy=stricter)
        assert after.decision >= before.decision, (
            f"layer {layer} loosened {text!r}: {show(before)} -> {show(after)}")
        if before.decision is ALLOW and _must_bind(layer, text):
            assert after.decision is not ALLOW, f"layer {layer} did not bind {text!r}: " \
                f"{show(after)}"
        if "compound" in layer and before.decision is ALLOW and len(
                _names_in(text)) > 1:
            # phase 2 refuses the list; only a deny rule (which beats ask) or the length
            # limit (phase S0, earlier) may decide instead
            assert (after.decision, after.code) in ((ASK, "GW215"), (ASK, "GW003"),
                                                    (DENY, "GW750")), f"{text!r}: {show(after)}"


@budget(25)
@given(loosen=st.sampled_from(LOOSENINGS), where=st.sampled_from(["gateway.yaml",
                                                                  "gateway.local.yaml"]),
       cmd=st.sampled_from(["ls", "cat README.md", "git status", "python3 scripts/foo.py",
                            "rm -rf x", "cat /etc/passwd", "git status | head -5"]))
def test_a_layer_that_loosens_is_refused(layered, loosen, where, cmd):
    """A project/local layer that tries to loosen cannot be loaded, and then nothing is
    allowed (GW901), on every entry point that loads the rules."""
    tick("monotonicity: loosening layers are refused")
    from gateway import runtime
    from gateway.settings import SettingsRules

    root, _judge = layered
    for rel in ("gateway.yaml", "gateway.local.yaml"):
        path = os.path.join(root, ".claude", rel)
        if os.path.exists(path):
            os.remove(path)
    with open(os.path.join(root, ".claude", where), "w") as fh:
        json.dump(loosen, fh)
    env = dict(os.environ)
    with builtin_layers_read_once():
        v = runtime.judge_bash(cmd, root, root, env=env, settings=SettingsRules())
    os.remove(os.path.join(root, ".claude", where))
    assert (v.decision, v.code) == (ASK, "GW901"), f"{loosen} in {where}: {cmd!r}: {show(v)}"


@budget(120)
@given(data=st.data(), kind=st.sampled_from(["ask", "deny"]),
       form=st.sampled_from(["prefix", "exact", "glob", "all"]))
def test_settings_rules_bind(pjudge, data, kind, form):
    tick("monotonicity: settings rules bind")
    from gateway.settings import Rule, SettingsRules

    cmd = fill_cmd(data.draw(S.allowed_cmd), pjudge.project)
    text = data.draw(S.rendered([cmd])).text()
    argv = cmd.argv
    if any(a != a.strip() or not a for a in argv):
        form = "glob"  # Bash(...) rule text is stripped: whitespace at the ends cannot match
    k = data.draw(st.integers(1, len(argv)))
    if form == "prefix":
        rule = "Bash(" + " ".join(argv[:k]) + ":*)"
    elif form == "exact":
        rule = "Bash(" + " ".join(argv) + ")"
    elif form == "glob":
        rule = "Bash(" + argv[0] + " *)"
    else:
        rule = "Bash"
    settings = SettingsRules([Rule(kind, rule, "settings.json")])
    other = pjudge(data.draw(S.rendered([fill_cmd(data.draw(S.allowed_cmd), pjudge.project)]))
                   .text() + " && " + text, settings=settings)
    v = pjudge(text, settings=settings)
    want = (ASK, "GW708") if kind == "ask" else (DENY, "GW709")
    assert (v.decision, v.code) == want, f"{rule} ({kind}) on {text!r}: {show(v)}"
    assert other.decision >= want[0], f"{rule} ({kind}) in a list: {show(other)}"
