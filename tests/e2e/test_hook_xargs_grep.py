"""`grep -rl PATTERN DIRS | xargs CMD` (issue 25: the everyday rename, `grep -rl calc_total
orders tests | xargs sed -i 's/calc_total/compute_total/g'`), through the installed hooks.

xargs's names used to be reproduced only from git ls-files and find (GW715 for grep). grep -l
prints a subset of the files it searches, so the gateway judges CMD with every file and link
below the operands (gateway/validator/xargs.py `_grep`): a superset, so a name xargs would
split (`src/x /etc/passwd`), a name that starts with '-', a link out of the project or a
secret below the operands asks, -R (follows links) and output forms that are not names ask.
In acceptEdits the rename runs; in default mode `sed -i` is the human's (GW704), as alone.
Each allowed line is run in real bash and its effect checked; each neighbour's danger is
proven in real bash too.
"""

import json
import os
import subprocess

import pytest

SESSION = "5f2a8b3c-9d4e-4f70-a1b2-c3d4e5f6a7b8"
RENAME = "grep -rl calc_total orders tests | xargs sed -i 's/calc_total/compute_total/g'"


@pytest.fixture
def where(tmp_path_factory):
    """A directory apart from the hooks' own (their audit log's directory is protected)."""
    return tmp_path_factory.mktemp("xargs-grep")


def _project(root):
    os.makedirs(os.path.join(root, "orders"))
    os.makedirs(os.path.join(root, "tests"))
    files = {"orders/views.py": "from .calc import calc_total\n",
             "orders/calc.py": "def calc_total(x):\n    return x\n",
             "orders/models.py": "class Order: pass\n",
             "tests/test_calc.py": "from orders.calc import calc_total\n",
             ".env": "SECRET_KEY=calc_total-0123456789abcdef\n",
             "README.md": "# shop\n"}
    for rel, text in files.items():
        with open(os.path.join(root, rel), "w") as fh:
            fh.write(text)
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run(git + ["init", "-q"], cwd=root, check=True)
    with open(os.path.join(root, ".gitignore"), "w") as fh:
        fh.write(".env\n")
    subprocess.run(git + ["add", "-A"], cwd=root, check=True)
    subprocess.run(git + ["commit", "-qm", "init"], cwd=root, check=True)
    return root


def _call(run_hook, event, command, cwd, mode):
    data = {"session_id": SESSION, "transcript_path": "/tmp/t.jsonl", "cwd": cwd,
            "permission_mode": mode, "hook_event_name": event, "tool_name": "Bash",
            "tool_input": {"command": command}}
    if event == "PreToolUse":
        data["tool_use_id"] = "toolu_1"
    name = "pre-tool-use" if event == "PreToolUse" else "permission-request"
    proc = run_hook(name, json.dumps(data).encode())
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout.decode()
    if not text.strip():
        return None, None
    out = json.loads(text)["hookSpecificOutput"]
    if event == "PreToolUse":
        decision, reason = out["permissionDecision"], out["permissionDecisionReason"]
    else:
        decision, reason = out["decision"]["behavior"], out["decision"].get("message", "")
    return decision, (reason.split(":", 1)[0].replace("gateway ", "") if reason else None)


def _validator_code(hook_env):
    with open(hook_env["GATEWAY_AUDIT_LOG"], encoding="utf-8") as fh:
        return json.loads(fh.read().splitlines()[-1])["code"]


def test_the_rename_runs_in_accept_edits_and_does_what_was_judged(run_hook, where):
    root = _project(str(where / "shop"))
    assert _call(run_hook, "PreToolUse", RENAME, root, "acceptEdits") == ("allow", "GW700")
    assert _call(run_hook, "PermissionRequest", RENAME, root, "acceptEdits") == ("allow", None)
    subprocess.run(["bash", "-c", RENAME], cwd=root, check=True)
    for rel in ("orders/views.py", "orders/calc.py", "tests/test_calc.py"):
        with open(os.path.join(root, rel)) as fh:
            text = fh.read()
        assert "compute_total" in text and "calc_total" not in text, rel
    with open(os.path.join(root, ".env")) as fh:
        assert "calc_total" in fh.read()  # not below the operands: untouched


@pytest.mark.parametrize("command", [
    "grep -rl calc_total orders | xargs wc -l",
    "grep -rli CALC_TOTAL orders tests | sort | xargs grep -n def",
    "grep -l calc_total orders/calc.py orders/views.py | xargs wc -l",
])
@pytest.mark.parametrize("mode", ["default", "plan"])
def test_readers_run_in_every_mode(run_hook, where, command, mode):
    root = _project(str(where / "shop"))
    assert _call(run_hook, "PermissionRequest", command, root, mode) == ("allow", None)


def test_default_mode_keeps_sed_i_the_humans(run_hook, hook_env, where):
    root = _project(str(where / "shop"))
    assert _call(run_hook, "PermissionRequest", RENAME, root, "default") == (None, None)
    assert _validator_code(hook_env) == "GW704"


def _outside(where):
    victim = where / "outside.txt"
    victim.write_text("calc_total outside\n")
    return victim


NEIGHBOURS = [
    # (how the project is changed, command, the validator's code). The names below the
    # operands are judged as sed's operands: a split name (GW715), a link out of the project
    # (GW502), a name starting with '-' (GW715); the grep before xargs has its own reasons:
    # -R follows the link (GW507), '.' reaches the .env (GW506).
    ("space", "grep -rl calc_total orders | xargs sed -i 's/calc_total/X/'", "GW715"),
    ("link", "grep -rl calc_total orders | xargs sed -i 's/calc_total/X/'", "GW502"),
    ("link", "grep -Rl calc_total orders | xargs cat", "GW507"),
    ("dash", "grep -rl calc_total | xargs sed -i 's/calc_total/X/'", "GW715"),
    (None, "grep -rl calc_total . | xargs sed -i 's/calc_total/X/'", "GW506"),
    (None, "grep -rc calc_total orders | xargs sed -i 's/calc_total/X/'", "GW715"),
    (None, "grep -r calc_total orders | xargs sed -i 's/calc_total/X/'", "GW715"),
    (None, "echo orders/calc.py | grep -l calc | xargs sed -i 's/calc_total/X/'", "GW715"),
]


def _change(root, how, victim):
    if how == "space":
        # grep prints 'orders/x /<victim dir>/outside.txt'; xargs splits it at the blank
        inner = os.path.join(root, "orders", "x " + os.path.dirname(str(victim)))
        os.makedirs(inner)
        with open(os.path.join(inner, "outside.txt"), "w") as fh:
            fh.write("calc_total\n")
        return os.path.join("orders/x " + os.path.dirname(str(victim)), "outside.txt")
    if how == "link":
        os.symlink(str(victim), os.path.join(root, "orders", "link.py"))
    if how == "dash":
        os.unlink(os.path.join(root, ".env"))  # (grep -r over '.' would read it: GW506)
        with open(os.path.join(root, "-i.bak"), "w") as fh:
            fh.write("calc_total\n")
    return None


@pytest.mark.parametrize("how,command,code", NEIGHBOURS)
def test_neighbours_ask_in_accept_edits(run_hook, hook_env, where, how, command, code):
    victim = _outside(where)
    root = _project(str(where / "shop"))
    _change(root, how, victim)
    pre = _call(run_hook, "PreToolUse", command, root, "acceptEdits")
    assert pre[0] != "allow", (command, pre)
    assert _call(run_hook, "PermissionRequest", command, root, "acceptEdits") == (None, None)
    assert _validator_code(hook_env) == code


def test_the_neighbours_dangers_are_real(where):
    """In real bash: the split name edits the file outside the project, -R reads through
    the link, a name starting with '-' becomes sed's option, and '.' reaches the .env."""
    victim = _outside(where)
    root = _project(str(where / "space"))
    _change(root, "space", victim)
    subprocess.run(["bash", "-c", "grep -rl calc_total orders | xargs sed -i "
                    "'s/calc_total/X/'"], cwd=root, capture_output=True)
    assert victim.read_text() == "X outside\n"

    victim = _outside(where)
    root = _project(str(where / "link"))
    _change(root, "link", victim)
    out = subprocess.run(["bash", "-c", "grep -Rl calc_total orders | xargs cat"], cwd=root,
                         capture_output=True, text=True).stdout
    assert "calc_total outside" in out  # the file outside, read through the link

    root = _project(str(where / "dash"))
    _change(root, "dash", None)
    subprocess.run(["bash", "-c", "grep -rl calc_total | xargs sed -i 's/calc_total/X/'"],
                   cwd=root, capture_output=True)
    # sed read '-i.bak' as its option: it kept backups of the files it edited
    assert any(n.endswith(".bak") and n != "-i.bak" for d, _, ns in os.walk(root)
               for n in ns), sorted(os.listdir(root))

    root = _project(str(where / "dot"))
    subprocess.run(["bash", "-c", "grep -rl calc_total . | xargs sed -i 's/calc_total/X/'"],
                   cwd=root, capture_output=True)
    with open(os.path.join(root, ".env")) as fh:
        assert "calc_total" not in fh.read()


# --- git diff --name-only feeds xargs (git is asked for the names) ---------------------------

def test_git_diff_names_feed_xargs(run_hook, hook_env, where):
    root = _project(str(where / "diff"))
    with open(os.path.join(root, "orders", "views.py"), "a") as fh:
        fh.write("# changed\n")
    line = "git diff --name-only | xargs grep -n calc_total"
    for mode in ("default", "plan"):
        assert _call(run_hook, "PermissionRequest", line, root, mode) == ("allow", None)
    out = subprocess.run(["bash", "-c", line], cwd=root, capture_output=True, text=True)
    assert "calc_total" in out.stdout and "calc.py" not in out.stdout  # views.py only
    # below the work tree's top the names depend on diff.relative: not reproduced
    sub = os.path.join(root, "orders")
    assert _call(run_hook, "PermissionRequest", line, sub, "default") == (None, None)
    assert _validator_code(hook_env) == "GW715"
    # a patch is not a list of names
    assert _call(run_hook, "PermissionRequest", "git diff | xargs cat", root,
                 "default") == (None, None)
    assert _validator_code(hook_env) == "GW715"
    # git beside a writer of files it cannot name: the effects analysis asks (GW781)
    edit = "git diff --name-only | xargs sed -i 's/calc_total/compute_total/g'"
    assert _call(run_hook, "PermissionRequest", edit, root, "acceptEdits") == (None, None)
    assert _validator_code(hook_env) == "GW781"
