"""The command knowledge and the analyzer's code cannot drift apart.

The effects analysis (gateway/effects/analysis/) reads what commands do from the rules
(rules/catalogue.yaml, rules/default.yaml, rules/effects.yaml). These tests check that:

* a name is described in one place (a program in effects.yaml is not in the catalogue, a
  runner is not a wrapper, an extra interpreter or builtin is not in default.yaml's tables);
* every `effects` kind the schema accepts is used by the data and has its code (a handler,
  or the core's `flags`/`read`), and every handler is a kind;
* every entry the data describes is reachable (the model routes its name to it);
* the code names no program the data does not know, and every program name the code does
  use is listed below with why it is parsing (the shell's own builtins, git's read-only
  forms) rather than a table that belongs in the rules.
"""

import ast
import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CODE = os.path.join(ROOT, "gateway", "effects", "analysis")

#: Program and builtin names the analyzer's code may spell, and why that is parsing.
PARSING = {
    # the shell itself: where later commands run, what evaluates text, what sets variables
    "cd": "cd/pushd/popd are followed: they decide where later commands run (_core)",
    "pushd": "followed like cd (_core)",
    "popd": "followed like cd (_core)",
    "builtin": "`builtin cd` / `command cd` still move the shell (_core); `builtin -v` prints",
    "command": "`command cd` moves the shell; `command -v` prints (_core, wrappers)",
    "eval": "runs code in the current shell, which may cd (_core)",
    "source": "runs code in the current shell, which may cd (_core)",
    ".": "source, and a path's `.`",
    "trap": "runs code in the current shell later (_core)",
    "enable": "can replace builtins such as cd (_core)",
    "fc": "re-runs history in the current shell (_core)",
    "alias": "makes later words run other commands (_core)",
    "coproc": "runs a command the shell keeps (_core)",
    "function": "defines code the current shell runs (_core)",
    "declare": "sets variables (CDPATH, namerefs) and evaluates subscripts (_core)",
    "typeset": "as declare (_core)",
    "local": "as declare (_core)",
    "readonly": "sets variables (_core)",
    "export": "sets variables (_core)",
    "printf": "printf -v sets a variable and evaluates a subscript (_core)",
    "mapfile": "sets variables; -C runs a callback in this shell (_core)",
    "readarray": "as mapfile (_core)",
    "shopt": "cdable_vars / expand_aliases change what later words do (_core)",
    "getopts": "sets variables and evaluates subscripts (_core)",
    "unset": "unsets variables and evaluates subscripts (_core)",
    "set": "sets the positional parameters (_core)",
    "test": "evaluates an array subscript (test -v 'a[$(cmd)]') (_core)",
    "[": "the test builtin, not a glob (_core)",
    "wait": "evaluates a subscript (wait -n 'a[$(cmd)]') (_core)",
    "let": "evaluates arithmetic (_core)",
    "locale": "a word-issue kind of the shell parser ($\"text\"), not the program (_core)",
    "script": "a field of Effects (the top-level parse), not the program",
    "tree": "a field of Effects.as_dict (a write covers a whole tree), not the program",
    # how a wrapper's own options work
    "env": "env -S runs a command line, env -C changes directory, NAME=value (wrappers)",
    "time": "time -o writes its report (wrappers)",
    "timeout": "timeout's first operand is the duration (wrappers)",
    "xargs": "xargs adds arguments at run time (wrappers, _core)",
    # interpreters whose -i edits the files named after the code
    "perl": "perl -i edits the files it names (wrappers)",
    "ruby": "ruby -i edits the files it names (wrappers)",
}

#: git subcommands the git handler may name: none. Their forms (which are read-only, which
#: leave the working tree alone, which name the files they write), outputs and option lists
#: are rules/effects.yaml's `git.subcommands` (test_git_handler_names_no_option below).
GIT_PARSING = set()


@pytest.fixture(scope="module")
def policy():
    from gateway.runtime import get_policy

    return get_policy(None, use_cache=False)


def _data_names(policy):
    data = policy.data
    eff = data["effects"]
    names = set(data["catalogue"]) | set(eff["programs"]) | set(data["wrappers"])
    names |= set(eff["runners"]) | set(eff["shells"]) | set(eff["interpreters"])
    names |= set(eff["code_builtins"]) | set(data["shell_builtins"]) | set(eff["agents"])
    for name, spec in data["interpreters"].items():
        names.add(name)
        names.update(spec.get("aliases", ()))
    return names


def _constants(path):
    tree = ast.parse(open(path, encoding="utf-8").read())
    return {n.value for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and re.fullmatch(r"[a-z][a-z0-9.+_-]*|\.|\[", n.value)}


def test_a_name_is_described_in_one_place(policy):
    data = policy.data
    eff = data["effects"]
    catalogue = set(data["catalogue"])
    interps = set(data["interpreters"])
    for spec in data["interpreters"].values():
        interps.update(spec.get("aliases", ()))
    assert not set(eff["programs"]) & catalogue, "described in the catalogue and effects.yaml"
    assert not set(eff["runners"]) & set(data["wrappers"]), "a runner that is also a wrapper"
    assert not set(eff["interpreters"]) & interps, "an interpreter in both tables"
    assert not set(eff["code_builtins"]) & set(data["shell_builtins"]), "a builtin in both"
    assert not set(eff["shells"]) & set(eff["interpreters"]), "a shell that is an interpreter"
    git = data["catalogue"]["git"]["subcommands"]
    assert not set(eff["git"]["subcommands"]) & {
        s for s, e in git.items() if e.get("effects")}, "a git subcommand described twice"


def test_every_effects_kind_is_used_and_has_its_code(policy):
    from gateway.effects.analysis import programs
    from gateway.policy.models import EFFECTS

    used = set()

    def walk(entries):
        for entry in entries.values():
            if entry.get("effects"):
                used.add(entry["effects"])
            walk(entry.get("subcommands") or {})

    walk(policy.data["catalogue"])
    walk(policy.data["effects"]["programs"])
    assert used == set(EFFECTS), f"kinds no entry uses: {set(EFFECTS) - used}"
    core = {"flags", "read", "git", "gateway"}
    assert set(programs.HANDLERS) == set(EFFECTS) - core


def test_every_described_entry_is_reachable(policy):
    model = policy.effects
    data = policy.data
    for name, entry in {**data["catalogue"], **data["effects"]["programs"]}.items():
        if entry.get("effects"):
            spec = model.program(name)
            assert spec is not None and spec.effects == entry["effects"], name
    for sub, entry in data["catalogue"]["git"]["subcommands"].items():
        if entry.get("effects"):
            assert model.git_sub(sub) is not None, sub
            assert sub in model.git_commands, f"git {sub} is not among git's commands"
    git = data["effects"]["git"]
    for key in ("worktree", "subcommands"):
        missing = set(git[key]) - set(git["commands"])
        assert not missing, f"git {key}: not git commands: {missing}"


def test_git_forms_are_consistent(policy):
    """Every form of rules/effects.yaml's git.subcommands can match: its `like` names a
    catalogue entry, the options it requires are among those it allows, and an option list
    for abbreviations lists the form's long options (an option missing from it could be
    taken for an abbreviation of another)."""
    from gateway.policy.effects import _catalogue_entry

    model = policy.effects
    for sub, entry in policy.data["effects"]["git"]["subcommands"].items():
        forms = model.git_forms(sub)
        for k, (raw, form) in enumerate(zip(entry["forms"], forms.forms, strict=True)):
            where = f"git {sub} form {k}"
            if raw.get("like"):
                assert _catalogue_entry(policy, raw["like"]) is not None, where
            assert form.safe is not None, where
            assert form.requires <= form.safe, f"{where}: requires an option it refuses"
            if form.options is not None:
                longs = {o for o in form.safe if o.startswith("--")}
                assert longs <= form.options, (f"{where}: allows long options missing from "
                                               f"its option list: {longs - form.options}")


def test_output_and_tree_flags_are_options_the_entry_knows(policy):
    """An output flag is a write the validator judges (write_flags) or refuses
    (unsafe_flags): never an option it would allow without seeing the write."""
    bad = []

    def walk(prefix, entries):
        for name, entry in entries.items():
            label = f"{prefix} {name}".strip()
            for flag in entry.get("output_flags", ()):
                if flag not in entry.get("unsafe_flags", ()) and \
                        flag not in entry.get("write_flags", ()):
                    bad.append(f"{label} {flag}: an output flag the validator does not judge")
            safe = entry.get("safe_flags")
            for flag in entry.get("tree_flags", ()):
                if safe is not None and flag not in safe:
                    bad.append(f"{label} {flag}: a tree flag outside the allowlist")
            walk(label, entry.get("subcommands") or {})

    walk("", policy.data["catalogue"])
    assert not bad, bad


def test_the_code_names_no_program_the_rules_do_not_describe(policy):
    """Every command name spelled in gateway/effects/analysis/ is known to the rules and is
    parsing (PARSING, GIT_PARSING), not a table of command knowledge living in code."""
    from gateway.policy.models import EFFECTS

    # every command name the policy knows anywhere (a name it knows nowhere cannot be told
    # from other text; the routing tests above cover the data side)
    policy_names = _data_names(policy) | set(policy.data["always_ask"])
    known = policy_names | set(PARSING)
    git_commands = set(policy.data["effects"]["git"]["commands"])
    found = {}
    for name in sorted(os.listdir(CODE)):
        if not name.endswith(".py"):
            continue
        for c in _constants(os.path.join(CODE, name)):
            if c in EFFECTS:
                continue  # handler kinds (the data names them in `effects:`; `git` also
                #           for git-<name> programs, which are git <name>)
            if c in known or (name == "git.py" and c in git_commands):
                found.setdefault(c, name)
    unexplained = {c: f for c, f in found.items()
                   if c not in PARSING and not (f == "git.py" and c in GIT_PARSING)}
    assert not unexplained, ("command names in the analyzer's code that are not parsing: "
                             f"move them into the rules ({unexplained})")
    unknown = {c for c in PARSING if c not in policy_names
               and c not in (".", "[", "locale", "let", "getopts", "mapfile", "readarray",
                             "tree", "script")}
    assert not unknown, f"names the rules do not describe: {unknown}"
    stale = {c for c in PARSING if c not in found}
    assert not stale, f"PARSING lists names the code no longer uses: {stale}"


def test_git_handler_names_no_git_option_or_subcommand(policy):
    """gateway/effects/analysis/git.py reads git's command line; what an option or a
    subcommand means is data (rules/effects.yaml `git`, the catalogue's git entry). The
    only option-like words it may spell are the ones every getopt reads: `-` (an operand)
    and `--` (the end of the options)."""
    path = os.path.join(CODE, "git.py")
    tree = ast.parse(open(path, encoding="utf-8").read())
    words = {n.value for n in ast.walk(tree)
             if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    options = {w for w in words if re.fullmatch(r"--?[A-Za-z0-9][\w-]*(=.*)?", w)}
    assert not options, f"git options named in git.py (move them into the rules): {options}"
    commands = set(policy.data["effects"]["git"]["commands"])
    named = {w for w in words if w in commands}
    assert not named, f"git subcommands named in git.py (move them into the rules): {named}"
