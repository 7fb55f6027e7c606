"""Robustness: for arbitrary bytes and arbitrary JSON on the hook's stdin the hook exits 0,
prints nothing or exactly one valid hook JSON object, and never allows what the validator
would not; no exception escapes a public function (and none hides inside as GW902)."""

import io
import json
import os

from hypothesis import given
from hypothesis import strategies as st

from gateway.decision import ALLOW, Decision
from tests.property import known_bugs
from tests.property import strategies as S
from tests.property.conftest import budget
from tests.property.support import STATS, builtin_layers_read_once, in_dir, show, tick
from tests.property.test_agreement import _parse_hook

json_scalar = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
                        st.text(max_size=20))
json_value = st.recursive(json_scalar, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=12)


@st.composite
def payload_like(draw, project):
    """Objects shaped like a PermissionRequest payload, with any field of any type."""
    obj = {}
    if draw(st.integers(0, 5)):
        obj["tool_name"] = draw(st.one_of(st.just("Bash"), st.sampled_from(
            ["bash", "BASH", "Bash ", "Write", "", "Bash\x00"]), json_value))
    if draw(st.integers(0, 5)):
        if draw(st.integers(0, 4)):
            ti = {}
            if draw(st.integers(0, 5)):
                ti["command"] = draw(st.one_of(S.any_command(project), json_value,
                                               st.just("ls"), st.text(max_size=40)))
            for k in draw(st.lists(st.sampled_from(["description", "timeout",
                                                    "run_in_background", "x"]),
                                   max_size=2)):
                ti[k] = draw(json_value)
            obj["tool_input"] = ti
        else:
            obj["tool_input"] = draw(json_value)
    if draw(st.integers(0, 3)):
        obj["cwd"] = draw(st.one_of(st.just(project), st.just(project + "/src"),
                                    st.sampled_from(["relative/dir", "", "/nonexistent/x",
                                                     project + "/../..", project + "/lnk"]),
                                    json_value))
    for k in draw(st.lists(st.sampled_from(["session_id", "hook_event_name", "permission_mode",
                                            "transcript_path", "permission_suggestions"]),
                           max_size=3)):
        obj[k] = draw(json_value)
    return obj


def _run_hook(raw: bytes, project):
    from gateway.hooks import runner

    env = dict(os.environ)
    env.pop("CLAUDE_PROJECT_DIR", None)
    out = io.StringIO()
    STATS["validations"] += 1
    with in_dir(project):
        rc = runner.run("permission-request", stdin=io.BytesIO(raw), stdout=out, env=env)
    assert rc == 0
    return _parse_hook(out.getvalue())


def _allowed_by_validator(payload, project):
    """An allow is only right for a well-formed Bash payload the validator allows."""
    from gateway.runtime import judge_bash

    if not isinstance(payload, dict) or payload.get("tool_name") != "Bash":
        return False
    ti = payload.get("tool_input")
    if not isinstance(ti, dict) or not isinstance(ti.get("command"), str):
        return False
    cwd = payload.get("cwd", project)
    if not isinstance(cwd, str):
        return False
    from gateway.paths import project_dir

    env = dict(os.environ)
    env.pop("CLAUDE_PROJECT_DIR", None)
    with in_dir(project):
        root = project_dir(cwd if cwd.startswith("/") else None, env)
        STATS["validations"] += 1
        v = judge_bash(ti["command"], cwd if cwd.startswith("/") else root, root, env=env)
    return v.decision is ALLOW


@budget(200)
@given(raw=st.one_of(st.binary(max_size=300), st.text(max_size=200).map(str.encode),
                     json_value.map(lambda v: json.dumps(v).encode())))
def test_hook_on_arbitrary_stdin(pproject, raw):
    tick("robustness: hook on arbitrary bytes / JSON")
    out = _run_hook(raw, pproject)
    if out is not None and out["behavior"] == "allow":
        assert _allowed_by_validator(json.loads(raw), pproject), raw


@budget(200)
@given(data=st.data())
def test_hook_on_payload_shaped_json(pproject, data):
    tick("robustness: hook on payload-shaped JSON")
    payload = data.draw(payload_like(pproject))
    cwd = payload.get("cwd")
    if known_bugs.is_open("nul-in-cwd") and isinstance(cwd, str) and "\x00" in cwd:
        payload["cwd"] = cwd.replace("\x00", "")
    raw = json.dumps(payload, ensure_ascii=data.draw(st.booleans())).encode("utf-8",
                                                                            "surrogatepass")
    out = _run_hook(raw, pproject)
    if out is not None and out["behavior"] == "allow":
        assert _allowed_by_validator(payload, pproject), payload


@budget(150)
@given(data=st.data())
def test_hook_never_allows_a_refused_command(pproject, data):
    """A well-formed payload whose command is refused: no allow, whatever the other fields."""
    tick("robustness: hook with refused commands")
    command = data.draw(S.refused_command(pproject))
    payload = data.draw(payload_like(pproject))
    payload["tool_name"] = "Bash"
    payload["tool_input"] = {"command": command}
    # the refused command is refused relative to the project root (or the hook's own
    # working directory, which is the project when the payload has no cwd)
    if data.draw(st.booleans()):
        payload["cwd"] = pproject
    else:
        payload.pop("cwd", None)
    out = _run_hook(json.dumps(payload).encode(), pproject)
    assert out is None or out["behavior"] == "deny", f"{command!r}: {out}"


@budget(300)
@given(text=st.one_of(st.text(max_size=80), st.text(S.TEXT_ALPHABET, max_size=80)),
       cwd=st.one_of(st.sampled_from(["", "src", "lnk", "uplink", "dangling", "nope"]),
                     st.text(max_size=10)),
       tool=st.sampled_from(["Bash", "Bash", None, "", "Write"]))
def test_validate_never_raises_and_never_hides_an_error(pjudge, text, cwd, tool):
    tick("robustness: validate on arbitrary text")
    from gateway.validator.pipeline import validate

    if known_bugs.is_open("nul-in-cwd"):
        cwd = cwd.replace("\x00", "")
    where = os.path.join(pjudge.project, cwd)
    STATS["validations"] += 1
    v = validate(text, where, pjudge.project, pjudge.policy, tool, pjudge.settings)
    assert isinstance(v.decision, Decision)
    assert v.code != "GW902" or "nests too deeply" in v.message, f"{text!r}: {show(v)}"
    json.dumps(v.as_dict())


@budget(150)
@given(text=st.text(max_size=60))
def test_shell_layer_raises_only_its_own_errors(text):
    tick("robustness: parse / decode")
    from gateway.shell.parse import ShellParseError, parse
    from gateway.shell.words import decode

    w = decode(text)
    assert isinstance(w.value, str) and isinstance(w.issues, list)
    try:
        parse(text)
    except ShellParseError:
        pass


@budget(40)
@given(layer=st.one_of(json_value, st.dictionaries(
    st.sampled_from(["always_ask", "subcommand_ask", "deny", "secrets", "limits", "compound",
                     "wrappers", "protected_paths", "catalogue", "version", "x"]),
    json_value, max_size=4)), as_yaml=st.booleans(), raw=st.text(max_size=60))
def test_rules_loading_raises_only_policy_errors(tmp_path_factory, layer, as_yaml, raw):
    """Any project layer, well-formed or not: the policy loads or PolicyError says why."""
    tick("robustness: rules loading")
    import yaml

    from gateway.policy.compiled import Policy
    from gateway.policy.errors import PolicyError
    from gateway.policy.merge import merge

    root = tmp_path_factory.mktemp("rules")
    os.makedirs(root / ".claude")
    text = yaml.safe_dump(layer) if as_yaml else raw
    (root / ".claude" / "gateway.yaml").write_text(text, encoding="utf-8", errors="replace")
    env = {"HOME": os.environ["HOME"], "GATEWAY_USER_RULES": os.environ["GATEWAY_USER_RULES"]}
    try:
        with builtin_layers_read_once():
            Policy(merge(str(root), env).policy)
    except PolicyError as exc:
        assert exc.errors and all(isinstance(e, str) for e in exc.errors)
