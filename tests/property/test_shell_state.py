"""`for` loops, `export`/assignments and `source` (issue 13, round 19), against real bash.

* Unrolling is what bash runs: for generated loops (literal, quoted, glob, brace and tilde
  words; bodies that use "$f", "x$f", "${f}", $f, '$f') REAL bash's iterations, under the
  shell options a user's snapshot may carry, print nothing the unrolled commands do not
  print, and with no glob exactly the same (gateway.shell.loops).
* A loop's decision is the gravest decision of its instances judged one by one: the
  validator (as PermissionRequest and in exposure mode, as PreToolUse asks it) and the
  effects analysis (the writes of the loop are the writes of its instances).
* `export N=V; CMD` gets exactly the decision and code of `N=V CMD` (bash: the variable
  reaches CMD's environment the same way), `export N=V` last is allowed (GW219; bash: a new
  shell does not see it), and `CMD; export N=V` is CMD's decision.
* `source P` is judged as `bash P` (GW600) or as the project's venv activation (GW306), and
  never allowed before another command (GW307; bash: the sourced file's `cd` and variables
  reach the later commands).
"""

import itertools
import os
import shlex
import shutil
import subprocess
import tempfile

from hypothesis import example, given
from hypothesis import strategies as st

from gateway.decision import ALLOW, DENY
from tests.property.conftest import budget
from tests.property.support import show, tick

BASH_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C"}


def _bash(script, cwd, home, opts=()):
    setup = "".join(f"shopt -s {o}; " for o in opts)
    out = subprocess.run(["bash", "-c", setup + script], cwd=cwd, capture_output=True,
                         timeout=10, env=dict(BASH_ENV, HOME=home))
    return out.stdout.decode("utf-8", "surrogateescape")


# --- unrolling is what bash runs --------------------------------------------------------

TREE = ["a.py", "b.py", ".h.py", "B.PY", "d/x.txt", "d/.y.txt", "it's.md", "sp ace.md",
        ".env", "-rf"]
WORDS = ["a", "b", "'x y'", '"it\'s"', "*.py", ".e*", "d/*", "{a,b}.txt", "*.md", "~",
         "~/k", "{~,q}/k", "'*.py'", "\\*", "-n", "''"]
BODIES = ['printf "<%s>" "$f"', 'printf "<%s>" "x$f" "${f}y"', "printf '<%s>' $f",
          "printf '<%s>' '$f' \"$f\"", 'printf "<%s>" "$f" | cat', 'echo "$f" && echo "[$f]"']


@budget(60)
@given(words=st.lists(st.sampled_from(WORDS), min_size=0, max_size=4),
       bodies=st.lists(st.sampled_from(BODIES), min_size=1, max_size=2))
@example(words=["'x y'", "{~,q}/k", "*.md"], bodies=['printf "<%s>" "x$f" "${f}y"'])
@example(words=["'x y'"], bodies=["printf '<%s>' $f"])
def test_unrolled_commands_are_what_bash_runs(words, bodies):
    tick("loops: unrolled against bash")
    from gateway.shell.loops import Unrolled, unroll
    from gateway.shell.parse import parse

    root = tempfile.mkdtemp(prefix="gw-loops-")
    try:
        home = os.path.join(root, "home")
        work = os.path.join(root, "w")
        for rel in TREE:
            path = os.path.join(work, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            open(path, "w").close()
        os.makedirs(home)
        loop = f"for f in {' '.join(words)}; do {'; '.join(bodies)}; echo; done"
        result = unroll(parse(loop), work, home, {})
        if not isinstance(result, Unrolled):
            tick("loops: (not unrolled)")
            assert any(b == "printf '<%s>' $f" for b in bodies) or not words, (loop,
                                                                                result.reason)
            return
        unrolled = set(_bash(result.text, work, home).splitlines())
        globbed = any(c in w for w in words for c in "*?[")
        for k in range(3):
            for opts in itertools.combinations(["dotglob", "nullglob", "nocaseglob"], k):
                got = set(_bash(loop, work, home, opts).splitlines())
                assert got <= unrolled, (loop, opts, got - unrolled, result.text)
                if not globbed:
                    assert got == unrolled, (loop, opts, got ^ unrolled, result.text)
    finally:
        shutil.rmtree(root, ignore_errors=True)


# --- a loop's decision is the gravest of its instances ---------------------------------------

VALUES = ["README.md", "src/app.py", ".env", "a.txt", "notes.txt", "~/.ssh/id_rsa", "~",
          "/", "scripts", "src/*.py", "*.txt", "config/*", ".git/hooks", "{a,file}.txt"]
INSTANCE_BODIES = ['cat "$f"', 'wc -l "$f"', 'rm -rf "$f"', 'ls -la "$f"',
                   'head -n 1 "$f" | sort', 'touch "$f.bak"', 'echo "$f"', 'grep -n x "$f"']


def _expand(word, project, home):
    """The values bash may give `word`, asked of bash under every option combination."""
    out = []
    for k in range(4):
        for opts in itertools.combinations(["dotglob", "nullglob", "nocaseglob", "globstar"],
                                           k):
            text = _bash(f"printf '%s\\0' {word}", project, home, opts)
            out.extend(v for v in text.split("\0") if v)
    return list(dict.fromkeys(out))


@budget(40)
@given(values=st.lists(st.sampled_from(VALUES), min_size=1, max_size=3, unique=True),
       body=st.sampled_from(INSTANCE_BODIES))
@example(values=["~", "/"], body='rm -rf "$f"')
@example(values=["README.md", "notes.txt"], body='cat "$f"')
@example(values=["scripts", ".git/hooks"], body='rm -rf "$f"')
def test_a_loop_is_judged_as_the_gravest_of_its_instances(policy, values, body):
    tick("loops: gravest instance")
    from gateway.effects.analysis import analyze
    from gateway.settings import SettingsRules
    from gateway.validator.pipeline import validate

    project, home = _sample()
    loop = f"for f in {' '.join(values)}; do {body}; done"
    # each instance as the test writes it: "$f" becomes the value, quoted for the shell
    instances = [body.replace('"$f', shlex.quote(v) + '"')
                 for word in values for v in _expand(word, project, home)]
    assert instances, loop
    for exposure in (False, True):
        got = validate(loop, project, project, policy, "Bash", SettingsRules(), home=home,
                       exposure=exposure)
        each = [validate(i, project, project, policy, "Bash", SettingsRules(), home=home,
                         exposure=exposure) for i in instances]
        gravest = max(v.decision for v in each)
        assert got.decision == gravest, (loop, exposure, show(got),
                                          [(i, show(v)) for i, v in zip(instances, each, strict=True)])
        codes = {v.code for v in each if v.decision == gravest}
        assert got.code in codes, (loop, exposure, show(got), codes)
        if gravest is DENY:
            tick("loops: (a deny among the instances)")
        if got.decision is ALLOW:
            tick("loops: (allowed)")
    eff = analyze(loop, project, home=home)
    targets = {w.target for w in eff.writes}
    expected = {w.target for i in instances for w in analyze(i, project, home=home).writes}
    assert targets == expected, (loop, targets, expected)
    assert eff.readonly == all(analyze(i, project, home=home).readonly for i in instances), loop


_SAMPLE = {}


def _sample():
    """A project (tests/helpers.make_project plus a venv and a script) and a home, once."""
    if not _SAMPLE:
        from tests.helpers import make_project

        root = tempfile.mkdtemp(prefix="gw-shellstate-")
        project = make_project(os.path.join(root, "proj"))
        home = os.path.join(root, "home")
        os.makedirs(os.path.join(home, ".ssh"))
        with open(os.path.join(home, ".ssh", "id_rsa"), "w") as fh:
            fh.write("KEY\n")
        files = {".venv/bin/activate": "export VIRTUAL_ENV=x\n",
                 "scripts/env.sh": "X=from-env; cd src\n", "src/x.sh": "echo x\n",
                 "node_modules/.bin/activate": "echo x\n"}
        for rel, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(project, rel)), exist_ok=True)
            with open(os.path.join(project, rel), "w") as fh:
                fh.write(text)
        os.makedirs(os.path.join(project, "venv", "bin"))
        outside = os.path.join(root, "outside.sh")
        with open(outside, "w") as fh:
            fh.write("echo out\n")
        os.symlink(outside, os.path.join(project, "venv", "bin", "activate"))
        os.symlink(outside, os.path.join(project, "scripts", "out.sh"))
        _SAMPLE["v"] = (project, home)
    return _SAMPLE["v"]


# --- export N=V; CMD is N=V CMD ----------------------------------------------------------

NAMES = ["PATH", "LD_PRELOAD", "GIT_DIR", "PAGER", "GIT_SSH_COMMAND", "FOO", "x",
         "PYTHONPATH", "GIT_EXTERNAL_DIFF"]
EXPORT_VALUES = ["/tmp/x", "bar", "'a b'", "''", "sh"]
COMMANDS = ["ls", "git log -1", "cat README.md", "cat .env", "rm -rf /", "echo hi",
            "python3 scripts/foo.py", "bash scripts/run.sh", "wc -l src/app.py"]


@budget(60)
@given(name=st.sampled_from(NAMES), value=st.sampled_from(EXPORT_VALUES),
       cmd=st.sampled_from(COMMANDS))
def test_export_before_a_command_is_a_prefix_assignment(policy, name, value, cmd):
    tick("export: export-then-command is a prefix assignment")
    from gateway.settings import SettingsRules
    from gateway.validator.pipeline import validate

    project, home = _sample()

    def judge(text):
        return validate(text, project, project, policy, "Bash", SettingsRules(), home=home)

    for before in (f"export {name}={value}; {cmd}", f"export {name}={value} && {cmd}",
                   f"{name}={value}; {cmd}"):
        a, b = judge(before), judge(f"{name}={value} {cmd}")
        assert (a.decision, a.code) == (b.decision, b.code), (before, show(a), show(b))
    last = judge(f"export {name}={value}")
    assert (last.decision, last.code) == (ALLOW, "GW219"), show(last)
    after, alone = judge(f"{cmd}; export {name}={value}"), judge(cmd)
    assert (after.decision, after.code) == (alone.decision, alone.code), (show(after),
                                                                          show(alone))
    # bash: the export reaches the next command as the prefix assignment does, and a new
    # shell (the next Bash call) does not see it
    exported = _bash(f"export {name}={value}; /usr/bin/env", project, home)
    prefixed = _bash(f"{name}={value} /usr/bin/env", project, home)
    line = [x for x in exported.splitlines() if x.startswith(name + "=")]
    assert line and line == [x for x in prefixed.splitlines() if x.startswith(name + "=")]
    if name not in BASH_ENV:
        later = _bash("/usr/bin/env", project, home)  # the next call: a new shell
        assert not [x for x in later.splitlines() if x.startswith(name + "=")], later


# --- source P is bash P ------------------------------------------------------------------

PATHS = ["scripts/env.sh", "scripts/run.sh", "./scripts/run.sh", "scripts/out.sh",
         "scripts/tmplink/x.sh", "scripts", "scripts/missing.sh", "src/x.sh", "../x.sh",
         "/etc/profile", ".venv/bin/activate", "./.venv/bin/activate", "venv/bin/activate",
         "node_modules/.bin/activate", ".venv/bin/missing/../activate", "env.sh",
         ".claude/hooks/h.sh", "vendor/scripts/evil.sh"]


@budget(50)
@given(path=st.sampled_from(PATHS), dot=st.booleans(), after=st.sampled_from(
    [None, "ls", "cat README.md", "echo hi"]))
def test_source_is_judged_as_bash_of_the_file(policy, path, dot, after):
    tick("source: as bash FILE")
    from gateway.settings import SettingsRules
    from gateway.shell.shellstate import activation
    from gateway.validator.pipeline import validate

    project, home = _sample()

    def judge(text):
        return validate(text, project, project, policy, "Bash", SettingsRules(), home=home)

    word = "." if dot else "source"
    got = judge(f"{word} {path}")
    real = os.path.realpath(os.path.join(project, path))
    if activation(path, policy.project_bin_dirs):
        ok = os.path.isfile(real) and real.startswith(project + "/")
        assert (got.decision is ALLOW) == ok, (path, show(got))
        assert got.code == ("GW306" if ok else got.code) and (ok or got.code in (
            "GW304", "GW502", "GW501")), (path, show(got))
    elif "/" not in path:
        assert (got.decision, got.code) != (ALLOW, "GW600") and got.code == "GW304", show(got)
    else:
        ref = judge(f"bash {path}")
        if ref.decision is ALLOW:
            assert (got.decision, got.code) == (ALLOW, ref.code), (path, show(got), show(ref))
        elif ref.code == "GW601" and "is not under" in ref.message:
            assert (got.decision, got.code) == (ref.decision, "GW304"), (path, show(got))
        else:
            assert (got.decision, got.code) == (ref.decision, ref.code), (path, show(got),
                                                                          show(ref))
    if after is not None:
        then = judge(f"{word} {path}; {after}")
        if got.decision is ALLOW and got.code == "GW306":
            # the venv's activation puts its bin directory first on PATH, and the commands
            # after it are judged by their names as project_bin_dirs says: the line is
            # allowed exactly when they are
            alone = judge(after)
            assert then.decision is alone.decision, (show(then), show(alone))
        else:
            assert then.decision is not ALLOW, show(then)
            if got.decision is ALLOW:
                assert then.code == "GW307", show(then)
    # bash: the sourced file's variables and `cd` reach the commands after it
    out = _bash(f"{word} scripts/env.sh; echo \"$X\"; pwd", project, home).split()
    assert out == ["from-env", os.path.join(project, "src")], out
