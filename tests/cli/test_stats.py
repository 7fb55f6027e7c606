"""gateway stats: prompts per command, and proposals that are narrow, proven, and never made
for what a safety check asked."""

import json
import os

import pytest
import yaml
from click.testing import CliRunner

from gateway import runtime
from gateway.cli import _proposals as P
from gateway.cli.app import cli


@pytest.fixture()
def proj(tmp_path):
    p = tmp_path / "proj"
    for d in (".claude", "src", "build"):
        (p / d).mkdir(parents=True)
    (p / "src" / "a.py").write_text("")
    (p / ".env").write_text("K=1\n")
    return str(p.resolve())


def prompts(proj, *spec):
    """Audit entries: (command, times[, cwd, decision])."""
    out = []
    for item in spec:
        command, times = item[0], item[1]
        cwd = item[2] if len(item) > 2 else proj
        decision = item[3] if len(item) > 3 else "ask"
        out += [{"time": "2026-11-22T10:00:00Z", "event": "PermissionRequest", "tool": "Bash",
                 "command": command, "cwd": cwd, "decision": decision, "code": "GW703"}] * times
    return out


def analyse(entries, top=20):
    env = P.Env()
    groups, now_allowed = P.collect(entries, env)
    P.propose(groups, env, top)
    text, problem = P.combined(groups[:top], env)
    assert not problem, problem
    return {g.label: g for g in groups}, text, now_allowed


def with_rules(text, tmp_path, monkeypatch, proj):
    """The policy after pasting `text` into the user rules file, loaded the way the hook
    loads it (with the rule examples checked)."""
    path = tmp_path / "user-rules.yaml"
    path.write_text(text)
    monkeypatch.setenv("GATEWAY_USER_RULES", str(path))
    policy = runtime.get_policy(proj, use_cache=False)

    def judge(command, cwd=None):
        from gateway.settings import SettingsRules
        return runtime.judge_bash(command, cwd or proj, proj, policy=policy,
                                  settings=SettingsRules())
    return judge


# --- the narrowest entry ---------------------------------------------------------------


def test_narrowest_flat_and_split():
    assert P.narrowest([[]]) == {"safe_flags": [], "args": "none"}
    assert P.narrowest([["-v", "src/a.py"], ["src/b.py"]]) == \
        {"safe_flags": ["-v"], "max_positionals": 1, "writes": True}
    assert P.narrowest([["-xvf", "b", "c"]]) == \
        {"safe_flags": ["-f", "-v", "-x"], "max_positionals": 2, "writes": True}
    assert P.narrowest([["build"], ["test", "-q", "src"]]) == {
        "args": "none", "safe_flags": [], "subcommand_required": True, "subcommands": {
            "build": {"safe_flags": [], "args": "none"},
            "test": {"safe_flags": ["-q"], "max_positionals": 1, "writes": True}}}
    # a path first in some list: the lists that read as a subcommand keep it, the others
    # stay prompts (a flat entry would take `deploy` as a path: issue 25)
    assert P.narrowest([["build"], ["./x"]]) == {
        "args": "none", "safe_flags": [], "subcommand_required": True,
        "subcommands": {"build": {"safe_flags": [], "args": "none"}}}
    # nothing reads as a subcommand: flat
    assert P.narrowest([["./x"], ["-v", "src/a.py"]]) == \
        {"safe_flags": ["-v"], "max_positionals": 1, "writes": True}
    # --version / --help alone need no rule (every entry's info_flags)
    assert P.narrowest([["--version"], ["routes"], ["--help"]]) == {
        "args": "none", "safe_flags": [], "subcommand_required": True,
        "subcommands": {"routes": {"safe_flags": [], "args": "none"}}}
    assert P.narrowest([["--version"]]) == {"safe_flags": [], "args": "none"}
    # options before the subcommand are global options (issue 25): a flag, or one that takes
    # the word before the subcommand
    assert P.narrowest([["-v", "build"]]) == {
        "args": "none", "safe_flags": [], "subcommand_required": True,
        "global": {"value_flags": [], "flags": ["-v"]},
        "subcommands": {"build": {"safe_flags": [], "args": "none"}}}
    assert P.narrowest([["--app", "flaskr", "routes"]]) == {
        "args": "none", "safe_flags": [], "subcommand_required": True,
        "global": {"value_flags": ["--app"], "flags": []},
        "subcommands": {"routes": {"safe_flags": [], "args": "none"}}}
    # an option read both ways: the first reading wins, the other list stays a prompt
    assert P.narrowest([["-x", "a", "run"], ["-x", "run"]]) == {
        "args": "none", "safe_flags": [], "subcommand_required": True,
        "global": {"value_flags": ["-x"], "flags": []},
        "subcommands": {"run": {"safe_flags": [], "args": "none"}}}
    # a glued value: flat (and refusal() proposes nothing for it)
    assert "subcommands" not in P.narrowest([["--app=x", "run"]])


# --- proposals for missing rules ---------------------------------------------------------


def test_unknown_command_gets_the_narrowest_entry_and_it_works_when_pasted(
        proj, tmp_path, monkeypatch):
    groups, text, _ = analyse(prompts(proj, ("frob build", 5), ("frob test -q src", 3),
                                      ("frob build | head -5", 1)))
    g = groups["frob"]
    assert g.prompts == 9 and g.code == "GW703"
    assert g.proposal.saved == 9
    assert g.proposal.entry["subcommands"] == {
        "build": {"safe_flags": [], "args": "none"},
        "test": {"safe_flags": ["-q"], "max_positionals": 1, "writes": True}}
    judge = with_rules(text, tmp_path, monkeypatch, proj)
    # --help alone is the help word every catalogued entry has (info_flags, issue 13)
    for ok in ("frob build", "frob test -q src", "frob test src/a.py", "frob build | head",
               "frob --help"):
        assert judge(ok).allowed, (ok, judge(ok))
    for still in ("frob", "frob deploy", "frob build --force", "frob test -q /etc",
                  "frob test ../x", "frob test a b", "frob --help x", "frob test .env"):
        assert not judge(still).allowed, still


def test_flat_entry_keeps_paths_inside_the_project(proj, tmp_path, monkeypatch):
    groups, text, _ = analyse(prompts(proj, ("fmtx -w src/a.py", 4), ("fmtx /etc/passwd", 1)))
    g = groups["fmtx"]
    assert g.proposal.entry["safe_flags"] == ["-w"]
    assert g.proposal.saved == 4 and g.prompts == 5  # the outside path stays a prompt
    judge = with_rules(text, tmp_path, monkeypatch, proj)
    assert judge("fmtx -w src/a.py").allowed and judge("fmtx src").allowed
    assert not judge("fmtx -w /etc/passwd").allowed
    assert not judge("fmtx --all src").allowed
    assert not judge("fmtx -w src/a.py src").allowed  # more arguments than ever seen
    assert not judge("fmtx .env").allowed  # secrets are never allowed
    # an unknown command may write its arguments: the permission surface stays protected
    for surface in (".claude/settings.json", ".git/hooks/pre-commit", ".claude/gateway.yaml"):
        assert not judge(f"fmtx {surface}").allowed, surface


def test_a_subcommand_after_a_global_option_stays_the_only_one(proj, tmp_path, monkeypatch):
    # issue 25: `flask --app X routes` (flask, since catalogued; quart is the same CLI, not catalogued) was proposed with --app and two paths,
    # which also allowed `quart --app X init-db`, `shell` and `run`
    os.makedirs(os.path.join(proj, "flaskr"))
    groups, text, _ = analyse(prompts(proj, ("quart --app flaskr routes", 4)))
    g = groups["quart"]
    assert g.proposal is not None and g.proposal.saved == 4, g.reason
    assert g.proposal.entry["subcommands"] == {"routes": {"safe_flags": [], "args": "none"}}
    judge = with_rules(text, tmp_path, monkeypatch, proj)
    assert judge("quart --app flaskr routes").allowed
    for still in ("quart --app flaskr init-db", "quart --app flaskr shell",
                  "quart --app flaskr run", "quart --app /tmp/x routes", "quart routes x",
                  "quart --app flaskr", "quart",
                  "quart --app flaskr routes --all"):
        assert not judge(still).allowed, still


def test_a_realistic_flask_log_proposes_only_the_subcommands_seen(tmp_path, monkeypatch):
    # issue 25, as a user meets it: the prompts are written by the real hook command
    # (PermissionRequest, raw JSON on stdin) in a flask project, `gateway stats --yaml` is
    # pasted into the user rules, and only what was seen runs: `quart --version` and
    # `flask routes` (FLASK_APP from .flaskenv) among the prompts made the proposal flat
    # on main, which allowed `quart --app flaskr init-db`, `shell` and `run`
    import subprocess
    import sys

    proj = tmp_path / "flaskproj"
    (proj / "flaskr").mkdir(parents=True)
    (proj / "flaskr" / "__init__.py").write_text("")
    (proj / ".flaskenv").write_text("FLASK_APP=flaskr\n")
    proj = str(proj.resolve())
    log = tmp_path / "audit.jsonl"
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GATEWAY_", "CLAUDE_"))}
    env.update(HOME=str(home), GATEWAY_AUDIT_LOG=str(log), CLAUDE_PROJECT_DIR=proj,
               GATEWAY_USER_RULES=str(tmp_path / "none.yaml"))
    seen = ["quart --app flaskr routes", "quart --app flaskr routes",
            "quart --app flaskr routes --sort rule", "quart routes", "quart --version",
            f"cd {proj} && quart --app flaskr routes", "quart --app flaskr routes | head -20"]
    for command in seen:
        payload = json.dumps({"session_id": "s", "transcript_path": "/tmp/t", "cwd": proj,
                              "hook_event_name": "PermissionRequest", "tool_name": "Bash",
                              "tool_input": {"command": command},
                              "permission_mode": "default"})
        out = subprocess.run([sys.executable, "-m", "gateway", "hook", "permission-request"],
                             input=payload, capture_output=True, text=True, env=env,
                             cwd=proj, timeout=60)
        assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(r["command"], r["decision"], r["code"]) for r in rows] == [
        (c, "ask", "GW703") for c in seen]
    monkeypatch.setenv("GATEWAY_USER_RULES", str(tmp_path / "none.yaml"))
    r = CliRunner().invoke(cli, ["stats", "--file", str(log), "--yaml"])
    assert r.exit_code == 0, r.output
    entry = yaml.safe_load(r.output)["catalogue"]["quart"]
    assert entry["subcommands"] == {"routes": {"safe_flags": ["--sort"],
                                               "max_positionals": 1, "writes": True}}
    assert entry["global"] == {"value_flags": ["--app"], "flags": []}
    judge = with_rules(r.output, tmp_path, monkeypatch, proj)
    for ok in seen[:4] + ["quart --version", "quart --app flaskr routes --sort endpoint"]:
        assert judge(ok).allowed, (ok, judge(ok))
    still = {"quart --app flaskr init-db": "GW705", "quart --app flaskr shell": "GW705",
             "quart run": "GW705", "quart --app flaskr run --debug": "GW705",
             "quart init-db": "GW705", "quart shell": "GW705", "quart --app flaskr": "GW705",
             "quart --app /tmp/x routes": "GW501", "quart --app flaskr routes --all": "GW704"}
    assert {c: (judge(c).decision.name, judge(c).code) for c in still} == \
        {c: ("ASK", code) for c, code in still.items()}


def test_a_task_runner_gets_a_proposal(proj, tmp_path, monkeypatch):
    # issue 25: tox runs what the project's tox.ini says, the trust make has; a rule for
    # the environments seen is proposed
    groups, text, _ = analyse(prompts(proj, ("tox -e py311", 3), ("tox -e lint", 1)))
    g = groups["tox"]
    assert g.proposal is not None and g.proposal.saved == 4, g.reason
    judge = with_rules(text, tmp_path, monkeypatch, proj)
    assert judge("tox -e py311").allowed and judge("tox -e lint").allowed
    for still in ("tox -e py312", "tox -e py311 --recreate", "tox -c /tmp/tox.ini -e lint",
                  "tox"):
        assert not judge(still).allowed, still


@pytest.mark.parametrize("seen,why", [
    ("tsx src/a.py", "runs whatever file"),
    ("frob -c 'print(1)'", "-c can run code"),
    ("frob --exec rm src", "--exec can run code"),
    ("frob --out=build/x src", "glues a value"),
    ("frob -Cbuild/x src", "glued to an option"),
])
def test_no_proposal_for_what_a_rule_could_not_keep_safe(proj, seen, why):
    groups, text, _ = analyse(prompts(proj, (seen, 3)))
    (g,) = groups.values()
    assert g.code == "GW703" and g.proposal is None and why in g.reason, g.reason
    assert text == ""


def test_unknown_subcommand_extends_a_copy_of_the_builtin_entry(proj, tmp_path, monkeypatch):
    # (go mod and go work are in the catalogue since issue 13: they download, GW764)
    # (go tool cover is in the catalogue since round 19: pprof extends go tool's entry)
    groups, text, _ = analyse(prompts(proj, ("go tool pprof", 4), ("go fix", 2)))
    assert groups["go tool pprof"].proposal.replaces_builtin
    doc = yaml.safe_load(text)
    subs = doc["catalogue"]["go"]["subcommands"]
    assert subs["tool"]["subcommands"]["pprof"] == {"safe_flags": [], "args": "none"}
    assert subs["tool"]["subcommands"]["cover"]["check"] == "go-cover"  # the built-in's
    assert "fix" in subs and "test" in subs  # both proposals in one copy
    assert "replaces the built-in go entry" in text
    judge = with_rules(text, tmp_path, monkeypatch, proj)
    assert judge("go tool pprof").allowed and judge("go fix").allowed
    assert judge("go test ./...").allowed  # the copy keeps what the built-in allowed
    for still in ("go tool vet", "go tool cover -html=c.out", "go get example.com/x",
                  "go test -exec sh ./..."):
        assert not judge(still).allowed, still


def test_a_proposal_that_breaks_a_rule_example_is_not_made(proj):
    # rules/catalogue.yaml: git's examples say `git init` must ask
    groups, text, _ = analyse(prompts(proj, ("git init", 6)))
    g = groups["git init"]
    assert g.proposal is None and "rule example" in g.reason
    assert text == ""


def test_compound_commands_count_only_if_the_proposal_settles_them(proj):
    groups, _, _ = analyse(prompts(proj, ("zork a && zork b", 2), ("zork && blip", 3)))
    g = groups["zork"]
    assert g.prompts == 5 and g.proposal.saved == 2


# --- never a proposal for a safety check -------------------------------------------------


@pytest.mark.parametrize("command,code", [
    ("curl https://example.com", "GW790"),
    ("curl -L localhost:8000/", "GW791"),
    ("wget https://example.com", "GW701"),
    ("git push origin main", "GW707"),
    ("cat .env", "GW503"),
    ("cat /etc/passwd", "GW501"),
    ("frob $(cat x)", "GW201"),
    ("echo hi > /etc/motd", "GW213"),
    ("ls ~", "GW209"),
    ("python3 src/a.py", "GW601"),
    ("sed -i s/a/b/ src/a.py", "GW704"),
    ("setsid frob", "GW706"),
    ("FOO=1 frob", "GW211"),
    ("sudo frob", "GW701"),
])
def test_no_proposal_for_safety_checks(proj, command, code):
    groups, text, _ = analyse(prompts(proj, (command, 3)))
    (g,) = groups.values()
    assert g.code == code and g.proposal is None, (g.code, g.reason)
    assert "safety check" in g.reason and text == ""


def test_users_permissions_ask_rule_is_binding(proj):
    with open(os.path.join(proj, ".claude", "settings.json"), "w") as fh:
        json.dump({"permissions": {"ask": ["Bash(frob:*)"]}}, fh)
    groups, text, _ = analyse(prompts(proj, ("frob build", 3)))
    (g,) = groups.values()
    assert g.code == "GW708" and g.proposal is None and text == ""


def test_denies_are_not_prompts_and_allowed_ones_are_counted_apart(proj):
    entries = prompts(proj, ("ls", 2))
    entries += [dict(e, decision="deny") for e in prompts(proj, ("rm -rf /", 2))]
    env = P.Env()
    asks = [e for e in entries if e["decision"] == "ask"]
    groups, now_allowed = P.collect(asks, env)
    assert groups == [] and now_allowed == 2


def test_other_tools_are_listed_without_proposal(proj):
    groups, _, _ = analyse([{"event": "PermissionRequest", "tool": "WebFetch",
                             "command": None, "cwd": proj, "decision": "ask"}])
    assert groups["(WebFetch tool)"].reason.startswith("not a Bash command")


# --- the command ---------------------------------------------------------------------------


@pytest.fixture()
def logfile(tmp_path, proj):
    path = tmp_path / "audit.jsonl"
    rows = prompts(proj, ("frob build", 4), ("curl https://x", 2), ("go tool pprof", 1))
    rows.append({"time": "2026-11-22T10:00:00Z", "event": "PermissionRequest", "tool": "Bash",
                 "command": "rm -rf /", "cwd": proj, "decision": "deny", "code": "GW750"})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_cli_table_and_yaml(logfile, tmp_path, monkeypatch):
    monkeypatch.setenv("GATEWAY_USER_RULES", str(tmp_path / "u.yaml"))
    r = CliRunner().invoke(cli, ["stats", "--file", str(logfile)])
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert lines[0].startswith("7 prompt(s)")
    row = next(line for line in lines if line.strip().startswith("4  frob"))
    assert "GW703" in row and "subcommands build" in row
    assert any("curl" in line and "none:" in line for line in lines)
    assert f"Paste into {tmp_path / 'u.yaml'}" in r.output
    r = CliRunner().invoke(cli, ["stats", "--file", str(logfile), "--yaml"])
    doc = yaml.safe_load(r.output)
    assert set(doc["catalogue"]) == {"frob", "go"}
    r = CliRunner().invoke(cli, ["stats", "--file", str(logfile), "--json", "--top", "1"])
    data = json.loads(r.output)
    assert data["prompts"] == 7 and len(data["groups"]) == 1
    assert data["groups"][0]["proposal"]["saves"] == 4


def test_cli_reports_skipped_lines_and_usage_errors(tmp_path):
    path = tmp_path / "audit.jsonl"
    path.write_text("garbage\n")
    r = CliRunner().invoke(cli, ["stats", "--file", str(path)])
    assert (r.exit_code, r.output) == (0, (
        f"gateway: skipped 1 line(s) that are not audit entries ({path} line 1); a torn last "
        "line is harmless, other damage means the file was edited by hand\n"
        "0 prompt(s) in the log\n"))
    r = CliRunner().invoke(cli, ["stats", "--file", str(tmp_path / "nope.jsonl")],
                           env={"GATEWAY_AUDIT_LOG": "off"})
    assert (r.exit_code, r.output) == (3, f"gateway: {tmp_path}/nope.jsonl: no such file (the "
                                          "audit log is off; --file names another one)\n")
    r = CliRunner().invoke(cli, ["stats", "--since", "1d", "--until", "2d"])
    assert r.exit_code == 2 and "--since is not before --until" in r.output
