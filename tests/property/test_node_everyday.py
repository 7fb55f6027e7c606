"""The node list's everyday forms (issue 25), in the independent benchmark's Vite/TS app:
`npm pkg get`, `npm config get KEY` (a key that holds no credential), `vite` (build, dev,
preview) and `playwright test` are allowed with the options they may take; their neighbours
ask: a credential key or no key (every value, as real npm 10 prints them), a write of the
package (pkg set, config set), an output directory or configuration outside the project, a
browser opened (--open, --ui, --debug), snapshots rewritten, browsers downloaded."""

import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gateway.decision import ALLOW, ASK
from tests.property.conftest import budget
from tests.property.support import tick


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    from benchmarks.everyday.independent.projects import build

    project, home = build(str(tmp_path_factory.mktemp("nodeapp")), "node")
    assert os.path.isdir(os.path.join(project, "node_modules", ".bin"))
    return project, home


def _v(policy, app, command, mode="default"):
    from gateway.validator.pipeline import validate

    project, home = app
    return validate(command, project, project, policy, mode=mode, env={"HOME": home})


RUNNERS = ["", "npx ", "pnpm exec ", "./node_modules/.bin/"]
KEYS = ["registry", "@acme:registry", "prefix", "cache", "save-exact", "loglevel"]
SECRET_KEYS = ["//registry.npmjs.org/:_authToken", "_auth", "_password", "email",
               "//npm.acme.dev/:_authToken", "username", "certfile", "keyfile", "proxy",
               "https-proxy", "Registry"]
VITE = {"build": ["--mode staging", "--outDir build/web", "--sourcemap", "--minify=false",
                  "--emptyOutDir", "--base /app/", "-l warn"],
        "": ["--port 5174", "--host", "--strictPort", "--force", "--mode test"],
        "preview": ["--port 4173", "--strictPort", "--outDir dist"]}
VITE_BAD = ["--open", "--outDir /tmp/x", "--outDir ../out", "--config /tmp/v.ts",
            "--outDir .claude/hooks", "--bogus", "/tmp/app", "--configLoader runner"]
PW = ["--project=chromium", "--reporter=line", "-g login", "--workers 2", "--retries=1",
      "--headed", "--list", "-x", "--trace on", "tests/e2e/login.spec.ts"]
PW_BAD = ["-u", "--update-snapshots", "--ui", "--debug", "--output /tmp/r",
          "--config /tmp/p.ts", "--bogus"]


@budget(40)
@given(keys=st.lists(st.sampled_from(KEYS), min_size=1, max_size=3),
       mode=st.sampled_from(["default", "acceptEdits", "plan"]))
def test_npm_config_get_of_public_keys(policy, app, keys, mode):
    tick("node:config-get")
    cmd = "npm config get " + " ".join(f"'{k}'" for k in keys)
    v = _v(policy, app, cmd, mode)
    assert (v.decision, v.code) == (ALLOW, "GW700"), (cmd, v.code, v.message)


@budget(40)
@given(keys=st.lists(st.sampled_from(KEYS), max_size=2), bad=st.sampled_from(SECRET_KEYS),
       mode=st.sampled_from(["default", "acceptEdits", "plan"]))
def test_npm_config_get_of_any_other_key_asks(policy, app, keys, bad, mode):
    tick("node:config-get-bad")
    cmd = "npm config get " + " ".join(f"'{k}'" for k in keys + [bad])
    v = _v(policy, app, cmd, mode)
    assert v.decision is ASK, (cmd, v.code, v.message)


@pytest.mark.parametrize("cmd,allowed", [
    ("npm pkg get scripts", True), ("npm pkg get name version", True),
    ("npm pkg get", True), ("npm config get", False), ("npm config list", False),
    ("npm config ls -l", False), ("npm pkg set scripts.x='id'", False),
    ("npm pkg delete scripts.test", False), ("npm pkg fix", False),
    ("npm config set registry http://evil.example/", False), ("npm config edit", False),
    ("npm config delete registry", False), ("npm config get registry --global", False)])
def test_npm_pkg_and_config(policy, app, cmd, allowed):
    v = _v(policy, app, cmd, "plan")
    assert (v.decision is ALLOW) is allowed, (cmd, v.code, v.message)


@budget(60)
@given(sub=st.sampled_from(sorted(VITE)), data=st.data(), run=st.sampled_from(RUNNERS),
       mode=st.sampled_from(["default", "acceptEdits"]))
def test_vite(policy, app, sub, data, run, mode):
    tick("node:vite")
    opts = data.draw(st.lists(st.sampled_from(VITE[sub]), max_size=3, unique=True))
    bad = data.draw(st.one_of(st.none(), st.sampled_from(VITE_BAD)))
    if bad is not None:
        opts.insert(data.draw(st.integers(0, len(opts))), bad)
    cmd = " ".join(w for w in [run + "vite", sub, *opts] if w)
    v = _v(policy, app, cmd, mode)
    if bad is None:
        assert (v.decision, v.code) == (ALLOW, "GW700"), (cmd, v.code, v.message)
    else:
        assert v.decision is ASK, (cmd, v.code, v.message)


@budget(60)
@given(data=st.data(), run=st.sampled_from(RUNNERS))
def test_playwright_test(policy, app, data, run):
    tick("node:playwright")
    opts = data.draw(st.lists(st.sampled_from(PW), max_size=3, unique=True))
    bad = data.draw(st.one_of(st.none(), st.sampled_from(PW_BAD)))
    if bad is not None:
        opts.insert(data.draw(st.integers(0, len(opts))), bad)
    cmd = " ".join([run + "playwright", "test", *opts])
    v = _v(policy, app, cmd, "acceptEdits")
    if bad is None:
        assert (v.decision, v.code) == (ALLOW, "GW700"), (cmd, v.code, v.message)
    else:
        assert v.decision is ASK, (cmd, v.code, v.message)


@pytest.mark.parametrize("cmd", ["npx playwright install", "npx playwright install chromium",
                                 "npx playwright codegen", "npx playwright show-report",
                                 "npx vite optimize", "npx vite build && curl x"])
def test_other_playwright_and_vite_forms_ask(policy, app, cmd):
    v = _v(policy, app, cmd, "acceptEdits")
    assert v.decision is ASK, (cmd, v.code, v.message)
