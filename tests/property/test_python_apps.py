"""flask and alembic (checks/buildtools/pyapps.py) in the independent benchmark's project
(app.py, alembic.ini with script_location = migrations): the read-only queries and the dev
server with the project's app are allowed; every neighbour asks: an --app module that is
not a file of the project (a stdlib function Flask would call: proven in the red-team
corpus), FLASK_APP or FLASK_RUN_HOST set by .flaskenv/.env, run's --host/--cert/--key, the
subcommands that change the database or run given code, an Alembic configuration that
loads code from outside the project."""

import os
import shutil

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gateway.decision import ALLOW, ASK
from tests.property.conftest import budget
from tests.property.support import tick


@pytest.fixture(scope="module")
def proj(tmp_path_factory):
    from benchmarks.everyday.independent.projects import build

    project, home = build(str(tmp_path_factory.mktemp("pyapps")), "python")
    assert os.path.isfile(os.path.join(project, "app.py"))
    return project, home


def _v(policy, proj, command, mode="default", env=None):
    from gateway.validator.pipeline import validate

    project, home = proj
    return validate(command, project, project, policy, mode=mode,
                    env=dict({"HOME": home}, **(env or {})))


APPS = ["app", "app.py", "app:app", "./app.py", "app:create_app()"]
FLASK = {"routes": ["", "--sort endpoint", "--all-methods", "-s rule"],
         "run": ["", "--debug", "--port 5001", "-p 5002", "--no-reload", "--with-threads"],
         "db current": ["", "-v"], "db history": ["", "-r base:head", "-i"],
         "db heads": ["", "--resolve-dependencies"], "db show": ["", "head"]}
BAD_APPS = ["os", "shutil:rmtree('/tmp/x')", "/tmp/evil.py", "../x.py", "json:loads('1')",
            "subprocess:run('id')", "missing_module", "app/../../x.py", "a b"]
ALEMBIC = {"current": ["", "-v", "--check-heads"], "history": ["", "-r -3:", "-i"],
           "heads": ["", "-v"], "branches": [""], "show": ["head"], "check": [""]}


@budget(60)
@given(app=st.sampled_from(APPS), sub=st.sampled_from(sorted(FLASK)), data=st.data(),
       debug=st.booleans())
def test_flask_with_the_projects_app(policy, proj, app, sub, data, debug):
    tick("pyapps:flask")
    opt = data.draw(st.sampled_from(FLASK[sub]))
    cmd = " ".join(w for w in ["flask", "--debug" if debug else "", "--app", f'"{app}"', sub,
                               opt] if w)
    v = _v(policy, proj, cmd, data.draw(st.sampled_from(["default", "acceptEdits"])))
    assert (v.decision, v.code) == (ALLOW, "GW700"), (cmd, v.code, v.message)


@budget(60)
@given(app=st.sampled_from(BAD_APPS), sub=st.sampled_from(sorted(FLASK)),
       mode=st.sampled_from(["default", "acceptEdits", "plan"]))
def test_flask_with_another_app_asks(policy, proj, app, sub, mode):
    tick("pyapps:flask-bad-app")
    v = _v(policy, proj, f'flask --app "{app}" {sub}', mode)
    assert v.decision is ASK, (app, sub, v.code, v.message)


@pytest.mark.parametrize("cmd", [
    "flask --app app run --host 0.0.0.0", "flask --app app run -h 0.0.0.0 --debug",
    "flask --app app run --cert cert.pem --key key.pem", "flask --app app shell",
    "flask --app app db upgrade", "flask --app app db downgrade", "flask --app app db stamp head",
    "flask --app app db migrate -m x", "flask --app app init-db", "flask --env-file .env --app app routes",
    "flask --app app routes --bogus", "flask --app app db current -d /tmp/migrations",
    "alembic upgrade head", "alembic downgrade -1", "alembic stamp head",
    "alembic revision --autogenerate -m x", "alembic -c /tmp/a.ini current",
    "alembic current --bogus", "alembic -x db=prod upgrade head"])
def test_neighbours_ask(policy, proj, cmd):
    v = _v(policy, proj, cmd, "acceptEdits")
    assert v.decision is ASK, (cmd, v.code, v.message)


def test_dotenv_files_that_choose_the_app_or_the_host_ask(policy, proj, tmp_path):
    project, home = proj
    copy = str(tmp_path / "p")
    shutil.copytree(project, copy, symlinks=True)
    p = (copy, home)
    assert _v(policy, p, "flask routes").decision is ALLOW  # app.py by default
    with open(os.path.join(copy, ".flaskenv"), "w") as fh:
        fh.write("FLASK_APP=shutil:rmtree('/tmp/x')\n")
    v = _v(policy, p, "flask routes")
    assert (v.decision, v.code) == (ASK, "GW704"), v.message
    assert _v(policy, p, "flask --app app routes").decision is ALLOW  # --app wins
    with open(os.path.join(copy, ".flaskenv"), "w") as fh:
        fh.write("export FLASK_RUN_HOST=0.0.0.0\n")
    v = _v(policy, p, "flask --app app run --debug")
    assert (v.decision, v.code) == (ASK, "GW704"), v.message
    os.remove(os.path.join(copy, ".flaskenv"))
    os.mkfifo(os.path.join(copy, ".flaskenv"))
    v = _v(policy, p, "flask --app app routes")
    assert (v.decision, v.code) == (ASK, "GW704"), v.message
    # the user's own environment names the app: it is the project's file or it asks
    v = _v(policy, (project, home), "flask routes", env={"FLASK_APP": "os"})
    assert v.decision is ASK, v.message


@budget(40)
@given(sub=st.sampled_from(sorted(ALEMBIC)), data=st.data(),
       mode=st.sampled_from(["default", "acceptEdits"]))
def test_alembic_queries(policy, proj, sub, data, mode):
    tick("pyapps:alembic")
    opt = data.draw(st.sampled_from(ALEMBIC[sub]))
    glob = data.draw(st.sampled_from(["", "-c alembic.ini", "-x tenant=a", "--raiseerr"]))
    cmd = " ".join(w for w in ["alembic", glob, sub, opt] if w)
    v = _v(policy, proj, cmd, mode)
    assert (v.decision, v.code) == (ALLOW, "GW700"), (cmd, v.code, v.message)


@pytest.mark.parametrize("ini", [
    "[alembic]\nscript_location = /tmp/migrations\n",
    "[alembic]\nscript_location = ../elsewhere\n",
    "[alembic]\nscript_location = mypkg:migrations\n",
    "[alembic]\nscript_location = migrations\nprepend_sys_path = . /tmp/lib\n",
    "[alembic]\n", "[other]\nscript_location = migrations\n", "not an ini [\n"])
def test_alembic_configuration_that_leaves_the_project_asks(policy, proj, tmp_path, ini):
    project, home = proj
    copy = str(tmp_path / "p")
    shutil.copytree(project, copy, symlinks=True)
    with open(os.path.join(copy, "alembic.ini"), "w") as fh:
        fh.write(ini)
    v = _v(policy, (copy, home), "alembic current")
    assert v.decision is ASK, (ini, v.code, v.message)
