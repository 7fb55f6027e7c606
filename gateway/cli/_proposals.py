"""`gateway stats`: which commands cost the user prompts, and the narrowest rule that would
let each run without one -- proposed only when that is safe, and proven before it is shown.

Every prompt in the audit log (a PermissionRequest the gateway left to the human) is judged
again with today's policy. Only prompts that came from a *missing rule* get a proposal: an
unknown command (GW703) or an unknown subcommand (GW705). Everything a safety check asked
for -- ALWAYS_ASK, subcommand_ask, the user's own permissions.ask, secrets, paths outside the
project, shell syntax, deny rules -- gets none; the table says why.

The proposal is a catalogue entry that allows exactly what was seen: only the options seen
(safe_flags), no more positionals than seen (and those still must be paths inside the
project, and, since an unknown command may write them, not the agent's permission surface:
`writes: true`), and for words seen in first position, one subcommand each. None is made for
a language runtime (it runs whatever file it is given: the containment of phase 6 exists for
that), for an option that can run code given to it (-c, -e, --exec, ...), or for an option
with a glued value (--out=x: a value a rule cannot check as a written path). A catalogue entry may
only come from the built-in or the user layer (a repository's .claude/gateway.yaml can only
tighten), so it goes to the user layer. Before it is shown it is proven: the YAML text is
loaded as a user layer file through the same loader, merge, examples check and validator the
hook uses, and every command of the group is judged again; a proposal under which no prompt
would have been saved, or which the loader rejects, is dropped.
"""

import collections
import copy
import os
import re
import shlex
import tempfile

from gateway import paths
from gateway.codes import CODES

ELIGIBLE = ("GW703", "GW705")
_BARE = re.compile(r"^[a-z][a-z0-9_-]*$")
#: Programs that run the file or text they are given; a catalogue entry would let any file
#: in the project run as code (what phase 6 keeps to scripts/ for the known interpreters).
_RUNTIMES = frozenset(("java", "javaw", "jshell", "julia", "rscript", "r", "ts-node", "tsx",
                       "esno", "groovy", "scala", "kotlin", "kotlinc", "swift", "elixir",
                       "iex", "erl", "escript", "ghci", "runghc", "runhaskell", "racket",
                       "guile", "tclsh", "wish", "jq", "node", "nodejs", "ruby", "perl", "php",
                       "python", "pypy", "pypy3", "bash", "sh", "zsh", "dash", "ksh", "fish",
                       "pwsh", "powershell", "osascript", "gradle", "mvn", "ant", "rake", "sbt",
                       "lein", "dotnet"))
#: Task runners (tox, nox, make, just...) run what the project's own configuration says,
#: the trust the catalogue's make entry already gives the Makefile: a rule for the
#: environments and targets seen may be proposed.
#: Options that commonly make a program run code given to it.
_RUNS_CODE = frozenset(("-c", "-e", "--eval", "--exec", "-exec", "--execute", "--command",
                        "--cmd", "--shell", "--pre", "--hook", "--rcfile", "--init-file",
                        "--config", "--exec-path", "--upload-pack", "--receive-pack",
                        "--require", "--import", "--loader", "--plugin", "--script"))
#: What every catalogue entry allows alone (the default info_flags).
_INFO = frozenset(("--version", "--help"))
_DEFAULTS = {"args": "paths", "writes": False, "value_flags": [], "text_flags": [],
             "unsafe_flags": []}


class Group:
    """The prompts of one command (or one reason)."""

    def __init__(self, key, label, code):
        self.key = key
        self.label = label  # what the table shows: "frobnicate", "go mod", "curl"
        self.code = code  # the reason it asks today
        self.prompts = 0
        self.commands = collections.Counter()  # command text -> prompts
        self.where = {}  # command text -> (cwd, project) of its last prompt
        self.target = None  # (name, path, sub) for a missing rule
        self.rests = []  # the arguments seen after the command / subcommand
        self.reason = ""  # why there is no proposal
        self.proposal = None  # Proposal


class Proposal:
    def __init__(self, name, entry, summary, replaces_builtin):
        self.name = name  # the catalogue entry
        self.entry = entry  # its data (for the YAML)
        self.summary = summary
        self.replaces_builtin = replaces_builtin
        self.saved = 0  # prompts that would have been saved
        self.examples = []


class Env:
    """Policy, settings and merged layers per project, loaded once."""

    def __init__(self, env=None):
        env = dict(os.environ if env is None else env)
        env.pop("CLAUDE_PROJECT_DIR", None)  # each logged call names its own directory
        self.env = env
        self._cache = {}

    def load(self, project):
        if project not in self._cache:
            from gateway import settings as settings_mod
            from gateway.policy.compiled import Policy
            from gateway.policy.merge import merge

            m = merge(project, self.env)
            self._cache[project] = (m, Policy(m.policy), settings_mod.load(project, self.env))
        return self._cache[project]


def _project(cwd, env):
    return paths.project_dir(cwd if cwd and os.path.isabs(cwd) else None, env)


def _judge(command, cwd, project, policy, settings):
    from gateway.validator.pipeline import validate

    return validate(command, cwd or project, project, policy, "Bash", settings)


def _segments(command):
    from gateway.shell.parse import ShellParseError, parse

    try:
        script = parse(command)
    except ShellParseError:
        return []
    return [c.argv for p, _ in script.items for c in p.commands if c is not None and c.words]


def _name(word):
    return word.rsplit("/", 1)[-1]


def _walk(policy, name, words):
    """(path, unknown subcommand, rest) the way phase 7C walks `name`'s subcommands, or
    None when every subcommand is known (or the global options are not acceptable)."""
    from gateway.policy.invocation import invocation

    spec = policy.command(name)
    if spec is None:
        return None
    if spec.has_global:
        inv = invocation(spec, words)
        if inv.error:
            return None
        words = inv.words
    path = []
    while spec.subcommands is not None:
        if words and not words[0].startswith("-"):
            if words[0] in spec.subcommands:
                spec = spec.subcommands[words[0]]
                path.append(words[0])
                words = words[1:]
                continue
            return path, words[0], words[1:]
        if spec.default_subcommand is not None:
            path.append(spec.default_subcommand)
            spec = spec.subcommands[spec.default_subcommand]
            continue
        break
    return None


def _target(verdict, command, policy):
    """(name, path, sub, rests) for a GW703/GW705 verdict, else None."""
    rule = verdict.rule or ""
    if not rule.startswith("catalogue:"):
        return None
    label = rule[len("catalogue:"):].split()
    if not label:
        return None
    name = label[0]
    rests = []
    found = None
    for argv in _segments(command):
        if _name(argv[0]) != name:
            continue
        if verdict.code == "GW703":
            found = (name, (), None)
            rests.append(argv[1:])
            continue
        walked = _walk(policy, name, argv[1:])
        if walked is None or [name] + walked[0] != label:
            continue
        key = (name, tuple(walked[0]), walked[1])
        if found is None:
            found = key
        if key == found:
            rests.append(walked[2])
    return (found + (rests,)) if found else None


def collect(entries, env: Env) -> tuple:
    """Group the prompts. Returns ([Group] by prompts, most first; prompts now allowed)."""
    groups = {}
    now_allowed = 0
    for entry in entries:
        command = entry.get("command")
        tool = entry.get("tool")
        cwd = entry.get("cwd") if isinstance(entry.get("cwd"), str) else None
        if tool != "Bash" or not isinstance(command, str):
            key = f"tool:{tool}"
            g = groups.get(key) or groups.setdefault(key, Group(key, f"({tool} tool)", ""))
            g.prompts += 1
            g.reason = "not a Bash command: the validator judges Bash only"
            continue
        project = _project(cwd, env.env)
        try:
            _m, policy, settings = env.load(project)
        except Exception as exc:  # a broken rules file: report it, propose nothing
            key = "error:rules"
            g = groups.get(key) or groups.setdefault(key, Group(key, "(rules unreadable)",
                                                                "GW901"))
            g.prompts += 1
            g.reason = f"the rules of {project} cannot be loaded: {exc}"
            continue
        verdict = _judge(command, cwd, project, policy, settings)
        if verdict.allowed:
            now_allowed += 1
            continue
        target = _target(verdict, command, policy) if verdict.code in ELIGIBLE else None
        if target:
            name, path, sub, rests = target
            label = " ".join([name, *path] + ([sub] if sub else []))
            key = "catalogue:" + label
        else:
            rests = []
            first = _segments(command)
            word = _name(first[0][0]) if first else (command.split() or [""])[0]
            key = verdict.rule or f"{verdict.code}:{word}"
            kind, _, rest = (verdict.rule or "").partition(":")
            label = rest if kind in ("always_ask", "subcommand_ask", "wrappers", "catalogue",
                                     "shell_builtins") and rest else _one_line(command, 28)
        g = groups.get(key)
        if g is None:
            g = groups[key] = Group(key, label, verdict.code)
            if target:
                g.target = target[:3]
            else:
                g.reason = _why_not(verdict)
        g.prompts += 1
        g.commands[command] += 1
        g.where[command] = (cwd, project)
        g.rests.extend(rests)
    ordered = sorted(groups.values(), key=lambda g: (-g.prompts, g.label))
    return ordered, now_allowed


def _why_not(verdict) -> str:
    if verdict.code in ELIGIBLE:
        return "cannot tell which part of the command is unknown"
    title = CODES.get(verdict.code, ("", "", verdict.code))[2]
    if verdict.decision.name == "DENY":
        return f"{title}: denied, never proposed"
    return f"{title}: a safety check, not a missing rule"


# --- building the narrowest entry ---------------------------------------------------------


def _flat(rests) -> dict:
    from gateway.shell import argv as argvmod

    flags = set()
    most = 0
    for rest in rests:
        parsed = argvmod.parse(rest)
        flags.update(o.name for o in parsed.options)
        most = max(most, len(parsed.positionals))
    entry = {"safe_flags": sorted(flags)}
    if most == 0:
        entry["args"] = "none"
    else:
        entry["max_positionals"] = most
        entry["writes"] = True
    return entry


#: Options of _RUNS_CODE that mean something else to a program: tox's and nox's -e names
#: the environments (sessions) to run.
_NOT_CODE = {"tox": frozenset(("-e",)), "nox": frozenset(("-e",))}


def refusal(name, rests) -> str:
    """Why no rule may be proposed for what was seen, or ""."""
    from gateway.shell import argv as argvmod

    if name.lower() in _RUNTIMES or name.lower().startswith(("python", "ruby", "perl")):
        return f"{name} runs whatever file or text it is given: no rule is proposed"
    harmless = _NOT_CODE.get(name.lower(), frozenset())
    for rest in rests:
        parsed = argvmod.parse(rest)
        for o in parsed.options:
            if o.name in _RUNS_CODE and o.name not in harmless:
                return f"the option {o.name} can run code given to it: no rule is proposed"
            if o.value is not None:
                return (f"{o.word} glues a value to an option; a rule cannot check such a "
                        "value as a written path: no rule is proposed")
        if parsed.attached:
            return (f"{parsed.attached[0]!r} is glued to an option; a rule cannot check such a "
                    "value as a written path: no rule is proposed")
    return ""


def narrowest(rests, split=True) -> dict:
    """The narrowest catalogue entry allowing every argument list in `rests`: words always
    seen first become subcommands (the entry itself then takes no options and no
    arguments), after global options when every list starts with them (`flask --app X
    routes`: --app takes X, routes is the subcommand, and `flask --app X init-db` stays
    unknown). Lists that do not read so are left out (they stay prompts) as soon as one
    does: a flat entry takes every bare word as a path, an unseen subcommand included.
    Only when none does: the options seen, and at most as many positionals as seen."""
    if split and rests:
        # `--version` or `--help` alone is allowed by every catalogue entry (info_flags):
        # it needs no rule, and must not make the others read as paths
        rests = [r for r in rests if not (len(r) == 1 and r[0] in _INFO)] or [[]]
        globals_ = _split_globals(rests)
        if globals_ is None:
            # some lists do not read as `options subcommand ...`: a flat entry would take
            # every bare word as a path, so `frob deploy` would pass after `frob build` and
            # `frob ./x` (issue 25: `flask ... init-db` after `flask ... routes`). The lists
            # that do read so keep their subcommands; the others stay prompts.
            # (an option read both ways: the first reading seen wins)
            subs = []
            for r in rests:
                if _split_globals(subs + [r]) is not None:
                    subs.append(r)
            if subs:
                globals_ = _split_globals(subs)
        if globals_ is not None:
            values, flags, stripped = globals_
            by_word = collections.defaultdict(list)
            for r in stripped:
                by_word[r[0]].append(r[1:])
            entry = {"args": "none", "safe_flags": [], "subcommand_required": True,
                     "subcommands": {w: narrowest(rs, split=False)
                                     for w, rs in sorted(by_word.items())}}
            if values or flags:
                entry["global"] = {"value_flags": sorted(values), "flags": sorted(flags)}
            return entry
    return _flat(rests)


def _split_globals(rests):
    """(global options taking a value, global flags, the lists from their subcommand on)
    when every list is options followed by a bare word (the subcommand), read so: an
    option followed by a word and then a bare word takes that word (`--app X routes`),
    an option followed directly by the bare word is a flag (`--debug run`). None when
    some list does not read so, or an option is read both ways."""
    values, flags, out = set(), set(), []
    for r in rests:
        i = 0
        while i < len(r) and r[i].startswith("-") and r[i] != "-":
            opt = r[i]
            if "=" in opt or (not opt.startswith("--") and len(opt) > 2):
                return None  # a glued value or a cluster of short options: not read here
            if i + 2 < len(r) and not r[i + 1].startswith("-") and _BARE.match(r[i + 2]):
                values.add(opt)
                i += 2
            else:
                flags.add(opt)
                i += 1
        if i >= len(r) or not _BARE.match(r[i]):
            return None
        out.append(r[i:])
    if values & flags:
        return None
    return values, flags, out


def _strip_defaults(entry) -> dict:
    """A catalogue entry without the fields that only repeat a default."""
    out = {}
    for k, v in entry.items():
        if k in _DEFAULTS and v == _DEFAULTS[k]:
            continue
        if k == "global":
            v = {gk: gv for gk, gv in v.items() if gv}
            if not v:
                continue
        elif k == "subcommands" and isinstance(v, dict):
            v = {name: _strip_defaults(sub) for name, sub in v.items()}
        out[k] = v
    return out


def _describe(entry) -> str:
    if "subcommands" in entry and entry.get("args") == "none":
        return "subcommands " + ", ".join(entry["subcommands"])
    bits = []
    if entry.get("args") == "none":
        bits.append("no arguments")
    elif "max_positionals" in entry:
        bits.append(f"≤{entry['max_positionals']} path(s) in the project")
    flags = entry.get("safe_flags") or []
    bits.append("options " + " ".join(flags) if flags else "no options")
    return ", ".join(bits)


def build(group, env: Env):
    """The Proposal for a group with a target (not yet proven)."""
    name, path, sub = group.target
    new = narrowest(group.rests)
    if sub is None:
        return Proposal(name, new, f"new command {name}: {_describe(new)}", False)
    cwd, project = next(iter(group.where.values()))
    m, _policy, _settings = env.load(project)
    base = m.policy["catalogue"].get(name)
    if base is None:
        return None
    entry = _strip_defaults(copy.deepcopy(base))
    node = entry
    for word in path:
        node = node["subcommands"][word]
    node.setdefault("subcommands", {})[sub] = new
    label = " ".join([name, *path, sub])
    builtin = m.provenance.get(f"catalogue:{name}", "builtin").startswith("builtin")
    return Proposal(name, entry, f"add {label}: {_describe(new)} (a copy of the "
                    f"{'built-in' if builtin else 'user-layer'} {name} entry)", builtin)


# --- proving ------------------------------------------------------------------------------


def render_yaml(entries: dict, comments=None) -> str:
    """`catalogue:` YAML for {name: entry}; `comments` {name: [lines]} go above each entry."""
    import yaml

    out = ["catalogue:"]
    for name, entry in entries.items():
        for line in (comments or {}).get(name, []):
            out.append(f"  # {line}")
        text = yaml.safe_dump({name: entry}, sort_keys=False, default_flow_style=None,
                              width=96, allow_unicode=True)
        out.extend("  " + line for line in text.rstrip("\n").split("\n"))
    return "\n".join(out) + "\n"


def prove(yaml_text: str, commands, env: Env, names=None) -> tuple:
    """Load `yaml_text` as a user-layer file on top of each project's layers, check the
    rule examples (all of them, or with `names` only those that mention one of the names,
    the only ones a new entry for them can change), and judge `commands`
    [(command, cwd, project, count)] again.

    Returns (prompts saved, problem or ""). A problem means the proposal must not be shown.
    """
    from gateway.policy.compiled import Policy
    from gateway.policy.errors import PolicyError
    from gateway.policy.load import read_layer
    from gateway.policy.merge import _apply
    from gateway.validator.examples import check

    fd, tmp = tempfile.mkstemp(prefix="gateway-proposal-", suffix=".yaml")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(yaml_text)
        try:
            model, lines = read_layer("user", tmp)
        except PolicyError as exc:
            return 0, "the rules loader rejects it: " + "; ".join(exc.errors)
        saved = 0
        last = ""
        by_project = collections.defaultdict(list)
        for command, cwd, project, count in commands:
            by_project[project].append((command, cwd, count))
        for project, items in by_project.items():
            base, _policy, settings = env.load(project)
            m = copy.deepcopy(base)
            errors = _apply(m, "user", tmp, model, lines)
            if errors:
                return 0, "; ".join(errors)
            if names:
                m.examples = [e for e in m.examples if any(n in e[2] for n in names)]
            try:
                check(m)
            except PolicyError as exc:
                return 0, "it breaks a rule example: " + exc.errors[0]
            policy = Policy(m.policy)
            for command, cwd, count in items:
                verdict = _judge(command, cwd, project, policy, settings)
                if verdict.allowed:
                    saved += count
                else:
                    last = f"{verdict.code} {verdict.message}"
        return saved, ("" if saved else f"still asks: {last}")
    finally:
        os.unlink(tmp)


def _group_commands(group):
    return [(c, group.where[c][0], group.where[c][1], n) for c, n in group.commands.items()]


def _examples(group, proposal, limit=3):
    """Short examples from what was seen, for the entry's `examples: allow` (only those that
    are allowed in the sample project the loader checks examples in)."""
    out = []
    for argv in (a for c in group.commands for a in _segments(c)):
        if _name(argv[0]) != proposal.name:
            continue
        text = shlex.join([proposal.name] + argv[1:])
        if text not in out and not any(a.startswith("/") or ".." in a for a in argv[1:]):
            out.append(text)
        if len(out) == limit:
            break
    return out


def propose(groups, env: Env, top: int) -> None:
    """Attach a proven Proposal to each of the first `top` groups that can have one."""
    for group in groups[:top]:
        if group.target is None:
            continue
        name = group.target[0]
        m, _p, _s = env.load(next(iter(group.where.values()))[1])
        if m.provenance.get(f"catalogue:{name}", "").startswith("removed by"):
            group.reason = f"your rules remove {name} from the catalogue on purpose"
            continue
        why = refusal(name, group.rests)
        if why:
            group.reason = why
            continue
        proposal = build(group, env)
        if proposal is None:
            group.reason = "the command is not in the catalogue to extend"
            continue
        commands = _group_commands(group)
        examples = _examples(group, proposal) if group.target[2] is None else []
        for attempt in (examples, []):
            entry = dict(proposal.entry)
            if attempt:
                entry["examples"] = {"allow": attempt}
            saved, problem = prove(render_yaml({name: entry}), commands, env, [name])
            if not problem:
                proposal.entry = entry
                proposal.examples = attempt
                break
        if problem:
            group.reason = problem
            continue
        proposal.saved = saved
        group.proposal = proposal


def combined(groups, env: Env):
    """(YAML text of every proposal together, problem or ""). Proposals that extend the same
    command are merged into one entry; the whole text is proven once more."""
    entries = {}
    comments = collections.defaultdict(list)
    commands = []
    for g in groups:
        p = g.proposal
        if p is None:
            continue
        if p.name in entries and g.target[2] is not None:
            node = entries[p.name]
            for word in g.target[1]:
                node = node["subcommands"][word]
            node.setdefault("subcommands", {})[g.target[2]] = \
                _sub_of(p.entry, g.target[1], g.target[2])
        else:
            entries[p.name] = copy.deepcopy(p.entry)
        seen = ", ".join(f"{c} ({n}x)" if n > 1 else c for c, n in g.commands.most_common(3))
        comments[p.name].append(f"{g.prompts} prompt(s), {g.code}: {_one_line(seen)}")
        if p.replaces_builtin and not any("replaces" in c for c in comments[p.name]):
            comments[p.name].append(f"replaces the built-in {p.name} entry (a copy of it plus "
                                    "the new subcommand); re-run `gateway stats` after "
                                    "upgrading gateway")
        commands.extend(_group_commands(g))
    if not entries:
        return "", ""
    text = render_yaml(entries, comments)
    saved, problem = prove(text, commands, env)
    return text, problem


def _sub_of(entry, path, sub):
    node = entry
    for word in path:
        node = node["subcommands"][word]
    return node["subcommands"][sub]


def _one_line(text, width=90):
    text = text.replace("\n", "⏎")
    return text if len(text) <= width else text[:width - 1] + "…"
