"""Properties of five catalogue forms (issue 13, round 19), over generated variants, each
claim about a program proven against the real program in a sandbox:

* less: options from its allowlist (with values, glued or separate, in clusters) and unknown
  neighbours (writers, lesskey and tag options, +cmd, options it does not know); allowed
  exactly when every option is listed and no +cmd is given. Real less, its output a pipe,
  writes nothing and prints exactly the files the validator judged as its operands (an
  option's value is never read, a word after the first file is a file);
* git clean: option sequences from git's own list (clusters, abbreviations, --no-dry-run,
  -e PATTERN, -i, --end-of-options, pathspecs); allowed exactly when real git, run in a
  scratch repository, removes nothing and is not interactive; the guards' effects analysis
  says read-only exactly then;
* output redirections in acceptEdits: `> T`, `>> T` and the forms that stay asking, T over
  protected, secret, gateway-owned, autorun, outside, symlinked, FIFO, hard-linked, directory
  and ordinary paths: allowed exactly when the guards' own write judgement
  (gateway.effects.files.Surface, escape) finds nothing and T is a regular file (or new) with
  one link; real bash then changes that one file and nothing else; default mode always asks;
* cargo clean --target-dir D (acceptEdits): allowed exactly when D is inside the project and
  the guards' tree judgement finds nothing protected in it; real cargo removes exactly D;
* go tool cover: its options and unknown neighbours; -html asks without -o.
"""

import os
import shutil
import stat
import subprocess

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from gateway.decision import ALLOW, ASK
from tests.property.conftest import budget
from tests.property.support import tick

BASH = shutil.which("bash")
LESS = shutil.which("less")
GIT = shutil.which("git")
CARGO = shutil.which("cargo")


@pytest.fixture(scope="module")
def eproject(tmp_path_factory):
    """The everyday benchmark's sample project, with a few odd write targets."""
    from benchmarks.everyday.project import build

    root = tmp_path_factory.mktemp("catgaps")
    project = build(str(root))
    for d in (".claude/hooks", "agent-coord", ".claude/state"):
        os.makedirs(os.path.join(project, d), exist_ok=True)
    with open(os.path.join(project, ".claude", "settings.json"), "w") as fh:
        fh.write("{}\n")
    os.mkfifo(os.path.join(project, "fifo"))
    outside = os.path.join(str(root), "outside.txt")
    with open(outside, "w") as fh:
        fh.write("outside\n")
    os.link(outside, os.path.join(project, "hardlink.txt"))
    os.symlink(outside, os.path.join(project, "link-out"))
    os.symlink("README.md", os.path.join(project, "link-in"))
    with open(os.path.join(project, "-N"), "w") as fh:
        fh.write("a file named -N\n")
    return project


def _env(project):
    return {"HOME": os.path.join(os.path.dirname(project), "home"), "PATH": os.environ["PATH"]}


def _judge(policy, project, command, mode=None):
    from gateway.validator.pipeline import validate

    return validate(command, project, project, policy, mode=mode, env=_env(project))


# --- less ----------------------------------------------------------------------------------------

def _less_spec(policy):
    return policy.command("less")


LESS_UNSAFE = ["-o", "-O", "-k", "-t", "-T", "--log-file", "--LOG-FILE", "--lesskey-file",
               "--lesskey-src", "--tag", "--tag-file", "--save-marks", "--log", "--les"]
LESS_UNKNOWN = ["-\"", "--header", "--intr", "--bogus", "--Line-numbers", "-Y", "--line-n"]
LESS_FILES = ["README.md", "src/shop/app.py", "docs/usage.md", "CHANGELOG.md"]


@st.composite
def less_words(draw, policy):
    spec = _less_spec(policy)
    safe = sorted(f for f in spec.safe_flags if f not in spec.value_flags)
    values = sorted(spec.value_flags)
    opts = []
    expect = "allow"
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["flag", "flag", "value", "cluster", "unsafe", "unknown",
                                     "plus"]))
        if kind == "flag":
            opts.append(draw(st.sampled_from(safe)))
        elif kind == "cluster":
            letters = [f[1] for f in safe if len(f) == 2 and f[1].isalnum()]
            opts.append("-" + "".join(draw(st.lists(st.sampled_from(letters), min_size=2,
                                                    max_size=3))))
        elif kind == "value":
            flag = draw(st.sampled_from(values))
            # a value that is also a file name: less consumes it, never reads it
            value = draw(st.sampled_from(["4", "8", ".env", "README.md"]))
            if flag.startswith("--") and draw(st.booleans()):
                opts.append(f"{flag}={value}")
            elif not flag.startswith("--") and draw(st.booleans()):
                opts.append(flag + value)
            else:
                opts += [flag, value]
        elif kind == "unsafe":
            opts += [draw(st.sampled_from(LESS_UNSAFE)), "x.log"]
            expect = "ask"
        elif kind == "unknown":
            opts.append(draw(st.sampled_from(LESS_UNKNOWN)))
            expect = "ask"
        else:
            opts.append("+" + draw(st.sampled_from(["G", "/x", "!id", "5"])))
            expect = "ask"
    files = draw(st.lists(st.sampled_from(LESS_FILES), min_size=1, max_size=2))
    tail = []
    if draw(st.booleans()):
        tail = ["-N"]  # after the first file: a file named -N, not an option
    return opts, files + tail, expect


@budget(120)
@given(data=st.data())
def test_less_options_are_an_allowlist(policy, eproject, data):
    tick("less: options against the allowlist")
    opts, files, expect = data.draw(less_words(policy))
    import shlex

    command = "less " + " ".join(shlex.quote(w) for w in opts + files)
    v = _judge(policy, eproject, command)
    if expect == "allow":
        assert (v.decision, v.code) == (ALLOW, "GW700"), (command, v)
    else:
        assert (v.decision, v.code) == (ASK, "GW704"), (command, v)
    if LESS is None or expect != "allow":
        return
    # real less, its output a pipe: prints exactly its operands, writes nothing
    before = sorted(os.listdir(eproject))
    out = subprocess.run([LESS] + opts + files, cwd=eproject, capture_output=True,
                         timeout=10, stdin=subprocess.DEVNULL,
                         env={"PATH": os.environ["PATH"], "HOME": _env(eproject)["HOME"],
                              "LESS": "", "LESSOPEN": "", "LESSKEY": "/dev/null"}).stdout
    # (less opens a file named twice once)
    expected = b"".join(open(os.path.join(eproject, f), "rb").read()
                        for f in dict.fromkeys(files))
    assert out == expected, (command, out[:200])
    assert sorted(os.listdir(eproject)) == before, command


@budget(40)
@given(secret=st.sampled_from([".env", "config/.env.production", "deploy/key.pem"]),
       before=st.sampled_from([[], ["--"], ["-N"], ["-x", "4"], ["README.md"]]))
def test_less_never_reads_a_secret_unasked(policy, eproject, secret, before):
    tick("less: a secret operand")
    assume(os.path.exists(os.path.join(eproject, secret)))
    v = _judge(policy, eproject, " ".join(["less"] + before + [secret]))
    assert (v.decision, v.code) == (ASK, "GW503"), v


# --- git clean ---------------------------------------------------------------------------------

CLEAN_TOKENS = ["-n", "--dry-run", "--dry", "-d", "-x", "-X", "-q", "--quiet", "-f", "--force",
                "--no-dry-run", "--no-d", "-nd", "-ndx", "-nfd", "-fdn", "-fn", "-df",
                "-e", "-en", "-i", "--interactive", "--end-of-options", "--no-quiet",
                "--no-force", "--bogus", "-h"]


def _git_dry(tokens):
    """Run real git clean in a scratch repository: (removed something, exit code)."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="gw-clean-") as d:
        env = {"PATH": os.environ["PATH"], "HOME": d, "GIT_CONFIG_NOSYSTEM": "1",
               "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
               "GIT_COMMITTER_EMAIL": "t@t"}
        subprocess.run([GIT, "init", "-q"], cwd=d, env=env, check=True)
        subprocess.run([GIT, "commit", "-q", "--allow-empty", "-m", "i"], cwd=d, env=env,
                       check=True)
        for name in ("u.txt", "-n", "sub/x", "build/y", "ig.log"):
            p = os.path.join(d, name)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            open(p, "w").close()
        with open(os.path.join(d, ".gitignore"), "w") as fh:
            fh.write("*.log\n")
        before = sorted(os.path.relpath(os.path.join(r, f), d) for r, _, fs in os.walk(d)
                        if ".git" not in r.split(os.sep) for f in fs)
        r = subprocess.run([GIT, "clean"] + tokens, cwd=d, env=env, capture_output=True,
                           stdin=subprocess.DEVNULL, timeout=20)
        after = sorted(os.path.relpath(os.path.join(r2, f), d) for r2, _, fs in os.walk(d)
                       if ".git" not in r2.split(os.sep) for f in fs)
        return before != after, r.returncode, r.stdout


@budget(150)
@given(tokens=st.lists(st.sampled_from(CLEAN_TOKENS), min_size=1, max_size=5),
       pathspec=st.sampled_from([[], ["build"], ["--", "sub"], ["."]]))
def test_git_clean_is_allowed_exactly_when_git_removes_nothing(policy, eproject, tokens,
                                                               pathspec):
    tick("git clean: dry runs against real git")
    from gateway.effects.analysis import analyze

    if tokens[-1] in ("-e", "--exclude"):
        tokens = tokens + ["*.tmp"]
    import shlex

    words = tokens + pathspec
    command = "git clean " + " ".join(shlex.quote(w) for w in words)
    v = _judge(policy, eproject, command)
    effects = analyze(command, eproject, policy=policy)
    interactive = any(t in ("-i", "--interactive") for t in tokens)
    if GIT is not None:
        removed, rc, _out = _git_dry(words)
        if removed or interactive:
            assert v.decision is ASK and v.code in ("GW707", "GW704"), (command, v)
            assert not effects.readonly, command
        if v.decision is ALLOW:
            # 128: git refuses the options (`-x -X` together) and removes nothing
            assert not removed and not interactive and rc in (0, 128), (command, rc)
    if v.decision is ALLOW:
        assert v.code == "GW700", v
        assert effects.readonly, (command, effects)
    else:
        assert v.code in ("GW707", "GW704"), (command, v)


@pytest.mark.parametrize("command", ["git clean -n", "git clean -nd", "git clean -ndx",
                                     "git clean -nfd", "git clean --dry-run -X -q -- build",
                                     "git clean -n -e '*.log' build", "git clean -fn"])
def test_git_clean_dry_runs_are_allowed_in_every_mode(policy, eproject, command):
    for mode in ("default", "acceptEdits", "plan"):
        v = _judge(policy, eproject, command, mode=mode)
        assert (v.decision, v.code) == (ALLOW, "GW700"), (mode, v)


@pytest.mark.parametrize("command", ["git clean", "git clean -f", "git clean -fd build",
                                     "git clean -n --no-dry-run -f", "git clean -fe -n",
                                     "git clean -f --end-of-options -n .", "git clean -ni",
                                     "git clean --dry-run --no-d -f", "git clean -xfd"])
def test_git_clean_forms_that_delete_keep_the_floor(policy, eproject, command):
    for mode in ("default", "acceptEdits", "plan"):
        v = _judge(policy, eproject, command, mode=mode)
        assert (v.decision, v.code) == (ASK, "GW707"), (mode, v)


# --- output redirections in acceptEdits ------------------------------------------------------

REDIRECT_TARGETS = [
    "dist/out.txt", "notes.txt", ".gitignore", "README.md", "src/shop/new.py", "link-in",
    ".env", "config/.env.production", ".git/config", ".git/info/exclude", ".git/foo",
    ".claude/settings.json", ".claude/hooks/x.sh", ".claude/state/breezing-session-roles.json",
    "agent-coord/task.json", "sitecustomize.py", ".gitmodules", "/tmp/gw-outside.txt",
    "../outside.txt", "link-out", "hardlink.txt", "fifo", "src", "/dev/stderr", "/dev/null",
    ".mcp.json", "nested/.git/hooks/pre-commit", "x/.claude/settings.json",
]


def _expected_redirect(policy, project, target):
    """What the guards' own judgement of the write says: None (an edit of a project file)
    or why not."""
    from gateway import paths
    from gateway.effects.files import Surface, Target, escape

    if target == "/dev/null":
        return None
    roots = paths.Roots(project, policy.allowed_dirs)
    t = Target(target, project, roots)
    if target.startswith("/dev/"):
        return "device"
    if escape(t, roots) or not t.inside:
        return "outside"
    if Surface(roots, policy, _env(project)).check(t.lex, t.real):
        return "protected"
    if paths.is_protected((t.lex, t.real), roots, policy, as_dir=True):
        return "protected"
    try:
        st_ = os.stat(t.real)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(st_.st_mode) or st_.st_nlink > 1:
        return "not a file"
    return None


@budget(120)
@given(target=st.sampled_from(REDIRECT_TARGETS),
       op=st.sampled_from([">", ">>", "2>", "1>>", ">|", "&>", "&>>", "<>", ">&"]),
       cmd=st.sampled_from(["echo '*.log'", "printf 'x\\n'", "ls -la", "cat README.md"]))
def test_redirect_into_a_project_file_is_an_edit(policy, eproject, target, op, cmd):
    tick("redirections: targets against the guards' judgement")
    command = f"{cmd} {op} {target}" if op != ">&" else f"{cmd} >&{target}"
    why = _expected_redirect(policy, eproject, target)
    v = _judge(policy, eproject, command, mode="acceptEdits")
    d = _judge(policy, eproject, command, mode="default")
    if target == "/dev/null":  # any output form: phase 2 always let it through
        assert d.decision is ALLOW and v.decision is ALLOW, (command, v)
        return
    assert (d.decision, d.code) == (ASK, "GW213"), (command, d)
    if op not in (">", ">>", "2>", "1>>"):
        assert (v.decision, v.code) == (ASK, "GW213"), (command, v)
        return
    if why is None:
        assert (v.decision, v.code) == (ALLOW, "GW700"), (command, v)
    else:
        assert v.decision is ASK and v.code in ("GW501", "GW502", "GW503", "GW504",
                                                "GW714"), (command, why, v)


@pytest.mark.skipif(BASH is None, reason="bash is needed")
@pytest.mark.parametrize("target", ["dist/out.txt", "notes.txt", ".gitignore", "link-in",
                                    "src/shop/new.py"])
@pytest.mark.parametrize("op", [">", ">>", "2>"])
def test_an_allowed_redirect_changes_only_its_target(policy, eproject, tmp_path, target, op):
    """Real bash: the allowed form writes the file the validator judged, nothing else."""
    v = _judge(policy, eproject, f"echo x {op} {target}", mode="acceptEdits")
    assert (v.decision, v.code) == (ALLOW, "GW700"), v
    copy = str(tmp_path / "p")
    shutil.copytree(eproject, copy, symlinks=True,
                    ignore=shutil.ignore_patterns("fifo", "hardlink.txt"))

    def snapshot():
        out = {}
        for r, _ds, fs in os.walk(copy):
            for f in fs:
                p = os.path.join(r, f)
                if not os.path.islink(p):
                    with open(p, "rb") as fh:
                        out[os.path.relpath(p, copy)] = fh.read()
        return out

    before = snapshot()
    subprocess.run([BASH, "-c", f"echo x {op} {target}"], cwd=copy, check=True,
                   env={"PATH": os.environ["PATH"]}, capture_output=True)
    after = snapshot()
    changed = {k for k in set(before) | set(after) if before.get(k) != after.get(k)}
    real = os.path.relpath(os.path.realpath(os.path.join(copy, target)), copy)
    assert changed <= {real}, changed


# --- cargo clean --target-dir ----------------------------------------------------------------------

CARGO_DIRS = ["target", "build/target", "target2", ".git", ".claude", ".claude/hooks",
              "agent-coord", ".", "src", "/tmp/gw-victim", "../victim", "link-out",
              "deploy", ".git/hooks", "x/.claude"]


@budget(40)
@given(target=st.sampled_from(CARGO_DIRS), dry=st.booleans())
def test_cargo_clean_removes_only_an_unprotected_tree_of_the_project(policy, eproject, target,
                                                                     dry):
    tick("cargo clean: target dirs against the guards' tree judgement")
    from gateway import paths
    from gateway.effects.files import Surface, Target, escape

    command = f"cargo clean --target-dir {target}" + (" -n" if dry else "")
    v = _judge(policy, eproject, command, mode="acceptEdits")
    d = _judge(policy, eproject, command, mode="default")
    roots = paths.Roots(eproject, policy.allowed_dirs)
    t = Target(target, eproject, roots)
    bad = (escape(t, roots) is not None or not t.inside
           or Surface(roots, policy, _env(eproject)).check(t.lex, t.real, tree=True)
           or paths.is_protected((t.lex, t.real), roots, policy, as_dir=True))
    if bad:
        # GW783: a directory the client itself protects (.claude anywhere)
        assert v.decision is ASK and v.code in ("GW501", "GW502", "GW503", "GW504",
                                                "GW763", "GW783"), (command, v)
        assert d.decision is ASK, (command, d)
    else:
        # work no commit holds below it (untracked or changed, not ignored) is not removed
        # unasked (GW786, as rm in acceptEdits)
        status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all",
                                 "--", t.real], cwd=eproject, capture_output=True,
                                text=True).stdout if not dry and os.path.exists(t.real) else ""
        if status.strip():
            assert (v.decision, v.code) == (ASK, "GW786"), (command, v, status)
        else:
            assert (v.decision, v.code) == (ALLOW, "GW700"), (command, v)
        if dry:
            assert (d.decision, d.code) == (ALLOW, "GW700"), (command, d)
        else:
            assert (d.decision, d.code) == (ASK, "GW721"), (command, d)


@pytest.mark.skipif(CARGO is None, reason="cargo is needed")
def test_real_cargo_clean_removes_its_target_dir_only(tmp_path):
    """cargo clean --target-dir D removes D (wherever it is) and nothing else; -n nothing."""
    pkg = tmp_path / "pkg"
    (pkg / "src").mkdir(parents=True)
    (pkg / "Cargo.toml").write_text('[package]\nname = "x"\nversion = "0.1.0"\n'
                                    'edition = "2021"\n')
    (pkg / "src" / "main.rs").write_text("fn main() {}\n")
    victim = tmp_path / "victim"
    (victim / "sub").mkdir(parents=True)
    (victim / "sub" / "f").write_text("x")
    import pwd

    home = pwd.getpwuid(os.getuid()).pw_dir  # rustup's toolchains (the test's HOME is not)
    env = dict(os.environ, RUSTUP_HOME=os.environ.get("RUSTUP_HOME",
                                                      os.path.join(home, ".rustup")),
               CARGO_HOME=os.environ.get("CARGO_HOME", os.path.join(home, ".cargo")))
    r = subprocess.run([CARGO, "clean", "--offline", "-n", "--target-dir", str(victim)],
                       cwd=pkg, capture_output=True, timeout=60, env=env)
    if r.returncode != 0:
        pytest.skip(f"cargo does not run here: {r.stderr[:200]!r}")
    assert (victim / "sub" / "f").exists()
    subprocess.run([CARGO, "clean", "--offline", "--target-dir", str(victim)], cwd=pkg,
                   check=True, capture_output=True, timeout=60, env=env)
    assert not victim.exists()
    assert (pkg / "src" / "main.rs").exists() and (pkg / "Cargo.toml").exists()


# --- go tool cover --------------------------------------------------------------------------------

@budget(60)
@given(opts=st.lists(st.sampled_from(["-func=coverage.out", "--func", "-mode=set", "-var=X",
                                      "-V", "-o build/c.txt", "-html=coverage.out", "-race",
                                      "-pkgcfg=x", "-outfilelist=y", "-n", "-toolexec=x"]),
                     min_size=1, max_size=3))
def test_go_tool_cover_options_are_an_allowlist(policy, eproject, opts):
    tick("go tool cover: options")
    words = []
    for o in opts:
        words += o.split(" ")
        if o == "--func":
            words.append("coverage.out")
    command = "go tool cover " + " ".join(words)
    v = _judge(policy, eproject, command)
    unknown = any(o in ("-race", "-pkgcfg=x", "-outfilelist=y", "-n", "-toolexec=x")
                  for o in opts)
    browser = any(o.startswith("-html") for o in opts) and not any(
        o.startswith("-o ") for o in opts)
    if unknown or browser:
        assert (v.decision, v.code) == (ASK, "GW704"), (command, v)
    else:
        assert (v.decision, v.code) == (ALLOW, "GW700"), (command, v)
