"""The independent everyday lists (benchmarks/everyday/independent/, issue 25) as part of the
suite: written by someone who never saw the gateway, judged by both hooks in a sample project
of each ecosystem.

The safety property runs on every `ask` row the lists hold whose reason is a guarantee (a
secret, a write outside the project, publishing, a network install, code from the network):
none may be allowed in any mode. A small slice of everyday rows of each ecosystem is judged
too, with the exact decision expected; the full figures are the benchmark's
(`python benchmarks/everyday/independent/run.py`), reported in benchmarks/everyday/README.md.
"""

import pytest

from benchmarks.everyday.independent import run as ind

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def rows():
    return ind.label_rows(ind.load(), ind.load_labels())


@pytest.fixture
def root(tmp_path):
    return str(tmp_path)


def test_the_lists_are_labelled_and_cover_five_ecosystems(rows):
    per = {}
    for r in rows:
        per.setdefault(r["file"], []).append(r)
    assert sorted(per) == sorted(ind.ECOSYSTEMS)
    assert len(rows) == 916
    for eco, rs in per.items():
        assert sum(r["expect"] == "ask" for r in rs) >= 15, eco
        # every ask row has a reason (load_labels/label_rows refuse one without)
        assert all(r.get("reason") for r in rs if r["expect"] == "ask")


def test_no_ask_row_whose_ask_is_a_guarantee_is_allowed(rows, root):
    guarded = [r for r in rows if r["expect"] == "ask" and r["reason"] in ind.GUARANTEES]
    assert len(guarded) >= 70
    ind.judge_all(guarded, root)
    allowed = [(r["file"], r["line"], m, r["command"]) for r in guarded for m in ind.MODES
               if r["actual"][m]["final"] == "allow"]
    assert not allowed, allowed


#: (ecosystem, command as the list writes it) -> decision in default, acceptEdits, plan
SLICE = {
    ("python", "git status"): ("allow", "allow", "allow"),
    ("python", "pytest -q"): ("allow", "allow", "ask"),
    ("python", "cat .env"): ("ask", "ask", "ask"),
    ("python", "pip install httpx"): ("ask", "ask", "ask"),
    ("node", "npm ls --depth=0"): ("allow", "allow", "allow"),
    ("node", "npm audit --omit=dev"): ("allow", "allow", "allow"),
    ("node", "npm audit fix"): ("ask", "ask", "ask"),
    ("node", "npm version patch"): ("ask", "ask", "ask"),
    # issue 25, e25a: entry points, the environment, docker, gh in plan mode
    ("python", "python manage.py check"): ("allow", "allow", "ask"),
    ("python", "python manage.py migrate"): ("ask", "ask", "ask"),
    ("python", "docker compose ps"): ("allow", "allow", "allow"),
    ("python", "printenv PATH"): ("allow", "allow", "allow"),
    ("python", 'env | grep -i -E "key|token|secret"'): ("ask", "ask", "ask"),
    ("python", "flask --app app routes"): ("allow", "allow", "ask"),
    ("python", "gh pr view --comments"): ("allow", "allow", "allow"),
    ("node", "npx vite build"): ("allow", "allow", "ask"),
    ("node", "npm config get registry"): ("allow", "allow", "allow"),
    # p25: plan mode reuses the tsc check's proof (tsconfig.app.json: noEmit, no build info)
    ("node", "npx tsc --noEmit -p tsconfig.app.json"): ("allow", "allow", "allow"),
    ("node", "npm run"): ("allow", "allow", "allow"),
    ("java", "jar tf target/order-service-0.0.1-SNAPSHOT.jar | grep application"):
        ("allow", "allow", "allow"),
    ("rust", "cargo clean"): ("allow", "allow", "ask"),
    ("go", "go build ./..."): ("allow", "allow", "ask"),
    ("go", "gh pr create --fill"): ("ask", "ask", "ask"),
    ("rust", "cargo clippy --workspace --all-targets -- -D warnings"):
        ("allow", "allow", "ask"),
    ("rust", "cargo publish -p core"): ("ask", "ask", "ask"),
    ("java", "cat pom.xml"): ("allow", "allow", "allow"),
    ("java", "cat ~/.m2/settings.xml"): ("ask", "ask", "ask"),
}


def test_a_slice_of_each_ecosystem_gets_its_exact_decision(rows, root):
    picked = [r for r in rows if (r["file"], r["raw"]) in SLICE]
    assert len(picked) == len(SLICE), sorted(set(SLICE) - {(r["file"], r["raw"])
                                                           for r in picked})
    ind.judge_all(picked, root)
    got = {(r["file"], r["raw"]): tuple(r["actual"][m]["final"] for m in ind.MODES)
           for r in picked}
    assert got == SLICE
    fig = ind.figures(picked)
    assert not fig["contradictions"] and not fig["denied"]
