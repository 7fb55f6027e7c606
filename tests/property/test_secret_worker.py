"""The scanner's worker process (gateway.secrets.scan.main, as the hook starts it) with its
lean cold start (_lean_imports: a refusing stand-in for `requests`): its verdicts are the library's own, computed in process with the real
modules, on generated files with and without credentials; and no request can leave it."""

import os
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gateway.secrets import content
from gateway.secrets import scan as scanmod
from tests.property.test_secret_assignments import FILES, FORMS, names, real_values
from tests.property.test_secret_content import clean_files, secret_files


def _in_process(path, plugins):
    from detect_secrets.settings import transient_settings

    with transient_settings({"plugins_used": scanmod.plugins_used(plugins)}):
        return scanmod.scan_one(str(path))


@pytest.fixture(scope="module")
def plugins():
    from gateway.runtime import get_policy

    return content.settings(get_policy(None, use_cache=False))[0]


@st.composite
def files(draw):
    kind = draw(st.sampled_from(["secret", "clean", "assignment"]))
    if kind == "secret":
        return draw(secret_files())
    if kind == "clean":
        return draw(clean_files())
    ftype = draw(st.sampled_from(sorted(FORMS)))
    line = draw(st.sampled_from(FORMS[ftype])).format(n=draw(names()), v=draw(real_values()))
    return FILES[ftype], line + "\n"


@settings(max_examples=6, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batch=st.lists(files(), min_size=3, max_size=6))
def test_the_workers_verdicts_are_the_librarys(plugins, tmp_path_factory, batch):
    d = tmp_path_factory.mktemp("worker")
    paths = []
    for i, (name, text) in enumerate(batch):
        sub = d / str(i)
        sub.mkdir()
        p = sub / os.path.basename(name)
        p.write_text(text)
        paths.append(str(p))
    root = str(tmp_path_factory.mktemp("wcache"))
    os.chmod(root, 0o700)
    key = "k"
    content._run_worker(paths, plugins, root, key, 120, None)
    for p in paths:
        got = content.cached(os.path.join(root, key), content.identity(os.stat(p)))
        assert got == _in_process(p, plugins), (p, open(p).read())


def test_no_request_leaves_the_worker():
    code = ("import sys\nfrom gateway.secrets.scan import _lean_imports\n_lean_imports()\n"
            "import detect_secrets.core.scan, detect_secrets.core.plugins.util as u\n"
            "u.get_mapping_from_secret_type_to_class()\n"
            "import requests, multiprocessing\n"
            "assert 'urllib3' not in sys.modules\n"
            "try:\n    requests.get('https://example.org')\nexcept requests.exceptions."
            "RequestException as e:\n    print('refused', e)\n"
            "print(multiprocessing.cpu_count() > 0)\n")
    out = subprocess.run([sys.executable, "-I", "-c", "import sys; sys.path[:] = "
                          f"{[p for p in sys.path if p and os.path.isabs(p)]!r}\n" + code],
                         capture_output=True, text=True, timeout=120,
                         cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["refused the gateway's content scanner makes no network "
                                       "requests", "True"]


def test_a_worker_that_never_finishes_is_ended_by_the_kernel(plugins, tmp_path):
    """The worker outlives the hook (it fills the cache for the next call); a scan that would
    run for hours (orphaned workers burned a core each for 50 minutes) is ended by its CPU
    limit. What it wrote before stays; a file with no verdict is unscanned (a read asks)."""
    import signal

    files = []
    for i in range(4000):
        p = tmp_path / f"f{i}.ini"
        p.write_text("".join(f"[s{j}]\nname_{j} = value {i} {j} lorem ipsum\n" for j in range(60)))
        files.append(str(p))
    root = tmp_path / "cache"
    root.mkdir(mode=0o700)
    search = [p for p in sys.path if p and os.path.isabs(p)]
    code = (f"import sys; sys.path[:] = {search!r}; "
            "from gateway.secrets.scan import main; sys.exit(main())")
    args = [sys.executable, "-I", "-c", code, "--cpu-seconds", "2", "--root", str(root),
            "--key", "k"]
    for p in plugins:
        args += ["--plugin", p]
    out = subprocess.run(args + ["--"] + files, capture_output=True, timeout=600, cwd=str(root))
    assert out.returncode == -signal.SIGXCPU, (out.returncode, out.stderr[-500:])
    done = [f for f in files
            if content.cached(str(root / "k"), content.identity(os.stat(f))) is not None]
    assert 0 < len(done) < len(files), len(done)
