"""Properties of the git forms of rules/effects.yaml (`git.subcommands`, issue 13: one
catalogue feeds both hooks), over generated invocations of every subcommand described there:
its forms' first words, options from their allowlists (with values), operands, and four
mutations: none, an option nobody knows, a real option of the subcommand that no form lists,
and a long option written shorter (an abbreviation).

* the data decides (no git needed): an invocation built from a read-only form is read-only;
  one with an option no form of the subcommand lists is not (and is `unknown` where the
  subcommand says an unmatched use may run a program or is unknown), and the validator does
  not allow it; an abbreviation counts as the option it abbreviates exactly when the
  subcommand has a complete option list and the abbreviation names one option of it;
* git agrees (real git in a sandbox repository, HOME a temporary directory,
  GIT_CONFIG_NOSYSTEM=1): whatever the guards call read-only changes no file at all (the
  repository's .git included); any other invocation changes no working-tree or outside file
  that its effects do not name, unless they say it rewrites the working tree or is unknown;
* abbreviations (real git): for every subcommand with a complete option list, git's option
  parser reports a prefix as ambiguous, unknown or neither exactly as the list says.
"""

import os
import shlex
import shutil
import subprocess

import pytest
from hypothesis import assume, event, given
from hypothesis import strategies as st

from gateway.decision import ALLOW
from tests.property.conftest import budget
from tests.property.support import tick

GIT = shutil.which("git")
needs_git = pytest.mark.skipif(GIT is None, reason="git is not installed")

#: launch a diff or merge tool (a program of the user's): never run here
NOT_RUN = frozenset(("difftool", "mergetool"))
UNKNOWN = "--gw-no-such-option"
VALUES = {"-m": "msg", "--message": "msg", "-b": "topic", "-B": "topic", "-c": "topic",
          "-C": "topic", "--create": "topic", "--force-create": "topic", "--format": "%(refname)",
          "--sort": "refname", "-o": "out.bin", "--output": "out.bin",
          "--output-directory": "patches", "--type": "bool", "-s": "HEAD", "--source": "HEAD",
          "-p": "1", "--prefix": "x/"}


def _subs(policy):
    return sorted(policy.data["effects"]["git"]["subcommands"])


def _env(root):
    home = os.path.join(root, "home")
    return {"PATH": os.environ["PATH"], "HOME": home, "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@t", "GIT_PAGER": "cat", "PAGER": "cat",
            "GIT_EDITOR": "true", "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C",
            "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
            "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z"}


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    """A sandbox: repo/ (two commits, a tag, a stash entry, a staged new file, a modified
    tracked file, an untracked build/ tree), home/, and p.patch beside them."""
    if GIT is None:
        return None
    root = str(tmp_path_factory.mktemp("gitforms"))
    os.makedirs(os.path.join(root, "home"))
    repo = os.path.join(root, "repo")
    env = _env(root)

    def git(*args):
        subprocess.run([GIT, *args], cwd=repo, env=env, check=True, capture_output=True)

    os.makedirs(repo)
    git("init", "-q", "-b", "main")
    with open(os.path.join(repo, "a.txt"), "w") as fh:
        fh.write("one\n")
    git("add", "a.txt")
    git("commit", "-qm", "one")
    with open(os.path.join(repo, "a.txt"), "a") as fh:
        fh.write("two\n")
    git("commit", "-qam", "two")
    git("tag", "v1")
    with open(os.path.join(repo, "a.txt"), "a") as fh:
        fh.write("stashed\n")
    git("stash", "-q")
    with open(os.path.join(repo, "new.txt"), "w") as fh:
        fh.write("new\n")
    git("add", "new.txt")
    with open(os.path.join(repo, "a.txt"), "a") as fh:
        fh.write("modified\n")
    os.makedirs(os.path.join(repo, "build"))
    with open(os.path.join(repo, "build", "junk.o"), "w") as fh:
        fh.write("junk\n")
    patch = subprocess.run([GIT, "diff", "HEAD"], cwd=repo, env=env, check=True,
                           capture_output=True).stdout
    with open(os.path.join(root, "p.patch"), "wb") as fh:
        fh.write(patch)
    return root


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    """Where each example's copy of the sandbox goes (replaced by the next example)."""
    return str(tmp_path_factory.mktemp("gitforms-run"))


def _snapshot(root):
    """Every file and directory below root: relative path -> contents (None: a directory)."""
    out = {}
    for d, dirs, files in os.walk(root):
        for name in dirs:
            out[os.path.relpath(os.path.join(d, name), root)] = None
        for name in files:
            p = os.path.join(d, name)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, root)] = fh.read()
    return out


def _changed(before, after):
    return sorted(k for k in set(before) | set(after) if before.get(k, 1) != after.get(k, 1))


def _run_git(template, tmp, words):
    """Real git, words after `git`, in a copy of the sandbox: (changed paths relative to the
    sandbox, the copy's root, the completed process)."""
    root = os.path.join(tmp, "sb")
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(template, root, symlinks=True)
    before = _snapshot(root)
    proc = subprocess.run([GIT, *words], cwd=os.path.join(root, "repo"), env=_env(root),
                          capture_output=True, stdin=subprocess.DEVNULL, timeout=20)
    return _changed(before, _snapshot(root)), root, proc


@st.composite
def invocations(draw, policy):
    """(subcommand, form, words after the subcommand, mutation, detail)."""
    model = policy.effects
    sub = draw(st.sampled_from(_subs(policy)))
    forms = model.git_forms(sub)
    k = draw(st.integers(0, len(forms.forms) - 1))
    form = forms.forms[k]
    words = []
    if form.first is not None:
        words.append(draw(st.sampled_from(sorted(form.first))))
    safe = sorted(form.safe)
    opts = draw(st.lists(st.sampled_from(safe), max_size=3, unique=True)) if safe else []
    if form.requires and not any(o in form.requires for o in opts):
        opts.append(draw(st.sampled_from(sorted(form.requires))))
    for o in opts:
        words.append(o)
        if o in form.value_flags:
            words.append(VALUES.get(o, "HEAD"))
    n_max = 2 if form.max_positionals is None else min(form.max_positionals, 2)
    n = draw(st.integers(min(form.min_positionals, n_max), n_max))
    operands = ["a.txt", "new.txt"] if form.effect == "move" else ["HEAD", "a.txt"]
    if form.effect in ("paths",) and sub not in ("checkout",):
        operands = ["a.txt", "build"]
    words += operands[:n]
    if form.after_dashdash:
        words += ["--", "a.txt"]
    mutation = draw(st.sampled_from(["none", "none", "none", "unknown", "outside", "abbrev"]))
    detail = None
    if mutation == "unknown":
        words.insert(len(words) - n - (2 if form.after_dashdash else 0), UNKNOWN)
        detail = UNKNOWN
    elif mutation == "outside":
        listed = set()
        for f in forms.forms:
            listed |= f.safe or set()
        pool = sorted(o for o in (form.options or forms.options or ()) if o not in listed)
        assume(pool)
        detail = draw(st.sampled_from(pool))
        words.insert(len(words) - n - (2 if form.after_dashdash else 0), detail)
    elif mutation == "abbrev":
        longs = [i for i, w in enumerate(words) if w.startswith("--") and w != "--"
                 and (form.first is None or i > 0)]
        assume(longs)
        i = draw(st.sampled_from(longs))
        full = words[i]
        cut = draw(st.integers(3, max(3, len(full) - 1)))
        assume(cut < len(full))
        words[i] = full[:cut]
        detail = (full, full[:cut])
    return sub, form, words, mutation, detail


@budget(250)
@given(data=st.data())
def test_git_forms_follow_the_data(policy, scratch, template, data):
    tick("git forms: data and real git")
    from gateway.effects.analysis import analyze

    sub, form, words, mutation, detail = data.draw(invocations(policy))
    command = "git " + " ".join(shlex.quote(w) for w in [sub] + words)
    cwd = os.path.join(template, "repo") if template else "/proj"
    eff = analyze(command, cwd, policy=policy)
    forms = policy.effects.git_forms(sub)
    if mutation == "none":
        if form.effect == "read":
            # an earlier form may match first; every form before a read form of the same
            # subcommand that matches is checked below against git, so only read-only here
            # when no earlier non-read form takes these words
            earlier = [f for f in forms.forms[:forms.forms.index(form)]
                       if f.match(words) is not None]
            if not earlier:
                assert eff.readonly, (command, eff.reasons())
        if form.effect == "repository" and not eff.unknown:
            assert not eff.worktree, (command, eff.worktree)
    elif mutation in ("unknown", "outside"):
        assert not eff.readonly, command
        if forms.unmatched is not None:
            assert eff.unknown, (command, eff.reasons())
        if forms.unmatched == "program":
            assert eff.commit_push_maybe, command
        from gateway.validator.pipeline import validate

        proj = cwd if template else "/proj"
        v = validate(command, proj, proj, policy, env=_env(template) if template else None)
        # the validator's git-config check allows `git config get|list ...` whatever
        # follows (git >= 2.46 only reads there, and refuses an unknown option; git 2.39
        # takes `get` for a key without a section and refuses it): not this data's claim
        if not (sub == "config" and words[:1] in (["get"], ["list"])):
            assert v.decision is not ALLOW, (command, v.code, v.message)
    else:
        full, prefix = detail
        options = form.options or frozenset()
        cands = [o for o in options if o.startswith(prefix)]
        assume(prefix not in options)  # another option written out (--list of --list-cmds)
        whole = [full if w == prefix else w for w in words]
        if len(cands) == 1:
            # git reads the prefix as the one option it abbreviates: so do the guards
            assert cands == [full], (command, cands)
            assert eff.readonly == analyze(
                "git " + " ".join(shlex.quote(w) for w in [sub] + whole), cwd,
                policy=policy).readonly, command
        else:
            # no complete list (git hands the option on: log, format-patch), ambiguous or
            # unknown: the prefix is no option the form lists, and no form matches
            assert form.match(words) is None, (command, cands)
            if all(f.match(words) is None for f in forms.forms):
                assert not eff.readonly, command
    if template is None or sub in NOT_RUN:
        return
    changed, root, proc = _run_git(template, scratch, [sub] + words)
    event(f"{mutation}: {'read-only' if eff.readonly else 'not read-only'}, git "
          f"{'changed files' if changed else 'changed nothing'}")
    if eff.readonly:
        assert not changed, (command, changed, proc.returncode, proc.stderr[-300:])
        return
    if eff.worktree or eff.unknown or eff.unresolved:
        return
    # every working-tree or outside file git changed is one the effects name
    named = []
    for w in eff.writes:
        for p in w.paths:
            rel = os.path.relpath(p.replace(cwd, os.path.join(root, "repo"), 1), root)
            named.append((rel, w.tree))
    for path in changed:
        if path == os.path.join("repo", ".git") or path.startswith(
                os.path.join("repo", ".git") + os.sep):
            continue
        assert any(path == rel or (tree and path.startswith(rel.rstrip("/") + "/"))
                   for rel, tree in named), (command, path, named, proc.stderr[-300:])


@needs_git
@budget(120)
@given(data=st.data())
def test_abbreviations_resolve_as_git_resolves_them(policy, scratch, template, data):
    """For a form with a complete option list: a prefix the list says names one option is
    that option to git (never "ambiguous"; git does exactly what it does with the option
    written out: the same exit code, output and changed files), or git refuses it as an
    unknown option and does nothing. A prefix the list says is ambiguous the guards never
    resolve (test above), whatever git makes of it."""
    tick("git forms: abbreviations against real git")
    model = policy.effects
    pairs = []
    for sub in _subs(policy):
        forms = model.git_forms(sub)
        for form in forms.forms:
            if form.options and sub not in NOT_RUN:
                pairs.append((sub, form))
    sub, form = data.draw(st.sampled_from(pairs))
    # form.options holds git's implicit negations too (--no-no-add): the names git accepts
    option = data.draw(st.sampled_from(sorted(form.options)))
    cut = data.draw(st.integers(3, len(option) - 1))
    prefix = option[:cut]
    cands = [o for o in form.options if o.startswith(prefix)]
    assume(len(cands) == 1 and prefix not in form.options)
    first = [sorted(form.first)[0]] if form.first is not None else []
    changed, _root, proc = _run_git(template, scratch, [sub] + first + [prefix])
    err = proc.stderr.decode("utf-8", "replace")
    assert "ambiguous option" not in err, (sub, prefix, cands, err[-300:])
    if "unknown option" in err:
        # git does not abbreviate this one (blame's revision options, handed to another
        # parser): it refuses the word and does nothing, so reading it as the option is
        # harmless
        assert proc.returncode != 0 and not changed, (sub, prefix, changed)
        return
    changed2, _root, proc2 = _run_git(template, scratch, [sub] + first + [option])
    assert (proc.returncode, proc.stdout, changed) == (proc2.returncode, proc2.stdout,
                                                       changed2), (sub, prefix, option)
