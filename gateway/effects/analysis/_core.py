"""The analyzer's core: `analyze` and its result (`Effects`, `Write`), the tables that route a
command word (read-only programs, wrappers, runners, shells, interpreters, code builtins, the
git words that commit or push), where commands run (cd/pushd/popd followed), redirections,
recorded writes, brace and glob expansion, and `_argv`, which sends each simple command to
its handler. The handler modules are imported when a command first needs them: git.py for
git, programs.py for programs whose effect depends on their arguments (and `gateway`),
wrappers.py for wrappers, runners, shells and interpreters.

The pieces the handlers share with this module (Effects, Write, the recorded writes, the
options read against an entry) are in _base.py, below both; the handlers reach `analyze`
and `_argv` through `_base.DISPATCH`, set at the end of this module."""

import os
import posixpath

from gateway.effects.analysis._base import (  # noqa: F401 - names other modules read from here
    _CD_VARS,
    _W,
    _WORD_CHARS,
    _WRITING_KINDS,
    DISPATCH,
    Effects,
    Write,
    _Env,
    _flags,
    _has,
    _literal,
    _long,
    _mentions_commit_push,
    _split,
    _values,
    _words,
    _write,
    default_model,
    gateway_paths,
    may_write,
    options_known,
    parse_options,
    trusted_program,
    writes_arguments,
)
from gateway.effects.analysis._cd import (
    _and_chain_cwds,
    _dir_change,
    _follow_cd,
    _home_value,
    _unsettles_cd,
    _var_name,
)
from gateway.paths import SPECIAL_OK

# --- tables ---------------------------------------------------------------------------------
# The command knowledge (which programs are read-only, what writers write, wrappers, runners,
# shells, interpreters, builtins, git's subcommands) is data: rules/catalogue.yaml,
# rules/default.yaml and rules/effects.yaml, compiled into the policy the validator uses and
# read here through its effects model (gateway.policy.effects.Model). What stays here is
# the shell: redirections, cd following, expansions.

_OUTPUT_OPS = frozenset((">", ">>", ">|", "&>", "&>>", "<>", ">&"))
_MAX_DEPTH = 4
#: Longer commands are not parsed: bashlex needs seconds and hundreds of MB per MB of text
#: (a hook that times out gives no decision). The core asks for them anyway (GW003).
MAX_COMMAND = 65536


_UNSET = object()


def analyze(command, cwd, home=None, _depth=0, _cwds=_UNSET, policy=None,
            _model=None, facts=None) -> Effects:
    """The effects of running `command` (a Bash command string) in directory `cwd` (None:
    unknown, so relative write targets have no known location), as the rules of `policy`
    (the compiled Policy the validator uses; None: the built-in and user rules) describe
    the commands it runs. `facts`: what the validator's checks proved of this command's
    lines (gateway.validator.context, readonly_facts): a line (cwd, argv) that writes
    nothing, ("xargs", cwd, argv) a line xargs runs whose added words are operands."""
    eff = Effects(command if isinstance(command, str) else "")
    if not isinstance(command, str):
        eff.unknown.append("the command is not text")
        return eff
    home = home or posixpath.normpath(os.path.expanduser("~"))
    try:
        model = _model or (policy.effects if policy is not None else default_model())
        if facts:
            model = _Proved(model, facts)
        _analyze(eff, command, cwd, home, _depth, _cwds, model)
    except RecursionError:
        eff.unknown.append("the command nests too deeply to analyse")
        eff.commit_push_maybe.append("the command nests too deeply to analyse, so it may "
                                     "commit or push")
    except Exception as exc:  # fail closed: an analyzer bug never makes a command read-only
        eff.unknown.append(f"analysis failed ({type(exc).__name__}: {exc})")
        eff.commit_push_maybe.append("the command could not be analysed, so it may commit or "
                                     "push")
    return eff


def _analyze(eff, command, cwd, home, depth, cwds, model):
    from gateway.shell.parse import ShellParseError, parse

    if "\x00" in command:
        eff.unknown.append("the command contains a NUL character")
        return
    if len(command) > MAX_COMMAND:
        eff.unknown.append(f"the command is {len(command)} characters long, too long to "
                           f"analyse (limit {MAX_COMMAND})")
        eff.commit_push_maybe.append("the command is too long to analyse, so it may commit or "
                                     "push")
        return
    script = _validators_parse(command)
    if script is None:
        try:
            script = parse(command)
        except ShellParseError as exc:
            script = exc
    if isinstance(script, ShellParseError):
        note = f"the command cannot be parsed ({script})"
        eff.unknown.append(note)
        if _mentions_commit_push(command, model):
            eff.commit_push_maybe.append("the command cannot be parsed and mentions git and a "
                                         "subcommand that commits or pushes")
        if cwds is _UNSET:
            cwds = (posixpath.normpath(cwd),) if cwd else None
        unresolved = len(eff.unresolved)
        _fragments(eff, command, cwds, home, depth, model)
        if len(eff.unresolved) == unresolved:
            # every fragment was analysed (or is a bare test or a closing keyword): its
            # effects are what the fragments' commands do (`[[ -f x ]] && cat x` reads)
            eff.unknown.remove(note)
        return
    if script.loops and _unrolled(eff, script, cwd, home, depth, cwds, model):
        return
    if depth == 0:
        eff.script = script
    skip = _shell_only_last(script, cwd, cwds, model)
    skips = [skip] + _leading_activations(script, cwd, cwds, model)
    if script.functions:
        eff.unknown.append("the command defines a shell function")
    commands = sorted(script.all_commands, key=lambda c: c.start)
    if cwds is _UNSET:
        cwds = (posixpath.normpath(cwd),) if cwd else None
    chain = _and_chain_cwds(script, cwds, home)
    if chain is not None:
        for cmd, where in chain:
            if any(cmd is k for k in skips):
                continue
            _command(eff, cmd, _Env(where, depth, False, home, model))
        if any("${!" in w.raw or "@P}" in w.raw for c in commands for w in c.words):
            _evaluated_text(eff, [w.value for c in commands for w in c.words if w.literal],
                            _Env(cwds, depth, False, home, model))
        return
    env = _Env(_follow_cd(script, commands, cwds, home), depth, False, home, model)
    for cmd in commands:
        if any(cmd is k for k in skips):
            continue
        _command(eff, cmd, env)
    if any("${!" in w.raw or "@P}" in w.raw for c in commands for w in c.words):
        # the text evaluated is some literal word of the script (`set -- '$(cmd)'`)
        _evaluated_text(eff, [w.value for c in commands for w in c.words if w.literal], env)


class _Proved:
    """The effects model with the validator's proofs for this one command (`facts`); every
    other attribute is the model's. It travels with the model into nested analyses."""

    def __init__(self, model, facts):
        self._model = model
        self.facts = frozenset(facts)

    def __getattr__(self, name):
        return getattr(self._model, name)


def _proved(env, words, tag=None) -> bool:
    """Did the validator prove this simple command (every word literal) in every
    directory it may run in: writes nothing (tag None), or xargs's added words are its
    operands (tag "xargs")?"""
    facts = getattr(env.model, "facts", None)
    if not facts or not env.cwds or not all(w.literal for w in words):
        return False
    argv = tuple(w.value for w in words)
    return all(((tag, c, argv) if tag else (c, argv)) in facts for c in env.cwds)


def _unrolled(eff, script, cwd, home, depth, cwds, model):
    """A line with `for` loops: its effects are those of the loops' bodies once per value
    (gateway.shell.loops, the same unrolling the validator judges). False when the loops
    are not unrolled: their bodies' words stay computed (unknown)."""
    from gateway.shell import loops

    where = cwd if cwds is _UNSET else (cwds[0] if cwds and len(cwds) == 1 else None)
    unrolled = loops.unroll(script, where, home)
    if not isinstance(unrolled, loops.Unrolled):
        return False
    _analyze(eff, unrolled.text, cwd, home, depth, cwds, model)
    if depth == 0:
        eff.script = script
    return True


def _shell_only_last(script, cwd, cwds, model):
    """The last command of the line when it changes nothing but the shell that ends with
    it (gateway.shell.shellstate): an assignment or export of literal values, or the
    activation of the project's virtual environment (a regular file below where the
    command runs), else None. Its effects are none."""
    from gateway.shell import shellstate

    last = shellstate.last_command(script)
    state = shellstate.kind(last)
    if state in (shellstate.ASSIGN, shellstate.EXPORT):
        return last
    if state != shellstate.SOURCE or len(last.words) != 2:
        return None
    return last if _activation(last, cwd, cwds, model) else None


def _activation(cmd, cwd, cwds, model) -> bool:
    """Is `cmd` the activation of the project's virtual environment (`source
    .venv/bin/activate`, a regular file below where the command runs)? It puts the venv's
    bin directory first on PATH: the commands after it are the project tools judged by
    their names (project_tool), its own effects are none."""
    from gateway.shell import shellstate

    if shellstate.kind(cmd) != shellstate.SOURCE or len(cmd.words) != 2:
        return False
    arg = cmd.words[1].value
    bins = getattr(getattr(model, "policy", None), "project_bin_dirs", ())
    dirs = (posixpath.normpath(cwd),) if cwds is _UNSET and cwd else (
        cwds if cwds is not _UNSET else None)
    if not dirs or not shellstate.activation(arg, bins):
        return False
    for d in dirs:
        real_dir = os.path.realpath(d)
        path = os.path.realpath(os.path.join(d, arg))
        if not (os.path.isfile(path) and path.startswith(real_dir.rstrip("/") + "/")):
            return False
    return True


def _leading_activations(script, cwd, cwds, model) -> list:
    """The venv activations among the first items of the line, before any other command
    (`source .venv/bin/activate && pytest -q`): each has no effects of its own."""
    out = []
    for pipeline, _op in script.items:
        if len(pipeline.commands) != 1 or getattr(pipeline, "negated", False) \
                or not _activation(pipeline.commands[0], cwd, cwds, model):
            break
        out.append(pipeline.commands[0])
    return out


#: Words that, in a fragment that cannot be analysed, may name the permission surface.
_SURFACE_WORDS = (".claude", ".git", "breezing", "gateway", "settings", "hooks")


def _fragments(eff, command, cwds, home, depth, model):
    """A command bashlex cannot parse (`[[ ]]`, `time`, `case`, `for ((...))`): bash still
    runs its parts. Each top-level fragment (gateway.shell.fragments) is parsed on its own,
    after its leading compound-command words (`then`, `do`, `time`...), and its writes are
    recorded; a fragment that does not parse either makes what the command writes unknown
    (an implementer is refused). The fragments may sit in loops, so a cd among them makes
    the directory unknown."""
    from gateway.shell.fragments import after_keywords, split
    from gateway.shell.parse import ShellParseError, parse

    scripts = []
    for fragment in split(command):
        rest = after_keywords(fragment).strip()
        if rest in ("", "fi", "done", "esac", "}", ")", ";;"):
            continue  # the end of a compound command
        if rest.startswith("[[") and rest.endswith("]]") and rest.count("[[") == 1 \
                and not any(t in rest for t in ("$(", "`", "${", "<(", ">(")):
            continue  # `[[ -f x ]]`: a test, no effects (no substitution, no ${x:=y})
        for text in dict.fromkeys((fragment, after_keywords(fragment))):
            if text == command.strip():
                continue  # the whole command: it did not parse
            try:
                scripts.append(parse(text))
                break
            except (ShellParseError, RecursionError):
                continue
        else:
            why = f"a part of the command cannot be parsed ({fragment[:60]!r})"
            eff.unresolved.append(why)
            low = fragment.lower()
            if any(name in low for name in _SURFACE_WORDS):
                # its writes are not visible, and it names the permission surface
                eff.surface_ops.append(f"{why}, and it names the agent's permission "
                                       "surface (.claude, .git, the gateway's state)")
    commands = [c for sc in scripts for c in sorted(sc.all_commands, key=lambda c: c.start)]
    if any(_dir_change(c) is not None or _unsettles_cd(c) for c in commands):
        cwds = None
    env = _Env(cwds, depth, False, home, model)
    for cmd in commands:
        _command(eff, cmd, env)


def _validators_parse(command):
    """The validator's parse of exactly this text (a Script, or the ShellParseError it
    raised) when it made one, else None. The PreToolUse hook runs the validator on the
    command before analysing it, and phase 2 keeps its parses by text: a Script is a pure
    function of its text and nobody mutates it, so parsing the same text again would give
    the same answer (~0.2 ms per call). The validator is not imported for this."""
    import sys

    phase2 = sys.modules.get("gateway.validator.phase2_syntax")
    memo_get = getattr(phase2, "memo_get", None)
    return memo_get(command) if callable(memo_get) else None


# --- one simple command -----------------------------------------------------------------------

def _command(eff, cmd, env):
    for r in cmd.redirects:
        _redirect(eff, r, env)
        if r.heredoc is not None and not r.heredoc[1]:
            _heredoc_substitutions(eff, r.heredoc[0], env)
    if cmd.assignments:
        eff.unknown.append(f"the assignment {cmd.assignments[0].raw!r} changes the environment "
                           "of what runs")
        if any(_var_name(a.raw) in _CD_VARS for a in cmd.assignments):
            env = env.derive(cwds=None)  # `CDPATH=.. bash -c 'cd x && ...'`
    if not cmd.words:
        return
    _argv(eff, list(cmd.words), env)


def _heredoc_substitutions(eff, body, env):
    """An unquoted here-document's `$(...)` and backquotes run when bash expands the body."""
    from gateway.shell.heredoc import substitutions

    for code in substitutions(body):
        eff.unknown.append("a here-document runs a command substitution")
        eff.merge(analyze(code, None, env.home, env.depth + 1, env.cwds, _model=env.model))


def _redirect(eff, r, env):
    if r.target is None or r.op not in _OUTPUT_OPS:
        return
    target = r.target
    if r.op == ">&" and target.literal and (target.value.isdigit() or target.value == "-"):
        return
    if not target.literal:
        value = _home_value(target, env.home)
        expanded = _expand_words([target], env) if value is None else None
        if expanded:
            for v in expanded:
                if v not in SPECIAL_OK:
                    _write(eff, v, f"redirection {r.op}", env)
            return
        if value is None:
            why = f"output redirection {r.op} to a computed target {target.raw!r}"
            eff.unknown.append(why)
            eff.unresolved.append(why)
            return
        return _write(eff, value, f"redirection {r.op}", env)
    if target.value in SPECIAL_OK or target.value.startswith("/dev/fd/"):
        return
    _write(eff, target.value, f"redirection {r.op}", env)


_MAX_EXPANSIONS = 256


def _brace(text):
    """Bash brace expansion of `text` ({a,b}, nested; {x..y} is not expanded), or None."""
    depth = 0
    start = -1
    for i, c in enumerate(text):
        if c == "{":
            if depth == 0:
                start = i
            depth += 1
        elif c == "}" and depth:
            depth -= 1
            if depth == 0:
                body = text[start + 1:i]
                parts, d, cur = [], 0, ""
                for ch in body:
                    if ch == "," and d == 0:
                        parts.append(cur)
                        cur = ""
                        continue
                    d += ch == "{"
                    d -= ch == "}"
                    cur += ch
                parts.append(cur)
                if len(parts) < 2:
                    if ".." in body:
                        return None
                    continue  # {x} stays as it is
                out = []
                for part in parts:
                    for rest in (_brace(text[:start] + part + text[i + 1:]) or [None]):
                        if rest is None:
                            return None
                        out.append(rest)
                        if len(out) > _MAX_EXPANSIONS:
                            return None
                return out
    return [text]


#: How many directory entries the expansion of one command's globs may look at: `/*/*/*/*`
#: walks the whole file system (/proc included), seconds to hours in a hook.
_MAX_GLOB_ENTRIES = 50000


def _glob(pattern, budget):
    """glob.glob(pattern, include_hidden=True) for an absolute `pattern`, or None once more
    than budget[0] directory entries would be looked at (the budget is shared and spent)."""
    import fnmatch
    import glob as globmod

    dirname, basename = posixpath.split(pattern)
    if not globmod.has_magic(pattern):
        if basename:
            return [pattern] if os.path.lexists(pattern) else []
        return [pattern] if os.path.isdir(dirname) else []
    if dirname != pattern and globmod.has_magic(dirname):
        dirs = _glob(dirname, budget)
        if dirs is None:
            return None
    else:
        dirs = [dirname]
    out = []
    for d in dirs:
        if not basename:  # a trailing slash: directories only
            if os.path.isdir(d):
                out.append(posixpath.join(d, ""))
            continue
        if not globmod.has_magic(basename):
            if os.path.lexists(posixpath.join(d, basename)):
                out.append(posixpath.join(d, basename))
            continue
        names = []
        try:
            with os.scandir(d) as entries:
                for entry in entries:
                    budget[0] -= 1
                    if budget[0] < 0:
                        return None
                    names.append(entry.name)
        except OSError:
            continue
        pattern_py = _bash_bracket(basename)
        if pattern_py is None:
            return None  # a bracket expression not translated: the matches are not known
        out.extend(posixpath.join(d, n) for n in fnmatch.filter(names, pattern_py))
    return out


_POSIX_CLASSES = {"alpha": "a-zA-Z", "digit": "0-9", "alnum": "a-zA-Z0-9", "upper": "A-Z",
                  "lower": "a-z", "xdigit": "0-9A-Fa-f", "word": "a-zA-Z0-9_",
                  "blank": " \t", "space": " \t\n\r\f\v"}


def _bash_bracket(pattern):
    """`pattern` with bash's bracket expressions in fnmatch's spelling: `[^x]` is `[!x]`,
    `[[:alpha:]]` is `[a-zA-Z]`; None for a class fnmatch cannot be given (punct, print...)."""
    if "[" not in pattern:
        return pattern
    out = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c != "[":
            out.append(c)
            i += 1
            continue
        j = i + 1
        body = []
        if j < n and pattern[j] in "!^":
            body.append("!")
            j += 1
        if j < n and pattern[j] == "]":
            body.append("]")
            j += 1
        closed = False
        while j < n:
            if pattern.startswith("[:", j):
                end = pattern.find(":]", j + 2)
                if end < 0:
                    return None
                cls = _POSIX_CLASSES.get(pattern[j + 2:end])
                if cls is None:
                    return None
                body.append(cls)
                j = end + 2
                continue
            if pattern.startswith(("[=", "[."), j):
                return None
            if pattern[j] == "]":
                closed = True
                break
            body.append(pattern[j])
            j += 1
        if not closed:
            out.append("[[]")  # an unclosed [ is a literal [
            i += 1
            continue
        out.append("[" + "".join(body) + "]")
        i = j + 1
    return "".join(out)


def _expand_words(words, env):
    """The words bash passes after brace and pathname expansion (matched on the file system
    now, hidden names too), when every computed word is only a glob or a brace; else None
    (also when matching would look at more than _MAX_GLOB_ENTRIES directory entries)."""
    out = []
    budget = [_MAX_GLOB_ENTRIES]
    computed = False
    for w in words:
        if w.literal:
            out.append(w.value)
            continue
        issues = getattr(w, "issues", None) or ()
        kinds = {k for k, _ in issues}
        value = w.value
        if "tilde" in kinds and kinds <= {"tilde", "glob"} and w.raw.startswith("~/") \
                and sum(1 for k, _ in issues if k == "tilde") == 1 and value.startswith("~/"):
            # bash expands the leading `~/` first, then the globs (`~/.cargo/registry/src/*`)
            home = env.home or ""
            if not home.startswith("/") or any(c in home for c in " \t\n*?[]{}~$`\"'\\"):
                return None
            value = home.rstrip("/") + value[1:]
            kinds = kinds - {"tilde"}
            if not kinds:
                out.append(value)
                computed = True
                continue
        if not kinds or not kinds <= {"glob", "brace"} or env.cwds is None:
            return None
        computed = True
        texts = _brace(value) if "brace" in kinds else [value]
        if texts is None:
            return None
        for t in texts:
            if not any(c in t for c in "*?["):
                out.append(t)
                continue
            matches = []
            for d in env.cwds:
                pattern = t if t.startswith("/") else posixpath.join(d, t)
                try:
                    found = _glob(pattern, budget)
                except (OSError, ValueError):
                    return None
                if found is None:
                    return None
                found.sort()
                for f in found:
                    rel = f if t.startswith("/") else posixpath.relpath(f, d)
                    if rel not in matches:
                        matches.append(rel)
            out.extend(matches or [t])  # no match: bash passes the pattern itself
            if len(out) > _MAX_EXPANSIONS:
                return None
    return out if computed else None


def project_tool(word, model) -> bool:
    """A project tool run by path (.venv/bin/pytest, node_modules/.bin/tsc; a venv's python,
    a link to its base interpreter): a relative path in one of the rules'
    `project_bin_dirs`, judged by its name as the validator judges it."""
    norm = posixpath.normpath(word)
    return not norm.startswith(("/", "..")) and posixpath.dirname(norm) in getattr(
        getattr(model, "policy", None), "project_bin_dirs", ())


def _argv(eff, words, env):
    if env.depth > _MAX_DEPTH:
        eff.unknown.append("commands nested too deeply")
        eff.commit_push_maybe.append("commands nested too deeply to see whether they commit "
                                     "or push")
        return
    first = words[0]
    if first.raw == "[":
        first = words[0] = _W("[")  # the test builtin, not a glob
    for w in words:
        if "${!" in w.raw or "@P}" in w.raw:
            # indirection and prompt expansion evaluate text as a name with a subscript or
            # as a prompt: a $(...) inside it runs (`set -- '$(cmd)'; echo "${1@P}"`); the
            # text usually sits in a literal word of another command (_evaluated_text)
            why = f"{w.raw!r} evaluates text that may run a command"
            eff.unknown.append(why)
            eff.unresolved.append(why)
            eff.commit_push_maybe.append(why)
            return
    if first.literal and first.value in _SUBSCRIPT_EVALUATORS and any(
            w.literal and "[" in w.value and ("$(" in w.value or "`" in w.value)
            for w in words[1:]):
        # `test -v 'a[$(cmd)]'`, `printf -v 'a[$(cmd)]' x`: bash evaluates the subscript,
        # and its command substitution runs
        why = f"{first.value} evaluates an array subscript that runs a command"
        eff.unknown.append(why)
        eff.unresolved.append(why)
        eff.commit_push_maybe.append(why)
        _evaluated_text(eff, [w.value for w in words[1:] if w.literal], env)
        return
    model = env.model
    if not env.extra and _proved(env, words):
        return  # a check of the validator proved it writes nothing (npx tsc --noEmit)
    if not first.literal:
        eff.unknown.append(f"the command name {first.raw!r} is computed")
        for w in words[1:]:  # `$GIT commit`, `$(echo git) push`
            if w.literal and w.value.lower() in model.git_commit_words:
                eff.commit_push_maybe.append(f"the computed command {first.raw!r} with "
                                             f"{w.value!r} may be git {w.value.lower()}")
                break
        return
    word = first.value
    name = posixpath.basename(word) if "/" in word else word
    lname = name.lower()
    if (lname in model.agents and [w.value for w in words[1:]] not in model.agent_info) or any(
            w.literal and "@anthropic-ai/claude-code" in w.value for w in words[1:]):
        # a new session: no agent_id, its own session_id, so no registered role
        eff.agents.append(f"{name} starts another agent session")
    spec = model.program(lname)
    # an entry with subcommands is read through the subcommand's own entry first, also when
    # the command has effects of its own (`tox -l` and `tox list`)
    if (spec is None or (spec.effects == "flags" and spec.subcommands is not None)) \
            and getattr(model, "policy", None) is not None \
            and model.policy.command(lname) is not None \
            and (trusted_program(word, model) or project_tool(word, model)):
        from gateway.effects.analysis.subcommands import INFO, descend

        found = descend(model, lname, words)
        if found == INFO:
            return  # prints its version or help
        if found is not None:
            # a subcommand entry that says how to read it (`pip list`, `cargo tree`)
            spec, rest = found
            words = [_W(spec.name)] + list(rest)
    dashed = None
    if spec is None and lname.startswith("git-") and len(lname) > 4:
        dashed = model.program("git")  # git-commit (a git program run directly) is git commit
        if dashed is not None and dashed.effects == "git":
            spec = dashed
    kind = spec.effects if spec is not None else None
    if kind == "git":
        # a git elsewhere than the system directories is judged as git too (for commit and
        # push) and is never read-only
        from gateway.effects.analysis.git import _git

        if not trusted_program(word, model):
            eff.unknown.append(f"{word!r} is not the system git")
        if dashed is None:
            return _git(eff, words, env)
        return _git(eff, [first, _W(name[4:])] + words[1:], env)
    if kind == "gateway":
        from gateway.effects.analysis.programs import _gateway

        return _gateway(eff, words, env, trusted_program(word, model), spec)
    if not trusted_program(word, model) and not project_tool(word, model):
        eff.unknown.append(f"{word!r} runs a program that is not a system command (its "
                           "effects are not visible)")
        return
    argv = [lname] + [w.value for w in words[1:]]
    if lname in model.runners:
        from gateway.effects.analysis.wrappers import _runner

        return _runner(eff, lname, words, env)
    if lname in model.wrappers:
        from gateway.effects.analysis.wrappers import _wrapper

        return _wrapper(eff, lname, words, env)
    if kind == "read":
        return
    if lname in model.code_builtins:
        eff.unknown.append(f"{lname} runs code or changes how later commands run")
        return
    if kind is not None:
        check = _handler(kind)
        writer = writes_arguments(spec)
        expanded = _expand_words(words[1:], env)
        if expanded is not None:  # globs and braces: the words bash will pass
            words = [first] + [_W(v) for v in expanded]
            argv = [lname] + expanded
        if env.extra and not pure(spec) and not (
                env.extra == "xargs" and operands_pure(spec) and _proved(env, words, "xargs")):
            # (the validator reproduced the names xargs adds: none is an option, so an
            # entry whose operands are only read stays read-only with them)
            eff.unknown.append(f"{lname} gets more arguments at run time (xargs, find -exec)")
        if pure(spec) and not writer:
            # no option of it writes or runs a program: whatever a computed word expands to
            # (`echo "$HOME"`), it reads and prints; its literal options are still judged
            return check(eff, [lname] + [w.value for w in words[1:] if w.literal], env, spec)
        if not _literal(eff, words[1:], lname):
            # a writer (or a command that writes with these options) whose targets may be
            # any of the computed words (an unquoted one may even be several)
            trial = Effects()
            check(trial, [lname] + [w.value if w.literal else _COMPUTED for w in words[1:]],
                  env, spec)
            if writer or trial.writes or trial.unresolved:
                bad = next(w for w in words[1:] if not w.literal)
                eff.unresolved.append(f"{lname} has a computed argument {bad.raw!r}, so what "
                                      "it writes is not known")
            if writer:  # still record the targets that are known
                known = [w.value if w.literal else _home_value(w, env.home) for w in words[1:]]
                check(eff, [lname] + [v for v in known if v is not None], env, spec)
            return
        if env.extra == "xargs":
            trial = Effects()
            check(trial, argv, env, spec)
            eff.merge(trial)
            if writer or trial.writes or trial.unresolved:
                eff.unresolved.append(f"xargs gives {lname} more arguments at run time, so "
                                      "what it writes is not known")
            return
        return check(eff, argv, env, spec)
    if lname in model.shells:
        from gateway.effects.analysis.wrappers import _shell

        return _shell(eff, lname, words, env)
    if lname in model.interpreters or lname.startswith(model.interpreter_prefixes):
        from gateway.effects.analysis.wrappers import _interpreter

        return _interpreter(eff, lname, words, env)
    eff.unknown.append(f"{name} is not known to be read-only")


def pure(spec) -> bool:
    """An entry that no option makes write or run a program: it reads and prints only, so
    arguments added at run time (xargs, find -exec) change nothing of that."""
    return spec.effects == "read" or (
        spec.effects == "flags" and not (spec.writes or spec.edit or spec.write_flags
                                         or spec.output_flags or spec.unsafe_flags))


def operands_pure(spec) -> bool:
    """An entry whose operands are only read (no positional write, no option that writes
    a file): more operands change nothing of that; its options are still judged."""
    return spec.effects == "flags" and not (spec.writes or spec.edit or spec.write_flags
                                            or spec.output_flags)


def _handler(kind):
    if kind == "flags":
        return _flags
    from gateway.effects.analysis.programs import HANDLERS

    return HANDLERS[kind]


def _evaluated_text(eff, values, env):
    """The command substitutions inside literal text that bash will evaluate after all
    (an array subscript, a prompt string), analysed as the commands they are."""
    from gateway.shell.heredoc import substitutions

    for v in values:
        if "$(" in v or "`" in v:
            for code in substitutions(v):
                eff.merge(analyze(code, None, env.home, env.depth + 1, env.cwds, _model=env.model))


#: Builtins that evaluate a name with an array subscript given as an argument.
_SUBSCRIPT_EVALUATORS = frozenset(("test", "[", "printf", "unset", "wait", "declare", "typeset",
                                   "local", "read", "let", "export", "readonly", "mapfile",
                                   "readarray", "getopts", "[[", "builtin", "command"))


#: Stands for a computed word when a command is tried with its literal words only.
_COMPUTED = "\ufffdcomputed\ufffd"


DISPATCH.argv = _argv
DISPATCH.analyze = analyze
