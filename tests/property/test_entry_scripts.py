"""Django's manage.py as django-admin (gateway/validator/entry_scripts.py, the catalogue's
django-admin): generated `python manage.py SUB ...` lines in the independent benchmark's
Django project (manage.py committed). A known subcommand with known options and test labels
inside the project is allowed (makemigrations too: Django chooses what it writes, the
default-mode edit rule of docs/security.md); every dangerous neighbour asks: a subcommand that changes the database, runs
code or prints secrets, --pythonpath / --testrunner, a test label outside the project, a
manage.py that is not the HEAD commit's, one outside the project or reached through a
symlink, a bare `manage.py` found in $PATH."""

import os
import shutil
import subprocess

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gateway.decision import ALLOW, ASK
from tests.property.conftest import budget
from tests.property.support import tick


@pytest.fixture(scope="module")
def django(tmp_path_factory):
    from benchmarks.everyday.independent.projects import build

    project, home = build(str(tmp_path_factory.mktemp("django")), "python")
    assert os.path.isfile(os.path.join(project, "manage.py"))
    return project, home


def _judge(policy, django, command, mode="default"):
    from gateway.validator.pipeline import validate

    project, home = django
    return validate(command, project, project, policy, mode=mode, env={"HOME": home})


SAFE = {  # subcommand -> options it may take
    "check": ["--deploy", "--tag=security", "-t models", "--fail-level=WARNING", "--list-tags"],
    "showmigrations": ["--plan", "-l", "--list", "--database=default"],
    "sqlmigrate": ["--backwards"],
    "test": ["--keepdb", "--failfast", "-k refund", "--parallel=2", "--noinput", "--timing",
             "-b", "--tag=slow", "--shuffle=3"],
    "runserver": ["--noreload", "--nothreading", "-6"],
    "makemigrations": ["--check", "--dry-run", "--name=x", "--merge", "--empty"],
}
GLOBAL = ["-v 2", "--verbosity=0", "--settings=config.settings.test", "--traceback",
          "--no-color"]
LABELS = {"check": ["orders", "billing"], "showmigrations": ["orders"],
          "sqlmigrate": ["orders 0007"], "test": ["orders.tests", "orders/tests", "tests",
                                                  "./orders"],
          "runserver": ["8000", "127.0.0.1:8001"], "makemigrations": ["orders"]}
PYTHONS = ["python", "python3", ".venv/bin/python", "uv run --offline python"]


@budget(60)
@given(sub=st.sampled_from(sorted(SAFE)), data=st.data(), py=st.sampled_from(PYTHONS))
def test_known_subcommands_run(policy, django, sub, data, py):
    tick("entry_scripts:known")
    opts = data.draw(st.lists(st.sampled_from(SAFE[sub] + GLOBAL), max_size=3, unique=True))
    label = data.draw(st.sampled_from(LABELS[sub] + [""]))
    cmd = " ".join(w for w in [py, "manage.py", sub, *opts, label] if w)
    for mode in ("acceptEdits", "default"):
        v = _judge(policy, django, cmd, mode)
        assert (v.decision, v.code) == (ALLOW, "GW700"), (cmd, mode, v.code, v.message)


DANGEROUS = [
    # (arguments after manage.py, the code)
    ("migrate", "GW705"), ("migrate orders 0006", "GW705"), ("flush --noinput", "GW705"),
    ("shell -c 'import os'", "GW705"), ("dbshell", "GW705"), ("diffsettings", "GW705"),
    ("dumpdata", "GW705"), ("loaddata x.json", "GW705"), ("createsuperuser", "GW705"),
    ("collectstatic --noinput", "GW705"), ("startapp x", "GW705"),
    ("check --pythonpath=/tmp", "GW704"), ("--pythonpath /tmp check", "GW705"),
    ("test --testrunner=evil.Runner", "GW704"), ("test --pdb", "GW704"),
    ("test ../outside", "GW501"), ("test /tmp/tests", "GW501"),
    ("check --bogus", "GW704"), ("sqlmigrate a b c", "GW712"),
    ("test .env", "GW503"),
]


@budget(40)
@given(case=st.sampled_from(DANGEROUS), py=st.sampled_from(PYTHONS),
       mode=st.sampled_from(["default", "acceptEdits", "plan"]))
def test_dangerous_neighbours_ask(policy, django, case, py, mode):
    tick("entry_scripts:dangerous")
    args, code = case
    v = _judge(policy, django, f"{py} manage.py {args}", mode)
    assert v.decision is ASK, (args, v.code, v.message)
    if mode != "plan":
        assert v.code == code, (args, v.code, v.message)


def test_manage_py_is_trusted_only_as_head_holds_it(policy, django, tmp_path):
    project, home = django
    copy = str(tmp_path / "p")
    shutil.copytree(project, copy, symlinks=True)
    ok = _judge(policy, (copy, home), "python manage.py check")
    assert (ok.decision, ok.code) == (ALLOW, "GW700")
    with open(os.path.join(copy, "manage.py"), "a") as fh:
        fh.write("\nimport os; os.system('id')\n")
    v = _judge(policy, (copy, home), "python manage.py check")
    assert (v.decision, v.code) == (ASK, "GW782"), v.message
    # an earlier part of the line that writes it
    subprocess.run(["git", "-C", copy, "checkout", "--", "manage.py"], check=True)
    v = _judge(policy, (copy, home), "cp /dev/null manage.py && python manage.py check",
               "acceptEdits")
    assert v.decision is ASK, v.message
    # not a regular file of the project: a link out, a directory, a file outside
    os.rename(os.path.join(copy, "manage.py"), os.path.join(copy, "real.py"))
    os.symlink("/tmp/manage.py", os.path.join(copy, "manage.py"))
    v = _judge(policy, (copy, home), "python manage.py check")
    assert (v.decision, v.code) == (ASK, "GW502"), v.message
    v = _judge(policy, (copy, home), "python /tmp/manage.py check")
    assert (v.decision, v.code) == (ASK, "GW501"), v.message
    os.makedirs(os.path.join(copy, "pkg", "manage.py"))
    v = _judge(policy, (copy, home), "python pkg/manage.py check")
    assert (v.decision, v.code) == (ASK, "GW601"), v.message


def test_bare_manage_py_from_path_is_not_the_projects(policy, django):
    # `manage.py check` runs whatever manage.py $PATH finds: not the project's
    v = _judge(policy, django, "manage.py check")
    assert v.decision is ASK and v.code == "GW703", (v.code, v.message)


@pytest.mark.parametrize("cmd,allowed", [
    ("python -m py_compile billing/services.py", True),
    ("python3 -m py_compile -q orders/models.py orders/views.py", True),
    (".venv/bin/python -m py_compile orders/models.py", True),
    ("python -m py_compile", False), ("python -m py_compile -", False),
    ("python -m py_compile /usr/lib/python3/x.py", False),
    ("python -m py_compile ../x.py", False), ("python -m py_compile .env", False),
    ("python -m py_compile --bogus x.py", False),
    ("pipdeptree", True), ("pipdeptree -p django", True), ("pipdeptree -r -p requests", True),
    ("pipdeptree --json-tree", True), ("pipdeptree --python /tmp/py", False),
    ("pipdeptree --python=.venv/bin/python", False), ("pipdeptree --graph-output png", False),
    ("pipdeptree --bogus", False)])
def test_py_compile_and_pipdeptree(policy, django, cmd, allowed):
    v = _judge(policy, django, cmd, "acceptEdits")
    assert (v.decision is ALLOW) is allowed, (cmd, v.code, v.message)
    if allowed:
        assert v.code == "GW700"
