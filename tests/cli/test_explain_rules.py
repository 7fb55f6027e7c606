"""`gateway explain` and `gateway rules show | validate`."""

import json

from click.testing import CliRunner

from gateway.cli.app import cli


def test_explain_known_code():
    result = CliRunner().invoke(cli, ["explain", "gw703"])
    assert result.exit_code == 0
    assert result.output.startswith("GW703  unknown command\n  phase 7A · leads to ask")
    assert "example: kill -9 1" in result.output


def test_explain_unknown_code():
    result = CliRunner().invoke(cli, ["explain", "GW999"])
    assert result.exit_code == 2
    assert "unknown reason code 'GW999'" in result.output


def test_explain_list_has_every_code():
    from gateway.codes import CODES
    out = CliRunner().invoke(cli, ["explain", "--list"]).output
    assert [line.split()[0] for line in out.splitlines()] == list(CODES)
    lines = out.splitlines()
    assert lines[0] == "GW001  S0              ask    NUL byte in the input"
    assert "GW820  guard:delegate  deny   delegate mode: tool not allowed" in lines
    assert len({line.index(" ask ") if " ask " in line else line.index(" deny ")
                for line in lines if " info " not in line and " allow " not in line}) == 1


def test_rules_show_names_layers(project, tmp_path):
    proj = tmp_path / "p"
    (proj / ".claude").mkdir(parents=True)
    (proj / ".claude" / "gateway.yaml").write_text("always_ask: [make]\n")
    result = CliRunner().invoke(cli, ["rules", "show", "--project", str(proj)])
    assert result.exit_code == 0
    line = [ln for ln in result.output.splitlines() if ln.strip().startswith("make ")]
    assert line and line[0].split()[-1] == "project"
    assert "  curl" in result.output and "builtin" in result.output


def test_rules_show_json(project):
    result = CliRunner().invoke(cli, ["rules", "show", "--json", "--project", project])
    data = json.loads(result.output)
    assert "git" in data["policy"]["catalogue"]
    assert data["sources"][0][0] == "builtin"


def test_rules_validate_ok(project):
    result = CliRunner().invoke(cli, ["rules", "validate", "--project", project])
    assert (result.exit_code, result.output) == (
        0, "rules are valid: built-in only (no ~/no-user-rules.yaml, "
        f"{project}/.claude/gateway.yaml or {project}/.claude/gateway.local.yaml)\n")


def test_rules_validate_reports_located_errors(tmp_path):
    f = tmp_path / ".claude" / "gateway.yaml"
    f.parent.mkdir()
    f.write_text("always_ask:\n  - curl\ncatalogue:\n  evil: {}\n")
    result = CliRunner().invoke(cli, ["rules", "validate", str(f)])
    assert result.exit_code == 3
    assert (f"{f}:3: catalogue: a project layer can only tighten the policy and this key "
            "adds commands that run without asking") in result.output


def test_rules_validate_checks_examples(tmp_path):
    f = tmp_path / "rules.yaml"
    f.write_text("catalogue:\n  mytool:\n    examples: {allow: ['mytool /etc/passwd']}\n")
    result = CliRunner().invoke(cli, ["rules", "validate", "--layer", "user", str(f)])
    assert result.exit_code == 3
    assert "example 'mytool /etc/passwd' should be allowed but got ask (GW501" in result.output


def test_rules_show_with_broken_rules_says_what_to_do(tmp_path):
    f = tmp_path / ".claude" / "gateway.yaml"
    f.parent.mkdir()
    f.write_text("always_ask: 5\n")
    result = CliRunner().invoke(cli, ["rules", "show", "--project", str(tmp_path)])
    assert (result.exit_code, result.output) == (3, (
        "gateway: the rules cannot be loaded, so there is no effective policy to show; until "
        "it is fixed every call asks (GW891, GW901):\n"
        f"  {f}:1: always_ask: Input should be a valid list\n"
        "Fix the file(s) above; `gateway rules validate` re-checks them.\n"))


def test_rules_validate_names_an_unknown_key_and_the_one_meant(tmp_path):
    f = tmp_path / "rules.yaml"
    f.write_text("catalog:\n  foo: {}\ncatalogue:\n  bar:\n    safe_flag: [-x]\n    args: none\n"
                 "limits:\n  zzz: 1\nzzz: 2\n")
    result = CliRunner().invoke(cli, ["rules", "validate", str(f)])
    assert (result.exit_code, result.output) == (3, (
        f"{f}:8: limits.zzz: unknown key 'zzz'; the keys here are max_command_length, "
        "max_segments\n"
        f"{f}:5: catalogue.bar.safe_flag: unknown key 'safe_flag'; did you mean 'safe_flags'?\n"
        f"{f}:1: catalog: unknown key 'catalog'; did you mean 'catalogue'?\n"
        f"{f}:9: zzz: unknown key 'zzz' (docs/rules.md lists every key)\n"
        "4 problem(s)\n"))
