"""`gateway breezing verify` (seed 001 検証実行規則): the seven steps in the seed's order, each
only when its file exists, stopping at the first failure, each result recorded -- on small
sample projects whose programs are harmless stand-ins that log how they were called."""

import json
import os
import stat
import subprocess
import sys

import pytest

from gateway.orchestration import verify

GATEWAY = os.path.join(os.path.dirname(sys.executable), "gateway")
PY = sys.executable

# seed 001 検証実行規則: | 順位 | 対象 | コマンド |
SEED_TABLE = [
    (1, "./tests/validate-plugin.sh", "bash ./tests/validate-plugin.sh"),
    (2, "./scripts/ci/check-consistency.sh", "bash ./scripts/ci/check-consistency.sh"),
    (3, "package.json test script", "npm test"),
    (4, "package.json lint script", "npm run lint"),
    (5, "pytest.ini / pyproject.toml", "pytest"),
    (6, "Cargo.toml", "cargo test"),
    (7, "go.mod", "go test ./..."),
]

FAKE = """#!/bin/sh
echo "$(basename "$0") $*" >> "$FAKE_LOG"
case "$(basename "$0") $*" in
  "$FAKE_FAIL") echo "boom from $(basename "$0")"; exit 1 ;;
esac
echo "ok from $(basename "$0")"
"""


def write(path, text, mode=None):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    if mode:
        path.chmod(mode)


@pytest.fixture()
def bin_dir(tmp_path):
    d = tmp_path / "bin"
    for prog in ("npm", "pnpm", "yarn", "pytest", "cargo", "go"):
        write(d / prog, FAKE, 0o755)
    return d


@pytest.fixture()
def env(tmp_path, bin_dir):
    return {"PATH": f"{bin_dir}:/usr/bin:/bin", "FAKE_LOG": str(tmp_path / "calls.log"),
            "FAKE_FAIL": "-", "HOME": str(tmp_path), "LANG": "C.UTF-8"}


def everything(proj):
    """A sample project where every step applies."""
    write(proj / "tests" / "validate-plugin.sh", 'echo "validate $*" >> "$FAKE_LOG"\n')
    write(proj / "scripts" / "ci" / "check-consistency.sh", 'echo "consistency" >> "$FAKE_LOG"\n')
    write(proj / "package.json", json.dumps({"scripts": {"test": "x", "lint": "y"}}))
    write(proj / "pyproject.toml", "[project]\nname = 'x'\n")
    write(proj / "Cargo.toml", "[package]\nname = 'x'\n")
    write(proj / "go.mod", "module x\n")


def calls(env):
    try:
        with open(env["FAKE_LOG"]) as fh:
            return fh.read().splitlines()
    except FileNotFoundError:
        return []


@pytest.mark.parametrize("number,trigger,command", SEED_TABLE)
def test_the_seed_table(proj, env, number, trigger, command):
    everything(proj)
    planned = verify.plan(proj, env=env)
    p = planned[number - 1]
    assert (p.step.number, p.step.trigger, p.display, p.applies) == (number, trigger, command,
                                                                      True)


def test_every_step_runs_in_the_seed_order(proj, env):
    everything(proj)
    rec = verify.run(proj, verify.plan(proj, env=env), env=env)
    assert rec["ok"] is True and rec["stopped_at"] is None
    assert calls(env) == ["validate ", "consistency", "npm test", "npm run lint", "pytest ",
                          "cargo test", "go test ./..."]
    assert [s["status"] for s in rec["steps"]] == ["passed"] * 7


def test_a_step_runs_only_when_its_file_exists(proj, env):
    write(proj / "go.mod", "module x\n")
    write(proj / "package.json", json.dumps({"scripts": {"lint": "eslint"}}))   # no test script
    rec = verify.run(proj, verify.plan(proj, env=env), env=env)
    assert calls(env) == ["npm run lint", "go test ./..."]
    assert [s["status"] for s in rec["steps"]] == ["not-present", "not-present", "not-present",
                                                   "passed", "not-present", "not-present",
                                                   "passed"]


@pytest.mark.parametrize("fail,stopped", [("npm test", 3), ("cargo test", 6)])
def test_it_stops_at_the_first_failure_and_records_it(proj, env, fail, stopped):
    everything(proj)
    env["FAKE_FAIL"] = fail
    rec = verify.run(proj, verify.plan(proj, env=env), env=env)
    assert rec["ok"] is False and rec["stopped_at"] == stopped
    assert calls(env)[-1] == fail                         # nothing ran after it
    steps = {s["number"]: s for s in rec["steps"]}
    assert steps[stopped]["status"] == "failed" and steps[stopped]["exit_code"] == 1
    assert f"boom from {fail.split()[0]}" in steps[stopped]["output_tail"]
    assert all(steps[n]["status"] == "not-run" for n in range(stopped + 1, 8))
    on_disk = json.loads((proj / ".claude/state/gateway-breezing-verify.json").read_text())
    assert on_disk["stopped_at"] == stopped and on_disk["ok"] is False


def test_each_result_is_recorded_as_soon_as_the_step_ends(proj, env):
    everything(proj)
    seen = []

    def on_step(p):
        if p.result is not None and p.result["status"] == "passed":
            rec = json.loads((proj / ".claude/state/gateway-breezing-verify.json").read_text())
            seen.append([s["status"] for s in rec["steps"]][:p.step.number])
    verify.run(proj, verify.plan(proj, env=env), on_step=on_step, env=env)
    assert seen[2] == ["passed", "passed", "passed"]          # written after step 3, not at the end


@pytest.mark.parametrize("files,manager", [
    ({"pnpm-lock.yaml": ""}, "pnpm"), ({"yarn.lock": ""}, "yarn"), ({}, "npm"),
    ({"yarn.lock": "", "package.json": '{"packageManager": "pnpm@8.6.0", "scripts": '
                                       '{"test": "x"}}'}, "pnpm")])
def test_the_package_manager(proj, env, files, manager):
    write(proj / "package.json", json.dumps({"scripts": {"test": "x"}}))
    for name, text in files.items():
        write(proj / name, text)
    p = verify.plan(proj, env=env)[2]
    assert p.display == f"{manager} test"
    assert verify.plan(proj, env=env, pkg_manager="yarn")[2].display == "yarn test"


def test_pytest_can_be_replaced_and_its_no_tests_exit_is_not_a_failure(proj, env, tmp_path):
    write(proj / "pytest.ini", "[pytest]\n")
    write(tmp_path / "fake-pytest", "#!/bin/sh\necho 'no tests ran in 0.01s'\nexit 5\n", 0o755)
    rec = verify.run(proj, verify.plan(proj, env=env, pytest=f"{tmp_path}/fake-pytest -q"),
                     env=env)
    step = rec["steps"][4]
    assert step["command"] == f"{tmp_path}/fake-pytest -q" and step["status"] == "no-tests"
    assert rec["ok"] is True


def test_a_real_pytest_run_counts_the_tests(proj):
    write(proj / "pyproject.toml", "[tool.pytest.ini_options]\naddopts = '-p no:cacheprovider'\n")
    write(proj / "test_sample.py", "def test_a():\n    assert 1\n\ndef test_b():\n    assert 2\n")
    rec = verify.run(proj, verify.plan(proj, pytest=f"{PY} -m pytest -q"))
    assert rec["ok"] is True, rec["steps"][4]["output_tail"]
    assert rec["steps"][4]["tests"] == {"passed": 2, "total": 2}


@pytest.mark.parametrize("out,counts", [
    (b"== 12 passed in 0.3s ==", (12, 12)),
    (b"3 failed, 9 passed, 1 error in 2s", (9, 13)),
    (b"test result: ok. 5 passed; 0 failed; 0 ignored\ntest result: FAILED. 1 passed; 2 failed",
     (6, 8)),
    (b"Tests:       1 failed, 11 passed, 12 total", (11, 12)),
    (b"ok  \tx\t0.01s", None),
])
def test_test_counts(out, counts):
    assert verify.test_counts(out) == counts


def test_a_script_leading_out_of_the_project_is_refused(proj, env, tmp_path):
    write(tmp_path / "elsewhere.sh", "echo ran >> \"$FAKE_LOG\"\n")
    (proj / "tests").mkdir()
    os.symlink(tmp_path / "elsewhere.sh", proj / "tests" / "validate-plugin.sh")
    rec = verify.run(proj, verify.plan(proj, env=env), env=env)
    s = rec["steps"][0]
    assert s["status"] == "refused" and rec["ok"] is False
    assert s["reason"].startswith("tests/validate-plugin.sh leads out of the project (to ")
    assert calls(env) == []


def test_a_missing_program_is_refused_with_the_reason(proj, env, tmp_path):
    write(proj / "go.mod", "module x\n")
    (tmp_path / "empty").mkdir()
    env["PATH"] = str(tmp_path / "empty")
    rec = verify.run(proj, verify.plan(proj, env=env), env=env)
    assert rec["steps"][6]["status"] == "refused"
    assert rec["steps"][6]["reason"] == "go was not found (the step applies because go.mod " \
                                        "exists)"


def test_relative_path_entries_are_not_searched_and_said(proj, env, bin_dir):
    write(proj / "go.mod", "module x\n")
    write(proj / "go", FAKE, 0o755)                       # ./go in the project
    env["PATH"] = ".:/nonexistent"
    p = verify.plan(proj, env=env)[6]
    assert p.refused is not None
    assert p.notes == ["relative PATH entries were not searched: ."]


def test_a_program_inside_the_project_is_said(proj, env):
    write(proj / "go.mod", "module x\n")
    write(proj / ".tools" / "go", FAKE, 0o755)
    env["PATH"] = f"{proj}/.tools:/usr/bin"
    p = verify.plan(proj, env=env)[6]
    assert p.notes[0] == f"go is {proj}/.tools/go (inside the project: the project's own program)"


def test_a_hanging_step_times_out(proj, env, tmp_path):
    write(proj / "pytest.ini", "[pytest]\n")
    write(tmp_path / "slow", "#!/bin/sh\nsleep 30\n", 0o755)
    rec = verify.run(proj, verify.plan(proj, env=env, pytest=str(tmp_path / "slow")),
                     timeout=0.5, env=env)
    assert rec["steps"][4]["status"] == "timeout" and rec["ok"] is False


def test_bad_options(proj, env):
    with pytest.raises(verify.VerifyError, match="--pkg-manager must be one of"):
        verify.plan(proj, pkg_manager="pip")
    with pytest.raises(verify.VerifyError, match="cannot be split"):
        verify.plan(proj, pytest="pytest 'unclosed")
    write(proj / "package.json", "{ nope")
    with pytest.raises(verify.VerifyError, match="package.json.*not valid JSON"):
        verify.plan(proj)


# --- the command ---------------------------------------------------------------------------

def cli(proj, env, *args):
    return subprocess.run([GATEWAY, "breezing", "verify", "--project", str(proj), *args],
                          capture_output=True, text=True, env=env, timeout=60)


def test_cli_dry_run_shows_what_would_run_and_runs_nothing(proj, env, bin_dir):
    write(proj / "package.json", json.dumps({"scripts": {"test": "x"}}))
    write(proj / "go.mod", "module x\n")
    p = cli(proj, env, "--dry-run")
    assert p.returncode == 0 and calls(env) == []
    assert p.stdout.split("\n")[:6] == [
        "The project's own checks, in seed 001's order (project code, run with your privileges "
        "in the project directory):",
        "1. ./tests/validate-plugin.sh: not present",
        "2. ./scripts/ci/check-consistency.sh: not present",
        "3. package.json test script: npm test (would run)",
        f"   npm is {bin_dir}/npm",
        "4. package.json lint script: not present"]


def test_cli_failure_exit_1_with_the_output_tail(proj, env):
    everything(proj)
    env["FAKE_FAIL"] = "npm run lint"
    p = cli(proj, env)
    assert p.returncode == 1
    out = p.stdout.split("\n")
    assert "   | boom from npm" in out
    assert "5. pytest.ini / pyproject.toml: pytest: not run (stopped at step 4)" in out
    assert out[-2] == "Result: ❌ stopped at step 4; not run: 5, 6, 7"


def test_cli_json(proj, env):
    write(proj / "Cargo.toml", "[package]\n")
    p = cli(proj, env, "--json")
    rec = json.loads(p.stdout)
    assert p.returncode == 0 and rec["ok"] is True
    assert rec["steps"][5]["status"] == "passed" and rec["steps"][5]["command"] == "cargo test"
    p = cli(proj, env, "--pkg-manager", "pip")
    assert p.returncode == 2


def test_cli_nothing_applies(proj, env):
    p = cli(proj, env)
    assert p.returncode == 0 and p.stdout.endswith(
        "Result: no step applies (none of the files exists)\n")


def test_record_file_mode(proj, env):
    write(proj / "go.mod", "module x\n")
    cli(proj, env)
    st = os.stat(proj / ".claude/state/gateway-breezing-verify.json")
    assert stat.S_IMODE(st.st_mode) & 0o077 == 0
