"""The shape of gateway/ (issue 26), checked on every run:

* the import contracts of .importlinter (the layers cli > hooks > guards | validator >
  tools > policy > shell, and the foundation that imports none of them) hold: `lint-imports`, the
  maintained tool, reads the code with grimp, which counts imports inside functions too;
* no import cycle anywhere in gateway/ (grimp's graph, every import, strongly connected
  components), except the ones still listed in KNOWN_CYCLES, each exactly as it is;
* no hand-written module is longer than 800 lines, except the ones still listed in
  KNOWN_LONG, none of which may grow.

The two lists only shrink: a known cycle that is broken, or a long module that was split,
fails the test until its entry is removed, so the lists always say what is left to do.
docs/architecture.md explains the layers.
"""

import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAX_LINES = 800
#: generated files (their header says so); exempt from the length limit
GENERATED = {"gateway/shell/_lrtables.py"}

#: import cycles that remain (docs/architecture.md, "What still crosses the layers")
KNOWN_CYCLES = [
    # the secret scanner's content, blob and archive-member readers (issue 24's newest code,
    # landed beside issue 26)
    {"gateway.secrets.blobs", "gateway.secrets.content", "gateway.secrets.members"},
]

#: hand-written modules still over MAX_LINES, with the length they may not exceed (None: no
#: ceiling yet -- codes.py is the table every new reason code is added to, by every issue in
#: flight; it is split once they have landed)
KNOWN_LONG = {
    "gateway/codes.py": None,
}


def _graph():
    import grimp

    sys.path.insert(0, ROOT)
    try:
        return grimp.build_graph("gateway", include_external_packages=False, cache_dir=None)
    finally:
        sys.path.remove(ROOT)


def _cycles(graph) -> list:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = 0
    for start in sorted(graph.modules):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.find_modules_directly_imported_by(start))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.find_modules_directly_imported_by(w)))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    scc = set()
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        scc.add(w)
                        if w == v:
                            break
                    if len(scc) > 1:
                        out.append(scc)
    return out


def test_import_contracts_hold():
    """`lint-imports` (import-linter) keeps every contract of .importlinter."""
    exe = os.path.join(os.path.dirname(sys.executable), "lint-imports")
    if not os.path.exists(exe):
        exe = shutil.which("lint-imports")
    assert exe, "lint-imports is not installed: pip install -e '.[dev]'"
    run = subprocess.run([exe, "--no-cache"], cwd=ROOT, capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "0 broken" in run.stdout, run.stdout[-4000:]


def test_no_import_cycle_but_the_known_ones():
    found = _cycles(_graph())
    new = [sorted(c) for c in found if c not in KNOWN_CYCLES]
    assert not new, f"import cycle(s) not in KNOWN_CYCLES: {new}"
    gone = [sorted(c) for c in KNOWN_CYCLES if c not in found]
    assert not gone, f"KNOWN_CYCLES lists a cycle that is no longer there (remove it): {gone}"


def test_cycle_finder_finds_a_cycle():
    """The finder itself: a two-module cycle and a self-contained module."""

    class G:
        modules = {"a", "b", "c"}

        @staticmethod
        def find_modules_directly_imported_by(m):
            return {"a": {"b"}, "b": {"a", "c"}, "c": set()}[m]

    assert _cycles(G()) == [{"a", "b"}]


def _modules():
    for d, _, files in os.walk(os.path.join(ROOT, "gateway")):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(d, f)
                yield os.path.relpath(path, ROOT).replace(os.sep, "/"), path


def test_no_module_over_800_lines_but_the_known_ones():
    too_long, grown, done = [], [], []
    for rel, path in sorted(_modules()):
        if rel in GENERATED:
            continue
        with open(path, encoding="utf-8") as fh:
            n = sum(1 for _ in fh)
        if rel in KNOWN_LONG:
            if KNOWN_LONG[rel] is not None and n > KNOWN_LONG[rel]:
                grown.append((rel, n, KNOWN_LONG[rel]))
            elif n <= MAX_LINES:
                done.append(rel)
        elif n > MAX_LINES:
            too_long.append((rel, n))
    assert not too_long, f"modules over {MAX_LINES} lines (split them by tool or concern): " \
                         f"{too_long}"
    assert not grown, f"known long modules that grew (move the new code out): {grown}"
    assert not done, f"no longer over {MAX_LINES} lines, remove from KNOWN_LONG: {done}"


def test_generated_files_say_so():
    for rel in GENERATED:
        with open(os.path.join(ROOT, rel), encoding="utf-8") as fh:
            head = fh.read(400)
        assert "generated" in head and "DO NOT EDIT" in head, rel
