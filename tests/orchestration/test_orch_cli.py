"""`gateway orch status | info | resume --list` (seed 003's `agent status`, `agent info
<sessionId>`, `agent resume --list`): read-only views of agent-coord/, ids validated before
any file is touched, broken files listed without hiding the rest."""

import json
import os
import subprocess
import sys

import pytest

from gateway.orchestration import coord, orchview

GATEWAY = os.path.join(os.path.dirname(sys.executable), "gateway")
SID = "planner-7682b3a8-1c1e-4f6a-9d57-3a3c2b1d0e9f"          # the seed's example short id


def cli(root, *args):
    return subprocess.run([GATEWAY, "orch", *args, "--project", str(root)],
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "GATEWAY_AUDIT_LOG": "off"})


@pytest.fixture()
def store(tmp_path):
    """The seed's Entity Relationships example: a session, its tasks, their runs."""
    st = coord.CoordStore(tmp_path, clock=lambda: 1770000000.0)
    st.create_session("ユーザー認証機能を実装して", session_id=SID)
    t1 = st.add_task(SID, 1, acceptance="login")
    st.add_task(SID, 2, dependencies=[t1.id])
    c = st.claim_next_task("worker-a")
    r = st.start_run(c.id, session_id=SID)
    st.finish_run(r.id, "SUCCESS")
    st.complete_task(c.id, owner="worker-a")
    c2 = st.claim_next_task("worker-b")
    st.start_run(c2.id, session_id=SID)
    st.add_conflict_resolution_task(SID, [t1.id])
    return tmp_path


def test_status(store):
    v = orchview.overview(store)
    assert [s["session_id"] for s in v["sessions"]] == [SID]
    assert v["sessions"][0]["states"] == {"READY": 1, "RUNNING": 1, "DONE": 1}
    assert v["tasks_by_state"]["DONE"] == ["task-7682b3a8-1"]
    assert v["tasks_by_state"]["RUNNING"] == ["task-7682b3a8-2"]
    assert v["tasks_by_state"]["READY"][0].startswith("task-7682b3a8-conflict-resolution-")
    assert (v["runs"]["SUCCESS"], v["runs"]["RUNNING"]) == (1, 1)
    assert v["problems"] == []


def test_status_command(store):
    p = cli(store, "status")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.split("\n")
    assert lines[0] == f"1 session(s) in {store}/agent-coord"
    assert lines[1].startswith(f"  {SID}  2026-02-02T02:40:00  «ユーザー認証機能を実装して»  3 "
                               f"task(s): READY 1, RUNNING 1, DONE 1")
    assert "  DONE (1): task-7682b3a8-1" in lines
    assert "Runs: RUNNING 1, SUCCESS 1" in lines


def test_info(store):
    s = orchview.session_info(store, SID)
    assert s["short"] == "7682b3a8" and s["version"] >= 1
    rows = {t["id"]: t for t in s["tasks"]}
    assert rows["task-7682b3a8-1"]["state"] == "DONE"
    assert rows["task-7682b3a8-1"]["runs"][0]["status"] == "SUCCESS"
    assert rows["task-7682b3a8-2"]["owner"] == "worker-b"
    assert rows["task-7682b3a8-2"]["dependencies"] == ["task-7682b3a8-1"]
    p = cli(store, "info", SID)
    assert p.returncode == 0 and f"Session {SID} (short 7682b3a8)" in p.stdout
    assert "  task-7682b3a8-2  RUNNING  implementation  v1  (held by worker-b until " \
           "2026-02-02T02:50:00; after task-7682b3a8-1)" in p.stdout


@pytest.mark.parametrize("bad", ["../../etc/passwd", "planner-../x", "task-7682b3a8-1",
                                 "planner-7682B3A8-1c1e-4f6a-9d57-3a3c2b1d0e9f", "",
                                 f"{SID}/../x", f"{SID}\n"])
def test_info_refuses_an_id_that_is_not_a_session_id(store, bad):
    with pytest.raises(coord.InvalidId):
        orchview.session_info(store, bad)
    p = cli(store, "info", bad)
    assert p.returncode == 2 and "is not a session id" in p.stderr


def test_info_of_an_unknown_session(store):
    p = cli(store, "info", "planner-00000000-0000-4000-8000-000000000000")
    assert p.returncode == 1 and "does not exist" in p.stderr


def test_resume_list(store):
    st = coord.CoordStore(store)
    other = st.create_session("ドキュメント", kind="additional")
    st.record_final_judgement(other.session_id, {"is_complete": True})
    rows, problems = orchview.resume_list(store)
    assert problems == []
    by_id = {r["session_id"]: r for r in rows}
    assert by_id[SID]["resumable"] is True
    assert by_id[SID]["unfinished"][0] == "task-7682b3a8-2"
    assert (by_id[SID]["done"], by_id[SID]["tasks"]) == (1, 3)
    assert by_id[other.session_id]["resumable"] is False
    p = cli(store, "resume", "--list")
    assert p.returncode == 0
    assert f"{other.session_id}" in p.stdout and "nothing left" in p.stdout
    assert "1/3 done; resumable: task-7682b3a8-2, task-7682b3a8-conflict-resolution-" in p.stdout
    assert cli(store, "resume").returncode == 2          # --list is the only form


def test_broken_files_are_listed_and_the_rest_shown(store):
    (store / "agent-coord" / "tasks" / "task-7682b3a8-2.json").write_text("{ broken")
    (store / "agent-coord" / "tasks" / "not-an-id.json").write_text("{}")   # ignored
    v = orchview.overview(store)
    assert v["problems"] == ["task task-7682b3a8-2: is not valid JSON: Expecting property "
                             "name enclosed in double quotes at line 1 column 3"]
    assert v["tasks_by_state"]["DONE"] == ["task-7682b3a8-1"]
    s = orchview.session_info(store, SID)
    assert [t["id"] for t in s["tasks"]][0] == "task-7682b3a8-1"
    assert s["problems"][0].startswith("task task-7682b3a8-2: is not valid JSON")
    p = cli(store, "status")
    assert p.returncode == 0 and "⚠️ cannot be read: task task-7682b3a8-2" in p.stdout


def test_the_views_write_nothing(tmp_path):
    p = cli(tmp_path, "status")
    assert (p.returncode, p.stdout) == (0, f"no orchestrator store ({tmp_path}/agent-coord "
                                           f"does not exist)\n")
    assert cli(tmp_path, "resume", "--list").stdout == "no sessions\n"
    assert os.listdir(tmp_path) == []


def test_a_symlinked_store_is_refused(tmp_path):
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", tmp_path / "agent-coord")
    p = cli(tmp_path, "status")
    assert p.returncode == 3 and "is a symbolic link" in p.stderr


def test_json(store):
    out = json.loads(cli(store, "status", "--json").stdout)
    assert out["task_counts"]["DONE"] == 1
    out = json.loads(cli(store, "info", SID, "--json").stdout)
    assert out["session_id"] == SID
    out = json.loads(cli(store, "info", "../x", "--json").stdout)
    assert out == {"ok": False, "error": "invalid_id",
                   "message": "gateway: '../x' is not a session id (planner-<uuid>, "
                              "planner-additional-<uuid> or planner-replanning-<uuid>)"}
