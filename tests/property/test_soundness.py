"""Soundness: a command that contains a dangerous construct, a path that resolves outside
the project, a secret, an unknown or ALWAYS_ASK command, or a catastrophic command is never
allowed, and the reason code is the one the construct calls for."""

import fnmatch
import os

from hypothesis import assume, given
from hypothesis import strategies as st

from gateway.decision import ALLOW, ASK, DENY
from tests.property import known_bugs
from tests.property import strategies as S
from tests.property.conftest import budget
from tests.property.support import (
    fill,
    fill_cmd,
    gateway_model_differs,
    path_status,
    show,
    tick,
    within,
)

RESERVED = frozenset("cd if then else elif fi case esac for select while until do done in "
                     "function time coproc".split())


def expect_token(v, token, text):
    if token.decision == "deny":
        assert (v.decision, v.code) == (DENY, "GW750"), f"{text!r}: {show(v)}"
    else:
        assert v.decision is ASK and v.code in token.codes, (
            f"{text!r}: want ask {sorted(token.codes)}, got {show(v)}")


@budget(150)
@given(data=st.data(), n=st.integers(1, 3), k=st.integers(2, 4))
def test_commands_with_dangerous_constructs_are_never_allowed(pjudge, data, n, k):
    """Several constructs anywhere in a list of commands: never allow, and the code is one
    of theirs (or the parse failure their combination causes)."""
    tick("soundness: dangerous constructs anywhere")
    cmds = [fill_cmd(data.draw(S.allowed_cmd), pjudge.project) for _ in range(n)]
    r = data.draw(S.rendered(cmds))
    tokens = [data.draw(S.dangerous_token()) for _ in range(k)]
    text = r.text()
    for t in tokens:
        t.text = fill(t.text, pjudge.project)
        text = data.draw(S.insert(r, t))
        # re-split is not possible after a wrap or char; later tokens go into the text
        r = S.Rendered([[text]], [], r.rng)
    v = pjudge(text)
    codes = set().union(*(t.codes for t in tokens)) | {"GW301", "GW302", "GW305"}
    fetched = [t for t in tokens if "curl" in t.text or "wget" in t.text]
    if fetched and any(t.text.strip() in ("| sh", "| bash", "| sh -", "| bash -s")
                       for t in tokens):
        codes.add("GW750")  # together they run what the network sent: the deny rules
    assert v.decision is not ALLOW, f"{text!r}: {show(v)}"
    assert v.code in codes, f"{text!r}: want one of {sorted(codes)}, got {show(v)}"


@budget(120)
@given(data=st.data(), where=st.sampled_from(["slot", "append", "flag", "redirect", "git",
                                                "script"]))
def test_outside_paths_are_never_allowed(pjudge, data, where):
    tick("soundness: outside paths")
    if True:
        path, code = data.draw(S.outside_path())
        path = fill(path, pjudge.project)
        codes = set(code.split("|"))
        if where == "script":
            cmd = data.draw(S.cmd_interpreter())
            cmd.argv[cmd.script_index] = path
        elif where == "git":
            cmd = data.draw(S.cmd_git())
            cmd.argv[1:1] = data.draw(st.sampled_from([["-C", path], ["-C" + path]]))
            codes = {"GW501"}
        else:
            cmd = data.draw(S.path_cmd)
            if where == "slot" and cmd.path_slots:
                cmd.argv[data.draw(st.sampled_from(cmd.path_slots))] = path
            elif where == "flag":
                form = {"grep": [["-f", path], ["-f" + path], ["--file=" + path]],
                        # ls --hide/-I take a pattern (text): the path is appended
                        "ls": [["--hide=x"], ["-Ix"], ["-I", "x"]],
                        "head": [["-n", "3"]], "tail": [["-n", "3"]], "cat": [[]],
                        "wc": [[]]}[cmd.argv[0]]
                extra = data.draw(st.sampled_from(form))
                cmd.argv[1:1] = extra
                if path not in "".join(extra):
                    cmd.argv.append(path)
            elif where == "redirect":
                pass
            else:
                cmd.argv.append(path)
        fill_cmd(cmd, pjudge.project)
        r = data.draw(S.rendered([cmd]))
        text = r.text()
        if where == "redirect":
            text += " < " + S.spell(path, r.rng)
    v = pjudge(text)
    assert v.decision is ASK and v.code in codes, f"{text!r}: want {sorted(codes)}, got {show(v)}"


@budget(200)
@given(path=S.random_path(), cwd=st.sampled_from(["", "src", "src/auth", "scripts", "docs"]),
       how=st.sampled_from(["cat {}", "head -n 2 {}", "ls -la {}", "grep -rn x {}",
                            "wc -l {}", "cat < {}", "git -C {} status"]),
       seed=S.seeds)
def test_paths_match_the_kernel(pjudge, path, cwd, how, seed):
    """Random paths through the project's symlinks, `.` and `..`, judged against an oracle
    that resolves them the way the kernel does: inside -> allow, else GW501/GW502."""
    tick("soundness: random paths vs the kernel")
    project = pjudge.project
    path = fill(path, project)
    where = os.path.join(project, cwd) if cwd else project
    status = path_status(path, where, project)
    if known_bugs.is_open("symlink-dotdot"):
        assume(not gateway_model_differs(path, where))
    assume(status != "special")
    text = how.format(S.spell(path, S.rng_of(seed)))
    v = pjudge(text, cwd=cwd or None)
    full = os.path.join(where, path)
    if status == "inside" and how.startswith("grep -r") and not os.path.exists(full):
        # nothing to read today; the gateway judges the lexical path, which may hold a secret
        assert v.decision is ALLOW or (v.decision, v.code) == (ASK, "GW506"), (
            f"{text!r} (cwd {cwd!r}): {show(v)}")
    elif status == "inside" and how.startswith("grep -r") and reads_beyond(
            full, project, follow=False):
        # inside, but the tree below it holds a secret (the project root has .env)
        assert (v.decision, v.code) == (ASK, "GW506"), f"{text!r} (cwd {cwd!r}): {show(v)}"
    elif status == "inside":
        assert v.decision is ALLOW, f"{text!r} (cwd {cwd!r}) is inside: {show(v)}"
    elif how.startswith("git -C"):
        assert (v.decision, v.code) == (ASK, "GW501"), f"{text!r} ({status}): {show(v)}"
    else:
        assert v.decision is ASK and v.code in ("GW501", "GW502"), (
            f"{text!r} (cwd {cwd!r}) is {status}: {show(v)}")


@budget(100)
@given(secret=st.sampled_from(S.SECRET_PATHS), seed=S.seeds,
       how=st.sampled_from(["cat {}", "head -n 1 {}", "grep -n KEY {}", "wc {}", "cat < {}",
                            "grep -r x src {}", "diff a.txt {}", "python3 scripts/foo.py {}",
                            "tail -n 3 {}", "cat a.txt && cat {}", "git log | grep -f {}"]))
def test_secrets_are_never_allowed(pjudge, secret, seed, how):
    """(ls, stat and find only look at a secret's name: catalogue `reads: names`)"""
    tick("soundness: secrets")
    path = fill(secret, pjudge.project)
    text = how.format(S.spell(path, S.rng_of(seed)))
    v = pjudge(text)
    assert (v.decision, v.code) == (ASK, "GW503"), f"{text!r}: {show(v)}"


@budget(100)
@given(name=st.text("abcdefghijklmnopqrstuvwxyz_-0123456789", min_size=1, max_size=10),
       args=st.lists(S.inside_path(), max_size=2), data=st.data())
def test_unknown_commands_ask(pjudge, name, args, data):
    tick("soundness: unknown commands")
    pol = pjudge.policy
    assume(name[0].isalpha())
    assume(pol.command(name) is None and name not in pol.always_ask
           and name not in pol.wrappers and name not in pol.interpreters
           and name not in pol.shell_builtins and name not in RESERVED)
    cmd = fill_cmd(S.Cmd([name] + args), pjudge.project)
    text = data.draw(S.rendered([cmd])).text()
    v = pjudge(text)
    assert (v.decision, v.code) == (ASK, "GW703"), f"{text!r}: {show(v)}"


@budget(100)
@given(name=st.sampled_from(S.ALWAYS_ASK_SAMPLE), args=st.lists(S.inside_path(), max_size=2),
       case=st.sampled_from(["lower", "upper", "title"]), data=st.data())
def test_always_ask_commands_ask(pjudge, name, args, case, data):
    tick("soundness: ALWAYS_ASK commands")
    name = {"lower": name, "upper": name.upper(), "title": name.title()}[case]
    cmd = fill_cmd(S.Cmd([name] + args), pjudge.project)
    text = data.draw(S.rendered([cmd])).text()
    v = pjudge(text)
    assert (v.decision, v.code) == (ASK, "GW701"), f"{text!r}: {show(v)}"


@budget(60)
@given(name=st.sampled_from(S.EDIT_SAMPLE), args=st.lists(S.inside_path(), min_size=1,
                                                          max_size=2),
       mode=st.sampled_from([None, "default", "plan", "dontAsk"]), data=st.data())
def test_edit_commands_are_not_allowed_outside_accept_edits(pjudge, name, args, mode, data):
    """cp, mv, chmod, ln, tee, rmdir change the files they name: the human reviews them in
    every mode but acceptEdits (and bypassPermissions)."""
    tick("soundness: edits outside acceptEdits")
    cmd = fill_cmd(S.Cmd([name] + (["+x"] if name == "chmod" else []) + args), pjudge.project)
    text = data.draw(S.rendered([cmd])).text()
    v = pjudge(text, mode=mode)
    assert v.decision is ASK and v.code in ("GW721", "GW720", "GW712", "GW503", "GW504"), \
        f"{text!r} ({mode}): {show(v)}"


@budget(150)
@given(segs=S.catastrophic(), data=st.data(),
       context=st.sampled_from(["{}", "ls && {}", "{}; ls", "git status | {}", "( {} )",
                                "echo \"$({})\"", "ls\n{}", "{} 2>&1", "{} &", "X=1 {}",
                                "sudo {}", "nice -n 5 {}", "timeout 5 {}", "command {}",
                                "env -u X {}", "sudo -u root nice {}"]))
def test_catastrophic_commands_are_denied(pjudge, segs, data, context):
    tick("soundness: catastrophic commands are denied")
    rng = S.rng_of(data.draw(S.seeds))
    words = [S.spell_all(s, rng) for s in segs]
    for w, s in zip(words, segs, strict=True):  # unquoted ~ / $HOME / globs also count
        if s[-1] in ("~", "$HOME", "/*", "/etc/*") and data.draw(st.booleans()):
            w[-1] = s[-1]
    inner = " | ".join(S.join_words(w, rng) for w in words)
    if len(segs) > 1 and context.startswith(("sudo", "nice", "timeout", "command", "env")):
        context = "{}"  # a wrapper before a pipeline wraps only its first command
    if "$(" in context and known_bugs.is_open("deny-continuation-in-substitution"):
        inner = inner.replace(" \\\n  ", " ")
    text = context.format(inner)
    v = pjudge(text)
    assert (v.decision, v.code) == (DENY, "GW750"), f"{text!r}: {show(v)}"


TRANSPARENT = ("nice", "timeout", "stdbuf", "/usr/bin/nice")


@budget(120)
@given(wrap=S.wrapper, cmd=S.allowed_cmd, data=st.data())
def test_wrappers_are_never_allowed(pjudge, wrap, cmd, data):
    """A wrapper runs another command: never auto-allowed itself, whatever it wraps; the
    transparent ones (rules: `transparent: true`, they change nothing a decision depends on)
    are judged as the command they run, never more loosely."""
    tick("soundness: wrappers")
    fill_cmd(cmd, pjudge.project)
    text = data.draw(S.rendered([S.Cmd(list(wrap) + cmd.argv)])).text()
    v = pjudge(text)
    if wrap[0] in TRANSPARENT:
        bare = pjudge(data.draw(S.rendered([S.Cmd(list(cmd.argv))])).text())
        assert v.decision >= bare.decision, f"{text!r}: {show(v)}; bare: {show(bare)}"
        if v.decision is ASK and bare.decision is ASK:
            assert v.code in (bare.code, "GW706"), f"{text!r}: {show(v)}; bare: {show(bare)}"
        return
    if wrap[0] == "xargs":  # no producer it can reproduce feeds it (gateway.validator.xargs)
        assert v.decision is ASK and v.code in ("GW715", "GW706", "GW701"), \
            f"{text!r}: {show(v)}"
        return
    assert v.decision is ASK and v.code in ("GW706", "GW701"), f"{text!r}: {show(v)}"


@budget(120)
@given(wrap=st.sampled_from([w for w in S.WRAPPERS if w[0] in TRANSPARENT]),
       cmd=S.allowed_cmd, secret=st.sampled_from([".env", ".env.local", "id_rsa", "x.pem"]),
       op=st.sampled_from(["<", "0<", "< ", "3<", "<>"]), data=st.data())
def test_a_transparent_wrapper_keeps_the_lines_redirections(pjudge, wrap, cmd, secret, op, data):
    """The shell opens a line's redirections before the wrapper runs: `nice cat < .env`
    reads .env exactly as `cat < .env` does (it was allowed when the wrapper was peeled)."""
    tick("soundness: wrappers")
    fill_cmd(cmd, pjudge.project)
    redir = f" {op}{secret}"
    bare = pjudge(data.draw(S.rendered([S.Cmd(list(cmd.argv))])).text() + redir)
    text = data.draw(S.rendered([S.Cmd(list(wrap) + cmd.argv)])).text() + redir
    v = pjudge(text)
    assert v.decision is not ALLOW, f"{text!r}: {show(v)}"
    assert v.decision >= bare.decision, f"{text!r}: {show(v)}; bare: {show(bare)}"


SECRET_GLOBS = (".env", ".env.*", "*.env", "*.pem", "*.key", "id_rsa*", "credentials*")
SECRET_EXCEPTIONS = (".env.example", ".env.sample", ".env.template", "*.pub")


def _secret_name(name):
    return any(fnmatch.fnmatch(name.lower(), g) for g in SECRET_GLOBS) and not any(
        fnmatch.fnmatch(name.lower(), g) for g in SECRET_EXCEPTIONS)


def reads_beyond(directory, project, follow, hidden=True):
    """Would a recursive reader started at `directory` read a secret, or follow a link out
    of the project? (An oracle from the file system, not from the rules engine.) With
    `follow`, links to directories are walked into too, as `grep -R` does."""
    seen = set()
    for top, dirs, files in os.walk(directory, followlinks=follow):
        real_top = os.path.realpath(top)
        if real_top in seen:  # a link cycle: the reader would see nothing new here
            dirs[:] = []
            continue
        seen.add(real_top)
        names = files + dirs
        if not hidden:
            names = [n for n in names if not n.startswith(".")]
            dirs[:] = [d for d in dirs if not d.startswith(".")]
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in names:
            path = os.path.join(top, name)
            if os.path.islink(path):
                if not follow:
                    continue
                real = os.path.realpath(path)
                if not within(real, project) or _secret_name(os.path.basename(real)):
                    return True
            elif name in files and _secret_name(name):
                return True
    return False


# (template, follows links, reads hidden files, other directories the template reads). The
# searches' patterns match a line of every secret of the sample project (E: SECRET=1,
# `mode = TOKEN KEY SECRET`, -----BEGIN PRIVATE KEY-----): a search that reaches a secret none
# of whose lines match prints none of it and is allowed (searchprobe.py;
# tests/property/test_search_probe.py runs the real tools for that side).
RECURSIVE = [("grep -r E {}", False, True, ()), ("grep -rn SECRET {}", False, True, ()),
             ("grep -R E {}", True, True, ()), ("rg --hidden SECRET {}", False, True, ()),
             ("rg -uu E {}", False, True, ()), ("rg SECRET {}", False, False, ()),
             ("diff -r {} src", True, True, ("src",)), ("grep -rl E -- {}", False, True, ())]


@budget(60)
@given(how=st.sampled_from(RECURSIVE), d=st.sampled_from([".", "src", "config", "keys",
                                                          "scripts", "docs", "src/auth", ""]),
       seed=S.seeds)
def test_recursive_readers_never_read_secrets(pjudge, how, d, seed):
    tick("soundness: recursive readers")
    template, follow, hidden, also = how
    project = pjudge.project
    beyond = any(reads_beyond(os.path.join(project, top), project, follow, hidden)
                 for top in (d or ".", *also))
    if known_bugs.is_open("recursive-readers"):
        assume(not beyond)
    text = template.format(S.spell(d, S.rng_of(seed)) if d else "").rstrip()
    v = pjudge(text)
    if beyond:
        assert v.decision is not ALLOW, f"{text!r} reads secrets or leaves: {show(v)}"
    else:
        assert v.decision is ALLOW, f"{text!r}: {show(v)}"


@budget(60, deadline=None)  # the first walk of a directory outside scans its files cold
@given(cwd=st.sampled_from(["lnk", "uplink", "scripts/tmplink", "chainout"]),
       how=st.sampled_from(["cat README.md", "ls .", "find . -name x", "head -n 1 a.txt",
                            "grep -r x .", "ls", "grep -r root", "rg x", "tree", "du -a",
                            "ls -R", "git status", "wc -l passwd"]))
def test_commands_run_from_outside_read_outside(pjudge, cwd, how):
    """When the working directory is outside the project, relative and implicit paths are
    outside too."""
    tick("soundness: working directory outside")
    explicit = any(w in how.split()[1:] for w in (".", "README.md", "a.txt", "passwd"))
    if known_bugs.is_open("implicit-cwd-outside"):
        assume(explicit)
    v = pjudge(how, cwd=cwd)
    assert v.decision is not ALLOW, f"{how!r} in {cwd!r}: {show(v)}"
    if explicit:
        assert v.code in ("GW501", "GW502"), f"{how!r} in {cwd!r}: {show(v)}"


@budget(80)
@given(name=st.sampled_from(S.EDIT_SAMPLE), data=st.data(),
       target=st.sampled_from(["secret", "protected", "outside", "inside"]))
def test_accept_edits_allows_edits_only_of_ordinary_project_files(pjudge, name, data, target):
    """In acceptEdits the catalogue's edits are allowed on ordinary files inside the project;
    a secret, a protected path or a path outside never is (the same floors as everywhere)."""
    tick("soundness: acceptEdits edits")
    src = data.draw(S.inside_path(dirs=False))
    if target == "secret":
        dest, ok = data.draw(st.sampled_from([".env", "config/.env.production", "notes.txt",
                                              "keys/server.pem"])), False
    elif target == "protected":
        dest, ok = data.draw(st.sampled_from([".claude/settings.json", ".git/hooks/pre-commit",
                                              ".claude/hooks/h.sh", ".git/config"])), False
    elif target == "outside":
        dest, _code = data.draw(S.outside_path())
        dest, ok = fill(dest, pjudge.project), False
    else:
        dest, ok = data.draw(st.sampled_from(["new.txt", "src/new.py", "docs/x.md"])), True
    argv = {"cp": ["cp", src, dest], "mv": ["mv", src, dest], "chmod": ["chmod", "+x", dest],
            "ln": ["ln", "-s", src, dest], "tee": ["tee", dest]}[name]
    text = data.draw(S.rendered([S.Cmd(argv)])).text()
    v = pjudge(text, mode="acceptEdits")
    if ok:  # the source may be a link that leads out (GW502) or out of the project (GW501)
        assert v.decision is ALLOW or v.code in ("GW502", "GW501"), f"{text!r}: {show(v)}"
    else:
        assert v.decision is not ALLOW, f"{text!r}: {show(v)}"


@budget(60)
@given(name=st.sampled_from(["cp", "mv", "ln"]), data=st.data(),
       dest=st.sampled_from([".claude/hooks", ".git/hooks", ".claude", ".git", "/tmp",
                             "..", "lnk", ".claude/agents"]),
       form=st.sampled_from(["-t {d}", "--target-directory={d}", "--target-directory {d}",
                             "-t{d}", "{d}"]))
def test_accept_edits_never_writes_into_a_protected_or_outside_directory(pjudge, name, data,
                                                                         dest, form):
    """Reproducer (found by a self red-team pass): `cp README.md -t .claude/hooks` was allowed
    in acceptEdits: the destination given by an option was not judged as written."""
    tick("soundness: acceptEdits destinations")
    src = data.draw(S.inside_path(dirs=False))
    where = form.format(d=dest)
    argv = [name] + (["-s"] if name == "ln" else []) + (
        where.split() + [src] if where != dest else [src, dest])
    text = data.draw(S.rendered([S.Cmd(argv)])).text()
    v = pjudge(text, mode="acceptEdits")
    assert v.decision is not ALLOW, f"{text!r}: {show(v)}"
