"""Plan mode's read-only forms (issue 25, p25), in the independent benchmark's sample
projects: plan mode allows what the validator's own checks proved writes nothing (tsc
--noEmit without build info, unzip's listing modes, a version query, `npm run` alone, the
names xargs adds to a reader as operands). Generated neighbours that write keep asking with
GW720 (or the validator's own ask):

* tsc --noEmit with an option or a configuration that writes the build info or a trace
  (TypeScript 5.9.3 in a temp project: --incremental, composite, tsBuildInfoFile and
  generateTrace each wrote a file with --noEmit; see tests/e2e/test_hook_everyday_p25.py);
* unzip without a listing mode extracts (GW721 outside acceptEdits);
* xargs running a command that writes its operands (touch, rm, sed -i) or one whose
  options write (sort -o)."""

import json
import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gateway.decision import ALLOW
from tests.property.conftest import budget
from tests.property.support import tick


@pytest.fixture(scope="module")
def apps(tmp_path_factory):
    from benchmarks.everyday.independent.projects import build

    root = str(tmp_path_factory.mktemp("plan-readonly"))
    out = {eco: build(root, eco) for eco in ("node", "python", "java")}
    node = out["node"][0]
    for key, value in WRITING_CONFIG.items():
        with open(os.path.join(node, f"tsconfig.{key}.json"), "w", encoding="utf-8") as fh:
            json.dump({"compilerOptions": {key: value}}, fh)
    return out


def _v(policy, apps, eco, command, mode="plan"):
    from gateway.validator.pipeline import validate

    project, home = apps[eco]
    return validate(command, project, project, policy, mode=mode, env={"HOME": home})


#: tsc options that write nothing with --noEmit
TSC_QUIET = ["--pretty", "--strict", "--skipLibCheck", "--listFiles", "--explainFiles",
             "--extendedDiagnostics", "--diagnostics", "--noErrorTruncation",
             "-p tsconfig.app.json", "--project tsconfig.app.json"]
#: tsc options that write with --noEmit (TypeScript 5.9.3, temp project: the build info,
#: a trace directory, a CPU profile, tsconfig.json from --init) or make tsc emit again
TSC_WRITING = ["--incremental", "--composite", "--tsBuildInfoFile x.tsbuildinfo",
               "--generateTrace trace", "--generateCpuProfile p.cpuprofile", "--init",
               "--noEmit false", "--INCREMENTAL", "-incremental"]
#: compilerOptions that make tsc --noEmit write (each in tsconfig.KEY.json)
WRITING_CONFIG = {"incremental": True, "composite": True, "tsBuildInfoFile": "b.tsbuildinfo",
                  "generateTrace": "trace"}
RUNNERS = ["npx ", "./node_modules/.bin/", "npm exec -- "]


@budget(40)
@given(runner=st.sampled_from(RUNNERS), opts=st.lists(st.sampled_from(TSC_QUIET), max_size=3))
def test_tsc_noemit_runs_in_plan(policy, apps, runner, opts):
    tick("plan:tsc-quiet")
    cmd = f"{runner}tsc --noEmit " + " ".join(opts)
    if "-p tsconfig.app.json" in opts and "--project tsconfig.app.json" in opts:
        return
    v = _v(policy, apps, "node", cmd)
    assert (v.decision, v.code) == (ALLOW, "GW700"), (cmd, v.code, v.message)


@budget(60)
@given(runner=st.sampled_from(RUNNERS), opts=st.lists(st.sampled_from(TSC_QUIET), max_size=2),
       bad=st.sampled_from(TSC_WRITING), at=st.integers(0, 3))
def test_tsc_that_writes_asks_in_plan(policy, apps, runner, opts, bad, at):
    tick("plan:tsc-writes")
    words = list(opts)
    words.insert(min(at, len(words)), bad)
    cmd = f"{runner}tsc --noEmit " + " ".join(words)
    v = _v(policy, apps, "node", cmd)
    assert v.decision is not ALLOW, (cmd, v.code, v.message)


@budget(30)
@given(runner=st.sampled_from(RUNNERS), key=st.sampled_from(sorted(WRITING_CONFIG)),
       opts=st.lists(st.sampled_from(TSC_QUIET[:-2]), max_size=2))
def test_tsc_with_a_configuration_that_writes_asks_in_plan(policy, apps, runner, key, opts):
    tick("plan:tsc-config")
    cmd = f"{runner}tsc --noEmit -p tsconfig.{key}.json " + " ".join(opts)
    v = _v(policy, apps, "node", cmd)
    assert (v.decision.name, v.code) == ("ASK", "GW720"), (cmd, v.code, v.message)
    # the same line runs in default mode: plan reuses its judgement, it is not stricter there
    assert _v(policy, apps, "node", cmd, "default").decision is ALLOW


UNZIP_LIST = ["-l", "-v", "-t", "-Z", "-lo", "-tq", "-l -d out", "-z"]
UNZIP_EXTRACT = ["", "-o", "-q", "-n", "-j", "-d out", "-qo"]


@budget(30)
@given(opts=st.sampled_from(UNZIP_LIST), pipe=st.sampled_from(["", " | head -30"]))
def test_unzip_listing_runs_in_plan(policy, apps, opts, pipe):
    tick("plan:unzip-list")
    cmd = f"unzip {opts} target/order-service-0.0.1-SNAPSHOT.jar{pipe}"
    v = _v(policy, apps, "java", cmd)
    assert (v.decision, v.code) == (ALLOW, "GW700"), (cmd, v.code, v.message)


@budget(30)
@given(opts=st.sampled_from(UNZIP_EXTRACT))
def test_unzip_extracting_asks_in_plan(policy, apps, opts):
    tick("plan:unzip-extract")
    project = apps["java"][0]
    import zipfile

    path = os.path.join(project, "dist.zip")
    if not os.path.exists(path):
        with zipfile.ZipFile(path, "w") as zf:
            zf.writestr("notes/readme.txt", "hello\n")
    cmd = f"unzip {opts} dist.zip"
    v = _v(policy, apps, "java", cmd)
    assert (v.decision.name, v.code) == ("ASK", "GW721"), (cmd, v.code, v.message)


READERS = ["wc -l", "wc -c", "wc", "grep -l TODO", "head -1", "cat"]
WRITERS = ["touch", "rm", "rm -f", "sed -i s/a/b/", "sort -o out.txt", "tee out.txt",
           "chmod 644", "cp -t build", "truncate -s 0", "mv -t build"]
PRODUCERS = ['find . -name "*.py" -not -path "./.venv/*"', "git ls-files '*.py'",
             "find orders -type f"]


@budget(40)
@given(producer=st.sampled_from(PRODUCERS), reader=st.sampled_from(READERS),
       tail=st.sampled_from(["", " | sort -n | tail -15", " | head"]))
def test_xargs_reader_runs_in_plan(policy, apps, producer, reader, tail):
    tick("plan:xargs-reader")
    cmd = f"{producer} | xargs {reader}{tail}"
    v = _v(policy, apps, "python", cmd)
    assert (v.decision, v.code) == (ALLOW, "GW700"), (cmd, v.code, v.message)


@budget(40)
@given(producer=st.sampled_from(PRODUCERS), writer=st.sampled_from(WRITERS),
       null=st.booleans())
def test_xargs_writer_asks_in_plan(policy, apps, producer, writer, null):
    tick("plan:xargs-writer")
    cmd = f"{producer} | xargs {'-0 ' if null else ''}{writer}"
    v = _v(policy, apps, "python", cmd)
    assert v.decision is not ALLOW, (cmd, v.code, v.message)


@pytest.mark.parametrize("eco,cmd", [
    ("java", "./mvnw -v"), ("java", "./mvnw --version"), ("java", "./gradlew --version"),
    ("java", "./gradlew -v"), ("node", "npm run"), ("node", "npm run --silent"),
    ("python", "flake8 orders/ --count --statistics")])
def test_version_queries_and_listings_run_in_plan(policy, apps, eco, cmd):
    v = _v(policy, apps, eco, cmd)
    assert (v.decision, v.code) == (ALLOW, "GW700"), (cmd, v.code, v.message)


@pytest.mark.parametrize("eco,cmd", [
    ("java", "./mvnw -v compile"), ("java", "./gradlew build"), ("node", "npm run build"),
    ("node", "npm run lint -- --fix"), ("python", "flake8 --output-file=r.txt orders"),
    ("python", "flake8 --output r.txt orders")])
def test_neighbours_that_run_or_write_ask_in_plan(policy, apps, eco, cmd):
    v = _v(policy, apps, eco, cmd)
    assert v.decision is not ALLOW, (cmd, v.code, v.message)
