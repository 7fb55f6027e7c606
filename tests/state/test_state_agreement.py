"""The guards and `gateway state validate` agree on every kind of broken state (issue 14).

For each hostile condition -- a corrupt, linked, special or oversized file in the place of each
file the guards read, something else where the state directory must be, a lock file that is
not a regular file -- the PreToolUse hook (its `decide`, on a real payload) must deny with
GW890 wherever the guards read the state, and `validate` must report a problem whenever the
hook denies. No condition may make either of them hang, crash or act as if the state were
absent."""

import json
import os
import socket

import pytest

from gateway.hooks import pre_tool_use
from gateway.state import files, layout

SESSION = "5b0c9a3d-1111-4111-8111-111111111111"
GUARDED = (layout.ACTIVE, layout.SESSION_ROLES, layout.PHASE)


def _fifo(p):
    os.mkfifo(p)


def _socket(p):
    import tempfile

    d = tempfile.mkdtemp(prefix="gw-sock-")    # AF_UNIX paths are short: bind, then move
    s = socket.socket(socket.AF_UNIX)
    s.bind(os.path.join(d, "s"))
    s.close()
    os.rename(os.path.join(d, "s"), p)
    os.rmdir(d)


def _dir(p):
    os.mkdir(p)


def _link_outside(p):
    outside = p.parent.parent.parent / "outside.json"
    outside.write_text('{"session_id": "S1"}')
    os.symlink(outside, p)


def _dangling(p):
    os.symlink(p.parent / "nowhere", p)


def _bytes(data):
    return lambda p: p.write_bytes(data)


#: (name, make(path)) for each file the guards read
FILE_KINDS = [
    ("truncated", _bytes(b'{"a": {"role": "re')),
    ("empty", _bytes(b"")),
    ("whitespace", _bytes(b"  \n")),
    ("not-utf8", _bytes(b'{"a": "\xff"}')),
    ("nan", _bytes(b'{"a": NaN}')),
    ("duplicate-key", _bytes(b'{"a": 1, "a": 2}')),
    ("too-deep", _bytes(b"[" * 100 + b"]" * 100)),
    ("too-large", _bytes(b'{"pad": "' + b"x" * (1 << 20) + b'"}')),
    ("wrong-type", _bytes(b'["not", "an", "object"]')),
    ("wrong-schema", _bytes(b'{"impl_mode": "Codex", "phase": "X", "a": {"role": "root"}}')),
    ("symlink", _link_outside),
    ("dangling-symlink", _dangling),
    ("directory", _dir),
    ("fifo", _fifo),
    ("socket", _socket),
]


def _decide(proj, tool="Read", agent_id="impl-1", tool_input=None):
    payload = {"session_id": SESSION, "agent_id": agent_id, "cwd": str(proj),
               "hook_event_name": "PreToolUse", "tool_name": tool,
               "tool_input": tool_input or {"file_path": str(proj / "README.md")}}
    env = dict(os.environ, CLAUDE_PROJECT_DIR=str(proj))
    verdict, _ = pre_tool_use.decide(json.dumps(payload).encode(), env)
    return verdict


def _register(proj):
    """A role registration: PostToolUse of the completed marker Write records it."""
    from gateway.hooks import post_tool_use

    target = proj / ".claude" / "state" / "breezing-role-impl-9.json"
    payload = {"session_id": SESSION, "agent_id": "impl-9", "cwd": str(proj),
               "hook_event_name": "PostToolUse", "tool_name": "Write",
               "tool_input": {"file_path": str(target), "content": '{"role": "implementer"}'},
               "tool_response": {"type": "create", "filePath": str(target)}}
    env = dict(os.environ, CLAUDE_PROJECT_DIR=str(proj))
    verdict, _ = post_tool_use.decide(json.dumps(payload).encode(), env)
    return verdict


@pytest.fixture
def proj(tmp_path):
    root = tmp_path / "proj"
    (root / ".claude" / "state").mkdir(parents=True)
    (root / "README.md").write_text("x")
    return root


def _bad(proj):
    return [r for r in files.validate(proj) if not r.ok]


@pytest.mark.parametrize("name", GUARDED)
@pytest.mark.parametrize("kind,make", FILE_KINDS, ids=[k for k, _ in FILE_KINDS])
def test_every_broken_guarded_file_denies_and_fails_validate(proj, name, kind, make):
    path = proj / ".claude" / "state" / name
    if name == layout.PHASE:   # the phase is read only while a session is active
        (proj / ".claude" / "state" / layout.ACTIVE).write_text('{"session_id": "S1"}')
    make(path)
    verdict = _decide(proj)
    if name == layout.ACTIVE and kind == "wrong-schema":
        # the guards check only the fields they decide on: impl_mode "Codex" is one of them
        assert "impl_mode" in verdict.message
    assert (verdict.decision.name, verdict.code) == ("DENY", "GW890"), verdict.message
    assert name in verdict.message or "lock" in verdict.message
    bad = _bad(proj)
    assert [r.file for r in bad] == [f".claude/state/{name}"], bad
    # the sentence the hook gives is the one validate prints
    assert bad[0].message in verdict.message


@pytest.mark.parametrize("kind,make", [
    ("symlink", lambda st: (st.rmdir(), os.symlink(st.parent / "elsewhere", st),
                            (st.parent / "elsewhere").mkdir())),
    ("regular-file", lambda st: (st.rmdir(), st.write_text("{}"))),
    ("fifo", lambda st: (st.rmdir(), os.mkfifo(st))),
    ("socket", lambda st: (st.rmdir(), _socket(st))),
    ("claude-is-a-file", lambda st: (st.rmdir(), st.parent.rmdir(),
                                     st.parent.write_text("x"))),
    ("claude-is-a-link", lambda st: (st.rmdir(), st.parent.rename(st.parent.parent / "real"),
                                     (st.parent.parent / "real" / "state").mkdir(),
                                     os.symlink(st.parent.parent / "real", st.parent))),
])
def test_every_broken_state_directory_denies_and_fails_validate(proj, kind, make):
    make(proj / ".claude" / "state")
    verdict = _decide(proj)
    assert (verdict.decision.name, verdict.code) == ("DENY", "GW890"), verdict.message
    assert _register(proj).code == "GW890"
    bad = _bad(proj)
    assert len(bad) == 1 and bad[0].message in verdict.message


@pytest.mark.parametrize("kind,make", [("directory", _dir), ("symlink", _link_outside),
                                       ("dangling-symlink", _dangling), ("fifo", _fifo)])
def test_a_broken_lock_file_blocks_registration_and_fails_validate(proj, kind, make):
    make(proj / ".claude" / "state" / ".breezing-session-roles.json.lock")
    assert _decide(proj).code == "GW800"          # reading needs no lock
    verdict = _register(proj)
    assert (verdict.decision.name, verdict.code) == ("DENY", "GW890"), verdict.message
    bad = _bad(proj)
    assert [r.file for r in bad] == [".claude/state/.breezing-session-roles.json.lock"]
    assert bad[0].message in verdict.message


def test_absent_state_is_no_state_and_validates(proj):
    (proj / ".claude" / "state").rmdir()
    assert _decide(proj).code == "GW800"
    assert _bad(proj) == []
    assert _register(proj).code == "GW800"     # registered: the directory was created
    assert _bad(proj) == []
