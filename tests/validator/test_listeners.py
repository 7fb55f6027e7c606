"""Who answers on a loopback port (gateway.tools.listeners): real servers, started the ways a
developer starts them, in a temp project; the project's own server is told apart from a
server that does not run the project's code (kubectl proxy, python -m http.server, a
program outside the project started from inside it)."""

import os
import subprocess
import sys
import time

import pytest

from gateway.tools import listeners

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/net/tcp"),
                                reason="no /proc: the walk answers 'not known' there")

SERVER = """import socket, sys, time
s = socket.socket(socket.AF_INET6 if sys.argv[2] == '6' else socket.AF_INET)
s.bind(('::1' if sys.argv[2] == '6' else sys.argv[3]
        if len(sys.argv) > 3 and sys.argv[3][:1].isdigit() else '127.0.0.1', 0))
s.listen()
open(sys.argv[1], 'w').write(str(s.getsockname()[1]))
time.sleep(120)
"""


def _start(argv, cwd, portfile):
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    for _ in range(200):
        if os.path.exists(portfile) and open(portfile).read().strip():
            return proc, int(open(portfile).read())
        time.sleep(0.05)
    proc.kill()
    raise AssertionError("the server did not start")


@pytest.fixture
def tree(tmp_path):
    project = tmp_path / "project"
    outside = tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    (project / "server.py").write_text(SERVER)
    (outside / "server.py").write_text(SERVER)
    (project / "run.sh").write_text(f'exec_child() {{ "{sys.executable}" "{outside}/server.py" '
                                    '"$1" 4; }\nexec_child "$1"\n')
    procs = []
    yield str(project.resolve()), str(outside.resolve()), tmp_path, procs
    for p in procs:
        p.kill()
        p.wait()


def _serve(procs, argv, cwd, portfile):
    proc, port = _start(argv, cwd, str(portfile))
    procs.append(proc)
    return port


def test_the_projects_script_from_the_project_is_its_server(tree):
    project, _, tmp, procs = tree
    port = _serve(procs, [sys.executable, "server.py", str(tmp / "p1"), "4"], project,
                  tmp / "p1")
    assert listeners.projects_server(port, project) is None


def test_ipv6_loopback_too(tree):
    project, _, tmp, procs = tree
    port = _serve(procs, [sys.executable, "server.py", str(tmp / "p6"), "6"], project,
                  tmp / "p6")
    assert listeners.projects_server(port, project) is None


def test_a_child_started_by_the_projects_script_counts(tree):
    """`go run ./cmd/server`: the listening binary is elsewhere, its parent is the
    project's."""
    project, _, tmp, procs = tree
    port = _serve(procs, ["sh", "run.sh", str(tmp / "p2")], project, tmp / "p2")
    assert listeners.projects_server(port, project) is None


@pytest.mark.parametrize("how", ["outside-script", "outside-cwd", "module", "module-dot",
                                 "project-word"])
def test_servers_that_do_not_run_the_projects_code(tree, how):
    project, outside, tmp, procs = tree
    pf = tmp / f"p-{how}"
    if how == "outside-script":  # a program outside the project, started from inside it
        argv, cwd = [sys.executable, os.path.join(outside, "server.py"), str(pf), "4"], project
    elif how == "outside-cwd":  # the project's script copied and run elsewhere
        argv, cwd = [sys.executable, "server.py", str(pf), "4"], outside
    elif how == "module-dot":  # red team: `python -m http.server -d .` named `.`
        (tmp / "outside" / "srvmod.py").write_text(SERVER)
        argv, cwd = [sys.executable, "-m", "srvmod", str(pf), "4", "-d", "."], project
        os.environ["PYTHONPATH"] = outside
    elif how == "project-word":  # red team: socat ... ./fwd.log named a project file
        argv = [sys.executable, os.path.join(outside, "server.py"), str(pf), "4",
                "./server.py"]
        cwd = project
    else:  # `python -m http.server` in the project names nothing of it
        argv = [sys.executable, "-c", SERVER.replace("sys.argv[1]", repr(str(pf)))
                .replace("sys.argv[2]", "'4'").replace("len(sys.argv) > 3", "False")]
        cwd = project
    try:
        port = _serve(procs, argv, cwd, pf)
    finally:
        os.environ.pop("PYTHONPATH", None)
    why = listeners.projects_server(port, project)
    assert why and f"port {port} is served by" in why, why


def test_nothing_listening_and_another_address(tree):
    project, _, tmp, procs = tree
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    free = s.getsockname()[1]
    s.close()
    assert listeners.projects_server(free, project) == f"nothing listens on port {free} now"


def test_every_listener_on_the_port_must_be_the_projects(tree):
    """curl tries ::1 and 127.0.0.1 for localhost: a foreign server on one of them is
    enough to ask."""
    project, outside, tmp, procs = tree
    port = _serve(procs, [sys.executable, "server.py", str(tmp / "pa"), "6"], project,
                  tmp / "pa")
    code = SERVER.replace("s.bind(", "s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)"
                          "\ns.bind(").replace(", 0))", f", {port}))")
    (tmp / "outside" / "same.py").write_text(code)
    try:
        _serve(procs, [sys.executable, os.path.join(outside, "same.py"), str(tmp / "pb"),
                       "4"], project, tmp / "pb")
    except AssertionError:
        pytest.skip("this system does not let two sockets share the port across families")
    why = listeners.projects_server(port, project)
    assert why and "does not run the project's code" in why, why


def test_no_proc_is_not_known(tmp_path):
    assert "no /proc/net/tcp" in listeners.projects_server(8000, "/p", proc=str(tmp_path))


def test_the_walk_is_bounded(tree, monkeypatch):
    project, _, tmp, procs = tree
    port = _serve(procs, [sys.executable, "server.py", str(tmp / "p3"), "4"], project,
                  tmp / "p3")
    monkeypatch.setattr(listeners, "PROCESS_LIMIT", 1)
    assert "cannot be found" in listeners.projects_server(port, project)
