"""What a Bash command writes: one analyzer over the parse, for every guard that asks.

`analyze(command, cwd)` parses the command with gateway.shell.parse and classifies every
simple command anywhere in it (in lists, pipelines, subshells, substitutions, `bash -c '...'`
strings, behind wrappers such as `command`, `env`, `nice`, `timeout`, `xargs`, behind the
runners `exec`, `eval`, `sudo`, `doas`, `nohup`, `watch` (never read-only themselves), and
behind absolute paths like /usr/bin/git). A write target spelled `~/...` or `$HOME/...` is
the home directory. The result, `Effects`, says:

* `writes`   the file writes it can name: redirections (`>`, `>>`, `>|`, `&>`, `<>`, `>&f`),
             `tee`, `sed -i`, `awk -i inplace`, `perl -i`/`ruby -i`, `dd of=`, `sort -o`,
             `uniq in out`, `xxd in out`, `find -delete`/`-fprint`, `git diff --output=`,
             `git config` (.git/config), `time -o`, and rm/rmdir/unlink/shred/truncate/touch/
             mkdir/mkfifo/mknod/chmod/chown/chgrp/chattr/setfacl/cp/mv/install/ln targets. Each
             carries the absolute candidate paths (one per directory the command may run in;
             `cd`/`pushd` are followed) and whether a whole tree may be removed or changed.
* `unknown`  why some part could not be classified as read-only: an unknown program, an
             interpreter (inline code or a script), a computed command name or write target,
             an assignment that changes the environment, a parse failure... FAIL CLOSED: every
             guard that needs "read-only" counts these as writing.
* `git`      mutating git invocations (anything but the known read-only subcommands and forms),
             `commit_push` the ones that create commits or publish them (commit, commit-tree,
             merge, pull, rebase, cherry-pick, revert, am, update-ref, push, send-pack...), and
             `commit_push_maybe` the forms that may do so unseen: an unknown subcommand (an
             alias), `git -c ...`, `--exec-path=`, `submodule foreach`, `bisect run`,
             `difftool -x`, a computed command name with a commit/push word (`$GIT commit`),
             code it cannot see (a shell reading its input, `sh -c "$X"`, `eval "$X"`), and an
             unparseable command or interpreter code that names git and commit/push.
* `gateway_ops` the gateway's own state changes (`gateway breezing phase X`, `gateway state
             clean`, `gateway hook ...`), and `surface_ops` commands that rewrite the agent's
             settings (`gateway install|uninstall`).

`Effects.readonly` is true only when none of these apply. What it refuses (never read-only):
any program not in the read-only table below, every interpreter except a bare --version,
`sh -c` with a computed string, here-documents fed to an interpreter or shell, `source`,
`eval`, `exec`, functions, `export`/`declare`, assignments, `sudo` and friends, `nohup`,
`watch`, `flock`, `strace`, tar/zip/curl/wget/make/npm and every build tool, git subcommands
outside the read-only list, options that make a reader write or run programs (`sort -o`,
`sort --compress-program`, `rg --pre`, `find -exec` of a writer, `date -s`, `file -C`,
`git diff --ext-diff`, `git grep -O`...), and anything it cannot parse.

Stdlib only (hook path); it does not need the policy.
"""

import os
import posixpath

from gateway.paths import lexical, physical

# --- tables ---------------------------------------------------------------------------------

#: Programs that cannot write files or run other programs, whatever their arguments.
PURE = frozenset("""
ls cat head tail wc stat du df realpath readlink basename dirname sha1sum sha224sum sha256sum
sha384sum sha512sum md5sum b2sum cksum sum od hexdump strings nl cmp comm join paste column rev
tac fold expand unexpand cut tr fmt echo printf true false : pwd whoami id groups uname nproc
sleep seq test [ which whereis type grep egrep fgrep zgrep diff diff3 jq yes printenv locale
getconf tty logname arch zcat bzcat xzcat lsblk free uptime cd pushd popd set unset wait
""".split())

#: An absolute command path in these directories is judged as its basename.
SYSTEM_DIRS = frozenset(("/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin",
                         "/opt/homebrew/bin", "/opt/local/bin", "/usr/lib/git-core",
                         "/usr/libexec/git-core"))

#: Wrappers that run the command after their own options (name -> options taking a value).
WRAPPERS = {
    "command": frozenset(),
    "builtin": frozenset(),
    "nice": frozenset(("-n", "--adjustment")),
    "ionice": frozenset(("-c", "-n", "-p", "-P", "-u", "--class", "--classdata")),
    "time": frozenset(("-f", "--format", "-o", "--output")),
    "timeout": frozenset(("-s", "--signal", "-k", "--kill-after")),
    "stdbuf": frozenset(("-i", "-o", "-e", "--input", "--output", "--error")),
    "setsid": frozenset(),
    "unbuffer": frozenset(),
    "caffeinate": frozenset(("-t", "-w")),
    "env": frozenset(("-u", "--unset")),
    "xargs": frozenset(("-a", "-d", "-E", "-e", "-I", "-i", "-L", "-l", "-n", "-P", "-s",
                        "--arg-file", "--delimiter", "--max-args", "--max-procs",
                        "--max-lines", "--replace", "--eof", "--process-slot-var")),
}

SHELLS = frozenset(("sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "fish", "csh",
                    "tcsh", "busybox", "posh"))
INTERPRETERS = frozenset(("python", "python2", "python3", "pypy", "pypy3", "node", "nodejs",
                          "deno", "bun", "perl", "ruby", "php", "lua", "luajit", "tclsh",
                          "wish", "rscript", "r", "julia", "osascript", "powershell", "pwsh",
                          "expect", "guile", "racket", "sbcl", "ghci", "runghc", "scala",
                          "groovy", "jshell", "irb", "erl", "elixir", "iex", "swift"))
_VERSION_ONLY = frozenset((("--version",), ("-V",), ("-v",), ("version",)))

#: Programs that run a command given in their arguments but are never read-only themselves
#: (other privileges, lifetime or process image): name -> (options taking a value, whether
#: the arguments are joined into shell code, as eval and watch do). The command they run is
#: analysed as well, so what it writes, commits or pushes is seen.
RUNNERS = {
    "exec": (frozenset(("-a",)), False),
    "nohup": (frozenset(), False),
    "sudo": (frozenset(("-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T", "-R",
                        "--user", "--group", "--host", "--prompt", "--close-from", "--chdir",
                        "--role", "--type", "--other-user", "--command-timeout", "--chroot")),
             False),
    "doas": (frozenset(("-u", "-C")), False),
    "chronic": (frozenset(), False),
    "eval": (frozenset(), True),
    "watch": (frozenset(("-n", "--interval", "-d", "-q", "--equexit", "--differences")), True),
}

#: Programs that start another agent session (which would carry no registered role).
AGENT_PROGRAMS = frozenset(("claude", "claude-code"))
_AGENT_INFO = (["--version"], ["-v"], ["--help"], ["-h"])

#: Commands that run code given to them, or change how later commands run.
CODE_BUILTINS = frozenset(("source", ".", "eval", "exec", "trap", "alias", "unalias",
                           "enable", "export", "declare", "typeset", "local", "readonly",
                           "shopt", "hash", "coproc", "fc", "history", "bind", "complete",
                           "function"))

# Every git command (builtins and the commands shipped with git). A subcommand not in this
# list is an alias or an external git-<name> program: it may commit or push.
GIT_COMMANDS = frozenset("""
add am annotate apply archive bisect blame branch bugreport bundle cat-file check-attr
check-ignore check-mailmap check-ref-format checkout checkout-index cherry cherry-pick citool
clean clone column commit commit-graph commit-tree config count-objects credential
credential-cache credential-store daemon describe diagnose diff diff-files diff-index diff-tree
difftool fast-export fast-import fetch fetch-pack filter-branch fmt-merge-msg for-each-ref
for-each-repo format-patch fsck fsck-objects gc get-tar-commit-id grep gui hash-object help hook
http-backend http-fetch http-push imap-send index-pack init init-db instaweb interpret-trailers
log ls-files ls-remote ls-tree mailinfo mailsplit maintenance merge merge-base merge-file
merge-index merge-one-file merge-tree mergetool mktag mktree multi-pack-index mv name-rev notes
p4 pack-objects pack-redundant pack-refs patch-id prune prune-packed pull push quiltimport
range-diff read-tree rebase receive-pack reflog refs remote repack replace replay request-pull
rerere reset restore rev-list rev-parse revert rm send-email send-pack shortlog show
show-branch show-index show-ref sparse-checkout stage stash status stripspace submodule svn
switch symbolic-ref tag unpack-file unpack-objects update-index update-ref update-server-info
upload-archive upload-pack var verify-commit verify-pack verify-tag version whatchanged
worktree write-tree
""".split())

#: Create commits on a branch (or rewrite them) ...
GIT_COMMIT_LIKE = frozenset(("commit", "commit-tree", "merge", "pull", "rebase", "cherry-pick",
                             "revert", "am", "update-ref", "filter-branch", "filter-repo",
                             "replace", "fast-import", "replay", "quiltimport"))
#: ... or publish them.
GIT_PUSH_LIKE = frozenset(("push", "send-pack", "http-push", "svn", "p4", "send-email"))

#: Read-only whatever their arguments (apart from the options in _GIT_BAD_OPTIONS).
_GIT_READ = frozenset("""
status log show diff shortlog whatchanged diff-tree diff-index diff-files blame annotate
rev-parse rev-list ls-files ls-tree ls-remote cat-file show-ref for-each-ref describe
merge-base name-rev count-objects check-ignore check-attr check-ref-format check-mailmap var
version help grep show-branch cherry range-diff verify-commit verify-tag verify-pack
get-tar-commit-id patch-id column stripspace
""".split())
#: Options that make a read-only git subcommand write a file or run a program.
_GIT_BAD_OPTIONS = ("--ext-diff", "--textconv", "--open-files-in-pager", "--filters",
                    "--batch-command")
_GIT_GLOBAL_VALUE = frozenset(("-C", "-c", "--git-dir", "--work-tree", "--namespace",
                               "--config-env", "--super-prefix", "--exec-path",
                               "--list-cmds", "--attr-source"))
_GIT_GLOBAL_FLAGS = frozenset(("-p", "--paginate", "-P", "--no-pager", "--bare",
                               "--no-replace-objects", "--literal-pathspecs",
                               "--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs",
                               "--no-optional-locks", "--no-lazy-fetch", "--no-advice",
                               "--html-path", "--man-path", "--info-path", "--version", "-v",
                               "--help", "-h"))
#: Global options that can make git run an arbitrary program or another command.
_GIT_GLOBAL_RISKY = frozenset(("-c", "--config-env", "--exec-path", "--super-prefix"))

_OUTPUT_OPS = frozenset((">", ">>", ">|", "&>", "&>>", "<>", ">&"))
_HARMLESS_TARGETS = frozenset(("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"))
_MAX_DEPTH = 4
#: Longer commands are not parsed: bashlex needs seconds and hundreds of MB per MB of text
#: (a hook that times out gives no decision). The core asks for them anyway (GW003).
MAX_COMMAND = 65536
_MAX_CWDS = 16


class Write:
    """One write the analyzer can name."""

    __slots__ = ("target", "via", "tree", "paths")

    def __init__(self, target, via, tree, paths):
        self.target = target  # the target as written
        self.via = via  # what writes it: "redirection >", "rm", "sed -i", ...
        self.tree = tree  # a whole tree may be removed or changed (rm -r, mv, find -delete)
        self.paths = paths  # absolute candidates (lexical and physical); () when unknown

    def __repr__(self) -> str:
        return f"Write({self.target!r} via {self.via}{', tree' if self.tree else ''})"


class Effects:
    """What a command may change. See the module docstring."""

    __slots__ = ("command", "writes", "unknown", "git", "commit_push", "commit_push_maybe",
                 "gateway_ops", "surface_ops", "agents", "script", "unresolved", "worktree")

    def __init__(self, command=""):
        self.command = command
        self.writes = []
        self.unknown = []
        self.git = []
        self.commit_push = []
        self.commit_push_maybe = []
        self.gateway_ops = []
        self.surface_ops = []
        self.agents = []  # commands that start another agent session (claude -p ...)
        #: known writers whose targets cannot be named (a computed argument or redirection
        #: target, arguments added at run time by xargs, sed -i without files); each also
        #: has an `unknown` entry
        self.unresolved = []
        #: git subcommands that rewrite working-tree files they do not name (checkout of a
        #: branch, reset --hard, stash, apply...); each also has a `git` entry
        self.worktree = []
        self.script = None  # the top-level parse (gateway.shell.parse.Script) or None

    @property
    def readonly(self) -> bool:
        return not (self.writes or self.unknown or self.git or self.gateway_ops
                    or self.surface_ops or self.commit_push or self.commit_push_maybe)

    def reasons(self, include_gateway=True) -> list:
        """Why the command is not read-only, most concrete first."""
        out = [f"{w.via} writes {w.target!r}" for w in self.writes]
        out += [f"{g} changes the repository" for g in self.git]
        out += self.commit_push_maybe + self.surface_ops
        if include_gateway:
            out += [f"gateway {op} changes the breezing state" for op in self.gateway_ops]
        out += self.unknown
        return list(dict.fromkeys(out))

    def writes_anything(self, include_gateway=True) -> bool:
        return bool(self.reasons(include_gateway))

    def merge(self, other):
        for name in ("writes", "unknown", "git", "commit_push", "commit_push_maybe",
                     "gateway_ops", "surface_ops", "agents", "unresolved", "worktree"):
            getattr(self, name).extend(getattr(other, name))

    def as_dict(self) -> dict:
        return {"readonly": self.readonly,
                "writes": [{"target": w.target, "via": w.via, "tree": w.tree,
                            "paths": list(w.paths)} for w in self.writes],
                "unknown": list(self.unknown), "git": list(self.git),
                "commit_push": list(self.commit_push),
                "commit_push_maybe": list(self.commit_push_maybe),
                "gateway_ops": list(self.gateway_ops), "surface_ops": list(self.surface_ops),
                "agents": list(self.agents), "unresolved": list(self.unresolved),
                "worktree": list(self.worktree)}

    def __repr__(self) -> str:
        return f"Effects(readonly={self.readonly}, {self.reasons()[:3]})"


class _Env:
    """Where a command runs and how it was reached."""

    __slots__ = ("cwds", "depth", "extra", "home")

    def __init__(self, cwds, depth=0, extra=False, home="/"):
        self.cwds = cwds  # tuple of absolute directories, or None when unknown
        self.depth = depth
        self.extra = extra  # more arguments arrive at run time (xargs, find -exec)
        self.home = home

    def derive(self, cwds=False, extra=None):
        return _Env(self.cwds if cwds is False else cwds, self.depth,
                    self.extra if extra is None else extra, self.home)


_UNSET = object()


def analyze(command, cwd, home=None, _depth=0, _cwds=_UNSET) -> Effects:
    """The effects of running `command` (a Bash command string) in directory `cwd` (None:
    unknown, so relative write targets have no known location)."""
    eff = Effects(command if isinstance(command, str) else "")
    if not isinstance(command, str):
        eff.unknown.append("the command is not text")
        return eff
    home = home or posixpath.normpath(os.path.expanduser("~"))
    try:
        _analyze(eff, command, cwd, home, _depth, _cwds)
    except RecursionError:
        eff.unknown.append("the command nests too deeply to analyse")
        eff.commit_push_maybe.append("the command nests too deeply to analyse, so it may "
                                     "commit or push")
    except Exception as exc:  # fail closed: an analyzer bug never makes a command read-only
        eff.unknown.append(f"analysis failed ({type(exc).__name__}: {exc})")
        eff.commit_push_maybe.append("the command could not be analysed, so it may commit or "
                                     "push")
    return eff


def _analyze(eff, command, cwd, home, depth, cwds):
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
        eff.unknown.append(f"the command cannot be parsed ({script})")
        if _mentions_commit_push(command):
            eff.commit_push_maybe.append("the command cannot be parsed and mentions git and a "
                                         "subcommand that commits or pushes")
        return
    if depth == 0:
        eff.script = script
    if script.functions:
        eff.unknown.append("the command defines a shell function")
    commands = sorted(script.all_commands, key=lambda c: c.start)
    if cwds is _UNSET:
        cwds = (posixpath.normpath(cwd),) if cwd else None
    chain = _and_chain_cwds(script, cwds, home)
    if chain is not None:
        for cmd, where in chain:
            _command(eff, cmd, _Env(where, depth, False, home))
        return
    env = _Env(_follow_cd(commands, cwds, home), depth, False, home)
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
    memo = getattr(phase2, "_MEMO", None)
    return memo.get(command) if isinstance(memo, dict) else None


_DIR_BUILTINS = ("cd", "pushd", "popd")


def _dir_change(cmd):
    """The words from cd/pushd/popd on when `cmd` runs one (also behind `builtin` or
    `command`), else None. A non-literal command name is None too: it is judged elsewhere."""
    words = cmd.words
    i = 0
    while i < len(words) and words[i].literal and words[i].value in ("builtin", "command"):
        i += 1
    if i < len(words) and words[i].literal and words[i].value in _DIR_BUILTINS:
        return words[i:]
    return None


#: Variables that decide where a later cd lands.
_CD_VARS = frozenset(("CDPATH", "HOME", "OLDPWD"))
#: Builtins that run code in the current shell (which may cd) or make it expand aliases.
_MOVES_UNSEEN = frozenset(("eval", "source", ".", "trap", "enable", "fc", "alias", "coproc",
                           "function"))


def _unsettles_cd(cmd):
    """True when `cmd` may move the shell or change where a later cd lands in a way not
    followed here: code run in the current shell (eval, source, a trap), a computed command
    name, or a change to CDPATH/HOME/OLDPWD (assignment, export/declare/read/printf -v, a
    nameref) or to cdable_vars/expand_aliases. What runs after it is in an unknown directory."""
    for a in cmd.assignments:
        if a.raw.split("=", 1)[0].rstrip("+") in _CD_VARS:
            return True
    words = cmd.words
    if not words:
        return False
    if not words[0].literal:
        return True
    if words[0].value in _MOVES_UNSEEN:
        return True
    for w in words[1:]:
        if not w.literal:
            continue  # a computed argument cannot name a variable to set: read "$v" can
        name = w.value.split("=", 1)[0].rstrip("+")
        if name in _CD_VARS or name in ("cdable_vars", "expand_aliases"):
            return True
    if words[0].value in ("declare", "typeset", "local", "readonly", "export", "read",
                          "printf", "mapfile", "readarray", "shopt", "getopts", "unset"):
        return any(not w.literal for w in words[1:])
    return False


def _cd_targets(cmd, words, dirs, home, moved):
    """Where the cd/pushd/popd `words` (of `cmd`) may land from any of `dirs`: [] when it
    stays among the directories this script has been in, or fails; None when unknown.
    `moved`: an earlier cd of this script ran, so $OLDPWD and the directory stack hold only
    directories of this script (before that, $OLDPWD is wherever the shell was)."""
    if cmd.assignments:
        return None  # CDPATH=... cd x, HOME=... cd
    name = words[0].value
    args = [w for w in words[1:] if not (w.literal and w.value in ("-P", "-L", "-e", "-@",
                                                                  "--", "-n"))]
    if name == "popd":
        return []  # back to a directory pushed by this script (the stack starts with $PWD)
    if not args:
        return [home] if name == "cd" else []
    if not args[0].literal:
        return None
    value = args[0].value
    if value == "-":
        return [] if moved else None
    if name == "pushd" and value[:1] in "+-" and value[1:].isdigit():
        return []  # rotates the directory stack, which holds only this script's directories
    if value.startswith("-"):
        return []  # an unknown option: the cd fails
    if os.environ.get("CDPATH") and not value.startswith(("/", "./", "../")) \
            and value not in (".", ".."):
        return None  # searched in $CDPATH (inherited by the agent's shell) first
    # bash's cd is logical by default and physical with -P (or when the logical path does
    # not exist): both are possible
    return [t for d in dirs for t in (lexical(value, d), physical(value, d))]


def _and_chain_cwds(script, cwds, home):
    """[(command, directories it may run in)] for a script that is a plain `&&` chain
    (`cd src/auth && make && echo x > y`): no subshell, group, substitution, function,
    background job or other operator, and at most plain cd/pushd moves (no `cd -`, popd or
    stack rotation, which need the history). There a command after `cd X &&` runs only when
    the cd succeeded, so in X -- not also where the script started, as the union of
    _follow_cd must assume. None when the script is not such a chain."""
    if cwds is None or script.constructs or script.functions:
        return None
    items = script.items
    if any(op not in ("&&", None) for _, op in items) or items[-1][1] is not None:
        return None
    dirs = tuple(cwds)
    out = []
    for pipeline, _ in items:
        cmds = pipeline.commands
        if any(c is None for c in cmds) or pipeline.negated:
            return None  # `! cd x && ...` goes on exactly when the cd failed
        for c in cmds:
            out.append((c, dirs))
            if dirs is not None and _unsettles_cd(c):
                dirs = None  # every later command runs in an unknown directory
        if dirs is None:
            continue
        if len(cmds) != 1:
            if any(_dir_change(c) is not None for c in cmds):
                return None  # the last part may run in this shell (lastpipe): use the union
            continue
        words = _dir_change(cmds[0])
        if words is None:
            continue
        targets = _cd_targets(cmds[0], words, dirs, home, False)
        if not targets:
            return None  # unknown, or a move back that needs the history: use the union
        dirs = tuple(dict.fromkeys(targets))
        if len(dirs) > _MAX_CWDS:
            return None
    return out


def _follow_cd(commands, cwds, home):
    """Every directory a command of this script may run in. A cd can fail, and subshells,
    groups and functions make the order uncertain, so the union is used: each cd (in source
    order) adds its target relative to every directory known before it. None = unknown."""
    if cwds is None:
        return None
    dirs = list(cwds)
    moved = False
    for cmd in commands:
        if _unsettles_cd(cmd):
            return None
        words = _dir_change(cmd)
        if words is None:
            continue
        targets = _cd_targets(cmd, words, dirs, home, moved)
        if targets is None:
            return None
        moved = True
        for t in targets:
            if t not in dirs:
                dirs.append(t)
        if len(dirs) > _MAX_CWDS:
            return None
    return tuple(dirs)


# --- one simple command -----------------------------------------------------------------------

def _command(eff, cmd, env):
    for r in cmd.redirects:
        _redirect(eff, r, env)
    if cmd.assignments:
        eff.unknown.append(f"the assignment {cmd.assignments[0].raw!r} changes the environment "
                           "of what runs")
    if not cmd.words:
        return
    _argv(eff, list(cmd.words), env)


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
                if v not in _HARMLESS_TARGETS:
                    _write(eff, v, f"redirection {r.op}", env)
            return
        if value is None:
            why = f"output redirection {r.op} to a computed target {target.raw!r}"
            eff.unknown.append(why)
            eff.unresolved.append(why)
            return
        return _write(eff, value, f"redirection {r.op}", env)
    if target.value in _HARMLESS_TARGETS or target.value.startswith("/dev/fd/"):
        return
    _write(eff, target.value, f"redirection {r.op}", env)


def _write(eff, target, via, env, tree=False, into=()):
    """Record a write of `target`; `into`: basenames that land inside it when it is a
    directory (cp/mv/ln/install into a directory)."""
    if env.cwds is None and not target.startswith("/"):
        eff.writes.append(Write(target, via, tree, ()))
        eff.unknown.append(f"{via} writes {target!r} in a directory that cannot be known")
        return
    paths = []
    for d in (env.cwds or ("/",)):
        # the lexical form, and where the kernel lands (a symlink before a `..` makes them
        # differ: h/../settings.json with h -> .claude/hooks is .claude/settings.json)
        for p in dict.fromkeys((lexical(target, d), physical(target, d))):
            if into and (target.endswith("/") or os.path.isdir(p)):
                paths.extend(posixpath.join(p, b) for b in into)
            else:
                paths.append(p)
    eff.writes.append(Write(target, via, tree, tuple(dict.fromkeys(paths))))


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
        out.extend(posixpath.join(d, n) for n in fnmatch.filter(names, basename))
    return out


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
        kinds = {k for k, _ in (getattr(w, "issues", None) or ())}
        if not kinds or not kinds <= {"glob", "brace"} or env.cwds is None:
            return None
        computed = True
        texts = _brace(w.value) if "brace" in kinds else [w.value]
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


def _literal(eff, words, what) -> bool:
    bad = [w for w in words if not w.literal]
    if bad:
        eff.unknown.append(f"{what} has a computed argument {bad[0].raw!r}")
        return False
    return True


def _home_value(word, home):
    """The value of a word whose only expansion is a leading `~` or `$HOME`/`${HOME}` (the
    home directory: `~/.claude/settings.json`, "$HOME/.claude"), else None."""
    issues = getattr(word, "issues", None)
    if not issues or not home.startswith("/") \
            or any(c in home for c in " \t\n*?[]{}~$`\"'\\"):
        return None
    kinds = [k for k, _ in issues]
    value = word.value
    raw = word.raw
    if kinds == ["tilde"]:
        if raw[:1] == "~" and (value == "~" or value.startswith("~/")):
            return home + value[1:]
        return None
    # ${HOME} unquoted also reports its brace
    if value.count("$") != 1 or not (kinds == ["param"] or (
            kinds == ["param", "brace"] and value.count("{") == 1)):
        return None
    for form in ("${HOME}", "$HOME"):
        rest = value[len(form):]
        if value.startswith(form) and raw.lstrip('"').startswith(form) \
                and not (rest[:1].isalnum() or rest[:1] == "_"):
            return home + rest
    return None


_COMMIT_PUSH_WORDS = None


def _mentions_commit_push(text) -> bool:
    """Text that names git and a subcommand that commits or pushes (code the analyzer cannot
    see into: an unparseable command, an interpreter's inline code)."""
    import re

    global _COMMIT_PUSH_WORDS
    if _COMMIT_PUSH_WORDS is None:
        _COMMIT_PUSH_WORDS = GIT_COMMIT_LIKE | GIT_PUSH_LIKE
    if not isinstance(text, str) or "git" not in text.lower():
        return False
    words = set(re.findall(r"[a-z][a-z0-9_-]*", text.lower()))
    if "git" in words:
        return bool(words & _COMMIT_PUSH_WORDS)
    return any(w.startswith("git-") and w[4:] in _COMMIT_PUSH_WORDS for w in words)


def gateway_paths():
    """Absolute paths of the running gateway's own command (trusted as `gateway`)."""
    import sys

    out = {posixpath.join(posixpath.dirname(sys.executable), "gateway")}
    if sys.argv and posixpath.basename(sys.argv[0]) == "gateway" and sys.argv[0].startswith("/"):
        out.add(posixpath.normpath(sys.argv[0]))
    return out


def trusted_program(word) -> bool:
    """A command word that names a system program (or the gateway itself), not a file an
    agent could have written: a bare name, or an absolute path in a system directory."""
    if "/" not in word:
        return True
    norm = posixpath.normpath(word)
    return posixpath.dirname(norm) in SYSTEM_DIRS or norm in gateway_paths()


def _argv(eff, words, env):
    if env.depth > _MAX_DEPTH:
        eff.unknown.append("commands nested too deeply")
        eff.commit_push_maybe.append("commands nested too deeply to see whether they commit "
                                     "or push")
        return
    first = words[0]
    if not first.literal:
        eff.unknown.append(f"the command name {first.raw!r} is computed")
        for w in words[1:]:  # `$GIT commit`, `$(echo git) push`
            if w.literal and w.value.lower() in GIT_COMMIT_LIKE | GIT_PUSH_LIKE:
                eff.commit_push_maybe.append(f"the computed command {first.raw!r} with "
                                             f"{w.value!r} may be git {w.value.lower()}")
                break
        return
    word = first.value
    name = posixpath.basename(word) if "/" in word else word
    lname = name.lower()
    if (lname in AGENT_PROGRAMS and [w.value for w in words[1:]] not in _AGENT_INFO) or any(
            w.literal and "@anthropic-ai/claude-code" in w.value for w in words[1:]):
        # a new session: no agent_id, its own session_id, so no registered role
        eff.agents.append(f"{name} starts another agent session")
    if lname == "git" or (lname.startswith("git-") and len(lname) > 4):
        # git-commit (a git program run directly) is `git commit`; a git elsewhere than the
        # system directories is judged as git too (for commit/push) and is never read-only
        if not trusted_program(word):
            eff.unknown.append(f"{word!r} is not the system git")
        if lname == "git":
            return _git(eff, words, env)
        return _git(eff, [first, _W(name[4:])] + words[1:], env)
    if lname == "gateway":
        return _gateway(eff, words, env, trusted_program(word))
    if not trusted_program(word):
        eff.unknown.append(f"{word!r} runs a program that is not a system command (its "
                           "effects are not visible)")
        return
    argv = [lname] + [w.value for w in words[1:]]
    if lname in RUNNERS:
        return _runner(eff, lname, words, env)
    if lname in WRAPPERS:
        return _wrapper(eff, lname, words, env)
    if lname in PURE:
        return
    if lname in CODE_BUILTINS:
        eff.unknown.append(f"{lname} runs code or changes how later commands run")
        return
    check = _CHECKS.get(lname)
    if check is not None:
        expanded = _expand_words(words[1:], env)
        if expanded is not None:  # globs and braces: the words bash will pass
            words = [first] + [_W(v) for v in expanded]
            argv = [lname] + expanded
        if env.extra and lname not in _EXTRA_OK:
            eff.unknown.append(f"{lname} gets more arguments at run time (xargs, find -exec)")
        if not _literal(eff, words[1:], lname):
            # a writer (or a command that writes with these options) whose targets may be
            # any of the computed words (an unquoted one may even be several)
            trial = Effects()
            check(trial, [lname] + [w.value if w.literal else _COMPUTED for w in words[1:]],
                  env)
            if lname in _WRITERS or trial.writes or trial.unresolved:
                bad = next(w for w in words[1:] if not w.literal)
                eff.unresolved.append(f"{lname} has a computed argument {bad.raw!r}, so what "
                                      "it writes is not known")
            if lname in _WRITERS:  # still record the targets that are known
                known = [w.value if w.literal else _home_value(w, env.home) for w in words[1:]]
                check(eff, [lname] + [v for v in known if v is not None], env)
            return
        if env.extra == "xargs":
            trial = Effects()
            check(trial, argv, env)
            eff.merge(trial)
            if lname in _WRITERS or trial.writes or trial.unresolved:
                eff.unresolved.append(f"xargs gives {lname} more arguments at run time, so "
                                      "what it writes is not known")
            return
        return check(eff, argv, env)
    if lname in SHELLS:
        return _shell(eff, lname, words, env)
    if lname in INTERPRETERS or lname.startswith(("python", "pypy", "ruby", "perl", "php",
                                                  "node", "lua")):
        return _interpreter(eff, lname, words, env)
    eff.unknown.append(f"{name} is not known to be read-only")


#: Stands for a computed word when a command is tried with its literal words only.
_COMPUTED = "\ufffdcomputed\ufffd"


class _W:
    """A literal word made up by the analyzer (git-commit -> git commit)."""

    __slots__ = ("value", "raw")
    literal = True

    def __init__(self, value):
        self.value = value
        self.raw = value


# --- wrappers, shells, interpreters ----------------------------------------------------------

def _wrapper(eff, name, words, env):
    value_flags = WRAPPERS[name]
    i = 1
    n = len(words)
    while i < n:
        w = words[i]
        if not w.literal:
            eff.unknown.append(f"{name} has a computed argument {w.raw!r}")
            writer = next((x.value for x in words[i + 1:] if x.literal and posixpath.basename(
                x.value).lower() in _WRITERS | _INPLACE), None)
            if writer:  # `xargs -I{} cp {} dir`: the command it runs may write anywhere
                eff.unresolved.append(f"{name} has a computed argument {w.raw!r} and runs "
                                      f"{writer}, so what it writes is not known")
            return
        v = w.value
        if v == "--":
            i += 1
            break
        if v.startswith("-") and len(v) > 1:
            opt = v.split("=", 1)[0]
            if name == "env" and opt in ("-S", "--split-string", "-C", "--chdir"):
                eff.unknown.append(f"env {opt} changes what runs or where")
                return
            if name in ("command", "builtin") and v in ("-v", "-V"):
                return  # prints what a name is
            if name == "time" and opt in ("-o", "--output"):
                out = v.split("=", 1)[1] if "=" in v else (words[i + 1].value
                                                           if i + 1 < n else "")
                if out:
                    _write(eff, out, "time -o", env)
            takes = opt in value_flags or (len(v) == 2 and v in value_flags)
            if "=" not in v and takes:
                i += 2
            elif not v.startswith("--") and v[:2] in value_flags and len(v) > 2:
                i += 1  # -n5
            else:
                i += 1
            continue
        if name == "env" and "=" in v:
            eff.unknown.append(f"env {v!r} changes the environment of what runs")
            return
        if name == "timeout":
            i += 1  # the duration
            name = "timeout:done"
            continue
        break
    if i >= n:
        return  # env alone prints the environment; xargs alone echoes its input
    inner_env = env.derive(extra="xargs") if name == "xargs" else env
    _argv(eff, words[i:], inner_env)


def _runner(eff, name, words, env):
    value_flags, joined = RUNNERS[name]
    eff.unknown.append(f"{name} runs a command and is never read-only")
    i = 1
    n = len(words)
    while i < n and words[i].literal:
        v = words[i].value
        if v == "--":
            i += 1
            break
        if name == "eval" or not v.startswith("-") or len(v) == 1:
            break  # eval takes no options: `eval -x` runs the command -x
        i += 2 if "=" not in v and v in value_flags else 1
    rest = words[i:]
    if not rest:
        return
    if joined:  # eval and watch run their arguments, joined by spaces, as shell code
        if all(w.literal for w in rest):
            eff.merge(analyze(" ".join(w.value for w in rest), None, env.home, env.depth + 1,
                              env.cwds))
        else:
            eff.commit_push_maybe.append(f"{name} runs computed shell code, which may commit "
                                         "or push")
        return
    _argv(eff, rest, _Env(env.cwds, env.depth + 1, env.extra, env.home))


def _shell(eff, name, words, env):
    argv = [w.value if w.literal else None for w in words]
    i = 1
    n = len(words)
    code_index = None
    from_input = False  # -s / -i: commands come from the input, the arguments are arguments
    while i < n:
        v = argv[i]
        if v is None:
            eff.unknown.append(f"{name} has a computed argument {words[i].raw!r}")
            return
        if v in ("--version",) and n == 2:
            return
        if v == "--":
            i += 1
            break
        if v in ("--norc", "--noprofile", "--posix", "--noediting"):
            i += 1
            continue
        if v.startswith("--"):
            # not understood, but the code it runs is still looked at (bash --login -c ...)
            eff.unknown.append(f"{name} {v}: option not understood")
            i += 1
            continue
        if v.startswith(("-", "+")) and len(v) > 1:
            letters = v[1:]
            if v == "-o" or v == "+o":
                i += 2
                continue
            bad = set(letters) - set("ceuxvfnahkmpBCEHPT")
            if bad or "i" in letters or "l" in letters or "s" in letters:
                eff.unknown.append(f"{name} {v}: option not understood")
                from_input = from_input or "s" in letters or "i" in letters
            if "c" in letters:
                code_index = i + 1
                i += 1
                break
            i += 1
            continue
        break
    if code_index is None:
        if i < n and not from_input:
            eff.unknown.append(f"{name} runs the script {argv[i]!r} (its effects are not "
                               "visible)")
        else:
            eff.unknown.append(f"{name} runs commands from its input")
            eff.commit_push_maybe.append(f"{name} runs commands from its input (not visible), "
                                         "which may commit or push")
        return
    if code_index >= n or argv[code_index] is None:
        eff.unknown.append(f"{name} -c runs code that is not visible")
        eff.commit_push_maybe.append(f"{name} -c runs code that is not visible, which may "
                                     "commit or push")
        return
    inner = analyze(argv[code_index], None, env.home, env.depth + 1, env.cwds)
    eff.merge(inner)


def _interpreter(eff, name, words, env):
    argv = tuple(w.value if w.literal else None for w in words[1:])
    if argv in _VERSION_ONLY:
        return
    inplace = name.startswith(("perl", "ruby")) and any(
        a is not None and a.startswith("-") and not a.startswith("--") and "i" in a[1:]
        for a in argv)
    if inplace:
        # perl -pi -e CODE FILES: the files are edited in place
        code_flags = "eE" if name.startswith("perl") else "e"
        files = []
        skip = False
        has_code = False
        for a in argv:
            if skip:
                skip = False
                continue
            if a is None:
                continue
            if a.startswith("-") and not a.startswith("--") and len(a) > 1:
                letters = a[1:]
                for k, ch in enumerate(letters):
                    if ch in code_flags:
                        has_code = True
                        if k == len(letters) - 1:
                            skip = True
                        break
                    if ch in "IMmlx0" or ch == "i":
                        break  # the rest of the word is the flag's value
                continue
            files.append(a)
        if not has_code and files:
            files = files[1:]  # the first positional is the script
        for f in files:
            _write(eff, f, f"{name} -i", env)
        if not files or any(a is None for a in argv):
            eff.unresolved.append(f"{name} -i edits files it does not name")
    eff.unknown.append(f"{name} runs a program (inline code or a script) whose effects are "
                       "not visible")
    if any(_mentions_commit_push(a) for a in argv):
        eff.commit_push_maybe.append(f"{name}'s inline code runs git, and may commit or push")


# --- git --------------------------------------------------------------------------------------

def _git(eff, words, env):
    values = [w.value if w.literal else None for w in words[1:]]
    i = 0
    n = len(values)
    cwds = env.cwds
    risky = ""
    while i < n:
        v = values[i]
        if v is None:
            eff.unknown.append(f"git has a computed argument {words[i + 1].raw!r}")
            eff.commit_push_maybe.append("git with a computed option or subcommand may "
                                         "commit or push")
            return
        if not v.startswith("-") or v == "-":
            break
        if v == "--":
            i += 1
            break
        opt = v.split("=", 1)[0]
        short = v[:2] if not v.startswith("--") else opt
        if opt in _GIT_GLOBAL_VALUE or short in _GIT_GLOBAL_VALUE:
            if short in _GIT_GLOBAL_VALUE and short != opt and len(v) > 2 \
                    and not v.startswith("--"):
                value, step, key = v[2:], 1, short  # -Cdir
            elif "=" in v:
                value, step, key = v.split("=", 1)[1], 1, opt
            else:
                key = opt
                if key == "--exec-path":  # bare: prints the path
                    i += 1
                    continue
                value, step = (values[i + 1] if i + 1 < n else None), 2
            if key in _GIT_GLOBAL_RISKY:
                risky = risky or f"git {key} {value or ''}".strip()
            if key == "-C":
                if value is None:
                    cwds = None
                elif cwds is not None:  # git chdir()s: the kernel's resolution
                    cwds = tuple(dict.fromkeys(physical(value, d) for d in cwds))
            i += step
            continue
        if opt in _GIT_GLOBAL_FLAGS:
            i += 1
            continue
        risky = risky or f"git {opt}"
        eff.unknown.append(f"git: unknown global option {opt}")
        i += 1
    genv = env.derive(cwds=cwds)
    if risky:
        eff.unknown.append(f"{risky} can make git run another program or command")
        eff.commit_push_maybe.append(f"{risky} can change what git runs (an alias or a "
                                     "program), so it may commit or push")
    if i >= n:
        return  # git, git --version, git --help: print text
    sub = values[i]
    lsub = sub.lower()
    label = f"git {sub}"
    if lsub in GIT_COMMIT_LIKE or lsub in GIT_PUSH_LIKE:
        eff.commit_push.append(label)
        eff.git.append(label)
        return
    if lsub not in GIT_COMMANDS:
        eff.git.append(label)
        eff.commit_push_maybe.append(f"{label}: not a git command, so an alias or an external "
                                     "git program that may commit or push")
        return
    if sub != lsub:
        eff.git.append(label)
        eff.commit_push_maybe.append(f"{label}: not the git command {lsub} as written (an "
                                     "alias or, on a case-insensitive file system, any git "
                                     "program), so it may commit or push")
        return
    rest = values[i + 1:]
    if any(a is None for a in rest):
        eff.unknown.append(f"{label} has a computed argument")
        eff.git.append(label)
        return
    _git_sub(eff, sub, rest, genv, label)


def _git_opts(args):
    return [a for a in args if a.startswith("-") and a != "-"]


def _long(opt, name):
    o = opt.split("=", 1)[0]
    return o == name or (len(o) >= 4 and o.startswith("--") and name.startswith(o))


def _git_sub(eff, sub, args, env, label):
    if sub in ("submodule",) and args[:1] == ["foreach"]:
        eff.git.append(f"{label} foreach")
        eff.commit_push_maybe.append("git submodule foreach runs any command (it may commit "
                                     "or push)")
        return
    if sub == "bisect" and args[:1] == ["run"]:
        eff.git.append("git bisect run")
        eff.commit_push_maybe.append("git bisect run runs any command (it may commit or push)")
        return
    if sub in ("difftool", "mergetool"):
        eff.git.append(label)
        if any(_long(a, "--extcmd") or a.startswith("-x") or _long(a, "--tool")
               or a.startswith("-t") for a in args):
            eff.commit_push_maybe.append(f"{label} runs a program of your choice")
        return
    if sub in _GIT_READ:
        for a in _git_opts(args):
            for bad in _GIT_BAD_OPTIONS:
                if _long(a, bad):
                    eff.unknown.append(f"{label} {bad} runs a configured program")
                    return
            if sub == "grep" and (a == "-O" or a.startswith("-O")):
                eff.unknown.append("git grep -O runs a pager")
                return
            if _long(a, "--output") and "=" in a:
                _write(eff, a.split("=", 1)[1], f"{label} --output", env)
            elif _long(a, "--output"):
                k = args.index(a)
                if k + 1 < len(args):
                    _write(eff, args[k + 1], f"{label} --output", env)
        return
    reader = _GIT_READ_FORMS.get(sub)
    if reader is not None and reader(args):
        return
    if sub == "config":
        _git_config_write(eff, args, env)
    if sub == "clean" and not any(a in ("-n", "--dry-run") or
                                  (a.startswith("-") and not a.startswith("--") and "n" in a)
                                  for a in args):
        for d in (env.cwds or ()):
            eff.writes.append(Write(".", "git clean", True, (d,)))
    _git_worktree(eff, sub, args, env, label)
    eff.git.append(label)


#: git subcommands that rewrite working-tree files, mostly ones they do not name.
_GIT_WORKTREE = frozenset(("checkout", "switch", "restore", "reset", "stash", "apply",
                           "read-tree", "checkout-index", "clone", "worktree", "submodule",
                           "sparse-checkout", "merge-file", "rm", "mv", "init", "bisect"))


def _pathspecs(eff, args, env, via, value_flags=frozenset()):
    """Record the literal pathspecs in `args` as tree writes; False when one cannot be
    named (pathspec magic, globs, --pathspec-from-file)."""
    opts, pos = _split(args, value_flags)
    if _has(opts, "--pathspec-from-file"):
        return False
    if not pos:
        return False
    for p in pos:
        if p.startswith(":") or any(c in p for c in "*?[\\"):
            return False
    for p in pos:
        _write(eff, p, via, env, tree=True)
    return True


def _git_worktree(eff, sub, args, env, label):
    """Working-tree writes of a git subcommand: named targets become `writes`; the rest is
    recorded in `worktree` (an implementer may not run them: they may rewrite any file)."""
    if sub not in _GIT_WORKTREE:
        return
    opts = _git_opts(args)
    if sub == "reset" and not any(_long(o, n) for o in opts
                                  for n in ("--hard", "--merge", "--keep")):
        return  # --soft / --mixed / paths: the index and HEAD only
    if sub == "rm":
        if any(_long(o, "--cached") for o in opts) or any(
                o in ("-n",) or _long(o, "--dry-run") for o in opts):
            return
        if _pathspecs(eff, args, env, "git rm"):
            return
    if sub == "mv":
        _o, pos = _split(args)
        if len(pos) >= 2 and not any(p.startswith(":") for p in pos):
            into = tuple(posixpath.basename(p.rstrip("/")) or p for p in pos[:-1])
            _write(eff, pos[-1], "git mv", env, tree=True, into=into)
            for p in pos[:-1]:
                _write(eff, p, "git mv (source)", env, tree=True)
            return
    if sub == "restore":
        staged = any(o in ("-S",) or _long(o, "--staged") for o in opts)
        worktree = any(o in ("-W",) or _long(o, "--worktree") for o in opts)
        if staged and not worktree:
            return
        if _pathspecs(eff, args, env, "git restore",
                      frozenset(("-s", "--source", "--conflict", "--pathspec-from-file"))):
            return
    if sub == "checkout" and "--" in args:
        if _pathspecs(eff, args[args.index("--") + 1:], env, "git checkout --"):
            return
    if sub in ("checkout", "switch") and _new_branch_here(sub, args):
        return  # a new branch at HEAD: the working tree and index stay as they are
    if sub == "stash" and args[:1] == ["push"] and _pathspecs(
            eff, args[1:], env, "git stash push",
            frozenset(("-m", "--message", "--pathspec-from-file"))):
        return  # only the named files go back to HEAD (or, with -u/-a, are removed)
    if sub == "apply" and any(_long(o, "--cached") for o in opts) and not any(
            _long(o, "--index") for o in opts):
        return
    if sub == "stash" and args[:1] in (["drop"], ["clear"], ["create"], ["store"]):
        return
    eff.worktree.append(f"{label} rewrites working-tree files it does not name")


def _new_branch_here(sub, args):
    """`git checkout -b NAME` / `git switch -c NAME` (also -B/-C, --create, -q) with no start
    point, no path and no other option: a branch is created at HEAD and checked out, which
    rewrites no file. A start point, -f, -m, --orphan, --recurse-submodules... do."""
    flags = ("-b", "-B") if sub == "checkout" else ("-c", "-C", "--create", "--force-create")
    rest = [a for a in args if a not in ("-q", "--quiet")]
    return (len(rest) == 2 and rest[0] in flags and not rest[1].startswith("-")
            and rest[1] != "")


def _git_branch_reads(args):
    ok = {"-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose", "-l", "--list",
          "--contains", "--no-contains", "--merged", "--no-merged", "--sort", "--format",
          "--points-at", "--color", "--no-color", "--column", "--no-column", "-q", "--quiet",
          "--show-current", "--abbrev", "--no-abbrev", "-i", "--ignore-case", "--omit-empty"}
    listing = False
    positionals = []
    takes = {"--contains", "--no-contains", "--merged", "--no-merged", "--sort", "--format",
             "--points-at"}
    i = 0
    while i < len(args):
        a = args[i]
        if a.startswith("-") and a != "-":
            o = a.split("=", 1)[0]
            if o not in ok and not (o.startswith("--abbrev") or o.startswith("--color")
                                    or o.startswith("--column")):
                return False
            if o in ("-l", "--list"):
                listing = True
            if o in takes and "=" not in a:
                i += 1
        else:
            positionals.append(a)
        i += 1
    return listing or not positionals


def _git_tag_reads(args):
    ok = {"-l", "--list", "--contains", "--no-contains", "--merged", "--no-merged",
          "--points-at", "--sort", "--format", "--column", "--no-column", "-i",
          "--ignore-case", "--color", "--omit-empty"}
    listing = False
    positionals = []
    takes = {"--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort",
             "--format"}
    i = 0
    while i < len(args):
        a = args[i]
        if a.startswith("-") and a != "-":
            o = a.split("=", 1)[0]
            if o not in ok and not (len(o) > 2 and o.startswith("-n") and o[2:].isdigit()) \
                    and o != "-n":
                return False
            if o in ("-l", "--list"):
                listing = True
            if o in takes and "=" not in a:
                i += 1
        else:
            positionals.append(a)
        i += 1
    return listing or not positionals


def _first_is(*subs):
    def check(args):
        return not args or args[0] in subs
    return check


def _git_remote_reads(args):
    if not args:
        return True
    if args[0] in ("-v", "--verbose"):
        return len(args) == 1
    return args[0] in ("show", "get-url")


def _git_config_reads(args):
    if args and args[0] in ("get", "list"):
        return True
    readers = ("--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l",
               "--get-color", "--get-colorbool")
    if any(a.split("=", 1)[0] in readers for a in args):
        return True
    return False


def _git_config_write(eff, args, env):
    where = ".git/config"
    for k, a in enumerate(args):
        o = a.split("=", 1)[0]
        if o == "--global":
            where = "~/.gitconfig"
        elif o == "--system":
            where = "/etc/gitconfig"
        elif o in ("--file", "-f"):
            where = a.split("=", 1)[1] if "=" in a else (args[k + 1] if k + 1 < len(args)
                                                         else where)
        elif o == "--worktree":
            where = ".git/config.worktree"
    if where == "~/.gitconfig":
        _write(eff, posixpath.join(env.home, ".gitconfig"), "git config --global", env)
        return
    if where.startswith(".git/"):
        # the repository's config: the .git of the nearest enclosing repository
        for d in (env.cwds or ()):
            probe = d
            while True:
                if os.path.exists(posixpath.join(probe, ".git")):
                    break
                parent = posixpath.dirname(probe)
                if parent == probe:
                    probe = d
                    break
                probe = parent
            eff.writes.append(Write(where, "git config", False,
                                    (posixpath.join(probe, where),)))
        return
    _write(eff, where, "git config --file", env)


_GIT_READ_FORMS = {
    "branch": _git_branch_reads,
    "tag": _git_tag_reads,
    "stash": lambda a: bool(a) and a[0] in ("list", "show"),
    "remote": _git_remote_reads,
    "worktree": lambda a: a[:1] == ["list"],
    "notes": lambda a: not a or a[0] in ("list", "show"),
    "submodule": lambda a: not a or a[0] in ("status", "summary"),
    "reflog": lambda a: not a or a[0] in ("show", "exists") or a[0].startswith("-"),
    "config": _git_config_reads,
    "sparse-checkout": _first_is("list"),
    "symbolic-ref": lambda a: len([x for x in a if not x.startswith("-")]) == 1
    and not any(x in ("-d", "--delete") for x in a),
    "hook": lambda a: False,
    "bisect": lambda a: bool(a) and a[0] in ("log", "visualize", "view", "terms"),
    "apply": lambda a: any(x in ("--check", "--stat", "--numstat", "--summary") for x in a)
    and not any(x in ("--index", "--cached", "--apply", "-3", "--3way") for x in a),
    "format-patch": lambda a: any(x == "--stdout" for x in a),
    "archive": lambda a: not any(x.startswith(("-o", "--output")) for x in a),
    "fsck": lambda a: not any(x.startswith("--lost-found") for x in a),
}


# --- the gateway itself -----------------------------------------------------------------------

def _gateway(eff, words, env, trusted=True):
    if not _literal(eff, words[1:], "gateway"):
        eff.gateway_ops.append("(computed arguments)")
        return
    argv = [w.value for w in words[1:]]
    before = (len(eff.gateway_ops), len(eff.surface_ops), len(eff.unknown))
    _gateway_verb(eff, argv)
    if not trusted and (len(eff.gateway_ops), len(eff.surface_ops), len(eff.unknown)) == before:
        eff.unknown.append(f"{words[0].value!r} is not the installed gateway")


def _gateway_verb(eff, argv):
    if not argv or argv[0] in ("-h", "--help", "-V", "--version"):
        return
    verb = argv[0]
    rest = argv[1:]
    if verb in ("check", "explain"):
        return
    if verb == "rules" and (not rest or rest[0] in ("show", "validate", "-h", "--help")):
        return
    if verb == "state":
        if not rest or rest[0] in ("show", "validate", "-h", "--help"):
            return
        if rest[0] == "clean":
            eff.gateway_ops.append("state clean" + (" --all" if "--all" in rest else ""))
            return
    if verb == "breezing" and rest[:1] == ["phase"]:
        phase = [a for a in rest[1:] if not a.startswith("-")]
        if not phase or any(a in ("-h", "--help") for a in rest):
            return
        eff.gateway_ops.append("breezing phase " + phase[0])
        return
    if verb == "hook":
        eff.gateway_ops.append("hook " + " ".join(rest[:1]))
        return
    if verb in ("install", "uninstall"):
        eff.surface_ops.append(f"gateway {verb} rewrites the Claude Code settings (hooks)")
        return
    eff.unknown.append(f"gateway {verb} is not known to be read-only")


# --- commands whose effect depends on their arguments -----------------------------------------

def _split(argv, value_flags=frozenset()):
    """(options [(name, value)], positionals) in getopt style; `--` ends options."""
    from gateway.validator import argv as argvmod

    args = argvmod.parse(argv, frozenset(value_flags))
    return [(o.name, o.value) for o in args.options], list(args.positionals)


def _has(opts, *names):
    return any(o == n or (n.startswith("--") and _long(o, n)) for o, _ in opts for n in names)


def _values(opts, *names):
    return [v for o, v in opts for n in names
            if v is not None and (o == n or (n.startswith("--") and _long(o, n)))]


def _targets(eff, name, argv, env, value_flags=(), recursive=("-r", "-R", "--recursive")):
    opts, pos = _split(argv[1:], value_flags)
    tree = _has(opts, *recursive) if recursive else False
    for p in pos:
        _write(eff, p, name, env, tree=tree)
    if not pos:
        eff.unknown.append(f"{name} without a target")


def _rm(eff, argv, env):
    _targets(eff, argv[0], argv, env)


def _plain(value_flags=(), recursive=("-R", "--recursive")):
    def check(eff, argv, env):
        _targets(eff, argv[0].lower(), argv, env, value_flags, recursive)
    return check


def _copylike(eff, argv, env):
    name = argv[0].lower()
    vf = {"-t", "--target-directory", "-S", "--suffix", "-m", "--mode", "-o", "--owner",
          "-g", "--group"} if name == "install" else {"-t", "--target-directory", "-S",
                                                      "--suffix"}
    opts, pos = _split(argv[1:], vf)
    target_dirs = _values(opts, "-t", "--target-directory")
    recursive = _has(opts, "-r", "-R", "--recursive", "-a", "--archive") or name == "mv"
    if name == "install" and _has(opts, "-d", "--directory"):
        for p in pos:
            _write(eff, p, "install -d", env)
        return
    if target_dirs:
        dest, sources = target_dirs[-1], pos
        into = tuple(posixpath.basename(s.rstrip("/")) or s for s in sources)
        _write(eff, dest.rstrip("/") + "/", name, env, tree=recursive, into=into)
    elif len(pos) >= 2 or (name == "ln" and pos):
        if name == "ln" and len(pos) == 1:
            dest, sources = ".", pos
        else:
            dest, sources = pos[-1], pos[:-1]
        into = tuple(posixpath.basename(s.rstrip("/")) or s for s in sources)
        if _has(opts, "-T", "--no-target-directory"):
            _write(eff, dest, name, env, tree=recursive)
        else:
            _write(eff, dest, name, env, tree=recursive, into=into)
    else:
        eff.unknown.append(f"{name} without a destination")
        sources = []
    if name == "mv":
        for s in sources:
            _write(eff, s, "mv (source)", env, tree=True)


def _dd(eff, argv, env):
    for a in argv[1:]:
        if a.startswith("of="):
            _write(eff, a[3:], "dd of=", env)


def _tee(eff, argv, env):
    opts, pos = _split(argv[1:], {"--output-error"})
    for p in pos:
        if p != "-":
            _write(eff, p, "tee", env)


def _sed(eff, argv, env):
    from gateway.validator.checks.programs import sed_program_problem

    opts, pos = _split(argv[1:], {"-e", "--expression", "-f", "--file", "-l",
                                  "--line-length"})
    safe = {"-n", "--quiet", "--silent", "-E", "-r", "--regexp-extended", "-s", "--separate",
            "-z", "--null-data", "-u", "--unbuffered", "--posix", "--debug", "--sandbox",
            "-l", "--line-length", "-e", "--expression", "-b", "--binary",
            "--follow-symlinks"}
    inplace = False
    programs = _values(opts, "-e", "--expression")
    for o, _v in opts:
        if o in ("-i", "-I") or _long(o, "--in-place"):
            inplace = True
        elif o in ("-f", "--file"):
            eff.unknown.append("sed -f runs a program from a file that is not visible")
        elif o not in safe and not (len(o) == 2 and o[1] in ".~_"):
            # -i.bak is split into -i -. -b -a -k by the option parser
            if not inplace:
                eff.unknown.append(f"sed {o}: option not understood")
    files = list(pos)
    if not programs and files:
        programs = [files.pop(0)]
    for prog in programs:
        why = sed_program_problem(prog)
        if why:
            eff.unknown.append(f"sed program {prog!r}: {why}")
    if inplace:
        for f in files:
            _write(eff, f, "sed -i", env)
        if not files:
            eff.unknown.append("sed -i without files")
            eff.unresolved.append("sed -i without files (they come from elsewhere)")


def _awk(eff, argv, env):
    from gateway.validator.checks.programs import awk_program_problem

    opts, pos = _split(argv[1:], {"-F", "--field-separator", "-v", "--assign", "-f", "--file",
                                  "-i", "--include", "-l", "--load", "-E", "--exec"})
    inplace = False
    for o, v in opts:
        if o in ("-F", "--field-separator", "-v", "--assign"):
            continue
        if o in ("-i", "--include") and v in ("inplace", "inplace.awk"):
            inplace = True
            continue
        eff.unknown.append(f"awk {o}: loads or runs a program that is not visible")
        return
    if not pos:
        eff.unknown.append("awk without a program")
        return
    why = awk_program_problem(pos[0])
    if why:
        eff.unknown.append(f"awk program {pos[0]!r}: {why}")
    if inplace:
        files = [p for p in pos[1:] if "=" not in p]
        for f in files:
            _write(eff, f, "awk -i inplace", env)
        if not files:
            eff.unresolved.append("awk -i inplace without files (they come from elsewhere)")


def _find(eff, argv, env):
    words = argv[1:]
    starts = []
    i = 0
    while i < len(words) and not words[i].startswith(("-", "(", "!")):
        starts.append(words[i])
        i += 1
    starts = starts or ["."]
    expr = words[i:]
    k = 0
    while k < len(expr):
        w = expr[k]
        if w in ("-delete",):
            for s in starts:
                _write(eff, s, "find -delete", env, tree=True)
        elif w in ("-fprint", "-fprint0", "-fprintf", "-fls"):
            if k + 1 < len(expr):
                _write(eff, expr[k + 1], f"find {w}", env)
            k += 1
        elif w in ("-exec", "-execdir", "-ok", "-okdir"):
            j = k + 1
            inner = []
            while j < len(expr) and expr[j] not in (";", "+"):
                inner.append(expr[j])
                j += 1
            if not inner:
                eff.unknown.append(f"find {w} without a command")
            else:
                sub = Effects()
                _argv(sub, [_W(a) for a in inner], env.derive(extra=True))
                if not sub.readonly:
                    eff.unknown.append(f"find {w} {inner[0]} runs a command that may write")
                    if sub.writes:
                        for s in starts:
                            _write(eff, s, f"find {w} {inner[0]}", env, tree=True)
                    sub.writes = [x for x in sub.writes if x.target != "{}"]
                    eff.merge(sub)
            k = j
        k += 1


def _sort(eff, argv, env):
    opts, _pos = _split(argv[1:], {"-k", "--key", "-t", "--field-separator", "-S",
                                   "--buffer-size", "-T", "--temporary-directory", "-o",
                                   "--output", "--parallel", "--compress-program",
                                   "--files0-from", "--batch-size", "--random-source"})
    for out in _values(opts, "-o", "--output"):
        _write(eff, out, "sort -o", env)
    if _has(opts, "--compress-program"):
        eff.unknown.append("sort --compress-program runs a program")


def _second_positional(name, value_flags):
    def check(eff, argv, env):
        _opts, pos = _split(argv[1:], value_flags)
        if len(pos) >= 2 and pos[1] != "-":
            _write(eff, pos[1], name, env)
    return check


def _xxd(eff, argv, env):
    # xxd's options are words before the first file (-ps is one option); the second file
    # is written (`xxd in -x` writes a file named -x)
    from gateway.validator.argv import xxd_parse

    _names, pos, bad = xxd_parse(argv[1:])
    if not bad and len(pos) >= 2 and pos[1] != "-":
        _write(eff, pos[1], "xxd", env)


def _tree(eff, argv, env):
    opts, _pos = _split(argv[1:], {"-L", "-P", "-I", "-o", "--filelimit", "--charset", "-H",
                                   "-T"})
    for out in _values(opts, "-o"):
        _write(eff, out, "tree -o", env)
    if _has(opts, "-R"):
        eff.unknown.append("tree -R writes HTML files")


def _date(eff, argv, env):
    opts, _pos = _split(argv[1:], {"-d", "--date", "-f", "--file", "-r", "--reference",
                                   "-I", "--iso-8601"})
    if _has(opts, "-s", "--set"):
        eff.unknown.append("date -s sets the clock")


def _hostname(eff, argv, env):
    opts, pos = _split(argv[1:])
    if pos or _has(opts, "-F", "--file", "-b", "--boot"):
        eff.unknown.append("hostname with an argument sets the host name")


def _file(eff, argv, env):
    opts, _pos = _split(argv[1:], {"-m", "--magic-file", "-F", "--separator", "-P",
                                   "--parameter", "-e", "--exclude"})
    if _has(opts, "-C", "--compile"):
        eff.unknown.append("file -C writes a compiled magic file")


def _rg(eff, argv, env):
    opts, _pos = _split(argv[1:], {"-e", "--regexp", "-f", "--file", "-g", "--glob",
                                   "--iglob", "-t", "--type", "-T", "--type-not", "-A", "-B",
                                   "-C", "-m", "--max-count", "-M", "--max-columns",
                                   "--color", "--colors", "-j", "--threads", "--max-depth",
                                   "-d", "--sort", "--sortr", "--type-add", "--ignore-file",
                                   "--pre", "--pre-glob", "--hostname-bin", "-r",
                                   "--replace", "--path-separator", "-E", "--encoding"})
    for bad in ("--pre", "--hostname-bin"):
        if _has(opts, bad):
            eff.unknown.append(f"rg {bad} runs a program")


_CHECKS = {
    "rm": _rm,
    "rmdir": _plain(recursive=()),
    "unlink": _plain(recursive=()),
    "shred": _plain(("-n", "--iterations", "-s", "--size", "--random-source"), ()),
    "truncate": _plain(("-s", "--size", "-r", "--reference"), ()),
    "touch": _plain(("-d", "--date", "-t", "-r", "--reference"), ()),
    "mkdir": _plain(("-m", "--mode", "--context"), ()),
    "mkfifo": _plain(("-m", "--mode", "--context"), ()),
    "mknod": _plain(("-m", "--mode", "--context"), ()),
    "chmod": _plain(("--reference",)),
    "chown": _plain(("--reference", "--from")),
    "chgrp": _plain(("--reference",)),
    "chattr": _plain(("-v", "-p")),
    "setfacl": _plain(("-m", "-M", "-x", "-X", "--modify", "--modify-file", "--remove",
                       "--remove-file", "--set", "--set-file")),
    "cp": _copylike,
    "mv": _copylike,
    "install": _copylike,
    "ln": _copylike,
    "dd": _dd,
    "tee": _tee,
    "sed": _sed,
    "gsed": _sed,
    "awk": _awk,
    "gawk": _awk,
    "mawk": _awk,
    "nawk": _awk,
    "find": _find,
    "sort": _sort,
    "uniq": _second_positional("uniq", {"-f", "-s", "-w", "--skip-fields", "--skip-chars",
                                        "--check-chars"}),
    "xxd": _xxd,
    "tree": _tree,
    "date": _date,
    "hostname": _hostname,
    "file": _file,
    "rg": _rg,
}

#: The checkers above that only record targets (their arguments are written, not read).
_WRITERS = frozenset(("rm", "rmdir", "unlink", "shred", "truncate", "touch", "mkdir", "mkfifo",
                      "mknod", "chmod", "chown", "chgrp", "chattr", "setfacl", "cp", "mv",
                      "install", "ln", "dd", "tee"))
#: Programs that write the files they are given with an in-place option.
_INPLACE = frozenset(("sed", "gsed", "awk", "gawk", "mawk", "nawk", "perl", "ruby", "sort"))
#: Checkers whose verdict does not change when more arguments arrive at run time.
_EXTRA_OK = frozenset()
